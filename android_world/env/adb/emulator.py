"""Optional: start an AVD headless for a run and stop it afterwards.

Upstream leaves the emulator to the user (issue #279); we start it only when `env.adb.emulator.avd`
is set and no device with our serial is online already, and we stop only what we started. Flags
follow upstream's headless launch: `-no-window -no-snapshot -no-boot-anim -grpc 8554`, plus
`-port <console_port>` so the serial is `emulator-<console_port>`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import subprocess
import tempfile
import time
from collections.abc import Callable

from android_world.env.adb.adb_runner import (
    AdbConfig,
    AdbError,
    AdbRunner,
    EmulatorConfig,
    parse_devices,
    resolve_sdk_tool,
)


def resolve_emulator_path(configured: str) -> str:
    return resolve_sdk_tool(configured, "emulator/emulator", "emulator")


def emulator_command(emulator: EmulatorConfig, console_port: int, emulator_path: str) -> list[str]:
    argv = [emulator_path, "-avd", emulator.avd]
    if emulator.headless:
        argv.append("-no-window")
    argv += ["-no-snapshot", "-no-boot-anim", "-port", str(console_port)]
    argv += ["-grpc", str(emulator.grpc_port), *emulator.extra_args]
    return argv


@dataclasses.dataclass
class EmulatorProcess:
    """An emulator we launched; `stop()` kills it through the console, then by pid."""

    process: subprocess.Popen[bytes]
    runner: AdbRunner
    log_path: str

    def log_tail(self, lines: int = 3) -> str:
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as handle:
                tail = [ln.strip() for ln in handle.read().splitlines() if ln.strip()]
        except OSError:
            return ""
        return " | ".join(tail[-lines:])

    def stop(self, timeout: float = 30.0) -> None:
        """Also deletes the log: errors have quoted its tail already, and each launch makes one."""
        try:
            self._stop_process(timeout)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(self.log_path)

    def _stop_process(self, timeout: float) -> None:
        if self.process.poll() is not None:
            return
        with contextlib.suppress(AdbError):
            self.runner.run(["emu", "kill"], check=False, timeout=10)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def _online(runner: AdbRunner) -> str | None:
    result = runner.run(["devices"], with_serial=False, check=False)
    return parse_devices(result.text).get(runner.serial)


def wait_for_boot(
    runner: AdbRunner,
    timeout: float,
    process: subprocess.Popen[bytes] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    describe_exit: Callable[[], str] = lambda: "",
) -> None:
    """Until `sys.boot_completed` is 1; AdbError on timeout or when the emulator process dies."""
    deadline = time.monotonic() + timeout
    while True:
        if process is not None and process.poll() is not None:
            raise AdbError(
                f"emulator exited with code {process.returncode} before booting "
                f"({describe_exit() or 'no output'}): run the same command by hand; check "
                "/dev/kvm access and that the AVD exists (`emulator -list-avds`)"
            )
        if _online(runner) == "device":
            result = runner.shell("getprop sys.boot_completed", check=False, timeout=10)
            if result.text.strip() == "1":
                return
        if time.monotonic() >= deadline:
            raise AdbError(
                f"{runner.serial} did not finish booting within {timeout:g}s: raise "
                "env.adb.emulator.boot_timeout_sec, or enable hardware acceleration (KVM)"
            )
        sleep(2.0)


def ensure_running(
    config: AdbConfig,
    runner: AdbRunner,
    sleep: Callable[[float], None] = time.sleep,
    popen: Callable[..., subprocess.Popen[bytes]] | None = None,
) -> EmulatorProcess | None:
    """Start the configured AVD unless our serial is already online; None when reused."""
    emulator = config.emulator
    if emulator is None or not emulator.avd:
        return None
    if _online(runner) == "device":
        return None
    path = resolve_emulator_path(emulator.emulator_path)
    argv = emulator_command(emulator, config.console_port, path)
    log_fd, log_path = tempfile.mkstemp(prefix=f"emulator-{config.console_port}-", suffix=".log")
    try:
        process = (popen or subprocess.Popen)(
            argv, stdout=log_fd, stderr=subprocess.STDOUT, start_new_session=True
        )
    except FileNotFoundError as exc:
        with contextlib.suppress(OSError):
            os.unlink(log_path)
        raise AdbError(
            f"emulator not found at {path}: install the Android Emulator (sdkmanager emulator) "
            "or set env.adb.emulator.emulator_path"
        ) from exc
    finally:
        os.close(log_fd)
    handle = EmulatorProcess(process, runner, log_path)
    try:
        wait_for_boot(runner, emulator.boot_timeout_sec, process, sleep, handle.log_tail)
    except BaseException:
        handle.stop(timeout=10)
        raise
    return handle
