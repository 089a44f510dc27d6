"""Small fakes for the harness tests: a device, tasks and a scripted agent (no sim needed).

Other harness tests import it (tests/ is on pytest's pythonpath); the subprocess tests import it
from a driver script (their PYTHONPATH holds tests/), so the real CLI runs against these fakes.
"""

from __future__ import annotations

import datetime
import os
import time
from typing import Any

import numpy as np

from android_world.agents import base_agent
from android_world.env import interface, json_action, representation_utils
from android_world.task_evals import task_eval


class FakeController:
    def __init__(self) -> None:
        self.settings: dict[tuple[str, str], str] = {}
        self.time: datetime.datetime | None = None
        self.closed_recents = 0

    def get_setting(self, namespace: str, key: str) -> str | None:
        return self.settings.get((namespace, key))

    def put_setting(self, namespace: str, key: str, value: str) -> None:
        self.settings[(namespace, key)] = value

    def close_recents(self) -> None:
        self.closed_recents += 1

    def set_device_time(self, when: datetime.datetime) -> None:
        self.time = when


class FakeEnv(interface.AsyncEnv):
    """A one-screen device: element 0 toggles wifi. Actions sleep FAKE_STEP_SLEEP seconds."""

    def __init__(self) -> None:
        self._controller = FakeController()
        self._cache = ""
        self.actions: list[json_action.JSONAction] = []
        self.get_state_calls = 0
        self.closed = False
        self.sleep = float(os.environ.get("FAKE_STEP_SLEEP", "0"))

    @property
    def controller(self) -> FakeController:
        return self._controller

    @property
    def interaction_cache(self) -> str:
        return self._cache

    @interaction_cache.setter
    def interaction_cache(self, value: str) -> None:
        self._cache = value

    def reset(self, go_home: bool = False) -> interface.State:
        self.interaction_cache = ""
        return self.get_state()

    def get_state(self, wait_to_stabilize: bool = False) -> interface.State:
        self.get_state_calls += 1
        wifi = self._controller.get_setting("global", "wifi_on") == "1"
        pixels = np.full((24, 12, 3), 255 if wifi else 0, dtype=np.uint8)
        element = representation_utils.UIElement(
            text="Wi-Fi",
            is_clickable=True,
            is_checked=wifi,
            bbox_pixels=representation_utils.BoundingBox(0, 12, 0, 12),
        )
        return interface.State(pixels=pixels, forest=[], ui_elements=[element])

    def ask_question(self, question: str, timeout_seconds: float = -1.0) -> str | None:
        raise NotImplementedError

    def execute_action(self, action: json_action.JSONAction) -> None:
        if self.sleep:
            time.sleep(self.sleep)
        self.actions.append(action)
        if action.action_type == json_action.ANSWER:
            self.interaction_cache = action.text or ""
        elif action.action_type == json_action.CLICK and action.index == 0:
            on = self._controller.get_setting("global", "wifi_on") == "1"
            self._controller.put_setting("global", "wifi_on", "0" if on else "1")
        elif action.action_type == json_action.CLICK and action.index is not None:
            raise ValueError(f"No element with index {action.index}")

    @property
    def foreground_activity_name(self) -> str:
        return "com.android.settings/.Settings"

    @property
    def device_screen_size(self) -> tuple[int, int]:
        return (12, 24)

    @property
    def logical_screen_size(self) -> tuple[int, int]:
        return (12, 24)

    def close(self) -> None:
        self.closed = True

    def hide_automation_ui(self) -> None:
        pass

    @property
    def orientation(self) -> int:
        return 0

    @property
    def physical_frame_boundary(self) -> tuple[int, int, int, int]:
        return (0, 0, 12, 24)


def _log_init(name: str, seed: Any) -> None:
    log = os.environ.get("FAKE_INIT_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"{name} {seed}\n")


class FakeWifiOn(task_eval.TaskEval):
    template = "Turn wifi on ({n})."
    complexity = 0.3
    app_names = ("settings",)
    schema: dict[str, Any] = {}
    difficulty = "easy"
    tags = ("settings", "toggle")

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        import random

        return {"n": random.randint(0, 10**6)}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        env.controller.put_setting("global", "wifi_on", "0")
        _log_init(self.name, self.params.get("seed"))

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return 1.0 if env.controller.get_setting("global", "wifi_on") == "1" else 0.0

    def oracle_actions(self, env):
        env.get_state()
        yield json_action.JSONAction(action_type="click", index=0)
        yield json_action.JSONAction(action_type="status", goal_status="complete")


class FakeAnswer(task_eval.TaskEval):
    template = "What is the magic word ({word})?"
    complexity = 0.2
    app_names = ()
    schema: dict[str, Any] = {}
    difficulty = "medium"
    tags = ("information_retrieval",)

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        import random

        return {"word": random.choice(["alpha", "beta", "gamma", "delta"])}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        _log_init(self.name, self.params.get("seed"))

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return 1.0 if env.interaction_cache == self.params["word"] else 0.0

    def oracle_actions(self, env):
        yield json_action.JSONAction(action_type="answer", text=self.params["word"])
        yield json_action.JSONAction(action_type="status", goal_status="complete")


class FakeBroken(task_eval.TaskEval):
    """Initialisation fails: the runner must record the failure and still tear down."""

    template = "This task cannot start."
    complexity = 0.1
    app_names = ()
    schema: dict[str, Any] = {}
    torn_down = 0

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        raise RuntimeError("boom: the device refused\nsecond line")

    def tear_down(self, env: interface.AsyncEnv) -> None:
        type(self).torn_down += 1
        super().tear_down(env)


TASKS: dict[str, type[task_eval.TaskEval]] = {
    "FakeAnswer": FakeAnswer,
    "FakeWifiOn": FakeWifiOn,
}


class ScriptedAgent(base_agent.EnvironmentInteractingAgent):
    """Clicks element 0 each step; says done after `done_after` steps; uses every runner hook."""

    def __init__(
        self, env: interface.AsyncEnv, done_after: int | None = 1, calls_per_step: int = 2
    ):
        super().__init__(env, name="scripted", transition_pause=0.0)
        self.done_after = done_after
        self.calls_per_step = calls_per_step
        self.sink = None
        self.tasks_seen: list[str] = []
        self.finished: list[tuple[str, float]] = []
        self.resets: list[bool] = []
        self.max_steps: list[int] = []
        self._steps = 0

    def reset(self, go_home: bool = False) -> None:
        super().reset(go_home)
        self.resets.append(go_home)
        self._steps = 0

    def set_max_steps(self, max_steps: int) -> None:
        super().set_max_steps(max_steps)
        self.max_steps.append(max_steps)

    def set_event_sink(self, sink) -> None:
        self.sink = sink

    def set_task(self, task) -> None:
        self.tasks_seen.append(task.name)

    def episode_summary(self) -> dict[str, Any]:
        n = self._steps * self.calls_per_step
        return {"usage": {"model_calls": n, "prompt_tokens": 10 * n, "completion_tokens": n}}

    def episode_finished(self, goal: str, score: float) -> None:
        self.finished.append((goal, score))

    def step(self, goal: str) -> base_agent.AgentInteractionResult:
        self.get_post_transition_state()
        if self.sink is not None:
            self.sink({"type": "action_proposed", "goal": goal})
        self.env.execute_action(json_action.JSONAction(action_type="click", index=0))
        self._steps += 1
        done = self.done_after is not None and self._steps >= self.done_after
        return base_agent.AgentInteractionResult(done, {"n": self._steps})
