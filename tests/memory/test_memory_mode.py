"""Episodic memory per run: fresh by default, shared or frozen on request, recorded in the manifest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from android_world.agents import memory_mode
from android_world.agents.custom.memory import celil_episodic

ROOT = Path(__file__).resolve().parents[2]


def test_plan_memory_modes(tmp_path):
    run_dir = tmp_path / "run_1"
    fresh = memory_mode.plan_memory("fresh", "shared.db", run_dir)
    assert fresh.path == run_dir / "episodic_memory.db" and not fresh.read_only
    # A run directory of an older Celil (resumed): its JSON memory, migrated on first use.
    run_dir.mkdir()
    (run_dir / "episodic_memory.json").write_text('{"schema_version": 1, "entries": []}')
    assert memory_mode.plan_memory("fresh", "x", run_dir).path == run_dir / "episodic_memory.json"
    assert memory_mode.plan_memory("fresh", "x", None).path is None
    shared = memory_mode.plan_memory("shared", str(tmp_path / "m.json"), run_dir)
    assert shared.path == tmp_path / "m.json" and not shared.read_only
    assert memory_mode.plan_memory("shared", "", run_dir).path is None
    assert memory_mode.plan_memory("off", "m.json", run_dir).path is None
    with pytest.raises(memory_mode.MemorySetupError, match="does not exist"):
        memory_mode.plan_memory("frozen", str(tmp_path / "missing.json"), run_dir)
    (tmp_path / "m.json").write_text('{"entries": []}')
    frozen = memory_mode.plan_memory("frozen", str(tmp_path / "m.json"), run_dir)
    assert frozen.read_only
    (tmp_path / "m.json").unlink()
    (tmp_path / "m.db").write_bytes(b"")  # migrated earlier: the JSON may be gone
    assert memory_mode.plan_memory("frozen", str(tmp_path / "m.json"), run_dir).read_only


def _store_one(path: Path) -> str:
    memory = celil_episodic.EpisodicMemory(path)
    entry = memory.add_successful_plan(
        'Create a note named "groceries" in Markor', ["Open Markor", "Create a note"], ["markor"]
    )
    assert entry
    # Closed here: an open writer's WAL is checkpointed into the file whenever the collector
    # closes it, which made the frozen test's byte comparison race with the collector.
    memory.close()
    return entry


def test_state_counts_entries_and_hashes_the_content(tmp_path):
    path = tmp_path / "m.db"
    empty = memory_mode.memory_state(memory_mode.MemoryPlan("fresh", path, False))
    assert empty["entries"] == 0 and empty["sha256"] is None
    assert "(empty;" in memory_mode.memory_line(empty)
    assert not path.exists()  # describing creates nothing
    _store_one(path)
    state = memory_mode.memory_state(memory_mode.MemoryPlan("shared", path, False))
    assert state["entries"] == 1 and len(state["sha256"]) == 64
    line = memory_mode.memory_line(state)
    assert line.startswith("Memory: shared (1 plans, sha256 ") and line.endswith(f": {path}")
    again = memory_mode.memory_state(memory_mode.MemoryPlan("shared", path, False))
    assert again["sha256"] == state["sha256"]  # the content's hash, not the pages'
    off = memory_mode.memory_state(memory_mode.plan_memory("off", "", None))
    assert memory_mode.memory_line(off) == "Memory: off (memory: off)"


def test_a_frozen_memory_answers_but_never_changes_its_file(tmp_path):
    path = tmp_path / "m.db"
    entry = _store_one(path)
    before = path.read_bytes()
    state = memory_mode.memory_state(memory_mode.MemoryPlan("frozen", path, True))
    frozen = celil_episodic.EpisodicMemory(path, read_only=True)
    hit = frozen.find_similar_task('Create a note named "milk" in Markor', ["markor"])
    assert hit is not None and hit.entry_id == entry
    frozen.record_outcome(entry, False)
    assert frozen.add_successful_plan("Open the clock", ["Open Clock"], ["clock"]) == ""
    frozen.close()
    assert path.read_bytes() == before
    after = memory_mode.memory_state(memory_mode.MemoryPlan("frozen", path, True))
    assert after["sha256"] == state["sha256"] and after["entries"] == 1


def _run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, Path]:
    output = tmp_path / "runs"
    before = set(output.iterdir()) if output.exists() else set()
    result = subprocess.run(
        [
            *(sys.executable, "-m", "android_world.harness.run", "--models", "offline"),
            *("--tasks", "MarkorCreateNote", "--output_path", str(output)),
            *("--set", "env.render=false", *args),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    [run_dir] = set(output.iterdir()) - before
    return result, run_dir


def _hits(run_dir: Path) -> list[bool]:
    rows = (run_dir / "results.jsonl").read_text().splitlines()
    return [json.loads(line)["memory_hit"] for line in rows]


def test_a_second_run_repeats_the_first_unless_memory_is_shared(tmp_path):
    _, run_a = _run(tmp_path)
    second, run_b = _run(tmp_path)
    assert _hits(run_a) == _hits(run_b) == [False]
    assert "Memory: fresh (" in second.stderr
    assert (run_a / "episodic_memory.db").is_file()

    shared_file = tmp_path / "shared.db"
    key = "agent.configurations.celil_agent"
    shared = ("--set", f"{key}.memory=shared", "--set", f"{key}.episodic_memory_path={shared_file}")
    _run(tmp_path, *shared)
    learned, run_d = _run(tmp_path, *shared)
    assert _hits(run_d) == [True]
    state = json.loads((run_d / "manifest.json").read_text())["agent_info"]["memory"]
    assert state["mode"] == "shared" and state["entries"] == 1
    assert "Memory: shared (" in learned.stderr

    before = shared_file.read_bytes()
    frozen = ("--set", f"{key}.memory=frozen", "--set", f"{key}.episodic_memory_path={shared_file}")
    _, run_e = _run(tmp_path, *frozen)
    assert _hits(run_e) == [True] and shared_file.read_bytes() == before


def test_memory_review_reads_a_run_directory(tmp_path):
    _, run_dir = _run(tmp_path)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "android_world.harness.memory_review",
            "--memory",
            str(run_dir),
            "list",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "create" in result.stdout.lower()


def test_a_shared_json_memory_of_an_older_celil_migrates_on_first_use_and_is_kept(tmp_path):
    legacy = tmp_path / "shared.json"
    key = "agent.configurations.celil_agent"
    seed = tmp_path / "seed.db"
    _run(tmp_path, "--set", f"{key}.memory=shared", "--set", f"{key}.episodic_memory_path={seed}")
    entries = celil_episodic.EpisodicMemory(seed).entries()
    legacy.write_text(celil_episodic.dump_json_memory(entries))  # as an older Celil kept it
    original = legacy.read_bytes()
    shared = ("--set", f"{key}.memory=shared", "--set", f"{key}.episodic_memory_path={legacy}")
    result, run_dir = _run(tmp_path, *shared)
    assert _hits(run_dir) == [True]
    assert f"database {tmp_path / 'shared.db'}" in result.stderr.replace("\n    ", " ")
    assert "migrated 1 entries" in result.stderr.replace("\n    ", " ")
    assert legacy.read_bytes() == original and (tmp_path / "shared.db").is_file()
