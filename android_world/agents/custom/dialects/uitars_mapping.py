"""UI-TARS coordinates to the screen, and a parsed action to an AndroidWorld JSONAction.

The coordinate convention is configured, not guessed: UI-TARS-1.5 points in pixels of the image it
was sent (`absolute_resized`), v1 and Doubao on a 0..1000 grid (`relative_1000`).
"""

from __future__ import annotations

import dataclasses
import math

from android_world.agents.custom.dialects.uitars_actions import UiTarsAction, UiTarsParseFailure
from android_world.env import json_action

ABSOLUTE_RESIZED = "absolute_resized"
RELATIVE_1000 = "relative_1000"
COORDINATE_CONVENTIONS = (ABSOLUTE_RESIZED, RELATIVE_1000)


def to_screen(
    x: float,
    y: float,
    convention: str,
    sent_size: tuple[int, int],
    screen_size: tuple[int, int],
) -> tuple[int, int]:
    """Model coordinates to screen pixels, clamped to the screen. Sizes are (width, height).

    The clamp only absorbs rounding at the edge: `to_json_action` refuses a point beyond it
    (`point_outside`).

    `absolute_resized` (UI-TARS-1.5): pixels of the image that was sent. `relative_1000` (v1,
    Doubao): a 0..1000 grid over the whole image.
    """
    screen_width, screen_height = screen_size
    if convention == ABSOLUTE_RESIZED:
        sent_width, sent_height = sent_size
        px = x / max(1, sent_width) * screen_width
        py = y / max(1, sent_height) * screen_height
    elif convention == RELATIVE_1000:
        px = x / 1000.0 * screen_width
        py = y / 1000.0 * screen_height
    else:
        raise ValueError(
            f"unknown coordinate convention {convention!r}; use one of {COORDINATE_CONVENTIONS}"
        )
    px_int = min(max(math.floor(px + 0.5), 0), max(0, screen_width - 1))
    py_int = min(max(math.floor(py + 0.5), 0), max(0, screen_height - 1))
    return px_int, py_int


def point_outside(
    point: tuple[float, float], convention: str, sent_size: tuple[int, int]
) -> str | None:
    """Why a model point lies off the screen, or None. The edge itself is on it (a model may
    round up to the image's width); beyond it the model pointed at nothing, and clamping it to
    the edge would tap whatever sits there."""
    x, y = point
    if convention == RELATIVE_1000:
        width, height, space = 1000, 1000, "the 0-1000 grid"
    else:
        width, height = sent_size
        space = f"the {width}x{height} image sent"
    if 0 <= x <= width and 0 <= y <= height:
        return None
    return f"point ({x:g}, {y:g}) is outside the screen ({space})"


@dataclasses.dataclass(frozen=True)
class UiTarsFinished:
    """The model says the instruction is done; `content` is its answer or summary."""

    content: str


@dataclasses.dataclass(frozen=True)
class UiTarsMappingFailure:
    """The parsed action has no safe JSONAction (call_user, unknown hotkey, no-op drag...)."""

    reason: str


_HOTKEYS = {
    "enter": json_action.KEYBOARD_ENTER,
    "return": json_action.KEYBOARD_ENTER,
    "back": json_action.NAVIGATE_BACK,
    "escape": json_action.NAVIGATE_BACK,
    "esc": json_action.NAVIGATE_BACK,
    "home": json_action.NAVIGATE_HOME,
}


def finger_direction(start: tuple[int, int], end: tuple[int, int]) -> str | None:
    """Dominant direction the finger moves from start to end; None if it does not move."""
    dx = end[0] - start[0]
    dy = end[1] - start[1]
    if dx == 0 and dy == 0:
        return None
    if abs(dy) >= abs(dx):
        return "down" if dy > 0 else "up"
    return "right" if dx > 0 else "left"


def to_json_action(
    parsed: UiTarsAction | UiTarsParseFailure,
    screen_size: tuple[int, int],
    sent_size: tuple[int, int],
    convention: str = ABSOLUTE_RESIZED,
) -> json_action.JSONAction | UiTarsFinished | UiTarsMappingFailure:
    """The AndroidWorld action for a parsed UI-TARS action (DESIGN §4 / research §6 table)."""
    if isinstance(parsed, UiTarsParseFailure):
        return UiTarsMappingFailure(f"unparseable output: {parsed.reason}")
    for given in (parsed.start, parsed.end):
        if given is not None and (outside := point_outside(given, convention, sent_size)):
            return UiTarsMappingFailure(outside)

    def point(value: tuple[float, float]) -> tuple[int, int]:
        return to_screen(value[0], value[1], convention, sent_size, screen_size)

    kind = parsed.action_type
    if kind in ("click", "long_press", "left_double") and parsed.start is not None:
        x, y = point(parsed.start)
        action_type = {
            "click": json_action.CLICK,
            "long_press": json_action.LONG_PRESS,
            "left_double": json_action.DOUBLE_TAP,
        }[kind]
        return json_action.JSONAction(action_type=action_type, x=x, y=y)
    if kind == "type":
        text = (parsed.content or "").rstrip("\n")
        if not text:
            return UiTarsMappingFailure("type() with empty content")
        if parsed.start is not None:  # the field to type into: tapped first, as upstream does
            x, y = point(parsed.start)
            return json_action.JSONAction(action_type=json_action.INPUT_TEXT, text=text, x=x, y=y)
        return json_action.JSONAction(action_type=json_action.INPUT_TEXT, text=text)
    if kind == "scroll" and parsed.direction:
        return json_action.JSONAction(action_type=json_action.SCROLL, direction=parsed.direction)
    if kind in ("scroll", "drag") and parsed.start is not None and parsed.end is not None:
        direction = finger_direction(point(parsed.start), point(parsed.end))
        if direction is None:
            return UiTarsMappingFailure(f"{kind} with no movement")
        return json_action.JSONAction(action_type=json_action.SWIPE, direction=direction)
    if kind == "open_app" and parsed.app_name:
        return json_action.JSONAction(action_type=json_action.OPEN_APP, app_name=parsed.app_name)
    if kind == "press_home":
        return json_action.JSONAction(action_type=json_action.NAVIGATE_HOME)
    if kind == "press_back":
        return json_action.JSONAction(action_type=json_action.NAVIGATE_BACK)
    if kind == "hotkey":
        action_type = _HOTKEYS.get((parsed.key or "").strip().lower())
        if action_type is None:
            return UiTarsMappingFailure(f"no Android action for hotkey {parsed.key!r}")
        return json_action.JSONAction(action_type=action_type)
    if kind == "wait":
        return json_action.JSONAction(action_type=json_action.WAIT)
    if kind == "finished":
        return UiTarsFinished(parsed.content or "")
    if kind == "call_user":
        return UiTarsMappingFailure("the model asked for the user (call_user)")
    return UiTarsMappingFailure(f"no Android action for {kind}")
