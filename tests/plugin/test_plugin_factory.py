"""The plugin's own factory (`agents/custom/factory.py`): a CelilAgent from an env and a YAML file
or dict, without the harness's config loader or registry, as upstream's run.py needs it."""

from __future__ import annotations

from pathlib import Path

import celil_fakes as fakes
import pytest

from android_world.agents import registry
from android_world.agents.custom import factory
from android_world.agents.custom.loop import celil_agent
from android_world.agents.custom.offline_roles import offline
from android_world.harness import config as harness_config

ROOT = Path(__file__).resolve().parents[2]
OFFLINE_MODELS = {r: {"backend": "offline"} for r in ("maestro", "section_leader", "verifiers")}


def _short(**agent_keys) -> dict:
    return {"models": OFFLINE_MODELS, "celil_agent": {"ocr": "off", "memory": "off", **agent_keys}}


def test_the_harness_run_config_and_the_short_file_give_the_same_keys(tmp_path):
    # The harness's own default config is a valid plugin config (other sections are ignored).
    params, models = factory.load_config(ROOT / "config" / "default.yaml")
    assert params.memory == "fresh" and params.threshold == 7.0
    assert models.section_leader.backend == "auto"
    short = tmp_path / "celil.yaml"
    short.write_text(
        "celil_agent:\n  threshold: 8.0\n  ocr: off\nmodels:\n  maestro: {backend: offline}\n"
    )
    params, models = factory.load_config(short)
    assert params.threshold == 8.0 and models.maestro.backend == "offline"
    assert params.ocr == "off"  # YAML 1.2 as the harness reads it: `off` is a string


def test_every_harness_section_is_accepted():
    assert set(harness_config.CelilConfig.model_fields) <= factory.RUN_CONFIG_SECTIONS


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"celil_agent": {"threshhold": 7}}, "celil_agent.threshhold: Extra inputs"),
        ({"celil_agent": {"threshold": 11}}, "celil_agent.threshold: Input should be less"),
        ({"agent": {"configurations": {"celil_agent": {"ocr": "never"}}}}, "configurations"),
        ({"models": {"maestro": {"backend": "gpt"}}}, "models.maestro.backend: "),
        ({"modles": {}}, "modles: unknown section"),
        ({"celil_agent": [1, 2]}, "celil_agent: must be a mapping"),
        ([1, 2], "must be a mapping, got list"),
    ],
)
def test_bad_config_is_one_line_naming_the_key(data, message):
    with pytest.raises(factory.CelilSetupError) as caught:
        factory.load_config(data)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_unreadable_and_invalid_yaml_files_are_clear(tmp_path):
    with pytest.raises(factory.CelilSetupError, match="cannot read the Celil config"):
        factory.load_config(tmp_path / "missing.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("models:\n  maestro: [\n")
    with pytest.raises(factory.CelilSetupError, match=r"is not valid YAML \(line \d+\)"):
        factory.load_config(broken)


def test_create_agent_reads_celil_config_from_the_environment(tmp_path, monkeypatch):
    path = tmp_path / "celil.yaml"
    path.write_text(
        "models: {maestro: {backend: offline}, section_leader: {backend: offline}, "
        "verifiers: {backend: offline}}\n"
        "celil_agent: {ocr: 'off', memory: 'off', threshold: 6.5, transition_pause: 0.25}\n"
    )
    monkeypatch.setenv(factory.CONFIG_ENV, str(path))
    lines: list[str] = []
    agent = factory.create_agent(fakes.FakePhone(), log=lines.append)
    assert isinstance(agent, celil_agent.CelilAgent)
    assert isinstance(agent._verifier, offline.OfflineVerifier)
    assert agent.transition_pause == 0.25
    assert agent.run_manifest()["config"]["threshold"] == 6.5
    assert any(line.startswith("Memory: off") for line in lines)


def test_fresh_memory_outside_the_harness_lives_in_celil_run_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(factory.RUN_DIR_ENV, str(tmp_path))
    agent = factory.create_agent(fakes.FakePhone(), _short(memory="fresh"), log=lambda _: None)
    assert agent.run_manifest()["memory"]["path"] == str(tmp_path / "episodic_memory.db")


def test_create_agent_or_exit_prints_what_each_role_runs_on(tmp_path, capsys):
    factory.create_agent_or_exit(fakes.FakePhone(), _short())
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in out] == [
        "maestro",
        "section_leader",
        "verifiers",
        "Memory",
    ]
    assert "offline" in out[0]


def test_create_agent_or_exit_ends_with_one_line(monkeypatch):
    with pytest.raises(SystemExit) as caught:
        factory.create_agent_or_exit(fakes.FakePhone(), {"celil_agent": {"weights": [0, 0, 0]}})
    assert str(caught.value).startswith("celil_agent: celil_agent.weights: ")
    assert "\n" not in str(caught.value)


def test_the_harness_registry_builds_through_the_plugin_factory(monkeypatch):
    calls = []
    real = factory.build_agent

    def spy(env, params, context, **kwargs):
        calls.append(params.threshold)
        return real(env, params, context, **kwargs)

    monkeypatch.setattr(factory, "build_agent", spy)
    context = registry.RunContext(
        models=factory.load_config({"models": OFFLINE_MODELS})[1], log=lambda _: None
    )
    agent = registry.get_agent(
        "celil_agent", fakes.FakePhone(), context=context, ocr="off", memory="off", threshold=7.5
    )
    assert calls == [7.5] and agent.run_manifest()["config"]["threshold"] == 7.5


def test_a_setup_error_in_the_harness_is_an_agent_config_error(tmp_path):
    context = registry.RunContext(log=lambda _: None)
    with pytest.raises(registry.AgentConfigError, match="memory: frozen needs an existing"):
        registry.get_agent(
            "celil_agent",
            fakes.FakePhone(),
            context=context,
            ocr="off",
            memory="frozen",
            episodic_memory_path=str(tmp_path / "none.json"),
        )
