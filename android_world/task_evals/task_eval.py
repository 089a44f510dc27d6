"""The task contract, with upstream AndroidWorld's names and behaviour.

A task is a class with a goal template, a complexity (the step budget is `int(10 * complexity)`),
the apps it uses, a JSON schema for its parameters and `generate_random_params()`. An instance is
built from params, initialised on a device, checked with `is_successful` (0.0..1.0, fractional for
composite tasks) and torn down. Tasks touch the device only through `env.controller` (device facts)
and `env.get_state()` (what is on screen), so the same task runs on the sim and over adb.

Beyond upstream, each task carries its metadata (difficulty, tags, optimal steps) as class
attributes, and a reference solution, `oracle_actions(env)`, a generator that reads the live screen
before every action it yields. Tests use it to prove each task is solvable within its budget.
"""

from __future__ import annotations

import abc
import random
from collections.abc import Iterator
from typing import Any

from android_world.env import device, interface, json_action


class TaskEval(abc.ABC):
    """Base class of every task; subclasses usually set the abstract members as class attributes."""

    template: str = ""
    device_time = device.FROZEN_DEVICE_TIME
    start_on_home_screen: bool = True

    # Metadata used by the summary's pivots (upstream keeps it in task_metadata.json).
    difficulty: str = "easy"  # easy | medium | hard
    tags: tuple[str, ...] = ()
    optimal_steps: int = 1

    def __init__(self, params: dict[str, Any]):
        self.initialized = False
        self._params = params

    @property
    @abc.abstractmethod
    def complexity(self) -> float:
        """Step budget is int(10 * complexity)."""

    @property
    @abc.abstractmethod
    def app_names(self) -> tuple[str, ...]:
        """Names of the apps the task uses, as `open_app` knows them."""

    @property
    @abc.abstractmethod
    def schema(self) -> dict[str, Any]:
        """JSON schema of the params."""

    @classmethod
    @abc.abstractmethod
    def generate_random_params(cls) -> dict[str, Any]:
        """Fresh params, drawn from the module-level `random` (the suite seeds it)."""

    @property
    def name(self) -> str:
        return self.__class__.__name__

    @property
    def params(self) -> dict[str, Any]:
        return self._params

    @property
    def goal(self) -> str:
        return self.template.format(**self._params)

    @classmethod
    def set_device_time(cls, env: interface.AsyncEnv) -> None:
        env.controller.set_device_time(cls.device_time)

    def initialize_device_time(self, env: interface.AsyncEnv) -> None:
        env.controller.set_device_time(self.device_time)

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        """Put the device in the task's starting state.

        Subclasses call super() first, then seed their app data through `env.controller`.
        """
        if self.initialized:
            raise RuntimeError(f"{self.name} is already initialized.")
        # The agent's previous answer must not leak into this task's check.
        env.interaction_cache = ""  # type: ignore[misc]
        self.initialize_device_time(env)
        self.initialized = True
        if "seed" in self._params:
            random.seed(self._params["seed"])

    def is_successful(self, env: interface.AsyncEnv) -> float:
        """1.0 if done, 0.0 if not, a fraction for composite tasks."""
        del env
        if not self.initialized:
            raise RuntimeError(f"{self.name} is not initialized.")
        return 1.0

    def tear_down(self, env: interface.AsyncEnv) -> None:
        """Close apps; subclasses remove what they created, then call super()."""
        env.controller.close_recents()
        self.initialized = False

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[json_action.JSONAction]:
        """A reference solution that reads the live screen before each action it yields.

        It may use the goal's params (the goal says them) but never hidden app state. It ends
        with a `status` action (and an `answer` first for questions).
        """
        raise NotImplementedError(f"{self.name} has no oracle solution.")
        yield  # pragma: no cover
