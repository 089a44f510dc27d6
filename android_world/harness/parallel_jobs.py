"""What goes between the driver and its workers in a parallel run (harness/parallel.py): jobs,
the worker spec, outcomes and pool events, and the episode folders sent back."""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from android_world.env import interface
from android_world.harness import checkpointer as checkpointer_lib
from android_world.harness import config as config_lib
from android_world.harness import suite_utils
from android_world.task_evals import task_eval

EnvFactory = Callable[[config_lib.CelilConfig], interface.AsyncEnv]
MAX_ATTEMPTS = 2  # an episode whose worker dies is run once more, then recorded as an error
MAX_START_FAILURES = 2  # a worker slot that cannot start twice in a row is retired
RAY_INSTALL = "pip install -r requirements-ray.txt  (or: pip install 'celil[ray]')"
RAY_NAMESPACE = "celil"  # named actors (`<run>-w<slot>-g<start>`), for `ray list actors`
WORKER_ENV_VAR = "CELIL_WORKER"  # the worker's name, for logs and fault-injection tests


class ParallelError(Exception):
    """The parallel run cannot go on (no worker could start, Ray missing); one line for the user."""


# --------------------------------------------------------------------------------------------
# What goes to a worker and what comes back


@dataclasses.dataclass(frozen=True)
class Job:
    """One episode to run: rebuilt in the worker as `task_cls(params)`, as `create_suite` did."""

    name: str
    task_cls: type[task_eval.TaskEval]
    params: dict[str, Any]
    instance_id: int
    attempt: int = 1
    retried_after: str | None = None

    @property
    def template(self) -> str:
        return self.name.rsplit("_", 1)[0]


@dataclasses.dataclass(frozen=True)
class WorkerSpec:
    """Everything a worker needs to build its env and agent (pickled to it once)."""

    cfg: config_lib.CelilConfig
    agent_registry_name: str
    agent_kwargs: dict[str, Any]
    run_dir: str
    env_factory: EnvFactory
    save_screenshots: bool
    agent_module: str | None = None
    name_prefix: str = "celil"
    # The driver's scratch directory (removed at the end, so a killed worker's half-written
    # episode folder does not linger); a worker on another host uses its own temp directory.
    scratch_root: str | None = None
    # The driver's validated agent config (registry.validate_kwargs), built from as it is;
    # None validates `agent_kwargs` in the worker.
    agent_params: Any = None
    # Send each step's live view (live_view.py) to the driver as a "live" message.
    live: bool = False


@dataclasses.dataclass
class Outcome:
    """A finished episode (without step data, as the serial run checkpoints it) and its folder."""

    name: str
    episode: dict[str, Any]
    files: dict[str, bytes]
    env_dead: str | None = None  # why this worker's device is unusable now, if it is
    worker: str = ""
    model_servers: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    """What this worker's model clients learned about the servers (run_output.model_servers)."""


def jobs_for(suite: suite_utils.Suite, done: set[str]) -> list[Job]:
    """The suite's episodes not yet finished, in suite order."""
    jobs = []
    for instances in suite.values():
        for i, task in enumerate(instances):
            name = f"{task.name}_{i}"
            if name not in done:
                jobs.append(Job(name, type(task), dict(task.params), i))
    return jobs


def quiet(_message: str) -> None:
    pass


def read_folder(folder: Path) -> dict[str, bytes]:
    if not folder.is_dir():
        return {}
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.startswith(".")
    }


def install_folder(episodes_dir: Path, name: str, files: dict[str, bytes]) -> None:
    """Put an episode's folder in place in one rename: a reader (or a kill) sees the old folder
    or the new one, never a half-written one."""
    episodes_dir.mkdir(parents=True, exist_ok=True)
    incoming = Path(tempfile.mkdtemp(prefix=f".{name}.incoming-", dir=episodes_dir))
    try:
        for rel, data in files.items():
            target = incoming / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            os.chmod(target, checkpointer_lib._FILE_MODE)
        os.chmod(incoming, 0o755)
        final = episodes_dir / name
        old = None
        if final.exists():
            old = episodes_dir / f".{name}.old-{os.getpid()}"
            os.replace(final, old)
        os.replace(incoming, final)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(incoming, ignore_errors=True)
        raise


def remove_stale_folders(episodes_dir: Path) -> None:
    """Folders a killed driver left half-installed."""
    if not episodes_dir.is_dir():
        return
    for path in episodes_dir.iterdir():
        if path.name.startswith(".") and (".incoming-" in path.name or ".old-" in path.name):
            shutil.rmtree(path, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# Pools: how workers are started and heard from


@dataclasses.dataclass
class Event:
    """`ready` (payload: info), `start_failed` (reason), `done` (Outcome), `died` (reason),
    `live` (a live-view event of the episode in progress)."""

    kind: str
    slot: int
    payload: Any = None
    gen: int = 1  # which start of the slot sent it: a stale event from a replaced worker is dropped


class Pool(Protocol):
    backend: str

    def start(self, slot: int, gen: int = 1) -> None: ...

    def submit(self, slot: int, job: Job) -> None: ...

    def events(self, timeout: float) -> list[Event]: ...

    def stop(self, slot: int, kill: bool = False) -> None: ...

    def close(self, kill: bool = False) -> None: ...
