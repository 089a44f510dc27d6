"""The driver's scheduler of a parallel run: episodes to idle workers, results back, dead
workers restarted and their episode retried once."""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import math
import statistics
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from android_world.harness import run_output
from android_world.harness.parallel_jobs import (
    MAX_ATTEMPTS,
    MAX_START_FAILURES,
    Event,
    Job,
    Outcome,
    ParallelError,
    Pool,
    quiet,
)
from android_world.harness.worker_devices import reap_local_emulator

Estimate = Callable[[Job], float]
"""Expected seconds of an episode, known before it runs (used only to order the episodes)."""


def complexity(job: Job) -> float:
    """Upstream's task complexity (its step budget is 10 steps a unit): 1 when a task has none."""
    try:
        value = float(getattr(job.task_cls, "complexity", 1))
    except (TypeError, ValueError):
        return 1.0
    return max(value, 0.0) if math.isfinite(value) else 1.0


def recorded_seconds(episodes: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """Each template's mean run time over recorded episodes (a checkpoint's, an earlier run's);
    episodes without a positive run time (given up on, never run) say nothing."""
    times: dict[str, list[float]] = collections.defaultdict(list)
    for ep in episodes:
        template = ep.get("task_template") or str(ep.get("name") or "").rsplit("_", 1)[0]
        run_time = ep.get("run_time")
        if template and isinstance(run_time, int | float) and run_time > 0:
            times[template].append(float(run_time))
    return {template: statistics.fmean(values) for template, values in times.items()}


def expected_seconds(recorded: Mapping[str, float], jobs: Iterable[Job] = ()) -> Estimate:
    """A template's recorded mean if there is one, else its complexity times the recorded
    seconds per complexity unit of `jobs`' recorded templates (1 s a unit with nothing
    recorded: complexity alone orders)."""
    classes = {job.template: job for job in jobs if job.template in recorded}
    units = sum(complexity(job) for job in classes.values())
    seconds = sum(recorded[template] for template in classes)
    per_unit = seconds / units if units > 0 else 1.0

    def estimate(job: Job) -> float:
        known = recorded.get(job.template)
        return known if known is not None else complexity(job) * per_unit

    return estimate


def longest_first(jobs: list[Job], expected: Estimate) -> list[Job]:
    """Longest expected first (LPT): the long episodes start in the first round instead of
    ending the run in the last one. Stable, so equal estimates keep suite order; an estimate per
    template therefore keeps a template's instances in order (writable memory relies on it)."""
    return sorted(jobs, key=lambda job: -expected(job))


@dataclasses.dataclass
class Stats:
    """What the manifest records about a parallel session."""

    backend: str
    workers: int
    restarts: int = 0
    retries: int = 0
    gave_up: list[str] = dataclasses.field(default_factory=list)
    start_failures: int = 0
    worker_info: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class _Slot:
    job: Job | None = None
    ready: bool = False
    alive: bool = True
    start_failures: int = 0
    gen: int = 1


def failed_episode(job: Job, reason: str) -> dict[str, Any]:
    """The record of an episode given up on after its worker died twice (a failed episode, so a
    resume runs it again)."""
    return {
        "goal": None,
        "task_template": job.template,
        "instance_id": job.instance_id,
        "name": job.name,
        "seed": job.params.get("seed"),
        "params": job.params,
        "agent_name": None,
        "is_successful": None,
        "raw_score": None,
        "done": None,
        "episode_length": None,
        "exception_info": f"WorkerLost: {reason}",
        "error": f"worker died {job.attempt} times running this episode: {reason}",
        "teardown_error": None,
        "aux_data": None,
        "memory_hit": None,
        "run_time": 0.0,
        "finish_dtime": run_output.utc_now(),
        "usage": None,
        "attempts": job.attempt,
    }


class Scheduler:
    """Hands episodes to idle workers, takes their results, restarts the dead ones."""

    def __init__(
        self,
        pool: Pool,
        workers: int,
        on_outcome: Callable[[Outcome], None],
        *,
        in_order_templates: bool = False,
        log: Callable[[str], None] = quiet,
        on_ready: Callable[[int, dict[str, Any]], None] | None = None,
        on_stats: Callable[[Stats], None] | None = None,
        on_lost: Callable[[dict[str, Any]], None] = reap_local_emulator,
        poll_sec: float = 0.5,
        on_live: Callable[[int, Any], None] | None = None,
        expected: Estimate | None = None,
    ):
        self.pool = pool
        self.workers = workers
        self.on_outcome = on_outcome
        self.in_order_templates = in_order_templates
        self.log = log
        self.on_ready = on_ready
        self.on_stats = on_stats or (lambda _stats: None)
        self.on_lost = on_lost
        self.on_live = on_live
        self.expected = expected  # None: suite order; else longest expected first
        self.info: dict[int, dict[str, Any]] = {}  # each slot's live worker, as it reported
        self.poll_sec = poll_sec
        self.stats = Stats(pool.backend, workers)
        self.slots = {i: _Slot() for i in range(workers)}
        self.pending: collections.deque[Job] = collections.deque()

    def run(self, jobs: list[Job]) -> Stats:
        self.pending.extend(longest_first(jobs, self.expected) if self.expected else jobs)
        if not self.pending:
            return self.stats
        self.on_stats(self.stats)
        for slot in range(min(self.workers, len(self.pending))):
            self.pool.start(slot, self.slots[slot].gen)
        for slot in range(len(self.pending), self.workers):
            self.slots[slot].alive = False
        try:
            self._loop()
        except BaseException:
            for info in self.info.values():  # the workers will be killed: their emulators too
                with contextlib.suppress(Exception):
                    self.on_lost(info)
            raise
        return self.stats

    def _loop(self) -> None:
        while self.pending or any(s.job for s in self.slots.values()):
            self._dispatch()
            if not any(s.alive for s in self.slots.values()):
                raise ParallelError(
                    "no worker could start its device (see the reason above); run with "
                    "--workers 1 to see the full error"
                )
            for event in self.pool.events(self.poll_sec):
                before = self.stats.as_dict()
                self._handle(event)
                if self.stats.as_dict() != before:
                    self.on_stats(self.stats)  # a killed driver's manifest still has the counts

    def _next_job(self) -> Job | None:
        busy = {s.job.template for s in self.slots.values() if s.job is not None}
        for job in self.pending:
            if not self.in_order_templates or job.template not in busy:
                self.pending.remove(job)
                return job
        return None

    def _dispatch(self) -> None:
        for slot, state in self.slots.items():
            if state.alive and state.ready and state.job is None:
                job = self._next_job()
                if job is None:
                    return
                state.job = job
                self.pool.submit(slot, job)

    def _handle(self, event: Event) -> None:
        state = self.slots[event.slot]
        if event.gen != state.gen:
            return  # from a worker already replaced
        if event.kind == "live":
            if self.on_live is not None:
                self.on_live(event.slot, event.payload)
        elif event.kind == "ready":
            state.ready, state.start_failures = True, 0
            info = event.payload if isinstance(event.payload, dict) else {}
            self.info[event.slot] = info
            self.stats.worker_info.append(
                {k: info.get(k) for k in ("worker", "pid", "host", "device", "emulator_pid")}
            )
            if self.on_ready is not None:
                self.on_ready(event.slot, event.payload)
        elif event.kind == "start_failed":
            self._start_failed(event.slot, str(event.payload))
        elif event.kind == "done":
            self._done(event.slot, event.payload)
        elif event.kind == "died":
            if not state.ready and state.job is None:
                self._start_failed(event.slot, str(event.payload))
                return
            self._lost(event.slot, str(event.payload))

    def _start_failed(self, slot: int, reason: str) -> None:
        state = self.slots[slot]
        if not state.alive:
            return
        self.pool.stop(slot)
        state.ready = False
        state.start_failures += 1
        self.stats.start_failures += 1
        self.log(f"worker {slot} could not start: {reason.splitlines()[0]}")
        if state.start_failures >= MAX_START_FAILURES:
            state.alive = False
            self.log(f"worker {slot} retired after {state.start_failures} failed starts")
            return
        self._restart(slot)

    def _done(self, slot: int, outcome: Outcome) -> None:
        state = self.slots[slot]
        job, state.job = state.job, None
        if outcome.env_dead and job is not None and outcome.episode.get("error"):
            # The device died under the episode: its failure says nothing about the agent.
            self._retry_or_give_up(job, f"device lost: {outcome.env_dead}")
        else:
            self.on_outcome(outcome)
        if outcome.env_dead:
            self.log(f"worker {slot}: device lost ({outcome.env_dead}); restarting it")
            self.pool.stop(slot)
            self._restart(slot)

    def _lost(self, slot: int, reason: str) -> None:
        state = self.slots[slot]
        job, state.job = state.job, None
        self.log(f"worker {slot}: {reason}; restarting it")
        self.pool.stop(slot)
        self.on_lost(self.info.pop(slot, {}))
        if job is not None:
            self._retry_or_give_up(job, reason)
        self._restart(slot)

    def _retry_or_give_up(self, job: Job, reason: str) -> None:
        if job.attempt < MAX_ATTEMPTS:
            self.stats.retries += 1
            retry = dataclasses.replace(job, attempt=job.attempt + 1, retried_after=reason)
            self.pending.appendleft(retry)
            return
        self.stats.gave_up.append(job.name)
        self.on_outcome(Outcome(job.name, failed_episode(job, reason), {}, None, ""))

    def _restart(self, slot: int) -> None:
        state = self.slots[slot]
        state.ready = False
        state.gen += 1
        self.stats.restarts += 1
        self.pool.start(slot, state.gen)
