"""UI-TARS prompt: the mobile action space the model was trained on, and the chat it is sent.

The history keeps every earlier answer verbatim but only the newest screenshots, which bounds the
context; the start_box dialect gets its box tokens back in history turns (servers strip them).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

import numpy as np

from android_world.agents.custom import celil_untrusted
from android_world.agents.custom.model_clients.call_types import ChatMessage

PROMPT_VARIANT_START_BOX = "start_box"
PROMPT_VARIANT_POINT = "point"
PROMPT_VARIANTS = (PROMPT_VARIANT_START_BOX, PROMPT_VARIANT_POINT)

# The action-space lines are the format the model was trained on and must stay as they are; the
# wording around them is ours.
_ACTION_SPACE_START_BOX = """\
click(start_box='<|box_start|>(x1,y1)<|box_end|>')
long_press(start_box='<|box_start|>(x1,y1)<|box_end|>')
type(content='') #If you want to submit your input, use "\\n" at the end of `content`.
scroll(start_box='<|box_start|>(x1,y1)<|box_end|>', direction='down or up or right or left')
open_app(app_name='')
drag(start_box='<|box_start|>(x1,y1)<|box_end|>', end_box='<|box_start|>(x3,y3)<|box_end|>')
press_home()
press_back()
finished(content='xxx') # Use escape characters \\', \\", and \\n in content part to ensure we can parse the content in normal python string format."""

_ACTION_SPACE_POINT = """\
click(point='<point>x1 y1</point>')
long_press(point='<point>x1 y1</point>')
type(content='') #If you want to submit your input, use "\\n" at the end of `content`.
scroll(point='<point>x1 y1</point>', direction='down or up or right or left')
open_app(app_name='')
drag(start_point='<point>x1 y1</point>', end_point='<point>x2 y2</point>')
press_home()
press_back()
finished(content='xxx') # Use escape characters \\', \\", and \\n in content part to ensure we can parse the content in normal python string format."""

_PROMPT_HEAD = """\
You are a GUI agent operating an Android phone. You receive a task, the screenshots seen so far \
and the actions you already took; choose the one next action that moves the task forward.
## Output Format
```
Thought: ...
Action: ...
```
## Action Space

"""

_PROMPT_TAIL = """


## Note
- Write the `Thought` part in {language}.
- In `Thought`, sketch a short plan, then state the next action and the element it targets in one sentence.
- {data_rule}

## User Instruction
{instruction}
"""

MOBILE_PROMPT_START_BOX = _PROMPT_HEAD + _ACTION_SPACE_START_BOX + _PROMPT_TAIL
MOBILE_PROMPT_POINT = _PROMPT_HEAD + _ACTION_SPACE_POINT + _PROMPT_TAIL


def mobile_prompt(instruction: str, language: str = "English", variant: str = "start_box") -> str:
    """The first user message for one instruction, in the dialect the model was trained on."""
    if variant not in PROMPT_VARIANTS:
        raise ValueError(
            f"unknown UI-TARS prompt variant {variant!r}; use one of {PROMPT_VARIANTS}"
        )
    template = (
        MOBILE_PROMPT_START_BOX if variant == PROMPT_VARIANT_START_BOX else MOBILE_PROMPT_POINT
    )
    return template.format(
        language=language, instruction=instruction, data_rule=celil_untrusted.PICTURE_RULE
    )


@dataclasses.dataclass
class HistoryTurn:
    """One earlier step: the screenshot the model saw (as sent) and its answer, verbatim."""

    screenshot: np.ndarray | None
    response: str


_BARE_START_BOX = re.compile(r"((?:start|end)_box\s*=\s*['\"])\s*(\([^()'\"]*\))\s*(['\"])")


def add_box_tokens(response: str) -> str:
    """Re-wrap `start_box='(x,y)'` in box tokens for history turns.

    Servers often strip special tokens from the text they return, but the model saw them in
    training, so earlier turns are sent back in the trained form.
    """
    return _BARE_START_BOX.sub(r"\1<|box_start|>\2<|box_end|>\3", response)


def build_messages(
    instruction: str,
    screenshot: np.ndarray,
    history: Sequence[HistoryTurn] = (),
    *,
    language: str = "English",
    variant: str = "start_box",
    max_images: int = 5,
) -> list[ChatMessage]:
    """Prompt as a user message, then the history, then the current screenshot.

    `max_images` counts every screenshot sent, the current one included (UI-TARS-desktop keeps 5);
    older turns keep their answer but lose their image, which bounds the context length.
    """
    messages = [ChatMessage("user", mobile_prompt(instruction, language, variant))]
    history_image_budget = max(0, max_images - 1)
    with_image = {
        position
        for position in range(len(history) - 1, -1, -1)
        if history[position].screenshot is not None
    }
    kept = sorted(with_image, reverse=True)[:history_image_budget]
    for position, turn in enumerate(history):
        if position in kept and turn.screenshot is not None:
            messages.append(ChatMessage("user", images=[turn.screenshot]))
        response = turn.response
        if variant == PROMPT_VARIANT_START_BOX:
            response = add_box_tokens(response)
        messages.append(ChatMessage("assistant", text=response))
    if max_images > 0:
        messages.append(ChatMessage("user", images=[screenshot]))
    return messages
