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

This module holds the app and its views; `calendar_dates` the times, repetitions and month grid,
`calendar_editor` the event editor and its pickers.
"""

from __future__ import annotations

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
from android_world.env.sim.apps.calendar_dates import (
    DAY_S,
    LIST_DAYS,
    MONTH_S,
    REPEAT_SAME_DAY,
    REPETITIONS,
    UTC,
    WEEK_S,
    WEEKDAYS,
    YEAR_S,
    expand_occurrences,
    format_section,
    from_ts,
    month_grid,
    month_weeks,
    repetition_label,
    shift_month,
    to_ts,
    weekly_rule,
)
from android_world.env.sim.apps.calendar_editor import EventEditor
from android_world.env.sim.widgets import Node

# The dates and the editor live in their own modules; their names stay importable from here.
__all__ = [
    "DAY_S",
    "DB",
    "LIST_DAYS",
    "MONTH_S",
    "PACKAGE",
    "REPEAT_SAME_DAY",
    "REPETITIONS",
    "SCHEMA",
    "UTC",
    "WEEKDAYS",
    "WEEK_S",
    "YEAR_S",
    "CalendarApp",
    "DayScreen",
    "EventEditor",
    "EventListScreen",
    "EventSelecting",
    "MonthScreen",
    "SearchScreen",
    "change_view",
    "expand_occurrences",
    "format_day",
    "format_section",
    "from_ts",
    "grouped_rows",
    "month_grid",
    "month_weeks",
    "repetition_label",
    "shift_month",
    "to_ts",
    "view_actions",
    "weekly_rule",
]


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


def _today(screen: Screen) -> datetime.date:
    return screen.device.device_time().astimezone(UTC).date()


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
