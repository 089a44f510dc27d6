"""Which values a goal gives: what a plan must use and what a writing goal leaves behind.

Pure functions of the parsed goal (`offline_text.GoalInfo`), read by the goal check
(`offline_goal`) and by the sub-goal readers; split from the goal check, which reads screens.
"""

from __future__ import annotations

import collections
import functools
import re
import threading
from collections.abc import Callable, Sequence

from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles import offline_wording as wording

# Verbs whose goal leaves its values saved or sent somewhere; a copy, a search or a share leaves
# them nowhere the screens can be read for.
WRITING_VERBS = frozenset(
    {"create", "add", "new", "send", "reply", "edit", "rename", "update", "write", "save", "enter"}
    | {"fill", "type", "record", "set", "change", "make", "log", "schedule", "text", "compose"}
)
DELETE_VERBS = frozenset({"delete", "remove"})
# Goals whose names are of things that exist already (copied, moved): no values to enter.
ELSEWHERE_VERBS = frozenset({"copy", "move", "duplicate"})


def writing_goal(info: text_lib.GoalInfo) -> bool:
    """A goal that leaves values behind; a delete goal's names ("New Jacket") are no entries."""
    verbs = set(info.verbs) | set(text_lib.words(info.goal)) & ELSEWHERE_VERBS
    elsewhere = (DELETE_VERBS | ELSEWHERE_VERBS) & verbs
    return bool(WRITING_VERBS & verbs) and not elsewhere and not info.is_question


def given_values(info: text_lib.GoalInfo) -> list[str]:
    """Values a goal gives that a plan for it must use: quoted texts, phone numbers, amounts,
    file and item names (a storage volume's name only says where, so it is not one)."""
    raw = info.goal
    values = [*info.quoted, *wording.phone_numbers(raw), *wording.money_values(raw)]
    values += [v for _, v in info.fields if not _the_move(v, info)]
    # A "|" table's header row names columns, not values.
    header = next((line for line in raw.splitlines() if "|" in line), "")
    for name in [*wording.file_names(raw), *wording.identifiers(raw.replace(header, ""))]:
        if not re.search(rf"{re.escape(name)}\s+(?:storage|drive|volume|device|sd\b)", raw, re.I):
            values.append(name)
    values += wording.capitalised_words(raw, text_lib.app_names())
    out: list[str] = []
    for value in values:
        value = value.strip()
        if value and not any(value in v for v in out):
            out = [v for v in out if v not in value] + [value]
    return out


def _the_move(value: str, info: text_lib.GoalInfo) -> bool:
    """A field read off a move ("the note X from A to B" read as a name): its parts are the
    move's item and folders, which the move's own steps use."""
    if info.move is None:
        return False
    rest = value
    for part in info.move:
        rest = rest.replace(part, " ")
    return not set(text_lib.words(rest)) - {"from", "to", "into", "the", "folder"}


def without_lone_capitals(info: text_lib.GoalInfo, values: list[str]) -> list[str]:
    """Drop a lone capitalised word ("Downloads", "Memory" in "Internal Memory/VLCVideos"):
    it says where or what kind as often as what to write, so it counts only when a field or a
    quote holds it."""
    stated = {text_lib.normalize(v) for _, v in info.fields} | {
        text_lib.normalize(q) for q in info.quoted
    }
    capitals = {
        text_lib.normalize(w) for w in wording.capitalised_words(info.goal, text_lib.app_names())
    }
    return [
        v
        for v in values
        if not (
            text_lib.normalize(v) in capitals
            and len(v.split()) == 1
            and text_lib.normalize(v) not in stated
        )
    ]


def is_source(goal: str, value: str) -> bool:
    """A value the goal reads from ("Add the recipes from recipes.txt"): what is written is
    the file's content, which the goal does not spell out, not its name."""
    pattern = rf"\bfrom\s+(?:the\s+)?(?:file\s+|note\s+|image\s+)?[\"'“‘]?{re.escape(value)}"
    if re.search(pattern, goal, re.I):
        return True
    # "Merge the contents of notes a.txt, b.txt and c.md into a new note named x": a, b, c.
    sources = _SOURCE_SPAN.search(goal)
    return sources is not None and value.casefold() in sources.group(1).casefold()


_SOURCE_SPAN = re.compile(r"\b(?:contents?|text)\s+of\s+(.{1,400}?)\s+(?:into|to)\b", re.I)


def _kept_per_goal(read: Callable[[text_lib.GoalInfo], list[str]]):
    """A reading of the parsed goal kept for the last goals read (the goal check asks for the
    goal's values once for its value checks and once per clause, every step). Keyed by the
    parsed goal's repr, which spells out every field: a goal parsed alike reads alike, one
    changed anywhere is read again. Each caller gets its own list."""
    kept: collections.OrderedDict[str, tuple[str, ...]] = collections.OrderedDict()
    lock = threading.Lock()

    @functools.wraps(read)
    def reading(info: text_lib.GoalInfo) -> list[str]:
        key = repr(info)
        with lock:
            value = kept.get(key)
            if value is not None:
                kept.move_to_end(key)
                return list(value)
        value = tuple(read(info))
        with lock:
            kept[key] = value
            while len(kept) > 64:
                kept.popitem(last=False)
        return list(value)

    reading.cache_clear = kept.clear  # type: ignore[attr-defined]
    return reading


@_kept_per_goal
def goal_values(info: text_lib.GoalInfo) -> list[str]:
    """The values a writing goal leaves behind: the given ones (lone capitalised words aside),
    each record's, appended text."""
    values = [
        v
        for v in without_lone_capitals(info, given_values(info))
        if not is_source(info.goal, v) and "clipboard" not in v.casefold()
    ]
    values += [v for r in info.records for _, v in r if not is_source(info.goal, v)]
    if info.append:
        values.append(info.append)
    if info.prepend:
        values.append(info.prepend)
    return each_value(values)


def each_value(values: list[str]) -> list[str]:
    """Values once each, a listed value ("a.mp4, b.mp4, c.mp4") as its items: each is
    entered or picked on its own."""
    keep = []
    for value in values:
        value = value.strip().strip("\"'")
        parts = wording.listed_items(value) if ", " in value else [value]
        for part in parts if len(parts) > 1 else [value]:
            part = part.strip().strip("\"'")
            if part and text_lib.normalize(part) not in {text_lib.normalize(v) for v in keep}:
                keep.append(part)
    return keep


def identity_value(info: text_lib.GoalInfo, values: Sequence[str]) -> str | None:
    """The value that names what the goal makes (a title, a name, a file, the message): it is
    the one that shows outside a text field once the thing is saved or sent."""
    if info.records:
        first = info.records[0]
        return first[0][1] if first else None
    for key in ("title", "name", "subject", "file", "message", "text"):
        for field, value in info.fields:
            if field == key and value:
                return value
    names = wording.file_names(info.goal) or wording.person_names(info.goal)
    if names:
        return names[0]
    return values[0] if values else None
