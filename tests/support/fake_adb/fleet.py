"""Several fake devices behind one fake `adb`, and a fake `emulator` binary that boots them.

For the emulator-pool tests: `FakeFleet.handle` routes each `adb -s <serial> ...` to that
device's `FakeDevice` and lists every booted device in `adb devices`, as one adb server with
several emulators attached does. `write_emulator(dir, adb_path)` writes an executable that
parses the real emulator's flags (`-avd`, `-port`, `-grpc`, `-read-only`, ...), registers
`emulator-<port>` with the fleet (`adb fake-boot`), and lives until the device is killed (`adb emu
kill`, or a test's `kill(serial)`), like a real emulator process. Each booted device is a fresh
simulated phone, so real tasks run on it over AdbEnv.
"""

from __future__ import annotations

import dataclasses
import os
import stat
import sys
import threading
from collections.abc import Callable

from support.fake_adb.device import FakeDevice

_EMULATOR = r"""#!{python} -SE
import subprocess, sys, time
ADB = {adb!r}
args = sys.argv[1:]
port = args[args.index("-port") + 1] if "-port" in args else "5554"
serial = "emulator-" + port
boot = subprocess.run([ADB, "fake-boot", serial, *args], capture_output=True)
if boot.returncode != 0:
    sys.stderr.write(boot.stderr.decode())
    sys.exit(1)
while True:
    time.sleep(0.2)
    alive = subprocess.run([ADB, "fake-alive", serial], capture_output=True)
    if alive.returncode != 0:
        sys.exit(0)
"""


@dataclasses.dataclass
class Boot:
    """One emulator start, as the fleet saw its command line."""

    serial: str
    args: list[str]

    def value(self, flag: str) -> str | None:
        return self.args[self.args.index(flag) + 1] if flag in self.args else None


def _sim_device(serial: str) -> FakeDevice:
    from android_world.env.sim.sim_env import SimEnv
    from support.fake_adb.sim_phone import SimPhone

    return FakeDevice(SimPhone(SimEnv(seed=0, render=False)), serial=serial)


class FakeFleet:
    """The devices of one adb server; `boots` records every emulator start."""

    def __init__(self, make_device: Callable[[str], FakeDevice] = _sim_device):
        self._make_device = make_device
        self.devices: dict[str, FakeDevice] = {}
        self.boots: list[Boot] = []
        self.kills: list[str] = []
        self._lock = threading.Lock()

    def handle(self, argv: list[str], stdin: bytes = b"") -> tuple[int, bytes, bytes, float]:
        args = list(argv)
        if args[:1] == ["fake-boot"]:
            return self._boot(args[1], args[2:])
        if args[:1] == ["fake-alive"]:
            device = self.devices.get(args[1])
            return (0 if device is not None and device.state else 1), b"", b"", 0.0
        serial = args[args.index("-s") + 1] if "-s" in args else None
        command = [a for a in args if not a.startswith("-")][:1]
        if command == ["devices"]:
            lines = ["List of devices attached"]
            lines += [f"{s}\t{d.state}" for s, d in sorted(self.devices.items()) if d.state]
            return 0, ("\n".join(lines) + "\n\n").encode(), b"", 0.0
        device = self.devices.get(serial or "")
        if device is None:
            if command in (["version"], ["start-server"], ["kill-server"]):
                return 0, b"", b"", 0.0
            return 1, b"", f"adb: device '{serial}' not found\n".encode(), 0.0
        if args[args.index("-s") + 2 : args.index("-s") + 4] == ["emu", "kill"]:
            self.kills.append(device.serial)
        return device.handle(args, stdin)

    def _boot(self, serial: str, args: list[str]) -> tuple[int, bytes, bytes, float]:
        with self._lock:
            running = self.devices.get(serial)
            if running is not None and running.state:
                return 1, b"", f"port of {serial} is busy\n".encode(), 0.0
            self.boots.append(Boot(serial, args))
            self.devices[serial] = self._make_device(serial)
        return 0, b"", b"", 0.0

    def kill(self, serial: str) -> None:
        """The emulator crashes: gone from `adb devices`, its process exits."""
        self.devices[serial].state = None


def write_emulator(directory: str, adb_path: str) -> str:
    """An executable `emulator` in `directory` that boots devices of the fleet behind `adb_path`."""
    path = os.path.join(directory, "emulator")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(_EMULATOR.format(python=sys.executable, adb=adb_path))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path
