"""UI-TARS answer parser: the labelled sections (Thought, Reflection, Action_Summary) and the
first action after `Action:`, checked against the action vocabulary.

Model text is untrusted: the parser returns a typed failure instead of raising, and runs in time
linear in the answer.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from android_world.agents.custom import celil_json
from android_world.agents.custom.dialects import uitars_actions, uitars_call
from android_world.agents.custom.dialects.uitars_actions import (
    UiTarsAction,
    UiTarsParseFailure,
    parse_point,
)

_LABEL = re.compile(r"(?<![A-Za-z0-9_])(Thought|Reflection|Action_Summary|Action)[ \t]*:")
_SPECIAL_TOKENS = re.compile(r"<\|(?:im_end|im_start|endoftext|end)\|>")
# The most further calls the parser reports; real actions are short.
_MAX_LATER_CALLS = 8
# Coordinates spelled with the prompt's own placeholder names: `(x1,y1)`, `<point>x1 y1</point>`.
_PLACEHOLDER_POINT = re.compile(r"(?<![A-Za-z0-9])[xy][1-3](?![A-Za-z0-9])", re.IGNORECASE)
# The prompt's example texts that are no real value (a model echoing the prompt writes them).
_EXAMPLE_VALUES = {
    "content": frozenset({"xxx"}),
    "direction": frozenset({"down or up or right or left"}),
}


def parse_uitars_output(text: str | None) -> UiTarsAction | UiTarsParseFailure:
    """The first action in a UI-TARS answer, or why there is none. Never raises; reads at most
    celil_json.MAX_ANSWER_CHARS of it (the executor records the cut)."""
    try:
        return _parse(celil_json.bounded(text)[0] if isinstance(text, str) else text)
    except Exception as error:  # a parser bug must not crash an episode
        return UiTarsParseFailure("bad_call", f"parser error: {type(error).__name__}: {error}")


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


def _example_echo(arguments: dict[str, Any]) -> str | None:
    """The argument that copies the prompt's action space instead of filling it in: a point
    named `(x1,y1)` (it parsed as (1,1) and was tapped 20 times in one run, issue 27),
    `content='xxx'`, or the direction list 'down or up or right or left'."""
    for key in (*uitars_actions.START_KEYS, *uitars_actions.END_KEYS):
        value = arguments.get(key)
        if isinstance(value, str) and _PLACEHOLDER_POINT.search(value):
            return f"{key}={value!r}"
    for key, examples in _EXAMPLE_VALUES.items():
        value = arguments.get(key)
        if isinstance(value, str) and " ".join(value.split()).casefold() in examples:
            return f"{key}={value!r}"
    return None


def _bare_call(text: str) -> str | None:
    """An answer with no `Action:` label whose last line is a known action call ("click(...)"):
    seen from models that drop the label when the prompt's format drifts."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return None
    match = uitars_call.CALL_START.match(lines[-1].strip("`"))
    if match and uitars_actions.canonical(match.group(1)) in uitars_actions.ACTION_NAMES:
        return lines[-1].strip("`")
    return None


def _later_calls(action_part: str, first_call: str) -> tuple[str, ...]:
    """Calls after the first one in the action text (`a(...) b(...)`, `a(...); b(...)`)."""
    rest = action_part.split(first_call, 1)[1] if first_call in action_part else ""
    found: list[str] = []
    for match in uitars_call.CALL_START.finditer(rest):
        if uitars_actions.canonical(match.group(1)) not in uitars_actions.ACTION_NAMES:
            continue
        scanned = uitars_call.scan_call(rest, match.end() - 1, uitars_call.MAX_TOLERANT_CHARS)
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
    read = uitars_call.read_call(action_part)
    if isinstance(read, UiTarsParseFailure):
        return dataclasses.replace(read, thought=thought)
    raw_name, call_text, positional, keywords = read
    name = uitars_actions.canonical(raw_name)
    call_text = call_text.strip()

    def fail(kind: str, reason: str) -> UiTarsParseFailure:
        return UiTarsParseFailure(kind, reason, thought, raw_name, call_text)

    if name not in uitars_actions.ACTION_NAMES:
        return fail("unknown_action", f"unknown action {raw_name!r}")
    arguments = dict(keywords)
    for slot, value in zip(uitars_actions.POSITIONAL.get(name, ()), positional):
        arguments.setdefault(slot, value)

    if echo := _example_echo(arguments):
        return fail("echo", f"the action repeats the prompt's example ({echo})")
    common: dict[str, Any] = {
        "thought": thought,
        "reflection": sections.get("Reflection", ""),
        "summary": sections.get("Action_Summary", ""),
        "call_text": call_text,
        "dropped": _later_calls(action_part, call_text),
    }
    return _typed_action(name, arguments, common, fail)


def _typed_action(
    name: str,
    arguments: dict[str, Any],
    common: dict[str, Any],
    fail: Callable[[str, str], UiTarsParseFailure],
) -> UiTarsAction | UiTarsParseFailure:
    """The action for a known name from its arguments, or why they do not make one."""
    start_value = next((arguments[k] for k in uitars_actions.START_KEYS if k in arguments), None)
    end_value = next((arguments[k] for k in uitars_actions.END_KEYS if k in arguments), None)
    start = parse_point(start_value)
    end = parse_point(end_value)
    if name in ("click", "long_press", "left_double"):
        if start is None:
            return fail("bad_argument", f"{name} needs a point, got {start_value!r}")
        return UiTarsAction(name, start=start, **common)
    if name == "drag":
        if start is None or end is None:
            return fail("bad_argument", "drag needs a start and an end point")
        return UiTarsAction(name, start=start, end=end, **common)
    if name == "scroll":
        direction = uitars_actions.text_argument(arguments.get("direction"))
        direction = direction.strip().strip("'\"").lower() if direction else None
        if direction in uitars_actions.DIRECTIONS:
            return UiTarsAction(name, start=start, end=end, direction=direction, **common)
        if start is not None and end is not None:
            return UiTarsAction(name, start=start, end=end, **common)
        return fail("bad_argument", f"scroll needs a direction, got {direction!r}")
    if name in ("type", "finished"):
        # `text=` is how some fine-tunes spell UI-TARS's `content=`; a point given with the
        # text says which field to type into, so it is kept (the field is tapped first).
        value = arguments.get("content", arguments.get("text"))
        content = uitars_actions.text_argument(value)
        return UiTarsAction(
            name, start=start if name == "type" else None, content=content or "", **common
        )
    if name == "open_app":
        app_name = (uitars_actions.text_argument(arguments.get("app_name")) or "").strip()
        if not app_name:
            return fail("bad_argument", "open_app needs an app_name")
        return UiTarsAction(name, app_name=app_name, **common)
    if name == "hotkey":
        key = (uitars_actions.text_argument(arguments.get("key")) or "").strip().lower()
        if not key:
            return fail("bad_argument", "hotkey needs a key")
        return UiTarsAction(name, key=key, **common)
    return UiTarsAction(name, **common)  # press_home, press_back, wait, call_user
