"""The environment contract agents program against, with upstream AndroidWorld's names.

`AsyncEnv` is what both the simulated phone (`env/sim`) and a real device over adb (`env/adb`)
implement; agents and tasks see nothing else. `controller` is the device-facts API of
`env/device.py` rather than upstream's android_env wrapper: tasks read and set device state only
through it, so the same task code runs on the sim and on a real device.
"""

from __future__ import annotations

import abc
import dataclasses
import time
from typing import Any

import numpy as np

from android_world.env import json_action, representation_utils


@dataclasses.dataclass(frozen=True)
class State:
    """One observation: RGB pixels (H, W, 3) uint8, the raw tree, and the indexed elements."""

    pixels: np.ndarray
    forest: Any
    ui_elements: list[representation_utils.UIElement]
    auxiliaries: dict[str, Any] | None = None

    @classmethod
    def create_and_infer_elements(
        cls,
        pixels: np.ndarray,
        forest: Any,
        screen_size: tuple[int, int] | None = None,
    ) -> State:
        """A State whose elements are derived from `forest`, as upstream's constructor does."""
        elements = representation_utils.forest_to_ui_elements(
            forest, exclude_invisible_elements=True, screen_size=screen_size
        )
        return cls(pixels=pixels, forest=forest, ui_elements=elements)


class AsyncEnv(abc.ABC):
    """An Android device an agent acts on: observe with get_state, act with execute_action."""

    @property
    @abc.abstractmethod
    def controller(self) -> Any:
        """The device-facts controller (`env.device.DeviceController`)."""

    @abc.abstractmethod
    def reset(self, go_home: bool = False) -> State:
        """Clear the interaction cache and optionally press home; returns the new state."""

    @abc.abstractmethod
    def get_state(self, wait_to_stabilize: bool = False) -> State:
        """The current screen."""

    def display_message(self, message: str, header: str = "") -> None:
        """Show a message on the device, if it can; a no-op by default as upstream."""
        del message, header

    @abc.abstractmethod
    def ask_question(self, question: str, timeout_seconds: float = -1.0) -> str | None:
        """Ask the human operator; environments without one raise NotImplementedError."""

    @abc.abstractmethod
    def execute_action(self, action: json_action.JSONAction) -> None:
        """Perform one action; invalid targets raise ValueError."""

    @property
    @abc.abstractmethod
    def foreground_activity_name(self) -> str:
        """`package/activity` of the app in front."""

    @property
    @abc.abstractmethod
    def device_screen_size(self) -> tuple[int, int]:
        """Physical (width, height) in pixels."""

    @property
    @abc.abstractmethod
    def logical_screen_size(self) -> tuple[int, int]:
        """(width, height) as the current orientation presents it."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release the device."""

    @property
    @abc.abstractmethod
    def interaction_cache(self) -> str:
        """The agent's last `answer` text."""

    @abc.abstractmethod
    def hide_automation_ui(self) -> None:
        """Turn off pointer overlays and similar automation artefacts."""

    @property
    @abc.abstractmethod
    def orientation(self) -> int:
        """0 portrait, 1 landscape, 2 reverse portrait, 3 reverse landscape."""

    @property
    @abc.abstractmethod
    def physical_frame_boundary(self) -> tuple[int, int, int, int]:
        """(left, top, right, bottom) of the screen in portrait coordinates."""


def get_stable_state(
    env: AsyncEnv,
    stability_threshold: int = 3,
    sleep_duration: float = 0.5,
    timeout: float = 6.0,
) -> State:
    """Poll until the element list is the same `stability_threshold` times in a row.

    Mirrors upstream's behaviour on a timeout: the last state is returned rather than an error,
    because a screen with an animation that never settles is still a usable observation.
    """
    deadline = time.monotonic() + timeout
    state = env.get_state(wait_to_stabilize=False)
    same_in_a_row = 1
    while same_in_a_row < stability_threshold and time.monotonic() < deadline:
        time.sleep(sleep_duration)
        new_state = env.get_state(wait_to_stabilize=False)
        if new_state.ui_elements == state.ui_elements:
            same_in_a_row += 1
        else:
            same_in_a_row = 1
        state = new_state
    return state


# Upstream's concrete env class is AsyncAndroidEnv; agents type-annotate with either name.
AsyncAndroidEnv = AsyncEnv
