"""The offline executor as a free second opinion for the gate (issue 30): what it would do on
the same screen, and whether that came from one of its intent families (a confident grounding)
or from its fallback, the closest word match, which is no opinion.

It grounds the model executor's sub-goal first. A sub-goal none of its families reads (a plan
of one step, "Do the whole task as asked", or words it does not know) is replaced by the
offline planner's own sub-goals for the goal: each one not yet done on this screen that a
family grounds gives one acceptable action.

Each question gets a fresh executor, so no tried or dud action, scroll count or pending answer
carries over between questions, and nothing reaches the offline agent's own executor: its
behaviour does not depend on whether a second opinion was asked.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.offline_actor import OfflineActionGenerator
from android_world.agents.custom.offline_roles.offline_intent import Intent
from android_world.agents.custom.offline_roles.offline_planner import build_plan
from android_world.env import json_action


@dataclasses.dataclass(frozen=True)
class OfflineOpinion:
    """The actions the offline executor's intent families ground on this screen (`confident`:
    at least one), with its reason; empty when it would finish, answer, give up or fall back."""

    actions: tuple[json_action.JSONAction, ...]
    why: str

    @property
    def confident(self) -> bool:
        return bool(self.actions)


class _ShadowActor(OfflineActionGenerator):
    """The offline executor, noting when its choice came from the closest-word fallback."""

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.fell_back = False

    def _navigate(
        self, intent: Intent, info: text_lib.GoalInfo, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction | None, str, str]:
        self.fell_back = True
        return super()._navigate(intent, info, obs, signature)


def ground(
    goal: str, sub_goal: str, observation: Observation, context_summary: str
) -> tuple[json_action.JSONAction | None, str]:
    """A fresh offline executor's action for `sub_goal` when an intent family chose it."""
    actor = _ShadowActor(goal=goal)
    try:
        proposal = actor.generate_action(sub_goal, observation, context_summary)
    except Exception as error:  # a screen it cannot read is no opinion, never a crash
        return None, f"offline executor failed: {type(error).__name__}"
    if proposal.action is None or actor.fell_back:
        return None, proposal.thought
    return proposal.action, proposal.thought


class OfflineSecondOpinion:
    """Asks fresh offline executors what they would do; never raises (no opinion instead)."""

    def __init__(self) -> None:
        self._plans: dict[tuple[str, tuple[str, ...]], list[str]] = {}

    def opinion(
        self, goal: str, sub_goal: str, observation: Observation, context_summary: str
    ) -> OfflineOpinion:
        if len(goal) > text_lib.READ_GOAL_MAX_CHARS:
            return OfflineOpinion((), "a goal too long to read model-free")
        action, why = ground(goal, sub_goal, observation, context_summary)
        if action is not None:
            return OfflineOpinion((action,), why)
        actions: list[json_action.JSONAction] = []
        reasons: list[str] = []
        for step in self._offline_plan(goal, observation):
            if step == sub_goal:
                continue
            action, why = ground(goal, step, observation, context_summary)
            if action is not None and action not in actions:
                actions.append(action)
                reasons.append(f"{step}: {why}")
        return OfflineOpinion(tuple(actions), "; ".join(reasons))

    def _offline_plan(self, goal: str, observation: Observation) -> list[str]:
        """The offline planner's sub-goals for the goal (a pure function of the goal and the
        launcher's labels, so kept per goal)."""
        labels = tuple(screen.launcher_labels(observation))
        key = (goal, labels)
        if key not in self._plans:
            try:
                self._plans[key] = build_plan(text_lib.parse_goal(goal, list(labels)))[0]
            except Exception:
                self._plans[key] = []
            if len(self._plans) > 64:
                self._plans.pop(next(iter(self._plans)))
        return self._plans[key]
