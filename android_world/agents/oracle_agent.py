"""A harness check, not an agent: replays the task's own reference solution.

It uses the runner's `set_task(task)` hook to read `task.oracle_actions(env)` and executes one
yielded action per step; a `status` action (or the generator ending) ends the episode. Running
the whole suite with it checks that every task is solvable within its step budget and that the
runner, scoring and run directory work end to end. Its scores say nothing about any model.

Like a careful user on a real phone, before each step it lets the screen settle (it observes
until two observations in a row agree) and closes an app's first-launch pop-up (notification
permission, What's new, rating) if one shows: the solutions themselves never need to know.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pydantic

from android_world.agents import base_agent
from android_world.env import interface, json_action
from android_world.task_evals import oracle_utils, task_eval

# Observations to wait at most for a screen still animating (the sim's `slow` profile settles in
# four; a device that never settles is acted on anyway, as upstream's stable-state wait does).
_MAX_SETTLE_OBSERVATIONS = 12
# Steps spent at most bringing one hidden target into view (keyboard, then scrolls).
_MAX_REVEAL_STEPS = 6
_TARGETED = (
    json_action.CLICK,
    json_action.LONG_PRESS,
    json_action.DOUBLE_TAP,
    json_action.INPUT_TEXT,
)


class OracleAgentConfig(pydantic.BaseModel):
    """`agent.configurations.oracle_agent` keys."""

    model_config = pydantic.ConfigDict(extra="forbid", allow_inf_nan=False)

    name: str = "oracle_agent"
    """The agent's name in results and reports."""


class OracleAgent(base_agent.EnvironmentInteractingAgent):
    """Executes `task.oracle_actions(env)`; needs `set_task` before each episode."""

    def __init__(
        self,
        env: interface.AsyncEnv,
        name: str = "oracle_agent",
        transition_pause: float | None = 0.0,
    ):
        super().__init__(env, name=name, transition_pause=transition_pause)
        self._task: task_eval.TaskEval | None = None
        self._actions: Iterator[json_action.JSONAction] | None = None
        # An action whose target the window hides: (action, target identity, reveal steps).
        self._pending: tuple[json_action.JSONAction, tuple, int] | None = None
        self._revealed_on: list | None = None  # the elements the last reveal step acted on
        self._flip = False

    def set_task(self, task: task_eval.TaskEval) -> None:
        self._task = task
        self._actions = None

    def reset(self, go_home: bool = False) -> None:
        super().reset(go_home)
        self._actions = None
        self._pending = None

    def step(self, goal: str) -> base_agent.AgentInteractionResult:
        del goal
        if self._task is None:
            raise RuntimeError("oracle_agent needs set_task(task) before an episode.")
        state = self._settled_state()  # the screen the action is chosen on (for screenshots)
        popup = oracle_utils.first_launch_popup(state.ui_elements)
        if popup is not None:
            close = json_action.JSONAction(action_type=json_action.CLICK, index=popup)
            self.env.execute_action(close)
            return base_agent.AgentInteractionResult(
                False, {"action": close.as_dict(), "closed_popup": True}
            )
        if self._pending is None and oracle_utils.keyboard_hides_focus(state.ui_elements):
            back = json_action.JSONAction(action_type=json_action.NAVIGATE_BACK)
            self.env.execute_action(back)
            return base_agent.AgentInteractionResult(
                False, {"action": back.as_dict(), "hid_keyboard": True}
            )
        if self._pending is None:
            if self._actions is None:
                self._actions = iter(self._task.oracle_actions(self.env))
            try:
                action = next(self._actions)
            except StopIteration:
                return base_agent.AgentInteractionResult(True, {"action": None})
            if action.action_type == json_action.STATUS:
                return base_agent.AgentInteractionResult(True, {"action": action.as_dict()})
            hidden = self._hidden_target(action)
            if hidden is not None:
                self._pending, self._revealed_on, self._flip = (action, hidden, 0), None, False
            else:
                self.env.execute_action(action)
                return base_agent.AgentInteractionResult(False, {"action": action.as_dict()})
        return self._act_on_pending(state)

    def _hidden_target(self, action: json_action.JSONAction) -> tuple | None:
        """The identity of the action's target if the window hides it (else None: act now)."""
        if action.action_type not in _TARGETED or action.index is None:
            return None
        items = self.env.get_state().ui_elements  # what the solution chose on
        index = int(action.index)
        if not 0 <= index < len(items):
            return None
        if not oracle_utils.clipped_out(items[index]):
            return None  # on screen (if cut by a list edge, a tap still lands on it)
        return oracle_utils.identity(items[index])

    def _act_on_pending(self, state: interface.State) -> base_agent.AgentInteractionResult:
        """Act on the pending target if it is in view; else one step to bring it into view."""
        assert self._pending is not None
        action, key, spent = self._pending
        items = state.ui_elements
        if items == self._revealed_on:  # that scroll moved nothing: try the other way
            self._flip = not self._flip
        reveal = None
        if spent < _MAX_REVEAL_STEPS:
            reveal = oracle_utils.reveal_step(items, key, self._flip)
        if reveal is not None:
            self._pending, self._revealed_on = (action, key, spent + 1), items
            self.env.execute_action(reveal)
            return base_agent.AgentInteractionResult(
                False, {"action": reveal.as_dict(), "revealing": True}
            )
        self._pending = None
        index = oracle_utils.locate(items, key)
        if index is not None and index != action.index:
            action = dataclasses.replace(action, index=index)
        self.env.execute_action(action)
        return base_agent.AgentInteractionResult(False, {"action": action.as_dict()})

    def _settled_state(self) -> interface.State:
        """The agent's own pause, then observations until two in a row show the same elements."""
        state = self.get_post_transition_state()
        for _ in range(_MAX_SETTLE_OBSERVATIONS):
            again = self.env.get_state(wait_to_stabilize=False)
            if again.ui_elements == state.ui_elements:
                return again
            state = again
        return state
