"""`check_device` readiness table, and the optional emulator launch."""

from __future__ import annotations

import os

import pytest
from support.fake_adb import in_process_runner, recording_device

from android_world.env.adb import AdbEnv, AdbError, emulator
from android_world.env.adb.adb_runner import AdbConfig, AdbRunner, EmulatorConfig
from android_world.env.adb.check_device import check_device


def run_check(**knobs) -> tuple[int, str]:
    fake = recording_device(**knobs)
    lines: list[str] = []
    code = check_device({}, log=lines.append, runner=in_process_runner(fake))
    return code, "\n".join(lines)


def row(table: str, name: str) -> str:
    return next(line for line in table.splitlines() if line.startswith(name))


def test_ready_device_passes_everything():
    code, table = run_check()
    assert code == 0
    for name in ("adb found", "device", "screencap", "uiautomator", "root", "screen size"):
        assert "pass" in row(table, name), table
    assert "1080x2400" in row(table, "screen size")
    assert table.endswith("device ready")


def test_missing_root_is_a_warning_with_the_fix():
    code, table = run_check(root=False, root_allowed=False)
    assert code == 0
    assert "warn" in row(table, "root") and "`adb root`" in row(table, "root")


@pytest.mark.parametrize(
    ("state", "fix"),
    [
        ("unauthorized", "accept the USB debugging prompt"),
        ("offline", "reconnect offline"),
        ("no permissions", "udev rule"),
        (None, "not found"),
    ],
)
def test_device_problems_fail_and_skip_the_rest(state, fix):
    code, table = run_check(state=state)
    assert code == 1
    assert "FAIL" in row(table, "device") and fix in row(table, "device")
    assert "skip" in row(table, "screencap") and "skip" in row(table, "uiautomator")


def test_missing_adb(tmp_path):
    lines: list[str] = []
    code = check_device({"adb_path": str(tmp_path / "nope" / "adb")}, log=lines.append)
    assert code == 1
    table = "\n".join(lines)
    assert "FAIL" in row(table, "adb found") and "install Android platform-tools" in table
    assert "skip" in row(table, "device")


def test_screencap_and_uiautomator_failures():
    code, table = run_check(
        screencap_error="Capturing screen failed",
        uiautomator_outputs=["ERROR: could not get idle state.\n"],
    )
    assert code == 1
    assert "FAIL" in row(table, "screencap") and "KEYCODE_WAKEUP" in row(table, "screencap")
    assert "FAIL" in row(table, "uiautomator") and "retry" in row(table, "uiautomator")
    assert "pass" in row(table, "root")


def test_unusual_screen_size_warns():
    code, table = run_check(override_size=(720, 1600))
    assert code == 0
    assert "warn" in row(table, "screen size") and "override 720x1600" in row(table, "screen size")


# ---- emulator ---------------------------------------------------------------------------------


def test_emulator_command_uses_upstream_flags():
    cfg = EmulatorConfig(avd="AndroidWorldAvd", extra_args=("-memory", "2048"))
    assert emulator.emulator_command(cfg, 5556, "/sdk/emulator/emulator") == [
        "/sdk/emulator/emulator",
        "-avd",
        "AndroidWorldAvd",
        "-no-window",
        "-no-snapshot",
        "-no-boot-anim",
        "-port",
        "5556",
        "-grpc",
        "8554",
        "-memory",
        "2048",
    ]
    windowed = emulator.emulator_command(EmulatorConfig(avd="a", headless=False), 5554, "e")
    assert "-no-window" not in windowed


class FakeProcess:
    def __init__(self, exit_code: int | None = None):
        self.returncode = exit_code

    def poll(self):
        return self.returncode

    def wait(self, timeout=None):
        if self.returncode is None:
            self.returncode = 0
        return self.returncode

    def terminate(self):
        self.returncode = -15

    def kill(self):
        self.returncode = -9


def _config(**emu) -> AdbConfig:
    return AdbConfig(emulator=EmulatorConfig(avd="AndroidWorldAvd", emulator_path="/e", **emu))


def test_running_device_is_reused_not_launched():
    fake = recording_device()
    launched = []
    result = emulator.ensure_running(
        _config(), in_process_runner(fake), popen=lambda *a, **k: launched.append(a)
    )
    assert result is None and launched == []


def test_launch_waits_for_boot_and_stops_with_emu_kill():
    fake = recording_device(state=None)
    processes = []

    def popen(argv, **kwargs):
        assert argv[:3] == ["/e", "-avd", "AndroidWorldAvd"]
        fake.state = "device"  # the emulator shows up in `adb devices`
        processes.append(FakeProcess())
        return processes[0]

    handle = emulator.ensure_running(
        _config(), in_process_runner(fake), sleep=lambda _: None, popen=popen
    )
    assert handle is not None
    assert "-s emulator-5554 shell getprop sys.boot_completed" in fake.adb_log
    assert os.path.exists(handle.log_path)
    handle.stop()
    assert "-s emulator-5554 emu kill" in fake.adb_log
    assert fake.state is None and processes[0].returncode == 0
    assert not os.path.exists(handle.log_path)  # one log per launch must not pile up in /tmp


def test_emulator_that_dies_reports_its_log():
    fake = recording_device(state=None)

    logs = []

    def popen(argv, stdout, **kwargs):
        os.write(stdout, b"INFO: starting\nPANIC: Missing emulator engine program for 'x86' CPU.\n")
        logs.append(os.readlink(f"/proc/self/fd/{stdout}"))
        return FakeProcess(exit_code=1)

    with pytest.raises(AdbError) as info:
        emulator.ensure_running(
            _config(), in_process_runner(fake), sleep=lambda _: None, popen=popen
        )
    message = str(info.value)
    assert "emulator exited with code 1" in message and "PANIC: Missing emulator engine" in message
    assert "/dev/kvm" in message and "\n" not in message
    assert logs and not os.path.exists(logs[0])  # its tail is in the message; the file is gone


def test_boot_timeout():
    fake = recording_device(state=None)
    process = FakeProcess()

    def popen(argv, **kwargs):
        fake.state = "offline"
        return process

    with pytest.raises(AdbError, match="did not finish booting within 0s"):
        emulator.ensure_running(
            _config(boot_timeout_sec=0), in_process_runner(fake), sleep=lambda _: None, popen=popen
        )
    assert process.returncode is not None  # the half-started emulator is not left behind


def test_missing_emulator_binary(tmp_path):
    fake = recording_device(state=None)
    cfg = AdbConfig(emulator=EmulatorConfig(avd="a", emulator_path=str(tmp_path / "no-emulator")))
    with pytest.raises(
        AdbError, match=r"emulator not found at .*env\.adb\.emulator\.emulator_path"
    ):
        emulator.ensure_running(cfg, in_process_runner(fake), sleep=lambda _: None)


def test_adb_env_starts_and_stops_the_emulator(monkeypatch):
    fake = recording_device(state=None)
    process = FakeProcess()

    def popen(argv, **kwargs):
        fake.state = "device"
        return process

    monkeypatch.setattr(emulator.subprocess, "Popen", popen)
    runner: AdbRunner = in_process_runner(fake)
    env = AdbEnv(
        {"emulator": {"avd": "AndroidWorldAvd", "emulator_path": "/e"}},
        runner=runner,
        sleep=lambda _: None,
    )
    assert env.get_state().pixels.shape == (2400, 1080, 3)
    env.close()
    assert "-s emulator-5554 emu kill" in fake.adb_log and fake.state is None
    env.close()  # a second close is harmless
    assert process.returncode == 0


def test_adb_env_stops_the_emulator_it_started_when_the_connection_check_fails(monkeypatch):
    fake = recording_device(state=None)
    process = FakeProcess()

    def popen(argv, **kwargs):
        fake.state = "device"
        return process

    def refuse(self):
        raise AdbError("device emulator-5554 unauthorized: accept the USB debugging prompt")

    monkeypatch.setattr(emulator.subprocess, "Popen", popen)
    monkeypatch.setattr(AdbEnv, "check_connection", refuse)
    with pytest.raises(AdbError, match="unauthorized"):
        AdbEnv(
            {"emulator": {"avd": "AndroidWorldAvd", "emulator_path": "/e"}},
            runner=in_process_runner(fake),
            sleep=lambda _: None,
        )
    assert "-s emulator-5554 emu kill" in fake.adb_log and fake.state is None
