"""Clock tasks, upstream `single/clock.py`: all checked on the live screen.

Upstream reads the foreground activity (must be a DeskClock one) and the element list: a
running stopwatch shows buttons described "Pause" and "Lap"; a paused one shows "Start" and
"Stopwatch" at least twice (title and tab); a timer being entered shows "00h 00m 00s" text
or "0 hours, 0 minutes, 0 seconds" description. Initialisation clears the Clock's data, which
resets the stopwatch (there is no other way to control it, upstream notes).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from android_world.env import interface, representation_utils
from android_world.env.json_action import JSONAction
from android_world.task_evals import task_eval
from android_world.task_evals.oracle_utils import done, tap

CLOCK_PREFS = "/data/data/com.google.android.deskclock/shared_prefs/com.google.android.deskclock_preferences.json"


def stopwatch_running(elements: list[representation_utils.UIElement], activity: str) -> bool:
    if "DeskClock" not in activity:
        return False
    descriptions = {e.content_description for e in elements}
    return "Pause" in descriptions and "Lap" in descriptions


def stopwatch_paused(elements: list[representation_utils.UIElement], activity: str) -> bool:
    if "DeskClock" not in activity:
        return False
    start = any(e.content_description == "Start" for e in elements)
    named = sum(
        1 for e in elements if e.content_description == "Stopwatch" or e.text == "Stopwatch"
    )
    return start and named >= 2


def timer_set(
    elements: list[representation_utils.UIElement],
    activity: str,
    hours: int,
    minutes: int,
    seconds: int,
) -> bool:
    if "DeskClock" not in activity:
        return False
    text = f"{hours:02d}h {minutes:02d}m {seconds:02d}s"
    desc = f"{hours} hours, {minutes} minutes, {seconds} seconds"
    return any(e.text == text or e.content_description == desc for e in elements)


def open_clock_tab(env: interface.AsyncEnv, tab: str) -> Iterator[JSONAction]:
    yield JSONAction(action_type="open_app", app_name="Clock")
    yield tap(env, desc=tab)


class _ClockTask(task_eval.TaskEval):
    app_names = ("clock",)
    complexity = 1
    schema: dict[str, Any] = {"type": "object", "properties": {}}

    def _clear_app_data(self, env: interface.AsyncEnv) -> None:
        env.controller.close_recents()
        env.controller.remove(CLOCK_PREFS)

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        self._clear_app_data(env)

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        self._clear_app_data(env)

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {}

    def _screen(self, env: interface.AsyncEnv) -> tuple[list[representation_utils.UIElement], str]:
        return env.get_state().ui_elements, env.controller.foreground_activity()


class ClockStopWatchRunning(_ClockTask):
    """Precondition: the stopwatch is reset (paused at 00:00)."""

    template = "Run the stopwatch."
    difficulty = "easy"
    optimal_steps = 3

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return 1.0 if stopwatch_running(*self._screen(env)) else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from open_clock_tab(env, "Stopwatch")
        yield tap(env, desc="Start")
        yield done()


class ClockStopWatchPausedVerify(_ClockTask):
    """Precondition: the stopwatch is already paused at 00:00; it only has to be on screen."""

    template = "Pause the stopwatch."
    difficulty = "easy"
    tags = ("verification",)
    optimal_steps = 1

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return 1.0 if stopwatch_paused(*self._screen(env)) else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from open_clock_tab(env, "Stopwatch")
        yield done()


class ClockTimerEntry(_ClockTask):
    """Type a duration on the timer's keypad and leave it unstarted."""

    schema = {
        "type": "object",
        "properties": {
            "hours": {"type": "integer"},
            "minutes": {"type": "integer"},
            "seconds": {"type": "integer"},
        },
        "required": ["hours", "minutes", "seconds"],
    }
    template = "Create a timer with {hours} hours, {minutes} minutes, and {seconds} seconds. Do not start the timer."
    difficulty = "easy"
    tags = ("data_entry", "parameterized")
    optimal_steps = 3

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {
            "hours": random.randint(0, 23),
            "minutes": random.randint(0, 59),
            "seconds": random.randint(0, 59),
        }

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        p = self.params
        return 1.0 if timer_set(*self._screen(env), p["hours"], p["minutes"], p["seconds"]) else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        p = self.params
        yield from open_clock_tab(env, "Timer")
        for digit in f"{p['hours']:02d}{p['minutes']:02d}{p['seconds']:02d}".lstrip("0"):
            yield tap(env, text=digit)
        yield done()
