"""The goal check of "Delete the newest note": which item is newest, shown by the list's order.

A list row often shows its time only to the minute, and several rows can show the same one, so
reading times off rows cannot always say which item is newest. The order can: once the list is
sorted newest first (a "Date modified" choice in the app's sort menu), the top row is the
newest item. So the delete is `done` only when, in this order:

- a sort menu (a tap on a control named "Sort ...") was answered with a newest-first order
  ("Date modified", "Newest first", ...), and no other order was chosen since;
- the list was never scrolled, so its first row on the screen is its first row;
- exactly one row was then selected (long-pressed or opened), and it was the top row of its
  column (the same kind of element, left-aligned with it, inside the list);
- a delete ran after that, and a list seen since no longer shows the row's name.

Anything else is `unknown` (the planner may still be asked), never `done` on a guess. A delete
of a row that was not the top row under a newest-first order is not shown wrong either: the
list may have been ordered another way the trail cannot see, so it stays `unknown`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from android_world.agents.custom.celil_geometry import element_box
from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNKNOWN,
    GoalCheck,
    Observation,
    TrailStep,
)
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.offline_goal_screens import item_shown
from android_world.agents.custom.offline_roles.offline_goal_screens import texts as _texts

# "Delete the newest note", "remove my most recent file", "delete the latest recording".
_NEWEST = re.compile(
    r"\b(?:delete|remove)\b.*?\b(?:newest|latest|most\s+recent(?:ly\s+\w+)?)\b", re.I
)
# Sort choices that put the newest item first.
_NEWEST_FIRST = frozenset(
    {"date modified", "last modified", "modified", "newest first", "newest", "most recent"}
    | {"date (newest first)", "recent first", "recently modified"}
)
_TAPS = ("click", "long_press", "double_tap")
_SELECTS = ("long_press", "click")


def parse_newest(clause: str) -> bool:
    return bool(_NEWEST.search(clause))


def _label(step: TrailStep) -> str:
    return text_lib.normalize(step.target)


def _opens_sort(step: TrailStep) -> bool:
    return step.action_type in _TAPS and _label(step).startswith("sort")


def _newest_order_from(trail: Sequence[TrailStep]) -> int | None:
    """The position in `trail` just after the last sort choice, when that choice was a
    newest-first order; None when the list was never sorted so, or sorted otherwise since."""
    chosen: int | None = None
    for i, step in enumerate(trail):
        if not _opens_sort(step) or i + 1 >= len(trail):
            continue
        answer = trail[i + 1]
        if answer.action_type not in _TAPS or not answer.ok:
            continue
        chosen = i + 2 if _label(answer) in _NEWEST_FIRST else None
    return chosen


def _top_of_column(observation: Observation, index: int) -> bool:
    """The element at `index` is the topmost of its kind (same class, same left edge) inside a
    scrollable list: the list's first row."""
    elements = observation.ui_elements
    size = observation.screen_size
    chosen = element_box(elements[index], size)
    lists = [
        box
        for e in elements
        if e.is_scrollable and (box := element_box(e, size)) is not None and chosen is not None
    ]
    container = next(
        (
            box
            for box in lists
            if box.x_min <= chosen.center[0] <= box.x_max
            and box.y_min <= chosen.center[1] <= box.y_max
        ),
        None,
    )
    if chosen is None or container is None:
        return False
    kind = elements[index].class_name
    for other in elements:
        box = element_box(other, size)
        if other is elements[index] or box is None or other.class_name != kind:
            continue
        inside = container.y_min <= box.center[1] <= container.y_max
        if inside and abs(box.x_min - chosen.x_min) <= 4 and box.y_min < chosen.y_min:
            return False
    return True


def newest_checks(
    clauses: Sequence[str],
    trail: Sequence[TrailStep],
    current: Observation,
    deletes_fn: Callable[[TrailStep], bool],
    is_listing: Callable[[Observation], bool],
) -> list[GoalCheck]:
    """A check per "delete the newest ..." clause (see the module doc)."""
    checks: list[GoalCheck] = []
    for clause in clauses:
        if parse_newest(clause):
            checks.append(_newest_check(clause, trail, current, deletes_fn, is_listing))
    return checks


def _newest_check(
    clause: str,
    trail: Sequence[TrailStep],
    current: Observation,
    deletes_fn: Callable[[TrailStep], bool],
    is_listing: Callable[[Observation], bool],
) -> GoalCheck:
    what = f"clause {clause[:60]!r}"

    def unknown(why: str) -> GoalCheck:
        return GoalCheck(what, GOAL_UNKNOWN, why)

    start = _newest_order_from(trail)
    if start is None:
        return unknown("the list was never shown sorted newest first")
    deleted = next(
        (i for i in range(start, len(trail)) if trail[i].ok and deletes_fn(trail[i])), None
    )
    if deleted is None:
        return unknown("nothing was deleted after sorting newest first")
    if any(t.action_type == "scroll" for t in trail[:deleted]):
        return unknown("the list was scrolled, so its first row on screen may not be its first")
    picks = [
        t
        for t in trail[start:deleted]
        if t.ok and t.action_type in _SELECTS and t.index is not None and is_listing(t.screen)
    ]
    if len(picks) != 1:
        return unknown(f"{len(picks)} rows were selected before the delete, not one")
    pick = picks[0]
    assert pick.index is not None
    if not 0 <= pick.index < len(pick.screen.ui_elements) or not pick.target:
        return unknown("the selected row has no name")
    if not _top_of_column(pick.screen, pick.index):
        return unknown(f"{pick.target!r} was not the top row of the list sorted newest first")
    later = [t.screen for t in trail[deleted + 1 :]] + [current]
    listing = [o for o in later if is_listing(o)]
    if not listing:
        return unknown("no list was seen after the delete")
    if item_shown(pick.target, _texts(listing[-1])):
        return unknown(f"{pick.target!r} is still in the list")
    why = f"{pick.target!r}, the top row sorted newest first, was deleted and is gone"
    return GoalCheck(what, GOAL_DONE, why)
