"""A form slot that no field or labelled control takes ("Phone Label: Home") goes to the form's
only drop-down: the offline executor opens it and picks the value, and the offline verifier
lets that tap through (ContactsNewContactDraft ran out of steps on it, every seed)."""

from __future__ import annotations

from android_world.agents.custom.offline_roles import offline, offline_text
from android_world.agents.custom.roles.celil_perception import PerceptionModule
from android_world.env.json_action import JSONAction
from android_world.env.sim.sim_env import SimEnv

GOAL = (
    "Go to the new contact screen and enter the following details: First Name: Frank, "
    "Last Name: Smith, Phone: 474-173-9588, Phone Label: Home. Do NOT hit save."
)
CONTEXT = f"Task goal: {GOAL}\n"


def observe(sim: SimEnv):
    return PerceptionModule(ocr="off").process_observation(
        sim.get_state(), foreground_activity=sim.foreground_activity_name
    )


def run_sub_goal(sim, roles, sub_goal: str, limit: int = 4) -> list:
    """The executor's actions for one sub-goal, each checked by the verifier's gate."""
    actions = []
    for _ in range(limit):
        obs = observe(sim)
        proposed = roles.action_generator.generate_action(sub_goal, obs, CONTEXT)
        if proposed.sub_goal_finished or proposed.action is None:
            return actions
        score, _ = roles.verifier.verify_action(sub_goal, proposed, obs, CONTEXT)
        assert score >= roles.verifier.threshold, (proposed.thought, score)
        sim.execute_action(proposed.action)
        actions.append(proposed)
    return actions


def test_the_phone_label_is_chosen_in_the_forms_drop_down():
    sim = SimEnv(render=False)
    try:
        roles = offline.build_offline_roles()
        roles.action_generator.set_goal(GOAL)
        sim.execute_action(JSONAction(action_type="open_app", app_name="Contacts"))
        run_sub_goal(sim, roles, "Start a new contact")
        run_sub_goal(sim, roles, "Enter '474-173-9588' as the phone", limit=1)
        steps = run_sub_goal(sim, roles, "Enter 'Home' as the label")
        assert [p.target_description for p in steps] == ["Mobile", "Home"]
        obs = observe(sim)
        intent = offline.parse_sub_goal("Enter 'Home' as the label", offline_text.parse_goal(GOAL))
        done, why = offline.fill_done(intent, obs)
        assert done, why
        spinner = next(e for e in obs.ui_elements if e.resource_name == "spinner")
        assert spinner.text == "Home"
    finally:
        sim.close()
