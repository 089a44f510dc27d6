"""Upstream AndroidWorld's `env/actuation.execute_adb_action`, on this harness's envs.

As upstream, an element index is resolved against the `screen_elements` the agent saw (the centre
of that element's box), not against whatever the screen shows now, so an upstream agent acts on
exactly what it decided on.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from android_world.env import adb_utils, json_action

_POINT_ACTIONS = {json_action.CLICK, json_action.LONG_PRESS, json_action.DOUBLE_TAP, "input_text"}


def _centre(element: Any) -> tuple[int, int]:
    box = getattr(element, "bbox_pixels", None)
    if box is None:
        raise ValueError(f"element {element!r} has no bbox_pixels")
    return int((box.x_min + box.x_max) / 2), int((box.y_min + box.y_max) / 2)


def execute_adb_action(
    action: json_action.JSONAction,
    screen_elements: list[Any],
    screen_size: tuple[int, int],
    env: Any,
) -> None:
    """Run `action` on the env behind `env` (an AsyncEnv or its controller).

    `screen_size` is accepted for upstream's signature; the env knows its own.
    """
    del screen_size
    target = adb_utils.owning_env(env)
    if action.action_type in _POINT_ACTIONS and action.index is not None:
        index = int(action.index)
        if not 0 <= index < len(screen_elements):
            raise ValueError(f"index {index} is out of range for {len(screen_elements)} elements")
        x, y = _centre(screen_elements[index])
        action = dataclasses.replace(action, index=None, x=x, y=y)
    target.execute_action(action)
