"""The offline screen reading splits a list into its rows: a floating button drawn over the list
(Pro Expense's "Add expense") must not join the two rows it spans, or a total question sums a
neighbour's amount under the asked category (SimExpenseTotalForCategory, task seeds 3 and 5)."""

from __future__ import annotations

import pytest

from android_world.agents.custom.offline_roles import offline
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.roles.celil_perception import PerceptionModule
from android_world.env.json_action import JSONAction
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals.single import expense as ex

FIND = "Find the information the question asks for"
HEALTH, HOUSING, FOOD = 9, 4, 3
DAY = 86_400_000
OCT_1 = 1696118400000


def expense(name: str, cents: int, category: int, day: int) -> dict:
    ms = OCT_1 + (day - 1) * DAY
    return {
        "name": name,
        "amount": cents,
        "category": category,
        "note": "",
        "created_date": ms,
        "modified_date": ms,
    }


# Newest first on screen: eight rows above the pair, so the housing row and the first health
# row sit where the floating button covers the list's bottom edge.
ROWS = [
    *(expense(f"Meal {k}", 1000 + k, FOOD, 14) for k in range(7)),
    expense("Furnishing", 9852, HOUSING, 9),
    expense("Wellness Products", 16995, HEALTH, 5),
    expense("Medications", 38043, HEALTH, 3),
    expense("Groceries", 4200, FOOD, 2),
]


@pytest.fixture()
def env():
    sim = SimEnv(render=False)
    ex.clear(sim)
    ex.add_rows(sim, ROWS)
    sim.execute_action(JSONAction(action_type="open_app", app_name="Pro Expense"))
    yield sim
    sim.close()


def observe(sim):
    return PerceptionModule(ocr="off").process_observation(
        sim.get_state(), foreground_activity=sim.foreground_activity_name
    )


def test_a_floating_button_does_not_merge_the_rows_it_covers(env):
    obs = observe(env)
    fab = next(e for e in obs.ui_elements if e.content_description == "Add expense")
    assert fab.bbox_pixels.y_max > 2100  # the button does cover the list's last rows
    for item in screen.list_items(obs):
        texts = screen.item_texts(obs, item)
        amounts = [t for t in texts if screen.money(t) is not None]
        assert len(amounts) <= 1, texts


def test_a_category_total_counts_only_that_categorys_rows(env):
    goal = (
        "What is the total amount of my Health Care expenses in pro expense? "
        "Answer with the number only, in dollars, e.g. 123.45."
    )
    env.execute_action(JSONAction(action_type="navigate_home"))
    executor = offline.build_offline_roles().action_generator
    executor.set_goal(goal)
    context = f"Task goal: {goal}\n"
    opening = executor.generate_action("Open Pro Expense", observe(env), context)
    assert opening.action.action_type == "open_app"  # the app is opened from the home screen
    env.execute_action(opening.action)
    for _ in range(8):
        proposed = executor.generate_action(FIND, observe(env), context)
        if proposed.sub_goal_finished:
            break
        env.execute_action(proposed.action)
    assert proposed.finished_content == "550.38"
