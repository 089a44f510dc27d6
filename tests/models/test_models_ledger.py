"""UsageLedger: totals, cost, episodes, listeners, threads; and the wrapper base's error contract."""

from __future__ import annotations

import json
import threading

import pytest

from android_world.agents import infer
from android_world.agents.custom.celil_secrets import redact, register_secret
from android_world.agents.custom.model_clients.call_types import CallRecord, ModelReply
from android_world.agents.custom.model_clients.ledger import UsageLedger, per_step
from android_world.agents.custom.model_clients.replay import RecordingWrapper, ReplayWrapper
from android_world.agents.custom.model_clients.retries import BackendWrapper


class ScriptedWrapper(BackendWrapper):
    """A backend whose `_send` follows a script, to test the shared retry/ledger loop alone."""

    backend = "gemini"

    def __init__(self, script, **kwargs):
        kwargs.setdefault("retry_initial_delay_s", 0.0)
        super().__init__(
            kwargs.pop("role", "verifiers"), kwargs.pop("model", "gemini-2.5-flash"), **kwargs
        )
        self.script = list(script)
        self.sent = 0

    def _send(self, request):
        self.sent += 1
        step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if isinstance(step, BaseException):
            raise step
        return ModelReply(step, {"ok": True}, True, 100, 10)


class StatusError(Exception):
    def __init__(self, code):
        super().__init__(f"HTTP {code}")
        self.code = code


PRICES = {"gemini-2.5-flash": (0.30, 2.50), "gemini-2.5-pro": (1.25, 10.0)}


def test_totals_by_role_and_cost():
    ledger = UsageLedger(PRICES)
    ledger.record(CallRecord("maestro", "gemini", "gemini-2.5-pro", 1000, 200, 1.5))
    ledger.record(
        CallRecord("verifiers", "gemini", "gemini-2.5-flash-001", 2000, 100, 0.5, retries=2)
    )
    ledger.record(CallRecord("section_leader", "ollama", "ui-tars", 3000, 50, 4.0))
    ledger.record(
        CallRecord("verifiers", "gemini", "gemini-2.5-flash", 0, 0, 0.25, error="HTTP 500")
    )
    totals = ledger.totals()
    assert totals["model_calls"] == 4
    assert totals["prompt_tokens"] == 6000 and totals["completion_tokens"] == 350
    assert totals["model_seconds"] == pytest.approx(6.25)
    pro = (1000 * 1.25 + 200 * 10.0) / 1e6
    flash = (2000 * 0.30 + 100 * 2.50) / 1e6  # priced by prefix
    assert totals["cost_usd"] == pytest.approx(pro + flash)
    assert totals["retries"] == 2 and totals["errors"] == 1
    assert totals["by_role"]["verifiers"]["model_calls"] == 2
    assert totals["by_role"]["section_leader"]["cost_usd"] == 0.0  # local model
    assert set(totals) >= {
        "model_calls",
        "prompt_tokens",
        "completion_tokens",
        "model_seconds",
        "cost_usd",
        "by_role",
    }
    json.dumps(totals)  # JSON-serialisable
    assert per_step(totals, 2)["calls_per_step"] == 2.0
    assert per_step(totals, 2)["tokens_per_step"] == 3175.0


def test_episode_reset_and_run_totals():
    ledger = UsageLedger()
    ledger.record(CallRecord("maestro", "gemini", "m", 1, 1, 1.0))
    first = ledger.reset_episode()
    ledger.record(CallRecord("maestro", "gemini", "m", 2, 2, 1.0))
    ledger.record(CallRecord("maestro", "gemini", "m", 3, 3, 1.0))
    assert first["model_calls"] == 1
    assert ledger.episode_totals()["model_calls"] == 2
    assert ledger.episode_totals()["prompt_tokens"] == 5
    assert ledger.totals()["model_calls"] == 3
    assert ledger.reset_episode()["model_calls"] == 2
    assert ledger.episode_totals()["model_calls"] == 0


def test_listeners_get_events_and_a_broken_listener_is_contained():
    ledger = UsageLedger(PRICES)
    events = []
    ledger.add_listener(lambda r: events.append(r.to_event()))
    ledger.add_listener(lambda r: 1 / 0)
    wrapper = ScriptedWrapper(["fine"], ledger=ledger)
    assert wrapper.predict("hi")[0] == "fine"
    (event,) = events
    assert event["type"] == "model_call" and event["role"] == "verifiers"
    assert event["prompt_tokens"] == 100 and event["cost_usd"] > 0
    assert ledger.listener_errors == 1
    json.dumps(event)


def test_parallel_calls_are_all_counted():
    ledger = UsageLedger(PRICES)
    wrapper = ScriptedWrapper(["ok"], ledger=ledger)
    threads = [
        threading.Thread(target=lambda: [wrapper.predict("x") for _ in range(50)]) for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    totals = ledger.totals()
    assert totals["model_calls"] == 400 and totals["prompt_tokens"] == 40_000


def test_retry_loop_counts_and_stops():
    sleeps = []
    ledger = UsageLedger()
    wrapper = ScriptedWrapper(
        [StatusError(429), StatusError(503), "third time"],
        ledger=ledger,
        sleep=sleeps.append,
        max_retries=3,
        retry_initial_delay_s=1.0,
        retry_max_delay_s=1.5,
    )
    assert wrapper.predict("x")[0] == "third time"
    assert ledger.records()[0].retries == 2 and wrapper.sent == 3
    assert 1.0 <= sleeps[0] <= 1.1 and 1.5 <= sleeps[1] <= 1.65  # doubled, capped, small jitter


def test_non_retryable_and_unexpected_errors_never_raise():
    ledger = UsageLedger()
    wrapper = ScriptedWrapper([StatusError(400)], ledger=ledger, sleep=lambda s: None)
    assert wrapper.predict("x") == (infer.ERROR_CALLING_LLM, None, None)
    assert wrapper.sent == 1
    crashing = ScriptedWrapper([RuntimeError("kaput")], ledger=ledger)
    assert crashing.predict_mm("x", []) == (infer.ERROR_CALLING_LLM, None, None)
    assert "kaput" in ledger.records()[-1].error


def test_wrappers_implement_both_infer_interfaces():
    wrapper = ScriptedWrapper(["ok"])
    assert isinstance(wrapper, infer.LlmWrapper) and isinstance(wrapper, infer.MultimodalLlmWrapper)


def test_recording_a_plain_infer_wrapper(tmp_path):
    class Plain(infer.LlmWrapper, infer.MultimodalLlmWrapper):
        def predict(self, text_prompt):
            return "plain " + text_prompt, None, None

        def predict_mm(self, text_prompt, images):
            return "mm", None, None

    path = tmp_path / "r.jsonl"
    recorder = RecordingWrapper(Plain(), path, role="maestro")
    assert recorder.predict("x")[0] == "plain x"
    assert json.loads(path.read_text())["response_text"] == "plain x"
    assert ReplayWrapper("maestro", path).predict("x")[0] == "plain x"


def test_redact_scrubs_registered_and_env_secrets(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "sk-SECRET-123")
    assert redact("key sk-SECRET-123 leaked") == "key <redacted> leaked"
    register_secret("another-SECRET-xyz")
    assert "another-SECRET-xyz" not in redact("x another-SECRET-xyz")
