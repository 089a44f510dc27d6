"""UI-TARS as an Android executor: prompt, output parser, image sizing and coordinate mapping.

Everything here is a pure function so the executor role, tests and offline tools share one
understanding of the model's dialect. Model text is untrusted: every parser returns a typed failure
instead of raising, because an unparseable step must become a failed proposal, never a crash.

Two dialects exist (see DESIGN §4): UI-TARS-1.5 writes `start_box='<|box_start|>(x,y)<|box_end|>'`
in absolute pixels of the image it was sent; UI-TARS v1 and the Doubao API write
`point='<point>x y</point>'` on a 0..1000 grid. The parser accepts both spellings; the coordinate
convention is a separate, configured choice because the text alone cannot tell them apart.

This module is the dialect's one import point; each concern lives in its own module:
`uitars_prompt` (prompt and chat history), `uitars_image` (smart resize), `uitars_actions` (action
vocabulary and parsed types), `uitars_call` (reading one call), `uitars_parser` (the answer
parser) and `uitars_mapping` (coordinates and JSONAction).
"""

from __future__ import annotations

from android_world.agents.custom.dialects.uitars_actions import (
    ACTION_NAMES,
    UiTarsAction,
    UiTarsParseFailure,
    parse_point,
)
from android_world.agents.custom.dialects.uitars_image import (
    DEFAULT_CLIENT_MAX_PIXELS,
    IMAGE_FACTOR,
    MAX_PIXELS,
    MIN_PIXELS,
    resize_for_model,
    smart_resize,
)
from android_world.agents.custom.dialects.uitars_mapping import (
    ABSOLUTE_RESIZED,
    COORDINATE_CONVENTIONS,
    RELATIVE_1000,
    UiTarsFinished,
    UiTarsMappingFailure,
    finger_direction,
    point_outside,
    to_json_action,
    to_screen,
)
from android_world.agents.custom.dialects.uitars_parser import parse_uitars_output
from android_world.agents.custom.dialects.uitars_prompt import (
    MOBILE_PROMPT_POINT,
    MOBILE_PROMPT_START_BOX,
    PROMPT_VARIANT_POINT,
    PROMPT_VARIANT_START_BOX,
    PROMPT_VARIANTS,
    HistoryTurn,
    add_box_tokens,
    build_messages,
    mobile_prompt,
)

__all__ = [
    "ABSOLUTE_RESIZED",
    "ACTION_NAMES",
    "COORDINATE_CONVENTIONS",
    "DEFAULT_CLIENT_MAX_PIXELS",
    "IMAGE_FACTOR",
    "MAX_PIXELS",
    "MIN_PIXELS",
    "MOBILE_PROMPT_POINT",
    "MOBILE_PROMPT_START_BOX",
    "PROMPT_VARIANTS",
    "PROMPT_VARIANT_POINT",
    "PROMPT_VARIANT_START_BOX",
    "RELATIVE_1000",
    "HistoryTurn",
    "UiTarsAction",
    "UiTarsFinished",
    "UiTarsMappingFailure",
    "UiTarsParseFailure",
    "add_box_tokens",
    "build_messages",
    "finger_direction",
    "mobile_prompt",
    "parse_point",
    "parse_uitars_output",
    "point_outside",
    "resize_for_model",
    "smart_resize",
    "to_json_action",
    "to_screen",
]
