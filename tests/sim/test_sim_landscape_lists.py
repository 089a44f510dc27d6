"""Dialog lists on the landscape phone: a scroll drags over (nearly) the list's height.

Pro Expense's category dialog shows three and a half of its eleven rows in landscape. A scroll
on the list itself (upstream's centre-to-edge) moves it half its height, 292 px, so a late
category (Donation) took five scrolls and ExpenseAddSingle ran out of its 12 steps at these
seeds (5, 6: they failed before the fix).
"""

from __future__ import annotations

import random

import pytest

from android_world.agents.oracle_agent import OracleAgent
from android_world.env.json_action import JSONAction
from android_world.env.sim import SimEnv
from android_world.harness import suite_utils
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.registry import TaskRegistry
from android_world.task_evals.single.expense import CATEGORIES

REGISTRY = TaskRegistry().get_registry()


def _category_dialog(env: SimEnv) -> list:
    env.execute_action(JSONAction(action_type="open_app", app_name="Pro Expense"))
    env.execute_action(ui.click(env, ui.desc_is("Add expense"), "the Add expense button"))
    env.execute_action(ui.click(env, ui.text_is("Category"), "the Category row"))
    return env.get_state(wait_to_stabilize=True).ui_elements


def _shown_titles(items: list) -> set[str]:
    return {e.text for e in items if e.text in CATEGORIES.values() and ui.visible(e)}


@pytest.mark.parametrize("seed", [5, 6])
def test_expense_add_single_fits_its_budget_in_landscape(seed):
    env = SimEnv(seed=0, render=False, profile="landscape")
    try:
        random.seed(seed)
        params = REGISTRY["ExpenseAddSingle"].generate_random_params()
        params["seed"] = seed
        task = REGISTRY["ExpenseAddSingle"](params)
        episode = suite_utils.run_task(task, OracleAgent(env), print_fn=lambda *_: None)
    finally:
        env.close()
    assert episode["is_successful"] == 1.0, episode["error"] or episode["episode_length"]
    assert episode["episode_length"] <= 12


def test_a_landscape_dialog_list_scrolls_by_nearly_its_height_and_skips_no_row():
    env = SimEnv(seed=0, render=False, profile="landscape")
    try:
        items = _category_dialog(env)
        list_index = ui.find(items, ui.res_is("category_list"), need_visible=False)
        action = ui.list_scroll(items, list_index, "down")
        assert action.index is None  # the whole-screen drag starts on the dialog's list
        seen, moves = _shown_titles(items), 0
        while len(seen) < len(CATEGORIES):
            env.execute_action(ui.list_scroll(ui.elements(env), list_index, "down"))
            moves += 1
            seen |= _shown_titles(env.get_state(wait_to_stabilize=True).ui_elements)
            assert moves <= 3, sorted(set(CATEGORIES.values()) - seen)
    finally:
        env.close()


def test_a_list_shorter_than_half_the_screen_keeps_the_scroll_on_the_list():
    env = SimEnv(seed=0, render=False)  # portrait: the dialog's list is under half the screen
    try:
        items = _category_dialog(env)
        list_index = ui.find(items, ui.res_is("category_list"), need_visible=False)
        assert ui.list_scroll(items, list_index, "down").index == list_index
    finally:
        env.close()
