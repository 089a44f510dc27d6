"""The record of one `CelilAgent.step`: what the step saw, decided and did.

The loop fills a `StepData` as it goes; `as_step_data()` turns it into the dict that
`AgentInteractionResult.data` carries, which episode.json, the report and the tests read. A key
is in that dict only when the step reached the part of the loop that sets it (a step that never
voted has no `votes`), so readers can tell "not reached" from "reached, with no value".
"""

from __future__ import annotations

import dataclasses
from typing import Any

from android_world.agents.custom import celil_geometry
from android_world.agents.custom.celil_protocols import Observation, ProposedAction, Vote
from android_world.agents.custom.roles.celil_quality_control import describe_action
from android_world.env import json_action

MAX_OCR_LINES_IN_STEP = 80


def vote_dict(vote: Vote) -> dict[str, Any]:
    return {
        "persona": vote.persona,
        # An unreadable vote is absent: it has no score (it counts in none).
        "score": float(vote.score) if vote.parseable else None,
        "reasoning": vote.reasoning,
        "parseable": vote.parseable,
        "error": vote.error,
        **({"notes": list(vote.notes)} if vote.notes else {}),
    }


def proposal_dict(proposal: ProposedAction) -> dict[str, Any]:
    return {
        "action": proposal.action.as_dict() if proposal.action is not None else None,
        "thought": proposal.thought[:1000],
        "raw_output": proposal.raw_output[:2000],
        "sub_goal_finished": proposal.sub_goal_finished,
        "finished_content": proposal.finished_content,
        "error": proposal.error,
        "is_safe": proposal.is_safe,
        **({"dropped_actions": list(proposal.dropped_actions)} if proposal.dropped_actions else {}),
        **({"notes": list(proposal.notes)} if proposal.notes else {}),
    }


def ocr_lines_data(observation: Observation, limit: int = MAX_OCR_LINES_IN_STEP) -> list[dict]:
    """The OCR lines the roles saw, for the report's toggleable boxes (bounded per step)."""
    return [
        {
            "text": line.text,
            "box": celil_geometry.box_list(line.box),
            "confidence": float(line.confidence),
        }
        for line in observation.ocr_lines[:limit]
    ]


def target_box(action: json_action.JSONAction, observation: Observation) -> list[float] | None:
    """`[x0, y0, x1, y1]` of the element an index-based action targets, for the report overlay."""
    index = action.index
    if not isinstance(index, int) or not 0 <= index < len(observation.ui_elements):
        return None
    element = observation.ui_elements[index]
    return celil_geometry.box_list(celil_geometry.element_box(element, observation.screen_size))


@dataclasses.dataclass
class GateRecord:
    """The verifiers' verdict on the step's action."""

    votes: list[dict[str, Any]]
    verifier_score: float | None  # None: no readable vote (`unverified` says why)
    threshold: float
    irreversible: str | None
    passed: bool
    unverified: str | None = None
    vote_skipped: str | None = None
    irreversible_target: dict[str, Any] | None = None
    second_opinion: str | None = None  # the model-free executor agrees / disagrees / none


@dataclasses.dataclass
class ExecutionRecord:
    """The device's answer to the step's action."""

    ok: bool
    error: str | None
    device_s: float


@dataclasses.dataclass
class StepData:
    """One step's record, filled by the loop; `as_step_data()` is what the step returns."""

    goal: str
    sub_goal: str | None = None
    action: dict[str, Any] | None = None
    outcome: str | None = None
    warnings: list[str] = dataclasses.field(default_factory=list)
    # The screen the step started on (absent for a step after the episode ended).
    frame_hash: str | None = None
    activity: str | None = None
    ocr_lines: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    # Planning.
    memory_hit: bool = False
    memory_entry_id: str | None = None
    plan_created: list[str] | None = None
    # Progress: verdicts offered as evidence, and the sub-goals they completed.
    evidence: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    sub_goals_completed: list[str] = dataclasses.field(default_factory=list)
    goal_check: dict[str, Any] | None = None
    # Choosing the action.
    rejection_feedback: str | None = None
    proposals: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    vision_select: int | None = None
    kept_point: dict[str, Any] | None = None
    snapped: dict[str, Any] | None = None
    action_description: str | None = None
    target_box: list[float] | None = None
    gate: GateRecord | None = None
    execution: ExecutionRecord | None = None
    # The post-check on the screen after the action.
    screen_changed: bool | None = None
    post_check: dict[str, Any] | None = None
    # Repairs and the end of the episode.
    rehearsal: str | None = None
    plan_revised: list[str] | None = None
    completed_by: str | None = None
    answer: str | None = None
    status: str | None = None
    infeasible_reason: str | None = None
    claim_action: dict[str, Any] | None = None
    internal_error: str | None = None
    traceback: str | None = None
    # Filled when the step ends (`finalised`).
    timings: dict[str, float] = dataclasses.field(default_factory=dict)
    unusable_answers: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    plan: list[str] | None = None
    done_sub_goals: list[str] | None = None
    rehearsals_so_far: int | None = None
    summary: str | None = None

    @property
    def executed(self) -> bool:
        """The step's action ran without an error."""
        return self.execution is not None and self.execution.ok

    def observed(self, observation: Observation) -> None:
        self.frame_hash = observation.frame_hash
        self.activity = observation.foreground_activity
        if observation.ocr_lines:
            self.ocr_lines = ocr_lines_data(observation)

    def claim(self, status: str, status_action: json_action.JSONAction, reason: str | None) -> None:
        """The episode ends in this step with `status` (`reason`: why it is infeasible)."""
        self.status = status
        if reason:
            self.infeasible_reason = reason
        if self.executed:
            # This step also ran an action (the one that finished the goal): it stays the
            # step's action; the claim is recorded beside it.
            self.claim_action = status_action.as_dict()
        else:
            self.action = status_action.as_dict()
            self.action_description = describe_action(status_action, [])
        if self.outcome in (None, "no_answer") or status == "complete":
            self.outcome = "finished" if status == "complete" else "infeasible"
        else:
            self.outcome = f"{self.outcome} -> infeasible"

    def add_proposal(self, proposal: ProposedAction) -> dict[str, Any]:
        record = proposal_dict(proposal)
        self.proposals.append(record)
        return record

    def finalised(self, rehearsals: int, plan: list[str] | None, done: list[str] | None) -> None:
        self.plan, self.done_sub_goals = plan, done
        self.rehearsals_so_far = rehearsals
        self.summary = (
            f"[{self.sub_goal or '-'}] {self.action_description or 'no action'} -> {self.outcome}"
        )

    def as_step_data(self) -> dict[str, Any]:
        """The step data dict: the always-present keys, then each part the step reached."""
        data: dict[str, Any] = {
            "goal": self.goal,
            "sub_goal": self.sub_goal,
            "action": self.action,
            "outcome": self.outcome,
            "warnings": self.warnings,
        }
        if self.frame_hash is not None:
            data["frame_hash"] = self.frame_hash
            data["activity"] = self.activity
        data.update(self._grown("ocr_lines"))
        if self.memory_hit:
            data["memory_hit"] = self.memory_entry_id
        data.update(self._set("plan_created"))
        data.update(self._grown("evidence", "sub_goals_completed"))
        data.update(self._set("goal_check", "rejection_feedback"))
        data.update(self._grown("proposals"))
        data.update(self._set("vision_select", "kept_point", "snapped"))
        data.update(self._set("action_description", "target_box"))
        if self.gate is not None:
            data.update(_gate_data(self.gate))
        if self.execution is not None:
            data["executed"] = self.execution.ok
            data["execution_error"] = self.execution.error
            data["device_s"] = self.execution.device_s
        data.update(self._set("screen_changed", "post_check", "rehearsal", "plan_revised"))
        data.update(self._set("completed_by", "answer", "status", "infeasible_reason"))
        data.update(self._set("claim_action", "internal_error", "traceback"))
        data.update(self._grown("timings", "unusable_answers"))
        data.update(self._set("plan", "done_sub_goals", "rehearsals_so_far", "summary"))
        return data

    def _set(self, *names: str) -> dict[str, Any]:
        """The named fields the step set (not None)."""
        values = {name: getattr(self, name) for name in names}
        return {k: v for k, v in values.items() if v is not None}

    def _grown(self, *names: str) -> dict[str, Any]:
        """The named collections the step added to (not empty)."""
        values = {name: getattr(self, name) for name in names}
        return {k: v for k, v in values.items() if v}


def _gate_data(gate: GateRecord) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if gate.vote_skipped is not None:
        data["vote_skipped"] = gate.vote_skipped
    if gate.irreversible_target is not None:
        data["irreversible_target"] = gate.irreversible_target
    if gate.second_opinion is not None:
        data["second_opinion"] = gate.second_opinion
    data["votes"] = gate.votes
    data["verifier_score"] = gate.verifier_score
    data["threshold"] = gate.threshold
    data["irreversible"] = gate.irreversible
    data["gate"] = "pass" if gate.passed else "reject"
    if gate.unverified:
        data["gate_unverified"] = gate.unverified
    return data
