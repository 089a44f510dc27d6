"""The JSON side of episodic memory: the import/export format and the store of older Celils.

JSON is for people and for moving memories between machines (`memory_review export/import`); the
live store is SQLite (`celil_episodic_store`). Older files are read in every layout Celil ever
wrote: v0 (a bare `{goal_or_template: plan}` object or a list of records) and v1
(`{"schema_version": 1, "entries": [...]}`). Reading never changes the file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import json
import os
import re
import stat
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pydantic

from android_world.agents.custom.memory.celil_episodic_entries import (
    SCHEMA_VERSION,
    CorruptMemoryError,
    EpisodicMemoryError,
    MemoryEntry,
    MemoryFile,
    MemoryPathError,
    utcnow,
)
from android_world.agents.custom.memory.celil_episodic_goals import (
    abstract_goal,
    abstract_plan,
    canonical_app,
)
from android_world.agents.custom.memory.celil_episodic_meaning import goal_apps


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


# ---------------------------------------------------------------------------------------------
# Migration of older files
# ---------------------------------------------------------------------------------------------

_V0_TYPE_HINTS: tuple[tuple[str, str], ...] = (
    ("file", "file"),
    ("folder", "folder"),
    ("date", "date"),
    ("day", "date"),
    ("time", "time"),
    ("on_or_off", "toggle"),
    ("max_or_min", "toggle"),
    ("number", "number"),
    ("phone", "number"),
    ("amount", "number"),
    ("hours", "number"),
    ("minutes", "number"),
    ("seconds", "number"),
    ("count", "number"),
    ("name", "name"),
    ("contact", "name"),
    ("person", "name"),
)


def _v0_slot_type(placeholder: str) -> str:
    low = placeholder.lower()
    for hint, kind in _V0_TYPE_HINTS:
        if hint in low:
            return kind
    return "text"


def _v0_plan(raw: Any) -> list[str]:
    if isinstance(raw, str):
        return [line.strip() for line in raw.splitlines() if line.strip()]
    if isinstance(raw, list):
        return [str(s).strip() for s in raw if str(s).strip()]
    if isinstance(raw, dict):
        for k in ("plan", "sub_goals", "steps"):
            if k in raw:
                return _v0_plan(raw[k])
    raise ValueError(f"plan is neither a list nor text: {str(raw)[:60]!r}")


def _v0_entry(
    goal: str, plan: list[str], extra: Mapping[str, Any], now: dt.datetime
) -> MemoryEntry:
    """An old entry: its goal is either a concrete goal or an upstream-style `{name}` template."""
    named = re.findall(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})", goal)
    if named:
        mapping: dict[str, str] = {}
        counters: dict[str, int] = {}
        for name in named:
            if name not in mapping:
                kind = _v0_slot_type(name)
                counters[kind] = counters.get(kind, 0) + 1
                mapping[name] = f"{kind}_{counters[kind]}"

        def convert(text: str) -> str:
            parts = re.split(r"(\{[A-Za-z_][A-Za-z0-9_]*\})", text)
            return "".join(
                "{" + mapping[p[1:-1]] + "}"
                if p.startswith("{") and p[1:-1] in mapping
                else _escape(p)
                for p in parts
            )

        template, tplan, slots = convert(goal), [convert(s) for s in plan], {}
    else:
        abstracted = abstract_goal(goal)
        template, slots = abstracted.template, abstracted.slots
        tplan = abstract_plan(plan, slots)
    apps = sorted({canonical_app(a) for a in extra.get("app_names") or extra.get("apps") or ()})
    apps = apps or list(goal_apps(goal, template))
    # Stable ids, so an id seen in a listing of an old file still names the entry after migration.
    stable_id = hashlib.sha1(f"{template}\n{apps}".encode()).hexdigest()[:12]
    return MemoryEntry(
        id=stable_id,
        goal_template=template,
        example_goal=goal,
        slots=slots,
        plan=tplan,
        app_names=apps,
        created_at=now,
        updated_at=now,
        successes=int(extra.get("successes", extra.get("success_count", 1)) or 0),
        failures=int(extra.get("failures", extra.get("failure_count", 0)) or 0),
        notes="migrated from schema 0",
        provenance={"migrated_from": 0},
    )


def migrate(data: Any, now: dt.datetime | None = None) -> tuple[MemoryFile, list[str]]:
    """Parse any known file layout into the current schema. Returns (file, notes about it).

    v0 (the original plan) was a bare JSON object `{goal_or_template: plan}` or a list of
    `{"goal"/"goal_template": ..., "plan": ...}` records; v1 is `{"schema_version": 1, "entries"}`.
    Raises ValueError for anything unrecognised and EpisodicMemoryError for a newer schema.
    """
    now = now or utcnow()
    notes: list[str] = []
    if isinstance(data, dict) and "schema_version" in data:
        version = data["schema_version"]
        if not isinstance(version, int):
            raise ValueError(f"schema_version is not an integer: {version!r}")
        if version > SCHEMA_VERSION:
            raise EpisodicMemoryError(
                f"written by a newer Celil (schema {version} > {SCHEMA_VERSION}); upgrade Celil "
                "or point episodic_memory_path at another file"
            )
        if version == SCHEMA_VERSION:
            return MemoryFile.model_validate(data), notes
        if version != 0:
            raise ValueError(f"unknown schema_version {version}")
        data = data.get("entries", data.get("plans", {}))
    records: list[tuple[str, list[str], Mapping[str, Any]]] = []
    if isinstance(data, dict):
        for goal, plan in data.items():
            extra = plan if isinstance(plan, dict) else {}

            records.append((str(goal), _v0_plan(plan), extra))
    elif isinstance(data, list):
        for i, item in enumerate(data):
            if not isinstance(item, dict):
                raise ValueError(f"entry {i} is not an object")
            goal = next(
                (item[k] for k in ("goal_template", "template", "goal", "task") if k in item), None
            )
            if not isinstance(goal, str) or not goal.strip():
                raise ValueError(f"entry {i} has no goal or goal_template")
            records.append((goal, _v0_plan(item), item))
    else:
        raise ValueError("top level is neither an object nor a list")
    entries = [_v0_entry(goal, plan, extra, now) for goal, plan, extra in records if plan]
    notes.append(f"migrated {len(entries)} entries from schema 0 to {SCHEMA_VERSION}")
    return MemoryFile(entries=entries), notes


# ---------------------------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------------------------


def atomic_write_text(path: Path, text: str) -> None:
    """Temp file in the same directory + fsync + rename: readers see the old or the new file.

    A symlink is written through: its target is replaced and the link stays a link (replacing the
    link itself would leave its shared target behind, never updated again). Anything at the path
    that is not a regular file is refused before it is opened (MemoryPathError)."""
    path = Path(os.path.realpath(path))
    require_regular_file(path, "output")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def require_regular_file(path: Path, what: str = "episodic memory") -> os.stat_result | None:
    """The file's stat, or None when nothing is there. Anything but a regular file (a directory,
    a FIFO, a device, a socket, a symlink loop) is a MemoryPathError: checked with `os.stat`
    before any open, because opening a FIFO blocks until a writer comes, which may be never."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MemoryPathError(f"the {what} path {path} cannot be used: {exc.strerror}") from None
    if stat.S_ISREG(st.st_mode):
        return st
    raise MemoryPathError(
        f"the {what} path {path} is {file_kind(st.st_mode)}, not a file; point it at a file "
        "(it is left as it is)"
    )


def file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


@dataclasses.dataclass(frozen=True)
class JsonMemory:
    """A JSON memory as read: its valid entries, what migration said, and what was dropped."""

    entries: list[MemoryEntry]
    notes: list[str]
    invalid: int
    sha256: str


def read_json_memory(path: Path) -> JsonMemory:
    """Read a JSON memory file of any layout; the file is never changed.

    Raises CorruptMemoryError when it is not a memory at all (unreadable, not JSON, not a
    known layout) and EpisodicMemoryError for a newer schema. A file whose entries are partly
    invalid gives the valid ones and the count of the others (`invalid`).
    """
    if require_regular_file(path) is None:
        raise CorruptMemoryError(f"{path} does not exist")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CorruptMemoryError(f"{path} is unreadable: {exc.strerror}") from None
    digest = hashlib.sha256(raw).hexdigest()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorruptMemoryError(f"{path} is not UTF-8 text ({exc.reason})") from None
    if not text.strip():
        return JsonMemory([], ["empty file"], 0, digest)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CorruptMemoryError(
            f"{path} is not valid JSON ({exc.msg} at line {exc.lineno})"
        ) from None
    try:
        contents, notes = migrate(data)
        return JsonMemory(contents.entries, notes, 0, digest)
    except EpisodicMemoryError as exc:
        raise EpisodicMemoryError(f"{path} was {exc}") from None
    except (ValueError, TypeError, pydantic.ValidationError) as exc:
        salvaged, total = _salvage(data)
        if not salvaged and not total:
            detail = str(exc).splitlines()[0]
            raise CorruptMemoryError(f"{path} is not an episodic memory ({detail})") from None
        return JsonMemory(salvaged, [], total - len(salvaged), digest)


def _salvage(data: Any) -> tuple[list[MemoryEntry], int]:
    """The entries of a damaged v1 file that still validate, and how many entries it had."""
    good: list[MemoryEntry] = []
    items = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return [], 0
    for item in items:
        with contextlib.suppress(pydantic.ValidationError, TypeError, ValueError):
            good.append(MemoryEntry.model_validate(item))
    return good, len(items)


def dump_json_memory(entries: Sequence[MemoryEntry]) -> str:
    """The export format: the current schema, one entry per object, UTF-8 kept readable."""
    body = MemoryFile(entries=list(entries)).model_dump(mode="json")
    return json.dumps(body, indent=1, ensure_ascii=False) + "\n"


def canonical_apps(names: Sequence[str]) -> list[str]:
    return sorted({canonical_app(a) for a in names})


def with_apps(entry: MemoryEntry) -> MemoryEntry:
    """An entry with its apps filled in when it has none: the ones its goal names or implies
    ("Turn wifi on." is Settings), so "never reuse across apps" has something to compare."""
    if entry.app_names:
        return entry
    goal = entry.example_goal or entry.goal_template
    template = entry.goal_template if entry.example_goal else None
    apps = list(goal_apps(goal, template))
    return entry.model_copy(update={"app_names": apps}) if apps else entry


def looks_like_json(head: bytes) -> bool:
    """Whether a file's first bytes start a JSON memory (an object or a list)."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return text[:1] in (b"{", b"[")


__all__ = [
    "JsonMemory",
    "atomic_write_text",
    "canonical_apps",
    "dump_json_memory",
    "file_kind",
    "looks_like_json",
    "migrate",
    "read_json_memory",
    "require_regular_file",
    "with_apps",
]
