"""The `models:` config schema: old field names still work, role defaults, strictness, conversion."""

from __future__ import annotations

import json

import pydantic
import pytest

from android_world.agents.custom.model_clients.resolution import resolve_role
from android_world.agents.custom.model_clients.settings import DEFAULT_OLLAMA_HOST
from android_world.harness.model_config import (
    DEFAULT_PRICES,
    ModelsConfig,
    PriceConfig,
    RoleModelConfig,
)


def test_existing_field_names_still_validate():
    config = ModelsConfig.model_validate(
        {
            "maestro": {
                "backend": "gemini",
                "model": "gemini-2.5-flash",
                "base_url": "http://proxy",
                "api_key_env": "MY_KEY",
                "temperature": 0.5,
                "timeout_s": 10,
                "max_retries": 1,
                "max_output_tokens": 512,
            },
            "record": "calls.jsonl",
            "replay_path": None,
            "prices": {"my-model": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}},
        }
    )
    settings = config.role_settings("maestro")
    assert settings.model_for("gemini") == "gemini-2.5-flash"  # explicit model wins
    assert settings.url_for("gemini") == "http://proxy"
    assert (settings.api_key_env, settings.temperature, settings.timeout_s) == ("MY_KEY", 0.5, 10)
    assert (settings.max_retries, settings.max_output_tokens, settings.record_path) == (
        1,
        512,
        "calls.jsonl",
    )


def test_unknown_keys_are_rejected():
    with pytest.raises(pydantic.ValidationError):
        ModelsConfig.model_validate({"maestro": {"modle": "x"}})
    with pytest.raises(pydantic.ValidationError):
        ModelsConfig.model_validate({"ollama_hots": "x"})
    with pytest.raises(pydantic.ValidationError):
        RoleModelConfig(num_ctx=2048)  # below what a few screenshots need


def test_role_defaults_survive_partial_overrides(monkeypatch):
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    config = ModelsConfig.model_validate(
        {"maestro": {"temperature": 0.7}, "verifiers": {"backend": "auto"}}
    )
    maestro = config.role_settings("maestro")
    assert (maestro.gemini_model, maestro.gemini_fallback_model) == (
        "gemini-2.5-pro",
        "gemini-2.5-flash",
    )
    verifiers = config.role_settings("verifiers")
    assert (verifiers.gemini_model, verifiers.gemini_fallback_model) == (
        "gemini-2.5-flash",
        "gemini-2.5-pro",
    )
    executor = config.role_settings("section_leader")
    assert executor.ollama_model == "0000/ui-tars-1.5-7b"
    assert executor.auto_order[0] == "ollama"
    assert executor.url_for("ollama") == DEFAULT_OLLAMA_HOST
    assert config.roles() == ["maestro", "section_leader", "verifiers"]


def test_fallback_can_be_disabled_and_hosts_are_shared():
    config = ModelsConfig.model_validate(
        {
            "maestro": {"gemini_fallback_model": "none"},
            "ollama_host": "http://gpu:11434",
            "openai_base_url": "http://gpu:8000/v1",
        }
    )
    settings = config.role_settings("maestro")
    assert settings.gemini_fallback_model == ""
    assert settings.url_for("ollama") == "http://gpu:11434"
    assert settings.url_for("openai") == "http://gpu:8000/v1"


def test_price_table_merges_defaults_and_overrides():
    config = ModelsConfig.model_validate(
        {"prices": {"gemini-2.5-pro": {"input_per_mtok": 2.5, "output_per_mtok": 15.0}}}
    )
    table = config.price_table()
    assert table["gemini-2.5-pro"] == (2.5, 15.0)
    assert table["gemini-2.5-flash"] == DEFAULT_PRICES["gemini-2.5-flash"]
    assert config.make_ledger().cost("gemini", "gemini-2.5-pro", 1_000_000, 0) == 2.5


def test_every_field_is_documented():
    for model in (ModelsConfig, RoleModelConfig, PriceConfig):
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no docstring"


def test_vision_fallback_role_is_optional():
    assert "vision_fallback" not in ModelsConfig().roles()
    config = ModelsConfig.model_validate({"vision_fallback": {"backend": "offline"}})
    assert config.roles()[-1] == "vision_fallback"
    assert config.role_settings("vision_fallback").backend == "offline"
    with pytest.raises(ValueError, match="unknown model role"):
        config.role_settings("conductor")


def _executor(monkeypatch, **fields):
    monkeypatch.setenv("GOOGLE_API_KEY", "sk-test-coordinates")
    config = ModelsConfig.model_validate(
        {"section_leader": fields, "openai_base_url": "http://127.0.0.1:9/v1"}
    )
    return resolve_role("section_leader", config.role_settings("section_leader"))


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"backend": "gemini"}, "relative_1000"),  # Gemini points on a 0..1000 grid
        ({"backend": "openai", "model": "ui-tars"}, "absolute_resized"),  # UI-TARS-1.5
        ({"backend": "ollama"}, "absolute_resized"),
        ({"backend": "gemini", "coordinates": "absolute_resized"}, "absolute_resized"),
        ({"backend": "ollama", "coordinates": "relative_1000"}, "relative_1000"),
    ],
)
def test_executor_coordinates_follow_the_backend_unless_configured(monkeypatch, fields, expected):
    resolution = _executor(monkeypatch, **fields)
    assert resolution.coordinates == expected
    assert resolution.to_dict()["coordinates"] == expected


def test_auto_on_gemini_points_relative_and_a_gemini_recording_replays_the_same(
    monkeypatch, tmp_path
):
    auto = _executor(monkeypatch, backend="auto", auto_order=["gemini"])
    assert (auto.backend, auto.coordinates) == ("gemini", "relative_1000")
    recording = tmp_path / "calls.jsonl"
    line = {"role": "section_leader", "backend": "gemini", "model": "gemini-2.5-flash"}
    recording.write_text(json.dumps({**line, "request_hash": "h", "response_text": "x"}) + "\n")
    config = ModelsConfig.model_validate(
        {"section_leader": {"backend": "replay"}, "replay_path": str(recording)}
    )
    replay = resolve_role("section_leader", config.role_settings("section_leader"))
    assert (replay.backend, replay.coordinates) == ("replay", "relative_1000")
    assert "recorded on gemini" in replay.reason
