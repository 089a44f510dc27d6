"""OllamaWrapper and the Ollama probe: the real ollama client against a fake /api/chat + /api/tags."""

from __future__ import annotations

import models_fakes as fakes
import pytest
from models_fakes import (
    decode_png,
    free_port_url,
    ollama_ok,
    ollama_tags,
    screenshot,
)

from android_world.agents import infer
from android_world.agents.custom.model_clients.ledger import UsageLedger
from android_world.agents.custom.model_clients.ollama import OllamaWrapper
from android_world.agents.custom.model_clients.resolution import resolve_role
from android_world.agents.custom.model_clients.settings import RoleSettings

SCHEMA = {"type": "object", "properties": {"score": {"type": "integer"}}}
MODEL = "0000/ui-tars-1.5-7b"


server = fakes.fake_server


@pytest.fixture(autouse=True)
def no_keys(monkeypatch):
    fakes.model_env(monkeypatch)


def make(host, ledger=None, **kwargs):
    kwargs.setdefault("max_retries", 2)
    return OllamaWrapper(
        "section_leader",
        MODEL,
        host=host,
        ledger=ledger,
        retry_initial_delay_s=0.0,
        sleep=lambda s: None,
        **kwargs,
    )


def test_request_has_model_messages_png_images_options_and_format(server):
    server.route("POST", "/api/chat", [ollama_ok("Thought: t\nAction: press_home()")])
    ledger = UsageLedger()
    image = screenshot(30, 20)
    wrapper = make(server.url, ledger=ledger, temperature=0.2, num_ctx=4096)
    text, is_safe, raw = wrapper.predict_mm("Go home.", [image], response_schema=SCHEMA, system="S")
    assert text.startswith("Thought:") and is_safe is None and raw is not None
    body = server.requests[0]["body"]
    assert body["model"] == MODEL
    assert body["messages"][0] == {"role": "system", "content": "S"}
    user = body["messages"][1]
    assert user["role"] == "user" and user["content"] == "Go home."
    assert (decode_png(user["images"][0]) == image).all()
    assert body["options"]["num_ctx"] >= 16384  # a smaller request is raised
    assert body["options"]["temperature"] == 0.2
    assert body["format"] == SCHEMA
    assert body.get("stream") is False
    record = ledger.records()[0]
    assert (record.prompt_tokens, record.completion_tokens, record.cost_usd) == (20, 4, 0.0)


def test_model_not_pulled_names_host_and_pull_command(server):
    server.route("POST", "/api/chat", [(404, {"error": f"model '{MODEL}' not found"})])
    ledger = UsageLedger()
    assert make(server.url, ledger=ledger).predict("hi") == (infer.ERROR_CALLING_LLM, None, None)
    error = ledger.records()[0].error
    assert server.url in error and f"ollama pull {MODEL}" in error
    assert len(server.requests) == 1  # not retried


def test_connection_refused_names_host_and_serve_command():
    host = free_port_url()
    ledger = UsageLedger()
    assert make(host, ledger=ledger).predict("hi")[0] == infer.ERROR_CALLING_LLM
    error = ledger.records()[0].error
    assert host in error and "ollama serve" in error


def test_503_then_success_is_retried(server):
    server.route("POST", "/api/chat", [(503, {"error": "loading"}), ollama_ok("ok")])
    ledger = UsageLedger()
    assert make(server.url, ledger=ledger).predict("hi")[0] == "ok"
    assert ledger.records()[0].retries == 1 and len(server.requests) == 2


def test_timeout_is_clear(server):
    server.route("POST", "/api/chat", [(*ollama_ok("late"), 2.0)])
    ledger = UsageLedger()
    wrapper = make(server.url, ledger=ledger, timeout_s=0.3, max_retries=0)
    assert wrapper.predict("hi")[0] == infer.ERROR_CALLING_LLM
    error = ledger.records()[0].error
    assert "0.3s" in error and "timeout_s" in error and server.url in error


def settings(host, **kwargs):
    return RoleSettings(
        role="section_leader",
        ollama_host=host,
        ollama_model=MODEL,
        auto_order=("ollama", "openai", "gemini"),
        probe_timeout_s=1.0,
        **kwargs,
    )


def test_auto_picks_ollama_when_reachable_with_model_pulled(server):
    server.route("GET", "/api/tags", [ollama_tags(f"{MODEL}:latest", "llama3:8b")])
    resolution = resolve_role("section_leader", settings(server.url))
    assert (resolution.backend, resolution.model) == ("ollama", MODEL)
    assert isinstance(resolution.wrapper, OllamaWrapper)
    assert "pulled" in resolution.reason


def test_auto_skips_ollama_without_the_model_and_says_how_to_pull(server):
    server.route("GET", "/api/tags", [ollama_tags("llama3:8b")])
    resolution = resolve_role("section_leader", settings(server.url))
    assert resolution.backend == "offline" and resolution.wrapper is None
    assert f"ollama pull {MODEL}" in resolution.reason


def test_auto_skips_unreachable_ollama_and_says_how_to_start_it():
    resolution = resolve_role("section_leader", settings(free_port_url()))
    assert resolution.backend == "offline"
    assert "ollama serve" in resolution.reason and "GOOGLE_API_KEY" in resolution.reason


def test_explicit_backend_is_respected_without_probing(server):
    resolution = resolve_role("section_leader", settings(server.url, backend="ollama", model="x:1"))
    assert (resolution.backend, resolution.model) == ("ollama", "x:1")
    assert server.requests == []
