"""The Conductor loop's settings: the gate's thresholds and the loop's bounds, in one value."""

from __future__ import annotations

import dataclasses

PROGRESS_CHECK_MODES = ("screen", "after_action", "always", "off")


@dataclasses.dataclass(frozen=True)
class LoopSettings:
    """What `CelilAgent` takes beside its roles (the factory fills them from the validated
    config). `normalised` clamps each bound to what the loop can use."""

    threshold: float = 7.0
    irreversible_threshold: float = 8.5  # never below `threshold`
    rejection_retries: bool = True  # a rejection goes back to the executor once before a replan
    max_rehearsals: int = 6
    loop_repeat_limit: int = 3
    history_steps: int = 3
    max_sub_goal_advances: int = 3  # sub-goals advanced in one step without an action
    proposals_before_vision: int = 2  # unusable proposals before the vision fallback
    progress_check: str = "screen"
    require_evidence: bool = True
    snap_coordinates: bool = True
    app_names: tuple[str, ...] = ()
    memory_reuse_similarity: float | None = 0.95
    memory_reuse_success_rate: float = 0.8

    def __post_init__(self) -> None:
        if self.progress_check not in PROGRESS_CHECK_MODES:
            raise ValueError(
                f"progress_check must be one of {PROGRESS_CHECK_MODES}, got {self.progress_check!r}"
            )

    def normalised(self) -> LoopSettings:
        threshold = float(self.threshold)
        return dataclasses.replace(
            self,
            threshold=threshold,
            irreversible_threshold=max(float(self.irreversible_threshold), threshold),
            rejection_retries=bool(self.rejection_retries),
            max_rehearsals=max(0, int(self.max_rehearsals)),
            loop_repeat_limit=int(self.loop_repeat_limit),
            history_steps=max(0, int(self.history_steps)),
            max_sub_goal_advances=max(1, int(self.max_sub_goal_advances)),
            proposals_before_vision=max(1, int(self.proposals_before_vision)),
            require_evidence=bool(self.require_evidence),
            app_names=tuple(self.app_names),
            memory_reuse_success_rate=float(self.memory_reuse_success_rate),
        )
