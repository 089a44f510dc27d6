"""Information-retrieval tasks: the agent answers with the `answer` action.

The shared machinery of upstream's questions (`information_retrieval/proto/tasks.textproto`,
in `calendar_questions` and `tasks_app`): parameters drawn from the template's pools at draw
time, and at initialisation, as upstream, the question's own rows and the goal's date worded as a
person would ("tomorrow", "this Monday", "October 16"). SimExpenseTotalForCategory is this
suite's own, in the same style. Answers are scored by `answer_check` with upstream's rules; no
answer scores 0.
"""

from __future__ import annotations

import datetime
import random
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

from android_world.env import device, interface
from android_world.env.json_action import JSONAction
from android_world.env.sim.apps import expense as expense_app
from android_world.task_evals import answer_check, task_eval
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.answer_check import MatchType
from android_world.task_evals.single import expense as exp

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
