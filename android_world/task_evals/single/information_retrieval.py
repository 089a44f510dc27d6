"""Information-retrieval tasks: the agent answers with the `answer` action.

The shared machinery of upstream's questions (`information_retrieval/proto/tasks.textproto`,
in `calendar_questions`, `tasks_app`, `sports_tracker` and `joplin_notes`): parameters drawn
from the template's pools at draw time, and at initialisation, as upstream, the question's own
rows and the goal's date worded as a person would ("tomorrow", "this Monday", "October 16").
SimExpenseTotalForCategory (`expense_question`) is this suite's own, in the same style. Answers
are scored by `answer_check` with upstream's rules; no answer scores 0. This module needs no
simulated phone (task code reads device facts only).
"""

from __future__ import annotations

import datetime
import random
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

from android_world.env import device, interface
from android_world.env.json_action import JSONAction
from android_world.task_evals import answer_check, task_eval
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.answer_check import MatchType

UTC = datetime.UTC
NOW = device.FROZEN_DEVICE_TIME
TODAY = NOW.date()

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
    parameter itself took is removed first, then every draw removes what it took.

    Upstream removes the parameter's own value twice (once when formatting the relevant state,
    again when formatting its app's state), so a pool holding a value twice (the Tasks
    importances) loses both copies; pools without duplicates lose the one."""

    def __init__(self, values: Sequence[str], used: str | None = None):
        self.values = list(values)
        for _ in range(2):
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


# ---- base -----------------------------------------------------------------------------------


def draw_params(pools: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """Upstream's draw of a textproto task: one value per parameter, in the template's order."""
    return {name: random.choice(list(pool)) for name, pool in pools.items()}


def format_params(params: dict[str, Any]) -> None:
    """Upstream's `_format_params_with_params`: a value naming another parameter ("Meet with
    {person}") is filled in."""
    for name, value in params.items():
        if isinstance(value, str):
            params[name] = value.format(**params)


def reword_dates(params: dict[str, Any]) -> None:
    """Upstream's `_maybe_replace_date`: every parameter holding a date ("October 22 2023") is
    reworded as a person would say it, in the parameters' order (each a draw)."""
    for name, value in list(params.items()):
        if name == "seed" or not isinstance(value, str) or not value:
            continue
        try:
            day = date_of(value)
        except ValueError:
            continue
        params[name] = random.choice(date_phrases(day))


class _InformationRetrieval(task_eval.TaskEval):
    """A question. Upstream's (the textproto's) draw their parameters from `param_pools`; what
    upstream draws when a question is initialised (its `*_without_replacement` picks for the
    question's own rows, then the goal's date wording) is drawn by `prepare`, at initialisation,
    after `random` is seeded with the instance's seed, as upstream does."""

    schema: dict[str, Any] = {}
    match_type = MatchType.STRING
    tolerance: float | None = None
    tags: tuple[str, ...] = ("information_retrieval", "parameterized")
    param_pools: ClassVar[Mapping[str, Sequence[str]]] = {}

    def __init__(self, params: dict[str, Any]):
        super().__init__(params)
        self.prepared = False

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return draw_params(cls.param_pools)

    def prepare(self) -> None:
        """Initialisation's draws, once per instance: parameters naming others are filled in,
        the question's own rows drawn (`draw_relevant`), the exact date kept as
        `params['target_date']`, then the dates reworded."""
        if self.prepared:
            return
        self.prepared = True
        format_params(self.params)
        self.draw_relevant()
        exact = self.params.get("date")
        reword_dates(self.params)
        if isinstance(exact, str):
            self.params.setdefault("target_date", exact)

    def draw_relevant(self) -> None:
        """Draw what the question's own rows need beyond the parameters, into params."""

    # The app rows set-up writes, as upstream's row class names them (for the differential
    # with upstream's draws); None for questions that do not build them in one list.
    row_type: ClassVar[str | None] = None

    def initial_rows(self) -> list[dict[str, Any]]:
        """The rows set-up writes (the question's own and the noise, shuffled), drawn from
        `random` after `prepare()`."""
        raise NotImplementedError

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        self.prepare()

    def expected(self) -> list[Any]:
        raise NotImplementedError

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return answer_check.score_answer(
            env.interaction_cache, self.expected(), self.match_type, self.tolerance
        )

    def target_day(self) -> datetime.date:
        """The exact date of the question (params['target_date'] once initialised; the goal
        words it)."""
        return date_of(self.params["target_date"])

    def answer(self, values: list[str]) -> Iterator[JSONAction]:
        """The oracle's last steps: answer with the values, comma separated, and stop."""
        yield JSONAction(action_type="answer", text=", ".join(values))
        yield ui.done()
