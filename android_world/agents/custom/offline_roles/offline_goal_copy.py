"""Goal check of a copy to the clipboard: "Copy the following text to the clipboard: Acme Corp".

What a clipboard holds is on no screen, and the general checks read such a goal as a paste goal
(its word "clipboard") that no paste met, so an episode that had copied the text ran to its
budget unclaimed. The copy itself leaves a trace on the screens, and this reads it, model-free:

- a long-press went through on an element whose own text is exactly the goal's text (a field
  the text was typed into, a message bubble), so the selection was made on that text;
- the very next action was a tap on Copy (or "Copy to clipboard") on the menu that long-press
  opened, and that menu offered no "Select all" (Android offers it while only part of the
  text is selected, so without it the whole text was);
- the screen after that tap confirmed the copy ("Copied", "Copied to clipboard");
- no Copy or Cut ran after it (a later copy replaces what the clipboard holds).

Only such a trail is `done`; anything else is `unknown` (the planner is then asked), never
`unmet`: a copy made another way (a share sheet, an app's own button) is not read here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNKNOWN,
    GoalCheck,
    Observation,
    TrailStep,
)
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.offline_goal_screens import texts

_QUOTE = text_lib.QUOTE_CHARS
# "Copy the following text to the clipboard: <text>", "Copy "<text>" to the clipboard".
_COPY = re.compile(
    rf"^\s*copy\s+(?:(?:the\s+)?(?:following\s+|this\s+)?text\s+)?"
    rf"(?:[{_QUOTE}](?P<quoted>[^{_QUOTE}]+)[{_QUOTE}]\s+)?"
    r"(?:in)?to\s+(?:the\s+|my\s+)?clipboard\b\s*(?P<rest>.*)$",
    re.I | re.S,
)
_COPY_LABELS = frozenset({"copy", "copy to clipboard", "copy text"})
_CLIPBOARD_WRITES = _COPY_LABELS | {"cut"}
_SELECT_ALL = "select all"
_COPIED = re.compile(r"\bcopied\b", re.I)
_TAPS = ("click", "long_press", "double_tap")


def parse_copy(goal: str) -> str | None:
    """The text a copy goal puts on the clipboard, or None for any other goal."""
    match = _COPY.match(goal or "")
    if match is None:
        return None
    if match.group("quoted"):
        if match.group("rest").strip(" .!"):
            return None  # more asked after the copy ("... and paste it into ...")
        return match.group("quoted").strip()
    rest = match.group("rest").strip()
    if not rest.startswith(":"):
        return None
    text = rest[1:].strip()
    return text or None


def covers_copy(clause: str) -> bool:
    return parse_copy(clause) is not None


def _norm(value: str | None) -> str:
    return text_lib.normalize(value)


def _same(a: str | None, b: str) -> bool:
    """The same text, character for character but for spacing."""
    return " ".join((a or "").split()) == " ".join(b.split())


def _own_text(step: TrailStep) -> str | None:
    elements = step.screen.ui_elements
    if step.index is None or not 0 <= step.index < len(elements):
        return None
    element = elements[step.index]
    if screen.is_field(element):
        return screen.field_text(element)  # a hint shown in an empty field is no text
    return element.text or element.content_description


def _writes_clipboard(step: TrailStep) -> bool:
    return step.ok and step.action_type in _TAPS and _norm(step.target) in _CLIPBOARD_WRITES


def _whole_selection(observation: Observation) -> bool:
    return not any(
        _norm(e.text or e.content_description) == _SELECT_ALL for e in observation.ui_elements
    )


def _confirmed(observation: Observation) -> bool:
    return any(_COPIED.search(t) for t in texts(observation, editable=False))


def copy_checks(goal: str, trail: Sequence[TrailStep], current: Observation) -> list[GoalCheck]:
    """The copy check of a copy goal (empty for any other goal)."""
    wanted = parse_copy(goal)
    if wanted is None:
        return []
    what = f"{wanted[:40]!r} copied"
    writes = [i for i, t in enumerate(trail) if _writes_clipboard(t)]
    if not writes:
        return [GoalCheck(what, GOAL_UNKNOWN, "no Copy ran")]
    at = writes[-1]
    tap = trail[at]
    if _norm(tap.target) not in _COPY_LABELS:
        return [GoalCheck(what, GOAL_UNKNOWN, f"the last clipboard action was '{tap.target}'")]
    pressed = trail[at - 1] if at > 0 else None
    if (
        pressed is None
        or not pressed.ok
        or pressed.action_type != "long_press"
        or not _same(_own_text(pressed), wanted)
    ):
        why = "the Copy did not follow a long-press on exactly the text"
        return [GoalCheck(what, GOAL_UNKNOWN, why)]
    if not _whole_selection(tap.screen):
        return [GoalCheck(what, GOAL_UNKNOWN, "the menu offered Select all: part was selected")]
    after = trail[at + 1].screen if at + 1 < len(trail) else current
    if not _confirmed(after):
        return [GoalCheck(what, GOAL_UNKNOWN, "no screen confirmed the copy")]
    why = f"the text was long-pressed, copied at step {tap.step}, and the copy confirmed"
    return [GoalCheck(what, GOAL_DONE, why)]
