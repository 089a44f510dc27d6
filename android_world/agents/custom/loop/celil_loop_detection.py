"""Loop detection (DESIGN §3 step 11): the same action again and again with no screen change, or
A-B-A-B between two screens, triggers a rehearsal instead of spending the step budget.
"""

from __future__ import annotations

from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.roles import celil_perception
from android_world.env import json_action

# Steps of history kept: enough for the longest pattern looked for.
HISTORY = 8


def screen_key(observation: Observation) -> str:
    """Identity of a screen for "did anything change": the UI tree when there is one.

    Pixels alone are wrong both ways: a blank test frame never changes, and a real device's
    clock or cursor blink always does; the tree is what actions change.
    """
    if observation.ui_elements:
        activity = observation.foreground_activity or ""
        return f"{activity}:{celil_perception.ui_digest(observation.ui_elements)}"
    return observation.frame_hash


def action_key(action: json_action.JSONAction | None) -> str:
    return action.json_str() if action is not None else ""


def detect_loop(history: list[tuple[str, str, str]], repeat_limit: int) -> str | None:
    """`repeat` when the last `repeat_limit` actions are identical and changed nothing;
    `oscillation` for A-B-A-B where the screens alternate too. History: (action, before, after).

    Identical actions that do change the screen (paging through a list) are not a loop.
    """
    if repeat_limit >= 2 and len(history) >= repeat_limit:
        tail = history[-repeat_limit:]
        if len({a for a, _, _ in tail}) == 1 and all(b == c for _, b, c in tail):
            return "repeat"
    if len(history) >= 4:
        (a1, _, s1), (b1, _, s2), (a2, _, s3), (b2, _, s4) = history[-4:]
        if a1 == a2 and b1 == b2 and a1 != b1 and s1 == s3 and s2 == s4:
            return "oscillation"
    return None


class LoopDetector:
    """The episode's recent (action, screen before, screen after) and the loop they form."""

    def __init__(self, repeat_limit: int) -> None:
        self.repeat_limit = repeat_limit
        self.history: list[tuple[str, str, str]] = []

    def record(
        self, action: json_action.JSONAction, before: Observation, after: Observation
    ) -> None:
        self.history.append((action_key(action), screen_key(before), screen_key(after)))
        del self.history[:-HISTORY]

    def check(self) -> str | None:
        """The loop the history ends in, if any; a loop found is forgotten (it is rehearsed)."""
        loop = detect_loop(self.history, self.repeat_limit)
        if loop is not None:
            self.history.clear()
        return loop

    def why(self, loop: str) -> str:
        if loop == "repeat":
            return f"the same action ran {self.repeat_limit} times without changing the screen"
        return "the agent is alternating between two actions and two screens"
