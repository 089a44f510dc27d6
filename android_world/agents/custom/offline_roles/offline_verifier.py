"""The offline verifier (three personas as rules) and the offline element selector."""

from __future__ import annotations

from typing import Any

from android_world.agents.custom.celil_protocols import (
    ElementSelector,
    Observation,
    ProposedAction,
    Verifier,
    Vote,
)
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.handlers import HANDLERS
from android_world.agents.custom.offline_roles.offline_common import (
    NAVIGATE_MIN_RELEVANCE,
    TAG,
    TAP_TYPES,
    stem_words,
)
from android_world.agents.custom.offline_roles.offline_intent import (
    Intent,
    intent_terms,
    parse_sub_goal,
)
from android_world.agents.custom.roles.celil_quality_control import (
    DEFAULT_WEIGHTS,
    EFFICIENCY_EXPERT,
    IRREVERSIBLE_WORDS,
    PRAGMATIST,
    SKEPTIC,
    describe_action,
)
from android_world.env import json_action


def _typed_from_goal(
    action: json_action.JSONAction, intent: Intent, obs: Observation, info: text_lib.GoalInfo
) -> bool:
    """Typed text comes from the goal; so does a rewrite of a field that puts the goal's text
    before what the field already holds (adding at the top)."""
    if text_lib.value_in_goal(action.text, info.goal):
        return True
    typed, value = action.text or "", intent.value or ""
    if intent.kind != "prepend" or not value or not typed.startswith(value):
        return False
    index = action.index
    if not isinstance(index, int) or not 0 <= index < len(obs.ui_elements):
        return False
    held = screen.field_text(obs.ui_elements[index])
    return text_lib.normalize(typed[len(value) :]) == text_lib.normalize(held)


# Goals often ask for an irreversible step without naming it: a reply is sent, a text message
# is sent, a share by SMS is sent.
_IMPLIED = {
    "reply": "send",
    "share": "send",
    "text message": "send",
    "erase": "delete",
    "remove": "delete",
    "trash": "delete",
    "clear all": "delete",
}


def implied_verbs(goal: str) -> set[str]:
    return {verb for phrase, verb in _IMPLIED.items() if text_lib.phrase_in(phrase, goal)}


def intent_target_ok(
    intent: Intent, obs: Observation, index: int, info: text_lib.GoalInfo | None = None
) -> bool:
    """Targets that serve the intent though their words do not match it (a keypad digit, a
    form's OK button, the first item of a list, the chooser of a field, the goal's day): the
    intent family's `target_ok`."""
    handler = HANDLERS.get(intent.kind)
    return handler is not None and handler.target_ok(intent, obs, index, info)


class OfflineVerifier(Verifier):
    """Verifier protocol without a model: the three personas as rules on the 0-10 scale.

    Pragmatist: does the target relate to the sub-goal? Skeptic: is it a field for typing, not a
    repeat of a step that just failed, and not irreversible without the goal asking for it?
    Efficiency Expert: is it the direct step (no scrolling past a visible target)?
    """

    def __init__(
        self,
        *,
        weights: tuple[float, float, float] = DEFAULT_WEIGHTS,
        threshold: float = 7.0,
        irreversible_threshold: float = 8.5,
        **_ignored: Any,
    ):
        self.weights = dict(zip((PRAGMATIST, SKEPTIC, EFFICIENCY_EXPERT), weights))
        self.threshold = threshold
        self.irreversible_threshold = irreversible_threshold

    def verify_action(
        self,
        sub_goal: str,
        proposed_action: ProposedAction,
        observation: Observation,
        context_summary: str,
    ) -> tuple[float, list[Vote]]:
        goal = screen.goal_from_context(context_summary)
        info = text_lib.parse_goal(goal or sub_goal)
        intent = parse_sub_goal(sub_goal, info)
        history = screen.parse_history(context_summary)
        votes = [
            Vote(PRAGMATIST, *self._pragmatist(intent, info, proposed_action, observation)),
            Vote(SKEPTIC, *self._skeptic(intent, info, proposed_action, observation, history)),
            Vote(EFFICIENCY_EXPERT, *self._efficiency(intent, info, proposed_action, observation)),
        ]
        total = sum(self.weights.values()) or 1.0
        score = sum(self.weights[v.persona] * v.score for v in votes) / total
        return round(score, 3), votes

    @staticmethod
    def _target(action: json_action.JSONAction, obs: Observation) -> int | None:
        index = action.index
        if isinstance(index, int) and 0 <= index < len(obs.ui_elements):
            return index
        return None

    def _pragmatist(
        self, intent: Intent, info: text_lib.GoalInfo, proposed: ProposedAction, obs: Observation
    ) -> tuple[float, str]:
        action = proposed.action
        if action is None:
            return 0.0, f"{TAG} no action"
        kind = action.action_type
        if kind == json_action.OPEN_APP:
            wanted = [intent.app] if intent.app else info.apps
            if any(text_lib.canonical_app(action.app_name or "") == a for a in wanted if a):
                return 9.5, f"{TAG} opens {action.app_name}, the app the goal needs"
            return 3.0, f"{TAG} {action.app_name} is not an app the goal names"
        index = self._target(action, obs)
        if kind in TAP_TYPES:
            if index is None:
                return 3.0, f"{TAG} the tap hits no known element"
            if index == screen.grant_button(obs):
                return 8.5, f"{TAG} accepts a permission request that blocks the app"
            if index == screen.interruption_button(obs):
                return 8.5, f"{TAG} closes a pop-up the app showed on its own"
            rel = min(1.0, screen.relevance(obs, index, intent_terms(intent, info)))
            if intent_target_ok(intent, obs, index, info):
                rel = max(rel, 0.85)
            if intent.kind == "toggle" and screen.is_switch(obs.ui_elements[index]):
                rel = max(rel, 0.5 + 0.5 * rel)
            return round(1.0 + 8.5 * rel, 2), f"{TAG} target relevance to the sub-goal {rel:.2f}"
        if kind == json_action.INPUT_TEXT:
            if not _typed_from_goal(action, intent, obs, info):
                return 3.0, f"{TAG} the typed text is not from the goal"
            if intent.kind == "fill" and index is not None:
                return 9.0, f"{TAG} types the goal's value into a field"
            return 7.0, f"{TAG} types text from the goal"
        if kind == json_action.SCROLL:
            if index is not None and screen.is_slider(obs.ui_elements[index]):
                return (9.0 if intent.kind == "level" else 4.0), f"{TAG} drags a slider"
            return 6.5, f"{TAG} scrolling to look for the target"
        if kind == json_action.NAVIGATE_BACK:
            return 6.5, f"{TAG} going back to find another way"
        if kind in (json_action.NAVIGATE_HOME, json_action.WAIT, json_action.SWIPE):
            return 5.0, f"{TAG} a neutral step"
        if kind in (json_action.ANSWER, json_action.STATUS, json_action.KEYBOARD_ENTER):
            return 7.0, f"{TAG} a finishing step"
        return 4.0, f"{TAG} an unusual action"

    def _skeptic(
        self,
        intent: Intent,
        info: text_lib.GoalInfo,
        proposed: ProposedAction,
        obs: Observation,
        history: list[screen.PastStep],
    ) -> tuple[float, str]:
        action = proposed.action
        if action is None:
            return 0.0, f"{TAG} no action"
        kind = action.action_type
        index = self._target(action, obs)
        elements = obs.ui_elements
        if kind == json_action.INPUT_TEXT:
            target_is_field = index is not None and screen.is_field(elements[index])
            focused = any(e.is_focused and screen.is_field(e) for e in elements)
            if not target_is_field and not focused:
                return 2.0, f"{TAG} typing needs a text field and the target is not one"
            if not _typed_from_goal(action, intent, obs, info):
                return 3.0, f"{TAG} the text differs from what the goal says"
        description = self._describe(action, obs)
        for step in history[-3:]:
            if step.action == description and not step.ok:
                return 3.0, f"{TAG} the same action just failed ({step.outcome})"
        if kind in TAP_TYPES and index is not None:
            element = elements[index]
            if element.is_enabled is False:
                return 2.0, f"{TAG} the target is disabled"
            if (
                intent.kind == "toggle"
                and screen.is_switch(element)
                and bool(element.is_checked) == intent.state
            ):
                return 1.0, f"{TAG} the switch is already in the wanted state"
            label = " ".join(screen.element_names(obs, index))
            risky = stem_words(label) & set(IRREVERSIBLE_WORDS)
            if risky:
                if risky & (stem_words(info.goal) | implied_verbs(info.goal)):
                    return 10.0, f"{TAG} irreversible ({', '.join(risky)}) but the goal asks for it"
                return (
                    1.5,
                    f"{TAG} irreversible ({', '.join(risky)}) and the goal does not ask for it",
                )
        if kind == json_action.OPEN_APP and not action.app_name:
            return 1.0, f"{TAG} open_app without an app name"
        return 9.0, f"{TAG} no problem found"

    def _efficiency(
        self, intent: Intent, info: text_lib.GoalInfo, proposed: ProposedAction, obs: Observation
    ) -> tuple[float, str]:
        action = proposed.action
        if action is None:
            return 0.0, f"{TAG} no action"
        kind = action.action_type
        if kind == json_action.OPEN_APP:
            if text_lib.activity_matches_app(obs.foreground_activity, action.app_name or ""):
                return 3.0, f"{TAG} the app is already open"
            return 10.0, f"{TAG} opening the app directly is the shortest way"
        if kind == json_action.SCROLL and not (
            self._target(action, obs) is not None
            and screen.is_slider(obs.ui_elements[self._target(action, obs) or 0])
        ):
            terms = intent_terms(intent, info)
            visible = [
                i
                for i in screen.content_indices(obs)
                if obs.ui_elements[i].is_clickable and screen.relevance(obs, i, terms) >= 0.9
            ]
            if visible:
                return 4.0, f"{TAG} a matching target is already visible; scrolling is a detour"
            return 8.0, f"{TAG} scrolling is needed to find the target"
        if kind in (json_action.NAVIGATE_BACK, json_action.NAVIGATE_HOME):
            return 6.0, f"{TAG} going back costs steps"
        return 9.0, f"{TAG} a direct step"

    @staticmethod
    def _describe(action: json_action.JSONAction, obs: Observation) -> str:
        return describe_action(action, obs.ui_elements)


# --------------------------------------------------------------------------------------------
# Vision-fallback stand-in


class OfflineElementSelector(ElementSelector):
    """ElementSelector protocol without a model: the element whose words best match."""

    def select_element(self, sub_goal: str, observation: Observation) -> int | None:
        info = text_lib.parse_goal(sub_goal)
        terms = intent_terms(parse_sub_goal(sub_goal, info), info)
        best: tuple[float, int] | None = None
        for i in screen.content_indices(observation):
            score = screen.relevance(observation, i, terms)
            if best is None or score > best[0]:
                best = (score, i)
        return best[1] if best is not None and best[0] >= NAVIGATE_MIN_RELEVANCE else None
