"""OpenAppTaskEval (upstream `single/system.py`): success is the package in the foreground."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from android_world.env import interface
from android_world.env.json_action import JSONAction
from android_world.task_evals import task_eval, upstream_pools
from android_world.task_evals.oracle_utils import elements, find, text_is

# Upstream's candidates minus the dialer, which the simulated phone does not have.
APP_NAME_TO_PACKAGE_NAME = {
    name: package for name, package in upstream_pools.OPEN_APP_PACKAGES.items() if name != "dialer"
}


def random_app_name() -> str:
    """Upstream's draw from its five apps; a draw of the dialer (1 in 5) is drawn again from
    the four the sim has, so every other draw is upstream's."""
    name = random.choice(list(upstream_pools.OPEN_APP_PACKAGES))
    if name not in APP_NAME_TO_PACKAGE_NAME:
        name = random.choice(list(APP_NAME_TO_PACKAGE_NAME))
    return name


def foreground_is(env: interface.AsyncEnv, app_name: str) -> bool:
    """Whether the app's package is in front (`package/activity`, compared by package)."""
    activity = env.controller.foreground_activity()
    return activity.split("/", 1)[0] == APP_NAME_TO_PACKAGE_NAME[app_name]


class OpenAppTaskEval(task_eval.TaskEval):
    """Open an app from the home screen."""

    fidelity_notes = (
        "app pool lacks upstream's 'dialer' (the sim has no phone app): a draw of it is drawn"
        " again from the other four, so those draws are not upstream's",
    )

    app_names = tuple(APP_NAME_TO_PACKAGE_NAME)
    complexity = 1
    schema = {
        "type": "object",
        "properties": {"app_name": {"type": "string"}},
        "required": ["app_name"],
    }
    template = (
        "Open the {app_name} app. Clear any pop-ups that may appear by granting all permissions"
        " that are required."
    )
    difficulty = "easy"
    tags = ("parameterized",)
    optimal_steps = 2

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"app_name": random_app_name()}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return 1.0 if foreground_is(env, self.params["app_name"]) else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        env.get_state()
        yield JSONAction(action_type="open_app", app_name=self.params["app_name"])
        # The goal asks to clear pop-ups by granting permissions; the check only needs the app.
        for _ in range(3):
            allow = find(elements(env), text_is("Allow"))
            if allow is None:
                break
            yield JSONAction(action_type="click", index=allow)
        yield JSONAction(action_type="status", goal_status="complete")
