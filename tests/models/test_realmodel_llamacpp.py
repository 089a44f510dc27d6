"""The real-model tier: Celil against a real OpenAI-compatible server serving a real small model.

llama-cpp-python's server (and llama.cpp's own `llama-server` when one is found) serves
SmolLM2-135M-Instruct on 127.0.0.1. The model is far too small to plan a phone task, so nothing
here asserts task success; the tests assert what the pipeline must do with whatever a real model
answers: every request shape is accepted, every answer is used or counted unusable with its reason,
and the ledger, the events and results.jsonl agree. run_tests.sh installs the tier; where that is
impossible these tests skip with the reason (docs/MODELS.md: "A real model in the test suite").
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import realmodel_support as rm

pytestmark = [pytest.mark.realmodel, pytest.mark.slow]

# Two one-screen tasks (complexity 1): a short episode each.
TASKS = ["SystemWifiTurnOn", "OpenAppTaskEval"]
MODEL_ROLES = ("maestro", "verifiers")


def _start(kind: str, log_dir: Path) -> rm.ModelServer:
    if kind == "llama-cpp-python":
        reason = rm.llama_cpp_python_missing()
        if reason:
            pytest.skip(reason)
        return rm.start_llama_cpp_python(log_dir / "server.log")
    binary = rm.llama_server_binary()
    if binary is None:
        pytest.skip("llama.cpp's llama-server not found (put it on PATH or set CELIL_LLAMA_SERVER)")
    if not rm.gguf_path().is_file():
        pytest.skip(f"real-model tier: model {rm.gguf_path()} is missing")
    return rm.start_llama_server(binary, log_dir / "server.log")


@pytest.fixture(scope="session", params=["llama-cpp-python", "llama-server"])
def model_server(request, tmp_path_factory) -> Iterator[rm.ModelServer]:
    """One server per kind for the whole session, stopped at the end."""
    server = _start(request.param, tmp_path_factory.mktemp(request.param))
    yield server
    server.stop()


def _model_calls(events: list[dict]) -> list[dict]:
    return [e for e in events if e.get("type") == "model_call"]


def test_the_server_lists_the_model(model_server):
    assert rm.MODEL_ALIAS in rm.served_models(model_server), model_server.log_tail()


@pytest.fixture(scope="session")
def planner_run(model_server, tmp_path_factory) -> rm.RunOutput:
    """Maestro and verifiers on the real model (executor offline), two short episodes."""
    out = tmp_path_factory.mktemp(f"planner-run-{model_server.kind}")
    return rm.run_celil(out, model_server.base_url, TASKS, MODEL_ROLES)


def test_every_episode_finishes_and_records_its_calls(planner_run):
    assert planner_run.returncode in (0, 3), planner_run.output
    assert "Traceback" not in planner_run.output
    results = planner_run.results()
    assert sorted(r["task"] for r in results) == sorted(TASKS)
    for row in results:
        assert row["error"] is None, row
        assert row["calls"] > 0, row


def test_the_server_accepts_every_request_the_run_sends(planner_run):
    """The first release's failure: every planner and verifier call rejected with HTTP 500.
    Whatever this small model answers, no request may be refused by the server."""
    calls = [c for events in planner_run.events().values() for c in _model_calls(events)]
    refused = [c for c in calls if "HTTP" in (c["error"] or "")]
    assert calls and not refused, refused[:2]
    assert all(row["model_errors"] == 0 for row in planner_run.results())
    notes = {c["note"] for c in calls if c.get("note")}
    if model_server_kind(planner_run) == "llama-cpp-python":
        # This server refuses json_schema; the first call learns json_object and says so.
        assert any("using json_object" in note for note in notes), notes
        manifest = json.loads((planner_run.run / "manifest.json").read_text())
        forms = {entry["json_form"] for entry in manifest["model_servers"]}
        assert forms == {"json_object"}, manifest["model_servers"]


def model_server_kind(run: rm.RunOutput) -> str:
    return "llama-cpp-python" if "llama-cpp-python" in str(run.run) else "llama-server"


def test_check_models_sends_the_run_shapes_and_they_are_accepted(model_server, tmp_path):
    """--check_models must fail exactly when the run's own requests would: here they are
    accepted, so no row may fail on the request (an unusable answer from a 135M model may)."""
    import subprocess

    cmd = rm.celil_command(
        tmp_path,
        ["SystemWifiTurnOn"],
        rm.role_settings(model_server.base_url, ("maestro", "verifiers")),
        "--check_models",
    )
    done = subprocess.run(
        cmd, cwd=rm.ROOT, env=rm.celil_env(), capture_output=True, text=True, timeout=600
    )
    assert "Traceback" not in done.stderr + done.stdout
    assert "run-shape" in done.stdout, done.stdout
    assert "HTTP 500" not in done.stdout and "HTTP 4" not in done.stdout, done.stdout


def test_ledger_events_and_results_agree(planner_run):
    """results.jsonl, summary.json and the model_call events count the same calls and tokens."""
    events = planner_run.events()
    for row in planner_run.results():
        calls = _model_calls(events[row["name"]])
        assert row["calls"] == len(calls), row["name"]
        assert row["prompt_tokens"] == sum(c["prompt_tokens"] for c in calls)
        assert row["completion_tokens"] == sum(c["completion_tokens"] for c in calls)
        assert row["tokens"] == row["prompt_tokens"] + row["completion_tokens"]
        assert row["model_seconds"] == pytest.approx(
            sum(c["latency_s"] for c in calls), abs=0.01 * len(calls)
        )
        usage = planner_run.summary(row["name"])["agent"]["usage"]
        assert usage["model_calls"] == row["calls"]
        assert usage["errors"] == sum(1 for c in calls if c["error"])
        assert usage["retries"] == sum(c["retries"] for c in calls)
        for role, totals in usage["by_role"].items():
            assert totals["model_calls"] == sum(1 for c in calls if c["role"] == role), role
        for call in calls:
            assert call["role"] in MODEL_ROLES, call
            assert (call["backend"], call["model"]) == ("openai", rm.MODEL_ALIAS), call


def test_every_vote_is_used_or_unusable_with_its_reason(planner_run):
    """Joint verifiers (the default): three votes per verifier call, one per persona; a vote
    not used says why."""
    for name, events in planner_run.events().items():
        votes = [e for e in events if e["type"] == "vote"]
        verifier_calls = [c for c in _model_calls(events) if c["role"] == "verifiers"]
        assert len(votes) == 3 * len(verifier_calls), name
        gates = [e for e in events if e["type"] == "gate"]
        # Adaptive verification spends no vote on navigation (opening an app): it says so.
        assert votes or (gates and all(g.get("vote_skipped") for g in gates)), name
        for vote in votes:
            if vote["parseable"]:
                assert 0.0 <= vote["score"] <= 10.0, vote
                assert vote["error"] is None, vote
            else:
                assert vote["error"], vote


def test_a_server_killed_mid_run_fails_the_remaining_calls_fast(model_server, tmp_path):
    """After a SIGKILL every later call fails at once (connection refused is not retried)."""
    server = _start(model_server.kind, tmp_path)
    try:
        # Killed once the run has recorded one answered call, however many requests it took.
        watcher = rm.kill_after_answered_calls(server, tmp_path / "runs", 1)
        run = rm.run_celil(tmp_path, server.base_url, TASKS, MODEL_ROLES)
        watcher.join(timeout=30)
    finally:
        server.stop()
    assert not server.alive()
    assert "Traceback" not in run.output
    calls = sorted(
        (c for events in run.events().values() for c in _model_calls(events)),
        key=lambda c: c["ts"],
    )
    first_dead = next(i for i, c in enumerate(calls) if "connection" in (c["error"] or "").lower())
    assert first_dead >= 1, calls[:3]
    after = calls[first_dead + 1 :]
    assert after, "the run made no call after the server died"
    for call in after:
        assert "connection refused" in (call["error"] or ""), call
        assert call["retries"] == 0, call


def test_a_json_executor_on_the_model_proposes_or_says_why_not(model_server, tmp_path):
    """Executor on the model (JSON format), planner and verifiers offline: one proposal per call."""
    run = rm.run_celil(
        tmp_path,
        model_server.base_url,
        TASKS[:1],
        ("section_leader",),
        settings=("agent.configurations.celil_agent.executor_format=json",),
    )
    assert run.returncode in (0, 3), run.output
    [row] = run.results()
    events = run.events()[row["name"]]
    calls = _model_calls(events)
    proposals = [e for e in events if e["type"] == "action_proposed"]
    assert calls and all(c["role"] == "section_leader" for c in calls), calls
    assert row["calls"] == len(calls)
    assert len(proposals) == len(calls)
    for proposal in proposals:
        assert proposal["action"] is not None or proposal["error"], proposal
