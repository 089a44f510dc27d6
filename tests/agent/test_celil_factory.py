"""The Celil factory: offline role wiring, one source for the coordinate convention, and a
manifest that records the resolved model and the prompt hashes of every role."""

from __future__ import annotations

import json
import re
from pathlib import Path

import celil_fakes as fakes

from android_world.agents import celil_factory, registry
from android_world.agents.custom.offline_roles import offline
from android_world.agents.custom.roles.celil_maestro import MaestroPlanner, VisionElementSelector
from android_world.agents.custom.roles.celil_quality_control import VerifierEnsemble
from android_world.agents.custom.roles.celil_section_leader import UITarsActionGenerator
from android_world.harness.model_config import ModelsConfig, RoleModelConfig

SHA256 = re.compile(r"^[0-9a-f]{64}$")
ROLES = ("maestro", "section_leader", "verifiers")


def _offline_models(**extra) -> ModelsConfig:
    return ModelsConfig(**{r: RoleModelConfig(backend="offline") for r in ROLES}, **extra)


def _replay_models(tmp_path: Path, **leader) -> ModelsConfig:
    recording = tmp_path / "calls.jsonl"
    recording.write_text(
        "".join(
            json.dumps({"role": r, "request_hash": "x", "model": "m", "response_text": ""}) + "\n"
            for r in ROLES
        )
    )
    return ModelsConfig(
        maestro=RoleModelConfig(backend="replay"),
        section_leader=RoleModelConfig(backend="replay", **leader),
        verifiers=RoleModelConfig(backend="replay"),
        replay_path=str(recording),
    )


def _agent(models: ModelsConfig, **kwargs):
    context = registry.RunContext(models=models, log=lambda line: None)
    kwargs.setdefault("ocr", "off")
    kwargs.setdefault("episodic_memory_path", None)
    return registry.get_agent("celil_agent", fakes.FakePhone(), context=context, **kwargs)


def test_offline_roles_get_the_weights_and_the_offline_element_picker():
    agent = _agent(_offline_models(), weights=[0.2, 0.3, 0.5])
    assert isinstance(agent._verifier, offline.OfflineVerifier)
    assert list(agent._verifier.weights.values()) == [0.2, 0.3, 0.5]
    # No vision_fallback configured and the executor is offline: the offline picker fills in.
    assert isinstance(agent._vision, offline.OfflineElementSelector)
    manifest = agent.run_manifest()
    assert manifest["roles"]["vision_fallback"]["backend"] == "offline"
    # Offline roles send no prompts, so they have no prompt hashes.
    assert manifest["prompt_hashes"] == {role: {} for role in (*ROLES, "vision_fallback")}


def test_max_sub_goals_reaches_the_offline_planner_too():
    assert _agent(_offline_models())._planner.max_sub_goals == 12
    assert _agent(_offline_models(), max_sub_goals=5)._planner.max_sub_goals == 5


def test_a_vision_fallback_resolving_offline_uses_the_offline_picker():
    agent = _agent(_offline_models(vision_fallback=RoleModelConfig(backend="offline")))
    assert isinstance(agent._vision, offline.OfflineElementSelector)
    assert agent.run_manifest()["roles"]["vision_fallback"]["backend"] == "offline"


def test_model_roles_record_backend_model_reason_and_prompt_hashes(tmp_path):
    agent = _agent(_replay_models(tmp_path))
    manifest = agent.run_manifest()
    for role in ROLES:
        entry = manifest["roles"][role]
        assert entry["backend"] == "replay" and entry["reason"]
        assert manifest["prompt_hashes"][role], role
        assert all(SHA256.match(h) for h in manifest["prompt_hashes"][role].values())
    assert set(manifest["prompt_hashes"]["verifiers"]) == {
        "Pragmatist",
        "Skeptic",
        "Efficiency Expert",
        "joint",  # verifier_mode joint (the default): the one request every persona answers
    }
    assert "initial_plan" in manifest["prompt_hashes"]["maestro"]
    assert "vision_fallback" not in manifest["roles"]  # a model executor needs no offline picker
    assert agent._vision is None
    json.dumps(manifest)  # manifest.json material


def test_prompt_hashes_follow_the_wording(tmp_path):
    plain = _agent(_replay_models(tmp_path)).run_manifest()["prompt_hashes"]
    changed = _agent(
        _replay_models(tmp_path), persona_prompts={"Skeptic": "You are a harsher Skeptic."}
    ).run_manifest()["prompt_hashes"]
    assert changed["verifiers"]["Skeptic"] != plain["verifiers"]["Skeptic"]
    assert changed["verifiers"]["Pragmatist"] == plain["verifiers"]["Pragmatist"]
    assert changed["maestro"] == plain["maestro"]
    json_format = _agent(_replay_models(tmp_path), executor_format="json").run_manifest()
    assert json_format["prompt_hashes"]["section_leader"] != plain["section_leader"]


def test_prompt_templates_are_rendered_with_placeholders():
    for role in (
        MaestroPlanner(None),
        VerifierEnsemble(None),
        UITarsActionGenerator(None),
        VisionElementSelector(None),
    ):
        templates = role.prompt_templates()
        assert templates and all(isinstance(t, str) and t for t in templates.values())
    assert "{goal}" in MaestroPlanner(None).prompt_templates()["initial_plan"]
    assert "{sub_goal}" in VisionElementSelector(None).prompt_templates()["select_element"]
    assert "{instruction}" in UITarsActionGenerator(None).prompt_templates()["uitars_start_box"]


def test_coordinate_convention_comes_from_the_models_section_unless_set(tmp_path):
    inherited = _agent(_replay_models(tmp_path, coordinates="relative_1000"))
    assert inherited._executor._convention == "relative_1000"
    assert inherited.run_manifest()["coordinate_convention"] == "relative_1000"
    default = _agent(_replay_models(tmp_path, coordinates="absolute_resized"))
    assert default._executor._convention == "absolute_resized"
    explicit = _agent(
        _replay_models(tmp_path, coordinates="relative_1000"),
        coordinate_convention="absolute_resized",
    )
    assert explicit._executor._convention == "absolute_resized"
    assert celil_factory.CelilAgentConfig().coordinate_convention is None


class _CountingValidator:
    """Wraps a pydantic model's validator and counts the validations it runs."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.calls = 0

    def validate_python(self, *args, **kwargs):
        self.calls += 1
        return self.inner.validate_python(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_the_agent_config_is_validated_once_from_keys_to_agent(monkeypatch):
    """The registry's validated params reach the factory as they are: building the agent and
    recording its config in the manifest validate nothing again (issue 28)."""
    counter = _CountingValidator(celil_factory.CelilAgentConfig.__pydantic_validator__)
    monkeypatch.setattr(celil_factory.CelilAgentConfig, "__pydantic_validator__", counter)
    params = registry.validate_kwargs(
        "celil_agent", {"ocr": "off", "episodic_memory_path": None, "threshold": 6.5}
    )
    context = registry.RunContext(models=_offline_models(), log=lambda line: None)
    registry.check_startup("celil_agent", params, context)
    agent = registry.get_agent("celil_agent", fakes.FakePhone(), context=context, params=params)
    assert agent.settings.threshold == 6.5
    assert agent.run_manifest()["config"]["threshold"] == 6.5
    assert counter.calls == 1
