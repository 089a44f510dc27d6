"""The two documented first commands, run from a fresh copy of the repository.

The copy holds exactly the files a clone would (tracked ones plus new, not-ignored ones: the
working tree may hold work not yet committed), so nothing in this checkout's runs/, caches or
episodic memory can help. No model is reachable (no key variables, Ollama pointed at a closed
port), so the default agent, celil_agent, resolves every role to the offline baseline.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_KEY_VARS = ("GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL")
RUN_FILES = ("config.yaml", "manifest.json", "results.jsonl", "summary.csv", "report.html")
EPISODE_FILES = ("episode.json", "feedback.jsonl", "summary.json")
CELIL_EVENTS = {"plan_created", "action_proposed", "vote", "gate", "executed", "post_check"}


def _repo_files() -> list[str]:
    if shutil.which("git") is None:
        pytest.skip("git is not installed: cannot list the repository's files")
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        timeout=30,
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout: cannot list the repository's files")
    return [name for name in listed.stdout.decode().split("\0") if name]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("clone") / "celil"
    for name in _repo_files():
        source = ROOT / name
        if not source.is_file():  # tracked but deleted in the working tree
            continue
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, destination)
    return target


def _benchmark(checkout: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in _KEY_VARS and k != "PYTHONPATH"}
    env["PYTHON"] = sys.executable  # the interpreter (and packages) this test runs with
    env["CELIL_NO_INSTALL"] = "1"  # never reach for the network, even if a pin differs
    env["OLLAMA_HOST"] = "http://127.0.0.1:9"  # a closed port: auto resolution is deterministic
    return subprocess.run(
        ["bash", "./run_benchmark.sh", *args],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def _only_run_dir(output: Path) -> Path:
    [run_dir] = list(output.iterdir())
    assert run_dir.name.startswith("run_")
    return run_dir


def _check_episode_folder(run_dir: Path, name: str) -> dict:
    folder = run_dir / "episodes" / name
    for file in EPISODE_FILES:
        assert (folder / file).is_file(), f"{name}/{file} missing"
    episode = json.loads((folder / "episode.json").read_text())
    assert episode["steps"], name
    for step in episode["steps"]:  # every step has the screen it acted on
        png = folder / f"step_{step['step_number']:03d}.png"
        assert png.is_file() and png.read_bytes()[:4] == b"\x89PNG", png
        assert step["screenshot"] == png.name
    return episode


def test_random_agent_run_writes_the_whole_run_directory(checkout, tmp_path):
    output = tmp_path / "runs"
    result = _benchmark(
        checkout,
        "--agent",
        "random_agent",
        "--tasks",
        "SystemWifiTurnOff",
        "--output_path",
        str(output),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    run_dir = _only_run_dir(output)
    for file in RUN_FILES:
        assert (run_dir / file).is_file(), file
    assert (run_dir / "checkpoints" / "SystemWifiTurnOff_0.json").is_file()
    _check_episode_folder(run_dir, "SystemWifiTurnOff_0")
    [row] = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    assert row["task"] == "SystemWifiTurnOff" and row["error"] is None
    assert f"Run directory: {run_dir}" in result.stdout


@pytest.mark.slow
def test_default_run_is_celil_on_the_offline_baseline(checkout, tmp_path):
    output = tmp_path / "runs"
    result = _benchmark(
        checkout, "--tasks", "SystemWifiTurnOn,OpenAppTaskEval", "--output_path", str(output)
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "NOT AndroidWorld scores" in result.stdout
    run_dir = _only_run_dir(output)
    rows = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    assert [(r["task"], r["score"], r["agent"]) for r in rows] == [
        ("OpenAppTaskEval", 1.0, "celil_agent"),
        ("SystemWifiTurnOn", 1.0, "celil_agent"),
    ]
    for row in rows:
        assert row["calls"] == 0 and row["calls_per_step"] == 0.0  # no model was called
        assert isinstance(row["memory_hit"], bool)
        assert row["unusable_answers"] == 0  # counted (the offline roles never echo)
        assert row["claimed"] == "complete" and row["false_complete"] is False

    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["agent"]["registry_name"] == "celil_agent"
    for role in ("maestro", "section_leader", "verifiers"):
        assert manifest["models"][role]["backend"] == "offline", manifest["models"]
        assert manifest["models"][role]["reason"]
    for role in ("maestro", "section_leader", "verifiers"):
        assert f"{role}: offline" in result.stderr

    for row in rows:
        _check_episode_folder(run_dir, row["name"])
        folder = run_dir / "episodes" / row["name"]
        events = [json.loads(x) for x in (folder / "feedback.jsonl").read_text().splitlines()]
        assert {e["type"] for e in events} >= CELIL_EVENTS, row["name"]
        in_steps = [e for e in events if e["step"] is not None]
        assert {e["step"] for e in in_steps} <= set(range(row["steps"]))
        assert all("agent_step" in e for e in in_steps)
    # The default memory is fresh: it lives in the run directory, the shared file is untouched.
    assert (run_dir / "episodic_memory.db").is_file()
    assert not (checkout / "runs" / "celil_episodic_memory.db").exists()
    memory = manifest["agent_info"]["memory"]
    assert memory["mode"] == "fresh" and memory["entries"] == 0
    assert "Memory: fresh (" in result.stderr


def test_memory_review_list_works_right_after_a_default_run_with_no_flags(checkout):
    """The README's main command, then its plain review command: no --memory, no --config. The
    run keeps its memory in its own directory (memory: fresh); the CLI finds the newest one."""
    result = _benchmark(checkout, "--tasks", "SystemWifiTurnOn")  # default output: runs/
    assert result.returncode == 0, result.stderr[-2000:]
    run_dir = max((checkout / "runs").glob("run_*"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    listed = subprocess.run(
        [sys.executable, "-m", "android_world.harness.memory_review", "list"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    assert listed.stderr.startswith(f"memory: runs/{run_dir.name}/episodic_memory.db (the newest")
    assert "Turn wifi {toggle_1}." in listed.stdout and "settings" in listed.stdout
    assert len(listed.stdout.splitlines()) == 3  # header, rule, the one plan it stored
