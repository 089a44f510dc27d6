"""Reference solutions on the landscape phone (2400x1080), where a list shows only a few rows.

Each case failed before its fix, at these seeds: a pair of duplicate expenses split over two
screens (and rows hidden under the FAB padding), a dialog field the keyboard cut to a sliver,
and a Tasks list too long to scroll through within the step budget.
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

REGISTRY = TaskRegistry().get_registry()


def _run(env: SimEnv, name: str, seed: int) -> dict:
    random.seed(seed)
    params = REGISTRY[name].generate_random_params()
    params["seed"] = seed
    return suite_utils.run_task(REGISTRY[name](params), OracleAgent(env), print_fn=lambda *_: None)


@pytest.fixture(scope="module")
def landscape():
    env = SimEnv(seed=0, render=False, profile="landscape")
    yield env
    env.close()


@pytest.mark.parametrize(
    "name",
    [
        "ExpenseDeleteDuplicates",
        "ExpenseDeleteDuplicates2",
        "MarkorMergeNotes",
        "TasksCompletedTasksForDate",
    ],
)
def test_oracle_solves_the_task_in_landscape(landscape, name):
    episode = _run(landscape, name, 7)
    assert episode["is_successful"] == 1.0, episode["error"] or episode["episode_length"]


def _expense_screen(env: SimEnv) -> list:
    random.seed(7)
    params = REGISTRY["ExpenseDeleteDuplicates"].generate_random_params()
    task = REGISTRY["ExpenseDeleteDuplicates"](params)
    task.initialize_task(env)
    env.execute_action(JSONAction(action_type="open_app", app_name="Pro Expense"))
    return env.get_state(wait_to_stabilize=True).ui_elements


def test_a_fab_padded_list_shows_rows_through_its_bottom_padding(landscape):
    items = _expense_screen(landscape)
    titles = [e for e in items if e.resource_name == "android:id/title" and e.bbox_pixels]
    shown = [e for e in titles[1:] if not ui.clipped_out(e)]  # [0] is the app bar's title
    assert len(shown) >= 3  # two rows above the padding, the third shows through it


def test_a_dialog_field_the_keyboard_cuts_pans_into_view(landscape):
    random.seed(7)
    params = REGISTRY["MarkorMergeNotes"].generate_random_params()
    REGISTRY["MarkorMergeNotes"](params).initialize_task(landscape)
    landscape.execute_action(JSONAction(action_type="open_app", app_name="Markor"))
    landscape.execute_action(ui.tap(landscape, desc="Create a new file or folder"))
    landscape.execute_action(ui.type_into(landscape, ui.hint_is("Name"), "n", "the name field"))
    items = landscape.get_state(wait_to_stabilize=True).ui_elements
    field = next(e for e in items if e.is_focused and e.is_editable)
    assert field.hint_text == "Extension"  # Enter moved the focus down
    assert field.bbox_pixels is not None and field.bbox_pixels.height >= 100  # whole, not a sliver
    assert not ui.keyboard_hides_focus(items)
