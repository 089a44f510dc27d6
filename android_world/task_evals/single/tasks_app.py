"""Tasks app questions (upstream's information-retrieval `Tasks*` templates), on Tasks.org.

As upstream builds them from `tasks.textproto`: the question's own tasks (the "relevant
state", with values drawn from the template's pools, `*_without_replacement` ones never
repeating a value), plus 20 random tasks from `task_app_utils` that cannot change the answer
(a random task meeting every exclusion condition is redrawn). Dates in goals are worded as
upstream words them ("tomorrow", "this Friday", "October 20"). Answers are checked by
`answer_check` with upstream's rules. Oracles read titles, due dates, priorities (the check
box's description) and completion from the live list, showing completed or hidden tasks or
sorting by priority through the app's menus when the question needs them.
"""

from __future__ import annotations

import dataclasses
import datetime
import random
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from android_world.env import device, interface
from android_world.env.device_facts import tasks as tasks_facts
from android_world.env.json_action import JSONAction
from android_world.task_evals import answer_check
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.answer_check import MatchType
from android_world.task_evals.single import tasks_app_data as data
from android_world.task_evals.single.information_retrieval import (
    Pool,
    _InformationRetrieval,
    date_of,
    parse_time,
)
from android_world.task_evals.single.table_tasks import insert_rows

APP_NAME = "tasks"
DB = tasks_facts.DB
UTC = datetime.UTC
NOW = device.FROZEN_DEVICE_TIME
TODAY = NOW.date()
DATE = answer_check.DATE_FORMAT
_FIELDS = (
    "title",
    "importance",
    "dueDate",
    "hideUntil",
    "created",
    "modified",
    "completed",
    "notes",
    "remoteId",
)
Row = dict[str, Any]


# ---- data -----------------------------------------------------------------------------------


def ms_at(day: str | datetime.date, time_text: str = "") -> int:
    """Upstream's `convert_datetime_to_unix_ts` in ms: a date at a time (midnight if none)."""
    when = date_of(day) if isinstance(day, str) else day
    at = parse_time(time_text) if time_text else datetime.time(0, 0)
    return int(datetime.datetime.combine(when, at, tzinfo=UTC).timestamp()) * 1000


def make_row(
    title: str,
    *,
    importance: int = 2,
    due: int = 0,
    hide_until: int = 0,
    completed: int = 0,
    notes: str | None = None,
) -> Row:
    """Upstream's `create_task_from_proto` (its `created` is the due time minus 25200 ms); the
    sync id (`remoteId`, a random UUID as upstream's) is given on insertion."""
    return {
        "title": title,
        "importance": importance,
        "dueDate": due,
        "hideUntil": hide_until,
        "created": due - 7 * 3600,
        "modified": due - 7 * 3600,
        "completed": completed,
        "notes": notes,
    }


def _random_moment(center: datetime.datetime, days: int) -> datetime.datetime:
    """Upstream's `generate_random_datetime`: a minute in a window of `days` around center."""
    start = center - datetime.timedelta(days=days) / 2
    return start + datetime.timedelta(minutes=random.randrange(days * 24 * 60))


def random_noise_row() -> Row:
    """Upstream's `_generate_random_task`: due within a week of now, hidden until ~6 days
    before, completed (half the time) around two weeks ago."""
    title = random.choice(list(data.NOISE_TASKS))
    notes = data.NOISE_TASKS[title] if random.choice([True, False]) else None
    importance = random.choice([0, 1, 2, 3])
    due = _random_moment(NOW, 14)
    hide = _random_moment(due - datetime.timedelta(days=6), 5)
    done = (
        _random_moment(NOW - datetime.timedelta(days=14), 14)
        if random.choice([True, False])
        else None
    )
    return make_row(
        title,
        importance=importance,
        due=int(due.timestamp()) * 1000,
        hide_until=int(hide.timestamp()) * 1000,
        completed=int(done.timestamp()) * 1000 if done else 0,
        notes=notes,
    )


def noise_rows(n: int, excluded: Callable[[Row], bool]) -> list[Row]:
    rows: list[Row] = []
    for _ in range(10_000):
        if len(rows) == n:
            return rows
        row = random_noise_row()
        if not excluded(row):
            rows.append(row)
    raise ValueError("Could not draw noise tasks outside the exclusions.")


def due_day(row: Row) -> datetime.date:
    return datetime.datetime.fromtimestamp(row["dueDate"] / 1000, tz=UTC).date()


def clear(env: interface.AsyncEnv) -> None:
    env.controller.sqlite_execute(DB, tasks_facts.SCHEMA)
    env.controller.sqlite_execute(DB, "DELETE FROM tasks")


def add_rows(env: interface.AsyncEnv, rows: list[Row]) -> None:
    """Each row gets its sync id (`remoteId`) here."""
    rows = [{**r, "remoteId": str(uuid.uuid4().int)} for r in rows]
    insert_rows(env, DB, "tasks", _FIELDS, rows)


# ---- reading the screen (oracles) -------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ListedTask:
    title: str
    due: datetime.date | None
    priority: str  # the check box's description, e.g. "High priority"
    done: bool
    index: int  # of the title element


def tasks_on_screen(env: interface.AsyncEnv, year: int) -> list[ListedTask]:
    """Every task row whose title is fully visible, top to bottom."""
    items = ui.elements(env)
    found: list[ListedTask] = []
    for i, box in enumerate(items):
        if box.resource_name != "completeBox":
            continue
        title = items[i + 1] if i + 1 < len(items) else None
        if title is None or title.resource_name != "title" or not ui.visible(title):
            continue
        due_el = items[i + 2] if i + 2 < len(items) else None
        due = None
        if due_el is not None and due_el.resource_name == "due_date" and due_el.text:
            stamp = ", ".join(due_el.text.split(", ")[:2])
            due = datetime.datetime.strptime(f"{stamp} {year}", "%a, %b %d %Y").date()
        found.append(
            ListedTask(
                title.text or "", due, box.content_description or "", bool(box.is_checked), i + 1
            )
        )
    return found


def list_ends_on_screen(env: interface.AsyncEnv) -> bool:
    """Blank space taller than a row below the last row: nothing more to scroll to."""
    items = ui.elements(env)
    lists = [e for e in items if e.resource_name == "recycler_view" and e.bbox_pixels]
    rows = [
        e.bbox_pixels.y_max
        for e in items
        if e.resource_name in ("title", "due_date", "completeBox") and e.bbox_pixels
    ]
    if not lists or not rows:
        return True
    return lists[0].bbox_pixels.y_max - max(rows) > 2 * tasks_facts.ROW_H


def read_list(
    env: interface.AsyncEnv, year: int, enough: Callable[[list[ListedTask]], bool]
) -> Iterator[JSONAction]:
    """Scroll down the list collecting its rows until `enough(rows)` or the list's end."""
    seen: list[ListedTask] = []

    def add(rows: list[ListedTask]) -> None:
        for row in rows:
            key = dataclasses.replace(row, index=0)
            if all(dataclasses.replace(s, index=0) != key for s in seen):
                seen.append(row)

    add(tasks_on_screen(env, year))
    for _ in range(10):
        if enough(seen) or list_ends_on_screen(env):
            break
        before = [dataclasses.replace(r, index=0) for r in tasks_on_screen(env, year)]
        yield JSONAction(action_type="scroll", direction="down")
        now = tasks_on_screen(env, year)
        if [dataclasses.replace(r, index=0) for r in now] == before:
            break
        add(now)
    return seen


def flick_to(
    env: interface.AsyncEnv, year: int, wanted: Callable[[ListedTask], bool]
) -> Iterator[JSONAction]:
    """Swipe down the list, unread, to the first row `wanted` (the list is sorted, so the rows
    before it need no reading): a short landscape list has too many screens of them to scroll
    through one by one. A swipe moves past more than a screen, so when the first wanted row on
    screen is its top one, the list goes back half its height to show what is above it."""
    back = False
    for _ in range(12):
        items = ui.elements(env)
        rows = tasks_on_screen(env, year)
        first = next((i for i, row in enumerate(rows) if wanted(row)), None)
        if first is not None:
            if first > 0 or back:
                return
            lists = [i for i, e in enumerate(items) if e.resource_name == "recycler_view"]
            back = True
            yield JSONAction(action_type="scroll", direction="up", index=lists[0])
            continue
        if list_ends_on_screen(env):
            return
        yield JSONAction(action_type="swipe", direction="up")


def open_menu_item(env: interface.AsyncEnv, label: str) -> Iterator[JSONAction]:
    yield ui.tap(env, desc="More options")
    yield ui.tap(env, text=label)


def past(day: datetime.date) -> Callable[[list[ListedTask]], bool]:
    """Enough rows once an open task due after `day` shows (the list is by due date)."""
    return lambda rows: any(r.due is not None and r.due > day and not r.done for r in rows)


# ---- tasks ----------------------------------------------------------------------------------


class _TasksQuestion(_InformationRetrieval):
    app_names = (APP_NAME,)
    complexity = 1
    n_noise = 20
    difficulty = "easy"
    tags: tuple[str, ...] = ("information_retrieval", "parameterized", "screen_reading")
    optimal_steps = 4

    def excluded(self, row: Row) -> bool:
        """True when a random task meets every exclusion condition (it is redrawn)."""
        raise NotImplementedError

    def expected(self) -> list[Any]:
        return [r["title"] for r in self.params["relevant"]]

    row_type = "Task"

    def initial_rows(self) -> list[Row]:
        rows = [dict(r) for r in self.params["relevant"]]
        rows += noise_rows(self.n_noise, self.excluded)
        random.shuffle(rows)
        return rows

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        rows = self.initial_rows()
        clear(env)
        add_rows(env, rows)
        env.controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        clear(env)
        super().tear_down(env)

    def read_through(self, env: interface.AsyncEnv, day: datetime.date) -> Iterator[JSONAction]:
        """Open Tasks and read its list (by due date) until past `day`:
        `rows = yield from self.read_through(env, day)`."""
        yield ui.open_app("Tasks")
        rows = yield from read_list(env, day.year, past(day))
        return rows


def _dates(first: int, last: int) -> tuple[str, ...]:
    return tuple(datetime.date(2023, 10, d).strftime(DATE) for d in range(first, last + 1))


class TasksDueOnDate(_TasksQuestion):
    difficulty = "easy"
    tags = ("search", "parameterized")
    optimal_steps = 2
    template = (
        "What tasks do I have due {date} in Tasks app? Answer with the titles only. If there"
        " are multiples titles, format your answer in a comma separated list."
    )

    param_pools = {
        "date": _dates(15, 29),
        "importance": data.DOUBLED_IMPORTANCE,
        "title": data.WORK_TITLES,
        "notes": data.WORK_NOTES,
    }

    def draw_relevant(self) -> None:
        params = self.params
        titles = Pool(data.WORK_TITLES, params["title"])
        levels = Pool(data.DOUBLED_IMPORTANCE, params["importance"])
        notes = Pool(data.WORK_NOTES, params["notes"])
        due = ms_at(params["date"])
        params["relevant"] = [
            make_row(
                titles.take(),
                importance=int(levels.take()),
                due=due,
                hide_until=ms_at(hide, at),
                notes=notes.take(),
            )
            for hide, at in (
                ("October 10 2023", "8:00"),
                ("October 09 2023", "10:00"),
                ("October 11 2023", "9:00"),
            )
        ]

    def excluded(self, row: Row) -> bool:
        return due_day(row) == self.target_day()

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        day = self.target_day()
        rows = yield from self.read_through(env, day)
        yield from self.answer([r.title for r in rows if r.due == day])


class TasksHighPriorityTasks(_TasksQuestion):
    difficulty = "medium"
    tags = (
        "complex_ui_understanding",
        "search",
        "information_retrieval",
        "transcription",
        "parameterized",
    )
    optimal_steps = 2
    template = (
        "What are my high priority tasks in Tasks app? Answer with the titles only. If there"
        " are multiples titles, format your answer in a comma separated list."
    )

    param_pools = {
        "task_title": data.WORK_TITLES,
        "notes": data.WORK_NOTES,
        "due_date": _dates(16, 22),
        "time": data.TIMES,
        "hide_until_date": _dates(10, 15),
    }

    def draw_relevant(self) -> None:
        params = self.params
        params["relevant"] = [
            make_row(
                params["task_title"],
                importance=0,
                due=ms_at(params["due_date"], params["time"]),
                hide_until=ms_at(params["hide_until_date"], params["time"]),
                notes=params["notes"],
            )
        ]

    def excluded(self, row: Row) -> bool:
        return row["importance"] == 0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield ui.open_app("Tasks")
        # A task can be hidden until later today: show hidden tasks, then put priority first.
        yield from open_menu_item(env, "Show hidden")
        yield ui.tap(env, desc="Sort")
        yield ui.tap(env, text="Priority")
        rows = yield from read_list(
            env, TODAY.year, lambda rows: any(r.priority != "High priority" for r in rows)
        )
        yield from self.answer([r.title for r in rows if r.priority == "High priority"])


class TasksHighPriorityTasksDueOnDate(_TasksQuestion):
    difficulty = "medium"
    tags = ("information_retrieval", "screen_reading", "parameterized")
    optimal_steps = 5
    template = (
        "Which tasks with high priority are due {date} in the Tasks app? Answer with the title"
        " only. If there are multiples titles, format your answer in a comma separated list."
    )

    param_pools = {
        "date": _dates(15, 29),
        "time": data.HIGH_PRIORITY_TIMES,
        "title": data.HIGH_PRIORITY_TITLES,
    }

    def draw_relevant(self) -> None:
        params = self.params
        params["relevant"] = [
            make_row(params["title"], importance=0, due=ms_at(params["date"], params["time"]))
        ]

    def excluded(self, row: Row) -> bool:
        return due_day(row) == self.target_day() and row["importance"] == 0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        day = self.target_day()
        rows = yield from self.read_through(env, day)
        yield from self.answer(
            [r.title for r in rows if r.due == day and r.priority == "High priority"]
        )


class TasksDueNextWeek(_TasksQuestion):
    difficulty = "medium"
    tags = ("information_retrieval", "parameterized")
    optimal_steps = 6
    template = (
        "How many tasks do I have due next week in Tasks app? Assume the week starts from"
        " Monday. Express your answer as a single integer."
    )
    complexity = 1.0
    match_type = MatchType.NUMBER

    param_pools = {"title": data.ALL_TITLES, "notes": data.OTHER_NOTES, "due_date": _dates(16, 22)}

    def draw_relevant(self) -> None:
        params = self.params
        titles = Pool(data.ALL_TITLES, params["title"])
        notes = Pool(data.OTHER_NOTES, params["notes"])
        days = Pool(_dates(16, 22), params["due_date"])
        hides = [("October 10 2023", "8:00"), ("October 09 2023", "10:00")]
        hides += [("October 11 2023", "9:00")] * 4
        params["relevant"] = [
            make_row(
                titles.take(),
                due=ms_at(days.take()),
                hide_until=ms_at(hide, at),
                notes=notes.take(),
            )
            for hide, at in hides
        ]

    def expected(self) -> list[Any]:
        return [len(self.params["relevant"])]

    def excluded(self, row: Row) -> bool:
        return datetime.date(2023, 10, 16) <= due_day(row) <= datetime.date(2023, 10, 22)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        monday = TODAY + datetime.timedelta(days=7 - TODAY.weekday())
        sunday = monday + datetime.timedelta(days=6)
        rows = yield from self.read_through(env, sunday)
        count = sum(1 for r in rows if r.due is not None and monday <= r.due <= sunday)
        yield from self.answer([str(count)])


class TasksCompletedTasksForDate(_TasksQuestion):
    difficulty = "medium"
    tags = ("information_retrieval", "search", "parameterized")
    optimal_steps = 5
    template = (
        "Which tasks have I completed for {date} in Tasks app? Answer with the titles only. If"
        " there are multiples titles, format your answer in a comma separated list."
    )

    param_pools = {
        "title": data.ALL_TITLES,
        "notes": data.OTHER_NOTES,
        "date": _dates(10, 20),
        "completed_date": _dates(10, 15),
        "time": data.TIMES,
    }

    def draw_relevant(self) -> None:
        params = self.params
        titles = Pool(data.ALL_TITLES, params["title"])
        notes = Pool(data.OTHER_NOTES, params["notes"])
        times = Pool(data.TIMES, params["time"])
        due = ms_at(params["date"])
        relevant = []
        for hide in ("October 10 2023", "October 09 2023", "October 11 2023"):
            title, hide_at = titles.take(), times.take()
            relevant.append(
                make_row(
                    title,
                    due=due,
                    hide_until=ms_at(hide, hide_at),
                    completed=ms_at(params["completed_date"], times.take()),
                    notes=notes.take(),
                )
            )
        params["relevant"] = relevant

    def excluded(self, row: Row) -> bool:
        return due_day(row) == self.target_day()

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        day = self.target_day()
        yield ui.open_app("Tasks")
        yield from open_menu_item(env, "Show completed")
        yield from flick_to(env, day.year, lambda r: r.done and (r.due is None or r.due >= day))
        rows = yield from read_list(
            env,
            day.year,
            lambda rows: any(r.done and r.due is not None and r.due > day for r in rows),
        )
        yield from self.answer([r.title for r in rows if r.done and r.due == day])


class TasksIncompleteTasksOnDate(_TasksQuestion):
    difficulty = "easy"
    tags = ("parameterized", "screen_reading", "information_retrieval")
    optimal_steps = 2
    template = (
        "What incomplete tasks do I have still have to do by {date} in Tasks app? Answer with"
        " the titles only. If there are multiples titles, format your answer in a comma"
        " separated list."
    )

    param_pools = {
        "title": data.ALL_TITLES,
        "importance": data.IMPORTANCE,
        "notes": data.OTHER_NOTES,
        "date": _dates(15, 29),
        "time": data.TIMES,
    }

    def draw_relevant(self) -> None:
        params = self.params
        titles = Pool(data.ALL_TITLES, params["title"])
        levels = Pool(data.IMPORTANCE, params["importance"])
        notes = Pool(data.OTHER_NOTES, params["notes"])
        times = Pool(data.TIMES, params["time"])
        due = ms_at(params["date"])
        params["relevant"] = [
            make_row(
                titles.take(),
                importance=int(levels.take()),
                due=due,
                hide_until=ms_at(hide, times.take()),
                notes=notes.take(),
            )
            for hide in ("October 10 2023", "October 09 2023", "October 11 2023")
        ]

    def excluded(self, row: Row) -> bool:
        return due_day(row) <= self.target_day() and row["completed"] == 0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        day = self.target_day()
        rows = yield from self.read_through(env, day)
        yield from self.answer(
            [r.title for r in rows if not r.done and r.due is not None and r.due <= day]
        )
