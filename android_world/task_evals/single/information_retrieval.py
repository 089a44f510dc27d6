"""Information-retrieval tasks: the agent answers with the `answer` action.

The calendar questions are upstream's (`information_retrieval/proto/tasks.textproto`): one
relevant event plus 75 random ones that cannot satisfy the question (upstream's exclusion
conditions), and the goal's date worded as a person would ("tomorrow", "this Monday",
"October 16"). SimExpenseTotalForCategory is this suite's own, in the same style. Answers are
scored by `answer_check` with upstream's rules; no answer scores 0.
"""

from __future__ import annotations

import datetime
import random
import re
from collections.abc import Iterator, Sequence
from typing import Any

from android_world.env import device, interface
from android_world.env.json_action import JSONAction
from android_world.env.sim.apps import expense as expense_app
from android_world.task_evals import answer_check, task_eval, upstream_pools
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.answer_check import MatchType
from android_world.task_evals.single import calendar as cal
from android_world.task_evals.single import expense as exp

UTC = datetime.UTC
NOW = device.FROZEN_DEVICE_TIME
TODAY = NOW.date()

_EVENTS_ON_DATE_TITLES = [
    "Data Dive",
    "Bug Bash",
    "Dan's Birthday Party",
    "Trivia Night",
    *upstream_pools.IR_WORK_EVENT_TITLES,
    *upstream_pools.IR_LEISURE_EVENT_TITLES,
]
# Upstream's list minus "12:00am", which is not upcoming at 15:34 (upstream's own quirk).
_NEXT_EVENT_TIMES = [
    "3:53pm",
    "21:45",
    "5pm",
    "17:30",
    "16:00",
    "18:30",
    "18:45",
    "7pm",
    "7:15pm",
    "8pm",
    "8:10pm",
    "5:20pm",
    "23:59",
    "4:00pm",
    "16:15",
    "9:15pm",
    "20:40",
    "22:35",
]
_NEXT_EVENT_TITLES = ["Team Meeting", "1-on-1 with Manager", *_EVENTS_ON_DATE_TITLES[4:]]
_TIME = re.compile(r"^\s*(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\s*$", re.IGNORECASE)


# ---- pure helpers ---------------------------------------------------------------------------


def parse_time(text: str) -> datetime.time:
    """'21:45', '9:45am', '12pm', '12am' -> a time (upstream's accepted formats)."""
    m = _TIME.match(text)
    if not m:
        raise ValueError(f"Unrecognised time {text!r}")
    hour, minute, half = int(m[1]), int(m[2] or 0), (m[3] or "").lower()
    if half:
        hour = hour % 12 + (12 if half == "pm" else 0)
    return datetime.time(hour, minute)


def parse_duration(text: str) -> int:
    """Seconds in '1.5 hours', '45min', '30 m' (upstream's `parse_duration`)."""
    if "h" in text:
        return int(3600 * float(text[: text.find("h")].strip()))
    if "m" in text:
        return 60 * int(text[: text.find("m")].strip())
    raise ValueError(f"Invalid duration {text!r}")


def date_of(text: str) -> datetime.date:
    """'October 15 2023' (upstream's date params) -> a date."""
    return datetime.datetime.strptime(text, answer_check.DATE_FORMAT).date()


class Pool:
    """A template parameter's values for `*_without_replacement` draws: the value the
    parameter itself took is removed first, then every draw removes what it took."""

    def __init__(self, values: Sequence[str], used: str | None = None):
        self.values = list(values)
        if used in self.values:
            self.values.remove(used)

    def take(self) -> str:
        value = random.choice(self.values)
        self.values.remove(value)
        return value


def date_phrases(day: datetime.date, today: datetime.date = TODAY) -> list[str]:
    """Upstream's natural-language wordings of a date, relative to the device's today."""
    options = [day.strftime("%B %d"), day.strftime(answer_check.DATE_FORMAT)]
    delta = (day - today).days
    options += {0: ["today"], 1: ["tomorrow"], -1: ["yesterday"]}.get(delta, [])
    name = day.strftime("%A")
    if 0 < delta <= 7:
        options += [name, f"this {name}"]
    elif 7 < delta <= 14:
        options.append(f"the {name} after next")
    elif -7 <= delta < 0:
        options.append(name)
    return options


def random_event_at(
    day: datetime.date, time: datetime.time, duration_s: int, title: str
) -> dict[str, Any]:
    start = int(datetime.datetime.combine(day, time, tzinfo=UTC).timestamp())
    return cal.make_event(start, start + duration_s, title, cal.event_description())


def random_noise_event(excluded) -> dict[str, Any]:
    """A random October event for which `excluded(start)` is False (upstream's exclusions)."""
    for _ in range(1000):
        start = datetime.datetime(
            2023,
            10,
            random.randint(1, 31),
            random.randint(0, 23),
            random.randint(0, 59),
            tzinfo=UTC,
        )
        if not excluded(start):
            minutes = random.choice([15, 30, 45, 60])
            ts = int(start.timestamp())
            return cal.make_event(ts, ts + minutes * 60, cal.event_title(), cal.event_description())
    raise ValueError("Could not draw a noise event outside the exclusions.")


# ---- base -----------------------------------------------------------------------------------


class _InformationRetrieval(task_eval.TaskEval):
    schema: dict[str, Any] = {}
    match_type = MatchType.STRING
    tolerance: float | None = None
    tags: tuple[str, ...] = ("information_retrieval", "parameterized")

    def expected(self) -> list[Any]:
        raise NotImplementedError

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return answer_check.score_answer(
            env.interaction_cache, self.expected(), self.match_type, self.tolerance
        )

    def target_day(self) -> datetime.date:
        """The exact date of the question (params['target_date']; the goal may word it)."""
        return date_of(self.params["target_date"])

    def answer(self, values: list[str]) -> Iterator[JSONAction]:
        """The oracle's last steps: answer with the values, comma separated, and stop."""
        yield JSONAction(action_type="answer", text=", ".join(values))
        yield ui.done()


class _CalendarQuestion(_InformationRetrieval):
    app_names = ("simple calendar pro",)
    complexity = 1
    n_noise = 75

    def relevant_events(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def excluded(self, start: datetime.datetime) -> bool:
        raise NotImplementedError

    def expected(self) -> list[Any]:
        return [e["title"] for e in self.relevant_events()]

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        events = self.relevant_events() + [
            random_noise_event(self.excluded) for _ in range(self.n_noise)
        ]
        random.shuffle(events)
        cal.clear(env)
        cal.add_events(env, events)
        env.controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        cal.clear(env)
        super().tear_down(env)

    def read_day(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        """Collect every event row of the open day view, scrolling if the list is long."""
        seen: list[tuple[str, str, str]] = []
        for _ in range(6):
            for row in cal.day_events_on_screen(env):
                if row not in seen:
                    seen.append(row)
            items = ui.elements(env)
            lst = ui.find(items, ui.res_is("day_events"), need_visible=False)
            if lst is None:
                break
            before = cal.day_events_on_screen(env)
            yield JSONAction(action_type="scroll", direction="down", index=lst)
            if cal.day_events_on_screen(env) == before:
                break
        return seen


class SimpleCalendarEventsOnDate(_CalendarQuestion):
    template = (
        "What events do I have {date} in Simple Calendar Pro? Answer with the titles only. If"
        " there are multiple titles, format your answer as a comma separated list."
    )
    difficulty = "medium"
    optimal_steps = 4

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        day = TODAY + datetime.timedelta(days=random.randint(0, 14))
        return {
            "date": random.choice(date_phrases(day)),
            "target_date": day.strftime(answer_check.DATE_FORMAT),
            "time": random.choice(upstream_pools.IR_TIMES),
            "duration": random.choice(upstream_pools.IR_DURATIONS),
            "title": random.choice(_EVENTS_ON_DATE_TITLES),
        }

    def relevant_events(self) -> list[dict[str, Any]]:
        p = self.params
        return [
            random_event_at(
                self.target_day(), parse_time(p["time"]), parse_duration(p["duration"]), p["title"]
            )
        ]

    def excluded(self, start: datetime.datetime) -> bool:
        return start.date() == self.target_day()

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from cal.open_day(env, self.target_day())
        rows = yield from self.read_day(env)
        yield from self.answer([title for title, _, _ in rows])


class SimpleCalendarNextEvent(_CalendarQuestion):
    fidelity_notes = (
        "time pool lacks upstream's '12:00am': midnight is before the device time (15:34), so"
        " upstream's expected answer for it is not the next event",
    )
    template = (
        "What is my next upcoming event in Simple Calendar Pro? Answer with the title only. If"
        " there are multiples titles, format your answer in a comma separated list."
    )
    difficulty = "easy"
    tags = ("complex_ui_understanding", "screen_reading", "information_retrieval", "parameterized")
    optimal_steps = 4

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {
            "time": random.choice(_NEXT_EVENT_TIMES),
            "duration": random.choice(upstream_pools.IR_DURATIONS),
            "title": random.choice(_NEXT_EVENT_TITLES),
        }

    def relevant_events(self) -> list[dict[str, Any]]:
        p = self.params
        return [
            random_event_at(TODAY, parse_time(p["time"]), parse_duration(p["duration"]), p["title"])
        ]

    def excluded(self, start: datetime.datetime) -> bool:
        at = start.time()
        return start.date() == TODAY and datetime.time(15, 30) <= at <= parse_time(
            self.params["time"]
        )

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        clock = ui.find(
            ui.elements(env), ui.res_is("com.android.systemui:id/clock"), need_visible=False
        )
        now = ui.elements(env)[clock].text if clock is not None else "00:00"
        yield from cal.open_day(env, TODAY)
        answer: list[str] = []
        for _ in range(7):
            rows = yield from self.read_day(env)
            upcoming = sorted(
                (start, title) for title, start, _ in rows if start >= (now or "00:00")
            )
            if upcoming:
                answer = [title for start, title in upcoming if start == upcoming[0][0]]
                break
            yield ui.click(env, ui.desc_is("Next day"), "Next day")
            now = "00:00"
        yield from self.answer(answer)


class SimExpenseTotalForCategory(_InformationRetrieval):
    """Sum one category's expenses: rows spread over a list longer than the screen."""

    success_rule = (
        "the answer is the category's total in dollars (number match within 0.01); no answer"
        " scores 0"
    )

    app_names = ("pro expense",)
    complexity = 2
    match_type = MatchType.NUMBER
    tolerance = 0.01
    template = (
        "What is the total amount of my {category} expenses in pro expense? Answer with the"
        " number only, in dollars, e.g. 123.45."
    )
    difficulty = "medium"
    tags = ("information_retrieval", "math_counting", "screen_reading", "parameterized")
    optimal_steps = 6

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        category = random.choice([c for c in exp.CATEGORIES if c != 2])
        targets = exp.unique_expenses(random.randint(2, 4), category=category)
        others = [c for c in exp.CATEGORIES if c != category]
        noise: list[dict[str, Any]] = []
        names = {r["name"] for r in targets}
        while len(noise) < 13:
            row = exp.generate_expense(random.choice(others))
            if row["name"] not in names:
                names.add(row["name"])
                noise.append(row)
        return {
            "category": exp.CATEGORIES[category],
            exp.ROW_OBJECTS: targets,
            exp.NOISE_ROW_OBJECTS: noise,
        }

    def expected(self) -> list[Any]:
        return [sum(r["amount"] for r in self.params[exp.ROW_OBJECTS]) / 100]

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        rows = self.params[exp.ROW_OBJECTS] + self.params[exp.NOISE_ROW_OBJECTS]
        exp.clear(env)
        exp.add_rows(env, sorted(rows, key=lambda r: r["created_date"]))
        env.controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        exp.clear(env)
        super().tear_down(env)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield ui.open_app("Pro Expense")
        prefix = f"{self.params['category']} · "
        seen: dict[tuple[str, str], int] = {}
        for _ in range(8):
            items = ui.elements(env)
            for i, e in enumerate(items):
                if (
                    e.resource_name == "android:id/summary"
                    and (e.text or "").startswith(prefix)
                    and ui.visible(e)
                ):
                    title = items[i - 1].text or ""
                    amounts = [
                        x for x in ui.row_texts_near(items, e) if x.resource_name == "tvAmount"
                    ]
                    if amounts:
                        seen[(title, e.text or "")] = (
                            expense_app.parse_amount(amounts[0].text or "") or 0
                        )
            before = [e.text for e in items if e.text]
            yield JSONAction(action_type="scroll", direction="down")
            if [e.text for e in ui.elements(env) if e.text] == before:
                break
        yield from self.answer([f"{sum(seen.values()) / 100:.2f}"])
