"""Moving a note between folders: the goal "move the note copy_x.md from A to B" is understood
(its "note X from A to B" is no name to type), and the plan's last step, "Tap Move", is the OK
of the "Move to" folder chooser, which has no button called Move (MarkorMoveNote, every seed)."""

from __future__ import annotations

import pytest

from android_world.agents.custom.offline_roles import offline, offline_text
from android_world.agents.custom.roles.celil_perception import PerceptionModule
from android_world.env.json_action import JSONAction
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals.single import markor_more

GOAL = "In Markor, move the note copy_strong_tiger.md from CodeSnippets to DailyNotes."
CONTEXT = f"Task goal: {GOAL}\n"


@pytest.mark.parametrize(
    "goal",
    [
        GOAL,
        "In Markor, move the note final_proud_apple.txt from StudyGuides to BookNotes.",
        "In Markor, move the note 2023_04_04_calm_quilt.md from BookNotes to FitnessPlans.",
    ],
)
def test_a_move_goal_is_understood(goal):
    info = offline_text.parse_goal(goal)
    plan, _ = offline.build_plan(info)
    assert plan[-1] == "Tap Move"
    assert offline.not_understood(info, plan) is None


def observe(sim):
    return PerceptionModule(ocr="off").process_observation(
        sim.get_state(), foreground_activity=sim.foreground_activity_name
    )


def tap(sim, label: str, long: bool = False) -> None:
    obs = observe(sim)
    index = next(
        i for i, e in enumerate(obs.ui_elements) if label in (e.text, e.content_description)
    )
    sim.execute_action(JSONAction(action_type="long_press" if long else "click", index=index))


def test_tap_move_is_the_choosers_ok_and_tap_move_to_is_not():
    sim = SimEnv(render=False)
    try:
        markor_more.echo_to(sim, f"{markor_more.NOTEBOOK}/CodeSnippets/copy_strong_tiger.md")
        sim.controller.make_dirs(f"{markor_more.NOTEBOOK}/DailyNotes")
        roles = offline.build_offline_roles()
        roles.action_generator.set_goal(GOAL)
        sim.execute_action(JSONAction(action_type="open_app", app_name="Markor"))
        tap(sim, "CodeSnippets")
        tap(sim, "copy_strong_tiger.md", long=True)
        tap(sim, "More options")
        tap(sim, "Move")
        tap(sim, "DailyNotes")  # the chooser now shows Markor/DailyNotes
        obs = observe(sim)
        opening = roles.action_generator.generate_action("Tap Move to", obs, CONTEXT)
        assert opening.action is None or opening.target_description != "OK"
        proposed = roles.action_generator.generate_action("Tap Move", obs, CONTEXT)
        assert proposed.target_description == "OK", proposed.thought
        score, _ = roles.verifier.verify_action("Tap Move", proposed, obs, CONTEXT)
        assert score >= roles.verifier.threshold
        sim.execute_action(proposed.action)
        assert sim.controller.exists(f"{markor_more.NOTEBOOK}/DailyNotes/copy_strong_tiger.md")
    finally:
        sim.close()
