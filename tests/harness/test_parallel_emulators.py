"""The emulator pool with several fake devices at once: `--env adb --workers 3` with an AVD starts
three headless emulators on distinct console and gRPC ports (read-only instances of one AVD),
runs real tasks on them over AdbEnv, restarts one that crashes mid-run (its episode retried), and
stops them all at the end. Also: per-worker AVD copies."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.fake_adb import FakeAdbServer
from support.fake_adb.fleet import FakeFleet, write_emulator

from android_world.env.adb import emulator_pool

ROOT = Path(__file__).resolve().parents[2]
TASKS = "SystemBluetoothTurnOff,SystemWifiTurnOn,SystemBrightnessMax"


def _argv(server: FakeAdbServer, emulator: str, run_dir: Path, workers: int = 3) -> list[str]:
    return [
        sys.executable,
        "-m",
        "android_world.harness.run",
        "--env",
        "adb",
        "--agent",
        "oracle_agent",
        "--tasks",
        TASKS,
        "--n_task_combinations",
        "2",
        "--workers",
        str(workers),
        "--checkpoint_dir",
        str(run_dir),
        "--new",
        "--set",
        f"env.adb.adb_path={server.adb_path}",
        "--set",
        "env.adb.emulator.avd=AndroidWorldAvd",
        "--set",
        f"env.adb.emulator.emulator_path={emulator}",
        "--set",
        "env.adb.emulator.boot_timeout_sec=60",
        "--set",
        "benchmark.save_screenshots=false",
    ]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


EXPECTED = sorted(f"{t}_{i}" for t in TASKS.split(",") for i in range(2))


def _wait_gone(fleet: FakeFleet, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while any(d.state for d in fleet.devices.values()) and time.monotonic() < deadline:
        time.sleep(0.1)


@pytest.mark.slow
def test_three_emulators_on_distinct_ports_run_the_suite_and_are_stopped(tmp_path):
    fleet = FakeFleet()
    with FakeAdbServer(fleet.handle) as server:
        emulator = write_emulator(str(tmp_path), server.adb_path)
        result = subprocess.run(
            _argv(server, emulator, tmp_path / "run"),
            cwd=ROOT,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        _wait_gone(fleet)
    assert result.returncode == 0, result.stderr
    rows = _rows(tmp_path / "run")
    assert [r["name"] for r in rows] == EXPECTED
    assert all(r["error"] is None and r["score"] == 1.0 for r in rows), rows
    boots = sorted(fleet.boots, key=lambda b: b.serial)
    assert [b.serial for b in boots] == ["emulator-5554", "emulator-5556", "emulator-5558"]
    assert [b.value("-grpc") for b in boots] == ["8554", "8555", "8556"]
    assert all(b.value("-avd") == "AndroidWorldAvd" and "-read-only" in b.args for b in boots)
    assert all("-no-window" in b.args for b in boots)  # headless
    assert sorted(fleet.kills) == [b.serial for b in boots]  # every emulator stopped at the end
    assert not any(d.state for d in fleet.devices.values())


@pytest.mark.slow
def test_an_emulator_that_crashes_mid_run_is_restarted_and_its_episode_retried(tmp_path):
    fleet = FakeFleet()
    run_dir = tmp_path / "run"
    with FakeAdbServer(fleet.handle) as server:
        emulator = write_emulator(str(tmp_path), server.adb_path)
        proc = subprocess.Popen(
            _argv(server, emulator, run_dir, workers=2),
            cwd=ROOT,
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 120
            while True:  # the first action on emulator-5556: it is mid-episode
                device = fleet.devices.get("emulator-5556")
                if device is not None and any(c.startswith("input") for c in device.shell_log):
                    break
                assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
                time.sleep(0.02)
            fleet.kill("emulator-5556")
            _, err = proc.communicate(timeout=300)
        finally:
            proc.kill()
        _wait_gone(fleet)
    assert proc.returncode == 0, err
    rows = _rows(run_dir)
    assert [r["name"] for r in rows] == EXPECTED  # nothing lost, nothing twice
    assert all(r["error"] is None and r["score"] == 1.0 for r in rows), rows
    assert [b.serial for b in fleet.boots].count("emulator-5556") == 2  # booted again
    (session,) = json.loads((run_dir / "manifest.json").read_text())["parallel"]
    assert (session["restarts"], session["retries"]) == (1, 1)
    assert not any(d.state for d in fleet.devices.values())


def test_bad_pool_settings_are_one_line(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "android_world.harness.run",
            "--env",
            "adb",
            "--workers",
            "2",
            "--set",
            "env.adb.serials=[emulator-5554]",
        ],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: --workers 2 needs 2 devices but env.adb.serials lists 1: add serials or lower "
        "--workers"
    ]


# ---- AVD copies ---------------------------------------------------------------------------------


def _avd(home: Path, name: str) -> None:
    folder = home / f"{name}.avd"
    folder.mkdir(parents=True)
    (folder / "config.ini").write_text(f"AvdId={name}\navd.ini.displayname={name}\nhw.ram=2048\n")
    (folder / "userdata-qemu.img").write_bytes(b"data")
    (folder / "multiinstance.lock").write_text("")
    (home / f"{name}.ini").write_text(
        f"avd.ini.encoding=UTF-8\npath={folder}\npath.rel=avd/{name}.avd\n"
    )


def test_clone_avd_copies_data_and_points_the_copy_at_itself(tmp_path):
    _avd(tmp_path, "Base")
    names = emulator_pool.prepare_clones("Base", 2, lambda avd, i: f"{avd}_w{i}", tmp_path)
    assert names == ["Base_w0", "Base_w1"]
    ini = (tmp_path / "Base_w1.ini").read_text()
    assert f"path={tmp_path / 'Base_w1.avd'}" in ini and "path.rel=avd/Base_w1.avd" in ini
    copy = tmp_path / "Base_w1.avd"
    assert (copy / "userdata-qemu.img").read_bytes() == b"data"
    assert not (copy / "multiinstance.lock").exists()  # a running emulator's lock is not copied
    assert "AvdId=Base_w1" in (copy / "config.ini").read_text()
    (copy / "userdata-qemu.img").write_bytes(b"changed")
    assert emulator_pool.clone_avd("Base", "Base_w1", tmp_path) is False  # kept as it is
    assert (copy / "userdata-qemu.img").read_bytes() == b"changed"


def test_clone_of_a_missing_avd_is_a_clear_error(tmp_path):
    with pytest.raises(emulator_pool.AvdCloneError, match="AVD 'Nope' not found"):
        emulator_pool.clone_avd("Nope", "Nope_w0", tmp_path)


def test_avd_home_follows_the_sdk_variables(tmp_path):
    assert emulator_pool.avd_home({"ANDROID_AVD_HOME": "/a"}) == Path("/a")
    assert emulator_pool.avd_home({"ANDROID_USER_HOME": "/u"}) == Path("/u/avd")
    assert emulator_pool.avd_home({"HOME": "/h"}) == Path("/h/.android/avd")
