"""The agent's voice: events for feedback.jsonl, warnings, per-role timings, episode counters.

Every decision of the loop is an event (DESIGN §3); the sink is the runner's, and a sink that
fails never fails the step (`sink_errors` counts it). Model time reaches here from the usage
ledger's listener, so a role's `timing` event carries only the time it spent outside model calls.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from android_world.agents.custom.loop.celil_step_data import StepData

EventSink = Callable[[dict[str, Any]], None]

# Role names as the usage ledger and the report use them.
TIMED_ROLES = ("ocr", "maestro", "section_leader", "verifiers", "vision_fallback")


def _role_order(role: str) -> tuple[int, str]:
    return (TIMED_ROLES.index(role) if role in TIMED_ROLES else len(TIMED_ROLES), role)


@dataclasses.dataclass
class EpisodeStats:
    """What `episode_summary` counts."""

    proposals: int = 0
    unusable_proposals: int = 0
    passed: int = 0
    rejected: int = 0
    unverified: int = 0  # gate decisions taken without a readable vote
    irreversible: int = 0
    scores: list[float] = dataclasses.field(default_factory=list)
    executed: int = 0
    execution_errors: int = 0
    post_check_failures: int = 0
    rehearsals: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    vision_selects: int = 0
    sub_goals_advanced: int = 0
    evidence_rejected: int = 0
    unconfirmed_finishes: int = 0
    unusable_answers: int = 0
    warnings: int = 0
    goal_unmet: int = 0  # times the plan was done but the screens did not show the goal

    def summary(self, threshold: float, irreversible_threshold: float) -> dict[str, Any]:
        """The counts as `episode_summary` reports them."""
        scores = self.scores
        return {
            "gate": {
                "passed": self.passed,
                "rejected": self.rejected,
                "unverified": self.unverified,
                "irreversible": self.irreversible,
                "mean_score": round(sum(scores) / len(scores), 3) if scores else None,
                "threshold": threshold,
                "irreversible_threshold": irreversible_threshold,
            },
            "proposals": {"total": self.proposals, "unusable": self.unusable_proposals},
            "executed": self.executed,
            "execution_errors": self.execution_errors,
            "post_check_failures": self.post_check_failures,
            "sub_goals_advanced": self.sub_goals_advanced,
            "evidence_rejected": self.evidence_rejected,
            "unconfirmed_finishes": self.unconfirmed_finishes,
            "unusable_answers": self.unusable_answers,
            "vision_selects": self.vision_selects,
            "warnings": self.warnings,
        }

    def troubles(self) -> int:
        """Things that went wrong so far: rejections, failed steps, unconfirmed finishes, replans."""
        return (
            self.rejected
            + self.execution_errors
            + self.post_check_failures
            + self.unconfirmed_finishes
            + sum(self.rehearsals.values())
        )


class EventLog:
    """Events, warnings and timings of the current step and episode."""

    def __init__(self) -> None:
        self.sink: EventSink | None = None
        self._sink_lock = threading.Lock()
        self.sink_errors = 0
        self.step = 0  # the step the events belong to
        self.stats = EpisodeStats()
        self._model_seconds = 0.0  # all model latency seen by the ledger listener
        self._model_lock = threading.Lock()
        self._step_wall: dict[str, float] = {}
        self._step_model: dict[str, float] = {}

    def new_episode(self) -> None:
        self.step = 0
        self.stats = EpisodeStats()
        self._step_wall = {}
        self._step_model = {}

    def emit(self, event_type: str, **fields: Any) -> None:
        sink = self.sink
        if sink is None:
            return
        event = {"type": event_type, "step": self.step, **fields}
        try:
            with self._sink_lock:
                sink(event)
        except Exception:
            self.sink_errors += 1

    def warn(self, message: str, record: StepData | None = None) -> None:
        self.stats.warnings += 1
        if record is not None:
            record.warnings.append(message)
        self.emit("warning", message=message)

    @contextlib.contextmanager
    def timed(self, role: str) -> Iterator[None]:
        """Add the block's wall time (and the model time inside it) to this step's `role`."""
        start = time.perf_counter()
        with self._model_lock:
            model_before = self._model_seconds
        try:
            yield
        finally:
            wall = time.perf_counter() - start
            with self._model_lock:
                model = self._model_seconds - model_before
            self._step_wall[role] = self._step_wall.get(role, 0.0) + wall
            self._step_model[role] = self._step_model.get(role, 0.0) + model

    def add_timing(self, role: str, seconds: float) -> None:
        self._step_wall[role] = self._step_wall.get(role, 0.0) + seconds

    def emit_timings(self, record: StepData) -> None:
        """One `timing` event per role that worked this step; the report sums `duration_s`.

        `duration_s` excludes model latency, which the ledger's model_call events already
        report under the same role, so nothing is counted twice; `wall_s` is the whole time.
        """
        timings: dict[str, float] = {}
        for role in sorted(self._step_wall, key=_role_order):
            wall = self._step_wall[role]
            model = min(self._step_model.get(role, 0.0), wall)
            own = max(0.0, wall - model)
            timings[role] = round(wall, 6)
            self.emit(
                "timing",
                role=role,
                duration_s=round(own, 6),
                wall_s=round(wall, 6),
                model_s=round(model, 6),
            )
        if timings:
            record.timings = timings
        self._step_wall = {}
        self._step_model = {}

    def on_model_call(self, record: Any) -> None:
        """The usage ledger's listener: each model call is an event, its latency model time."""
        latency = getattr(record, "latency_s", None)
        if latency is None and isinstance(record, dict):
            latency = record.get("latency_s")
        if isinstance(latency, int | float):
            with self._model_lock:  # verifier personas report from their own threads
                self._model_seconds += float(latency)
        if hasattr(record, "to_event"):
            event = dict(record.to_event())
        elif dataclasses.is_dataclass(record):
            event = {"type": "model_call", **dataclasses.asdict(record)}
        else:
            event = {"type": "model_call", **dict(record)}
        event_type = event.pop("type", "model_call")
        self.emit(event_type, **event)
