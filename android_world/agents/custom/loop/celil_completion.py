"""Completion follows the goal, not the plan (DESIGN §3, step 10).

A plan is the agent's guess at a route; running out of it proves nothing, and a plan step that
never becomes true (a "Tap 'Save'" in an app that saves by itself) must not keep a done task
from being claimed. This keeps the episode's trail of screens and actions and asks the screen
checker (the model-free reader the factory injects) whether the screens show the whole goal
done: `done`, `unmet` (with the clause that is not) or `unknown`. The agent claims `complete`
on `done` (even before the plan ends), never on `unmet`, and on `unknown` only when the planner,
shown the screen, says done with evidence that is on it.
"""

from __future__ import annotations

import dataclasses

from android_world.agents.custom import celil_geometry
from android_world.agents.custom.celil_protocols import (
    NO_CHECKER,
    GoalVerdict,
    Observation,
    ScreenChecker,
    TrailStep,
    without_pixels,
)
from android_world.env import json_action

# Steps of trail kept: a budget is at most a few dozen steps; this bounds a runaway episode.
MAX_TRAIL = 200


@dataclasses.dataclass
class GoalTracker:
    """The trail of one episode and the whole-goal verdicts read from it."""

    checker: ScreenChecker | None = None
    trail: list[TrailStep] = dataclasses.field(default_factory=list)
    last: GoalVerdict | None = None
    unmet_seen: int = 0
    planner_confirmed: bool = False

    def record(
        self,
        step: int,
        observation: Observation,
        action: json_action.JSONAction,
        *,
        ok: bool,
        changed: bool,
    ) -> None:
        index = action.index if isinstance(action.index, int) else None
        target = ""
        if index is not None and 0 <= index < len(observation.ui_elements):
            target = celil_geometry.element_label(observation.ui_elements[index])
        typed = action.text or "" if action.action_type == json_action.INPUT_TEXT else ""
        self.trail.append(
            TrailStep(
                step=step,
                screen=without_pixels(observation),
                action_type=action.action_type,
                index=index,
                target=target,
                typed=typed,
                ok=ok,
                changed=changed,
            )
        )
        del self.trail[:-MAX_TRAIL]

    def verdict(self, goal: str, observation: Observation) -> GoalVerdict:
        if self.checker is None:
            return NO_CHECKER
        verdict = self.checker.check_goal(goal, self.trail, observation)
        return verdict if isinstance(verdict, GoalVerdict) else NO_CHECKER

    def covers_goal(self, goal: str, sub_goal: str) -> bool:
        """The sub-goal is the goal itself in other words (verbatim, restated, "verify ...")."""
        return self.checker is not None and bool(self.checker.covers_goal(goal, sub_goal))

    def changed(self, verdict: GoalVerdict) -> bool:
        """Whether the verdict says something new (events record changes, not every step)."""
        key = (verdict.status, verdict.reason())
        last = (self.last.status, self.last.reason()) if self.last is not None else None
        self.last = verdict
        return key != last
