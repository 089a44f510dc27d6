"""Running the `adb` binary, and turning every way it fails into one line that names the fix.

Everything that talks to a device goes through `AdbRunner`, so timeouts, the serial and the error
wording live in one place. The runner records an episode as failed with `AdbError`'s message and
moves on, so each message must say what to do, not only what happened.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from android_world.env import device


class AdbError(device.DeviceError):
    """adb or the device failed; the message is one line naming the fix."""


class UntypeableTextError(AdbError, ValueError):
    """`input text` cannot type these characters; a ValueError too, because it is a bad action."""


DEFAULT_CONSOLE_PORT = 5554

# Where Android Studio and the command-line tools put adb, in the order we look.
_SDK_ENV_VARS = ("ANDROID_HOME", "ANDROID_SDK_ROOT")
_SDK_DIRS = ("~/Android/Sdk", "~/Library/Android/sdk")


@dataclasses.dataclass(frozen=True)
class EmulatorConfig:
    """`env.adb.emulator`: start this AVD headless when no device with our serial is online."""

    avd: str = ""
    emulator_path: str = ""
    grpc_port: int = 8554
    extra_args: tuple[str, ...] = ()
    boot_timeout_sec: float = 300.0
    headless: bool = True


@dataclasses.dataclass(frozen=True)
class AdbConfig:
    """`env.adb` from config/default.yaml; see `from_mapping` for the accepted keys."""

    adb_path: str = ""
    serial: str = ""
    console_port: int = DEFAULT_CONSOLE_PORT
    timeout_sec: float = 30.0
    auto_root: bool = True
    uiautomator_retries: int = 5
    emulator: EmulatorConfig | None = None

    @property
    def resolved_serial(self) -> str:
        return self.serial or f"emulator-{self.console_port}"

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None, where: str = "env.adb") -> AdbConfig:
        """Build from a plain dict (the YAML section); an unknown key is a one-line ValueError."""
        values = dict(values or {})
        known = {f.name for f in dataclasses.fields(cls)}
        for key in values:
            if key not in known:
                raise ValueError(
                    f"unknown config key {where}.{key}: expected one of {sorted(known)}"
                )
        emulator_values = values.pop("emulator", None)
        emulator = None
        if emulator_values:
            emu_known = {f.name for f in dataclasses.fields(EmulatorConfig)}
            for key in emulator_values:
                if key not in emu_known:
                    raise ValueError(
                        f"unknown config key {where}.emulator.{key}: expected one of "
                        f"{sorted(emu_known)}"
                    )
            emu = dict(emulator_values)
            if "extra_args" in emu:
                extra = emu["extra_args"]
                emu["extra_args"] = tuple(shlex.split(extra) if isinstance(extra, str) else extra)
            emulator = EmulatorConfig(**emu)
            if not emulator.avd:
                emulator = None
        cfg = cls(**values, emulator=emulator)
        if cfg.timeout_sec <= 0:
            raise ValueError(f"{where}.timeout_sec must be > 0, got {cfg.timeout_sec}")
        return cfg


def resolve_sdk_tool(
    configured: str,
    relative: str,
    name: str,
    environ: Mapping[str, str] | None = None,
    which: Callable[[str], str | None] = shutil.which,
) -> str:
    """The tool's path: the configured one, else the SDK folders, else PATH; the name as a last resort.

    Returning the bare name when nothing is found lets the first call fail with the install hint.
    """
    if configured:
        return os.path.expanduser(configured)
    environ = os.environ if environ is None else environ
    candidates = [Path(environ[var]) / relative for var in _SDK_ENV_VARS if environ.get(var)]
    candidates += [Path(os.path.expanduser(d)) / relative for d in _SDK_DIRS]
    for candidate in candidates:
        if candidate.is_file():
            return str(candidate)
    return which(name) or name


def resolve_adb_path(configured: str, environ: Mapping[str, str] | None = None) -> str:
    return resolve_sdk_tool(configured, "platform-tools/adb", "adb", environ)


# ---------------------------------------------------------------------------------------------
# error diagnosis (pure)


def diagnose_failure(output: str, serial: str) -> str | None:
    """Map adb's own error text to a one-line message with the fix; None if it is not adb's."""
    text = output.lower()
    if "unauthorized" in text:
        return (
            f"device {serial} unauthorized: accept the USB debugging prompt on the device "
            "(or revoke authorisations there and reconnect)"
        )
    if "no permissions" in text or "insufficient permissions" in text:
        return (
            f"no permissions for device {serial}: add a udev rule for it and put your user in "
            "the plugdev group, or restart the server with `adb kill-server && sudo adb start-server`"
        )
    if "offline" in text and ("device" in text or "error" in text):
        return (
            f"device {serial} offline: wait for it to finish booting, or run "
            f"`adb -s {serial} reconnect offline` / restart the emulator"
        )
    if "more than one device" in text:
        return "more than one device connected: set env.adb.serial to one listed by `adb devices`"
    if (
        f"device '{serial.lower()}' not found" in text
        or "no devices/emulators found" in text
        or "device not found" in text
    ):
        return (
            f"device {serial} not found: start the emulator (or set env.adb.emulator.avd to have "
            "it started), or set env.adb.serial to one listed by `adb devices`"
        )
    if "cannot connect to daemon" in text or "failed to start daemon" in text:
        return (
            "adb server could not start: run `adb kill-server && adb start-server` "
            "(is another adb version holding port 5037?)"
        )
    if "protocol fault" in text or "connection reset" in text:
        return f"adb connection to {serial} dropped: run `adb -s {serial} reconnect` and retry"
    return None


def parse_devices(output: str) -> dict[str, str]:
    """`adb devices` -> {serial: state}; states: device, unauthorized, offline, no permissions..."""
    devices: dict[str, str] = {}
    for line in output.splitlines():
        line = line.strip()
        if not line or line.startswith("List of devices") or line.startswith("*"):
            continue
        parts = line.split(None, 1)
        if len(parts) != 2:
            continue
        serial, rest = parts
        state = rest.strip()
        if state.startswith("no permissions"):
            state = "no permissions"
        else:
            state = state.split()[0]
        devices[serial] = state
    return devices


def device_state_problem(devices: Mapping[str, str], serial: str) -> str | None:
    """Why this serial cannot be used, from `adb devices`; None when it is ready."""
    state = devices.get(serial)
    if state == "device":
        return None
    if state is None:
        listed = ", ".join(f"{s} ({st})" for s, st in devices.items()) or "none"
        return (
            f"device {serial} not found (adb devices lists: {listed}): start the emulator or "
            "set env.adb.serial / env.adb.console_port"
        )
    return diagnose_failure(f"error: device {state}", serial) or (
        f"device {serial} is in state '{state}': wait for it, or reconnect it"
    )


# ---------------------------------------------------------------------------------------------
# running


@dataclasses.dataclass(frozen=True)
class AdbResult:
    returncode: int
    stdout: bytes
    stderr: bytes

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8", errors="replace")

    @property
    def error_text(self) -> str:
        return self.stderr.decode("utf-8", errors="replace")


def _adb_own_lines(stderr: str) -> str:
    """adb's own messages, not the device command's (which could mention 'offline' or 'device')."""
    prefixes = ("adb:", "error:", "* ", "adb server")  # lower case: sqlite says "Error:"
    return "\n".join(ln for ln in stderr.splitlines() if ln.strip().startswith(prefixes))


def _first_line(text: str, limit: int = 200) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""


class AdbRunner:
    """Runs `adb -s <serial> ...` with a timeout; raises AdbError with the fix on failure."""

    def __init__(
        self,
        adb_path: str,
        serial: str,
        timeout_sec: float = 30.0,
        run: Callable[..., subprocess.CompletedProcess[bytes]] = subprocess.run,
    ):
        self.adb_path = adb_path
        self.serial = serial
        self.timeout_sec = timeout_sec
        self._run = run

    @classmethod
    def from_config(cls, config: AdbConfig) -> AdbRunner:
        return cls(resolve_adb_path(config.adb_path), config.resolved_serial, config.timeout_sec)

    def raw(
        self,
        args: Sequence[str],
        timeout: float | None = None,
        with_serial: bool = True,
        stdin: bytes | None = None,
    ) -> AdbResult:
        """Run adb; only failures to run at all (missing binary, timeout) raise here."""
        argv = [self.adb_path]
        if with_serial:
            argv += ["-s", self.serial]
        argv += list(args)
        timeout = self.timeout_sec if timeout is None else timeout
        try:
            proc = self._run(argv, input=stdin, capture_output=True, timeout=timeout, check=False)
        except FileNotFoundError as exc:
            raise AdbError(
                f"adb not found at {self.adb_path}: install Android platform-tools or set "
                "env.adb.adb_path"
            ) from exc
        except PermissionError as exc:
            raise AdbError(
                f"adb at {self.adb_path} is not executable: `chmod +x` it or set env.adb.adb_path"
            ) from exc
        except subprocess.TimeoutExpired as exc:
            shown = " ".join(args)[:80]
            raise AdbError(
                f"`adb {shown}` timed out after {timeout:g}s on {self.serial}: the device may be "
                f"hung; run `adb -s {self.serial} reconnect` or restart the emulator"
            ) from exc
        return AdbResult(proc.returncode, proc.stdout or b"", proc.stderr or b"")

    def run(
        self,
        args: Sequence[str],
        timeout: float | None = None,
        with_serial: bool = True,
        stdin: bytes | None = None,
        check: bool = True,
    ) -> AdbResult:
        """Run adb; adb's own errors (device missing, unauthorized...) always raise AdbError."""
        result = self.raw(args, timeout=timeout, with_serial=with_serial, stdin=stdin)
        if result.returncode != 0:
            problem = diagnose_failure(_adb_own_lines(result.error_text), self.serial)
            if problem is not None:
                raise AdbError(problem)
            if check:
                shown = " ".join(args)[:80]
                detail = _first_line(result.error_text) or _first_line(result.text) or "no output"
                raise AdbError(
                    f"`adb {shown}` failed on {self.serial} (exit {result.returncode}): {detail}"
                )
        return result

    def shell(self, command: str, timeout: float | None = None, check: bool = True) -> AdbResult:
        """`adb shell <command>`: the device shell parses `command`, so quote what you pass."""
        return self.run(["shell", command], timeout=timeout, check=check)

    def exec_out(self, command: str, timeout: float | None = None) -> AdbResult:
        """Binary-safe output (no CR/LF mangling), for screencap and cat."""
        return self.run(["exec-out", command], timeout=timeout, check=False)

    def wait_until(
        self,
        predicate: Callable[[], bool],
        timeout: float,
        interval: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            if predicate():
                return True
            if time.monotonic() >= deadline:
                return False
            sleep(interval)
