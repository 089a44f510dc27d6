"""The agent registry and the built-in agents (random, human, oracle)."""

from __future__ import annotations

import io
import json

import harness_fakes as fakes
import pydantic
import pytest

from android_world.agents import base_agent, human_agent, registry
from android_world.harness import suite_utils


def test_builtins_registered_idempotently():
    registry._register_all_agents()
    registry._register_all_agents()
    assert {"random_agent", "human_agent", "oracle_agent"} <= set(registry.list_agents())


def test_unknown_agent_lists_agents_with_did_you_mean():
    with pytest.raises(registry.UnknownAgentError) as info:
        registry.get_agent("random_agnt", fakes.FakeEnv())
    message = str(info.value)
    assert "Did you mean 'random_agent'" in message and "oracle_agent" in message
    assert "\n" not in message


def test_kwargs_are_validated_with_the_factory_model():
    with pytest.raises(registry.AgentConfigError) as info:
        registry.get_agent("random_agent", fakes.FakeEnv(), sed=3)
    assert info.value.path == "sed" and "did you mean 'seed'" in info.value.message
    with pytest.raises(registry.AgentConfigError, match="p_complete"):
        registry.get_agent("random_agent", fakes.FakeEnv(), p_complete=2)


def test_register_custom_factory_with_context():
    class Cfg(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(extra="forbid")
        level: int = 1

    seen = {}

    def factory(env, context, level):
        seen.update(level=level, seed=context.seed)
        return fakes.ScriptedAgent(env)

    registry.register("test_custom_agent", factory, Cfg)
    try:
        agent = registry.get_agent(
            "test_custom_agent", fakes.FakeEnv(), registry.RunContext(seed=7), level="3"
        )
        assert isinstance(agent, base_agent.EnvironmentInteractingAgent)
        assert seen == {"level": 3, "seed": 7}
    finally:
        registry._REGISTRY.pop("test_custom_agent")


def _actions(seed, p_complete=0.0, n=30):
    env = fakes.FakeEnv()
    agent = registry.get_agent("random_agent", env, seed=seed, p_complete=p_complete)
    dones = [agent.step("g").done for _ in range(n)]
    return [a.json_str() for a in env.actions], dones


def test_random_agent_is_seeded_and_never_done_by_default():
    a, dones = _actions(1)
    b, _ = _actions(1)
    c, _ = _actions(2)
    assert a == b and a != c and not any(dones)
    assert len({json.loads(x)["action_type"] for x in a}) >= 4
    _, dones = _actions(1, p_complete=1.0, n=1)
    assert dones == [True]


def test_human_agent_actions_answers_and_eof(capsys):
    env = fakes.FakeEnv()
    lines = (
        '{"action_type": "click", "index": 0}\n'
        '{"action_type": "bogus"}\n'
        "help\n"
        "forty two\n"
        "n\n"
        "forty two\n"
        "y\n"
    )
    agent = registry.get_agent("human_agent", env)
    agent._in = io.StringIO(lines)
    agent.reset()
    agent.set_max_steps(7)
    assert agent.step("Turn wifi on").done is False
    assert env.controller.get_setting("global", "wifi_on") == "1"
    bad = agent.step("g")
    assert bad.done is False and "bogus" in bad.data["error"]
    answer = agent.step("g")
    assert answer.done is True and env.interaction_cache == "forty two"
    eof = agent.step("g")
    assert eof.done is True and eof.data["eof"] is True
    out = capsys.readouterr().out
    assert "Goal: Turn wifi on" in out and "[0] text='Wi-Fi'" in out
    assert "(step 1 of 7)" in out and "(step 3 of 7)" in out
    assert "long_press" in out and "navigate_back" in out
    assert out.count("End the episode with the answer 'forty two'? [y/N]") == 2
    assert "Not sent." in out


def test_human_agent_help_costs_no_step_and_answer_command_needs_no_confirmation(capsys):
    env = fakes.FakeEnv()
    agent = registry.get_agent("human_agent", env)
    agent._in = io.StringIO("?\nhelp\nanswer 12 apples\n")
    result = agent.step("How many?")
    assert result.done is True and result.data["answer"] == "12 apples"
    assert env.interaction_cache == "12 apples"
    assert "[y/N]" not in capsys.readouterr().out


def test_human_agent_parse_line_grammar():
    assert human_agent.parse_line("").action.action_type == "wait"
    assert human_agent.parse_line("HELP").kind == "help"
    assert human_agent.parse_line("answer  yes ").text == "yes"
    assert human_agent.parse_line("answer").kind == "maybe_answer"
    assert human_agent.parse_line("[1, 2]").kind == "maybe_answer"
    assert human_agent.parse_line("{not json").kind == "error"
    assert human_agent.parse_line('{"x": 1}').kind == "error"
    parsed = human_agent.parse_line('{"action_type": "scroll", "direction": "up"}')
    assert parsed.kind == "action" and parsed.action.direction == "up"


def test_oracle_agent_replays_task_solution():
    suite = suite_utils.create_suite(fakes.TASKS, n_task_combinations=2, seed=3)
    agent = registry.get_agent("oracle_agent", fakes.FakeEnv())
    episodes = suite_utils.run(suite, agent, print_fn=lambda _m: None)
    assert [e["is_successful"] for e in episodes] == [1.0] * 4
    assert [e["episode_length"] for e in episodes] == [2] * 4


def test_oracle_agent_without_solution_fails_cleanly():
    class NoOracle(fakes.FakeWifiOn):
        def oracle_actions(self, env):
            return super(fakes.FakeWifiOn, self).oracle_actions(env)

    suite = suite_utils.create_suite({"NoOracle": NoOracle}, seed=0)
    agent = registry.get_agent("oracle_agent", fakes.FakeEnv())
    [ep] = suite_utils.run(suite, agent, print_fn=lambda _m: None)
    assert ep["error"] == "NotImplementedError: NoOracle has no oracle solution."
