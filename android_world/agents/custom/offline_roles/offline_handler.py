"""The shape of one row of the offline roles' intent table (`handlers.HANDLERS`) and of one
goal-shape rule of the planner (`handlers.PLAN_RULES`).

An intent family (settings switches, forms, lists, dates, questions, app navigation) owns, for
each intent kind it reads: the done check the planner's progress check and the executor use,
how the executor acts on it, which targets the verifier lets through, and the plan rules that
write its sub-goals. The planner, executor and verifier only dispatch through the table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Literal

from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.offline_common import Chosen
from android_world.agents.custom.offline_roles.offline_intent import Intent

DoneCheck = Callable[[Intent, Observation, list[screen.PastStep]], tuple[bool, str]]
# (executor, intent, goal info, screen, history, screen signature) -> the step, or None to let
# the executor fall back to matching the sub-goal's words on screen.
Act = Callable[
    [Any, Intent, text_lib.GoalInfo, Observation, list[screen.PastStep], str], Chosen | None
]
# (executor, intent, goal info, screen, context summary) -> (answer, why) once read, else None.
Read = Callable[[Any, Intent, text_lib.GoalInfo, Observation, str], tuple[str, str] | None]
TargetOk = Callable[[Intent, Observation, int, text_lib.GoalInfo | None], bool]


def _never(intent: Intent, obs: Observation, index: int, info: text_lib.GoalInfo | None) -> bool:
    return False


def on_screen(method: Callable[..., Chosen | None], **options: Any) -> Act:
    """The act of an intent whose step depends on the sub-goal and the screen alone: the family's
    method, called as `method(executor, intent, screen, signature, **options)` (e.g.
    `on_screen(ListActs._delete)`), so a table row names the move it makes instead of a
    six-argument wrapper that drops the goal info and history."""
    return lambda gen, intent, info, obs, history, signature: method(
        gen, intent, obs, signature, **options
    )


@dataclasses.dataclass(frozen=True)
class IntentHandler:
    """One intent kind: its done check, its act, its reader and its verifier exceptions.

    `stage` says when the executor acts on it: `first` before anything else (opening an app),
    `prompt` right after a permission request is accepted (before reopening the goal's app),
    `in_app` once the goal's app is in front.

    `evidence` says what backs its done verdict (`offline_done.sub_goal_evidence`): `state` the
    screen's state (a switch, a field, the foreground app); `form` a form open, which must also
    show the values the sub-goal names; `gone` a deleted row gone from its list; `slider` a
    slider at its end, or dragged there; `control` a named control tapped (or its opposite
    showing); `step` a step that went through for it; `named_step` a step that counts only when
    it aimed at a control the sub-goal names.
    """

    kind: str
    family: str
    done: DoneCheck
    act: Act | None = None
    stage: Literal["first", "prompt", "in_app"] = "in_app"
    read: Read | None = None
    target_ok: TargetOk = _never
    evidence: Literal["state", "form", "gone", "slider", "control", "step", "named_step"] = (
        "named_step"
    )


@dataclasses.dataclass
class PlanDraft:
    """The plan being written for one goal, with the goal's words the plan rules read."""

    info: text_lib.GoalInfo
    subs: list[str]
    max_sub_goals: int
    verbs: set[str]
    obj: str
    forbidden: set[str]
    creating: set[str]
    fields: dict[str, str]


@dataclasses.dataclass(frozen=True)
class PlanRule:
    """One goal shape: `write` adds its sub-goals and returns True when the goal has it; the
    planner applies the first rule (in table order) that does."""

    name: str
    family: str
    write: Callable[[PlanDraft], bool]
