"""Celil end to end: the real roles (scripted model answers) on the simulated phone, and the factory."""

from __future__ import annotations

import importlib.util
import json

import celil_fakes as fakes
import pytest

from android_world.agents import registry
from android_world.agents.custom.loop import celil_agent
from android_world.agents.custom.offline_roles.offline import OfflinePlanner
from android_world.agents.custom.roles.celil_maestro import MaestroPlanner
from android_world.agents.custom.roles.celil_perception import PerceptionModule
from android_world.agents.custom.roles.celil_quality_control import VerifierEnsemble
from android_world.harness.model_config import ModelsConfig, RoleModelConfig

sim_env = pytest.importorskip(
    "android_world.env.sim.sim_env", reason="SimEnv not available in this checkout"
)


def planner_answers(evidence: str):
    """A planner model whose progress check says done once the screen lists Contacts' own
    elements, with `evidence` as its evidence text."""

    def answer(prompt: str) -> str:
        if "Judge whether a sub-goal" in prompt:
            screen = prompt.split("Current screen:", 1)[-1]
            done = "contacts" in screen.casefold() and "launcher" not in screen.casefold()
            return json.dumps({"done": done, "evidence": evidence if done else "not yet"})
        return '{"sub_goals": ["Open the Contacts app"], "rationale": "one app to open"}'

    return answer


# A goal the screens alone cannot confirm (its second clause is no state a screen shows), so the
# planner's evidence decides, which is what these tests are about.
OPEN_AND_LOOK = "Open the Contacts app. Have a look at the contact list."


def run_open_contacts(evidence: str) -> tuple[object, object, list[dict], object]:
    from android_world.agents.custom.roles.celil_section_leader import UITarsActionGenerator
    from android_world.task_evals.single.open_app import OpenAppTaskEval

    env = sim_env.SimEnv(seed=0, render=True)
    task = OpenAppTaskEval({"app_name": "contacts"})
    task.initialize_task(env)
    executor_wrapper = fakes.ScriptedWrapper(
        [
            "Thought: The Contacts app is on the home screen.\nAction: open_app(app_name='Contacts')",
        ],
        default="Thought: Contacts is open.\nAction: finished(content='')",
    )
    verifier_wrapper = fakes.ScriptedWrapper(default='{"score": 9, "reasoning": "right app"}')
    events: list[dict] = []
    agent = celil_agent.CelilAgent(
        env,
        PerceptionModule(ocr="auto"),
        MaestroPlanner(fakes.ScriptedWrapper(planner_answers(evidence))),
        UITarsActionGenerator(executor_wrapper),
        VerifierEnsemble(verifier_wrapper),
        screen_checker=OfflinePlanner(),
        transition_pause=0.0,
        max_rehearsals=2,
        progress_check="after_action",  # the model's evidence is what these tests are about
    )
    agent.set_event_sink(events.append)
    agent.reset(go_home=True)
    result = None
    for _ in range(8):
        result = agent.step(OPEN_AND_LOOK)
        json.dumps(result.data)
        assert "internal_error" not in result.data, result.data.get("traceback")
        if result.done:
            break
    return result, task, events, (env, verifier_wrapper)


def test_real_roles_open_an_app_on_the_sim():
    result, task, events, (env, verifier_wrapper) = run_open_contacts("The 'Contacts' app is open")
    assert result.done
    assert result.data["status"] == "complete"
    assert task.is_successful(env) == 1.0
    kinds = [e["type"] for e in events]
    # Adaptive verification spends no vote on opening an app (navigation is undone by a step).
    assert not [e for e in events if e["type"] == "vote"] and "episode_end" in kinds
    assert not verifier_wrapper.image_counts
    gates = [e for e in events if e["type"] == "gate"]
    assert gates and gates[0]["passed"] and gates[0]["threshold"] == 0.0
    accepted = [e for e in events if e["type"] == "evidence" and e["accepted"]]
    assert accepted and accepted[0]["kind"] == "model"
    env.close()


def test_placeholder_evidence_from_a_model_never_completes_the_task():
    # The task is in fact done (Contacts is open), but the model's only evidence is the prompt's
    # own schema text: the agent must not call that complete.
    result, task, events, (env, _) = run_open_contacts("what on screen shows it")
    assert task.is_successful(env) == 1.0
    assert result.data.get("status") != "complete"
    rejected = [e for e in events if e["type"] == "evidence" and not e["accepted"]]
    assert rejected and all("placeholder" in e["why"] for e in rejected if e["kind"] == "model")
    assert result.done and result.data["status"] == "infeasible"
    assert "Open the Contacts app" in result.data["infeasible_reason"]
    assert "placeholder" in result.data["infeasible_reason"]
    env.close()


def test_factory_builds_the_agent_from_config_and_models(tmp_path):
    # One unrelated recorded call per role: every role resolves to replay, and every real request
    # misses the recording, so each role fails softly.
    recording = tmp_path / "calls.jsonl"
    recording.write_text(
        "".join(
            json.dumps(
                {"role": role, "request_hash": "unrelated", "model": "m", "response_text": ""}
            )
            + "\n"
            for role in ("maestro", "section_leader", "verifiers")
        )
    )
    models = ModelsConfig(
        maestro=RoleModelConfig(backend="replay"),
        section_leader=RoleModelConfig(backend="replay"),
        verifiers=RoleModelConfig(backend="replay"),
        replay_path=str(recording),
    )
    lines: list[str] = []
    context = registry.RunContext(models=models, run_dir=tmp_path / "run_1", log=lines.append)
    agent = registry.get_agent(
        "celil_agent",
        fakes.FakePhone(),
        context=context,
        ocr="off",
        threshold=6.5,
        verifier_mode="lazy",
        episodic_memory_path=str(tmp_path / "memory.db"),
        transition_pause=0,
    )
    assert isinstance(agent, celil_agent.CelilAgent)
    assert agent.settings.threshold == 6.5
    assert len(lines) == 4 and lines[0].startswith("maestro: replay")
    memory_line = " ".join(lines[3].split())
    path = tmp_path / "run_1" / "episodic_memory.db"
    assert (
        memory_line == f"Memory: fresh (empty; only this run's verified plans are reused): {path}"
    )
    manifest = agent.run_manifest()
    assert manifest["roles"]["verifiers"]["backend"] == "replay"
    assert manifest["config"]["verifier_mode"] == "lazy"
    # Recorded calls are missing: every role fails softly and the step is recorded, not raised.
    result = agent.step("Add a contact named Bob")
    assert not result.done and result.data["warnings"]
    assert agent.episode_summary()["usage"]["model_calls"] >= 3


def test_factory_rejects_bad_keys_with_a_suggestion():
    with pytest.raises(registry.AgentConfigError, match="did you mean 'threshold'"):
        registry.validate_kwargs("celil_agent", {"treshold": 3})
    with pytest.raises(registry.AgentConfigError, match="verifier_mode"):
        registry.validate_kwargs("celil_agent", {"verifier_mode": "fast"})


def test_factory_offline_roles_or_a_clear_error():
    offline = ModelsConfig(
        maestro=RoleModelConfig(backend="offline"),
        section_leader=RoleModelConfig(backend="offline"),
        verifiers=RoleModelConfig(backend="offline"),
    )
    context = registry.RunContext(models=offline, log=lambda line: None)
    if importlib.util.find_spec("android_world.agents.custom.offline_roles.offline") is None:
        with pytest.raises(registry.AgentConfigError, match="offline roles module"):
            registry.get_agent("celil_agent", fakes.FakePhone(), context=context, ocr="off")
    else:
        agent = registry.get_agent(
            "celil_agent",
            fakes.FakePhone(),
            context=context,
            ocr="off",
            episodic_memory_path=None,
        )
        assert isinstance(agent, celil_agent.CelilAgent)


def test_factory_reports_missing_tesseract_as_a_config_error(monkeypatch):
    from android_world.agents.custom.roles import celil_perception

    monkeypatch.setattr(celil_perception.shutil, "which", lambda name: None)
    with pytest.raises(registry.AgentConfigError, match="apt-get install tesseract-ocr") as info:
        registry.get_agent("celil_agent", fakes.FakePhone(), ocr="always")
    assert info.value.path == "ocr"


def test_echoed_plans_and_votes_are_counted_not_used():
    """Issue 12: a small model copied the prompts' examples; those answers must be counted as
    unusable in the step data, the events and the episode summary, and never drive the run."""
    from android_world.agents.custom.roles.celil_section_leader import UITarsActionGenerator
    from android_world.task_evals.single.open_app import OpenAppTaskEval

    env = sim_env.SimEnv(seed=0, render=True)
    task = OpenAppTaskEval({"app_name": "contacts"})
    task.initialize_task(env)
    echo_plan = (
        '{"sub_goals": ["first milestone", "second milestone"], "rationale": "one sentence"}'
    )
    answer = planner_answers("The 'Contacts' app is open")
    plans = [echo_plan]

    def planner(prompt: str) -> str:
        if "Judge whether a sub-goal" not in prompt and plans:
            return plans.pop(0)
        return answer(prompt)

    echo_vote = '{"score": 10, "reasoning": "one or two sentences"}'
    verifier_wrapper = fakes.ScriptedWrapper(
        [echo_vote], default='{"score": 9, "reasoning": "right app"}'
    )
    executor_wrapper = fakes.ScriptedWrapper(
        ["Thought: Contacts is on the home screen.\nAction: open_app(app_name='Contacts')"],
        default="Thought: Contacts is open.\nAction: finished(content='')",
    )
    events: list[dict] = []
    agent = celil_agent.CelilAgent(
        env,
        PerceptionModule(ocr="auto"),
        MaestroPlanner(fakes.ScriptedWrapper(planner)),
        UITarsActionGenerator(executor_wrapper),
        VerifierEnsemble(verifier_wrapper, mode="sequential"),
        screen_checker=OfflinePlanner(),
        transition_pause=0.0,
    )
    agent.set_event_sink(events.append)
    agent.reset(go_home=True)
    first = agent.step(task.goal)
    assert first.data["plan"] == ["Open the Contacts app"]
    kinds = sorted(r["role"] for r in first.data["unusable_answers"])
    assert kinds == ["maestro", "verifiers"]
    assert all(r["kind"] == "placeholder" for r in first.data["unusable_answers"])
    assert [e["type"] for e in events].count("unusable_answer") == 2
    assert first.data["votes"] and not any(
        v["parseable"] and v["reasoning"] == "one or two sentences" for v in first.data["votes"]
    )
    assert agent.episode_summary()["unusable_answers"] == 2
    env.close()
