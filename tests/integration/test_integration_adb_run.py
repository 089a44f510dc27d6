"""`--env adb`, `--check_device` and `--check_models` through the real command line.

The device is the fake `adb` executable serving the simulated phone (see tests/env/test_adb_e2e_sim.py),
so the run goes through subprocess calls to an `adb` binary exactly as on a real emulator.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.fake_adb import FakeAdbServer, FakeDevice
from support.fake_adb.sim_phone import SimPhone

from android_world.env.sim.sim_env import SimEnv
from android_world.harness.check_models import EXIT_NO_MODEL

ROOT = Path(__file__).resolve().parents[2]
_KEY_VARS = ("GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _KEY_VARS}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["OLLAMA_HOST"] = "http://127.0.0.1:9"  # nothing listens: auto resolution goes offline
    return env


def _run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "android_world.harness.run",
            "--config",
            "config/default.yaml",
            *args,
        ],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _sim_device() -> FakeDevice:
    return FakeDevice(SimPhone(SimEnv(seed=0, render=False)))


@pytest.mark.slow
def test_an_adb_error_fails_its_episode_and_the_run_goes_on(tmp_path):
    fake = _sim_device()
    failed = []

    def handler(argv: list[str], stdin: bytes) -> tuple[int, bytes, bytes, float]:
        if not failed and "screencap" in " ".join(argv):  # the first screenshot of the run
            failed.append(argv)
            return 0, b"", b"", 0.0
        return fake.handle(argv, stdin)

    with FakeAdbServer(handler) as server:
        result = _run(
            "--env",
            "adb",
            "--agent",
            "oracle_agent",
            "--tasks",
            "SystemWifiTurnOff,SystemWifiTurnOn",
            "--output_path",
            str(tmp_path),
            "--set",
            f"env.adb.adb_path={server.adb_path}",
        )
    assert result.returncode == 0, result.stderr
    [run_dir] = tmp_path.iterdir()
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert [r["name"] for r in rows] == ["SystemWifiTurnOff_0", "SystemWifiTurnOn_0"]
    assert rows[0]["score"] is None and "screencap failed on emulator-5554" in rows[0]["error"]
    assert rows[1]["error"] is None and rows[1]["score"] == 1.0
    assert fake.phone.controller.get_setting("global", "wifi_on") == "1"
    assert (run_dir / "episodes" / "SystemWifiTurnOn_0" / "step_000.png").is_file()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["env"]["type"] == "adb"
    assert manifest["env"]["adb"]["serial"] == "emulator-5554"


def test_a_device_that_is_not_there_is_one_line_and_no_run_dir(tmp_path):
    fake = _sim_device()
    fake.state = None  # not listed by `adb devices`
    with FakeAdbServer(fake.handle) as server:
        result = _run(
            "--env",
            "adb",
            "--console_port",
            "5556",
            "--output_path",
            str(tmp_path),
            "--set",
            f"env.adb.adb_path={server.adb_path}",
        )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --env adb: "), result.stderr
    assert "emulator-5556" in lines[0] and "Traceback" not in result.stderr
    assert not list(tmp_path.iterdir())


def test_check_device_and_check_models_exit_with_their_result():
    """Both checks in one process (the worst code wins: with every role offline there is no
    model to check, EXIT_NO_MODEL); the failing cases of each are covered by
    tests/env/test_adb_check_device.py and tests/models/test_models_check.py."""
    fake = _sim_device()
    with FakeAdbServer(fake.handle) as server:
        ready = _run(
            "--check_device",
            "--check_models",
            "--models",
            "offline",
            "--set",
            f"env.adb.adb_path={server.adb_path}",
        )
    assert ready.returncode == EXIT_NO_MODEL, ready.stdout + ready.stderr
    assert "device ready" in ready.stdout and "no model" in ready.stdout
    for role in ("maestro", "section_leader", "verifiers"):
        assert f"{role}: offline" in ready.stdout  # --models offline reached every role
    assert "SKIP" in ready.stdout and "Run directory" not in ready.stdout


def test_check_device_fails_with_exit_1_when_the_device_refuses():
    fake = _sim_device()
    fake.state = "unauthorized"
    with FakeAdbServer(fake.handle) as server:
        refused = _run("--check_device", "--set", f"env.adb.adb_path={server.adb_path}")
    assert refused.returncode == 1 and "FAIL" in refused.stdout


def test_a_free_goal_runs_on_the_device_over_adb_unscored(tmp_path):
    """`--goal` with `--env adb`: the configured agent acts on the device; nothing scores it."""
    fake = _sim_device()
    fake.phone.controller.put_setting("global", "wifi_on", "0")
    with FakeAdbServer(fake.handle) as server:
        result = _run(
            "--env",
            "adb",
            "--goal",
            "Turn wifi on",
            "--nolive",
            "--output_path",
            str(tmp_path),
            "--set",
            f"env.adb.adb_path={server.adb_path}",
        )
    assert result.returncode == 0, result.stderr
    assert "unscored (no task check)" in result.stdout + result.stderr
    [run_dir] = tmp_path.iterdir()
    [row] = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert row["scored"] is False and row["score"] is None and row["steps"] >= 1
    assert row["claimed"] == "complete"
    assert fake.phone.controller.get_setting("global", "wifi_on") == "1"
