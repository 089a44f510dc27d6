"""The task shapes shared by apps whose state is one SQLite table (Pro Expense, Broccoli).

Upstream checks these tasks the same way whatever the app: the table is emptied and seeded with
noise rows at set-up and snapshotted; an "add" task must add exactly the described rows (some
columns compared fuzzily) and change nothing else; a "delete" task must remove exactly its
target rows; a "delete duplicates" task must remove exactly one of two identical rows. One
copy of each rule here keeps the apps' tasks from drifting apart. A task names its table with
`Table` (how to empty, fill and read it) and, for additions, which columns it compares.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ClassVar

from android_world.env import interface
from android_world.task_evals import answer_check, task_eval

ROW_OBJECTS = "row_objects"
NOISE_ROW_OBJECTS = "noise_row_objects"

Row = dict[str, Any]


def insert_rows(
    env: interface.AsyncEnv, db: str, table: str, fields: tuple[str, ...], rows: list[Row]
) -> None:
    """One multi-row INSERT of `fields` (one sqlite round trip, also over adb); ids follow
    list order."""
    if not rows:
        return
    marks = ", ".join(["(" + ", ".join("?" * len(fields)) + ")"] * len(rows))
    params = tuple(r[f] for r in rows for f in fields)
    env.controller.sqlite_execute(
        db, f"INSERT INTO {table} ({', '.join(fields)}) VALUES {marks}", params
    )


def removal_ok(before: list[dict], after: list[dict], ids: set[int], key: str) -> bool:
    """Upstream's `validate_rows_removal_integrity`: targets gone, the rest unchanged, nothing new."""
    for row in before:
        if row[key] in ids:
            if row in after:
                return False
        elif row not in after:
            return False
    return all(row in before for row in after)


def addition_ok(
    before: list[dict],
    after: list[dict],
    wanted: list[dict],
    compare: tuple[str, ...],
    free_form: tuple[str, ...],
) -> bool:
    """Upstream's `validate_rows_addition_integrity`."""

    def matches(reference: dict, row: dict) -> bool:
        for field in compare:
            if field in free_form:
                if not answer_check.fuzzy_match(reference[field], row[field]):
                    return False
            elif reference[field] != row[field]:
                return False
        return True

    if not all(any(matches(w, row) for row in after) for w in wanted):
        return False
    if len(after) != len(before) + len(wanted):
        return False
    return all(row in after for row in before)


@dataclasses.dataclass(frozen=True)
class Table:
    """How a task reaches its app's table: empty it, insert rows (ids follow list order), read
    every row in id order; `key` is the id column."""

    clear: Callable[[interface.AsyncEnv], None]
    add: Callable[[interface.AsyncEnv, list[Row]], None]
    rows: Callable[[interface.AsyncEnv], list[Row]]
    key: str


class _TableTask(task_eval.TaskEval):
    """A task on one table: emptied and seeded with params[NOISE_ROW_OBJECTS] at set-up,
    emptied at tear-down. `before` is the snapshot a subclass's check compares with."""

    table: ClassVar[Table]
    schema: dict[str, Any] = {}
    template = ""  # goals are built in `goal`, as upstream does
    n_rows = 0
    n_rows_noise = 0

    def __init__(self, params: dict[str, Any]):
        super().__init__(params)
        self.before: list[Row] = []

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        self.table.clear(env)
        self.table.add(env, self.params.get(NOISE_ROW_OBJECTS, []))
        env.controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        self.table.clear(env)
        super().tear_down(env)


class _AddRowsTask(_TableTask):
    """Add params[ROW_OBJECTS]: each must appear (`compare` columns equal, the `free_form` ones
    fuzzily), and nothing else may change."""

    compare: ClassVar[tuple[str, ...]] = ()
    free_form: ClassVar[tuple[str, ...]] = ()

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        self.before = self.table.rows(env)

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        ok = addition_ok(
            self.before,
            self.table.rows(env),
            self.params[ROW_OBJECTS],
            compare=self.compare,
            free_form=self.free_form,
        )
        return 1.0 if ok else 0.0


class _DeleteRowsTask(_TableTask):
    """Delete params[ROW_OBJECTS] (seeded after the noise): exactly they must disappear."""

    def __init__(self, params: dict[str, Any]):
        super().__init__(params)
        self.target_ids: set[int] = set()

    def find_targets(self, before: list[Row]) -> set[int]:
        """The ids of the target rows: the last ones seeded."""
        targets = self.params[ROW_OBJECTS]
        return {r[self.table.key] for r in before[len(before) - len(targets) :]}

    def expected_initial_rows(self) -> int | None:
        """How many rows set-up must leave (None: not checked)."""
        return self.n_rows + self.n_rows_noise

    def expected_targets(self) -> int:
        """How many target rows set-up must leave: n_rows (a task whose upstream draws fewer
        says so)."""
        return self.n_rows

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        self.table.add(env, self.params[ROW_OBJECTS])
        self.before = self.table.rows(env)
        self.target_ids = self.find_targets(self.before)
        seeded, wanted = len(self.before), self.expected_initial_rows()
        targets = self.expected_targets()
        if len(self.target_ids) != targets or wanted not in (None, seeded):
            raise RuntimeError(
                f"{self.name}: {seeded} rows seeded with {len(self.target_ids)} targets,"
                f" not {wanted} with {targets}."
            )

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        ok = removal_ok(self.before, self.table.rows(env), self.target_ids, self.table.key)
        return 1.0 if ok else 0.0


class _DeleteDuplicateTask(_TableTask):
    """params[ROW_OBJECTS] is two equal rows, seeded after the noise: exactly one of the two
    must go (either), every other row stays."""

    def __init__(self, params: dict[str, Any]):
        super().__init__(params)
        self.copy_ids: list[int] = []

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        first, second = self.params[ROW_OBJECTS]
        if first != second:
            raise ValueError(f"{self.name}: the two target rows must be equal.")
        self.table.add(env, self.params[ROW_OBJECTS])
        self.before = self.table.rows(env)
        self.copy_ids = [row[self.table.key] for row in self.before[-2:]]
        if len(self.before) != 2 + self.n_rows_noise:
            raise RuntimeError(
                f"{self.name}: {len(self.before)} rows seeded, not {2 + self.n_rows_noise}."
            )

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        after = self.table.rows(env)
        ok = any(removal_ok(self.before, after, {i}, self.table.key) for i in self.copy_ids)
        return 1.0 if ok else 0.0
