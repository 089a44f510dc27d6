"""More Simple Calendar Pro tasks (upstream `single/calendar/calendar.py`): relative dates,
repeating events and deleting every event of a day.

The add tasks are upstream's subclasses of SimpleCalendarAddOneEvent: the same check (exactly
one new row matching start, end, title, location, description, repeat rule and interval; text
fields fuzzy; nothing else changed), only the date is drawn differently ("tomorrow", "in two
weeks", "this Friday"). The delete tasks seed their targets on one day and twenty noise events
on other days, and pass when exactly the targets are gone.
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Iterator
from typing import Any

from android_world.env import interface
from android_world.env.device_facts import calendar as calendar_facts
from android_world.env.json_action import JSONAction
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.single import calendar as cal
from android_world.task_evals.single.table_tasks import removal_ok

UTC = datetime.UTC
TODAY = cal.TODAY
# Upstream's `_REPEAT_INTERVALS`: the goal's word -> the app's repeat_interval in seconds.
REPEAT_INTERVALS = {"daily": 60 * 60 * 24, "weekly": 60 * 60 * 24 * 7}
RELATIVE_DAY_RANGE = 6  # "this Monday" .. "this Saturday": the six days after Sunday the 15th


def event_on(start_day: int, end_day: int) -> dict[str, Any]:
    """A generated event on a random day of [start_day, end_day] of October, whole hour."""
    return cal.generate_event(cal.october_ts(start_day, end_day))


def add_params(event: dict[str, Any]) -> dict[str, Any]:
    """Upstream's add-task params: the event's fields and 0-20 noise events with other titles."""
    noise = cal.noise_events(random.randint(0, 20), lambda c: c["title"] != event["title"])
    return cal.event_params(event, noise)


def weekly_repeat_rule(day: datetime.date) -> int:
    """Upstream's `generate_simple_calendar_weekly_repeat_rule`: Monday 1, ..., Sunday 64."""
    return 1 << (day.isoweekday() - 1)


# ---- oracle helpers -------------------------------------------------------------------------


def fill_event(env: interface.AsyncEnv, p: dict[str, Any]) -> Iterator[JSONAction]:
    """From the event editor, type the title and description and set start and end."""
    start = datetime.datetime(p["year"], p["month"], p["day"], p["hour"], tzinfo=UTC)
    end = start + datetime.timedelta(minutes=p["duration_mins"])
    yield ui.type_into(env, ui.hint_is("Title"), p["event_title"], "the Title field")
    yield ui.type_into(
        env, ui.hint_is("Description"), p["event_description"], "the Description field"
    )
    if cal.label_text(env, "event_start_date") != calendar_facts.format_day(start.date()):
        yield from cal.pick_date(env, "start", start.date())
    if cal.label_text(env, "event_start_time") != f"{start:%H:%M}":
        yield from cal.pick_time(env, "start", start.hour, start.minute)
    if cal.label_text(env, "event_end_date") != calendar_facts.format_day(end.date()):
        yield from cal.pick_date(env, "end", end.date())
    if cal.label_text(env, "event_end_time") != f"{end:%H:%M}":
        yield from cal.pick_time(env, "end", end.hour, end.minute)


def event_title_indices(env: interface.AsyncEnv) -> list[int]:
    """Indices of the visible event rows' titles (the text above each "HH:MM - HH:MM")."""
    items = ui.elements(env)
    return [
        i - 1
        for i in range(1, len(items))
        if cal._TIME_RANGE.match(items[i].text or "")
        and items[i - 1].text
        and ui.visible(items[i - 1])
    ]


def delete_all_shown(env: interface.AsyncEnv) -> Iterator[JSONAction]:
    """Select every event row on screen (long press, then taps) and delete them together."""
    count = len(event_title_indices(env))
    if not count:
        raise RuntimeError("Oracle found no events to delete.")
    for k in range(count):
        yield JSONAction(
            action_type="long_press" if k == 0 else "click", index=event_title_indices(env)[k]
        )
    yield ui.tap(env, desc="Delete")  # the selection's Delete icon
    yield ui.tap(env, text="Delete")  # the confirmation dialog's button


# ---- add tasks ------------------------------------------------------------------------------


class SimpleCalendarAddOneEventRelativeDay(cal.SimpleCalendarAddOneEvent):
    """Create an event "this <weekday>": a day from Monday the 16th to Saturday the 21st."""

    complexity = 3.4
    difficulty = "easy"
    tags = ("data_entry", "parameterized")
    optimal_steps = 17
    template = (
        "In Simple Calendar Pro, create a calendar event for this {day_of_week}"
        " at {hour}h with the title '{event_title}' and the description"
        " '{event_description}'. The event should last for {duration_mins} mins."
    )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return add_params(event_on(TODAY.day + 1, TODAY.day + RELATIVE_DAY_RANGE))

    @property
    def goal(self) -> str:
        """The event's weekday is named from its row, as upstream's goal does (not a param)."""
        day_of_week = cal.start_of(self.params[cal.ROW_OBJECTS][0]).strftime("%A")
        return self.template.format(**self.params, day_of_week=day_of_week)


class SimpleCalendarAddOneEventTomorrow(cal.SimpleCalendarAddOneEvent):
    """Create an event for tomorrow (the 16th)."""

    complexity = 3.4
    difficulty = "easy"
    tags = ("data_entry", "parameterized")
    optimal_steps = 13
    template = (
        "In Simple Calendar Pro, create a calendar event for tomorrow"
        " at {hour}h with the title '{event_title}' and the description"
        " '{event_description}'. The event should last for {duration_mins} mins."
    )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return add_params(event_on(TODAY.day + 1, TODAY.day + 1))


class SimpleCalendarAddOneEventInTwoWeeks(cal.SimpleCalendarAddOneEvent):
    """Create an event two weeks from today (the 29th)."""

    complexity = 3.4
    difficulty = "medium"
    tags = ("data_entry", "math_counting", "parameterized")
    optimal_steps = 10
    template = (
        "In Simple Calendar Pro, create a calendar event in two weeks from today"
        " at {hour}h with the title '{event_title}' and the description"
        " '{event_description}'. The event should last for {duration_mins} mins."
    )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return add_params(event_on(TODAY.day + 14, TODAY.day + 14))


class SimpleCalendarAddRepeatingEvent(cal.SimpleCalendarAddOneEvent):
    """Create an event that repeats daily or weekly, forever."""

    complexity = 3.4
    difficulty = "easy"
    tags = ("data_entry", "complex_ui_understanding", "parameterized")
    optimal_steps = 14
    template = (
        "In Simple Calendar Pro, create a recurring calendar event titled"
        " '{event_title}' starting on {year}-{month}-{day} at"
        " {hour}h. The event recurs {repeat_rule}, forever, and lasts for"
        " {duration_mins} minutes each occurrence. The event description should"
        " be '{event_description}'."
    )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        event = cal.generate_event(cal.october_ts())
        word = random.choice(list(REPEAT_INTERVALS))
        event["repeat_interval"] = REPEAT_INTERVALS[word]
        event["repeat_rule"] = (
            weekly_repeat_rule(cal.start_of(event).date()) if word == "weekly" else 0
        )
        params = add_params(event)
        params["repeat_rule"] = word
        return params

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        p = self.params
        yield from cal.open_day(env, datetime.date(p["year"], p["month"], p["day"]))
        yield ui.click(env, ui.desc_is("New Event"), "the New Event button")
        yield from fill_event(env, p)
        index = yield from ui.scroll_to(env, ui.text_is("Repetition"), "the Repetition row")
        yield JSONAction(action_type="click", index=index)
        yield ui.tap(env, text=p["repeat_rule"].capitalize())
        yield ui.click(env, ui.desc_is("Save"), "the Save button")
        yield ui.done()


# ---- delete tasks ---------------------------------------------------------------------------


class SimpleCalendarDeleteEvents(cal._SimpleCalendar):
    """Delete the three events of one day; twenty noise events sit on other days."""

    n_rows = 3
    n_rows_noise = 20
    complexity = 1.4
    difficulty = "easy"
    tags = ("parameterized", "data_edit")
    optimal_steps = 7
    template = "In Simple Calendar Pro, delete all the calendar events on {year}-{month}-{day}"

    def __init__(self, params: dict[str, Any]):
        super().__init__(params)
        self.target_ids: set[int] = set()

    @classmethod
    def _target_day(cls) -> int:
        return cal.start_of(cal.generate_event(cal.october_ts())).day

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        day = cls._target_day()
        events = [event_on(day, day) for _ in range(cls.n_rows)]
        noise = cal.noise_events(cls.n_rows_noise, lambda c: cal.start_of(c).day != day)
        params: dict[str, Any] = {"year": TODAY.year, "month": TODAY.month, "day": day}
        if "{day_of_week}" in cls.template:  # upstream's relative-day variant names the day
            params["day_of_week"] = datetime.date(TODAY.year, TODAY.month, day).strftime("%A")
        return {**params, cal.ROW_OBJECTS: events, cal.NOISE_ROW_OBJECTS: noise}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        cal.add_events(env, self.params[cal.ROW_OBJECTS])
        self.before = cal.list_events(env)
        if len(self.before) != self.n_rows + self.n_rows_noise:
            raise RuntimeError(
                f"{self.name}: {len(self.before)} events seeded, expected "
                f"{self.n_rows + self.n_rows_noise}."
            )
        self.target_ids = {row["id"] for row in self.before[-self.n_rows :]}

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        ok = removal_ok(self.before, cal.list_events(env), self.target_ids, "id")
        return 1.0 if ok else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        p = self.params
        yield from cal.open_day(env, datetime.date(p["year"], p["month"], p["day"]))
        yield from delete_all_shown(env)
        yield ui.done()


class SimpleCalendarDeleteEventsOnRelativeDay(SimpleCalendarDeleteEvents):
    """Delete the two events of "this <weekday>" (Monday the 16th to Saturday the 21st)."""

    n_rows = 2
    complexity = 1.2
    difficulty = "medium"
    tags = ("data_edit", "parameterized")
    optimal_steps = 6
    template = "In Simple Calendar Pro, delete all events scheduled for this {day_of_week}."

    @classmethod
    def _target_day(cls) -> int:
        return cal.start_of(event_on(TODAY.day + 1, TODAY.day + RELATIVE_DAY_RANGE)).day
