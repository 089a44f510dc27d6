"""Episodic memory: verified plans, stored as reusable goal templates, retrieved by meaning.

Celil remembers how it solved a goal only when the harness verified the episode (score 1.0) and
the agent's own claim agreed, and it remembers the *shape* of the goal rather than its parameters:
"Create a new contact for Alice Smith. Their number is +1 555 0100." is stored as "Create a new
contact for {name_1}. Their number is {number_1}." with a plan in the same slots, so the plan can
be reused for Bob next time (`celil_episodic_goals`). A goal worded differently but meaning the
same ("Please switch Wi-Fi on" for "Turn wifi on.") finds the same entry; the opposite on/off
value does not (`celil_episodic_meaning`).

The modules by concern:

- `celil_episodic_goals`: abstraction of goals and plans (pure), with `celil_episodic_apps`,
  the app names a goal names;
- `celil_episodic_plan_checks`: the leak checks and the comparison of templates (pure);
- `celil_episodic_meaning`: wording and meaning keys, the apps a goal is about (pure);
- `celil_episodic_entries`: the entry model and `misfit_reason`;
- `celil_episodic_json`: the JSON import/export format and migration of older files;
- `celil_episodic_store`: the SQLite store (WAL, transactions, versioned schema, indexes);
- this module: `EpisodicMemory`, the agent-facing API, and every public name of the above.

Safety properties the rest of the system relies on:

- Many processes may share one store: every change is one SQLite transaction.
- The memory path must be a regular file or a symlink to one; anything else, a damaged file or a
  newer schema is a one-line EpisodicMemoryError and is left exactly as it is.
- A plan that fails `retire_after` retrievals in a row retires; retired entries are never
  retrieved. The agent-facing methods never raise for storage problems (a broken memory must not
  break an episode): they log and append to `warnings` instead.
- A memory must help later goals and never poison them: a plan that still spells out one of its
  goal's values is not stored (`plan_leaks`); a remembered plan is not retrieved for a goal of
  another app, another task or another on/off value, nor when its fixed text repeats a value of
  its example goal that this goal does not share (`misfit_reason`).

This file is part of the plugin: it imports only the standard library, pydantic and the offline
roles' goal reader.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pydantic

from android_world.agents.custom.memory import celil_episodic_rows as rows
from android_world.agents.custom.memory.celil_episodic_entries import (
    SCHEMA_VERSION,
    CorruptMemoryError,
    EpisodicMemoryError,
    Match,
    MemoryEntry,
    MemoryFile,
    MemoryPathError,
    RetrievedPlan,
    misfit_reason,
    new_entry_id,
    utcnow,
)
from android_world.agents.custom.memory.celil_episodic_goals import (
    AppMention,
    GoalTemplate,
    SlotValue,
    abstract_goal,
    abstract_plan,
    abstract_text,
    app_mentions,
    apps_in_goal,
    canonical_app,
    instantiate,
    placeholders,
)
from android_world.agents.custom.memory.celil_episodic_json import (
    atomic_write_text,
    dump_json_memory,
    migrate,
    read_json_memory,
    with_apps,
)
from android_world.agents.custom.memory.celil_episodic_meaning import (
    GoalReading,
    key_states,
    read_goal,
)
from android_world.agents.custom.memory.celil_episodic_plan_checks import (
    literal_text,
    plan_leaks,
    slot_markers,
    stale_values,
    template_differences,
    template_markers,
    template_similarity,
    wording_key,
)
from android_world.agents.custom.memory.celil_episodic_rows import SORT_COLUMNS
from android_world.agents.custom.memory.celil_episodic_store import (
    DB_SCHEMA_VERSION,
    EntryKeys,
    SqliteStore,
    entry_keys,
    locate,
)

logger = logging.getLogger(__name__)

DEFAULT_SIMILARITY_THRESHOLD = 0.8
DEFAULT_MIN_SUCCESS_RATE = 0.3
MIN_TRIALS_FOR_RATE_FLOOR = 3
# Retrievals in a row that failed before an entry retires: one failure can be the device's or
# the executor's fault, three in a row are the plan's (config: memory_retire_after).
DEFAULT_RETIRE_AFTER = 3
AUTO_RETIRED = "auto_retired"


class EpisodicMemory:
    """Verified plans keyed by task, in one SQLite file shared safely between processes.

    Callers must only pass plans from episodes the harness scored 1.0, and whose agent claimed
    success, to `add_successful_plan`; the memory cannot check that itself. Use `record_outcome`
    for how a retrieved plan fared.

    `db_path` may name a JSON memory of an older Celil (or end in .json): the database is then
    `<name>.db` beside it, filled from the JSON once; the JSON file is never changed.
    Raises EpisodicMemoryError (MemoryPathError, CorruptMemoryError) when the path cannot be a
    memory: a directory, FIFO, device or socket, or a file that is neither SQLite nor JSON.
    """

    def __init__(
        self,
        db_path: str | os.PathLike[str],
        *,
        similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD,
        provenance: Mapping[str, Any] | None = None,
        min_success_rate: float = DEFAULT_MIN_SUCCESS_RATE,
        retire_after: int | None = DEFAULT_RETIRE_AFTER,
        lock_timeout: float = 30.0,
        clock: Callable[[], dt.datetime] = utcnow,
        read_only: bool = False,
    ) -> None:
        if not 0.0 <= similarity_threshold <= 1.0:
            raise ValueError(f"similarity_threshold must be in 0..1, got {similarity_threshold}")
        if retire_after is not None and retire_after < 1:
            raise ValueError(f"retire_after must be 1 or more (or None), got {retire_after}")
        self.source = Path(db_path)
        self.location = locate(db_path)
        self.path = self.location.database
        self.similarity_threshold = similarity_threshold
        self.min_success_rate = min_success_rate
        self.retire_after = retire_after
        self.provenance = dict(provenance or {})
        # A frozen memory answers lookups but learns nothing, so an evaluation run cannot change
        # what the next run retrieves.
        self.read_only = read_only
        self.warnings: list[str] = []
        self.notes: list[str] = []
        self._clock = clock
        self.store = SqliteStore(
            self.location,
            read_only=read_only,
            timeout=lock_timeout,
            warn=self._warn,
            note=self._note,
        )
        # Entries whose outcome this instance already counted since the last add, so an episode
        # that calls both record_outcome(id, True) and add_successful_plan counts one success.
        self._counted_success: set[str] = set()

    # -- storage -------------------------------------------------------------------------------

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        logger.warning("episodic memory: %s", message)

    def _note(self, message: str) -> None:
        self.notes.append(message)
        logger.info("episodic memory: %s", message)

    def check(self, *, create: bool = True) -> None:
        """Open the store now (creating it when writable and `create`): raises
        EpisodicMemoryError for a damaged, foreign or newer file, at start-up rather than
        as a warning in the middle of a run."""
        self.store.connection(create=create and not self.read_only)

    def close(self) -> None:
        self.store.close()

    def count(self) -> int:
        with self.store.read() as conn:
            return 0 if conn is None else rows.count(conn)

    def digest(self) -> str | None:
        """sha256 of the content (None: no memory yet); see celil_episodic_rows.digest."""
        with self.store.read() as conn:
            return None if conn is None else rows.digest(conn)

    def entries(
        self,
        *,
        strict: bool = False,
        app: str | None = None,
        status: str | None = None,
        sort: str = "template",
        limit: int | None = None,
    ) -> list[MemoryEntry]:
        """Every entry (or those of `app` / `status`, the first `limit` in `sort` order). Not
        strict: a storage problem is a warning and an empty list; strict: it raises."""
        try:
            with self.store.read() as conn:
                if conn is None:
                    return []
                return rows.entries(
                    conn,
                    app=canonical_app(app) if app else None,
                    status=status,
                    sort=sort,
                    limit=limit,
                )
        except (EpisodicMemoryError, pydantic.ValidationError) as exc:
            if strict:
                raise _one_line(exc) from None
            self._warn(f"entries unreadable: {_one_line(exc)}")
            return []

    def get(self, id_or_prefix: str) -> MemoryEntry:
        """The entry with this id or unique id prefix (git style); raises KeyError saying why."""
        prefix = id_or_prefix.strip()
        if not prefix:
            raise KeyError("empty entry id")
        with self.store.read() as conn:
            if conn is None:
                raise KeyError(f"no entry with id {prefix!r} (the memory is empty)")
            exact = rows.get(conn, prefix)
            if exact is not None:
                return exact
            ids = rows.ids_with_prefix(conn, prefix)
            if not ids:
                raise KeyError(f"no entry with id {prefix!r} (see `list`)")
            if len(ids) > 1:
                raise KeyError(f"id prefix {prefix!r} is ambiguous: {', '.join(ids[:5])}")
            entry = rows.get(conn, ids[0])
            assert entry is not None
            return entry

    def save(self, entry: MemoryEntry) -> None:
        """Write one entry back (review edits); raises EpisodicMemoryError."""
        with self.store.write() as conn:
            if rows.get(conn, entry.id) is None:
                raise EpisodicMemoryError(f"entry {entry.id} was deleted meanwhile")
            rows.update(conn, entry)

    def delete(self, entry_ids: Iterable[str]) -> int:
        ids = list(entry_ids)
        with self.store.write() as conn:
            for entry_id in ids:
                rows.delete(conn, entry_id)
        return len(ids)

    def import_entries(self, incoming: Sequence[MemoryEntry]) -> dict[str, int]:
        """Merge entries (from `memory_review import`) by task in one transaction: counts take
        the max, the newer entry supplies plan, status and notes."""
        counts = {"added": 0, "updated": 0, "unchanged": 0}
        with self.store.write() as conn:
            for entry in incoming:
                counts[rows.merge(conn, with_apps(entry))] += 1
        return counts

    @contextlib.contextmanager
    def transaction(self, *, strict: bool = False) -> Iterator[list[MemoryEntry]]:
        """Every entry in one write transaction: change, add or remove entries of the list and
        they are written back when the block ends (nothing if it raises). O(n): for reviewers
        and tests, not for the agent. `strict` is accepted for compatibility."""
        del strict
        with self.store.write() as conn:
            entries = rows.entries(conn)
            before = {e.id: e.model_dump(mode="json") for e in entries}
            yield entries
            kept = {entry.id for entry in entries}
            # Deletions first, so an entry whose id changed can take its old task's key.
            for gone in before.keys() - kept:
                rows.delete(conn, gone)
            for entry in entries:
                if entry.id not in before:
                    rows.insert(conn, entry)
                elif entry.model_dump(mode="json") != before[entry.id]:
                    rows.update(conn, entry)

    # -- retrieval -----------------------------------------------------------------------------

    def rank(
        self,
        goal: str,
        app_names: Iterable[str] = (),
        entries: Sequence[MemoryEntry] | None = None,
        *,
        include_retired: bool = False,
    ) -> list[Match]:
        """Candidates, best first, each with its instantiated plan, whether it is usable and
        why not. Without `entries`, the candidates are the entries of the goal's wording or
        meaning (two index lookups); with `entries`, every one of them is judged."""
        reading = read_goal(goal)
        wanted = {canonical_app(a) for a in app_names} | set(reading.apps)
        if entries is None:
            with self.store.read() as conn:
                pool = (
                    []
                    if conn is None
                    else rows.candidates(
                        conn,
                        reading.wording_key,
                        reading.meaning.key,
                        include_retired=include_retired,
                    )
                )
        else:
            pool = [(e, entry_keys(e)) for e in entries]
        out = [
            judge(reading, wanted, entry, keys, self.similarity_threshold, self.min_success_rate)
            for entry, keys in pool
            if include_retired or entry.status != "retired"
        ]
        out.sort(
            key=lambda m: (
                m.usable,
                m.entry.status == "pinned",
                m.similarity + 0.1 * (m.entry.successes + 1) / (m.entry.trials + 2),
                m.entry.updated_at,
            ),
            reverse=True,
        )
        return out

    def review_pool(self, text: str, limit: int = 30) -> list[MemoryEntry]:
        """What a review search judges (`celil-memory search`): the entries retrieval would look
        at (same wording or meaning key, retired ones too), then the nearest others by template
        words, then entries whose text contains the query."""
        reading = read_goal(text)
        with self.store.read() as conn:
            if conn is None:
                return []
            found = {
                e.id: e
                for e, _ in rows.candidates(
                    conn, reading.wording_key, reading.meaning.key, include_retired=True
                )
            }
            query = set(reading.wording_key.split())
            near: list[tuple[float, str]] = []
            for entry_id, key in rows.wording_keys(conn):
                words = set(key.split())
                if entry_id in found or not words or len(query & words) * 2 < len(query | words):
                    continue
                near.append((template_similarity(reading.wording_key, key), entry_id))
            for _, entry_id in sorted(near, reverse=True)[:limit]:
                entry = rows.get(conn, entry_id)
                if entry is not None:
                    found[entry.id] = entry
            like = f"%{text.strip().lower()}%"
            hits = conn.execute(
                "SELECT id FROM entries WHERE lower(goal_template) LIKE ? OR lower(example_goal) "
                "LIKE ? OR lower(plan) LIKE ? LIMIT ?",
                (like, like, like, limit),
            )
            for (entry_id,) in hits.fetchall():
                entry = rows.get(conn, entry_id)
                if entry is not None:
                    found.setdefault(entry.id, entry)
        return list(found.values())

    def find_similar_task(self, goal: str, app_names: Iterable[str] = ()) -> RetrievedPlan | None:
        """The best usable remembered plan for this goal, filled with this goal's values.

        Pinned entries win, then similarity with a small bonus for a good track record. Marks the
        entry as used (one row updated). Returns None (and records a warning) if the memory
        cannot be read.
        """
        try:
            best = next((m for m in self.rank(goal, app_names) if m.usable), None)
            if best is None:
                return None
            if not self.read_only:
                with self.store.write() as conn:
                    conn.execute(
                        "UPDATE entries SET uses = uses + 1, last_used_at = ? WHERE id = ?",
                        (self._clock().isoformat(), best.entry.id),
                    )
        except (EpisodicMemoryError, pydantic.ValidationError, OSError) as exc:
            self._warn(f"retrieval skipped: {_one_line(exc)}")
            return None
        self._counted_success.discard(best.entry.id)
        return RetrievedPlan(
            entry_id=best.entry.id,
            goal_template=best.entry.goal_template,
            plan=best.plan,
            similarity=best.similarity,
            success_rate=best.entry.success_rate,
            pinned=best.entry.status == "pinned",
            example_goal=best.entry.example_goal,
            basis=best.basis,
        )

    # -- learning ------------------------------------------------------------------------------

    def record_outcome(self, entry_id: str, success: bool) -> None:
        """Count how a retrieved plan fared; `retire_after` failures in a row retire it. An
        unknown id (deleted meanwhile) is only a warning."""
        if self.read_only:
            return
        now = self._clock()
        try:
            with self.store.write() as conn:
                entry = rows.get(conn, entry_id)
                if entry is None:
                    self._warn(f"record_outcome: no entry {entry_id!r} (deleted?)")
                    return
                if success:
                    conn.execute(
                        "UPDATE entries SET successes = successes + 1, consecutive_failures = 0,"
                        " updated_at = ? WHERE id = ?",
                        (now.isoformat(), entry_id),
                    )
                    self._counted_success.add(entry_id)
                    return
                streak = entry.consecutive_failures + 1
                conn.execute(
                    "UPDATE entries SET failures = failures + 1, consecutive_failures = ?,"
                    " updated_at = ? WHERE id = ?",
                    (streak, now.isoformat(), entry_id),
                )
                if self.retire_after and streak >= self.retire_after and entry.status != "retired":
                    self._retire(conn, entry_id, streak, now)
        except (EpisodicMemoryError, pydantic.ValidationError, OSError) as exc:
            self._warn(f"record_outcome skipped: {_one_line(exc)}")

    def _retire(self, conn: Any, entry_id: str, streak: int, now: dt.datetime) -> None:
        entry = rows.get(conn, entry_id)
        assert entry is not None
        note = f"retired automatically on {now:%Y-%m-%d}: {streak} failed uses in a row"
        retired = entry.model_copy(
            update={
                "status": "retired",
                "notes": f"{entry.notes}; {note}" if entry.notes else note,
                "provenance": {
                    **entry.provenance,
                    AUTO_RETIRED: {"at": now.isoformat(), "failures_in_a_row": streak},
                },
            }
        )
        rows.update(conn, retired)
        self._warn(f"entry {entry_id} retired: {streak} failed uses in a row")

    def add_successful_plan(
        self,
        goal: str,
        plan: Sequence[str],
        app_names: Iterable[str] = (),
        provenance: Mapping[str, Any] | None = None,
    ) -> str:
        """Remember a plan that the harness VERIFIED (score 1.0). The caller must ensure that.

        The goal and plan are abstracted to templates. A success for a task already stored
        (same meaning or template, on/off values and apps) updates that entry: one more success
        (unless `record_outcome` already counted it) and, unless the entry is pinned or retired,
        the newest plan. A retired entry stays retired, except one retired automatically whose
        plan this success replaces (a new plan starts a new record). Returns the entry id, or ""
        if the memory could not be written, the plan was refused because it still names the
        goal's values (see `plan_leaks`), or the memory is read-only.
        """
        if self.read_only:
            return ""
        candidate = self.make_entry(goal, plan, app_names, provenance)
        if isinstance(candidate, str):
            # Stored, such a plan would hand the goal's values to the next goal of its shape.
            self._counted_success = set()
            self._warn(candidate)
            return ""
        keys = entry_keys(candidate)
        try:
            with self.store.write() as conn:
                # The marker is for this episode only, whichever entry this success lands on.
                self._counted_success, counted = set(), self._counted_success
                existing = rows.by_entry_key(conn, keys.entry_key)
                if existing is None:
                    rows.insert(conn, candidate, keys)
                    return candidate.id
                updated = _after_success(existing, candidate, counted=existing.id in counted)
                rows.update(conn, updated)
                return existing.id
        except (EpisodicMemoryError, pydantic.ValidationError, OSError) as exc:
            self._warn(f"plan not stored: {_one_line(exc)}")
            return ""

    def make_entry(
        self,
        goal: str,
        plan: Sequence[str],
        app_names: Iterable[str] = (),
        provenance: Mapping[str, Any] | None = None,
    ) -> MemoryEntry | str:
        """The entry a verified plan becomes (goal and plan abstracted, apps named or implied),
        or why it cannot be stored: an empty plan, or one that still spells out the goal's
        values after abstraction (`plan_leaks`)."""
        steps = [s.strip() for s in plan if s and s.strip()]
        if not steps:
            return "add_successful_plan: empty plan not stored"
        reading = read_goal(goal)
        abstracted = reading.template
        tplan = abstract_plan(steps, abstracted.slots)
        leaks = plan_leaks(abstracted, tplan)
        if leaks:
            return (
                "plan not stored: after abstraction it still spells out the goal's "
                + ", ".join(repr(v) for v in leaks[:3])
                + f" (template {abstracted.template!r})"
            )
        now = self._clock()
        return MemoryEntry(
            id=new_entry_id(),
            goal_template=abstracted.template,
            example_goal=goal,
            slots=abstracted.slots,
            plan=tplan,
            app_names=sorted({canonical_app(a) for a in app_names} | set(reading.apps)),
            created_at=now,
            updated_at=now,
            successes=1,
            provenance={**self.provenance, **dict(provenance or {})},
        )

    # -- convenience for reviewers -------------------------------------------------------------

    def abstract_goal(self, goal: str) -> GoalTemplate:
        return abstract_goal(goal)

    def instantiate(self, text: str, slots: Mapping[str, SlotValue | str]) -> str:
        return instantiate(text, slots)


def judge(
    reading: GoalReading,
    wanted: set[str],
    entry: MemoryEntry,
    keys: EntryKeys,
    similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD,
    min_success_rate: float = DEFAULT_MIN_SUCCESS_RATE,
) -> Match:
    """One candidate: its similarity (1.0 for the same template or meaning, else the
    template's word similarity), scaled by app overlap, and every reason it must not serve."""
    template = reading.template
    if entry.goal_template == template.template:
        basis, similarity = "same template", 1.0
    elif keys.meaning_key is not None and keys.meaning_key == reading.meaning.key:
        basis, similarity = "same meaning", 1.0
    else:
        basis = "similar wording"
        similarity = template_similarity(template.template, entry.goal_template)
    have = set(entry.app_names)
    if wanted and have:
        similarity *= 0.5 + 0.5 * len(wanted & have) / len(wanted | have)
    same_meaning = basis == "same meaning"
    slots = reading.fill_slots if same_meaning else template.slots
    plan = [instantiate(step, slots) for step in entry.plan]
    if entry.status == "retired":
        reason = "retired"
    elif similarity < similarity_threshold:
        reason = f"similarity {similarity:.2f} < {similarity_threshold:.2f}"
    else:
        reason = misfit_reason(
            entry, GoalTemplate(template.template, slots), wanted, same_meaning=same_meaning
        ) or _states_reason(keys.meaning_key, reading.meaning.key)
    if (
        not reason
        and entry.status != "pinned"
        and entry.trials >= MIN_TRIALS_FOR_RATE_FLOOR
        and entry.success_rate < min_success_rate
    ):
        reason = f"success rate {entry.success_rate:.2f} < {min_success_rate:.2f}"
    return Match(entry, round(similarity, 4), plan, not reason, reason, basis)


def _states_reason(entry_key: str | None, goal_key: str | None) -> str:
    """Why a plan for other on/off values, levels or date forms does not serve ("" = same or
    unknown): "Set brightness to 100%" is brightness=max, "0%" min, though one template."""
    made, wanted = key_states(entry_key), key_states(goal_key)
    if made is None or wanted is None or made == wanted:
        return ""
    return f"it was made for [{made or '-'}], this goal is [{wanted or '-'}]"


def _after_success(existing: MemoryEntry, new: MemoryEntry, *, counted: bool) -> MemoryEntry:
    """The stored entry after one more verified success of its task, planned as `new`."""
    update: dict[str, Any] = {
        "updated_at": new.updated_at,
        "provenance": {**existing.provenance, "last_success": new.provenance},
        "consecutive_failures": 0,
    }
    if not counted:
        update["successes"] = existing.successes + 1
    content = {
        "plan": new.plan,
        "example_goal": new.example_goal,
        "slots": new.slots,
        "goal_template": new.goal_template,
    }
    if existing.status == "active":
        update.update(content)
    elif (
        existing.status == "retired"
        and AUTO_RETIRED in existing.provenance
        and new.plan != existing.plan
    ):
        # The plan that kept failing stays gone; this verified one starts a record of its own.
        provenance = {k: v for k, v in existing.provenance.items() if k != AUTO_RETIRED}
        update.update(
            content,
            status="active",
            successes=1,
            failures=0,
            provenance={**provenance, "last_success": new.provenance},
            notes=f"{existing.notes}; replaced by a new verified plan".lstrip("; "),
        )
    return existing.model_copy(update=update)


def _one_line(exc: BaseException) -> EpisodicMemoryError:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if isinstance(exc, EpisodicMemoryError):
        return exc
    return EpisodicMemoryError(text)


def describe(path: str | os.PathLike[str]) -> dict[str, object]:
    """Entry count and content digest of the memory at `path`, read only, for the manifest:
    {"entries": n, "sha256": hex or None, "database": path}; raises EpisodicMemoryError."""
    memory = EpisodicMemory(path, read_only=True)
    try:
        with memory.store.read() as conn:
            if conn is None:
                return {"entries": 0, "sha256": None, "database": str(memory.path)}
            return {
                "entries": rows.count(conn),
                "sha256": rows.digest(conn),
                "database": str(memory.path),
            }
    finally:
        memory.close()


__all__ = [
    "AUTO_RETIRED",
    "DB_SCHEMA_VERSION",
    "DEFAULT_RETIRE_AFTER",
    "DEFAULT_SIMILARITY_THRESHOLD",
    "SCHEMA_VERSION",
    "SORT_COLUMNS",
    "AppMention",
    "CorruptMemoryError",
    "EpisodicMemory",
    "EpisodicMemoryError",
    "GoalReading",
    "GoalTemplate",
    "Match",
    "MemoryEntry",
    "MemoryFile",
    "MemoryPathError",
    "RetrievedPlan",
    "SlotValue",
    "abstract_goal",
    "abstract_plan",
    "abstract_text",
    "app_mentions",
    "apps_in_goal",
    "atomic_write_text",
    "canonical_app",
    "describe",
    "dump_json_memory",
    "entry_keys",
    "instantiate",
    "judge",
    "literal_text",
    "migrate",
    "misfit_reason",
    "new_entry_id",
    "placeholders",
    "plan_leaks",
    "read_goal",
    "read_json_memory",
    "slot_markers",
    "stale_values",
    "template_differences",
    "template_markers",
    "template_similarity",
    "wording_key",
]
