"""A harness check, not an agent: replays the task's own reference solution.

It uses the runner's `set_task(task)` hook to read `task.oracle_actions(env)` and executes one
yielded action per step; a `status` action (or the generator ending) ends the episode. Running
the whole suite with it checks that every task is solvable within its step budget and that the
runner, scoring and run directory work end to end. Its scores say nothing about any model.
"""

from __future__ import annotations

from collections.abc import Iterator

import pydantic

from android_world.agents import base_agent
from android_world.env import interface, json_action
from android_world.task_evals import task_eval


class OracleAgentConfig(pydantic.BaseModel):
    """`agent.configurations.oracle_agent` keys."""

    model_config = pydantic.ConfigDict(extra="forbid")

    name: str = "oracle_agent"


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

    def set_task(self, task: task_eval.TaskEval) -> None:
        self._task = task
        self._actions = None

    def reset(self, go_home: bool = False) -> None:
        super().reset(go_home)
        self._actions = None

    def step(self, goal: str) -> base_agent.AgentInteractionResult:
        del goal
        if self._task is None:
            raise RuntimeError("oracle_agent needs set_task(task) before an episode.")
        self.get_post_transition_state()  # the screen the action is chosen on (for screenshots)
        if self._actions is None:
            self._actions = iter(self._task.oracle_actions(self.env))
        try:
            action = next(self._actions)
        except StopIteration:
            return base_agent.AgentInteractionResult(True, {"action": None})
        data = {"action": action.as_dict()}
        if action.action_type == json_action.STATUS:
            return base_agent.AgentInteractionResult(True, data)
        self.env.execute_action(action)
        return base_agent.AgentInteractionResult(False, data)
