"""Fakes for the scale-out tests: the harness fakes' device, made observable from outside.

`make_env` is a module-level function so worker processes (spawn) and Ray actors can import it.
With PARALLEL_MARKER_DIR set, each action writes `<dir>/<pid>-<n>` holding the worker's name and
pid, so a test knows which process is mid-episode and can kill it there. With PARALLEL_DEAD_FILE
set, the device reports itself gone (like an adb device that went offline) once that file exists.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

from test_harness_fakes import TASKS, FakeAnswer, FakeEnv, FakeWifiOn  # noqa: F401

from android_world.env import json_action

_counter = itertools.count()


class MarkedEnv(FakeEnv):
    def execute_action(self, action: json_action.JSONAction) -> None:
        marker_dir = os.environ.get("PARALLEL_MARKER_DIR")
        if marker_dir:
            worker = os.environ.get("CELIL_WORKER", "serial")
            path = Path(marker_dir) / f"{os.getpid()}-{next(_counter)}"
            path.write_text(f"{worker} {os.getpid()}\n", encoding="utf-8")
        dead = os.environ.get("PARALLEL_DEAD_FILE")
        if dead and Path(dead).exists():
            raise ConnectionError("device offline")
        super().execute_action(action)

    def check_connection(self) -> None:
        dead = os.environ.get("PARALLEL_DEAD_FILE")
        if dead and Path(dead).exists():
            Path(dead).unlink()  # the restarted worker gets a working device again
            raise ConnectionError("device emulator-5554 offline")


def make_env(cfg) -> MarkedEnv:
    del cfg
    return MarkedEnv()
