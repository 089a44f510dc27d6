"""The action an agent asks the environment to perform.

Names, fields and validation follow upstream AndroidWorld so agents written for it run unchanged:
an unknown action type, an index given together with x/y, a bad scroll direction or a keycode not
starting with KEYCODE_ raise ValueError at construction time; missing required fields are only
detected when the action is executed, as upstream does.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

ANSWER = "answer"
CLICK = "click"
DOUBLE_TAP = "double_tap"
INPUT_TEXT = "input_text"
KEYBOARD_ENTER = "keyboard_enter"
LONG_PRESS = "long_press"
NAVIGATE_BACK = "navigate_back"
NAVIGATE_HOME = "navigate_home"
OPEN_APP = "open_app"
SCROLL = "scroll"
STATUS = "status"
SWIPE = "swipe"
UNKNOWN = "unknown"
WAIT = "wait"

_ACTION_TYPES = (
    CLICK,
    DOUBLE_TAP,
    SCROLL,
    SWIPE,
    INPUT_TEXT,
    NAVIGATE_HOME,
    NAVIGATE_BACK,
    KEYBOARD_ENTER,
    OPEN_APP,
    STATUS,
    WAIT,
    LONG_PRESS,
    ANSWER,
    UNKNOWN,
)
ACTION_TYPES = _ACTION_TYPES

_SCROLL_DIRECTIONS = ("left", "right", "down", "up")
SCROLL_DIRECTIONS = _SCROLL_DIRECTIONS

ACTION_TYPE = "action_type"
INDEX = "index"
X = "x"
Y = "y"
TEXT = "text"
DIRECTION = "direction"
APP_NAME = "app_name"
GOAL_STATUS = "goal_status"
ACTION_KEYS = [ACTION_TYPE, INDEX, X, Y, TEXT, DIRECTION, APP_NAME, GOAL_STATUS]


@dataclasses.dataclass()
class JSONAction:
    """One agent action; see the module docstring for the validation rules."""

    action_type: str | None = None
    index: str | int | None = None
    x: int | None = None
    y: int | None = None
    text: str | None = None
    direction: str | None = None
    goal_status: str | None = None
    app_name: str | None = None
    keycode: str | None = None
    clear_text: bool | None = None

    def __post_init__(self) -> None:
        if self.action_type not in _ACTION_TYPES:
            raise ValueError(f"Invalid action type: {self.action_type}")
        for name in ("x", "y"):
            value = getattr(self, name)
            # NaN or infinity would pass every check and only fail on the device.
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"Invalid {name} coordinate: {value}")
        if self.index is not None:
            try:
                self.index = int(self.index)
            except OverflowError:
                raise ValueError(f"Invalid index: {self.index}") from None
            if self.x is not None or self.y is not None:
                raise ValueError("Either an index or a <x, y> should be provided.")
        if self.direction and self.direction not in _SCROLL_DIRECTIONS:
            raise ValueError(f"Invalid scroll direction: {self.direction}")
        if self.text is not None and not isinstance(self.text, str):
            self.text = str(self.text)
        if self.keycode is not None and not self.keycode.startswith("KEYCODE_"):
            raise ValueError(f"Invalid keycode: {self.keycode}")

    def __repr__(self) -> str:
        properties = [f"{k}={v!r}" for k, v in self.as_dict().items()]
        return f"JSONAction({', '.join(properties)})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, JSONAction):
            return NotImplemented
        return (
            _casefold(self.action_type) == _casefold(other.action_type)
            and self.index == other.index
            and self.x == other.x
            and self.y == other.y
            and self.keycode == other.keycode
            and self.direction == other.direction
            and self.goal_status == other.goal_status
            and _casefold(self.app_name) == _casefold(other.app_name)
            and _casefold(self.text) == _casefold(other.text)
        )

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = None  # mutable dataclass, compared by value

    def as_dict(self, skip_none: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is None and skip_none:
                continue
            out[field.name] = value
        return out

    def json_str(self) -> str:
        return json.dumps(self.as_dict(), separators=(",", ":"))


def _casefold(value: str | None) -> str | None:
    return value.lower() if isinstance(value, str) else value
