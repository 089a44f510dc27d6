"""Simple Calendar Pro's event editor: the real app's fields and resource ids, the repetition
dialog, and Material date and time pickers in dialogs (tap a day; tap an hour, then a minute)."""

from __future__ import annotations

import datetime
from collections.abc import Callable

from android_world.env.device_facts.calendar import DB, format_day
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen
from android_world.env.sim.apps.calendar_dates import (
    MONTH_S,
    REPEAT_SAME_DAY,
    REPETITIONS,
    UTC,
    WEEK_S,
    YEAR_S,
    from_ts,
    month_grid,
    repetition_label,
    shift_month,
    to_ts,
    weekly_rule,
)
from android_world.env.sim.widgets import Node


class EventEditor(Screen):
    """New event (event_id None) or an existing one, with delete and save in the app bar."""

    def __init__(self, app: App, event_id: int | None, day: datetime.date):
        super().__init__(app)
        self.event_id = event_id
        self.title = self.location = self.description = ""
        self.repeat_interval = self.repeat_rule = 0
        now = self.device.device_time().astimezone(UTC)
        start_hour = min(23, now.hour + 1)
        self.start = datetime.datetime(day.year, day.month, day.day, start_hour, tzinfo=UTC)
        self.end = self.start + datetime.timedelta(hours=1)
        if event_id is not None:
            rows = self.device.sqlite_query(DB, "SELECT * FROM events WHERE id = ?", (event_id,))
            if rows:
                r = rows[0]
                self.title, self.location, self.description = (
                    r["title"],
                    r["location"],
                    r["description"],
                )
                self.start, self.end = from_ts(r["start_ts"]), from_ts(r["end_ts"])
                self.repeat_interval, self.repeat_rule = r["repeat_interval"], r["repeat_rule"]
        # picker drafts
        self.pick_target = "start"
        self.pick_date = self.start.date()
        self.view_year, self.view_month = self.start.year, self.start.month
        self.pick_hour, self.pick_minute, self.pick_mode = self.start.hour, 0, "hour"

    def build(self) -> Node:
        actions = [w.icon_button("Save", "check", self.save, res_id="save")]
        if self.event_id is not None:
            actions.insert(
                0, w.icon_button("Delete", "delete", self.confirm_delete, res_id="delete")
            )
        return w.column(
            w.app_bar(
                "New Event" if self.event_id is None else "Edit Event",
                on_up=self.close,
                actions=actions,
            ),
            w.scroll_list(
                "event_form",
                w.text_field(self.title, self._set("title"), hint="Title", key="event_title"),
                w.text_field(
                    self.location, self._set("location"), hint="Location", key="event_location"
                ),
                w.text_field(
                    self.description,
                    self._set("description"),
                    hint="Description",
                    key="event_description",
                ),
                w.divider(),
                self._when_row("Starts", self.start, "start"),
                self._when_row("Ends", self.end, "end"),
                w.divider(),
                w.list_row("Reminder", "No reminder", icon="bell", on_click=lambda: None),
                w.list_row(
                    "Repetition",
                    repetition_label(self.repeat_interval),
                    icon="refresh",
                    on_click=self.open_repetition,
                    key="event_repetition",
                ),
                w.list_row(
                    "Repeat till",
                    "Forever",
                    on_click=lambda: self.toast("Repeats forever"),
                    key="event_repetition_limit",
                )
                if self.repeat_interval
                else None,
            ),
            flex=1,
        )

    def _when_row(self, caption: str, when: datetime.datetime, which: str) -> Node:
        return w.row(
            w.label(caption, size=w.SECONDARY_SIZE, color="secondary", w=170),
            w.label(
                format_day(when.date()),
                clickable=True,
                focusable=True,
                on_click=lambda: self.open_date_picker(which),
                res_id=f"event_{which}_date",
                flex=1,
            ),
            w.label(
                f"{when:%H:%M}",
                clickable=True,
                focusable=True,
                on_click=lambda: self.open_time_picker(which),
                res_id=f"event_{which}_time",
                w=180,
            ),
            h=150,
            pad=(48, 0, 24, 0),
            gap=12,
        )

    def _set(self, attr: str) -> Callable[[str], None]:
        def setter(text: str) -> None:
            setattr(self, attr, text)

        return setter

    def _current(self, which: str) -> datetime.datetime:
        return self.start if which == "start" else self.end

    def _apply(self, which: str, value: datetime.datetime) -> None:
        if which == "start":
            duration = self.end - self.start
            self.start, self.end = value, value + duration
            if self.repeat_interval % WEEK_S == 0 and self.repeat_rule.bit_count() == 1:
                self.repeat_rule = weekly_rule(value.date())  # a single weekday follows the start
        else:
            self.end = value

    # repetition ----------------------------------------------------------------------------
    def open_repetition(self) -> None:
        self.show_dialog(
            lambda: w.dialog(
                "Repetition",
                body=[
                    w.radio_row(
                        text, value == self.repeat_interval, lambda v=value: self._repeat(v)
                    )
                    for text, value in REPETITIONS
                ],
                buttons=[("Cancel", self.dismiss)],
            )
        )

    def _repeat(self, interval: int) -> None:
        """As the real app: weekly repeats on the start's weekday, monthly and yearly on the
        same day of the month."""
        self.repeat_interval = interval
        if interval == WEEK_S:
            self.repeat_rule = weekly_rule(self.start.date())
        elif interval in (MONTH_S, YEAR_S):
            self.repeat_rule = REPEAT_SAME_DAY
        else:
            self.repeat_rule = 0
        self.dismiss()

    # date picker ---------------------------------------------------------------------------
    def open_date_picker(self, which: str) -> None:
        current = self._current(which)
        self.pick_target, self.pick_date = which, current.date()
        self.view_year, self.view_month = current.year, current.month
        self.show_dialog(self._date_dialog)

    def _date_dialog(self) -> Node:
        shown = datetime.date(self.view_year, self.view_month, 1)
        selected = (
            self.pick_date.day
            if (self.pick_date.year, self.pick_date.month) == (self.view_year, self.view_month)
            else None
        )
        return w.dialog(
            "Select date",
            body=[
                w.label(
                    self.pick_date.strftime("%a, %b %d"), size=60, h=90, res_id="date_picker_header"
                ),
                w.row(
                    w.icon_button("Previous month", "left", lambda: self._view_month(-1)),
                    w.label(shown.strftime("%B %Y"), center=True, flex=1),
                    w.icon_button("Next month", "right", lambda: self._view_month(1)),
                    h=144,
                ),
                month_grid(
                    self.view_year,
                    self.view_month,
                    on_pick=self._pick_day,
                    selected=selected,
                    today=None,
                    cell_h=110,
                    size=40,
                ),
            ],
            buttons=[("Cancel", self.dismiss), ("OK", self._confirm_date)],
        )

    def _view_month(self, delta: int) -> None:
        self.view_year, self.view_month = shift_month(self.view_year, self.view_month, delta)

    def _pick_day(self, day: int) -> None:
        self.pick_date = datetime.date(self.view_year, self.view_month, day)

    def _confirm_date(self) -> None:
        current = self._current(self.pick_target)
        d = self.pick_date
        self._apply(self.pick_target, current.replace(year=d.year, month=d.month, day=d.day))
        self.dismiss()

    # time picker ---------------------------------------------------------------------------
    def open_time_picker(self, which: str) -> None:
        current = self._current(which)
        self.pick_target, self.pick_hour, self.pick_minute, self.pick_mode = (
            which,
            current.hour,
            current.minute,
            "hour",
        )
        self.show_dialog(self._time_dialog)

    def _time_dialog(self) -> Node:
        header = self._time_header
        return w.dialog(
            "Select time",
            body=[
                w.row(
                    header(f"{self.pick_hour:02d}", "hour"),
                    w.label(":", size=72, w=40, h=130),
                    header(f"{self.pick_minute:02d}", "minute"),
                    h=130,
                    align="center",
                ),
                w.label(
                    "Select hour" if self.pick_mode == "hour" else "Select minutes",
                    size=w.SECONDARY_SIZE,
                    color="secondary",
                    center=True,
                ),
                *self._time_grid(),
            ],
            buttons=[("Cancel", self.dismiss), ("OK", self._confirm_time)],
        )

    def _time_header(self, text: str, mode: str) -> Node:
        """The hour or minute shown at the top: tapping it switches the grid to that mode."""
        return w.label(
            text,
            size=72,
            center=True,
            h=130,
            w=180,
            clickable=True,
            on_click=lambda: setattr(self, "pick_mode", mode),
            bold=self.pick_mode == mode,
            res_id=f"time_picker_{mode}",
        )

    def _time_grid(self) -> list[Node]:
        """Rows of hours (0-23) or minutes (every 5), the chosen one highlighted."""
        if self.pick_mode == "hour":
            values, per_row = list(range(24)), 4
            cell = lambda v: (f"{v:02d}", lambda: self._pick_hour(v))  # noqa: E731
            chosen = self.pick_hour
        else:
            values, per_row = list(range(0, 60, 5)), 4
            cell = lambda v: (f"{v:02d}", lambda: self._pick_minute(v))  # noqa: E731
            chosen = self.pick_minute
        grid = []
        for start in range(0, len(values), per_row):
            cells = []
            for v in values[start : start + per_row]:
                text, handler = cell(v)
                cells.append(
                    w.label(
                        text,
                        size=46,
                        center=True,
                        h=110,
                        clickable=True,
                        on_click=handler,
                        selected=v == chosen,
                        color="accent" if v == chosen else "text",
                        res_id="time_picker_cell",
                    )
                )
            grid.append(w.row(*cells, h=110))
        return grid

    def _pick_hour(self, hour: int) -> None:
        self.pick_hour, self.pick_mode = hour, "minute"

    def _pick_minute(self, minute: int) -> None:
        self.pick_minute = minute

    def _confirm_time(self) -> None:
        current = self._current(self.pick_target)
        self._apply(self.pick_target, current.replace(hour=self.pick_hour, minute=self.pick_minute))
        self.dismiss()

    # saving and deleting -------------------------------------------------------------------
    def save(self) -> None:
        title = self.title.strip()
        if not title:
            self.toast("Title cannot be empty")
            return
        if self.end < self.start:
            self.toast("The end date cannot be before the start date")
            return
        now = int(self.device.device_time().timestamp() * 1000)
        values = (
            to_ts(self.start),
            to_ts(self.end),
            title,
            self.location.strip(),
            self.description.strip(),
            now,
            self.repeat_interval,
            self.repeat_rule,
        )
        if self.event_id is None:
            self.device.sqlite_execute(
                DB,
                "INSERT INTO events (start_ts, end_ts, title, location, description, last_updated,"
                " repeat_interval, repeat_rule) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            )
        else:
            self.device.sqlite_execute(
                DB,
                "UPDATE events SET start_ts = ?, end_ts = ?, title = ?, location = ?, description = ?,"
                " last_updated = ?, repeat_interval = ?, repeat_rule = ? WHERE id = ?",
                (*values, self.event_id),
            )
        self.close()
        self.toast("Event saved")

    def confirm_delete(self) -> None:
        self.show_dialog(
            lambda: w.dialog(
                "Delete event",
                "Are you sure you want to proceed with the deletion?",
                buttons=[("Cancel", self.dismiss), ("Delete", self.delete)],
            )
        )

    def delete(self) -> None:
        self.device.sqlite_execute(DB, "DELETE FROM events WHERE id = ?", (self.event_id,))
        self.dismiss()
        self.close()
        self.toast("Event deleted")
