"""`--workers N` through the real CLI, in subprocesses: the same run directory as a serial run,
the same answers on the simulated phone, and nothing lost or duplicated when a worker or the
driver is SIGKILLed mid-run."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from android_world.agents.custom.memory.celil_episodic import EpisodicMemory

ROOT = Path(__file__).resolve().parents[2]
TESTS = Path(__file__).resolve().parents[1]

# Guarded: spawned workers import the driver script as __mp_main__.
DRIVER = """
import sys
import parallel_fakes
from android_world.harness import run
run.task_registry = lambda family: dict(parallel_fakes.TASKS)
if __name__ == "__main__":
    run.make_env = parallel_fakes.make_env
    run.run_cli(sys.argv)
"""


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    # The driver scripts import the fakes in tests/ (pytest's pythonpath does not reach a child).
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(TESTS), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def _driver(tmp_path: Path, *args: str) -> list[str]:
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    return [
        sys.executable,
        str(script),
        "--config",
        str(ROOT / "config" / "default.yaml"),
        "--agent",
        "oracle_agent",
        *args,
    ]


def _rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def _checkpoints(run_dir: Path) -> dict[str, dict]:
    out = {}
    for path in (run_dir / "checkpoints").glob("*.json"):
        (episode,) = json.loads(path.read_text())["episodes"]
        out[episode["name"]] = episode
    return out


def _summary(run_dir: Path) -> list[dict]:
    """summary.csv without the wall-clock column."""
    with open(run_dir / "summary.csv", newline="") as f:
        return [
            {k: v for k, v in row.items() if k != "total_runtime_s"} for row in csv.DictReader(f)
        ]


def _wait_for(predicate, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.02)


EXPECTED = sorted(f"{t}_{i}" for t in ("FakeAnswer", "FakeWifiOn") for i in range(3))


@pytest.mark.slow
def test_parallel_run_writes_the_same_run_directory_as_a_serial_one(tmp_path):
    dirs = {}
    for workers in ("1", "3"):
        run_dir = tmp_path / f"w{workers}"
        result = subprocess.run(
            [
                *_driver(tmp_path, "--n_task_combinations", "3", "--workers", workers),
                "--checkpoint_dir",
                str(run_dir),
                "--new",
            ],
            cwd=ROOT,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        dirs[workers] = run_dir
    serial, par = (_rows(dirs[w]) for w in ("1", "3"))
    keys = ("name", "goal", "score", "raw_score", "steps", "done", "seed", "error")
    assert [{k: r[k] for k in keys} for r in serial] == [{k: r[k] for k in keys} for r in par]
    assert [r["name"] for r in par] == EXPECTED  # suite order, each once
    for name in EXPECTED:  # every episode folder, as the serial run writes it
        files = sorted(p.name for p in (dirs["3"] / "episodes" / name).iterdir())
        assert files == sorted(p.name for p in (dirs["1"] / "episodes" / name).iterdir())
    assert _summary(dirs["3"]) == _summary(dirs["1"])
    manifest = json.loads((dirs["3"] / "manifest.json").read_text())
    (session,) = manifest["parallel"]
    assert (session["backend"], session["workers"], session["restarts"]) == ("local", 3, 0)
    assert "parallel" not in json.loads((dirs["1"] / "manifest.json").read_text())


@pytest.mark.slow
def test_sigkill_of_a_worker_mid_episode_loses_and_duplicates_nothing(tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        [
            *_driver(tmp_path, "--n_task_combinations", "3", "--workers", "2"),
            "--checkpoint_dir",
            str(run_dir),
            "--new",
        ],
        cwd=ROOT,
        env=_env(FAKE_STEP_SLEEP="0.4", PARALLEL_MARKER_DIR=str(markers)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(lambda: any(markers.iterdir()))
        victim = next(markers.iterdir()).read_text().split()
        os.kill(int(victim[1]), signal.SIGKILL)  # mid-episode: its action is still sleeping
        _out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    rows = _rows(run_dir)
    assert [r["name"] for r in rows] == EXPECTED
    assert all(r["error"] is None and r["score"] == 1.0 for r in rows), rows
    (session,) = json.loads((run_dir / "manifest.json").read_text())["parallel"]
    assert (session["restarts"], session["retries"], session["gave_up"]) == (1, 1, [])
    retried = [e for e in _checkpoints(run_dir).values() if e.get("attempts") == 2]
    assert len(retried) == 1
    assert retried[0]["retried_after"] == "worker process killed by SIGKILL"
    assert "killed by SIGKILL; restarting it" in err


@pytest.mark.slow
def test_sigkill_of_the_driver_then_resume_loses_and_duplicates_nothing(tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    run_dir = tmp_path / "run"
    init_log = tmp_path / "inits.log"
    env = _env(FAKE_STEP_SLEEP="0.3", PARALLEL_MARKER_DIR=str(markers), FAKE_INIT_LOG=str(init_log))
    args = ["--n_task_combinations", "3", "--workers", "2", "--checkpoint_dir", str(run_dir)]
    proc = subprocess.Popen(
        _driver(tmp_path, *args, "--new"),
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for(lambda: len(list((run_dir / "checkpoints").glob("*.json"))) >= 2)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        proc.kill()
    before = _checkpoints(run_dir)
    assert 2 <= len(before) < len(EXPECTED)
    worker_pids = {int(p.read_text().split()[1]) for p in markers.iterdir()}

    def orphans_gone() -> bool:
        for pid in worker_pids:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                continue
            return False
        return True

    _wait_for(orphans_gone, timeout=10)  # workers notice their driver is gone and exit

    result = subprocess.run(
        _driver(tmp_path, *args), cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    rows = _rows(run_dir)
    assert [r["name"] for r in rows] == EXPECTED
    assert all(r["error"] is None and r["score"] == 1.0 for r in rows)
    after = _checkpoints(run_dir)
    for name, episode in before.items():  # finished episodes were kept, not run again
        assert after[name]["finish_dtime"] == episode["finish_dtime"]
    resumed = [line.split()[0] for line in init_log.read_text().splitlines()]
    assert len(resumed) <= len(EXPECTED) + 2  # at most the two in flight at the kill ran twice
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert len(manifest["parallel"]) == 2 and manifest["finished_at"]


@pytest.mark.slow
def test_a_device_that_goes_offline_restarts_its_worker_and_retries_the_episode(tmp_path):
    dead = tmp_path / "dead"
    dead.write_text("")
    run_dir = tmp_path / "run"
    result = subprocess.run(
        [
            *_driver(tmp_path, "--n_task_combinations", "2", "--workers", "2"),
            "--checkpoint_dir",
            str(run_dir),
            "--new",
            "--tasks",
            "FakeWifiOn",
        ],
        cwd=ROOT,
        env=_env(PARALLEL_DEAD_FILE=str(dead)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    rows = _rows(run_dir)
    assert [r["name"] for r in rows] == ["FakeWifiOn_0", "FakeWifiOn_1"]
    assert all(r["error"] is None for r in rows)
    (session,) = json.loads((run_dir / "manifest.json").read_text())["parallel"]
    assert (session["restarts"], session["retries"]) == (1, 1)
    assert "device lost" in result.stderr


def test_bad_worker_settings_are_one_line(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "android_world.harness.run", "--workers", "0"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: --workers: benchmark.workers: Input should be greater than or equal to 1 (got 0)"
    ]
    result = subprocess.run(
        [sys.executable, "-m", "android_world.harness.run", "--ray_address", "nowhere"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "expected auto, local, ray://host:port or host:port" in result.stderr


def test_without_ray_the_flag_says_how_to_install_it(tmp_path):
    blocker = tmp_path / "no_ray"
    (blocker / "ray").mkdir(parents=True)
    (blocker / "ray" / "__init__.py").write_text("raise ImportError('No module named ray')\n")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "android_world.harness.run",
            "--ray_address",
            "local",
            "--tasks",
            "SystemWifiTurnOn",
        ],
        cwd=ROOT,
        env=_env(PYTHONPATH=f"{blocker}{os.pathsep}{ROOT}"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install -r requirements-ray.txt" in lines[0], lines


@pytest.mark.parametrize("workers", ["2"])
@pytest.mark.slow
def test_sim_parallel_scores_and_steps_equal_the_serial_run(tmp_path, workers):
    """The real simulated phone and the default (offline) Celil: same seeds, same answers."""
    tasks = "ClockStopWatchRunning,ContactsAddContact,SystemWifiTurnOn,ExpenseAddSingle"
    results = {}
    for n in ("1", workers):
        run_dir = tmp_path / f"w{n}"
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "android_world.harness.run",
                "--tasks",
                tasks,
                "--workers",
                n,
                "--n_task_combinations",
                "2",
                "--checkpoint_dir",
                str(run_dir),
                "--new",
                "--set",
                "env.render=false",
                "--models",
                "offline",
            ],
            cwd=ROOT,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
        results[n] = [(r["name"], r["score"], r["steps"], r["error"]) for r in _rows(run_dir)]
    assert len(results["1"]) == 8
    assert results["1"] == results[workers]


def _sim(run_dir: Path, *extra: str, workers: str = "2") -> list[dict]:
    tasks = "SystemWifiTurnOn,ContactsAddContact"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "android_world.harness.run",
            "--tasks",
            tasks,
            "--workers",
            workers,
            "--n_task_combinations",
            "2",
            "--checkpoint_dir",
            str(run_dir),
            "--new",
            "--set",
            "env.render=false",
            "--models",
            "offline",
            *extra,
        ],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return _rows(run_dir)


def _memory(path: Path) -> list[str]:
    return sorted(e.goal_template for e in EpisodicMemory(path).entries(strict=True))


@pytest.mark.slow
def test_episodic_memory_with_several_writers_and_frozen(tmp_path):
    """shared: two workers extend one file and keep each other's plans (the same plans as a
    serial run stores); frozen: read by every worker, left byte for byte as it was."""
    key = "agent.configurations.celil_agent"
    serial = _sim(
        tmp_path / "serial",
        "--set",
        f"{key}.memory=shared",
        "--set",
        f"{key}.episodic_memory_path={tmp_path / 'serial.db'}",
        workers="1",
    )
    shared = _sim(
        tmp_path / "shared",
        "--set",
        f"{key}.memory=shared",
        "--set",
        f"{key}.episodic_memory_path={tmp_path / 'shared.db'}",
    )
    assert _memory(tmp_path / "shared.db") == _memory(tmp_path / "serial.db")
    assert len(_memory(tmp_path / "shared.db")) == 2
    same = ("name", "score", "steps", "memory_hit")
    assert [{k: r[k] for k in same} for r in shared] == [{k: r[k] for k in same} for r in serial]

    frozen = tmp_path / "shared.db"
    before = frozen.read_bytes()
    rows = _sim(
        tmp_path / "frozen",
        "--set",
        f"{key}.memory=frozen",
        "--set",
        f"{key}.episodic_memory_path={frozen}",
    )
    assert frozen.read_bytes() == before
    assert all(r["memory_hit"] is True and r["score"] == 1.0 for r in rows), rows


def _sigint_as_in_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_the_workers_at_once_and_says_how_to_resume(tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        [
            *_driver(tmp_path, "--n_task_combinations", "3", "--workers", "2"),
            "--checkpoint_dir",
            str(run_dir),
            "--new",
        ],
        cwd=ROOT,
        env=_env(FAKE_STEP_SLEEP="5", PARALLEL_MARKER_DIR=str(markers)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # As from a terminal: a shell without job control starts a background job (e.g. this
        # suite run as `./run_tests.sh &` in a script) with SIGINT ignored, children inherit
        # that, and Python then never raises KeyboardInterrupt, so the driver ran to the end.
        preexec_fn=_sigint_as_in_a_terminal,
    )
    try:
        _wait_for(lambda: len(list(markers.iterdir())) >= 2)  # both workers mid-episode
        pids = {int(p.read_text().split()[1]) for p in markers.iterdir()}
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert time.monotonic() - started < 4  # not after the 5 s actions finish
    assert f"Interrupted. Resume with: --checkpoint_dir {run_dir}" in err
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
