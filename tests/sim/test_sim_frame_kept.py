"""Time passing lays a screen out again only where time can show (issue 30: every step's
`pass_time` bumped the phone's version, so the frame the agent had just seen was built a second
time to resolve the action's target), and a screen without a focused field is built once."""

from __future__ import annotations

import pytest

from android_world.env.json_action import JSONAction
from android_world.env.sim.phone import STEP_MS
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals.oracle_utils import tap


@pytest.fixture
def env():
    sim = SimEnv(render=False)
    yield sim
    sim.close()


def _open(env: SimEnv, name: str) -> None:
    env.execute_action(JSONAction(action_type="open_app", app_name=name))


def _fresh_elements(env: SimEnv) -> list:
    return list(env.phone._build_frame().elements)


def test_a_frame_that_reads_no_clock_is_kept_and_equals_a_fresh_build(env):
    _open(env, "Settings")
    seen = env.phone.frame()
    version = env.phone.version
    env.phone.pass_time(STEP_MS)
    assert env.phone.version == version + 1  # time still moves the version (the clock's tick)
    assert env.phone.frame() is seen
    assert list(seen.elements) == _fresh_elements(env)


def test_a_change_after_time_passed_is_laid_out_again(env):
    _open(env, "Settings")
    seen = env.phone.frame()
    env.phone.pass_time(STEP_MS)
    env.controller.write_text("/sdcard/Download/x.txt", "x")  # the device changed
    assert env.phone.frame() is not seen
    seen = env.phone.frame()
    env.phone.pass_time(STEP_MS)
    env.phone.changed()  # the phone changed
    assert env.phone.frame() is not seen


def test_a_running_stopwatch_is_laid_out_again_and_moves(env):
    _open(env, "Clock")
    env.execute_action(tap(env, desc="Stopwatch"))
    env.execute_action(tap(env, desc="Start"))
    seen = env.phone.frame()
    env.phone.pass_time(STEP_MS)
    now = env.phone.frame()
    assert now is not seen
    assert [e.text for e in now.elements] != [e.text for e in seen.elements]
    assert list(now.elements) == _fresh_elements(env)


def test_an_app_that_acts_on_time_is_laid_out_again(env):
    _open(env, "VLC")  # VLC overrides App.time_passed (a playing video ends by itself)
    seen = env.phone.frame()
    env.phone.pass_time(STEP_MS)
    assert env.phone.frame() is not seen


def test_every_step_of_a_session_sees_what_a_fresh_build_shows(env):
    _open(env, "Contacts")
    for action in (
        tap(env, text="Don't allow"),
        JSONAction(action_type="navigate_back"),
        JSONAction(action_type="navigate_home"),
        JSONAction(action_type="open_app", app_name="Clock"),
        JSONAction(action_type="wait"),
    ):
        env.execute_action(action)
        assert list(env.get_state().ui_elements) == _fresh_elements(env)


def test_a_screen_without_a_focused_field_is_built_once_a_frame(env, monkeypatch):
    _open(env, "Settings")
    screen = env.phone.current_screen()
    assert screen.focus is None
    builds = []
    real = type(screen).build
    monkeypatch.setattr(type(screen), "build", lambda self: builds.append(1) or real(self))
    env.phone.changed()
    env.phone.frame()
    assert len(builds) == 1
