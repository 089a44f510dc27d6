"""The offline executor (ActionGenerator role): grounds a sub-goal on the screen through its
intent family's act (`handlers.HANDLERS`), after closing pop-ups, accepting permission requests
and reopening the goal's app; a sub-goal no family acts on goes to the closest word match."""

from __future__ import annotations

import json

from android_world.agents.custom.celil_geometry import element_label
from android_world.agents.custom.celil_protocols import ActionGenerator, Observation, ProposedAction
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.handlers import HANDLERS
from android_world.agents.custom.offline_roles.handlers.dates import with_today
from android_world.agents.custom.offline_roles.handlers.forms import FormActs
from android_world.agents.custom.offline_roles.handlers.lists import ListActs
from android_world.agents.custom.offline_roles.handlers.questions import (
    QuestionActs,
    screen_answer,
)
from android_world.agents.custom.offline_roles.offline_common import (
    TAG,
    Chosen,
    action_key,
    fact_today,
    make_action,
)
from android_world.agents.custom.offline_roles.offline_done import sub_goal_evidence
from android_world.agents.custom.offline_roles.offline_intent import Intent, parse_sub_goal
from android_world.env import json_action


def _typing_took(key: str, observation: Observation) -> bool:
    """The last action typed into a field and the field now holds the text. The screen's
    signature leaves typed text out, so a form looks unchanged after typing; counted a dud, the
    same typing on the next record's empty form (same name twice) was never proposed again."""
    try:
        action = json.loads(key)
    except ValueError:
        return False
    index = action.get("index")
    if action.get("action_type") != json_action.INPUT_TEXT or not isinstance(index, int):
        return False
    if not 0 <= index < len(observation.ui_elements):
        return False
    held = screen.field_text(observation.ui_elements[index])
    return bool(held) and text_lib.normalize(held) == text_lib.normalize(action.get("text"))


class OfflineActionGenerator(FormActs, ListActs, QuestionActs, ActionGenerator):
    """ActionGenerator protocol without a model: grounds the sub-goal on the screen by words.

    It remembers, per sub-goal and screen, which actions it already tried and which changed
    nothing (or were rejected by the verifiers), so after a rehearsal it tries the next
    candidate instead of repeating itself.
    """

    def generate_action(
        self, sub_goal: str, observation: Observation, context_summary: str
    ) -> ProposedAction:
        info = self._goal_info(context_summary, observation)
        signature = screen.screen_signature(observation)
        if (
            self._last is not None
            and self._last[0] == signature
            and not _typing_took(self._last[1], observation)
        ):
            # The last action ran and the screen did not change: it is a dud here.
            self._duds.setdefault(signature, set()).add(self._last[1])
        self._last = None
        intent = parse_sub_goal(sub_goal, info)
        self._today = self._today or fact_today(context_summary)
        intent = with_today(intent, self._today, observation)
        history = screen.parse_history(context_summary)
        evidence = sub_goal_evidence(intent, observation, history)
        if evidence.done and evidence.kind != "action":
            return ProposedAction(
                None,
                thought=f"{TAG} the sub-goal is already done: {evidence.text}",
                sub_goal_finished=True,
                finished_content=None,
            )
        closing = self._close_interruption(observation, signature, sub_goal)
        if closing is not None:
            return closing
        reading = self._read(intent, info, observation, context_summary)
        if reading is not None:
            content, why = reading
            return ProposedAction(
                None,
                thought=f"{TAG} {why}",
                sub_goal_finished=True,
                finished_content=content,
            )
        action, thought, target = self._choose(intent, info, observation, history, signature)
        leaving = action is None or action.action_type in (
            json_action.NAVIGATE_BACK,
            json_action.OPEN_APP,
        )
        if intent.kind == "find" and leaving:
            # Nothing left to look at here: answer from what has been seen rather than wander.
            return ProposedAction(
                None,
                thought=f"{TAG} nothing more to explore for the question; answering from the screen",
                sub_goal_finished=True,
                finished_content=screen_answer(info.goal, observation, context_summary),
            )
        if action is None:
            return ProposedAction(None, thought=f"{TAG} {thought}", error=f"{TAG} {thought}")
        self._last = (signature, action_key(action), sub_goal)
        self._tried.setdefault((sub_goal, signature), set()).add(action_key(action))
        return ProposedAction(
            action, thought=f"{TAG} {thought}", target_description=target, is_safe=None
        )

    def _close_interruption(
        self, observation: Observation, signature: str, sub_goal: str
    ) -> ProposedAction | None:
        """Close a pop-up the app showed on its own before anything else: read through, its
        title passes for content (a question answered "What's new in Simple Calendar Pro")."""
        index = screen.interruption_button(observation)
        if index is None:
            return None
        action = make_action(json_action.CLICK, index=index)
        if not self._usable(action, signature):
            action = make_action(json_action.NAVIGATE_BACK)
            if not self._usable(action, signature):
                return None
        self._last = (signature, action_key(action), sub_goal)
        label = element_label(observation.ui_elements[index])
        return ProposedAction(
            action,
            thought=f"{TAG} close the pop-up in the way ({label})",
            target_description=label,
            is_safe=None,
        )

    def _choose(
        self,
        intent: Intent,
        info: text_lib.GoalInfo,
        obs: Observation,
        history: list[screen.PastStep],
        signature: str,
    ) -> Chosen:
        """The intent family's act, at its stage: before anything else (open an app), right
        after accepting a permission request in the way, or once the goal's app is in front;
        when it has nothing, the element that best matches the sub-goal's words."""
        handler = HANDLERS.get(intent.kind)
        act = handler.act if handler is not None else None
        stage = handler.stage if handler is not None else "in_app"
        if act is not None and stage == "first":
            return act(self, intent, info, obs, history, signature)
        grant = screen.grant_button(obs)
        if grant is not None:
            action = make_action(json_action.CLICK, index=grant)
            if self._usable(action, signature):
                return (
                    action,
                    "accept the permission request in the way",
                    element_label(obs.ui_elements[grant]),
                )
        if act is not None and stage == "prompt":
            return act(self, intent, info, obs, history, signature)
        away = self._leave_other_app(intent, info, obs, signature)
        if away is not None:
            return away
        chosen = act(self, intent, info, obs, history, signature) if act is not None else None
        if chosen is not None:
            return chosen
        return self._navigate(intent, info, obs, signature)

    def _read(
        self, intent: Intent, info: text_lib.GoalInfo, obs: Observation, context_summary: str
    ) -> tuple[str, str] | None:
        """(answer, why) once the screens read so far answer the sub-goal, else None."""
        handler = HANDLERS.get(intent.kind)
        if handler is None or handler.read is None:
            return None
        return handler.read(self, intent, info, obs, context_summary)
