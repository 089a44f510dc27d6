"""The agent contract, with upstream AndroidWorld's names: one `step(goal)` per environment step."""

from __future__ import annotations

import abc
import dataclasses
import time
from typing import Any

from android_world.env import interface


@dataclasses.dataclass()
class AgentInteractionResult:
    """`done` means the agent considers the whole episode finished; `data` is the step record.

    `data` must not contain `step_number`: the episode runner adds it.
    """

    done: bool
    data: dict[str, Any]


class EnvironmentInteractingAgent(abc.ABC):
    """Base class for agents that act on an `AsyncEnv`."""

    def __init__(
        self, env: interface.AsyncEnv, name: str = "", transition_pause: float | None = 1.0
    ):
        if transition_pause is not None and transition_pause < 0:
            raise ValueError(f"transition_pause must be non-negative, got {transition_pause}")
        self._env = env
        self._name = name
        self._transition_pause = transition_pause
        self._max_steps: int | None = None

    @property
    def transition_pause(self) -> float | None:
        return self._transition_pause

    @transition_pause.setter
    def transition_pause(self, transition_pause: float | None) -> None:
        self._transition_pause = transition_pause

    @property
    def env(self) -> interface.AsyncEnv:
        return self._env

    @env.setter
    def env(self, env: interface.AsyncEnv) -> None:
        self._env = env

    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, name: str) -> None:
        self._name = name

    def set_max_steps(self, max_steps: int) -> None:
        self._max_steps = max_steps

    def reset(self, go_home: bool = False) -> None:
        self._env.reset(go_home=go_home)

    def get_post_transition_state(self) -> interface.State:
        """The state after the last action settled: a fixed pause, or polling when it is None."""
        if self._transition_pause is None:
            return self._env.get_state(wait_to_stabilize=True)
        if self._transition_pause > 0:
            time.sleep(self._transition_pause)
        return self._env.get_state(wait_to_stabilize=False)

    @abc.abstractmethod
    def step(self, goal: str) -> AgentInteractionResult:
        """Observe, decide and act once toward `goal`."""
