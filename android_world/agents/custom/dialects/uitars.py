"""UI-TARS as an Android executor: prompt, output parser, image sizing and coordinate mapping.

Everything here is a pure function so the executor role, tests and offline tools share one
understanding of the model's dialect. Model text is untrusted: every parser returns a typed failure
instead of raising, because an unparseable step must become a failed proposal, never a crash.

Two dialects exist (see DESIGN §4): UI-TARS-1.5 writes `start_box='<|box_start|>(x,y)<|box_end|>'`
in absolute pixels of the image it was sent; UI-TARS v1 and the Doubao API write
`point='<point>x y</point>'` on a 0..1000 grid. The parser accepts both spellings; the coordinate
convention is a separate, configured choice because the text alone cannot tell them apart.
"""

from __future__ import annotations

import ast
import dataclasses
import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image

from android_world.agents.custom import celil_json, celil_untrusted
from android_world.agents.custom.model_clients.call_types import ChatMessage
from android_world.env import json_action

# --------------------------------------------------------------------------------------------
# Prompt
# --------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------
# Image size
# --------------------------------------------------------------------------------------------

IMAGE_FACTOR = 28
MIN_PIXELS = 100 * 28 * 28
MAX_PIXELS = 16384 * 28 * 28
DEFAULT_CLIENT_MAX_PIXELS = 28 * 28 * 1280  # 1,003,520: under every server's own limit


def smart_resize(
    height: int,
    width: int,
    factor: int = IMAGE_FACTOR,
    min_pixels: int = MIN_PIXELS,
    max_pixels: int = MAX_PIXELS,
) -> tuple[int, int]:
    """(height, width) the Qwen2.5-VL processor turns an image into: multiples of `factor`.

    Same arithmetic as the model's own processor so that a pre-resized image passes through the
    server unchanged. Unlike the reference it never raises on extreme aspect ratios.
    """
    height = max(1, int(height))
    width = max(1, int(width))
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def resize_for_model(
    image: np.ndarray,
    max_pixels: int = DEFAULT_CLIENT_MAX_PIXELS,
    factor: int = IMAGE_FACTOR,
    min_pixels: int = MIN_PIXELS,
) -> tuple[np.ndarray, tuple[int, int]]:
    """The screenshot resized to its smart-resized size, and that size as (width, height).

    Sending an image whose sides are multiples of 28 and whose area is under every server cap
    means the model sees exactly this image, so coordinates map back with exactly these numbers.
    """
    array = np.asarray(image)
    if array.ndim == 2:
        array = np.stack([array] * 3, axis=-1)
    if array.ndim == 3 and array.shape[2] == 4:
        array = array[:, :, :3]
    if array.dtype != np.uint8:
        array = np.clip(array, 0, 255).astype(np.uint8)
    height, width = array.shape[:2]
    new_height, new_width = smart_resize(
        height, width, factor=factor, min_pixels=min_pixels, max_pixels=max_pixels
    )
    if (new_height, new_width) != (height, width):
        resized = Image.fromarray(array).resize((new_width, new_height), Image.Resampling.BICUBIC)
        array = np.asarray(resized)
    return array, (new_width, new_height)


# --------------------------------------------------------------------------------------------
# Parsing model output
# --------------------------------------------------------------------------------------------

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
_ALIASES = {
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
_NO_ARGUMENT_ACTIONS = ("press_home", "press_back", "wait", "finished", "call_user")
# Where a positional argument goes, per action (models sometimes drop the keyword).
_POSITIONAL = {
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
_START_KEYS = ("start_box", "point", "start_point")
_END_KEYS = ("end_box", "end_point")
_DIRECTIONS = ("up", "down", "left", "right")


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


_LABEL = re.compile(r"(?<![A-Za-z0-9_])(Thought|Reflection|Action_Summary|Action)[ \t]*:")
_SPECIAL_TOKENS = re.compile(r"<\|(?:im_end|im_start|endoftext|end)\|>")
_BOX_TOKEN = re.compile(r"<\|box_(?:start|end)\|>")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
# Patterns here never nest quantifiers over the same text, and start only at word starts, so
# every one is linear in the answer (issue 27: blank space after `Action:` took 40 s).
_CALL_START = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(")
_BARE_NAME = re.compile(r"`*([A-Za-z_][A-Za-z0-9_]*)`*")
_ACTION_BREAK = re.compile(r"\)[ \t]*\n[ \t]*\n")
_KEYWORD = re.compile(r"(?<![\w])(\w+)[ \t]*=[ \t]*")
# Possessive runs (`*+`) never give back blank space, so a long run is crossed once.
_VALUE_END = re.compile(r"[ \t\n]*+(?:,[ \t\n]*+\w++[ \t]*+=|,?+[ \t\n]*+\Z)")
_NEXT_KEYWORD = re.compile(r",[ \t\n]*+\w++[ \t]*+=")
# The most the tolerant reader and the scan for further calls look at; real actions are short.
_MAX_TOLERANT_CHARS = 4000
_MAX_LATER_CALLS = 8
# Coordinates spelled with the prompt's own placeholder names: `(x1,y1)`, `<point>x1 y1</point>`.
_PLACEHOLDER_POINT = re.compile(r"(?<![A-Za-z0-9])[xy][1-3](?![A-Za-z0-9])", re.IGNORECASE)
# The prompt's example texts that are no real value (a model echoing the prompt writes them).
_EXAMPLE_VALUES = {
    "content": frozenset({"xxx"}),
    "direction": frozenset({"down or up or right or left"}),
}
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", "'": "'", '"': '"', "\\": "\\"}


def _sections(text: str) -> tuple[dict[str, str], str | None]:
    """Labelled sections before the action, and the text after the chosen `Action:` label.

    The first `Action:` at a line start is the real one (a thought may mention the word inline,
    and content after it may contain anything); with none at a line start, the last inline one.
    """
    labels = list(_LABEL.finditer(text))
    action_labels = [m for m in labels if m.group(1) == "Action"]
    at_line_start = [m for m in labels if _starts_line(text, m.start())]
    action_at_line_start = [m for m in at_line_start if m.group(1) == "Action"]
    if action_at_line_start:
        chosen = action_at_line_start[0]
    else:
        chosen = action_labels[-1] if action_labels else None
    limit = chosen.start() if chosen else len(text)
    sections: dict[str, str] = {}
    # Inline labels are prose ("the next Action: ..."), except when a one-line answer has no other.
    delimiters = at_line_start if chosen is None or chosen in at_line_start else labels
    before = [m for m in delimiters if m.start() < limit]
    for position, match in enumerate(before):
        end = before[position + 1].start() if position + 1 < len(before) else limit
        sections[match.group(1)] = text[match.end() : end].strip().strip("*#").strip()
    if "Thought" not in sections:
        first_label = before[0].start() if before else limit
        prefix = text[:first_label].strip()
        if prefix:
            sections["Thought"] = prefix
    return sections, (text[chosen.end() :] if chosen else None)


def _starts_line(text: str, position: int) -> bool:
    """Only blank space or markup (`*#` and backticks) stands between `position` and the start
    of its line. Walks back over that run only, so all labels together cost one pass."""
    index = position - 1
    while index >= 0 and text[index] in " \t*#`":
        index -= 1
    return index < 0 or text[index] == "\n"


def _scan_call(source: str, open_paren: int, limit: int | None = None) -> tuple[str, int] | None:
    """The call text up to its matching `)`, with raw newlines inside strings escaped.

    Escaping lets `ast` read multi-line `type(content=...)`; None means quotes or parentheses do
    not balance, and the caller falls back to the tolerant reader.
    """
    out: list[str] = []
    depth = 0
    quote: str | None = None
    escaped = False
    end = len(source) if limit is None else min(len(source), open_paren + limit)
    for position in range(open_paren, end):
        char = source[position]
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
            elif char == "\n":
                out.append("\\n")
                continue
            elif char == "\r":
                continue
            out.append(char)
            continue
        out.append(char)
        if char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return "".join(out), position
    return None


def _literal(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return ast.unparse(node)


def _ast_arguments(call_text: str) -> tuple[list[Any], dict[str, Any]] | None:
    try:
        tree = ast.parse(call_text.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    call = tree.body
    if not isinstance(call, ast.Call):
        return None
    positional = [_literal(arg) for arg in call.args]
    keywords = {kw.arg: _literal(kw.value) for kw in call.keywords if kw.arg}
    return positional, keywords


def _unescape(value: str) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(0)), value)


def _tolerant_arguments(inner: str) -> dict[str, Any]:
    """Keyword arguments read by scanning, for calls `ast` rejects (unescaped quotes, say).

    A quoted value ends at the first matching quote followed by `, name=` or the end, so a
    quote or `x=` inside the text stays in it; an unquoted value ends before the next `, name=`.
    """
    text = inner.strip()
    arguments: dict[str, Any] = {}
    position = 0
    while (key := _KEYWORD.search(text, position)) is not None:
        start = key.end()
        quote = text[start : start + 1]
        value_end = None
        if quote in ("'", '"'):
            close = text.find(quote, start + 1)
            while close != -1:
                if text[close - 1] != "\\" and _VALUE_END.match(text, close + 1):
                    value_end = close
                    break
                close = text.find(quote, close + 1)
        if value_end is not None:
            arguments[key.group(1)] = _unescape(text[start + 1 : value_end])
            position = value_end + 1
            continue
        following = _NEXT_KEYWORD.search(text, start)
        stop = following.start() if following else len(text)
        arguments[key.group(1)] = text[start:stop].strip().rstrip(",").strip()
        position = max(stop, start + 1)
    return arguments


def _read_call(action_part: str) -> tuple[str, str, list[Any], dict[str, Any]] | UiTarsParseFailure:
    """(name, call text, positional args, keyword args) of the first call after `Action:`."""
    start = _CALL_START.search(action_part)
    if start is None:
        for line in action_part.splitlines():
            bare = _BARE_NAME.fullmatch(line.strip())
            if bare and _canonical(bare.group(1)) in _NO_ARGUMENT_ACTIONS:
                return bare.group(1), bare.group(1), [], {}
        return UiTarsParseFailure("no_call", "no function call after 'Action:'")
    name = start.group(1)
    open_paren = start.end() - 1
    scanned = _scan_call(action_part, open_paren)
    if scanned is not None:
        call_text = name + scanned[0]
        parsed = _ast_arguments(call_text)
        if parsed is not None:
            return name, action_part[start.start() : scanned[1] + 1], parsed[0], parsed[1]
    # Tolerant path: bound the first action, then read `key=value` pairs by pattern.
    rest = action_part[start.start() :]
    brk = _ACTION_BREAK.search(rest)
    segment = rest[: brk.start() + 1] if brk else rest.rstrip()
    segment = segment[:_MAX_TOLERANT_CHARS]
    opening = len(start.group(0))
    close = segment.rfind(")")
    inner = segment[opening:close] if close >= opening else segment[opening:]
    arguments = _tolerant_arguments(inner)
    if not arguments and inner.strip():
        return UiTarsParseFailure(
            "bad_call", f"could not read the arguments of {name}(...)", call_text=segment
        )
    return name, segment, [], arguments


def _example_echo(arguments: dict[str, Any]) -> str | None:
    """The argument that copies the prompt's action space instead of filling it in: a point
    named `(x1,y1)` (it parsed as (1,1) and was tapped 20 times in one run, issue 27),
    `content='xxx'`, or the direction list 'down or up or right or left'."""
    for key in (*_START_KEYS, *_END_KEYS):
        value = arguments.get(key)
        if isinstance(value, str) and _PLACEHOLDER_POINT.search(value):
            return f"{key}={value!r}"
    for key, examples in _EXAMPLE_VALUES.items():
        value = arguments.get(key)
        if isinstance(value, str) and " ".join(value.split()).casefold() in examples:
            return f"{key}={value!r}"
    return None


def _canonical(name: str) -> str:
    lowered = name.strip().lower()
    return _ALIASES.get(lowered, lowered)


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


def _text_argument(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


def parse_uitars_output(text: str | None) -> UiTarsAction | UiTarsParseFailure:
    """The first action in a UI-TARS answer, or why there is none. Never raises; reads at most
    celil_json.MAX_ANSWER_CHARS of it (the executor records the cut)."""
    try:
        return _parse(celil_json.bounded(text)[0] if isinstance(text, str) else text)
    except Exception as error:  # a parser bug must not crash an episode
        return UiTarsParseFailure("bad_call", f"parser error: {type(error).__name__}: {error}")


def _bare_call(text: str) -> str | None:
    """An answer with no `Action:` label whose last line is a known action call ("click(...)"):
    seen from models that drop the label when the prompt's format drifts."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return None
    match = _CALL_START.match(lines[-1].strip("`"))
    if match and _canonical(match.group(1)) in ACTION_NAMES:
        return lines[-1].strip("`")
    return None


def _later_calls(action_part: str, first_call: str) -> tuple[str, ...]:
    """Calls after the first one in the action text (`a(...) b(...)`, `a(...); b(...)`)."""
    rest = action_part.split(first_call, 1)[1] if first_call in action_part else ""
    found: list[str] = []
    for match in _CALL_START.finditer(rest):
        if _canonical(match.group(1)) not in ACTION_NAMES:
            continue
        scanned = _scan_call(rest, match.end() - 1, _MAX_TOLERANT_CHARS)
        if scanned is not None:
            found.append(match.group(1) + scanned[0])
        if len(found) >= _MAX_LATER_CALLS:
            break
    return tuple(found)


def _parse(text: str | None) -> UiTarsAction | UiTarsParseFailure:
    if not isinstance(text, str) or not text.strip():
        return UiTarsParseFailure("no_text", "empty model output")
    cleaned = _SPECIAL_TOKENS.sub("", text).replace("\r\n", "\n")
    # Full-width colons ("Action：") come from models answering in a CJK-trained register.
    cleaned = cleaned.replace("\uff1a", ":")
    sections, action_part = _sections(cleaned)
    thought = sections.get("Thought", "")
    if action_part is None:
        bare = _bare_call(cleaned)
        if bare is None:
            return UiTarsParseFailure(
                "no_action", "no 'Action:' line in the output", thought=thought
            )
        action_part = bare
        if thought.strip().endswith(bare):
            thought = thought.strip()[: -len(bare)].strip()
    read = _read_call(action_part)
    if isinstance(read, UiTarsParseFailure):
        return dataclasses.replace(read, thought=thought)
    raw_name, call_text, positional, keywords = read
    name = _canonical(raw_name)
    call_text = call_text.strip()

    def fail(kind: str, reason: str) -> UiTarsParseFailure:
        return UiTarsParseFailure(kind, reason, thought, raw_name, call_text)

    if name not in ACTION_NAMES:
        return fail("unknown_action", f"unknown action {raw_name!r}")
    arguments = dict(keywords)
    for slot, value in zip(_POSITIONAL.get(name, ()), positional):
        arguments.setdefault(slot, value)

    if echo := _example_echo(arguments):
        return fail("echo", f"the action repeats the prompt's example ({echo})")
    start_value = next((arguments[k] for k in _START_KEYS if k in arguments), None)
    end_value = next((arguments[k] for k in _END_KEYS if k in arguments), None)
    start = parse_point(start_value)
    end = parse_point(end_value)
    common: dict[str, Any] = {
        "thought": thought,
        "reflection": sections.get("Reflection", ""),
        "summary": sections.get("Action_Summary", ""),
        "call_text": call_text,
        "dropped": _later_calls(action_part, call_text),
    }

    if name in ("click", "long_press", "left_double"):
        if start is None:
            return fail("bad_argument", f"{name} needs a point, got {start_value!r}")
        return UiTarsAction(name, start=start, **common)
    if name == "drag":
        if start is None or end is None:
            return fail("bad_argument", "drag needs a start and an end point")
        return UiTarsAction(name, start=start, end=end, **common)
    if name == "scroll":
        direction = _text_argument(arguments.get("direction"))
        direction = direction.strip().strip("'\"").lower() if direction else None
        if direction in _DIRECTIONS:
            return UiTarsAction(name, start=start, end=end, direction=direction, **common)
        if start is not None and end is not None:
            return UiTarsAction(name, start=start, end=end, **common)
        return fail("bad_argument", f"scroll needs a direction, got {direction!r}")
    if name in ("type", "finished"):
        # `text=` is how some fine-tunes spell UI-TARS's `content=`; a point given with the
        # text says which field to type into, so it is kept (the field is tapped first).
        value = arguments.get("content", arguments.get("text"))
        content = _text_argument(value)
        return UiTarsAction(
            name, start=start if name == "type" else None, content=content or "", **common
        )
    if name == "open_app":
        app_name = (_text_argument(arguments.get("app_name")) or "").strip()
        if not app_name:
            return fail("bad_argument", "open_app needs an app_name")
        return UiTarsAction(name, app_name=app_name, **common)
    if name == "hotkey":
        key = (_text_argument(arguments.get("key")) or "").strip().lower()
        if not key:
            return fail("bad_argument", "hotkey needs a key")
        return UiTarsAction(name, key=key, **common)
    return UiTarsAction(name, **common)  # press_home, press_back, wait, call_user


# --------------------------------------------------------------------------------------------
# Coordinates and JSONAction
# --------------------------------------------------------------------------------------------

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
