"""The scripted model's executor after the device refused its action (benchmarks/
scripted_model.py, `on_refused`): a model looks at the screen again, it does not replay the
refused tap later on whatever page a replan reached since."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
import scale_worker
import scripted_model as sm

from android_world.env import json_action
from android_world.env.representation_utils import BoundingBox, UIElement


class _Env:
    """A screen of buttons; `page` names the page the device shows."""

    def __init__(self) -> None:
        self.page = "first"

    def get_state(self):
        label = f"{self.page} button"
        button = UIElement(text=label, is_clickable=True, bbox_pixels=BoundingBox(0, 500, 300, 400))
        return SimpleNamespace(ui_elements=[button], pixels=None)


class _Task:
    """A reference solution that taps the first element of whatever page it is started on."""

    name = "Refusals"
    goal = "Tap the button"
    params: dict = {}
    app_names = ()

    def __init__(self, env: _Env) -> None:
        self.env = env
        self.starts: list[str] = []

    def oracle_actions(self, env):
        self.starts.append(env.page)
        yield json_action.JSONAction(action_type="click", index=0)
        yield json_action.JSONAction(action_type="status", goal_status="complete")


def _world() -> tuple[sm.ScriptedWorld, _Env, _Task]:
    env = _Env()
    world = sm.ScriptedWorld(env, sm.Rates(p=0.0, q=1.0))
    task = _Task(env)
    world.set_task(task)
    return world, env, task


def _proposal(world: sm.ScriptedWorld) -> dict:
    reply = world.executor_reply("Current sub-goal: Do the whole task as asked")
    return json.loads(reply.split("Action: ", 1)[1])


def test_a_refused_reference_tap_is_computed_again_on_the_page_shown_next():
    world, env, task = _world()
    tap = _proposal(world)
    assert tap["action_type"] == "click"
    world.on_refused(json_action.JSONAction(**tap))  # the device raised; nothing ran
    env.page = "second"  # a replan reached another page
    assert _proposal(world)["action_type"] == "click"
    assert task.starts == ["first", "second"]  # looked again, on the page it is on now
    assert world.restarts == 1


def test_a_reference_tap_not_refused_is_kept_until_it_runs():
    world, env, task = _world()
    tap = _proposal(world)
    env.page = "second"  # e.g. the gate refused it: nothing ran, the reference waits
    assert _proposal(world) == tap
    assert task.starts == ["first"] and world.restarts == 0


def test_a_refused_wrong_action_does_not_restart_the_reference():
    world, _, task = _world()
    _proposal(world)
    world._last_label = sm.WRONG  # the executor's last proposal was a wrong one
    world.on_refused(json_action.JSONAction(action_type="click", index=3))
    _proposal(world)
    assert task.starts == ["first"] and world.restarts == 0


def test_the_scale_out_worker_reports_a_refused_action_to_its_world_too():
    """scale_out.py's workers run the same fake: a refused tap there must not be replayed either."""

    class _World:
        run_action = sm.ScriptedWorld.run_action  # the real protocol, recording its two calls

        def __init__(self) -> None:
            self.refused: list[str] = []
            self.executed: list[str] = []

        def on_refused(self, action) -> None:
            self.refused.append(action.action_type)

        def on_execute(self, action) -> None:
            self.executed.append(action.action_type)

    env = scale_worker.DelayedSimEnv(0.0, seed=0, render=False)
    try:
        env.world = _World()
        refused = json_action.JSONAction(action_type=json_action.CLICK, index=999)
        with pytest.raises(ValueError):
            env.execute_action(refused)
        env.execute_action(json_action.JSONAction(action_type=json_action.NAVIGATE_HOME))
        assert env.world.refused == [json_action.CLICK]
        assert env.world.executed == [json_action.NAVIGATE_HOME]
    finally:
        env.close()
