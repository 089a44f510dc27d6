"""adb runner: config, adb's error text, device states, and failures to run at all."""

from __future__ import annotations

import os
import subprocess

import pytest

from android_world.env import device
from android_world.env.adb import adb_runner
from android_world.env.adb.adb_runner import AdbConfig, AdbError, AdbRunner


def test_config_defaults_and_serial():
    cfg = AdbConfig.from_mapping(None)
    assert cfg.resolved_serial == "emulator-5554"
    assert AdbConfig.from_mapping({"console_port": 5556}).resolved_serial == "emulator-5556"
    assert (
        AdbConfig.from_mapping({"serial": "R58M", "console_port": 5556}).resolved_serial == "R58M"
    )
    assert cfg.emulator is None


def test_config_emulator_section():
    cfg = AdbConfig.from_mapping(
        {"emulator": {"avd": "AndroidWorldAvd", "extra_args": "-memory 2048 -gpu off"}}
    )
    assert cfg.emulator is not None
    assert cfg.emulator.avd == "AndroidWorldAvd"
    assert cfg.emulator.extra_args == ("-memory", "2048", "-gpu", "off")
    assert cfg.emulator.grpc_port == 8554
    assert AdbConfig.from_mapping({"emulator": {"avd": ""}}).emulator is None


def test_config_unknown_keys_name_the_path():
    with pytest.raises(ValueError, match=r"env\.adb\.serail"):
        AdbConfig.from_mapping({"serail": "x"})
    with pytest.raises(ValueError, match=r"env\.adb\.emulator\.avd_name"):
        AdbConfig.from_mapping({"emulator": {"avd_name": "x"}})
    with pytest.raises(ValueError, match="timeout_sec"):
        AdbConfig.from_mapping({"timeout_sec": 0})


def test_adb_error_is_a_device_error():
    assert issubclass(AdbError, device.DeviceError)


def test_resolve_adb_path(tmp_path):
    assert adb_runner.resolve_adb_path("~/x/adb") == os.path.expanduser("~/x/adb")
    sdk = tmp_path / "sdk"
    (sdk / "platform-tools").mkdir(parents=True)
    (sdk / "platform-tools" / "adb").write_text("")
    found = adb_runner.resolve_sdk_tool(
        "", "platform-tools/adb", "adb", {"ANDROID_HOME": str(sdk)}, which=lambda _: None
    )
    assert found == str(sdk / "platform-tools" / "adb")
    fallback = adb_runner.resolve_sdk_tool(
        "", "platform-tools/nothing-here", "adb", {}, which=lambda _: "/usr/bin/adb"
    )
    assert fallback == "/usr/bin/adb"


DEVICES = """List of devices attached
emulator-5554\tdevice
emulator-5556\toffline
R58M123\tunauthorized
0123456789\tno permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html]
* daemon started successfully

"""


def test_parse_devices_states():
    assert adb_runner.parse_devices(DEVICES) == {
        "emulator-5554": "device",
        "emulator-5556": "offline",
        "R58M123": "unauthorized",
        "0123456789": "no permissions",
    }
    assert adb_runner.parse_devices("List of devices attached\n\n") == {}


@pytest.mark.parametrize(
    ("serial", "fragment"),
    [
        ("emulator-5556", "offline"),
        ("R58M123", "accept the USB debugging prompt"),
        ("0123456789", "udev rule"),
        ("emulator-5558", "not found (adb devices lists: emulator-5554 (device)"),
    ],
)
def test_device_state_problem(serial, fragment):
    problem = adb_runner.device_state_problem(adb_runner.parse_devices(DEVICES), serial)
    assert problem is not None and fragment in problem and "\n" not in problem
    assert (
        adb_runner.device_state_problem(adb_runner.parse_devices(DEVICES), "emulator-5554") is None
    )


@pytest.mark.parametrize(
    ("stderr", "fragment"),
    [
        (
            "adb: device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set",
            "unauthorized",
        ),
        ("adb: device offline", "offline"),
        ("error: device 'emulator-5554' not found", "not found"),
        ("adb: no devices/emulators found", "not found"),
        ("adb: more than one device/emulator", "env.adb.serial"),
        ("adb: insufficient permissions for device: user in plugdev group", "udev"),
        ("* cannot connect to daemon at tcp:5037: Connection refused", "adb kill-server"),
    ],
)
def test_diagnose_failure(stderr, fragment):
    message = adb_runner.diagnose_failure(stderr, "emulator-5554")
    assert message is not None and fragment in message and "\n" not in message


def test_diagnose_ignores_ordinary_command_errors():
    assert adb_runner.diagnose_failure("ls: /x: No such file or directory", "s") is None


def _fake_run(exc=None, rc=0, out=b"", err=b""):
    calls = []

    def run(argv, **kwargs):
        calls.append((argv, kwargs))
        if exc is not None:
            raise exc
        return subprocess.CompletedProcess(argv, rc, out, err)

    return run, calls


def test_runner_builds_argv_with_serial_and_timeout():
    run, calls = _fake_run(out=b"ok")
    runner = AdbRunner("/opt/adb", "emulator-5554", timeout_sec=7, run=run)
    assert runner.shell("echo ok").text == "ok"
    argv, kwargs = calls[0]
    assert argv == ["/opt/adb", "-s", "emulator-5554", "shell", "echo ok"]
    assert kwargs["timeout"] == 7 and kwargs["capture_output"]
    runner.run(["devices"], with_serial=False)
    assert calls[1][0] == ["/opt/adb", "devices"]


def test_missing_adb_names_the_fix():
    run, _ = _fake_run(exc=FileNotFoundError("adb"))
    with pytest.raises(AdbError, match=r"adb not found at /nope/adb: install .*env\.adb\.adb_path"):
        AdbRunner("/nope/adb", "s", run=run).shell("true")


def test_not_executable_adb():
    run, _ = _fake_run(exc=PermissionError("adb"))
    with pytest.raises(AdbError, match="not executable"):
        AdbRunner("/x/adb", "s", run=run).shell("true")


def test_timeout_names_the_fix():
    run, _ = _fake_run(exc=subprocess.TimeoutExpired(["adb"], 3))
    with pytest.raises(AdbError, match=r"timed out after 3s on emu.*reconnect"):
        AdbRunner("/x/adb", "emu", timeout_sec=3, run=run).shell("uiautomator dump")


def test_failed_command_reports_its_first_line():
    run, _ = _fake_run(rc=1, err=b"\nls: /x: No such file or directory\nmore\n")
    with pytest.raises(AdbError) as info:
        AdbRunner("/x/adb", "emu", run=run).shell("ls /x")
    assert (
        str(info.value)
        == "`adb shell ls /x` failed on emu (exit 1): ls: /x: No such file or directory"
    )
    assert AdbRunner("/x/adb", "emu", run=run).shell("ls /x", check=False).returncode == 1


def test_adb_own_errors_raise_even_unchecked():
    run, _ = _fake_run(rc=1, err=b"adb: device offline\n")
    with pytest.raises(AdbError, match="offline"):
        AdbRunner("/x/adb", "emu", run=run).shell("ls", check=False)


def test_device_command_text_is_not_mistaken_for_adb_errors():
    run, _ = _fake_run(rc=1, err=b"Error: no such table: offline_device not found\n")
    with pytest.raises(AdbError, match=r"failed on emu \(exit 1\): Error: no such table"):
        AdbRunner("/x/adb", "emu", run=run).shell("sqlite3 db 'select'")
