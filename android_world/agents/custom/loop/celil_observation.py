"""Observing (DESIGN §3 step 1): each screen perceived once, and noted where the loop needs it.

The post-check already waited for the last action to settle and perceived the result; nothing
acts between steps, so that observation is the next step's, instead of pausing twice.
"""

from __future__ import annotations

from collections.abc import Callable

from android_world.agents.custom.celil_protocols import Observation, Perceiver
from android_world.agents.custom.loop.celil_events import EventLog
from android_world.agents.custom.loop.celil_loop_detection import screen_key
from android_world.agents.custom.loop.celil_post_check import screen_notes
from android_world.agents.custom.loop.celil_progress import ProgressJudge
from android_world.agents.custom.memory.celil_memory import WorkingMemory
from android_world.env import interface


class Observer:
    """One episode's screens: perception's OCR time and warnings go to the event log, each
    screen's notes to working memory, its texts to the texts seen this episode."""

    def __init__(
        self,
        env: interface.AsyncEnv,
        perception: Perceiver,
        log: EventLog,
        progress: ProgressJudge,
    ):
        self._env = env
        self._perception = perception
        self._log = log
        self._progress = progress
        self._cached: Observation | None = None

    def perceive(self, state: interface.State, memory: WorkingMemory | None) -> Observation:
        """The screen after an action (kept as the next step's observation)."""
        try:
            activity = self._env.foreground_activity_name
        except Exception:
            activity = None
        observation = self._perception.process_observation(state, foreground_activity=activity)
        ocr_seconds = self._perception.ocr_seconds()
        if isinstance(ocr_seconds, int | float) and ocr_seconds > 0:
            self._log.add_timing("ocr", float(ocr_seconds))
        for warning in self._perception.take_warnings():
            self._log.warn(warning)
        if memory is not None:
            memory.note_screen(screen_key(observation), screen_notes(observation))
        self._progress.note_screen(observation)
        return observation

    def after_action(self, state: interface.State, memory: WorkingMemory | None) -> Observation:
        self._cached = self.perceive(state, memory)
        return self._cached

    def observe(
        self, settled_state: Callable[[], interface.State], memory: WorkingMemory | None
    ) -> Observation:
        """The step's screen: the post-check's, or a fresh one once the screen settled."""
        if self._cached is not None:
            observation, self._cached = self._cached, None
            if memory is not None:
                memory.note_screen(screen_key(observation), screen_notes(observation))
            return observation
        return self.perceive(settled_state(), memory)
