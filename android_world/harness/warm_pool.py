"""Workers started once, then reused by every scheduler run over them (issue 30, scale-out).

A run's pool already reuses each worker (process or Ray actor) for all the episodes it is given;
what a `Scheduler` cannot do is use workers that exist before it starts. `WarmPool` wraps a pool
(local or Ray) so that:

- `warm_up(n)` starts the workers not yet started and waits until they are ready, and returns
  how long that took: the start-up cost, measured apart from the episodes;
- a scheduler's `start(slot)` of a slot with a ready worker is answered with that worker's ready
  event at once (no new process, no new actor), so several scheduler runs in a row (the
  benchmark's 1, 2, 4, 8, 16 workers) share the same workers;
- a worker the scheduler stops (it died, or its device did) is really stopped and a later start
  of its slot starts a new one, as without the wrapper.

Generations: the scheduler numbers each start of a slot (1, 2, ...) anew in every run, the pool
counts real starts; events are translated to the scheduler's numbering, and events of a worker
already replaced get generation 0, which no scheduler slot has, so they are ignored.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from android_world.harness.parallel_jobs import Event, Job, ParallelError, Pool


@dataclasses.dataclass
class _Worker:
    pool_gen: int  # the pool's count of real starts of this slot
    sched_gen: int = 0  # the generation the current scheduler run knows it by
    info: Any = None
    ready: bool = False


class WarmPool:
    """A pool whose workers outlive one scheduler run (see the module docstring)."""

    def __init__(self, pool: Pool):
        self.pool = pool
        self.backend = pool.backend
        self.started = 0  # real worker starts, over the wrapper's life
        self._workers: dict[int, _Worker] = {}
        self._gens: dict[int, int] = {}  # the last pool generation used per slot
        self._queue: list[Event] = []

    def _start_real(self, slot: int, sched_gen: int) -> None:
        gen = self._gens.get(slot, 0) + 1
        self._gens[slot] = gen
        self._workers[slot] = _Worker(gen, sched_gen)
        self.started += 1
        self.pool.start(slot, gen)

    def warm_up(self, workers: int, timeout: float = 600.0, poll: float = 0.2) -> float:
        """Start slots 0..workers-1 that have no worker yet; wait until all are ready. Returns
        the seconds taken (0 when every worker was there already)."""
        began = time.perf_counter()
        for slot in range(workers):
            if slot not in self._workers:
                self._start_real(slot, 0)
        while not all(self._workers[s].ready for s in range(workers)):
            if time.perf_counter() - began > timeout:
                raise ParallelError(f"workers not ready after {timeout:.0f} s")
            for event in self.pool.events(poll):
                worker = self._workers.get(event.slot)
                if worker is None or event.gen != worker.pool_gen:
                    continue
                if event.kind == "ready":
                    worker.ready, worker.info = True, event.payload
                elif event.kind in ("start_failed", "died"):
                    self.stop(event.slot)
                    raise ParallelError(f"worker {event.slot} could not start: {event.payload}")
        return time.perf_counter() - began

    # The Pool protocol, as the scheduler uses it

    def start(self, slot: int, gen: int = 1) -> None:
        worker = self._workers.get(slot)
        if worker is not None and worker.ready:
            worker.sched_gen = gen
            self._queue.append(Event("ready", slot, worker.info, gen))
            return
        if worker is not None:  # still starting: keep it, answer with its ready event
            worker.sched_gen = gen
            return
        self._start_real(slot, gen)

    def submit(self, slot: int, job: Job) -> None:
        self.pool.submit(slot, job)

    def events(self, timeout: float) -> list[Event]:
        queued, self._queue = self._queue, []
        real = self.pool.events(0 if queued else timeout)
        return queued + [self._translate(e) for e in real]

    def _translate(self, event: Event) -> Event:
        """A pool event in the scheduler's numbering (0: from a worker already replaced)."""
        worker = self._workers.get(event.slot)
        if worker is None or event.gen != worker.pool_gen:
            return dataclasses.replace(event, gen=0)
        if event.kind == "ready":
            worker.ready, worker.info = True, event.payload
        return dataclasses.replace(event, gen=worker.sched_gen)

    def stop(self, slot: int, kill: bool = False) -> None:
        self._workers.pop(slot, None)
        if kill:
            self.pool.stop(slot, kill=True)
        else:
            self.pool.stop(slot)

    def close(self, kill: bool = False) -> None:
        self._workers.clear()
        self.pool.close(kill)

    def __getattr__(self, name: str) -> Any:  # backend extras (pid, actor)
        return getattr(self.pool, name)
