"""OpenAICompatibleWrapper: the real openai client against a fake /v1/chat/completions server."""

from __future__ import annotations

import json

import models_fakes as fakes
import pytest
from models_fakes import (
    decode_png,
    free_port_url,
    openai_error,
    openai_ok,
    screenshot,
)

from android_world.agents import infer
from android_world.agents.custom.model_clients.errors import ModelSetupError
from android_world.agents.custom.model_clients.ledger import UsageLedger
from android_world.agents.custom.model_clients.openai_compatible import OpenAICompatibleWrapper
from android_world.agents.custom.model_clients.resolution import resolve_role
from android_world.agents.custom.model_clients.settings import RoleSettings

SECRET = "sk-SECRET-123"
SCHEMA = {"type": "object", "properties": {"steps": {"type": "array"}}}


server = fakes.fake_server


@pytest.fixture(autouse=True)
def no_keys(monkeypatch):
    fakes.model_env(monkeypatch)


def make(base_url, ledger=None, **kwargs):
    kwargs.setdefault("max_retries", 2)
    return OpenAICompatibleWrapper(
        "maestro",
        "served-model",
        base_url=base_url,
        ledger=ledger,
        retry_initial_delay_s=0.0,
        sleep=lambda s: None,
        **kwargs,
    )


def test_request_has_model_data_url_images_temperature_and_schema(server):
    server.route("POST", "/chat/completions", [openai_ok('{"steps": []}')])
    ledger = UsageLedger({"served-model": (1.0, 2.0)})
    image = screenshot(24, 12)
    wrapper = make(server.url + "/v1", ledger=ledger, temperature=0.4)
    text, _, raw = wrapper.predict_json("Plan.", [image], SCHEMA, system="You plan.")
    assert text == '{"steps": []}' and raw is not None
    request = server.calls("/v1/chat/completions")[0]
    assert request["headers"]["authorization"] == "Bearer not-needed"
    body = request["body"]
    assert body["model"] == "served-model" and body["temperature"] == 0.4
    assert body["messages"][0] == {"role": "system", "content": "You plan."}
    parts = body["messages"][1]["content"]
    assert parts[0] == {"type": "text", "text": "Plan."}
    url = parts[1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert (decode_png(url.split(",", 1)[1]) == image).all()
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    record = ledger.records()[0]
    assert (record.prompt_tokens, record.completion_tokens) == (30, 6)
    assert record.cost_usd == pytest.approx((30 * 1.0 + 6 * 2.0) / 1e6)


def test_text_only_prompt_is_a_plain_string_without_response_format(server):
    server.route("POST", "/chat/completions", [openai_ok("hi")])
    make(server.url + "/v1").predict("hello")
    body = server.requests[0]["body"]
    assert body["messages"] == [{"role": "user", "content": "hello"}]
    assert "response_format" not in body


def test_key_from_named_env_var_is_sent_but_never_reported(monkeypatch, server):
    monkeypatch.setenv("MY_SERVER_KEY", SECRET)
    server.route("POST", "/chat/completions", [openai_error(401, f"bad key {SECRET}")])
    ledger = UsageLedger()
    wrapper = make(server.url + "/v1", ledger=ledger, api_key_env="MY_SERVER_KEY")
    text, _, _ = wrapper.predict("hi")
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {SECRET}"
    error = ledger.records()[0].error
    assert "401" in error and "MY_SERVER_KEY" in error
    for output in (text, error, json.dumps(ledger.totals()), repr(ledger.records())):
        assert SECRET not in output


def test_missing_named_key_is_a_setup_error(monkeypatch, server):
    monkeypatch.delenv("MY_SERVER_KEY", raising=False)
    with pytest.raises(ModelSetupError, match="MY_SERVER_KEY"):
        make(server.url + "/v1", api_key_env="MY_SERVER_KEY")


def test_429_then_success_is_retried(server):
    server.route("POST", "/chat/completions", [openai_error(429), openai_ok("ok")])
    ledger = UsageLedger()
    assert make(server.url + "/v1", ledger=ledger).predict("hi")[0] == "ok"
    assert ledger.records()[0].retries == 1 and len(server.requests) == 2


def test_persistent_503_gives_up_after_configured_attempts(server):
    server.route("POST", "/chat/completions", [openai_error(503)])
    ledger = UsageLedger()
    wrapper = make(server.url + "/v1", ledger=ledger, max_retries=3)
    assert wrapper.predict("hi") == (infer.ERROR_CALLING_LLM, None, None)
    assert len(server.requests) == 4
    assert "4 attempts" in ledger.records()[0].error


def test_404_model_names_the_models_endpoint(server):
    server.route("POST", "/chat/completions", [openai_error(404, "no such model")])
    ledger = UsageLedger()
    make(server.url + "/v1", ledger=ledger).predict("hi")
    assert "/v1/models" in ledger.records()[0].error and len(server.requests) == 1


def test_connection_refused_names_url_and_fix():
    base_url = free_port_url() + "/v1"
    ledger = UsageLedger()
    assert make(base_url, ledger=ledger).predict("hi")[0] == infer.ERROR_CALLING_LLM
    error = ledger.records()[0].error
    assert base_url in error and "start the server" in error


def test_timeout(server):
    server.route("POST", "/chat/completions", [(*openai_ok("late"), 2.0)])
    ledger = UsageLedger()
    wrapper = make(server.url + "/v1", ledger=ledger, timeout_s=0.3, max_retries=0)
    assert wrapper.predict("hi")[0] == infer.ERROR_CALLING_LLM
    assert "did not answer within 0.3s" in ledger.records()[0].error


def test_content_filter_is_unsafe(server):
    server.route("POST", "/chat/completions", [openai_ok("", finish="content_filter")])
    assert make(server.url + "/v1").predict("hi") == (infer.ERROR_CALLING_LLM, False, None)


def test_auto_uses_a_reachable_server_and_its_first_model(server):
    server.route("GET", "/v1/models", [(200, {"object": "list", "data": [{"id": "qwen-vl"}]})])
    settings = RoleSettings(
        role="maestro",
        openai_base_url=server.url + "/v1",
        ollama_host=free_port_url(),
        probe_timeout_s=1.0,
    )
    resolution = resolve_role("maestro", settings)
    assert (resolution.backend, resolution.model) == ("openai", "qwen-vl")
    assert (
        "ollama serve" not in resolution.line()
    )  # the chosen backend's reason, not the skipped ones


def test_auto_without_any_backend_is_offline_with_reasons():
    settings = RoleSettings(role="verifiers", ollama_host=free_port_url(), probe_timeout_s=0.5)
    resolution = resolve_role("verifiers", settings)
    assert resolution.backend == "offline" and resolution.wrapper is None
    assert "no openai_base_url configured" in resolution.reason
