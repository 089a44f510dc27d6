"""Simple Calendar Pro tasks (upstream `single/calendar/calendar.py`), checked on `events`.

Events are dicts with upstream's `CalendarEvent` fields (epoch seconds, UTC device). Adding an
event passes when exactly one new row matches start, end, title, location and description
(text fields fuzzy) and nothing else changed; deleting passes when the target row is gone and
the noise rows (twenty of them, anywhere in October, as upstream draws them) are untouched.
"""

from __future__ import annotations

import datetime
import itertools
import random
import re
from collections.abc import Iterator
from typing import Any

from android_world.env import device, interface
from android_world.env.device_facts import calendar as calendar_facts
from android_world.env.json_action import JSONAction
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals import task_eval
from android_world.task_evals.single.table_tasks import addition_ok, removal_ok

APP_NAME = "simple calendar pro"
DB = calendar_facts.DB
ROW_OBJECTS = "row_objects"
NOISE_ROW_OBJECTS = "noise_row_objects"
UTC = datetime.UTC
TODAY = device.FROZEN_DEVICE_TIME.date()

_TITLE_PREFIXES = [
    "Meeting with",
    "Call with",
    "Workshop on",
    "Appointment for",
    "Catch up on",
    "Review session for",
]
_NAMES = ["Alice", "Bob", "the Team", "HR", "Dr. Smith", "Marketing"]
_SUBJECTS = ["Project X", "Annual Report", "Budget Planning", "Campaign"]
_ACTIONS = [
    "discuss",
    "finalize",
    "plan",
    "celebrate",
    "prepare for",
    "review",
    "explore",
    "understand",
    "organize",
    "strategize about",
]
_TOPICS = [
    "upcoming project milestones",
    "marketing strategies",
    "annual budget",
    "product launch",
    "team roles",
    "client feedback",
    "contract details",
    "software updates",
    "business objectives",
]
_NOTES = [
    "Please bring relevant documents.",
    "Remember to confirm attendance.",
    "Let's be punctual.",
    "Looking forward to productive discussions.",
    "Snacks will be provided.",
]
_COMPARED = (
    "start_ts",
    "end_ts",
    "title",
    "location",
    "description",
    "repeat_rule",
    "repeat_interval",
)
_TIME_RANGE = re.compile(r"^(\d\d):(\d\d) - (\d\d):(\d\d)$")


# ---- data -----------------------------------------------------------------------------------


def october_ts(start_day: int = TODAY.day, end_day: int = 31, start_hour: int = 0) -> int:
    """Upstream's `create_random_october_2023_unix_ts`: a random day and whole hour."""
    when = datetime.datetime(
        2023, 10, random.randint(start_day, end_day), random.randint(start_hour, 23), tzinfo=UTC
    )
    return int(when.timestamp())


def event_title() -> str:
    prefix = random.choice(_TITLE_PREFIXES)
    return f"{prefix} {random.choice(_NAMES) if 'with' in prefix else random.choice(_SUBJECTS)}"


def event_description() -> str:
    text = f"We will {random.choice(_ACTIONS)} {random.choice(_TOPICS)}."
    if random.choice([False, True]):
        text += f" {random.choice(_NOTES)}"
    return text


def make_event(
    start_ts: int, end_ts: int, title: str, description: str = "", location: str = ""
) -> dict[str, Any]:
    return {
        "start_ts": start_ts,
        "end_ts": end_ts,
        "title": title,
        "location": location,
        "description": description,
        "repeat_interval": 0,
        "repeat_rule": 0,
    }


def generate_event(start_ts: int) -> dict[str, Any]:
    """Upstream's `events_generator.generate_event`: 15-60 minutes, a realistic title."""
    end_ts = start_ts + random.choice([15, 30, 45, 60]) * 60
    return make_event(start_ts, end_ts, event_title(), event_description())


def start_of(event: dict[str, Any]) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(event["start_ts"], tz=UTC)


def event_params(event: dict[str, Any], noise: list[dict[str, Any]]) -> dict[str, Any]:
    """The goal's fields for one event (the add and delete tasks state the same ones)."""
    start = start_of(event)
    return {
        "year": start.year,
        "month": start.month,
        "day": start.day,
        "hour": start.hour,
        "duration_mins": (event["end_ts"] - event["start_ts"]) // 60,
        "event_title": event["title"],
        "event_description": event["description"],
        ROW_OBJECTS: [event],
        NOISE_ROW_OBJECTS: noise,
    }


def noise_events(n: int, keep) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while len(events) < n:
        candidate = generate_event(october_ts(start_day=1))
        if keep(candidate):
            events.append(candidate)
    return events


def clear(env: interface.AsyncEnv) -> None:
    env.controller.sqlite_execute(DB, calendar_facts.SCHEMA)
    env.controller.sqlite_execute(DB, "DELETE FROM events")


def add_events(env: interface.AsyncEnv, events: list[dict[str, Any]]) -> None:
    """One multi-row INSERT (one sqlite round trip, also over adb); ids follow list order."""
    if not events:
        return
    columns = (
        "start_ts",
        "end_ts",
        "title",
        "location",
        "description",
        "repeat_interval",
        "repeat_rule",
    )
    defaults = {"location": "", "description": "", "repeat_interval": 0, "repeat_rule": 0}
    values = ", ".join(["(?, ?, ?, ?, ?, ?, ?, 'imported-ics')"] * len(events))
    params = tuple(e.get(c, defaults.get(c)) for e in events for c in columns)
    env.controller.sqlite_execute(
        DB, f"INSERT INTO events ({', '.join(columns)}, source) VALUES {values}", params
    )


def list_events(env: interface.AsyncEnv) -> list[dict[str, Any]]:
    return env.controller.sqlite_query(DB, "SELECT * FROM events ORDER BY id")


# ---- oracle helpers -------------------------------------------------------------------------


def open_day(env: interface.AsyncEnv, day: datetime.date) -> Iterator[JSONAction]:
    """From the month view of the right month, tap the day's cell."""
    yield ui.open_app("Simple Calendar Pro")
    wanted = day.strftime("%B %Y")
    for _ in range(3):
        if ui.find(ui.elements(env), ui.text_is(wanted)) is not None:
            break
        today_month = ui.find(ui.elements(env), ui.res_is("top_value"))
        label = ui.elements(env)[today_month].text if today_month is not None else ""
        shown = datetime.datetime.strptime(label, "%B %Y").date() if label else day
        yield ui.click(
            env, ui.desc_is("Next month" if shown < day else "Previous month"), "the month arrows"
        )
    yield ui.click(env, ui.text_is(str(day.day)), f"day {day.day}")


def day_events_on_screen(env: interface.AsyncEnv) -> list[tuple[str, str, str]]:
    """(title, start 'HH:MM', end 'HH:MM') of the event rows shown in a day view."""
    items = ui.elements(env)
    found = []
    for previous, element in itertools.pairwise(items):
        m = _TIME_RANGE.match(element.text or "")
        if m and previous.text:
            found.append((previous.text, f"{m[1]}:{m[2]}", f"{m[3]}:{m[4]}"))
    return found


def pick_time(env: interface.AsyncEnv, which: str, hour: int, minute: int) -> Iterator[JSONAction]:
    yield ui.click(env, ui.res_is(f"event_{which}_time"), f"the {which} time")
    yield ui.click(
        env,
        lambda e: e.resource_name == "time_picker_cell" and e.text == f"{hour:02d}",
        f"hour {hour}",
    )
    yield ui.click(
        env,
        lambda e: e.resource_name == "time_picker_cell" and e.text == f"{minute:02d}",
        f"minute {minute}",
    )
    yield ui.click(env, ui.text_is("OK"), "OK")


def pick_date(env: interface.AsyncEnv, which: str, day: datetime.date) -> Iterator[JSONAction]:
    yield ui.click(env, ui.res_is(f"event_{which}_date"), f"the {which} date")
    if ui.find(ui.elements(env), ui.text_is(day.strftime("%B %Y"))) is None:
        yield ui.click(env, ui.desc_is("Next month"), "Next month")
    yield ui.click(env, ui.text_is(str(day.day)), f"day {day.day}")
    yield ui.click(env, ui.text_is("OK"), "OK")


def label_text(env: interface.AsyncEnv, res: str) -> str:
    items = ui.elements(env)
    index = ui.find(items, ui.res_is(res))
    return (items[index].text or "") if index is not None else ""


# ---- tasks ----------------------------------------------------------------------------------


class _SimpleCalendar(task_eval.TaskEval):
    app_names = (APP_NAME,)
    schema: dict[str, Any] = {}

    def __init__(self, params: dict[str, Any]):
        super().__init__(params)
        self.before: list[dict[str, Any]] = []

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear(env)
        add_events(env, self.params.get(NOISE_ROW_OBJECTS, []))
        env.controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        clear(env)
        super().tear_down(env)


class SimpleCalendarAddOneEvent(_SimpleCalendar):
    """Create one event with a title, description, start hour and duration."""

    complexity = 3.4
    difficulty = "hard"
    tags = ("data_entry", "complex_ui_understanding", "parameterized")
    optimal_steps = 17
    template = (
        "In Simple Calendar Pro, create a calendar event on {year}-{month}-{day}"
        " at {hour}h with the title '{event_title}' and the description"
        " '{event_description}'. The event should last for {duration_mins} mins."
    )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        event = generate_event(october_ts())
        noise = noise_events(random.randint(0, 20), lambda c: c["title"] != event["title"])
        return event_params(event, noise)

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        self.before = list_events(env)

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        ok = addition_ok(
            self.before,
            list_events(env),
            self.params[ROW_OBJECTS],
            _COMPARED,
            ("title", "location", "description"),
        )
        return 1.0 if ok else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        p = self.params
        start = datetime.datetime(p["year"], p["month"], p["day"], p["hour"], tzinfo=UTC)
        end = start + datetime.timedelta(minutes=p["duration_mins"])
        yield from open_day(env, start.date())
        yield ui.click(env, ui.desc_is("New Event"), "the New Event button")
        yield ui.type_into(env, ui.hint_is("Title"), p["event_title"], "the Title field")
        yield ui.type_into(
            env, ui.hint_is("Description"), p["event_description"], "the Description field"
        )
        if label_text(env, "event_start_date") != calendar_facts.format_day(start.date()):
            yield from pick_date(env, "start", start.date())
        if label_text(env, "event_start_time") != f"{start:%H:%M}":
            yield from pick_time(env, "start", start.hour, start.minute)
        if label_text(env, "event_end_date") != calendar_facts.format_day(end.date()):
            yield from pick_date(env, "end", end.date())
        if label_text(env, "event_end_time") != f"{end:%H:%M}":
            yield from pick_time(env, "end", end.hour, end.minute)
        yield ui.click(env, ui.desc_is("Save"), "the Save button")
        yield ui.done()


class SimpleCalendarDeleteOneEvent(_SimpleCalendar):
    """Delete one named event among twenty noise events (upstream's count and draw)."""

    n_rows_noise = 20
    complexity = 1.2
    difficulty = "easy"
    tags = ("data_edit", "complex_ui_understanding", "parameterized")
    optimal_steps = 6
    template = (
        "In Simple Calendar Pro, delete the calendar event on"
        " {year}-{month}-{day} at {hour}h with the title '{event_title}'"
    )

    def __init__(self, params: dict[str, Any]):
        super().__init__(params)
        self.target_ids: set[int] = set()

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        event = generate_event(october_ts())
        noise = noise_events(
            cls.n_rows_noise,
            lambda c: c["start_ts"] != event["start_ts"] and c["title"] != event["title"],
        )
        return event_params(event, noise)

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        add_events(env, self.params[ROW_OBJECTS])
        self.before = list_events(env)
        self.target_ids = {self.before[-1]["id"]}

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return 1.0 if removal_ok(self.before, list_events(env), self.target_ids, "id") else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        p = self.params
        yield from open_day(env, datetime.date(p["year"], p["month"], p["day"]))
        index = yield from ui.scroll_to(env, ui.text_is(p["event_title"]), p["event_title"])
        yield JSONAction(action_type="click", index=index)
        yield ui.click(env, ui.desc_is("Delete"), "the Delete icon")
        yield ui.click(
            env,
            ui.matching(text="Delete", class_suffix="Button"),
            "the Delete button",
        )
        yield ui.done()
