"""A fake `adb` for tests: a real executable on a temp path, answering from a phone model.

phone = RecordingPhone(controller=SimController())
fake = FakeDevice(phone)
with FakeAdbServer(fake.handle) as server:
    env = AdbEnv({"adb_path": server.adb_path}, input_pause_sec=0)
"""

import subprocess

from android_world.env.adb.adb_runner import AdbRunner
from support.fake_adb.device import FakeDevice, FakePhone, RecordingPhone
from support.fake_adb.server import FakeAdbServer

__all__ = [
    "FakeAdbServer",
    "FakeDevice",
    "FakePhone",
    "RecordingPhone",
    "in_process_runner",
    "recording_device",
]


def recording_device(**knobs: object) -> FakeDevice:
    """A FakeDevice over a RecordingPhone whose device facts are a fresh SimController."""
    from android_world.env.sim.controller import SimController

    nodes = knobs.pop("nodes", [])
    phone = RecordingPhone(controller=SimController(), nodes=list(nodes))  # type: ignore[call-overload]
    return FakeDevice(phone, **knobs)  # type: ignore[arg-type]


def in_process_runner(
    fake: FakeDevice, serial: str = "emulator-5554", timeout_sec: float = 30.0
) -> AdbRunner:
    """An AdbRunner that calls the fake directly instead of spawning the script: same argv, same
    replies, no process start-up, for the many tests that are not about the subprocess itself."""

    def run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[bytes]:
        rc, out, err, sleep = fake.handle(list(argv[1:]))
        timeout = kwargs.get("timeout")
        if sleep and isinstance(timeout, int | float) and sleep > timeout:
            raise subprocess.TimeoutExpired(argv, timeout)
        return subprocess.CompletedProcess(argv, rc, out, err)

    return AdbRunner("adb", serial, timeout_sec, run=run)
