"""Simple Calendar Pro: month view, day view and the event editor, over the real `events.db`.

Events live in upstream's `events` table (times are epoch seconds, the device is on UTC). The
month view opens on the device's month; a day cell opens that day's events; the editor has the
real app's fields and resource ids (`event_start_date`, `event_start_time`, ...) and Material
date and time pickers in dialogs (tap a day; tap an hour, then a minute), because pickers are
how the real app is driven. Changing the start moves the end with it, keeping the duration.

Repeating events are one row with the real app's `repeat_interval` (seconds: 86400 daily,
604800 weekly, ...) and `repeat_rule` (weekly: a bit per weekday, Monday = 1; monthly and yearly:
1, the same day); the views show every occurrence. Beyond the month and day views there is an
event list view ("Change view") and a search page (title, location or description); a long
press in a day or list view selects events to delete several at once.
"""

from __future__ import annotations

import calendar as std_calendar
import datetime
from collections.abc import Callable

from android_world.env.device_facts.calendar import (
    DB,
    PACKAGE,
    SCHEMA,
    format_day,
)
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen, Selecting
from android_world.env.sim.widgets import Node

UTC = datetime.UTC
WEEKDAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")
DAY_S, WEEK_S, MONTH_S, YEAR_S = 86400, 604800, 2592001, 31536000
REPEAT_SAME_DAY = 1
# (label, repeat_interval) offered by the Repetition dialog, in the real app's order.
REPETITIONS = (
    ("No repetition", 0),
    ("Daily", DAY_S),
    ("Weekly", WEEK_S),
    ("Monthly", MONTH_S),
    ("Yearly", YEAR_S),
)
LIST_DAYS = 366  # how far ahead the event list view reaches


def to_ts(when: datetime.datetime) -> int:
    return (
        int(when.replace(tzinfo=UTC).timestamp()) if when.tzinfo is None else int(when.timestamp())
    )


def from_ts(ts: int) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(ts, tz=UTC)


def month_weeks(year: int, month: int) -> list[list[int]]:
    """Weeks of the month, Sunday first; 0 marks a day of another month."""
    return std_calendar.Calendar(firstweekday=6).monthdayscalendar(year, month)


def shift_month(year: int, month: int, delta: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + delta
    return index // 12, index % 12 + 1


class CalendarApp(App):
    package = PACKAGE

    def install(self) -> None:
        self.device.sqlite_execute(DB, SCHEMA)

    def main_screen(self) -> Screen:
        return MonthScreen(self)


def _events_between(screen: Screen, start: datetime.datetime, end: datetime.datetime) -> list[dict]:
    """Events (and occurrences of repeating ones) starting in [start, end), earliest first."""
    rows = screen.device.sqlite_query(
        DB,
        "SELECT * FROM events WHERE (start_ts >= ? AND start_ts < ?) OR"
        " (repeat_interval > 0 AND start_ts < ?) ORDER BY start_ts, id",
        (to_ts(start), to_ts(end), to_ts(end)),
    )
    return expand_occurrences(rows, to_ts(start), to_ts(end))


def weekly_rule(day: datetime.date) -> int:
    """The real app's weekly repeat rule for one weekday: Monday 1, Tuesday 2, ... Sunday 64."""
    return 1 << (day.isoweekday() - 1)


def _occurrence_starts(row: dict, lo: int, hi: int) -> list[int]:
    """Start times in [lo, hi) of one event, following its repetition (forever, or until
    `repeat_limit` when that is a positive timestamp)."""
    first, interval, rule = row["start_ts"], row["repeat_interval"], row["repeat_rule"]
    if interval <= 0:
        return [first] if lo <= first < hi else []
    limit = row.get("repeat_limit") or 0
    hi = min(hi, limit + 1) if limit > 0 else hi
    begin = from_ts(first)
    starts: list[int] = []
    if interval % WEEK_S == 0 and rule:
        weeks = interval // WEEK_S
        monday = begin - datetime.timedelta(days=begin.weekday())
        day = begin
        while to_ts(day) < hi:
            week_index = (day - monday).days // 7
            if week_index % weeks == 0 and rule & weekly_rule(day.date()):
                starts.append(to_ts(day))
            day += datetime.timedelta(days=1)
    elif interval % DAY_S == 0:
        step = interval
        ts = first if first >= lo else first + ((lo - first + step - 1) // step) * step
        starts = list(range(ts, hi, step))
    else:  # monthly or yearly on the same day (months without that day are skipped)
        months = 12 if interval % YEAR_S == 0 else max(1, interval // MONTH_S)
        k = 0
        while True:
            y, m = shift_month(begin.year, begin.month, k * months)
            k += 1
            if datetime.datetime(y, m, 1, tzinfo=UTC) >= from_ts(hi):
                break
            if begin.day <= std_calendar.monthrange(y, m)[1]:
                starts.append(to_ts(begin.replace(year=y, month=m)))
    return [ts for ts in starts if lo <= ts < hi]


def expand_occurrences(rows: list[dict], lo: int, hi: int) -> list[dict]:
    """One dict per occurrence in [lo, hi): the row with its start and end shifted."""
    found = []
    for row in rows:
        duration = row["end_ts"] - row["start_ts"]
        for ts in _occurrence_starts(row, lo, hi):
            found.append(dict(row, start_ts=ts, end_ts=ts + duration))
    return sorted(found, key=lambda r: (r["start_ts"], r["id"]))


def repetition_label(interval: int) -> str:
    for text, value in REPETITIONS:
        if value == interval:
            return text
    if interval % WEEK_S == 0:
        return f"Every {interval // WEEK_S} weeks"
    if interval % DAY_S == 0:
        return f"Every {interval // DAY_S} days"
    return "Custom"


def format_section(day: datetime.date) -> str:
    """A day's header in the event list and in search results, e.g. "Monday, October 16, 2023"."""
    return f"{day:%A, %B} {day.day}, {day.year}"


def _today(screen: Screen) -> datetime.date:
    return screen.device.device_time().astimezone(UTC).date()


def _day_cell(
    day: int,
    *,
    selected: bool,
    today: bool,
    dots: int,
    on_click: Callable[[], None] | None,
    h: int,
    size: int,
) -> Node:
    if not day:
        return w.spacer(h=h)
    marks = [
        Node(kind="box", cls="android.view.View", w=16, h=16, style={"bg": "accent"})
        for _ in range(min(dots, 3))
    ]
    return w.column(
        w.label(
            str(day),
            size=size,
            center=True,
            color="accent" if today else "text",
            bold=today,
            h=int(size * 1.5),
        ),
        w.row(*marks, h=24, gap=10, align="center") if marks else w.spacer(h=24),
        kind="box",
        h=h,
        pad=(0, 12, 0, 0),
        clickable=on_click is not None,
        focusable=True,
        on_click=on_click,
        selected=selected,
        style={"bg": "tonal"} if selected else {},
    )


def month_grid(
    year: int,
    month: int,
    *,
    on_pick: Callable[[int], None],
    selected: int | None,
    today: int | None,
    dots: dict[int, int] | None = None,
    cell_h: int = 220,
    size: int = 44,
) -> Node:
    """Weekday header and the weeks of a month; tapping a day calls on_pick(day)."""
    dots = dots or {}
    header = w.row(*[w.label(d, size=34, color="secondary", center=True) for d in WEEKDAYS], h=70)
    weeks = [
        w.row(
            *[
                _day_cell(
                    day,
                    selected=day == selected,
                    today=day == today,
                    dots=dots.get(day, 0),
                    on_click=(lambda d=day: on_pick(d)) if day else None,
                    h=cell_h,
                    size=size,
                )
                for day in week
            ],
            h=cell_h,
        )
        for week in month_weeks(year, month)
    ]
    return w.column(header, *weeks, res_id="month_view")


def view_actions(screen: Screen) -> list[Node]:
    """The main views' shared app-bar icons: change view, search, more options."""
    return [
        w.icon_button("Change view", "apps", lambda: change_view(screen)),
        w.icon_button("Search", "search", lambda: screen.push(SearchScreen(screen.app))),
        w.icon_button(
            "More options",
            "more",
            lambda: screen.show_menu([("Settings", lambda: None), ("About", lambda: None)]),
        ),
    ]


def change_view(screen: Screen) -> None:
    """The real app's "Change view" dialog; the choice replaces the main view."""

    def pick(make: Callable[[App], Screen]) -> Callable[[], None]:
        def run() -> None:
            screen.dismiss()
            screen.app.stack = [make(screen.app)]

        return run

    current = type(screen.app.stack[0]) if screen.app.stack else MonthScreen
    screen.show_dialog(
        lambda: w.dialog(
            "Change view",
            body=[
                w.radio_row("Month view", current is MonthScreen, pick(MonthScreen)),
                w.radio_row("Event list view", current is EventListScreen, pick(EventListScreen)),
            ],
            buttons=[("Cancel", screen.dismiss)],
        )
    )


class EventSelecting(Selecting):
    """Event rows that open the editor on a tap and, after a long press, select for deletion."""

    selected: set[int]

    def event_row(self, e: dict, day: datetime.date) -> Node:
        screen: Screen = self  # type: ignore[assignment]
        event_id = e["id"]

        def tap() -> None:
            if self.selected:
                self.toggle(event_id)
            else:
                screen.push(EventEditor(screen.app, event_id, day))

        return w.list_row(
            e["title"],
            f"{from_ts(e['start_ts']):%H:%M} - {from_ts(e['end_ts']):%H:%M}",
            on_click=tap,
            on_long_click=lambda: self.toggle(event_id),
            selected=event_id in self.selected,
            key=f"event_{event_id}_{e['start_ts']}",
        )

    def selection_bar(self) -> Node | None:
        if not self.selected:
            return None
        return w.app_bar(
            f"{len(self.selected)} selected",
            on_up=self.clear_selection,
            actions=[w.icon_button("Delete", "delete", self.confirm_delete_selected)],
        )

    def confirm_delete_selected(self) -> None:
        screen: Screen = self  # type: ignore[assignment]

        def delete() -> None:
            for event_id in sorted(self.selected):
                screen.device.sqlite_execute(DB, "DELETE FROM events WHERE id = ?", (event_id,))
            count = len(self.selected)
            self.clear_selection()
            screen.dismiss()
            screen.toast(f"{count} event{'s' if count != 1 else ''} deleted")

        screen.show_dialog(
            lambda: w.dialog(
                "Delete events",
                "Are you sure you want to proceed with the deletion?",
                buttons=[("Cancel", screen.dismiss), ("Delete", delete)],
            )
        )


class MonthScreen(Screen):
    """The month view; a day opens the day view."""

    def __init__(self, app: App):
        super().__init__(app)
        today = _today(self)
        self.year, self.month = today.year, today.month

    def build(self) -> Node:
        first = datetime.datetime(self.year, self.month, 1, tzinfo=UTC)
        ny, nm = shift_month(self.year, self.month, 1)
        events = _events_between(self, first, datetime.datetime(ny, nm, 1, tzinfo=UTC))
        dots: dict[int, int] = {}
        for e in events:
            day = from_ts(e["start_ts"]).day
            dots[day] = dots.get(day, 0) + 1
        today = _today(self)
        is_current = (today.year, today.month) == (self.year, self.month)
        title = first.strftime("%B %Y")
        content = w.column(
            w.app_bar(
                "Simple Calendar Pro",
                actions=[
                    w.icon_button("Go to today", "calendar", self.go_today),
                    *view_actions(self),
                ],
            ),
            w.row(
                w.icon_button("Previous month", "left", lambda: self.move(-1)),
                w.label(title, size=50, center=True, flex=1, res_id="top_value"),
                w.icon_button("Next month", "right", lambda: self.move(1)),
                h=150,
                pad=(24, 0, 24, 0),
            ),
            month_grid(
                self.year,
                self.month,
                on_pick=self.open_day,
                selected=None,
                today=today.day if is_current else None,
                dots=dots,
            ),
            w.spacer(flex=1),
            flex=1,
        )
        return w.with_fab(content, w.fab("New Event", self.new_event, res_id="calendar_fab"))

    def move(self, delta: int) -> None:
        self.year, self.month = shift_month(self.year, self.month, delta)

    def go_today(self) -> None:
        today = _today(self)
        self.year, self.month = today.year, today.month

    def open_day(self, day: int) -> None:
        self.push(DayScreen(self.app, datetime.date(self.year, self.month, day)))

    def new_event(self) -> None:
        self.push(EventEditor(self.app, None, _today(self)))


class DayScreen(EventSelecting, Screen):
    """One day's events, earliest first; a long press starts selecting events to delete."""

    def __init__(self, app: App, day: datetime.date):
        super().__init__(app)
        self.day = day
        self.selected: set[int] = set()

    def build(self) -> Node:
        start = datetime.datetime(self.day.year, self.day.month, self.day.day, tzinfo=UTC)
        events = _events_between(self, start, start + datetime.timedelta(days=1))
        rows = [self.event_row(e, self.day) for e in events]
        bar = self.selection_bar() or w.app_bar(
            self.day.strftime("%A, %B %d"),
            subtitle=str(self.day.year),
            on_up=self.close,
            actions=[
                w.icon_button("Previous day", "left", lambda: self.move(-1)),
                w.icon_button("Next day", "right", lambda: self.move(1)),
            ],
        )
        content = w.column(
            bar,
            w.scroll_list(
                "day_events", *rows, pad=(0, 0, 0, 240), res_id="day_events", clip_to_padding=False
            )
            if rows
            else w.empty_state("No upcoming events"),
            flex=1,
        )
        return w.with_fab(content, w.fab("New Event", self.new_event, res_id="calendar_fab"))

    def move(self, delta: int) -> None:
        self.day += datetime.timedelta(days=delta)
        self.scroll_offsets.clear()
        self.clear_selection()

    def new_event(self) -> None:
        self.push(EventEditor(self.app, None, self.day))


def _section(day: datetime.date) -> Node:
    return w.label(
        format_section(day),
        size=w.SECONDARY_SIZE,
        color="accent",
        bold=True,
        h=110,
        pad=(48, 30, 24, 0),
        res_id="event_section_title",
    )


def grouped_rows(screen: EventSelecting, events: list[dict], empty: str) -> list[Node]:
    """Event rows under a header per day, as the list view and search results show them."""
    rows: list[Node] = []
    shown: datetime.date | None = None
    for e in events:
        day = from_ts(e["start_ts"]).date()
        if day != shown:
            rows.append(_section(day))
            shown = day
        rows.append(screen.event_row(e, day))
    return rows or [w.empty_state(empty)]


class EventListScreen(EventSelecting, Screen):
    """The event list view: every event from today on, under a header per day."""

    def __init__(self, app: App):
        super().__init__(app)
        self.selected: set[int] = set()

    def build(self) -> Node:
        today = _today(self)
        start = datetime.datetime(today.year, today.month, today.day, tzinfo=UTC)
        events = _events_between(self, start, start + datetime.timedelta(days=LIST_DAYS))
        bar = self.selection_bar() or w.app_bar("Simple Calendar Pro", actions=view_actions(self))
        content = w.column(
            bar,
            w.scroll_list(
                "event_list",
                *grouped_rows(self, events, "No upcoming events"),
                pad=(0, 0, 0, 240),
                res_id="calendar_events_list",
            ),
            flex=1,
        )
        return w.with_fab(content, w.fab("New Event", self.new_event, res_id="calendar_fab"))

    def new_event(self) -> None:
        self.push(EventEditor(self.app, None, _today(self)))


class SearchScreen(EventSelecting, Screen):
    """Search: events whose title, location or description contains the query, by date."""

    def __init__(self, app: App):
        super().__init__(app)
        self.query = ""
        self.selected: set[int] = set()
        self.focus = "search_query"

    def build(self) -> Node:
        query = self.query.strip().lower()
        events = []
        if query:
            events = [
                e
                for e in self.device.sqlite_query(DB, "SELECT * FROM events ORDER BY start_ts, id")
                if any(query in (e[f] or "").lower() for f in ("title", "location", "description"))
            ]
        results = grouped_rows(self, events, "No events found") if query else []
        bar = self.selection_bar() or w.row(
            w.icon_button("Navigate up", "back", self.close),
            w.text_field(self.query, self._set_query, hint="Search", key="search_query"),
            h=180,
            pad=(12, 15, 24, 15),
            align="center",
        )
        return w.column(
            bar,
            w.divider(),
            w.scroll_list("search_results", *results, res_id="search_results"),
            flex=1,
        )

    def _set_query(self, text: str) -> None:
        self.query = text
        self.scroll_offsets.clear()


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
        def header(text: str, mode: str) -> Node:
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
                *grid,
            ],
            buttons=[("Cancel", self.dismiss), ("OK", self._confirm_time)],
        )

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
