"""Recording and replay: record against a fake server, replay with no network, misses are clear."""

from __future__ import annotations

import json

import models_fakes as fakes
import pytest
from models_fakes import FakeServer, gemini_ok, ollama_ok, screenshot

from android_world.agents import infer
from android_world.agents.custom.model_clients.call_types import request_hash
from android_world.agents.custom.model_clients.errors import ModelSetupError, ReplayMissError
from android_world.agents.custom.model_clients.gemini import GeminiWrapper
from android_world.agents.custom.model_clients.ledger import UsageLedger
from android_world.agents.custom.model_clients.ollama import OllamaWrapper
from android_world.agents.custom.model_clients.replay import RecordingWrapper, ReplayWrapper
from android_world.agents.custom.model_clients.resolution import resolve_role
from android_world.harness.model_config import ModelsConfig

SECRET = "sk-SECRET-123"
SCHEMA = {"type": "object", "properties": {"score": {"type": "number"}}}


@pytest.fixture(autouse=True)
def key(monkeypatch):
    fakes.model_env(monkeypatch, SECRET)


def _calls(wrapper):
    image_a, image_b = screenshot(20, 10, seed=1), screenshot(20, 10, seed=2)
    return [
        wrapper.predict("same prompt"),
        wrapper.predict_mm("look", [image_a]),
        wrapper.predict("same prompt"),  # identical request, different recorded answer
        wrapper.predict_mm("look", [image_b]),  # same text, different image
        wrapper.predict_json("score it", None, SCHEMA, system="sys"),
    ]


def test_record_then_replay_is_identical_without_network(tmp_path):
    server = FakeServer()
    answers = [ollama_ok(f"answer {i}", prompt_tokens=10 + i, output_tokens=i) for i in range(5)]
    server.route("POST", "/api/chat", answers)
    recording = tmp_path / "calls.jsonl"
    live_ledger = UsageLedger()
    live = OllamaWrapper("verifiers", "qwen2.5vl:7b", host=server.url, ledger=live_ledger)
    recorded = [(t, s) for t, s, _ in _calls(RecordingWrapper(live, recording))]
    server.close()  # nothing listens any more: replay must not need the network

    lines = [json.loads(line) for line in recording.read_text().splitlines()]
    assert len(lines) == 5
    assert {"role", "backend", "model", "request_hash", "response_text", "is_safe", "usage"} <= set(
        lines[0]
    )
    assert lines[0]["role"] == "verifiers" and lines[0]["backend"] == "ollama"
    assert lines[0]["usage"]["prompt_tokens"] == 10
    assert lines[0]["request_hash"] == lines[2]["request_hash"]
    assert lines[1]["request_hash"] != lines[3]["request_hash"]

    replay_ledger = UsageLedger()
    replay = ReplayWrapper("verifiers", recording, ledger=replay_ledger)
    replayed = [(t, s) for t, s, _ in _calls(replay)]
    assert replayed == recorded
    assert [r[0] for r in replayed] == [f"answer {i}" for i in range(5)]
    assert replay_ledger.totals()["prompt_tokens"] == live_ledger.totals()["prompt_tokens"]
    assert replay_ledger.totals()["cost_usd"] == 0.0
    assert replay.model == "qwen2.5vl:7b"


def _one_line_recording(tmp_path, role="maestro", prompt="known"):
    path = tmp_path / "rec.jsonl"
    line = {
        "role": role,
        "backend": "gemini",
        "model": "gemini-2.5-pro",
        "request_hash": request_hash(prompt),
        "response_text": "recorded",
        "is_safe": True,
        "usage": {"prompt_tokens": 3, "completion_tokens": 1},
    }
    path.write_text(json.dumps(line) + "\n")
    return path


def test_missing_recording_is_a_clear_error_naming_role_and_call_number(tmp_path):
    path = _one_line_recording(tmp_path)
    ledger = UsageLedger()
    replay = ReplayWrapper("maestro", path, ledger=ledger)
    assert replay.predict("known")[0] == "recorded"
    assert replay.predict("known") == (infer.ERROR_CALLING_LLM, None, None)  # only recorded once
    assert replay.predict("unknown")[0] == infer.ERROR_CALLING_LLM
    errors = [r.error for r in ledger.records()]
    assert errors[0] is None
    assert "role 'maestro' call #2" in errors[1] and "occurrence 2" in errors[1]
    assert "role 'maestro' call #3" in errors[2] and "never recorded" in errors[2]


def test_other_roles_answers_are_not_used(tmp_path):
    path = _one_line_recording(tmp_path, role="verifiers")
    replay = ReplayWrapper("maestro", path)
    assert replay.predict("known")[0] == infer.ERROR_CALLING_LLM


def test_strict_replay_raises(tmp_path):
    path = _one_line_recording(tmp_path)
    ledger = UsageLedger()
    replay = ReplayWrapper("maestro", path, strict=True, ledger=ledger)
    with pytest.raises(ReplayMissError, match=r"role 'maestro' call #1"):
        replay.predict("other")
    assert ledger.records()[0].error  # still in the ledger


def test_missing_replay_file_is_a_setup_error(tmp_path):
    with pytest.raises(ModelSetupError, match="does not exist"):
        ReplayWrapper("maestro", tmp_path / "nope.jsonl")


def test_recorded_errors_replay_as_errors(tmp_path):
    server = FakeServer()
    server.route(
        "POST",
        ":generateContent",
        [(200, {"promptFeedback": {"blockReason": "SAFETY"}}), gemini_ok("x")],
    )
    path = tmp_path / "rec.jsonl"
    live = GeminiWrapper("maestro", "gemini-2.5-pro", base_url=server.url, max_retries=0)
    recorder = RecordingWrapper(live, path)
    first = recorder.predict("p")
    server.close()
    assert first == (infer.ERROR_CALLING_LLM, False, None)
    assert SECRET not in path.read_text()
    assert ReplayWrapper("maestro", path).predict("p") == first


def test_config_replay_path_turns_auto_roles_into_replay_and_record_wraps(tmp_path):
    path = _one_line_recording(tmp_path)
    config = ModelsConfig(replay_path=str(path), record=str(tmp_path / "again.jsonl"))
    resolution = resolve_role("maestro", config.role_settings("maestro"))
    assert resolution.backend == "replay"
    assert isinstance(resolution.wrapper, RecordingWrapper)
    assert resolution.wrapper.predict("known")[0] == "recorded"
    again = json.loads((tmp_path / "again.jsonl").read_text())
    assert again["response_text"] == "recorded" and again["request_hash"] == request_hash("known")


def test_roles_without_recorded_calls_replay_offline(tmp_path):
    path = _one_line_recording(tmp_path, role="maestro")
    config = ModelsConfig(replay_path=str(path))
    resolution = resolve_role("verifiers", config.role_settings("verifiers"))
    assert resolution.backend == "offline" and resolution.wrapper is None
    assert "no recorded calls for verifiers" in resolution.reason
    assert resolution.to_dict()["backend"] == "offline"


@pytest.mark.parametrize("line", ['{"role": "maestro"}', "[1, 2]", "not json"])
def test_a_line_that_is_not_a_recorded_call_is_a_setup_error(tmp_path, line):
    path = tmp_path / "rec.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(ModelSetupError, match=r"rec\.jsonl:1: not a"):
        ReplayWrapper("maestro", path)


def test_a_torn_last_line_from_a_killed_recording_is_skipped(tmp_path):
    path = _one_line_recording(tmp_path)
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"role": "maestro", "request_ha')  # killed mid-write: no newline
    replay = ReplayWrapper("maestro", path)
    assert replay.predict("known")[0] == "recorded"
    # The same damage in the middle of the file is not a torn tail: it stays an error.
    path.write_text(path.read_text() + "\n" + path.read_text().splitlines()[0] + "\n")
    with pytest.raises(ModelSetupError, match=r"rec\.jsonl:2: not a JSON line"):
        ReplayWrapper("maestro", path)
