"""Emptying a whole list: "Delete all my notes in Markor", "Remove all the recipes from Broccoli".

The goal names no item, only the kind of item and perhaps the app, so the plan has one step,
"Delete every <kind>", which is done when the app's list says it is empty. The executor works
the way list apps delete many items: a long press on a row starts a selection, "Select all"
takes every row, Delete removes them, and the dialog is confirmed. Where the app has no
"Select all", the selection (one row) is deleted and the round starts again, until the list is
empty. A goal with any condition ("that are duplicates", "on Monday", "but one") is no such goal.
"""

from __future__ import annotations

import dataclasses
import re

from android_world.agents.custom.celil_geometry import element_label
from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib

_GOAL = re.compile(
    r"^(?:please\s+)?(?:delete|remove|erase|clear)\s+(?:all|every(?:thing)?)\s+(?:of\s+)?"
    r"(?:the\s+|my\s+)?(?P<kind>[a-z]+s)(?:\s+(?:in|from|on)\s+(?:the\s+)?(?P<app>[\w ]+?))?"
    r"\s*[.!]?$",
    re.I,
)
_SUB_GOAL = re.compile(r"^(?:delete|remove) every (?P<kind>[a-z]+)$", re.I)
DELETE_LABELS = ("delete", "delete permanently", "remove", "trash", "move to trash")
_SELECT_ALL = "select all"


def list_kind(goal: str) -> str | None:
    """The kind of item a goal empties its app of ("notes" -> "note"), or None. The app, when
    named, must be a known app and nothing else may follow it."""
    match = _GOAL.match(" ".join(goal.split()))
    if match is None:
        return None
    app = match.group("app")
    if app is not None:
        name = re.sub(r"\s+app$", "", app.strip(), flags=re.I)
        if text_lib.normalize(text_lib.canonical_app(name)) not in {
            text_lib.normalize(a) for a in text_lib.app_names()
        }:
            return None
    kind = match.group("kind").casefold()
    if kind in ("days", "times", "items", "things"):
        return None
    return kind[:-1]


def sub_goal(kind: str) -> str:
    return f"Delete every {kind}"


def parse_sub_goal(text: str) -> str | None:
    """The kind of item of a "Delete every <kind>" sub-goal (no day: that one empties a day)."""
    match = _SUB_GOAL.match(" ".join(text.split()).rstrip("."))
    return match.group("kind") if match else None


def emptied(observation: Observation) -> tuple[bool, str]:
    if screen.shows_empty_list(observation):
        return True, "the list says it is empty"
    return False, "the list is not shown empty yet"


@dataclasses.dataclass(frozen=True)
class Tap:
    index: int
    why: str
    long: bool = False
    selects_all: bool = False


def _labelled(observation: Observation, names: tuple[str, ...]) -> int | None:
    for i in screen.content_indices(observation):
        element = observation.ui_elements[i]
        if element.is_clickable and text_lib.normalize(element_label(element)) in names:
            return i
    return None


def next_tap(observation: Observation, selected_all: bool) -> Tap | None:
    """The next tap toward an empty list; `selected_all` says "Select all" was tapped for the
    selection on screen."""
    confirm = screen.confirm_button(observation, "delet")
    if confirm is not None:
        return Tap(confirm, "confirm the deletion")
    delete = _labelled(observation, DELETE_LABELS)
    select_all = _labelled(observation, (_SELECT_ALL,))
    if select_all is not None and not selected_all:
        return Tap(select_all, "select every item", selects_all=True)
    if delete is not None and (select_all is not None or _selection_open(observation)):
        return Tap(delete, "delete the selection")
    if screen.shows_empty_list(observation):
        return None
    items = screen.list_items(observation)
    if items:
        return Tap(items[0][0], "start a selection on the first item", long=True)
    return None


def _selection_open(observation: Observation) -> bool:
    """The app bar counts a selection ("2 selected")."""
    return any(
        re.fullmatch(r"\d+\s+selected", text_lib.normalize(observation.ui_elements[i].text))
        for i in screen.content_indices(observation)
    )


def target_ok(observation: Observation, index: int) -> bool:
    """A tap the executor makes for this sub-goal: a row, Select all, Delete, the confirmation."""
    element = observation.ui_elements[index]
    label = text_lib.normalize(element_label(element))
    if label in DELETE_LABELS or label == _SELECT_ALL:
        return True
    if index == screen.confirm_button(observation, "delet"):
        return True
    return any(index in item for item in screen.list_items(observation))
