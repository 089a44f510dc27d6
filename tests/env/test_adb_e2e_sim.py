"""End to end: the Settings tasks, solved by the oracle agent over AdbEnv on the simulated phone,
score exactly as they do on SimEnv.

AdbEnv talks to a fake device that serves a SimEnv (adb argv -> device shell -> sim touches and
keys; uiautomator XML and PNG screenshots back). Most runs call the fake in process (same argv,
same replies) to stay fast; one goes through the fake `adb` executable by subprocess.
"""

from __future__ import annotations

import inspect
import random

import pytest
from support.fake_adb import FakeAdbServer, FakeDevice, in_process_runner
from support.fake_adb.sim_phone import SimPhone

from android_world.agents import base_agent
from android_world.agents.oracle_agent import OracleAgent
from android_world.env import interface, json_action
from android_world.env.adb import AdbEnv
from android_world.env.sim.sim_env import SimEnv
from android_world.harness import episode_runner
from android_world.task_evals import task_eval
from android_world.task_evals.single import system

SETTINGS_TASKS = sorted(
    (
        cls
        for name, cls in inspect.getmembers(system, inspect.isclass)
        if issubclass(cls, task_eval.TaskEval)
        and cls.__module__ == system.__name__
        and not name.startswith("_")
        and not inspect.isabstract(cls)
    ),
    key=lambda cls: cls.__name__,
)


class GiveUpAgent(base_agent.EnvironmentInteractingAgent):
    """Says done at once: a task that is not already solved must score 0 on both envs."""

    def step(self, goal: str) -> base_agent.AgentInteractionResult:
        return base_agent.AgentInteractionResult(True, {})


def run_task(
    env: interface.AsyncEnv, cls: type[task_eval.TaskEval], seed: int, oracle: bool = True
) -> float:
    random.seed(seed)
    task = cls(cls.generate_random_params())
    task.initialize_task(env)
    agent: base_agent.EnvironmentInteractingAgent
    if oracle:
        agent = OracleAgent(env)
        agent.set_task(task)
    else:
        agent = GiveUpAgent(env, transition_pause=0.0)
    result = episode_runner.run_episode(
        task.goal,
        agent,
        max_n_steps=int(10 * task.complexity),
        start_on_home_screen=task.start_on_home_screen,
        print_fn=lambda _: None,
    )
    score = task.is_successful(env) if result.done else 0.0
    task.tear_down(env)
    return score


def adb_env_on_sim(seed: int = 0) -> tuple[AdbEnv, FakeDevice]:
    fake = FakeDevice(SimPhone(SimEnv(seed=seed, render=False)))
    env = AdbEnv({}, runner=in_process_runner(fake), input_pause_sec=0, sleep=lambda _: None)
    return env, fake


def test_the_settings_suite_is_here():
    assert len(SETTINGS_TASKS) >= 10


@pytest.mark.parametrize("cls", SETTINGS_TASKS, ids=lambda cls: cls.__name__)
def test_oracle_scores_the_same_over_adb_as_on_the_sim(cls):
    sim_score = run_task(SimEnv(seed=0, render=False), cls, seed=7)
    env, fake = adb_env_on_sim()
    adb_score = run_task(env, cls, seed=7)
    assert adb_score == sim_score == 1.0
    shell = fake.shell_log
    assert any(line.startswith("uiautomator dump") for line in shell)
    assert any(line.startswith("settings put") for line in shell)  # task set-up went over adb
    if not cls.__name__.endswith("Verify"):
        assert any(line.startswith("input tap") for line in shell)  # the oracle really acted


@pytest.mark.parametrize(
    "cls", [system.SystemWifiTurnOn, system.SystemBrightnessMax], ids=lambda c: c.__name__
)
def test_giving_up_scores_zero_on_both(cls):
    sim_score = run_task(SimEnv(seed=0, render=False), cls, seed=7, oracle=False)
    env, _ = adb_env_on_sim()
    assert run_task(env, cls, seed=7, oracle=False) == sim_score == 0.0


@pytest.mark.slow
def test_a_task_through_the_fake_adb_executable():
    sim = SimEnv(seed=0, render=True)  # real rendered screenshots, as PNG through the pipe
    fake = FakeDevice(SimPhone(sim))
    with FakeAdbServer(fake.handle) as server:
        env = AdbEnv({"adb_path": server.adb_path}, input_pause_sec=0, sleep=lambda _: None)
        state = env.get_state()
        assert state.pixels.shape == (2400, 1080, 3) and state.pixels.std() > 0
        sim.render = False  # rendering every later frame only costs time here
        assert run_task(env, system.SystemWifiTurnOff, seed=3) == 1.0
        assert sim.controller.get_setting("global", "wifi_on") == "0"
    assert len(server.calls) > 10


def test_adb_elements_cover_the_sim_elements():
    """uiautomator shows every node; the sim's elements (leaves, described, scrollable) are a
    subset in the same order, with the same boxes and flags."""
    env, fake = adb_env_on_sim()
    env.execute_action(json_action.JSONAction(action_type="open_app", app_name="Settings"))
    sim: SimEnv = fake.phone.env  # type: ignore[attr-defined]
    expected = sim.get_state().ui_elements
    actual = env.get_state().ui_elements
    assert len(actual) > len(expected) > 5

    def key(e):
        return (e.text, e.content_description, e.class_name, e.bbox_pixels, e.is_checked)

    positions = [[i for i, a in enumerate(actual) if key(a) == key(e)] for e in expected]
    assert all(positions), "every sim element appears in the adb element list"
    firsts = [p[0] for p in positions]
    assert firsts == sorted(firsts)


@pytest.mark.parametrize(
    "name", ["ExpenseAddSingle", "MarkorEditNote", "SimpleCalendarEventsOnDate"]
)
def test_database_file_and_answer_tasks_also_match(name):
    """Beyond Settings: sqlite set-up and checks, files, and an `answer`, all through adb."""
    from android_world.task_evals.registry import TaskRegistry

    registry = TaskRegistry().get_registry()
    if name not in registry:
        pytest.skip(f"{name} is not in the suite")
    cls = registry[name]
    sim_score = run_task(SimEnv(seed=0, render=False), cls, seed=7)
    env, fake = adb_env_on_sim()
    assert run_task(env, cls, seed=7) == sim_score == 1.0
    assert any(line.startswith(("sqlite3 ", "ls ", "stat ", "cat ")) for line in fake.shell_log)
