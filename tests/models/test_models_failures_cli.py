"""A run whose model calls fail must say so: console warning, results.jsonl, report, exit code 3."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import models_fakes as fakes
from models_fakes import openai_ok

from android_world.harness.run import EXIT_ALL_MODEL_CALLS_FAILED

ROOT = Path(__file__).resolve().parents[2]
server = fakes.fake_server
REFUSAL = (500, {"error": {"message": "1 validation error: literal_error, bad request"}})


def _run(
    tmp_path: Path, url: str, *extra: str, form: str = "json_object"
) -> tuple[subprocess.CompletedProcess, Path]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = str(ROOT)
    output = tmp_path / "runs"
    sets = [
        f"models.openai_base_url={url}/v1",
        "models.maestro.backend=openai",
        "models.maestro.openai_model=m",
        f"models.maestro.structured_output={form}",
        "models.section_leader.backend=offline",
        "models.verifiers.backend=offline",
        "agent.configurations.celil_agent.max_rehearsals=1",
        "env.render=false",
    ]
    args = [sys.executable, "-m", "android_world.harness.run", "--tasks", "SystemWifiTurnOn"]
    args += ["--output_path", str(output), *extra]
    for item in sets:
        args += ["--set", item]
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    [run_dir] = output.iterdir()
    return done, run_dir


def test_every_call_failing_is_exit_3_with_the_reason_everywhere(server, tmp_path):
    server.route("POST", "/chat/completions", [REFUSAL])
    done, run_dir = _run(tmp_path, server.url)
    assert done.returncode == EXIT_ALL_MODEL_CALLS_FAILED, done.stderr[-1500:]
    assert "Traceback" not in done.stderr
    assert "model calls failed." in done.stderr and "HTTP 500" in done.stderr
    assert "literal_error" in done.stderr  # the server's words, not "backend reported an error"
    [row] = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    assert row["model_errors"] == row["calls"] > 0
    assert "HTTP 500" in row["model_error"] and "literal_error" in row["model_error"]
    report = (run_dir / "report.html").read_text()
    assert "model calls failed: every call" in report
    assert "in progress" not in report  # the last report of a finished run says finished
    summary = (run_dir / "summary.csv").read_text().splitlines()
    assert "model_errors" in summary[0]


def test_a_working_server_exits_0_and_reports_no_failures(server, tmp_path):
    plan = '{"sub_goals": ["Open Settings", "Turn on Wi-Fi"], "rationale": "r"}'

    def answer(request):
        fields = set(
            ((request["body"].get("response_format") or {}).get("schema") or {}).get("properties")
            or {}
        )
        if "sub_goals" in fields:
            return openai_ok(plan)
        return openai_ok('{"done": false, "evidence": "the switch is still off"}')

    server.route("POST", "/chat/completions", answer)
    done, run_dir = _run(tmp_path, server.url)
    assert done.returncode == 0, done.stderr[-1500:]
    assert "model calls failed" not in done.stderr
    [row] = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    assert row["model_errors"] == 0 and row["model_error"] is None and row["calls"] > 0


def test_a_200_without_choices_is_a_failed_call_of_the_run(server, tmp_path):
    # Issue 27: `{"object": "chat.completion"}` was logged as a successful call (exit 0, no warning).
    server.route("POST", "/chat/completions", [fakes.openai_no_choices()])
    done, run_dir = _run(tmp_path, server.url)
    assert done.returncode == EXIT_ALL_MODEL_CALLS_FAILED, done.stderr[-1500:]
    assert "model calls failed." in done.stderr and "no choices" in done.stderr
    [row] = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    assert row["model_errors"] == row["calls"] > 0 and "no choices" in row["model_error"]


def test_an_unasked_event_stream_is_a_failed_call_of_the_run(server, tmp_path):
    server.route("POST", "/chat/completions", [fakes.event_stream('{"sub_goals": []}')])
    done, _ = _run(tmp_path, server.url)
    assert done.returncode == EXIT_ALL_MODEL_CALLS_FAILED, done.stderr[-1500:]
    assert "event stream" in done.stderr and "AttributeError" not in done.stderr


def test_what_workers_learn_about_the_server_is_in_the_manifest(server, tmp_path):
    # llama-cpp-python refuses json_schema; each worker learns json_object, as a serial run does.
    plan = '{"sub_goals": ["Open Settings", "Turn on Wi-Fi"], "rationale": "r"}'

    def like_llama_cpp_python(request):
        response_format = request["body"].get("response_format") or {}
        if response_format.get("type") == "json_schema":  # its words (test_models_negotiation)
            return 500, {
                "error": {
                    "message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
                    "'response_format', 'type'), 'input': 'json_schema'}",
                    "type": "internal_server_error",
                }
            }
        fields = set((response_format.get("schema") or {}).get("properties") or {})
        if "sub_goals" in fields:
            return openai_ok(plan)
        return openai_ok('{"done": false, "evidence": "the switch is still off"}')

    server.route("POST", "/chat/completions", like_llama_cpp_python)
    done, run_dir = _run(
        tmp_path,
        server.url,
        "--workers",
        "2",
        "--tasks",
        "SystemWifiTurnOn,SystemWifiTurnOff",
        form="auto",
    )
    assert done.returncode == 0, done.stderr[-1500:]
    manifest = json.loads((run_dir / "manifest.json").read_text())
    [entry] = manifest["model_servers"]
    assert entry["json_form"] == "json_object" and entry["model"] == "m"
    assert entry["notes"] == ["server refused response_format json_schema; using json_object"]
