"""UI-TARS action vocabulary: action names and their aliases, argument slots, the parsed action
and parse-failure types, and the readers for points and text arguments."""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any

# Canonical action names and the spellings that mean the same thing on a phone.
ACTION_NAMES = (
    "click",
    "long_press",
    "left_double",
    "type",
    "scroll",
    "drag",
    "open_app",
    "press_home",
    "press_back",
    "hotkey",
    "wait",
    "finished",
    "call_user",
)
ALIASES = {
    "left_single": "click",
    "tap": "click",
    "long_click": "long_press",
    "double_click": "left_double",
    "double_tap": "left_double",
    "select": "drag",
    "swipe": "drag",
    "finish": "finished",
    "press": "hotkey",
}
NO_ARGUMENT_ACTIONS = ("press_home", "press_back", "wait", "finished", "call_user")
# Where a positional argument goes, per action (models sometimes drop the keyword).
POSITIONAL = {
    "click": ("start_box",),
    "long_press": ("start_box",),
    "left_double": ("start_box",),
    "scroll": ("start_box", "direction"),
    "drag": ("start_box", "end_box"),
    "type": ("content",),
    "open_app": ("app_name",),
    "hotkey": ("key",),
    "finished": ("content",),
}
START_KEYS = ("start_box", "point", "start_point")
END_KEYS = ("end_box", "end_point")
DIRECTIONS = ("up", "down", "left", "right")


@dataclasses.dataclass(frozen=True)
class UiTarsAction:
    """One parsed action; points are in the model's coordinate space (see `to_screen`)."""

    action_type: str  # one of ACTION_NAMES
    start: tuple[float, float] | None = None
    end: tuple[float, float] | None = None
    content: str | None = None
    direction: str | None = None
    app_name: str | None = None
    key: str | None = None
    thought: str = ""
    reflection: str = ""
    summary: str = ""
    call_text: str = ""
    dropped: tuple[str, ...] = ()
    """Further calls the answer wrote after this one: only the first runs (each step is one
    action, checked by the verifiers); the rest are reported in the step data."""


@dataclasses.dataclass(frozen=True)
class UiTarsParseFailure:
    """Why a model answer could not become an action.

    kind: no_text, no_action, no_call, bad_call, unknown_action, bad_argument, echo (the
    prompt's own example action).
    """

    kind: str
    reason: str
    thought: str = ""
    action_name: str = ""
    call_text: str = ""


_BOX_TOKEN = re.compile(r"<\|box_(?:start|end)\|>")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def canonical(name: str) -> str:
    lowered = name.strip().lower()
    return ALIASES.get(lowered, lowered)


def parse_point(value: Any) -> tuple[float, float] | None:
    """A point from any spelling the model uses; a 4-number box becomes its centre.

    Accepts `(x,y)`, `(x, y)`, `[x1,y1,x2,y2]`, `<point>x y</point>`, box tokens and tuples.
    """
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        flat: list[Any] = []
        for item in value:
            flat.extend(item if isinstance(item, (tuple, list)) else [item])
        try:
            numbers = [float(item) for item in flat]
        except (TypeError, ValueError):
            return None
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        return None
    else:
        cleaned = _BOX_TOKEN.sub(" ", str(value))
        numbers = [float(item) for item in _NUMBER.findall(cleaned)]
    if not all(math.isfinite(number) for number in numbers):
        return None
    if len(numbers) == 2:
        return numbers[0], numbers[1]
    if len(numbers) == 4:
        return (numbers[0] + numbers[2]) / 2.0, (numbers[1] + numbers[3]) / 2.0
    return None


def text_argument(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)
