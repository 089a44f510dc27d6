"""A goal typed on the command line (`--goal "..."`): a task the agent runs and nothing checks.

Users of DroidRun and mobile-use start with one sentence, not a benchmark. Rather than a second
loop, the goal becomes a task like any other (same runner, step budget, recording and report), one
that declares itself unscored: the runner never asks it for a score, so the result row carries no
number on the success scale and the agent's own claim ("complete", "infeasible", out of steps) is
the only outcome there is. Everything the task needs is in its params, so a worker process
rebuilds it from (class, params) like any other task.
"""

from __future__ import annotations

from typing import Any

from android_world.env import device, interface
from android_world.task_evals import task_eval

DEFAULT_MAX_STEPS = 30
TASK_NAME = "FreeGoal"


class UnscoredTaskError(TypeError):
    """Asked for the score of a task that has no check."""


class FreeGoal(task_eval.TaskEval):
    """`params`: goal (the sentence), app (the app to start in, or None), max_steps, seed."""

    scored = False
    template = "{goal}"
    difficulty = "unknown"
    tags = ("free_goal",)
    schema = {
        "type": "object",
        "properties": {
            "goal": {"type": "string"},
            "app": {"type": ["string", "null"]},
            "max_steps": {"type": "integer", "minimum": 1},
        },
        "required": ["goal"],
    }

    def __init__(self, params: dict[str, Any]):
        super().__init__(params)
        # The agent starts where the user asked: in the app, or on the home screen.
        self.start_on_home_screen = not params.get("app")

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        raise UnscoredTaskError("a free goal has no parameters to draw; build it with free_goal()")

    @property
    def complexity(self) -> float:
        """The step budget is `int(10 * complexity)`, so the asked steps divided by 10."""
        return int(self.params.get("max_steps") or DEFAULT_MAX_STEPS) / 10

    @property
    def app_names(self) -> tuple[str, ...]:
        app = self.params.get("app")
        return (str(app),) if app else ()

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        app = self.params.get("app")
        if app:
            env.controller.launch_app(str(app))

    def is_successful(self, env: interface.AsyncEnv) -> float:
        raise UnscoredTaskError(f"{self.name} has no check: its episodes are unscored")


def free_goal(
    goal: str, app: str | None = None, max_steps: int = DEFAULT_MAX_STEPS, seed: int | None = None
) -> FreeGoal:
    """The task for `goal`; `app` is resolved to the device's own name for it (ValueError when no
    app of that name exists, with the known names)."""
    text = " ".join(goal.split())
    if not text:
        raise ValueError("the goal is empty; write what the agent should do, in quotes")
    if max_steps < 1:
        raise ValueError(f"the step budget must be at least 1, got {max_steps}")
    label = None
    if app is not None:
        info = device.find_app(app)
        if info is None:
            known = ", ".join(a.label for a in device.APPS)
            raise ValueError(f"unknown app {app!r}; known apps: {known}")
        label = info.label
    return FreeGoal({"goal": text, "app": label, "max_steps": max_steps, "seed": seed})
