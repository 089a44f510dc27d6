"""Rows of the episodic memory's SQLite store: an entry's keys, its row, and the queries.

Plain functions of an open connection, called inside one of the store's transactions
(`SqliteStore.read()` / `write()`): a lookup is two index reads (`candidates`), a hit or an outcome
one row by primary key, an add one row by its task key.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import sqlite3
from collections.abc import Iterator
from typing import Any

from android_world.agents.custom.memory.celil_episodic_entries import (
    EpisodicMemoryError,
    MemoryEntry,
    new_entry_id,
)
from android_world.agents.custom.memory.celil_episodic_meaning import read_goal
from android_world.agents.custom.memory.celil_episodic_plan_checks import wording_key

COLUMNS = (
    "id",
    "entry_key",
    "wording_key",
    "meaning_key",
    "goal_template",
    "example_goal",
    "slots",
    "plan",
    "app_names",
    "created_at",
    "updated_at",
    "last_used_at",
    "successes",
    "failures",
    "uses",
    "consecutive_failures",
    "status",
    "notes",
    "provenance",
)
JSON_COLUMNS = ("slots", "plan", "app_names", "provenance")
SORT_COLUMNS = {
    "template": "goal_template",
    "uses": "uses DESC",
    "rate": "CAST(successes AS REAL) / MAX(successes + failures, 1) DESC",
    "failures": "failures DESC",
    "last-used": "last_used_at DESC",
    "created": "created_at DESC",
    "updated": "updated_at DESC",
    "status": "status",
}

# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class EntryKeys:
    """`entry_key` is an entry's identity (one per task meaning, on/off values and apps);
    `wording_key` and `meaning_key` are the two indexes lookups go through."""

    entry_key: str
    wording_key: str
    meaning_key: str | None


def entry_keys(entry: MemoryEntry) -> EntryKeys:
    """The keys of an entry. Its meaning is its example goal's, and only when that goal still
    abstracts to the entry's template (an entry edited by hand, or migrated from schema 0, is
    found by its wording only)."""
    meaning = None
    if entry.example_goal:
        reading = read_goal(entry.example_goal)
        if reading.template.template == entry.goal_template:
            meaning = reading.meaning.key
    identity = meaning or f"T:{entry.goal_template}|{','.join(entry.states)}"
    apps = ",".join(sorted(entry.app_names))
    return EntryKeys(f"{identity}|{apps}", wording_key(entry.goal_template), meaning)


def _when(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def row_values(entry: MemoryEntry, keys: EntryKeys) -> tuple[Any, ...]:
    data = entry.model_dump(mode="json")
    values = {
        **data,
        "entry_key": keys.entry_key,
        "wording_key": keys.wording_key,
        "meaning_key": keys.meaning_key,
        "created_at": _when(entry.created_at),
        "updated_at": _when(entry.updated_at),
        "last_used_at": _when(entry.last_used_at),
    }
    for column in JSON_COLUMNS:
        values[column] = json.dumps(data[column], ensure_ascii=False, sort_keys=True)
    return tuple(values[c] for c in COLUMNS)


def entry_from_row(row: sqlite3.Row) -> MemoryEntry:
    data = {c: row[c] for c in COLUMNS if c not in ("entry_key", "wording_key", "meaning_key")}
    for column in JSON_COLUMNS:
        data[column] = json.loads(data[column])
    return MemoryEntry.model_validate(data)


def candidates(
    conn: sqlite3.Connection,
    wording: str,
    meaning: str | None,
    *,
    include_retired: bool = False,
) -> list[tuple[MemoryEntry, EntryKeys]]:
    """Entries whose wording key or meaning key is the goal's: two index lookups."""
    status = "" if include_retired else " AND status != 'retired'"
    sql = f"SELECT {', '.join(COLUMNS)} FROM entries WHERE wording_key = ?{status}"
    rows = list(conn.execute(sql, (wording,)))
    if meaning is not None:
        sql = f"SELECT {', '.join(COLUMNS)} FROM entries WHERE meaning_key = ?{status}"
        seen = {r["id"] for r in rows}
        rows += [r for r in conn.execute(sql, (meaning,)) if r["id"] not in seen]
    return [
        (
            entry_from_row(r),
            EntryKeys(r["entry_key"], r["wording_key"], r["meaning_key"]),
        )
        for r in rows
    ]


def get(conn: sqlite3.Connection, entry_id: str) -> MemoryEntry | None:
    row = conn.execute(
        f"SELECT {', '.join(COLUMNS)} FROM entries WHERE id = ?", (entry_id,)
    ).fetchone()
    return None if row is None else entry_from_row(row)


def ids_with_prefix(conn: sqlite3.Connection, prefix: str, limit: int = 6) -> list[str]:
    rows = conn.execute(
        "SELECT id FROM entries WHERE id >= ? AND id < ? ORDER BY id LIMIT ?",
        (prefix, prefix + "\U0010ffff", limit),
    )
    return [r[0] for r in rows]


def by_entry_key(conn: sqlite3.Connection, key: str) -> MemoryEntry | None:
    row = conn.execute(
        f"SELECT {', '.join(COLUMNS)} FROM entries WHERE entry_key = ?", (key,)
    ).fetchone()
    return None if row is None else entry_from_row(row)


def insert(conn: sqlite3.Connection, entry: MemoryEntry, keys: EntryKeys | None = None) -> None:
    keys = keys or entry_keys(entry)
    marks = ", ".join("?" for _ in COLUMNS)
    conn.execute(
        f"INSERT INTO entries ({', '.join(COLUMNS)}) VALUES ({marks})",
        row_values(entry, keys),
    )
    set_apps(conn, entry)


def update(conn: sqlite3.Connection, entry: MemoryEntry, keys: EntryKeys | None = None) -> None:
    keys = keys or entry_keys(entry)
    columns = [c for c in COLUMNS if c != "id"]
    values = row_values(entry, keys)[1:]
    try:
        conn.execute(
            f"UPDATE entries SET {', '.join(f'{c} = ?' for c in columns)} WHERE id = ?",
            (*values, entry.id),
        )
    except sqlite3.IntegrityError:
        raise EpisodicMemoryError(
            f"entry {entry.id} would become the same task as another entry "
            f"({entry.goal_template!r}); delete one of them first"
        ) from None
    set_apps(conn, entry)


def set_apps(conn: sqlite3.Connection, entry: MemoryEntry) -> None:
    conn.execute("DELETE FROM entry_apps WHERE entry_id = ?", (entry.id,))
    conn.executemany(
        "INSERT OR IGNORE INTO entry_apps (app, entry_id) VALUES (?, ?)",
        [(app, entry.id) for app in entry.app_names],
    )


def delete(conn: sqlite3.Connection, entry_id: str) -> None:
    conn.execute("DELETE FROM entries WHERE id = ?", (entry_id,))


def merge(conn: sqlite3.Connection, new: MemoryEntry) -> str:
    """Merge an imported entry into the entry of the same task (entry key). Counts take the
    max, so importing twice is harmless; the newer `updated_at` supplies plan, status and
    notes. Returns "added", "updated" or "unchanged"."""
    keys = entry_keys(new)
    old = by_entry_key(conn, keys.entry_key)
    if old is None:
        if get(conn, new.id) is not None:  # another task under the same id
            new = new.model_copy(update={"id": new_entry_id()})
        insert(conn, new, keys)
        return "added"
    merged = merge_into(old, new)
    if merged == old:
        return "unchanged"
    update(conn, merged)
    return "updated"


def entries(
    conn: sqlite3.Connection,
    *,
    app: str | None = None,
    status: str | None = None,
    sort: str = "template",
    limit: int | None = None,
) -> list[MemoryEntry]:
    where: list[str] = []
    params: list[Any] = []
    if app:
        where.append("id IN (SELECT entry_id FROM entry_apps WHERE app = ?)")
        params.append(app)
    if status:
        where.append("status = ?")
        params.append(status)
    sql = f"SELECT {', '.join(COLUMNS)} FROM entries"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += f" ORDER BY {SORT_COLUMNS[sort]}, id"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [entry_from_row(r) for r in conn.execute(sql, params)]


def count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0])


def wording_keys(conn: sqlite3.Connection) -> Iterator[tuple[str, str]]:
    """(id, wording key) of every entry: what a review search compares without parsing."""
    yield from conn.execute("SELECT id, wording_key FROM entries")


def digest(conn: sqlite3.Connection) -> str:
    """sha256 of the content (every column of every entry, by id): two stores with the same
    digest retrieve the same plans. The file's bytes would not do: pages move."""
    h = hashlib.sha256()
    for row in conn.execute(f"SELECT {', '.join(COLUMNS)} FROM entries ORDER BY id"):
        h.update(json.dumps(list(row), ensure_ascii=False).encode())
        h.update(b"\n")
    return h.hexdigest()


def merge_into(old: MemoryEntry, new: MemoryEntry) -> MemoryEntry:
    """`old` with what `new` adds: max counts, earliest creation, latest use, newer content."""
    update: dict[str, Any] = {
        "successes": max(old.successes, new.successes),
        "failures": max(old.failures, new.failures),
        "uses": max(old.uses, new.uses),
        "created_at": min(old.created_at, new.created_at),
    }
    if new.last_used_at and (old.last_used_at is None or new.last_used_at > old.last_used_at):
        update["last_used_at"] = new.last_used_at
    if new.updated_at > old.updated_at:
        update.update(
            plan=new.plan,
            status=new.status,
            notes=new.notes,
            example_goal=new.example_goal,
            slots=new.slots,
            goal_template=new.goal_template,
            consecutive_failures=new.consecutive_failures,
            updated_at=new.updated_at,
        )
    return old.model_copy(update=update)


__all__ = [
    "COLUMNS",
    "SORT_COLUMNS",
    "EntryKeys",
    "by_entry_key",
    "candidates",
    "count",
    "delete",
    "digest",
    "entries",
    "entry_from_row",
    "entry_keys",
    "get",
    "ids_with_prefix",
    "insert",
    "merge",
    "merge_into",
    "row_values",
    "set_apps",
    "update",
    "wording_keys",
]
