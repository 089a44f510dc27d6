"""A "verify that it is done" step after the goal itself was confirmed on the same screen asks no
model again (issue 30: under `verify` plans the executor was asked for its "finished" and the
planner about the whole goal a second time, on the screen it had just judged)."""

from __future__ import annotations

import celil_fakes as fakes
from test_honest_progress_noise import CONTACT, _CannotReadTheGoal, _SaysDone

from android_world.agents.custom.celil_protocols import Evidence, Plan
from android_world.agents.custom.loop.celil_agent import CelilAgent
from android_world.agents.custom.roles.celil_perception import PerceptionModule
from android_world.env import json_action

VERIFY = "Verify that it is done: add a contact named Bob"


def _run(plan: list[str]) -> tuple[fakes.FakePhone, fakes.ScriptedExecutor, _SaysDone]:
    env = fakes.FakePhone()
    planner = _SaysDone(
        initial=[Plan(plan)],
        progress=[Evidence(True, '"Contact saved", "Bob"', "model")] * 3,
        confirm=False,
    )
    executor = fakes.ScriptedExecutor(
        script=[
            fakes.click(0),
            fakes.click(0),
            fakes.type_text(0, "Bob"),
            fakes.click(1),
            fakes.finished(),
            fakes.finished(),
        ]
    )
    agent = CelilAgent(
        env,
        PerceptionModule(ocr="off"),
        planner,
        executor,
        fakes.ScriptedVerifier(),
        screen_checker=_CannotReadTheGoal(),
        transition_pause=0.0,
        progress_check="screen",
    )
    agent.reset()
    agent.set_max_steps(8)
    for _ in range(8):
        if agent.step(CONTACT).done:
            break
    return env, executor, planner


def test_the_verify_step_after_the_goal_confirmed_on_this_screen_asks_no_model():
    env, executor, planner = _run([CONTACT, VERIFY])
    claims = [a.goal_status for a in env.actions if a.action_type == json_action.STATUS]
    assert env.saved == ["Bob"] and claims == ["complete"]
    assert sum(1 for call in planner.calls if call[0] == "progress") == 1
    assert executor.calls == [CONTACT] * 5  # four actions and a "finished"; none for VERIFY


def test_without_a_verify_step_the_goal_is_confirmed_the_same_way():
    env, executor, planner = _run([CONTACT])
    claims = [a.goal_status for a in env.actions if a.action_type == json_action.STATUS]
    assert env.saved == ["Bob"] and claims == ["complete"]
    assert sum(1 for call in planner.calls if call[0] == "progress") == 1
    assert executor.calls == [CONTACT] * 5
