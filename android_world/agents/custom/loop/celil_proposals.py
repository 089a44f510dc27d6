"""From the executor's answer to an action the gate can judge (DESIGN §3 step 4).

The executor's answer is untrusted: anything but a `ProposedAction` is an unusable proposal, and
one the safety filter blocked proposes nothing. UI-TARS points are snapped to the smallest
actionable element that contains them (the action then uses its index), except on a slider,
which acts where it is touched.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from android_world.agents.custom import celil_geometry
from android_world.agents.custom.celil_protocols import (
    ActionGenerator,
    ElementSelector,
    Observation,
    ProposedAction,
)
from android_world.agents.custom.loop.celil_events import EventLog
from android_world.agents.custom.loop.celil_gate import ExecutorFeedback
from android_world.agents.custom.loop.celil_step_data import StepData
from android_world.env import json_action

_SNAPPABLE = (
    json_action.CLICK,
    json_action.LONG_PRESS,
    json_action.DOUBLE_TAP,
    json_action.INPUT_TEXT,
)


def checked_proposal(answer: Any) -> ProposedAction:
    """The executor's answer as a proposal the loop may use (safety-blocked: no action)."""
    if not isinstance(answer, ProposedAction):
        return ProposedAction(None, error=f"executor returned {type(answer).__name__}")
    if answer.is_safe is False and answer.error is None:
        return dataclasses.replace(
            answer, action=None, sub_goal_finished=False, error="blocked by safety filter"
        )
    if answer.is_safe is False:
        return dataclasses.replace(answer, action=None, sub_goal_finished=False)
    return answer


def vision_proposal(index: int, observation: Observation) -> ProposedAction:
    """A tap on the element the vision fallback picked."""
    return ProposedAction(
        json_action.JSONAction(action_type=json_action.CLICK, index=index),
        thought="vision fallback picked the element after unusable executor output",
        target_description=celil_geometry.element_label(observation.ui_elements[index]),
    )


@dataclasses.dataclass(frozen=True)
class Snap:
    """The action after snapping, and the point it came from (`snapped`) or kept (`kept`)."""

    action: json_action.JSONAction
    snapped: dict[str, Any] | None = None
    kept: dict[str, Any] | None = None


def snap(action: json_action.JSONAction, observation: Observation) -> Snap:
    if action.action_type not in _SNAPPABLE or action.index is not None:
        return Snap(action)
    if action.x is None or action.y is None:
        return Snap(action)
    index = celil_geometry.snap_to_element(
        action.x, action.y, observation.ui_elements, observation.screen_size
    )
    if index is None:
        return Snap(action)
    point = {"x": action.x, "y": action.y, "index": index}
    if celil_geometry.is_position_sensitive(observation.ui_elements[index]):
        return Snap(
            action, kept=point
        )  # a slider acts where it is touched; its centre is another value
    return Snap(dataclasses.replace(action, index=index, x=None, y=None), snapped=point)


class Proposer:
    """One episode's proposals: the executor's, with the feedback on its last one, and the
    vision fallback's pick after unusable ones."""

    def __init__(
        self,
        executor: ActionGenerator,
        vision: ElementSelector | None,
        log: EventLog,
        feedback: ExecutorFeedback,
    ):
        self._executor = executor
        self._vision = vision
        self._log = log
        self._feedback = feedback

    def propose(
        self, sub_goal: str, observation: Observation, context: str, record: StepData
    ) -> ProposedAction:
        feedback = self._feedback.take()
        if feedback:
            context = f"{context}\n{feedback}"
            record.rejection_feedback = feedback
        try:
            with self._log.timed("section_leader"):
                answer = self._executor.generate_action(sub_goal, observation, context)
        except Exception as error:
            answer = ProposedAction(None, error=f"executor raised {type(error).__name__}: {error}")
        proposal = checked_proposal(answer)
        self._log.stats.proposals += 1
        if not proposal.usable:
            self._log.stats.unusable_proposals += 1
        self._log.emit("action_proposed", sub_goal=sub_goal, **record.add_proposal(proposal))
        return proposal

    def vision_select(
        self, sub_goal: str, observation: Observation, record: StepData
    ) -> ProposedAction | None:
        if self._vision is None:
            return None
        try:
            with self._log.timed("vision_fallback"):
                index = self._vision.select_element(sub_goal, observation)
        except Exception as error:
            self._log.warn(f"vision selector raised {type(error).__name__}: {error}", record)
            index = None
        valid = isinstance(index, int) and 0 <= index < len(observation.ui_elements)
        self._log.emit("vision_select", sub_goal=sub_goal, index=index, valid=valid)
        if not valid:
            return None
        self._log.stats.vision_selects += 1
        record.vision_select = index
        return vision_proposal(index, observation)
