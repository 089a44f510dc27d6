"""Goal check of a replaced content: "Update the content of a.txt to "new text" ... and change its
name to b.txt".

The general goal reader finds no verb in "Update the content of ..." and reads the file's own
name as a value to write (its digits as a quantity), so no check covered such a goal and an
episode that had done it ran to its budget unclaimed. This reads it as two end states, from the
screens the episode showed, model-free:

- the content: a text field showed exactly the new text (the whole of it, nothing else; a field
  holding only part of it, or the old text with the new appended, is no replacement) on a
  screen titled with the item's name (not some other note's editor), and that editor was left
  afterwards (a Save, Back or Navigate up, or a screen without the field);
- the new name, when the goal asks for one: typed where the old name showed (the rename dialog
  of that very item), and a screen since the last typing shows it outside any text field (a
  listing row, a title) without the old name, or the old row gone from between its neighbours.

Each says `done` only on such screens; otherwise `unknown` (the planner is then asked).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNKNOWN,
    GoalCheck,
    Observation,
    TrailStep,
)
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles import offline_wording as wording
from android_world.agents.custom.offline_roles.offline_goal_screens import item_shown, texts

_QUOTE = text_lib.QUOTE_CHARS
# "Update/Change/Set/Replace the content(s)/text of <name> to/with "<text>"".
_REPLACE = re.compile(
    rf"\b(?:update|change|set|replace|edit)\s+the\s+(?:contents?|text)\s+of\s+"
    rf"(?:the\s+)?(?:note\s+|file\s+)?(?P<name>[^\s{_QUOTE}]+?)\s+(?:to|with)\s+"
    rf"[{_QUOTE}](?P<text>[^{_QUOTE}]+)[{_QUOTE}]",
    re.I,
)
# "... and change its name to b.txt", "... and rename it to b.txt".
_RENAME = re.compile(
    r"(?:\band\s+|\bthen\s+)*\b(?:change\s+its\s+name|rename\s+it)\s+to\s+(?P<new>[^\s,;]+?)\s*[.!]?\s*$",
    re.I,
)
_LEAVE_LABELS = frozenset({"save", "done", "ok", "navigate up", "back"})
_CONFIRM_LABELS = frozenset({"ok", "rename", "save", "done"})


def parse_replace(goal: str) -> tuple[str, str, str | None] | None:
    """(the item, its new content, its new name or None), or None for any other goal."""
    match = _REPLACE.search(goal or "")
    if match is None:
        return None
    rest = goal[match.end() :]
    renamed = _RENAME.search(rest)
    return match.group("name"), match.group("text"), renamed.group("new") if renamed else None


def covers_content(clause: str) -> bool:
    """A clause this reads: the replace itself, or its rename read as a clause of its own."""
    return parse_replace(clause) is not None or bool(_RENAME.match(clause.strip()))


def _norm(value: str | None) -> str:
    return text_lib.normalize(value)


def _holds_exactly(observation: Observation, wanted: str) -> bool:
    """A text field shows the new content and nothing else."""
    return any(_norm(text) == _norm(wanted) for text in texts(observation, editable=True))


def _left_editor(step: TrailStep) -> bool:
    if step.action_type in ("navigate_back", "keyboard_enter"):
        return step.ok
    return step.ok and step.action_type == "click" and _norm(step.target) in _LEAVE_LABELS


def content_checks(goal: str, trail: Sequence[TrailStep], current: Observation) -> list[GoalCheck]:
    """The content and name checks of a replace goal (empty for any other goal)."""
    parsed = parse_replace(goal)
    if parsed is None:
        return []
    old, content, new = parsed
    checks = [_content_check(old, content, trail, current)]
    if new:
        checks.append(_rename_check(old, new, trail, current))
    return checks


def _names_item(observation: Observation, item: str) -> bool:
    """The editor is the item's own: its name (or the name without its extension) shows
    outside the field, as an editor's title does."""
    stem = item.rsplit(".", 1)[0] if "." in item else item
    shown = texts(observation, editable=False)
    return item_shown(item, shown) or item_shown(stem, shown)


def _content_check(
    item: str, content: str, trail: Sequence[TrailStep], current: Observation
) -> GoalCheck:
    what = f"content {content[:40]!r}"
    holding = [
        i
        for i, t in enumerate(trail)
        if _holds_exactly(t.screen, content) and _names_item(t.screen, item)
    ]
    if not holding:
        if _holds_exactly(current, content):
            return GoalCheck(what, GOAL_UNKNOWN, "typed, the editor not left yet")
        return GoalCheck(what, GOAL_UNKNOWN, "no field showed exactly the new content")
    last = holding[-1]
    # The screen that held it was left by its own step (a Back, a Save) or a later one before
    # any other typing changed the field.
    for step in trail[last:]:
        if step.action_type == "input_text" and step is not trail[last]:
            break
        if _left_editor(step):
            return GoalCheck(what, GOAL_DONE, f"a field held it; left at step {step.step}")
    return GoalCheck(what, GOAL_UNKNOWN, "a field held it; the editor was not left since")


def _rename_check(
    old: str, new: str, trail: Sequence[TrailStep], current: Observation
) -> GoalCheck:
    """The new name in place of the old one: shown outside a field since the last typing, or,
    when the listing is longer than the screen and sorts it out of view, a rename confirmed
    with the field holding exactly the new name, after which the old row is gone from between
    the very rows that flanked it before."""
    what = f"renamed to {new[:40]!r}"
    if not _renamed_this(old, new, trail):
        return GoalCheck(what, GOAL_UNKNOWN, f"the new name was never typed where {old!r} showed")
    typed = [i for i, t in enumerate(trail) if t.action_type == "input_text" and t.ok]
    since = [t.screen for t in trail[typed[-1] + 1 :]] if typed else []
    for observation in reversed([*since, current]):
        shown = texts(observation, editable=False)
        if item_shown(new, shown) and not item_shown(old, shown):
            return GoalCheck(what, GOAL_DONE, "the new name shows outside a field, the old one not")
    confirmed = _confirmed_at(new, trail)
    if confirmed is not None:
        flanks = _flanks(old, [t.screen for t in trail[:confirmed]])
        later = [t.screen for t in trail[confirmed + 1 :]] + [current]
        if flanks and any(_closed_up(flanks, old, o) for o in later):
            why = "confirmed with the new name; the old row is gone from between its neighbours"
            return GoalCheck(what, GOAL_DONE, why)
    return GoalCheck(what, GOAL_UNKNOWN, "the new name was not seen in place of the old one")


def _renamed_this(old: str, new: str, trail: Sequence[TrailStep]) -> bool:
    """The new name was typed on a screen that showed the old one (a rename dialog prefilled
    with it, or titled with it): another file renamed to the new name is not this rename."""
    return any(
        t.ok
        and t.action_type == "input_text"
        and _norm(t.typed) == _norm(new)
        and item_shown(old, texts(t.screen))
        for t in trail
    )


def _names(observation: Observation) -> list[str]:
    """The file names a listing shows outside fields, top to bottom."""
    return [t for t in texts(observation, editable=False) if wording.file_names(t) == [t.strip()]]


def _confirmed_at(new: str, trail: Sequence[TrailStep]) -> int | None:
    """The index of the last confirm tap (OK, Rename, Save) on a screen whose field held
    exactly the new name, once that tap went through."""
    for i in range(len(trail) - 1, -1, -1):
        step = trail[i]
        if not step.ok or step.action_type != "click":
            continue
        if _norm(step.target) in _CONFIRM_LABELS and _holds_exactly(step.screen, new):
            return i
    return None


def _flanks(old: str, before: Sequence[Observation]) -> tuple[str, str] | None:
    """The names right above and below the old one on the last listing that showed it with a
    row on each side (None when it was first or last in view: then nothing marks its place)."""
    for observation in reversed(before):
        names = _names(observation)
        where = [i for i, n in enumerate(names) if _norm(n) == _norm(old)]
        if where and 0 < where[0] < len(names) - 1:
            return names[where[0] - 1], names[where[0] + 1]
    return None


def _closed_up(flanks: tuple[str, str], old: str, observation: Observation) -> bool:
    """A listing where the old name's two neighbours now sit next to each other."""
    names = [_norm(n) for n in _names(observation)]
    if _norm(old) in names:
        return False
    above, below = _norm(flanks[0]), _norm(flanks[1])
    return any(a == above and b == below for a, b in itertools.pairwise(names))
