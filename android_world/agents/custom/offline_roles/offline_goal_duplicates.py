"""Goal check of "delete all but one of the duplicates": read off whole-list views, model-free.

A list row shows only part of an item (a recipe's title and description), so rows that look
alike may be exact copies or near-duplicates that differ in details the list does not show.
The check therefore trusts the list only where the list alone settles it:

- before the first delete, a view of the whole list (its first row at the top, room for
  another row below its last) showed exactly one group of look-alike rows, and that group
  is a pair. The task's copies always look alike, so a lone look-alike pair is those copies;
  several groups, or three look-alikes, may hide near-duplicates and leave the check unknown;
- after the last delete, a whole view of the same list (same page title) shows every row
  that view showed, the pair's row once, and no look-alike rows at all: done;
- a whole view after the last delete that still shows look-alike rows proves nothing either
  way: they may be near-duplicates the task keeps on purpose (a search for one title lists its
  copies and its near-copies alike), so it stays unknown.

Anything else (a list longer than the screen, no delete yet, a search-filtered list) stays
`unknown`, for the planner's confirmation with the screenshot.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from android_world.agents.custom.celil_geometry import element_box
from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNKNOWN,
    GoalCheck,
    Observation,
    TrailStep,
)
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib

# "Delete all but one of any recipes that are exact duplicates", "remove the duplicate notes,
# keeping one of each": a delete that keeps one copy of each item.
_DUPLICATES = re.compile(r"\bduplicat(?:e|es|ed)\b", re.I)
_KEEP_ONE = re.compile(
    r"\ball\s+but\s+one\b|\bkeep(?:ing)?\s+(?:only\s+)?one\b|\bonly\s+one\b|\bat\s+least\s+one\b"
    r"|\bone\s+(?:copy|instance)\b",
    re.I,
)
_DELETE = re.compile(r"\b(?:delete|remove)\b", re.I)
# Texts of one list column: left edges within this many pixels of the column's.
_COLUMN_SLACK = 8


@dataclass(frozen=True)
class ListView:
    """One screen's list, read whole: its page title and its rows' texts, top to bottom."""

    title: str
    rows: tuple[tuple[str, ...], ...]


def parse_keep_one_duplicates(clause: str) -> bool:
    """A clause that deletes duplicates and keeps one copy of each item."""
    return bool(_DELETE.search(clause) and _DUPLICATES.search(clause) and _KEEP_ONE.search(clause))


def duplicate_checks(
    clauses: Sequence[str],
    deletes: Sequence[int],
    trail: Sequence[TrailStep],
    current: Observation,
) -> list[GoalCheck]:
    """The keep-one-copy clause read off whole-list views (see the module doc)."""
    if not any(parse_keep_one_duplicates(c) for c in clauses):
        return []
    what = "one copy of each duplicate left"
    if not deletes:
        return [GoalCheck(what, GOAL_UNKNOWN, "nothing was deleted yet")]
    before = [whole_list(t.screen) for t in trail if t.step < deletes[0]]
    after = [whole_list(t.screen) for t in trail if t.step > deletes[-1]] + [whole_list(current)]
    last = next((v for v in reversed(after) if v is not None), None)
    if last is None:
        return [GoalCheck(what, GOAL_UNKNOWN, "no whole list was seen since the last delete")]
    if _look_alikes(last):
        why = "the whole list still shows look-alike rows (copies or near-duplicates: the list cannot tell)"
        return [GoalCheck(what, GOAL_UNKNOWN, why)]
    first = next((v for v in before if v is not None and v.title == last.title), None)
    if first is None:
        return [GoalCheck(what, GOAL_UNKNOWN, "the whole list was not seen before the deletes")]
    groups = _look_alikes(first)
    if len(groups) != 1 or len(groups[0][1]) != 2:
        why = "the list before the deletes did not show one look-alike pair"
        return [GoalCheck(what, GOAL_UNKNOWN, why)]
    if set(first.rows) != set(last.rows) or len(last.rows) != len(first.rows) - 1:
        why = "the list since the deletes lost or gained other rows"
        return [GoalCheck(what, GOAL_UNKNOWN, why)]
    name = groups[0][0][0] if groups[0][0] else "the pair"
    return [GoalCheck(what, GOAL_DONE, f"the whole list shows {name!r} once, every other row kept")]


def _look_alikes(view: ListView) -> list[tuple[tuple[str, ...], list[int]]]:
    """Groups of rows with the same texts: (the texts, their positions)."""
    counts = Counter(view.rows)
    return [
        (row, [i for i, r in enumerate(view.rows) if r == row])
        for row, n in counts.items()
        if n > 1
    ]


def whole_list(observation: Observation) -> ListView | None:
    """The screen's scrollable list when the screen shows all of it (first row at the list's
    top, room for one more row below the last), else None."""
    elements = observation.ui_elements
    size = observation.screen_size
    containers = [
        box
        for e in elements
        if e.is_scrollable and (box := element_box(e, size)) is not None and box.height > 0
    ]
    if len(containers) != 1:
        return None
    area = containers[0]
    title = ""
    texts = []
    for i in screen.content_indices(observation):
        element = elements[i]
        label = (element.text or "").strip()
        box = element_box(element, size)
        if not label or box is None:
            continue
        if screen.in_title_bar(element, size) and not title:
            title = text_lib.normalize(label)
        x, y = box.center
        inside = area.x_min <= x <= area.x_max and area.y_min <= y <= area.y_max
        if inside and not element.is_editable:
            texts.append((box.y_min, box.y_max, box.x_min, label))
    if not texts:
        return None
    texts.sort()
    column = texts[0][2]
    lines = [t for t in texts if abs(t[2] - column) <= _COLUMN_SLACK]
    rows = _rows(lines)
    if len(rows) < 2:
        return None
    pitch = (rows[-1][0] - rows[0][0]) / (len(rows) - 1)
    top, bottom = rows[0][0], rows[-1][1]
    if top - area.y_min > pitch or bottom + pitch > area.y_max or bottom > area.y_max:
        return None  # scrolled, or more rows may lie below the screen
    return ListView(title, tuple(tuple(text_lib.normalize(t) for t in r[2]) for r in rows))


def _rows(lines: list[tuple[int, int, int, str]]) -> list[tuple[int, int, list[str]]]:
    """Lines grouped into rows: a row's lines sit closer together than rows do. Lines all
    equally spaced are one row each."""
    gaps = [b[0] - a[1] for a, b in itertools.pairwise(lines)]
    split = (min(gaps) + max(gaps)) / 2 if gaps and max(gaps) - min(gaps) > 4 else None
    rows: list[tuple[int, int, list[str]]] = []
    for i, line in enumerate(lines):
        if i == 0 or split is None or gaps[i - 1] > split:
            rows.append((line[0], line[1], [line[3]]))
        else:
            top, _, texts = rows[-1]
            rows[-1] = (top, line[1], [*texts, line[3]])
    return rows
