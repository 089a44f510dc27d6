"""Workers as Ray actors (`--ray_address`), on this host or across a cluster."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

from android_world.harness import suite_utils
from android_world.harness.episode_worker import EpisodeWorker, start_error
from android_world.harness.parallel_jobs import (
    RAY_INSTALL,
    RAY_NAMESPACE,
    Event,
    Job,
    Outcome,
    ParallelError,
    WorkerSpec,
)

RAY_NICENESS_ENV = "RAY_worker_niceness"


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ParallelError(
            f"--ray_address needs Ray, which is not installed: {RAY_INSTALL}"
        ) from None
    return ray


class RayEpisodeWorker:
    """The Ray actor: the same EpisodeWorker, built when the actor starts."""

    def __init__(self, spec: WorkerSpec, slot: int):
        self._worker: EpisodeWorker | None = None
        self._error: str | None = None
        try:
            self._worker = EpisodeWorker(spec, slot)
        except BaseException as exc:
            self._error = start_error(exc)

    def ready(self) -> tuple[str, Any]:
        if self._worker is None:
            return "start_failed", self._error
        return "ready", self._worker.info()

    def run(self, job: Job) -> Outcome:
        assert self._worker is not None
        return self._worker.run(job)

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()


class RayPool:
    """Workers as Ray actors (one env each, `num_cpus` reserved each); results come back through
    `ray.wait` over every in-flight call, never one blocking `ray.get` of everything."""

    backend = "ray"

    def __init__(self, spec: WorkerSpec, address: str, num_cpus: float, workers: int):
        self.ray = import_ray()
        self.spec = spec
        self._started_ray = False
        if not self.ray.is_initialized():
            self._init(address, num_cpus, workers)
        self._cls = self.ray.remote(num_cpus=num_cpus, max_restarts=0, max_task_retries=0)(
            RayEpisodeWorker
        )
        self._actors: dict[int, Any] = {}
        self._gens: dict[int, int] = {}
        self._inflight: dict[Any, tuple[int, str, int]] = {}

    def _init(self, address: str, num_cpus: float, workers: int) -> None:
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        kwargs["runtime_env"] = {"env_vars": actor_env(dict(os.environ))}
        if address == "local":
            # Logical CPUs: a worker mostly waits on its device and models, so a small host
            # still runs many (the benchmark shows it); Ray schedules by these numbers only.
            kwargs["num_cpus"] = max(os.cpu_count() or 1, int(workers * num_cpus + 0.999))
            keep_worker_priority()
        else:
            kwargs["address"] = address
            kwargs.pop("include_dashboard")
        try:
            self.ray.init(**kwargs)
        except Exception as exc:
            raise ParallelError(
                f"--ray_address {address}: cannot connect to Ray ({suite_utils._one_line(exc)}); "
                "start a cluster with `ray start --head` or use --ray_address local"
            ) from None
        self._started_ray = True

    def actor_name(self, slot: int) -> str:
        return f"{self.spec.name_prefix}-w{slot}"

    def start(self, slot: int, gen: int = 1) -> None:
        name = f"{self.actor_name(slot)}-g{gen}"
        actor = self._cls.options(name=name, namespace=RAY_NAMESPACE).remote(self.spec, slot)
        self._actors[slot] = actor
        self._gens[slot] = gen
        self._inflight[actor.ready.remote()] = (slot, "ready", gen)

    def submit(self, slot: int, job: Job) -> None:
        self._inflight[self._actors[slot].run.remote(job)] = (slot, "run", self._gens[slot])

    def events(self, timeout: float) -> list[Event]:
        if not self._inflight:
            time.sleep(timeout)
            return []
        refs = list(self._inflight)
        ready, rest = self.ray.wait(refs, num_returns=1, timeout=timeout)
        if ready and rest:
            more, _ = self.ray.wait(rest, num_returns=len(rest), timeout=0)
            ready += more
        events = []
        for ref in ready:
            slot, what, gen = self._inflight.pop(ref)
            try:
                value = self.ray.get(ref)
            except Exception as exc:
                kind = "start_failed" if what == "ready" else "died"
                events.append(Event(kind, slot, _ray_reason(exc), gen))
                continue
            if what == "ready":
                events.append(Event(value[0], slot, value[1], gen))
            else:
                events.append(Event("done", slot, value, gen))
        return events

    def actor(self, slot: int) -> Any:
        return self._actors.get(slot)

    def stop(self, slot: int, kill: bool = False) -> None:
        actor = self._actors.pop(slot, None)
        for ref, (s, _, _) in list(self._inflight.items()):
            if s == slot:
                self._inflight.pop(ref)
        if actor is None:
            return
        if not kill:
            with contextlib.suppress(Exception):
                self.ray.get(actor.close.remote(), timeout=30)
        with contextlib.suppress(Exception):
            self.ray.kill(actor)

    def close(self, kill: bool = False) -> None:
        for slot in list(self._actors):
            self.stop(slot, kill)
        if self._started_ray:
            with contextlib.suppress(Exception):
                self.ray.shutdown()


# Actors on other hosts do not see this shell's environment: these variables go with the job.
_FORWARDED_ENV = ("GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", "OLLAMA_HOST")


def keep_worker_priority(environ: MutableMapping[str, str] = os.environ) -> None:
    """Actors of a cluster this process starts run at its own CPU priority.

    Ray's raylet lowers its workers' priority by `RAY_worker_niceness` (15 unless set): on a
    busy host the actors then get a small share of the CPU next to every other process, so a
    Ray run was slower than the same run on local processes, by an amount that followed the
    host's load (scale-out at 8 workers measured 5.0x to 7.0x; issue 30). Ray's own job
    manager sets 0 for the same reason. An explicit setting in the environment is kept."""
    environ.setdefault(RAY_NICENESS_ENV, "0")


def actor_env(environ: dict[str, str]) -> dict[str, str]:
    """The environment Ray actors get: this checkout on PYTHONPATH, Celil's own variables, the
    model keys, and whatever `CELIL_RAY_ENV` (comma-separated names) adds."""
    names = set(_FORWARDED_ENV) | {n for n in environ if n.startswith("CELIL_")}
    names |= {n.strip() for n in environ.get("CELIL_RAY_ENV", "").split(",") if n.strip()}
    env = {n: environ[n] for n in sorted(names) if n in environ}
    path = [p for p in sys.path if p and Path(p).is_dir()]
    env["PYTHONPATH"] = os.pathsep.join(path)
    return env


def _ray_reason(exc: BaseException) -> str:
    name = type(exc).__name__
    if "ActorDied" in name or "ActorError" in name or "ActorUnavailable" in name:
        return "Ray actor died (killed, or its node was lost)"
    return suite_utils._one_line(exc)
