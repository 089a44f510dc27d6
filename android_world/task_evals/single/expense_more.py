"""More of upstream's Pro Expense tasks (`single/expense.py`): delete three among fifty, delete
exact duplicates (with and without near-duplicates), add three expenses.

Upstream's rules on the `expense` table: deletions must remove exactly the target rows (for
duplicates: exactly one of the two identical rows) and leave every other row unchanged with
nothing added; additions must add exactly the wanted rows (name and note fuzzy, amount and
category exact) and change nothing else. Oracles read the expense list from the screen.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

from android_world.env import interface
from android_world.env.json_action import JSONAction
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.single.expense import (
    APP_NAME,
    CATEGORIES,
    NOISE_ROW_OBJECTS,
    ROW_OBJECTS,
    TEXT_REPRESENTATION_TYPE,
    _Expense,
    _ExpenseAdd,
    _ExpenseDeleteMultiple,
    add_via_form,
    random_october_ms,
    random_rows,
    rows_as_text,
)
from android_world.task_evals.single.files import clear_folder
from android_world.task_evals.single.markor import NOTEBOOK
from android_world.task_evals.single.markor_more import editor_text
from android_world.task_evals.single.table_tasks import _DeleteDuplicateTask

# ---- oracle helpers (screen only) ------------------------------------------------------------


def _row_reach(title: ui.Element) -> int:
    """How far from a row's title its other texts sit: a line and a half of the title, so the
    rows are read alike at every screen density."""
    box = title.bbox_pixels
    return int(1.5 * (box.y_max - box.y_min)) if box is not None else 60


def expense_rows(env: interface.AsyncEnv) -> list[tuple[int, tuple[str, ...]]]:
    """(index of the name, what the row shows: name, category and date, amount) for every
    expense row on screen whose three texts show, if only in part (a list edge may cut a row:
    its texts are still in the tree), top to bottom."""
    return [(index, shown) for index, shown, _ in _rows_with_tops(env)]


def _rows_with_tops(env: interface.AsyncEnv) -> list[tuple[int, tuple[str, ...], int]]:
    """`expense_rows`, each with where its name's top is, even when the list's top edge cuts
    it (then its bottom, less a whole name's height, says)."""
    items = ui.elements(env)
    titles = [
        e
        for e in items
        if e.resource_name == "android:id/title" and e.bbox_pixels and not ui.clipped_out(e)
    ]
    full_h = max((e.bbox_pixels.height for e in titles), default=0)  # type: ignore[union-attr]
    lists = [e.bbox_pixels.y_min for e in items if e.is_scrollable and e.bbox_pixels]
    rows = []
    for i, element in enumerate(items):
        if element not in titles:
            continue
        near = ui.row_texts_near(items, element, tolerance=_row_reach(element))
        summary = [e.text for e in near if e.resource_name == "android:id/summary"]
        amount = [e.text for e in near if e.resource_name == "tvAmount"]
        if not (summary and amount):
            continue
        box = element.bbox_pixels
        assert box is not None
        cut_at_top = box.height < full_h and any(abs(box.y_min - top) <= 1 for top in lists)
        top = box.y_max - full_h if cut_at_top else box.y_min
        rows.append((i, (element.text or "", summary[0] or "", amount[0] or ""), int(top)))
    return sorted(rows, key=lambda row: row[2])


def _list_shift(
    before: list[tuple[int, tuple[str, ...], int]],
    after: list[tuple[int, tuple[str, ...], int]],
    pitch: int,
    nominal: int,
) -> int:
    """How far a scroll moved the list: the move most rows seen on both screens agree on. A
    row shown on only one side of the scroll may have a twin on the other (the duplicate
    itself), so one lone match is weighed against the swipe's length: it is the same row, or
    the next one, whichever move is nearer the finger's."""
    votes: dict[int, int] = {}
    for _, shown, top in before:
        for _, again, new_top in after:
            if again == shown:
                votes[top - new_top] = votes.get(top - new_top, 0) + 1
    if not votes:
        return nominal
    best = max(votes.values())
    if best >= 2:
        return max(votes, key=lambda move: votes[move])
    return min(
        (move + extra for move in votes for extra in (0, pitch)),
        key=lambda move: abs(move - nominal),
    )


def find_duplicate(env: interface.AsyncEnv, max_scrolls: int = 16) -> Iterator[JSONAction]:
    """Scroll down the list until two rows show the same name, category, date and amount;
    returns the index of the second one. Equal rows are neighbours (the list is by date), but
    on a short list (a landscape phone's) they may show on two screens, one each: rows are
    placed on the whole list by how far each scroll moved it, so the one row seen twice is
    told from two equal rows."""
    seen: list[tuple[tuple[str, ...], int]] = []  # (what the row shows, top on the list)
    offset, pitch, before = 0, 0, None
    nominal = env.logical_screen_size[1] // 2  # a whole-screen scroll: centre to edge
    for _ in range(max_scrolls + 1):
        rows = _rows_with_tops(env)
        tops = [top for _, _, top in rows]
        pitch = max([pitch, *(b - a for a, b in itertools.pairwise(tops))])
        if before is not None:
            offset += _list_shift(before, rows, pitch, nominal)
        for index, shown, top in rows:
            place = offset + top
            if any(shown == old and abs(place - where) >= pitch / 2 for old, where in seen):
                return index
            if not any(shown == old and abs(place - where) < pitch / 2 for old, where in seen):
                seen.append((shown, place))
        before = rows
        yield JSONAction(action_type="scroll", direction="down")
        if [shown for _, shown, _ in _rows_with_tops(env)] == [s for _, s, _ in before]:
            break
    raise RuntimeError("Oracle found no duplicate expenses on screen.")


def delete_open_expense(env: interface.AsyncEnv) -> Iterator[JSONAction]:
    yield ui.click(env, ui.desc_is("Delete"), "the Delete icon")
    yield ui.click(env, ui.matching(text="Delete", class_suffix="Button"), "the Delete button")


# ---- tasks -----------------------------------------------------------------------------------


def select_and_delete(env: interface.AsyncEnv, names: list[str]) -> Iterator[JSONAction]:
    """Long-press the first named row, tap the others as they scroll by (down the list, then
    back up), then delete the selection and confirm."""
    remaining = list(names)
    direction, turns = "down", 0
    first = True
    while remaining:
        items = ui.elements(env)
        index = ui.find(items, lambda e: e.text in remaining)
        if index is not None:
            yield JSONAction(action_type="long_press" if first else "click", index=index)
            remaining.remove(items[index].text or "")
            first = False
            continue
        before = expense_rows(env)
        yield JSONAction(action_type="scroll", direction=direction)
        if expense_rows(env) == before:  # the list's end: turn round, at most twice
            turns += 1
            if turns > 2:
                raise RuntimeError(f"Oracle could not find {remaining} in the list.")
            direction = "up" if direction == "down" else "down"
    yield from delete_open_expense(env)


class ExpenseDeleteMultiple2(_ExpenseDeleteMultiple):
    """Three named expenses among fifty others."""

    n_rows = 3
    n_rows_noise = 50
    complexity = 3.4
    difficulty = "hard"
    tags = ("screen_reading", "parameterized")
    optimal_steps = 17

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield ui.open_app("Pro Expense")
        yield from select_and_delete(env, [r["name"] for r in self.params[ROW_OBJECTS]])
        yield ui.done()


class _ExpenseDeleteDuplicates(_DeleteDuplicateTask, _Expense):
    """Two identical rows among noise; exactly one of them must go, everything else stays."""

    n_rows = 1
    n_rows_noise = 5
    complexity = 1.2
    difficulty = "medium"
    tags = ("data_edit", "screen_reading")
    optimal_steps = 4

    @property
    def goal(self) -> str:
        return (
            f"Delete all but one of any expenses in {APP_NAME} that are exact duplicates, "
            "ensuring at least one instance of each unique expense remains."
        )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        rows = random_rows(cls.n_rows_noise + cls.n_rows)
        target = rows.pop()
        return {ROW_OBJECTS: [target, dict(target)], NOISE_ROW_OBJECTS: rows}

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield ui.open_app("Pro Expense")
        index = yield from find_duplicate(env)
        yield JSONAction(action_type="click", index=index)
        yield from delete_open_expense(env)
        yield ui.done()


class ExpenseDeleteDuplicates(_ExpenseDeleteDuplicates):
    n_rows = 1
    n_rows_noise = 5
    complexity = 1.2
    difficulty = "medium"
    tags = ("data_edit", "parameterized")
    optimal_steps = 6


class ExpenseDeleteDuplicates2(_ExpenseDeleteDuplicates):
    """Forty noise rows, three of them the duplicate's name and category with another amount
    and date (near-duplicates that must stay)."""

    n_rows = 1
    n_rows_noise = 40
    complexity = 1.8
    difficulty = "medium"
    tags = ("data_edit", "requires_setup", "parameterized")
    optimal_steps = 9

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        noise = random_rows(cls.n_rows_noise + cls.n_rows - 3)
        target = noise.pop()
        variations = []
        for extra in random.sample(range(50, 1000), 3):
            variation = dict(target, amount=target["amount"] + extra)
            variation["created_date"] = random_october_ms()
            variation["modified_date"] = random_october_ms()
            variations.append(variation)
        return {ROW_OBJECTS: [target, dict(target)], NOISE_ROW_OBJECTS: noise + variations}


class ExpenseAddMultiple(_ExpenseAdd):
    """Three expenses described in csv or text-block form, ten noise rows present."""

    n_rows = 3
    n_rows_noise = 10
    complexity = 6
    difficulty = "medium"
    tags = ("data_entry", "parameterized")
    optimal_steps = 20

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        targets = random_rows(cls.n_rows)
        names = {row["name"] for row in targets}
        noise = random_rows(cls.n_rows_noise, keep=lambda row: row["name"] not in names)
        return {
            ROW_OBJECTS: targets,
            NOISE_ROW_OBJECTS: noise,
            TEXT_REPRESENTATION_TYPE: random.choice(["csv", "text_block"]),
        }

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield ui.open_app("Pro Expense")
        for row in self.params[ROW_OBJECTS]:
            yield from add_via_form(env, row)
        yield ui.done()


class ExpenseAddMultipleFromMarkor(ExpenseAddMultiple):
    """A Markor file lists 102 transactions as csv; the two marked reimbursable must be logged.

    Upstream's quirk kept: the file shows those two notes with ". Reimbursable." appended, but
    the check compares notes with the unmarked ones (fuzzy, ratio >= 0.9), so copying the note
    with its mark fails; and the 100 other transactions are also already in the app.
    """

    n_rows = 2
    n_rows_noise = 100
    complexity = 6
    difficulty = "hard"
    tags = (
        "transcription",
        "repetition",
        "multi_app",
        "data_entry",
        "memorization",
        "parameterized",
    )
    optimal_steps = 15
    app_names = (APP_NAME, "markor")

    @property
    def goal(self) -> str:
        return (
            "Go through the transactions in my_expenses.txt in Markor. Log the reimbursable "
            f"transactions in the {APP_NAME}."
        )

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        marked = [
            dict(row, note=row["note"] + ". Reimbursable.") for row in self.params[ROW_OBJECTS]
        ]
        rows = marked + list(self.params[NOISE_ROW_OBJECTS])
        random.shuffle(rows)
        clear_folder(env.controller, NOTEBOOK)
        env.controller.write_text(f"{NOTEBOOK}/{EXPENSES_FILE}", rows_as_text(rows, "csv"))
        env.controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_folder(env.controller, NOTEBOOK)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield ui.open_app("Markor")
        yield from ui.scroll_and_tap(env, EXPENSES_FILE)
        wanted = reimbursable_rows(editor_text(env))
        yield ui.open_app("Pro Expense")
        for row in wanted:
            yield from add_via_form(env, row)
        yield ui.done()


EXPENSES_FILE = "my_expenses.txt"
REIMBURSABLE = ". Reimbursable."


def reimbursable_rows(csv_text: str) -> list[dict[str, Any]]:
    """The csv lines (name|amount_dollars|category_name|note) whose note carries the mark, as
    rows to type: amount in cents, category id, the note without the mark."""
    ids = {name: cid for cid, name in CATEGORIES.items()}
    rows = []
    for line in csv_text.splitlines()[1:]:
        parts = line.split("|")
        if len(parts) != 4 or not parts[3].endswith(REIMBURSABLE):
            continue
        name, dollars, category, note = parts
        rows.append(
            {
                "name": name,
                "amount": round(float(dollars.lstrip("$")) * 100),
                "category": ids[category],
                "note": note[: -len(REIMBURSABLE)],
            }
        )
    return rows
