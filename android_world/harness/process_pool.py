"""Worker processes on this host (forkserver or spawn) and how the driver hears from them."""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
from typing import Any

from android_world.harness.episode_worker import EpisodeWorker, start_error
from android_world.harness.parallel_jobs import (
    Event,
    Job,
    WorkerSpec,
    quiet,
)


def _watch_parent() -> None:
    """A worker whose driver was killed exits instead of running on as an orphan."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _process_main(conn: multiprocessing.connection.Connection, spec: WorkerSpec, slot: int) -> None:
    """A worker process: build the worker, then run the jobs the driver sends until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    _watch_parent()
    try:
        worker = EpisodeWorker(spec, slot, log=quiet)
        conn.send(("ready", worker.info()))
    except BaseException as exc:
        with contextlib.suppress(Exception):
            conn.send(("start_failed", start_error(exc)))
        return
    try:
        while True:
            try:
                job = conn.recv()
            except (EOFError, OSError):
                break
            if job is None:
                break
            outcome = worker.run(job, (lambda e: conn.send(("live", e))) if spec.live else None)
            conn.send(("done", outcome))
            if outcome.env_dead:
                break
    finally:
        worker.close()


def _exit_reason(code: int | None) -> str:
    if code is None:
        return "worker process stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"worker process killed by {name}"
    return f"worker process exited with code {code}"


@dataclasses.dataclass
class _Proc:
    process: Any
    conn: multiprocessing.connection.Connection
    gen: int


# Imported once by the fork server, so each worker starts in a fraction of a second instead of
# importing numpy, Pillow and the agent anew (16 workers on 2 cores: ~0.5 s, not ~30 s).
_PRELOAD = (
    "android_world.harness.parallel",
    "android_world.agents.registry",
    "android_world.agents.celil_factory",
    "android_world.env.sim.sim_env",
    "android_world.agents.custom.model_clients.resolution",
    "android_world.agents.custom.roles.celil_perception",
    "openai",  # a missing optional module is skipped by the fork server
)


def start_method() -> str:
    """forkserver where the OS has it (a clean single-threaded parent, modules preloaded), else
    spawn; never plain fork, which would copy the driver's threads and locks."""
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


class LocalPool:
    """Worker processes on this host (forkserver/spawn: no inherited locks, threads or handles)."""

    backend = "local"

    def __init__(self, spec: WorkerSpec, context: str | None = None):
        self.spec = spec
        method = context or start_method()
        self._ctx = multiprocessing.get_context(method)
        if method == "forkserver":
            self._ctx.set_forkserver_preload(list(_PRELOAD))
        self._procs: dict[int, _Proc] = {}

    def start(self, slot: int, gen: int = 1) -> None:
        parent, child = self._ctx.Pipe()
        process = self._ctx.Process(
            target=_process_main,
            args=(child, self.spec, slot),
            name=f"{self.spec.name_prefix}-w{slot}",
            daemon=True,
        )
        process.start()
        child.close()
        self._procs[slot] = _Proc(process, parent, gen)

    def pid(self, slot: int) -> int | None:
        proc = self._procs.get(slot)
        return proc.process.pid if proc else None

    def submit(self, slot: int, job: Job) -> None:
        # A worker already gone is reported as died by its sentinel.
        with contextlib.suppress(OSError, ValueError):
            self._procs[slot].conn.send(job)

    def events(self, timeout: float) -> list[Event]:
        if not self._procs:
            time.sleep(timeout)
            return []
        waitables: dict[Any, tuple[int, _Proc, bool]] = {}
        for slot, proc in self._procs.items():
            waitables[proc.conn] = (slot, proc, False)
            waitables[proc.process.sentinel] = (slot, proc, True)
        ready = multiprocessing.connection.wait(list(waitables), timeout=timeout)
        events: list[Event] = []
        for item in ready:
            slot, proc, exited = waitables[item]
            if self._procs.get(slot) is not proc:
                continue
            # Anything it sent before exiting still counts (a result, then a dead device).
            events += self._read(slot, proc)
            if exited:
                self._procs.pop(slot)
                proc.process.join(timeout=1)
                with contextlib.suppress(OSError):
                    proc.conn.close()
                reason = _exit_reason(proc.process.exitcode)
                events.append(Event("died", slot, reason, proc.gen))
        return events

    def _read(self, slot: int, proc: _Proc) -> list[Event]:
        events = []
        while True:
            try:
                if not proc.conn.poll():
                    break
                kind, payload = proc.conn.recv()
            except (EOFError, OSError):
                break
            events.append(Event(kind, slot, payload, proc.gen))
        return events

    def stop(self, slot: int, kill: bool = False) -> None:
        proc = self._procs.pop(slot, None)
        if proc is None:
            return
        with contextlib.suppress(OSError, ValueError):
            proc.conn.send(None)
        proc.process.join(timeout=0 if kill else 30)
        if proc.process.is_alive():
            proc.process.kill()
            proc.process.join(timeout=5)
        with contextlib.suppress(OSError):
            proc.conn.close()

    def close(self, kill: bool = False) -> None:
        for slot in list(self._procs):
            self.stop(slot, kill)
