"""SimExpenseTotalForCategory: this suite's own question on Pro Expense, in the style of upstream's
information-retrieval tasks (`information_retrieval`)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from android_world.env import interface
from android_world.env.device_facts import expense as expense_facts
from android_world.env.json_action import JSONAction
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.answer_check import MatchType
from android_world.task_evals.single import expense as exp
from android_world.task_evals.single.information_retrieval import _InformationRetrieval


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
                            expense_facts.parse_amount(amounts[0].text or "") or 0
                        )
            before = [e.text for e in items if e.text]
            yield JSONAction(action_type="scroll", direction="down")
            if [e.text for e in ui.elements(env) if e.text] == before:
                break
        yield from self.answer([f"{sum(seen.values()) / 100:.2f}"])
