"""Vocabulary and small readers that the offline planner, executor, verifier and the intent
handlers all share (so no handler has to import another role's module for them)."""

from __future__ import annotations

import dataclasses
import datetime
import re
from typing import Any

from android_world.agents.custom.celil_geometry import element_label
from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.env import json_action

TAG = "[offline]"
SOURCE = "offline"
NAVIGATE_MIN_RELEVANCE = 0.5
MAX_SCROLLS_PER_SCREEN = 3
TAP_TYPES = (json_action.CLICK, json_action.LONG_PRESS, json_action.DOUBLE_TAP)
TAP_NAMES = ("click", "long_press", "double_tap")
DELETE_LABELS = ("delete", "delete permanently", "remove", "trash", "move to trash", "delete file")
TEXT_SLOTS = ("text", "message", "content", "body", "note")
CHANGING_WORDS = frozenset({"new", "add", "create", "edit", "delete", "remove", "compose"})
SAVE_WORDS = ("save", "done", "ok", "create", "confirm", "apply")
OVERFLOW_LABELS = ("more options", "more", "menu", "overflow menu")
CONFIRM_LABELS = ("ok", "done", "create", "next", "continue", "confirm", "apply")
# What an executor step proposes: the action (None when there is nothing to do), why, and
# the target's description.
Chosen = tuple[json_action.JSONAction | None, str, str]


def make_action(kind: str, **fields: Any) -> json_action.JSONAction:
    return json_action.JSONAction(action_type=kind, **fields)


def action_key(action: json_action.JSONAction) -> str:
    return action.json_str()


def object_word(info: text_lib.GoalInfo) -> str:
    for word in info.objects:
        if word not in ("calendar", "sms", "filesystem", "storage"):
            return text_lib.stem(word)
    if "send" in info.verbs:
        return "message"
    hint = text_lib.app_hint(info.apps[0]) if info.apps else None
    return text_lib.stem(hint.keywords[0]) if hint and hint.keywords else "item"


def name_parts(value: str) -> list[str]:
    return value.split(None, 1) if len(value.split()) >= 2 else [value]


def middle_y(element) -> float:
    box = element.bbox_pixels or element.bbox
    return (box.y_min + box.y_max) / 2 if box is not None else 0.0


def weekday_year(shown: str | None) -> int | None:
    """The latest year up to now in which a date shown with its weekday ("Sun, Oct 15") falls
    on that weekday."""
    match = re.match(r"\s*(mon|tue|wed|thu|fri|sat|sun)\w*,?\s+(.+)$", shown or "", re.I)
    if not match:
        return None
    this_year = datetime.date.today().year
    for year in range(this_year, this_year - 12, -1):
        day = text_lib.parse_date(match.group(2), default_year=year)
        if day is not None and day.strftime("%a").lower() == match.group(1).lower()[:3]:
            return year
    return None


def is_dated_list(obs: Observation, year: int) -> bool:
    """A list whose items each show a date (to-dos, bills): read row by row, not as a day view
    (whose date is its title)."""
    dated = 0
    for item in screen.list_items(obs):
        texts = screen.item_texts(obs, item)
        if any(text_lib.parse_date(t, default_year=year) is not None for t in texts):
            dated += 1
    return dated >= 2


@dataclasses.dataclass(frozen=True)
class RowWants:
    """What a question asks of a list item besides its date: labels it must carry ("high
    priority") and whether its check box must be done (True), open (False) or either (None)."""

    labels: tuple[str, ...]
    done: bool | None


def row_wants(goal: str) -> RowWants:
    text = goal.lower()
    labels = tuple(
        dict.fromkeys(m.group(0) for m in re.finditer(r"\b(?:high|low|medium)[ -]priority\b", text))
    )
    labels = tuple(label.replace("-", " ") for label in labels)
    if re.search(
        r"\b(?:incomplete|not (?:yet )?(?:completed|done|finished)|unfinished|still (?:have|need) to)\b",
        text,
    ):
        done: bool | None = False
    elif re.search(r"\b(?:completed|finished|done|checked off)\b", text):
        done = True
    else:
        done = None
    return RowWants(labels, done)


WEEKDAY_DATE = re.compile(
    r"^\s*(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+\w+\.?\s+\d{1,2}\b", re.I
)
_TODAY_FACT = re.compile(r"Read today'?s date[^:\n]*:[ \t]*([^\n;]+)")


def fact_today(context_summary: str) -> str | None:
    """Today's date as an earlier sub-goal read it off the clock (a fact in the context)."""
    found = _TODAY_FACT.findall(context_summary or "")
    return found[-1].strip() if found else None


def names_all(obs: Observation, index: int, *words: str) -> bool:
    name = set(text_lib.words(element_label(obs.ui_elements[index])))
    return all(w in name for w in words)


def stem_words(text: str) -> set[str]:
    return {text_lib.stem(w) for w in text_lib.words(text)}
