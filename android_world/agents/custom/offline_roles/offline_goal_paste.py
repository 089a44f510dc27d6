"""The words of a message sent from the clipboard: "Send a message to +1555... with the clipboard
content".

Such a goal does not give its words, so the value checks cannot tell whether the right ones went
out, and an episode that had pasted and sent them was left to the planner's word (the reference
solution itself ended `unknown`). The clipboard's words are on no screen before the paste, but
the paste and the send leave them on the screens, and this reads them, model-free:

- the clipboard held what the task gave it: no Copy or Cut ran before the paste;
- the paste went into an empty field: a long-press on a field that held no text (only its hint)
  opened the menu, and the very next action tapped Paste on it (a paste appends, so a field
  with words typed before would send those too);
- the very next action after the paste tapped Send, on a screen where that field (the same id,
  hint or box) held the pasted words;
- a screen since shows those words outside any field (the sent bubble).

Only such a trail is `done`; anything else keeps the old answer, `unknown`.
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
from android_world.agents.custom.offline_roles.offline_goal_screens import texts, value_shown

_CLIPBOARD = re.compile(r"\bclipboard\b", re.I)
_TAPS = ("click", "long_press", "double_tap")
_CLIPBOARD_WRITES = frozenset({"copy", "cut", "copy to clipboard", "copy text"})
WHAT = "message sent"


def _norm(value: str | None) -> str:
    return text_lib.normalize(value)


def _tapped(step: TrailStep, labels: Sequence[str]) -> bool:
    return step.ok and step.action_type in _TAPS and _norm(step.target) in labels


def _sends(step: TrailStep) -> bool:
    label = _norm(step.target)
    return step.ok and step.action_type in _TAPS and label.split()[:1] == ["send"]


def _empty_field(step: TrailStep):
    """The field a long-press went through on, when it held no text; else None."""
    elements = step.screen.ui_elements
    if not step.ok or step.action_type != "long_press" or step.index is None:
        return None
    if not 0 <= step.index < len(elements):
        return None
    element = elements[step.index]
    if not screen.is_field(element) or screen.field_text(element):
        return None
    return element


def _same_field(field, element) -> bool:
    """The same field on a later screen: its id, else its hint (a keyboard that opens or
    closes moves it), else its box."""
    if not screen.is_field(element):
        return False
    if field.resource_name or element.resource_name:
        return field.resource_name == element.resource_name
    if field.hint_text or element.hint_text:
        return field.hint_text == element.hint_text
    return field.bbox_pixels is not None and field.bbox_pixels == element.bbox_pixels


def _held(observation: Observation, field) -> str:
    """What the field holds on this screen ("" when it is not there, or not once)."""
    same = [e for e in observation.ui_elements if _same_field(field, e)]
    return screen.field_text(same[0]) if len(same) == 1 else ""


def _pasted_and_sent(trail: Sequence[TrailStep], current: Observation) -> str | None:
    """Why the clipboard's words went out whole, or None when the screens do not show it."""
    pastes = [i for i, t in enumerate(trail) if _tapped(t, ("paste",))]
    if not pastes:
        return None
    at = pastes[-1]
    if any(_tapped(t, _CLIPBOARD_WRITES) for t in trail[:at]):
        return None  # the clipboard may hold something else by then
    field = _empty_field(trail[at - 1]) if at > 0 else None
    if field is None or at + 1 >= len(trail) or not _sends(trail[at + 1]):
        return None
    words = _held(trail[at + 1].screen, field)
    if not words:
        return None
    later = [t.screen for t in trail[at + 2 :]] + [current]
    if not any(value_shown(words, texts(o, editable=False)) for o in later):
        return None
    return (
        f"pasted into the empty field and sent at step {trail[at + 1].step}: {words[:40]!r} shows"
    )


def sent_words_check(goal: str, trail: Sequence[TrailStep], current: Observation) -> GoalCheck:
    """The check of a send goal that does not give its words: `done` for the clipboard's words
    pasted whole and sent (see the module doc), else `unknown`."""
    if _CLIPBOARD.search(goal or ""):
        why = _pasted_and_sent(trail, current)
        if why is not None:
            return GoalCheck(WHAT, GOAL_DONE, why)
    return GoalCheck(WHAT, GOAL_UNKNOWN, "the goal does not give its words")
