"""The episode runner's upstream semantics and its per-step hooks."""

from __future__ import annotations

import harness_fakes as fakes
import pytest

from android_world.agents import base_agent
from android_world.harness import episode_runner


def _quiet(_msg: str) -> None:
    pass


def test_runs_until_agent_says_done_and_numbers_steps():
    agent = fakes.ScriptedAgent(fakes.FakeEnv(), done_after=3)
    result = episode_runner.run_episode("g", agent, max_n_steps=10, print_fn=_quiet)
    assert result.done is True
    assert result.step_data == {"n": [1, 2, 3], "step_number": [0, 1, 2]}
    assert agent.resets == [False] and agent.max_steps == [10]


def test_budget_exhausted_is_not_done():
    agent = fakes.ScriptedAgent(fakes.FakeEnv(), done_after=None)
    result = episode_runner.run_episode(
        "g", agent, max_n_steps=4, start_on_home_screen=True, print_fn=_quiet
    )
    assert result.done is False
    assert result.step_data["step_number"] == [0, 1, 2, 3]
    assert agent.resets == [True]


def test_zero_budget_does_not_touch_the_agent():
    agent = fakes.ScriptedAgent(fakes.FakeEnv())
    result = episode_runner.run_episode("g", agent, max_n_steps=0, print_fn=_quiet)
    assert result == episode_runner.EpisodeResult(done=False, step_data={})
    assert agent.resets == []


def test_step_number_in_agent_data_is_rejected():
    class Bad(base_agent.EnvironmentInteractingAgent):
        def step(self, goal):
            return base_agent.AgentInteractionResult(False, {"step_number": 7})

    with pytest.raises(AssertionError, match="step_number"):
        episode_runner.run_episode("g", Bad(fakes.FakeEnv()), max_n_steps=2, print_fn=_quiet)


def test_termination_fn_ends_episode_as_done():
    env = fakes.FakeEnv()
    agent = fakes.ScriptedAgent(env, done_after=None)

    def wifi_on(e):
        return e.controller.get_setting("global", "wifi_on") == "1"

    result = episode_runner.run_episode(
        "g", agent, max_n_steps=5, termination_fn=wifi_on, print_fn=_quiet
    )
    assert result.done is True and result.step_data["step_number"] == [0]


def test_hooks_bracket_each_step_in_order():
    events = []
    agent = fakes.ScriptedAgent(fakes.FakeEnv(), done_after=2)
    episode_runner.run_episode(
        "g",
        agent,
        max_n_steps=5,
        print_fn=_quiet,
        on_step_start=lambda n: events.append(("start", n)),
        on_step_end=lambda n, r: events.append(("end", n, r.done)),
    )
    assert events == [("start", 0), ("end", 0, False), ("start", 1), ("end", 1, True)]


def test_transpose_roundtrip_with_ragged_keys():
    steps = [{"a": 1, "step_number": 0}, {"b": 2, "step_number": 1}]
    dol = episode_runner._transpose_lod_to_dol(steps)
    assert dol == {"a": [1, None], "step_number": [0, 1], "b": [None, 2]}
    assert episode_runner.transpose_dol_to_lod(dol) == [
        {"a": 1, "step_number": 0, "b": None},
        {"a": None, "step_number": 1, "b": 2},
    ]
    assert episode_runner.transpose_dol_to_lod({}) == []
