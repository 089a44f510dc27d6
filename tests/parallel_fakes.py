"""Fakes for the scale-out tests: the harness fakes' device, made observable from outside.

`make_env` is a module-level function so worker processes (spawn) and Ray actors can import it.
With PARALLEL_MARKER_DIR set, each action writes `<dir>/<pid>-<n>` holding the worker's name and
pid, so a test knows which process is mid-episode and can kill it there. With PARALLEL_DEAD_FILE
set, the device of the first worker to act reports itself gone (like an adb device that went
offline) while that file exists; the restarted worker removes the file, so its device works again.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

from harness_fakes import TASKS, FakeAnswer, FakeEnv, FakeWifiOn  # noqa: F401

from android_world.env import json_action

_counter = itertools.count()


class MarkedEnv(FakeEnv):
    def execute_action(self, action: json_action.JSONAction) -> None:
        marker_dir = os.environ.get("PARALLEL_MARKER_DIR")
        if marker_dir:
            worker = os.environ.get("CELIL_WORKER", "serial")
            path = Path(marker_dir) / f"{os.getpid()}-{next(_counter)}"
            path.write_text(f"{worker} {os.getpid()}\n", encoding="utf-8")
        if _dead():
            raise ConnectionError("device offline")
        super().execute_action(action)

    def check_connection(self) -> None:
        if _dead():
            Path(os.environ["PARALLEL_DEAD_FILE"]).unlink()
            raise ConnectionError("device emulator-5554 offline")


def _dead() -> bool:
    """The device of the worker that acts first is gone while the file exists: which worker
    that is depends on scheduling (under load one worker may take every episode), so the first
    to act claims it, atomically, by name."""
    dead = os.environ.get("PARALLEL_DEAD_FILE")
    worker = os.environ.get("CELIL_WORKER", "")
    if not dead or not Path(dead).exists():
        return False
    claim = Path(f"{dead}.claim")
    try:
        fd = os.open(claim, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        return claim.read_text(encoding="utf-8") == worker
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(worker)
    return True


def make_env(cfg) -> MarkedEnv:
    del cfg
    return MarkedEnv()
