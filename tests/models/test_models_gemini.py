"""GeminiWrapper: the real google-genai client against a fake Gemini REST server on loopback."""

from __future__ import annotations

import json

import models_fakes as fakes
import pytest
from models_fakes import decode_png, gemini_error, gemini_ok, screenshot

from android_world.agents import infer
from android_world.agents.custom.model_clients.call_types import ModelRequest
from android_world.agents.custom.model_clients.errors import ModelSetupError
from android_world.agents.custom.model_clients.gemini import GeminiWrapper
from android_world.agents.custom.model_clients.ledger import UsageLedger
from android_world.agents.custom.model_clients.replay import RecordingWrapper
from android_world.agents.custom.model_clients.resolution import FallbackWrapper, resolve_role

SECRET = "sk-SECRET-123"
SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


server = fakes.fake_server


@pytest.fixture(autouse=True)
def key(monkeypatch):
    fakes.model_env(monkeypatch, SECRET)


def make(server, model="gemini-2.5-flash", ledger=None, sleeps=None, **kwargs):
    kwargs.setdefault("max_retries", 3)
    return GeminiWrapper(
        "verifiers",
        model,
        base_url=server.url,
        ledger=ledger,
        retry_initial_delay_s=0.01,
        sleep=(sleeps.append if sleeps is not None else lambda s: None),
        **kwargs,
    )


def test_request_carries_model_prompt_image_temperature_schema_and_system(server):
    server.route("POST", ":generateContent", [gemini_ok('{"ok": true}')])
    ledger = UsageLedger({"gemini-2.5-flash": (0.30, 2.50)})
    wrapper = make(server, ledger=ledger, temperature=0.3, thinking_budget=0)
    image = screenshot(40, 20)
    text, is_safe, raw = wrapper.predict_json("Is it ok?", [image], SCHEMA, system="You verify.")
    assert (text, is_safe) == ('{"ok": true}', True)
    assert raw is not None
    (request,) = server.calls(":generateContent")
    assert "/models/gemini-2.5-flash:generateContent" in request["path"]
    assert request["headers"].get("x-goog-api-key") == SECRET  # the transport, and only there
    body = request["body"]
    parts = body["contents"][0]["parts"]
    assert parts[0]["text"] == "Is it ok?"
    blob = parts[1]["inlineData"]
    assert blob["mime_type" if "mime_type" in blob else "mimeType"] == "image/png"
    assert (decode_png(blob["data"]) == image).all()
    config = body["generationConfig"]
    assert config["temperature"] == 0.3
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"] == SCHEMA
    thinking = config["thinkingConfig"]
    assert thinking.get("thinkingBudget", thinking.get("thinking_budget")) == 0
    assert body["systemInstruction"]["parts"][0]["text"] == "You verify."
    record = ledger.records()[0]
    assert (record.prompt_tokens, record.completion_tokens, record.retries) == (11, 5, 0)
    assert record.cost_usd == pytest.approx((11 * 0.30 + 5 * 2.50) / 1e6)


def test_plain_predict_has_no_json_mode(server):
    server.route("POST", ":generateContent", [gemini_ok("plain")])
    assert make(server).predict("hi")[0] == "plain"
    body = server.requests[0]["body"]
    assert "responseMimeType" not in body.get("generationConfig", {})
    assert "systemInstruction" not in body


def test_gemma_gets_system_and_schema_in_the_prompt(server):
    server.route("POST", ":generateContent", [gemini_ok('{"ok": false}')])
    wrapper = make(server, model="gemma-3-27b-it", thinking_budget=0)
    assert wrapper.predict_json("Check.", None, SCHEMA, system="Be strict.")[0] == '{"ok": false}'
    body = server.requests[0]["body"]
    assert "systemInstruction" not in body
    config = body.get("generationConfig", {})
    assert "responseMimeType" not in config and "responseJsonSchema" not in config
    assert "thinkingConfig" not in config
    prompt = body["contents"][0]["parts"][0]["text"]
    assert prompt.startswith("Be strict.\n\nCheck.")
    assert json.dumps(SCHEMA, sort_keys=True) in prompt


def test_429_then_success_is_retried_and_counted(server):
    server.route("POST", ":generateContent", [gemini_error(429), gemini_ok("fine")])
    ledger = UsageLedger()
    sleeps: list[float] = []
    text, _, _ = make(server, ledger=ledger, sleeps=sleeps).predict("hi")
    assert text == "fine"
    assert len(server.requests) == 2
    assert len(sleeps) == 1 and sleeps[0] >= 0.01
    assert ledger.records()[0].retries == 1
    assert ledger.totals()["retries"] == 1


def test_persistent_503_returns_error_triple_after_configured_attempts(server):
    # 503 (overloaded) is retried max_retries times; a plain 500 only once (test_models_negotiation).
    server.route("POST", ":generateContent", [gemini_error(503)])
    ledger = UsageLedger()
    sleeps: list[float] = []
    wrapper = make(server, ledger=ledger, sleeps=sleeps, max_retries=2)
    assert wrapper.predict("hi") == (infer.ERROR_CALLING_LLM, None, None)
    assert len(server.requests) == 3
    assert sleeps[1] > sleeps[0]  # exponential backoff
    (record,) = ledger.records()
    assert record.retries == 2 and "503" in record.error and "3 attempts" in record.error
    assert ledger.totals()["errors"] == 1


def test_400_is_not_retried(server):
    server.route("POST", ":generateContent", [gemini_error(400, "bad request")])
    wrapper = make(server)
    result = wrapper.call(ModelRequest("hi"))
    assert result.error_kind == "fatal" and len(server.requests) == 1


def test_timeout_is_retried_then_reported(server):
    server.route("POST", ":generateContent", [(*gemini_ok("late"), 2.0)])
    ledger = UsageLedger()
    wrapper = make(server, ledger=ledger, timeout_s=0.3, max_retries=1)
    assert wrapper.predict("hi")[0] == infer.ERROR_CALLING_LLM
    (record,) = ledger.records()
    assert "timed out" in record.error and record.retries == 1
    assert record.latency_s < 1.9


@pytest.mark.parametrize(
    "payload",
    [
        {"promptFeedback": {"blockReason": "SAFETY"}},
        {"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "SAFETY"}]},
    ],
)
def test_safety_block_is_unsafe(server, payload):
    server.route("POST", ":generateContent", [(200, payload)])
    ledger = UsageLedger()
    assert make(server, ledger=ledger).predict("hi") == (infer.ERROR_CALLING_LLM, False, None)
    assert len(server.requests) == 1
    assert "safety" in ledger.records()[0].error


def test_truncated_thinking_is_a_clear_error(server):
    payload = {
        "candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "MAX_TOKENS"}]
    }
    server.route("POST", ":generateContent", [(200, payload)])
    result = make(server).call(ModelRequest("hi"))
    assert "max_output_tokens" in result.record.error


def test_missing_key_names_both_variables(monkeypatch, server):
    monkeypatch.delenv("GOOGLE_API_KEY")
    with pytest.raises(ModelSetupError) as error:
        make(server)
    assert "GOOGLE_API_KEY" in str(error.value) and "GEMINI_API_KEY" in str(error.value)


def test_gemini_api_key_variable_is_used(monkeypatch, server):
    monkeypatch.delenv("GOOGLE_API_KEY")
    monkeypatch.setenv("GEMINI_API_KEY", "other-SECRET-456")
    server.route("POST", ":generateContent", [gemini_ok()])
    make(server).predict("hi")
    assert server.requests[0]["headers"]["x-goog-api-key"] == "other-SECRET-456"


def test_fallback_to_the_other_model_after_exhausted_retries(server):
    server.route("POST", "gemini-2.5-pro:generateContent", [gemini_error(503)])
    server.route("POST", "gemini-2.5-flash:generateContent", [gemini_ok("from flash")])
    ledger = UsageLedger()
    primary = make(server, model="gemini-2.5-pro", ledger=ledger, max_retries=1)
    secondary = make(server, model="gemini-2.5-flash", ledger=ledger)
    wrapper = FallbackWrapper(primary, secondary)
    assert wrapper.predict("plan")[0] == "from flash"
    records = ledger.records()
    assert [r.model for r in records] == ["gemini-2.5-pro", "gemini-2.5-flash"]
    assert records[0].error and not records[1].error
    assert wrapper.fallbacks == 1


def test_auto_routes_planner_to_pro_and_verifiers_to_flash_with_fallbacks(server):
    from android_world.harness.model_config import ModelsConfig

    config = ModelsConfig(gemini_base_url=server.url)
    maestro = resolve_role("maestro", config.role_settings("maestro"))
    verifiers = resolve_role("verifiers", config.role_settings("verifiers"))
    assert (maestro.backend, maestro.model) == ("gemini", "gemini-2.5-pro")
    assert maestro.wrapper.secondary.model == "gemini-2.5-flash"
    assert (verifiers.backend, verifiers.model) == ("gemini", "gemini-2.5-flash")
    assert verifiers.wrapper.secondary.model == "gemini-2.5-pro"
    assert "GOOGLE_API_KEY is set" in maestro.line() and SECRET not in maestro.line()


def test_key_never_leaks_into_errors_ledger_or_recordings(server, tmp_path):
    # A server that echoes the key back in its error message.
    server.route("POST", ":generateContent", [gemini_error(400, f"API key {SECRET} not valid")])
    ledger = UsageLedger()
    events: list[dict] = []
    ledger.add_listener(lambda record: events.append(record.to_event()))
    recording = tmp_path / "calls.jsonl"
    wrapper = RecordingWrapper(make(server, ledger=ledger), recording)
    text, _, _ = wrapper.predict("hi")
    outputs = [
        text,
        recording.read_text(),
        json.dumps(ledger.totals()),
        json.dumps(events),
        repr(ledger.records()),
    ]
    assert "not valid" in ledger.records()[0].error
    for output in outputs:
        assert SECRET not in output
