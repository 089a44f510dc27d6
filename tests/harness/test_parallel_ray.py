"""`--ray_address`: the same workers as Ray actors on a local Ray cluster this test starts (2 CPUs),
including an actor killed mid-episode (`ray.kill`): restarted, its episode retried once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ray = pytest.importorskip(
    "ray", reason="Ray is not installed (pip install -r requirements-ray.txt)"
)

ROOT = Path(__file__).resolve().parents[2]
TESTS = Path(__file__).resolve().parents[1]

DRIVER = """
import sys
import parallel_fakes
from android_world.harness import run
run.task_registry = lambda family: dict(parallel_fakes.TASKS)
if __name__ == "__main__":
    run.make_env = parallel_fakes.make_env
    run.run_cli(sys.argv)
"""


@pytest.fixture(scope="module")
def cluster():
    path = os.pathsep.join([str(ROOT), str(TESTS)])
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": path}},
    )
    yield
    ray.shutdown()


def _run(tmp_path: Path, run_dir: Path, markers: Path, sleep: str) -> subprocess.Popen:
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    env = dict(os.environ)
    # The driver scripts import the fakes in tests/ (pytest's pythonpath does not reach a child).
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(TESTS), env.get("PYTHONPATH", "")])
    env.update(FAKE_STEP_SLEEP=sleep, PARALLEL_MARKER_DIR=str(markers))
    env["CELIL_RAY_ENV"] = "FAKE_STEP_SLEEP,PARALLEL_MARKER_DIR"  # actors get these too
    argv = [sys.executable, str(script), "--config", str(ROOT / "config" / "default.yaml")]
    argv += ["--agent", "oracle_agent", "--n_task_combinations", "2", "--workers", "2"]
    argv += ["--ray_address", "auto", "--checkpoint_dir", str(run_dir), "--new"]
    return subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


EXPECTED = ["FakeAnswer_0", "FakeAnswer_1", "FakeWifiOn_0", "FakeWifiOn_1"]


@pytest.mark.slow
def test_ray_actor_killed_mid_episode_is_replaced_and_the_episode_retried(cluster, tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    run_dir = tmp_path / "run"
    proc = _run(tmp_path, run_dir, markers, sleep="1.5")
    try:
        deadline = time.monotonic() + 120
        while not any(markers.iterdir()):
            assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
            time.sleep(0.05)
        worker = next(markers.iterdir()).read_text().split()[0]  # e.g. celil-run-w0
        (name,) = [
            a["name"]
            for a in ray.util.list_named_actors(all_namespaces=True)
            if a["name"].startswith(worker + "-g")
        ]
        ray.kill(ray.get_actor(name, namespace="celil"))  # its episode's action is sleeping
        _, err = proc.communicate(timeout=180)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    rows = _rows(run_dir)
    assert [r["name"] for r in rows] == EXPECTED  # nothing lost, nothing twice
    assert all(r["error"] is None and r["score"] == 1.0 for r in rows), rows
    (session,) = json.loads((run_dir / "manifest.json").read_text())["parallel"]
    assert session["backend"] == "ray"
    assert (session["restarts"], session["retries"], session["gave_up"]) == (1, 1, [])
    assert "Ray actor died" in err
