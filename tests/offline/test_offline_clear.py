"""Emptying an app's whole list ("Delete all my notes in Markor"): the goal is read as one
"Delete every <kind>" step, done when the list says it is empty; goals with a condition on
which items go are not read that way."""

from __future__ import annotations

import pytest

from android_world.agents.custom.offline_roles import offline, offline_clear
from android_world.agents.custom.roles.celil_perception import PerceptionModule
from android_world.env.json_action import JSONAction
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals.single import markor_more


@pytest.mark.parametrize(
    "goal, kind",
    [
        ("Delete all my notes in Markor.", "note"),
        ("Remove all the recipes from Broccoli", "recipe"),
        ("Delete all expenses in the Pro Expense app.", "expense"),
        ("Delete all my notes.", "note"),
        # a condition on the items, a day, or an unknown place: not the whole list
        ("Delete all but one of any expenses in pro expense that are exact duplicates.", None),
        ("Delete all the events on 2023-10-27 in Simple Calendar Pro.", None),
        ("Delete the recipes from Broccoli app that use soy sauce in the directions.", None),
        ("Delete all notes in the DailyNotes folder", None),
        ("Delete all my notes in Markor except notes.md", None),
    ],
)
def test_which_goals_empty_a_whole_list(goal, kind):
    assert offline_clear.list_kind(goal) == kind


def test_the_plan_is_one_step_after_opening_the_app():
    info = offline.text_lib.parse_goal("Delete all my notes in Markor.")
    plan, _ = offline.build_plan(info)
    assert plan == ["Open Markor", "Delete every note"]
    assert offline.parse_sub_goal("Delete every note", info).kind == "clear"


def observe(sim):
    return PerceptionModule(ocr="off").process_observation(
        sim.get_state(), foreground_activity=sim.foreground_activity_name
    )


def test_markor_is_emptied_and_only_then_the_step_is_done():
    sim = SimEnv(render=False)
    try:
        for name in ("alpha.md", "beta.md", "gamma.txt"):
            markor_more.echo_to(sim, f"{markor_more.NOTEBOOK}/{name}")
        goal = "Delete all my notes in Markor."
        context = f"Task goal: {goal}\n"
        roles = offline.build_offline_roles()
        roles.action_generator.set_goal(goal)
        sim.execute_action(JSONAction(action_type="open_app", app_name="Markor"))
        intent = offline.parse_sub_goal("Delete every note", offline.text_lib.parse_goal(goal))
        assert not offline.sub_goal_done(intent, observe(sim), [])[0]
        whys = []
        for _ in range(8):
            obs = observe(sim)
            proposed = roles.action_generator.generate_action("Delete every note", obs, context)
            if proposed.sub_goal_finished or proposed.action is None:
                break
            score, _ = roles.verifier.verify_action("Delete every note", proposed, obs, context)
            assert score >= roles.verifier.threshold, proposed.thought
            sim.execute_action(proposed.action)
            whys.append(proposed.thought)
        assert offline.sub_goal_done(intent, observe(sim), [])[0], whys
        assert not markor_more.regular_files(sim)
        assert len(whys) == 4  # long press, Select all, Delete, OK
    finally:
        sim.close()
