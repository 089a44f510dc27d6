"""OpenTracks questions (upstream's information-retrieval `SportsTracker*` templates).

As upstream builds them from `tasks.textproto` and `activity_app_utils`: the question's own
activities (values from the template's pools; `*_without_replacement` ones never repeat a value,
nor the parameter's own), plus 20 random activities that cannot change the answer (one meeting
every exclusion condition is drawn again), shuffled, in OpenTracks' `tracks` table. Every
distance is stored as upstream stores it, rounded so that the miles the app shows convert back
to it. Dates in goals are worded as upstream words them. The oracles read each track's activity
type, start, distance and total time off the list, scrolling through it, and compute the answer
as a person would (miles to metres, H:MM:SS to minutes).
"""

from __future__ import annotations

import dataclasses
import datetime
import random
from collections.abc import Callable, Iterator
from typing import Any

from android_world.env import device, interface
from android_world.env.device_facts import open_tracks as facts
from android_world.env.json_action import JSONAction
from android_world.task_evals import answer_check, upstream_pools
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.answer_check import MatchType
from android_world.task_evals.single.information_retrieval import (
    Pool,
    _InformationRetrieval,
    date_of,
    parse_time,
)

APP_NAME = "open tracks sports tracker"
UTC = datetime.UTC
NOW = device.FROZEN_DEVICE_TIME
TODAY = NOW.date()
WEEK = (datetime.date(2023, 10, 9), TODAY)  # "this week", from Monday, as upstream bounds it
N_NOISE = 20
Row = dict[str, Any]

CATEGORIES = upstream_pools.SPORTS_CATEGORIES
DURATIONS = upstream_pools.SPORTS_DURATIONS
DISTANCES = upstream_pools.SPORTS_DISTANCES
START_TIMES = upstream_pools.SPORTS_START_TIMES
ELEVATIONS = upstream_pools.SPORTS_ELEVATIONS
ACTIVITY_NAMES = upstream_pools.SPORTS_ACTIVITY_NAMES
DESCRIPTIONS = upstream_pools.SPORTS_ACTIVITY_DESCRIPTIONS
NOISE_NAMES = upstream_pools.SPORTS_NOISE_ACTIVITY_NAMES


def _october(*days: int) -> tuple[str, ...]:
    return tuple(f"October {d} 2023" for d in days)


def _pools(**dates: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """A question's parameter pools: its own date pools, then the ones all six share."""
    return {
        **dates,
        "category": CATEGORIES,
        "duration": DURATIONS,
        "distance": DISTANCES,
        "start_time": START_TIMES,
        "elevation": ELEVATIONS,
        "activity_name": ACTIVITY_NAMES,
        "activity_description": DESCRIPTIONS,
    }


THIS_WEEK_DATES = _october(9, 10, 11, 12, 13, 14, 15)


# ---- rows ---------------------------------------------------------------------------------------


def meters_as_shown(meters: float) -> int:
    """Upstream's rounding of a distance: to the miles the app shows (two decimals) and back."""
    return round(round(meters / facts.MILES_TO_METERS, 2) * facts.MILES_TO_METERS)


def ms_at(day: str, time_text: str) -> int:
    """Upstream's `convert_datetime_to_unix_ts` in ms: a date at a time, in the device's zone."""
    at = parse_time(time_text) if time_text else datetime.time(0, 0)
    return int(datetime.datetime.combine(date_of(day), at, tzinfo=UTC).timestamp()) * 1000


def activity_row(
    name: str,
    description: str,
    category: str,
    start_ms: int,
    minutes: str,
    distance: str,
    gain: str = "",
    loss: str = "",
) -> Row:
    """Upstream's `_create_activity_from_proto`: a `tracks` row (its average speed formula too)."""
    meters = float(meters_as_shown(float(distance)))
    stop = start_ms + int(float(minutes) * 60 * 1000)
    total = stop - start_ms
    speed = meters / (total * 1000)
    return {
        "name": name,
        "description": description,
        "category": category,
        "activity_type": category,
        "starttime": start_ms,
        "stoptime": stop,
        "totaldistance": meters,
        "totaltime": total,
        "movingtime": total,
        "avgspeed": speed,
        "avgmovingspeed": speed,
        "elevationgain": int(gain) if gain else 0,
        "elevationloss": int(loss) if loss else 0,
    }


def random_activity() -> Row:
    """Upstream's `_generate_random_activity`: any category, a name for it, a start in the two
    weeks before now, 1-299 minutes, up to 20 km, up to 500 m up and down."""
    category = random.choice(list(NOISE_NAMES))
    name = random.choice(NOISE_NAMES[category])
    start = (
        NOW
        - datetime.timedelta(days=14)
        + datetime.timedelta(minutes=random.randrange(14 * 24 * 60))
    )
    minutes = str(int(datetime.timedelta(minutes=random.randrange(1, 60 * 5)).seconds / 60))
    distance = str(random.randint(0, 20000))
    gain, loss = str(random.randint(0, 500)), str(random.randint(0, 500))
    day = start.date().strftime(answer_check.DATE_FORMAT)
    return activity_row(
        name, "", category, ms_at(day, start.strftime("%H:%M")), minutes, distance, gain, loss
    )


def noise_rows(n: int, excluded: Callable[[Row], bool]) -> list[Row]:
    rows: list[Row] = []
    for _ in range(10_000):
        if len(rows) == n:
            return rows
        row = random_activity()
        if not excluded(row):
            rows.append(row)
    raise ValueError("Could not draw noise activities outside the exclusions.")


def start_day(row: Row) -> datetime.date:
    return facts.start_of(row["starttime"]).date()


def in_category(row: Row, category: str) -> bool:
    """Upstream's CONTAINS on the category (lower case)."""
    return category.lower() in str(row["category"]).lower()


def clear(env: interface.AsyncEnv) -> None:
    env.controller.sqlite_execute(facts.DB, facts.SCHEMA)
    env.controller.sqlite_execute(facts.DB, "DELETE FROM tracks")


def add_rows(env: interface.AsyncEnv, rows: list[Row]) -> None:
    """The rows, in this order, in one statement."""
    if not rows:
        return
    columns = list(rows[0])
    marks = ", ".join(["(" + ", ".join("?" * len(columns)) + ")"] * len(rows))
    names = ", ".join(f'"{c}"' for c in columns)
    values = tuple(row[c] for row in rows for c in columns)
    env.controller.sqlite_execute(facts.DB, f"INSERT INTO tracks ({names}) VALUES {marks}", values)


# ---- reading the screen (oracles) -------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ListedTrack:
    """A track as the list shows it."""

    name: str
    category: str
    start: datetime.datetime
    meters: float
    minutes: int


def _meters(text: str) -> float:
    value, _, unit = text.strip().partition(" ")
    number = float(value)
    return number * 1000 if unit == "km" else number * facts.MILES_TO_METERS


def _minutes(text: str) -> int:
    hours, minutes, seconds = (int(p) for p in text.strip().split(":"))
    return hours * 60 + minutes + round(seconds / 60)


def tracks_on_screen(env: interface.AsyncEnv) -> list[ListedTrack]:
    """Every list row whose three lines are fully in view."""
    items = ui.elements(env)
    found = []
    for i, item in enumerate(items[:-2]):
        lines = items[i : i + 3]
        if [e.resource_name for e in lines] != [
            "list_item_name",
            "list_item_date_time",
            "list_item_statistics",
        ] or not all(ui.visible(e) for e in lines):
            continue
        category, _, when = (lines[1].text or "").rpartition(" · ")
        distance, _, total = (lines[2].text or "").partition(" · ")
        start = datetime.datetime.strptime(when, "%b %d, %Y, %I:%M %p").replace(tzinfo=UTC)
        found.append(
            ListedTrack(item.text or "", category, start, _meters(distance), _minutes(total))
        )
    return found


def read_all_tracks(env: interface.AsyncEnv) -> Iterator[JSONAction]:
    """Open OpenTracks and scroll its list to the end: `tracks = yield from read_all_tracks(env)`."""
    yield ui.open_app("OpenTracks")
    seen: list[ListedTrack] = []
    for _ in range(40):
        now = tracks_on_screen(env)
        seen += [t for t in now if t not in seen]
        yield JSONAction(action_type="scroll", direction="down")
        if tracks_on_screen(env) == now:
            break
    return seen


def _in(day: datetime.date, window: tuple[datetime.date, datetime.date]) -> bool:
    return window[0] <= day <= window[1]


# ---- tasks ----------------------------------------------------------------------------------


class _SportsQuestion(_InformationRetrieval):
    app_names = (APP_NAME,)
    complexity = 1
    match_type = MatchType.NUMBER
    row_type = "SportsActivity"
    fidelity_notes: tuple[str, ...] = (
        "params: ours add `relevant` (the question's own activities, drawn at initialisation as"
        " upstream draws them into its task proto) and keep the exact dates the goal words"
        " (`target_date`, `window`)",
        "noise: the 20 random activities are upstream's draws; upstream's rows also carry a"
        " random uuid each (unseeded), which ours leave to the database default",
    )

    def relevant_rows(self) -> list[Row]:
        return self.params["relevant"]

    def excluded(self, row: Row) -> bool:
        raise NotImplementedError

    def initial_rows(self) -> list[Row]:
        rows = [dict(r) for r in self.relevant_rows()]
        rows += noise_rows(N_NOISE, self.excluded)
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

    def pools(self) -> dict[str, Pool]:
        """Each shared pool without the value its parameter took (`*_without_replacement`)."""
        p = self.params
        return {
            "name": Pool(ACTIVITY_NAMES, p["activity_name"]),
            "description": Pool(DESCRIPTIONS, p["activity_description"]),
            "category": Pool(CATEGORIES, p["category"]),
            "time": Pool(START_TIMES, p["start_time"]),
            "duration": Pool(DURATIONS, p["duration"]),
            "distance": Pool(DISTANCES, p["distance"]),
            "elevation": Pool(ELEVATIONS, p["elevation"]),
        }

    def _window(self) -> tuple[datetime.date, datetime.date]:
        start, end = self.params["window"]
        return date_of(start), date_of(end)


def _week_activities(question: _SportsQuestion, n: int, dates: tuple[str, ...]) -> list[Row]:
    """The questions whose activities draw every field but the category from the pools (the
    category is the question's), their date from `dates` without the parameter's own."""
    p, pools = question.params, question.pools()
    days = Pool(dates, p["start_date"])
    rows = []
    for _ in range(n):
        name, description = pools["name"].take(), pools["description"].take()
        day, at = days.take(), pools["time"].take()
        minutes, distance = pools["duration"].take(), pools["distance"].take()
        gain, loss = pools["elevation"].take(), pools["elevation"].take()
        rows.append(
            activity_row(
                name, description, p["category"], ms_at(day, at), minutes, distance, gain, loss
            )
        )
    return rows


class SportsTrackerActivitiesOnDate(_SportsQuestion):
    complexity = 2
    match_type = MatchType.STRING
    difficulty = "hard"
    tags = (
        "search",
        "complex_ui_understanding",
        "screen_reading",
        "information_retrieval",
        "transcription",
        "parameterized",
    )
    optimal_steps = 10
    template = (
        "What activities did I do {date} in the OpenTracks app? Answer with the activity type"
        " only. If there are multiple types, format your answer in a comma separated list."
    )
    param_pools = _pools(
        date=(
            *_october(12, 13, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1),
            *(f"September {d} 2023" for d in range(30, 23, -1)),
        )
    )

    def draw_relevant(self) -> None:
        p, pools = self.params, self.pools()
        rows = []
        for _ in range(2):
            name, description = pools["name"].take(), pools["description"].take()
            category, at = pools["category"].take(), pools["time"].take()
            minutes, distance = pools["duration"].take(), pools["distance"].take()
            gain, loss = pools["elevation"].take(), pools["elevation"].take()
            rows.append(
                activity_row(
                    name, description, category, ms_at(p["date"], at), minutes, distance, gain, loss
                )
            )
        p["relevant"] = rows

    def expected(self) -> list[Any]:
        return [r["category"] for r in self.relevant_rows()]

    def excluded(self, row: Row) -> bool:
        return start_day(row) == self.target_day()

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        tracks = yield from read_all_tracks(env)
        day = self.target_day()
        yield from self.answer([t.category for t in tracks if t.start.date() == day])


class SportsTrackerActivitiesCountForWeek(_SportsQuestion):
    difficulty = "easy"
    tags = ("search", "requires_setup", "parameterized")
    optimal_steps = 3
    template = (
        "How many {category} activities did I do this week in the OpenTracks app? Assume the week"
        " starts from Monday. Express your answer as a single integer."
    )
    param_pools = _pools(start_date=THIS_WEEK_DATES)

    def draw_relevant(self) -> None:
        self.params["relevant"] = _week_activities(self, 2, THIS_WEEK_DATES)

    def expected(self) -> list[Any]:
        return [len(self.relevant_rows())]

    def excluded(self, row: Row) -> bool:
        return in_category(row, self.params["category"]) and _in(start_day(row), WEEK)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        tracks = yield from read_all_tracks(env)
        mine = [
            t for t in tracks if t.category == self.params["category"] and _in(t.start.date(), WEEK)
        ]
        yield from self.answer([str(len(mine))])


class SportsTrackerActivityDuration(_SportsQuestion):
    difficulty = "easy"
    tags = ("information_retrieval", "parameterized")
    optimal_steps = 6
    template = (
        "How long was my {category} activity {date} in the OpenTracks app? Express your answer in"
        " minutes as a single integer."
    )
    param_pools = _pools(date=_october(5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))

    def draw_relevant(self) -> None:
        p, pools = self.params, self.pools()
        gain, loss = pools["elevation"].take(), pools["elevation"].take()
        p["relevant"] = [
            activity_row(
                p["activity_name"],
                p["activity_description"],
                p["category"],
                ms_at(p["date"], p["start_time"]),
                p["duration"],
                p["distance"],
                gain,
                loss,
            )
        ]

    def expected(self) -> list[Any]:
        return [float(self.params["duration"])]

    def excluded(self, row: Row) -> bool:
        return start_day(row) == self.target_day() and in_category(row, self.params["category"])

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        tracks = yield from read_all_tracks(env)
        day, category = self.target_day(), self.params["category"]
        mine = [t for t in tracks if t.start.date() == day and t.category == category]
        yield from self.answer([str(t.minutes) for t in mine])


class SportsTrackerLongestDistanceActivity(_SportsQuestion):
    difficulty = "easy"
    tags = ("parameterized", "screen_reading", "information_retrieval", "math_counting")
    optimal_steps = 2
    tolerance = 10
    template = (
        "What was the longest distance covered in a {category} activity in the OpenTracks app"
        " this week? Assume the week starts from Monday. Express your answer as a single number"
        " in meters rounded to the nearest integer."
    )
    param_pools = _pools(start_date=THIS_WEEK_DATES)

    def draw_relevant(self) -> None:
        p, pools = self.params, self.pools()
        name, description = pools["name"].take(), pools["description"].take()
        day = Pool(THIS_WEEK_DATES, p["start_date"]).take()
        at, minutes = pools["time"].take(), pools["duration"].take()
        gain, loss = pools["elevation"].take(), pools["elevation"].take()
        p["relevant"] = [
            activity_row(
                name, description, p["category"], ms_at(day, at), minutes, p["distance"], gain, loss
            )
        ]

    def expected(self) -> list[Any]:
        return [r["totaldistance"] for r in self.relevant_rows()]

    def excluded(self, row: Row) -> bool:
        longest = float(meters_as_shown(float(self.params["distance"])))
        return (
            in_category(row, self.params["category"])
            and row["totaldistance"] >= longest
            and _in(start_day(row), WEEK)
        )

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        tracks = yield from read_all_tracks(env)
        category = self.params["category"]
        mine = [t.meters for t in tracks if t.category == category and _in(t.start.date(), WEEK)]
        yield from self.answer([str(round(max(mine)))] if mine else ["0"])


class SportsTrackerTotalDurationForCategoryThisWeek(_SportsQuestion):
    difficulty = "hard"
    tags = ("math_counting", "search", "parameterized")
    optimal_steps = 8
    template = (
        "What was the total duration of {category} activities in the OpenTracks app this week?"
        " Assume the week starts from Monday. Express your answer in minutes as a single integer."
    )
    param_pools = _pools(start_date=THIS_WEEK_DATES)

    def draw_relevant(self) -> None:
        self.params["relevant"] = _week_activities(self, 2, THIS_WEEK_DATES)

    def expected(self) -> list[Any]:
        return [sum(r["totaltime"] / 60_000 for r in self.relevant_rows())]

    def excluded(self, row: Row) -> bool:
        return in_category(row, self.params["category"]) and _in(start_day(row), WEEK)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        tracks = yield from read_all_tracks(env)
        category = self.params["category"]
        total = sum(
            t.minutes for t in tracks if t.category == category and _in(t.start.date(), WEEK)
        )
        yield from self.answer([str(total)])


class SportsTrackerTotalDistanceForCategoryOverInterval(_SportsQuestion):
    complexity = 2
    difficulty = "hard"
    tags = ("search", "parameterized", "math_counting")
    optimal_steps = 11
    tolerance = 10
    template = (
        "What was the total distance covered for {category} activities in the OpenTracks app from"
        " {start_date} to {end_date}? Express your answer as a single number in meters rounded to"
        " the nearest integer."
    )
    param_pools = _pools(
        start_date=_october(1, 2, 3, 4, 5, 6, 7, 8, 9),
        end_date=_october(10, 11, 12, 13, 14, 15),
    )

    def draw_relevant(self) -> None:
        p, pools = self.params, self.pools()
        p["window"] = [p["start_date"], p["end_date"]]
        rows = []
        for _ in range(2):
            name, description = pools["name"].take(), pools["description"].take()
            at, minutes = pools["time"].take(), pools["duration"].take()
            distance = pools["distance"].take()
            gain, loss = pools["elevation"].take(), pools["elevation"].take()
            start = ms_at(p["start_date"], at)
            rows.append(
                activity_row(name, description, p["category"], start, minutes, distance, gain, loss)
            )
        p["relevant"] = rows

    def expected(self) -> list[Any]:
        return [sum(r["totaldistance"] for r in self.relevant_rows())]

    def excluded(self, row: Row) -> bool:
        return in_category(row, self.params["category"]) and _in(start_day(row), self._window())

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        tracks = yield from read_all_tracks(env)
        category, window = self.params["category"], self._window()
        total = sum(
            t.meters for t in tracks if t.category == category and _in(t.start.date(), window)
        )
        yield from self.answer([str(round(total))])
