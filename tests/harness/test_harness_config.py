"""Config loading, overrides, one-line errors and secret redaction."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from android_world.harness import config

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "config" / "default.yaml"


def test_default_config_validates_and_names_builtin_agents():
    cfg, _ = config.load_config(DEFAULT)
    assert cfg.env.type == "sim" and cfg.benchmark.task_random_seed == 30
    assert cfg.benchmark.suite_family == "sim"
    assert {"random_agent", "human_agent", "oracle_agent"} <= set(cfg.agent.configurations)
    name, registry_name, _ = config.resolve_agent(cfg, [])
    assert (name, registry_name) == ("celil_agent", "celil_agent")
    cfg.agent.active_agent = "random_agent"
    assert config.resolve_agent(cfg, []) == (
        "random_agent",
        "random_agent",
        {"seed": None, "p_complete": 0.0},
    )


def test_default_celil_block_lists_every_factory_key_at_its_default():
    """config/default.yaml documents the celil_agent keys; it must not drift from the factory."""
    from android_world.agents.celil_factory import CelilAgentConfig

    cfg, _ = config.load_config(DEFAULT)
    kwargs = cfg.agent.configurations["celil_agent"].kwargs()
    assert set(kwargs) == set(CelilAgentConfig.model_fields)
    assert CelilAgentConfig.model_validate(kwargs) == CelilAgentConfig()


def test_default_adb_block_matches_the_adb_env_config():
    import dataclasses

    from android_world.env.adb.adb_runner import AdbConfig, EmulatorConfig

    cfg, raw = config.load_config(DEFAULT)
    adb = raw["env"]["adb"]
    # The worker pool's own keys (parallel.py) are the only ones AdbEnv does not take.
    assert set(adb) - config.POOL_ONLY_ADB_KEYS == {f.name for f in dataclasses.fields(AdbConfig)}
    emulator = set(adb["emulator"]) - config.POOL_ONLY_EMULATOR_KEYS
    assert emulator == {f.name for f in dataclasses.fields(EmulatorConfig)}
    assert AdbConfig.from_mapping(cfg.env.adb.to_mapping()) == AdbConfig()  # no AVD: no emulator
    with_avd = cfg.env.adb.model_copy(
        update={"emulator": cfg.env.adb.emulator.model_copy(update={"avd": "AndroidWorldAvd"})}
    )
    launched = AdbConfig.from_mapping(with_avd.to_mapping()).emulator
    assert launched == EmulatorConfig(avd="AndroidWorldAvd")


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ("env.adb.serail=x", "env.adb.serail: unknown key; did you mean 'serial'?"),
        ("env.adb.emulator.avdd=x", "env.adb.emulator.avdd: unknown key; did you mean 'avd'?"),
        ("env.adb.timeout_sec=0", "env.adb.timeout_sec: Input should be greater than 0"),
        ("env.adb.console_port=abc", "env.adb.console_port: Input should be a valid integer"),
    ],
)
def test_bad_adb_keys_name_the_key_path(item, expected):
    with pytest.raises(config.ConfigError) as info:
        config.load_config(DEFAULT, [item])
    assert expected in str(info.value) and str(info.value).startswith(f"--set {item}: ")


def test_bad_adb_key_in_a_file_names_the_file(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("env:\n  adb:\n    emulator:\n      headles: true\n")
    with pytest.raises(config.ConfigError) as info:
        config.load_config(path)
    assert str(info.value).startswith(f"{path}: env.adb.emulator.headles: unknown key")


def test_set_values_are_yaml_typed():
    cfg, _ = config.load_config(
        DEFAULT,
        [
            "benchmark.n_task_combinations=3",
            "env.render=false",
            "benchmark.tasks=[A, B]",
            "benchmark.transition_pause=null",
            "models.maestro.model=gemini-2.5-flash",
        ],
    )
    assert cfg.benchmark.n_task_combinations == 3 and cfg.env.render is False
    assert cfg.benchmark.tasks == ["A", "B"] and cfg.benchmark.transition_pause is None
    assert cfg.models.maestro.model == "gemini-2.5-flash"


def test_on_off_yes_no_stay_strings_in_sets_and_files(tmp_path):
    """YAML 1.1 would turn `off` into False; the config reads YAML 1.2 booleans only."""
    cfg, _ = config.load_config(
        DEFAULT,
        ["agent.configurations.celil_agent.ocr=off", "env.render=False"],
    )
    assert cfg.agent.configurations["celil_agent"].kwargs()["ocr"] == "off"
    assert cfg.env.render is False
    assert config.load_yaml("a: off\nb: yes\nc: true\nd: No") == {
        "a": "off",
        "b": "yes",
        "c": True,
        "d": "No",
    }


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        (["agent.bogus=1"], "--set agent.bogus=1: agent.bogus: unknown key"),
        (["benchmark.taskz=[]"], "did you mean 'tasks'?"),
        (
            ["env.type=emulator"],
            "--set env.type=emulator: env.type: Input should be 'sim' or 'adb'",
        ),
        (["env.seed.deep=1"], "--set env.seed.deep=1: env.seed is a value, not a section"),
        (["novalue"], "expected dotted.key.path=value"),
        (["benchmark.n_task_combinations=0"], "greater than or equal to 1"),
    ],
)
def test_bad_overrides_are_one_line_errors(items, expected):
    with pytest.raises(config.ConfigError) as info:
        config.load_config(DEFAULT, items)
    assert expected in str(info.value) and "\n" not in str(info.value)


def test_bad_file_errors_name_the_file_and_key(tmp_path):
    with pytest.raises(config.ConfigError, match="config file not found"):
        config.load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("env:\n  seed: [unclosed\n")
    with pytest.raises(config.ConfigError, match=r"bad.yaml:\d+"):
        config.load_config(bad)
    typo = tmp_path / "typo.yaml"
    typo.write_text("models:\n  maestro:\n    backnd: gemini\n")
    with pytest.raises(config.ConfigError) as info:
        config.load_config(typo)
    assert str(info.value).startswith(f"{typo}: models.maestro.backnd: unknown key")


def test_unknown_active_agent_has_did_you_mean():
    cfg, _ = config.load_config(DEFAULT, ["agent.active_agent=oracle_agnt"])
    with pytest.raises(config.ConfigError, match="Did you mean 'oracle_agent'"):
        config.resolve_agent(cfg, ["random_agent"])


def test_redaction_keeps_variable_names_and_drops_secrets():
    raw = {
        "api_key": "sk-123",
        "api_key_env": "OPENAI_API_KEY",
        "nested": [{"token": "t"}],
        "base_url": "http://user:pw@host:8000/v1",
        "model": "m",
    }
    out = config.redact(raw)
    assert out["api_key"] == config.REDACTED and out["nested"][0]["token"] == config.REDACTED
    assert out["api_key_env"] == "OPENAI_API_KEY" and out["model"] == "m"
    assert "pw" not in out["base_url"] and out["base_url"].endswith("@host:8000/v1")


def test_redaction_covers_header_names_and_url_query_secrets():
    raw = {
        "headers": {"x-api-key": "hk-1", "Authorization": "Bearer ab", "Accept": "json"},
        "base_url": "https://g.example/v1/models?alt=sse&key=AIzaSECRET#frag",
        "max_tokens": 100,
    }
    out = config.redact(raw)
    assert out["headers"]["x-api-key"] == config.REDACTED
    assert out["headers"]["Authorization"] == config.REDACTED
    assert out["headers"]["Accept"] == "json" and out["max_tokens"] == 100
    assert out["base_url"] == f"https://g.example/v1/models?alt=sse&key={config.REDACTED}#frag"


def test_dump_yaml_roundtrips_and_is_redacted():
    cfg, _ = config.load_config(DEFAULT, ["models.maestro.base_url=http://u:secretpw@h/v1"])
    text = config.dump_yaml(cfg)
    assert "secretpw" not in text
    again = config.validate(yaml.safe_load(text), "dumped")
    assert again.agent == cfg.agent and again.benchmark == cfg.benchmark
