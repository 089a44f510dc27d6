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
from android_world.agents.custom.celil_protocols import Observation, ProposedAction
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
