"""A model-free second opinion in the gate (issue 30, `second_opinion`).

The offline executor, asked what it would do with the model executor's sub-goal on the same
screen (or, when it cannot read that sub-goal, with the offline planner's sub-goals for the
goal), costs no model call. When one of its intent families grounds it on exactly the model's
action (same type, same target element, same text, same direction, same app), two
independent routes reached one action and the vote is skipped. When it grounds the sub-goal on a
different action, `vote` asks the vote a skip rule would have saved on a tap or scroll after
all, and `strict` also wants every readable vote to pass. Its fallback (the element whose words best match)
is no opinion: it can pick the same stray label a wrong model tap picks.

The offline executor is reached through `OpinionSource` (the factory builds it from the offline
roles module), so the loop does not import the offline roles.
"""

from __future__ import annotations

import dataclasses
from typing import Literal, Protocol

from android_world.agents.custom.celil_protocols import Observation, ProposedAction, Vote
from android_world.agents.custom.loop.celil_irreversible import action_target_element
from android_world.env import json_action

SecondOpinionMode = Literal["off", "skip", "vote", "strict"]
SECOND_OPINION_MODES: tuple[str, ...] = ("off", "skip", "vote", "strict")
AGREES_REASON = "the model-free executor proposes the same action"
# Skip rules a disagreement overrides: taps and scrolls, which let wrong actions run (issue 30's
# per-rule counts); opening an app, going back and typing the goal's words let none run.
_OVERRIDABLE = (
    json_action.CLICK,
    json_action.LONG_PRESS,
    json_action.DOUBLE_TAP,
    json_action.SCROLL,
)


class OfflineProposal(Protocol):
    """The actions the model-free executor grounds confidently on this screen (none: no opinion)."""

    actions: tuple[json_action.JSONAction, ...]
    why: str


class OpinionSource(Protocol):
    def opinion(
        self, goal: str, sub_goal: str, observation: Observation, context_summary: str
    ) -> OfflineProposal: ...


@dataclasses.dataclass(frozen=True)
class Opinion:
    """`verdict`: "agrees", "disagrees" or "none" (no confident offline action)."""

    verdict: str
    offline: str = ""

    @property
    def agrees(self) -> bool:
        return self.verdict == "agrees"

    @property
    def disagrees(self) -> bool:
        return self.verdict == "disagrees"


def _norm(text: str | None) -> str:
    return " ".join((text or "").split()).casefold()


def _target(action: json_action.JSONAction, observation: Observation) -> int | None:
    """The index of the element the action acts on (by index, or the point snapped to one)."""
    element = action_target_element(action, observation)
    if element is None:
        return None
    for i, candidate in enumerate(observation.ui_elements):
        if candidate is element:
            return i
    return None


def same_action(
    model: json_action.JSONAction, offline: json_action.JSONAction, observation: Observation
) -> bool:
    """Whether two actions do the same thing on this screen."""
    kind = model.action_type
    if kind != offline.action_type:
        return False
    if kind in (json_action.CLICK, json_action.LONG_PRESS, json_action.DOUBLE_TAP):
        target = _target(model, observation)
        return target is not None and target == _target(offline, observation)
    if kind == json_action.INPUT_TEXT:
        if _norm(model.text) != _norm(offline.text):
            return False
        mine, theirs = _target(model, observation), _target(offline, observation)
        return mine is None or theirs is None or mine == theirs
    if kind in (json_action.SCROLL, json_action.SWIPE):
        return _norm(model.direction) == _norm(offline.direction)
    if kind == json_action.OPEN_APP:
        return _norm(model.app_name) == _norm(offline.app_name)
    return kind in (json_action.NAVIGATE_BACK, json_action.NAVIGATE_HOME)


def judge(
    source: OpinionSource,
    goal: str,
    sub_goal: str,
    proposal: ProposedAction,
    observation: Observation,
    context: str,
) -> Opinion:
    """Compare the model's proposal with the offline executor's confident one."""
    if proposal.action is None:
        return Opinion("none")
    try:
        offline = source.opinion(goal, sub_goal, observation, context)
    except Exception:
        return Opinion("none")
    if not offline.actions:
        return Opinion("none")
    for action in offline.actions:
        if same_action(proposal.action, action, observation):
            return Opinion("agrees", action.json_str())
    return Opinion("disagrees", " or ".join(a.json_str() for a in offline.actions))


def skip_reason(
    opinion: Opinion, irreversible: str | None, target_allowed: bool, irreversible_too: bool
) -> str | None:
    """Why agreement saves the vote, or None. An irreversible act is skipped only when allowed
    (`second_opinion_irreversible`) and the irreversible guard found its target in the goal."""
    if not opinion.agrees:
        return None
    if irreversible and not (irreversible_too and target_allowed):
        return None
    return f"{AGREES_REASON} ({opinion.offline})"


def overrides_skip(opinion: Opinion, mode: str, proposal: ProposedAction) -> bool:
    """Whether a disagreement puts a tap or scroll a skip rule would wave through to a vote."""
    action = proposal.action
    return (
        mode in ("vote", "strict")
        and opinion.disagrees
        and action is not None
        and action.action_type in _OVERRIDABLE
    )


def strict_pass(votes: list[Vote], threshold: float) -> bool:
    """On a disagreement (`strict`): every readable vote reaches the threshold."""
    return all(v.score >= threshold for v in votes if v.parseable)
