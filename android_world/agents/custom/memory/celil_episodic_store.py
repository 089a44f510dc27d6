"""The SQLite store of episodic memory: one database file, shared safely by many processes.

Why SQLite (the standard library's `sqlite3`): the JSON store read, validated and ranked the whole
file on every lookup and rewrote it on every hit, 1.6 s per lookup at 10k plans. Here a lookup
reads the few rows whose wording or meaning key equals the goal's (indexed), and a hit or an
outcome updates one row by its primary key.

- WAL journal: readers never wait for the writer; a writer killed at any point leaves the last
  committed state. `synchronous=NORMAL`: a power cut may lose the last commits, never corrupts.
- Every change is one `BEGIN IMMEDIATE` transaction, so concurrent writers (`--workers`, several
  runs) serialise on SQLite's lock and lose nothing; the busy timeout bounds the wait.
- The schema is versioned (`PRAGMA user_version`, steps in `_MIGRATIONS`) and stamped
  (`PRAGMA application_id`), so a newer or a foreign database is refused, never rewritten.
- The path must be a regular file or a symlink to one (the database and its -wal/-shm files
  then live beside the target, so every process that follows the link shares one store). A
  directory, FIFO, device or socket is refused before anything opens it.
- A JSON memory (a path ending in .json, or a file holding JSON) is migrated once into the
  database beside it (`<name>.db`); the JSON file is never changed.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import hashlib
import json
import os
import sqlite3
import threading
import time
import urllib.parse
import weakref
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from android_world.agents.custom.memory.celil_episodic_entries import (
    CorruptMemoryError,
    EpisodicMemoryError,
    utcnow,
)
from android_world.agents.custom.memory.celil_episodic_json import (
    JsonMemory,
    looks_like_json,
    read_json_memory,
    require_regular_file,
    with_apps,
)
from android_world.agents.custom.memory.celil_episodic_rows import (
    COLUMNS,
    EntryKeys,
    entry_from_row,
    entry_keys,
    insert,
    merge,
)

APPLICATION_ID = 0x43656C4D  # "CelM": a Celil episodic memory
DB_SCHEMA_VERSION = 1
# Bump when wording or meaning keys are computed differently: a store opened for writing then
# recomputes them (one pass), a read-only one reads its entries into memory with fresh keys.
KEYS_VERSION = 1
SQLITE_HEADER = b"SQLite format 3\x00"

_SCHEMA_V1 = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
    """CREATE TABLE entries (
        id TEXT PRIMARY KEY,
        entry_key TEXT NOT NULL UNIQUE,
        wording_key TEXT NOT NULL,
        meaning_key TEXT,
        goal_template TEXT NOT NULL,
        example_goal TEXT NOT NULL,
        slots TEXT NOT NULL,
        plan TEXT NOT NULL,
        app_names TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        last_used_at TEXT,
        successes INTEGER NOT NULL,
        failures INTEGER NOT NULL,
        uses INTEGER NOT NULL,
        consecutive_failures INTEGER NOT NULL,
        status TEXT NOT NULL,
        notes TEXT NOT NULL,
        provenance TEXT NOT NULL
    )""",
    "CREATE INDEX entries_by_wording ON entries (wording_key)",
    "CREATE INDEX entries_by_meaning ON entries (meaning_key)",
    """CREATE TABLE entry_apps (
        app TEXT NOT NULL,
        entry_id TEXT NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
        PRIMARY KEY (app, entry_id)
    ) WITHOUT ROWID""",
    "CREATE INDEX entry_apps_by_entry ON entry_apps (entry_id)",
)
# _MIGRATIONS[v] takes a database from user_version v to v + 1 (0: a new, empty database).
_MIGRATIONS: tuple[tuple[str, ...], ...] = (_SCHEMA_V1,)
assert len(_MIGRATIONS) == DB_SCHEMA_VERSION


# ---------------------------------------------------------------------------------------------
# Where the database is
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class MemoryLocation:
    """The configured path, the database file (symlinks resolved) and a JSON memory to migrate
    from (the configured file itself when it holds JSON; None otherwise)."""

    given: Path
    database: Path
    legacy_json: Path | None


def _head(path: Path, size: int = 16) -> bytes:
    """The first bytes of a regular file, read without ever blocking (O_NONBLOCK: if a FIFO was
    swapped in after the type check, the read returns instead of waiting for a writer)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        return os.read(fd, size)
    finally:
        os.close(fd)


def locate(path: str | os.PathLike[str]) -> MemoryLocation:
    """Resolve the memory path to its database. Raises MemoryPathError for anything but a
    regular file (or a symlink to one, or nothing yet), CorruptMemoryError for a file that is
    neither a SQLite database nor JSON."""
    given = Path(path)
    st = require_regular_file(given)
    real = Path(os.path.realpath(given))
    head = b""
    if st is not None and st.st_size:
        try:
            head = _head(real)
        except OSError as exc:
            raise EpisodicMemoryError(f"cannot read {given}: {exc.strerror}") from None
    if head.startswith(SQLITE_HEADER):
        database, legacy = real, None
    elif real.suffix.lower() == ".json" or (head and looks_like_json(head)):
        base = real.with_suffix("") if real.suffix.lower() == ".json" else real
        database = base.with_name(base.name + ".db")
        legacy = real if st is not None else None
    elif head:
        raise CorruptMemoryError(
            f"{given} is neither a Celil memory database nor a JSON memory (it is left as it is)"
        )
    else:
        database, legacy = real, None
    for side in (database, Path(f"{database}-wal"), Path(f"{database}-shm")):
        require_regular_file(side)
    if database != real and database.exists():
        db_head = _head(database) if database.stat().st_size else b""
        if db_head and not db_head.startswith(SQLITE_HEADER):
            raise CorruptMemoryError(
                f"{database} (the database of {given}) is not a SQLite database; move it away"
            )
    return MemoryLocation(given, database, legacy)


# File systems whose locks or shared memory SQLite's WAL cannot rely on across hosts (sqlite.org:
# "WAL does not work over a network filesystem"; POSIX locks are unreliable on many NFS).
NETWORK_FILE_SYSTEMS = frozenset(
    {
        "nfs",
        "nfs4",
        "cifs",
        "smb3",
        "smbfs",
        "9p",
        "afs",
        "ceph",
        "glusterfs",
        "lustre",
        "fuse.sshfs",
        "fuse.s3fs",
        "fuse.gcsfuse",
        "fuse.juicefs",
        "fuse.rclone",
        "gpfs",
        "beegfs",
    }
)


def mount_type(path: Path, mounts_text: str) -> str:
    """The file system type of `path` from /proc/mounts text: the longest mount point that
    contains it ("" when none does)."""
    best, kind = "", ""
    target = str(path)
    for line in mounts_text.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, fields[2]
    return kind


def network_file_system(path: Path) -> str | None:
    """The network file system `path` lives on (Linux: /proc/mounts), or None."""
    try:
        mounts = Path("/proc/mounts").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    kind = mount_type(Path(os.path.realpath(path)), mounts)
    return kind if kind in NETWORK_FILE_SYSTEMS else None


# ---------------------------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------------------------

# Stores with an open connection: closed at exit, so the last one folds the WAL into the
# database and a finished run leaves one file, not three.
_OPEN: weakref.WeakSet[SqliteStore] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for store in list(_OPEN):
        store.close()


class SqliteStore:
    """Rows of `MemoryEntry` in one SQLite file. Methods raise EpisodicMemoryError (one line)
    for storage problems; the caller decides whether that is fatal (review CLI, start-up) or a
    warning (the agent mid-run)."""

    def __init__(
        self,
        location: MemoryLocation,
        *,
        read_only: bool = False,
        timeout: float = 30.0,
        warn: Callable[[str], None] = lambda _message: None,
        note: Callable[[str], None] = lambda _message: None,
    ) -> None:
        self.location = location
        self.read_only = read_only
        self.timeout = timeout
        self._warn = warn
        self._note = note
        self._conn: sqlite3.Connection | None = None
        self._pid = 0
        self._lock = threading.RLock()
        self.journal_mode = ""

    @property
    def path(self) -> Path:
        return self.location.database

    def exists(self) -> bool:
        return self.path.exists() or self.location.legacy_json is not None

    # -- opening ---------------------------------------------------------------------------

    def connection(self, *, create: bool = True) -> sqlite3.Connection | None:
        """The open connection (one per process: a forked worker opens its own), or None when
        there is no memory yet and `create` is false."""
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                return self._conn
            self._conn = None
            if not self.exists() and (self.read_only or not create):
                return None
            try:
                conn = self._open_read_only() if self.read_only else self._open_writable()
            except sqlite3.DatabaseError as exc:
                raise _storage_error(self.path, exc) from None
            self._conn, self._pid = conn, os.getpid()
            _OPEN.add(self)
            return conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                with contextlib.suppress(sqlite3.Error):
                    self._conn.close()
            self._conn = None

    def _connect(self, target: str, *, uri: bool = False) -> sqlite3.Connection:
        conn = sqlite3.connect(
            target, timeout=self.timeout, isolation_level=None, uri=uri, check_same_thread=False
        )
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def _open_writable(self) -> sqlite3.Connection:
        legacy = self._legacy_to_migrate()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        remote = network_file_system(self.path.parent)
        if remote:
            self._warn(
                f"{self.path} is on a network file system ({remote}): SQLite's WAL needs every "
                "process that opens it on one host, so do not share it across hosts "
                "(docs/SCALE_OUT.md: a store per host, merged with memory_review import)"
            )
        conn = self._connect(str(self.path))
        try:
            # Refuse a foreign or newer database before changing anything of it (even its
            # journal mode, which lives in its header).
            self._check_version(conn)
            self.journal_mode = _use_wal(conn, self.timeout)
            if self.journal_mode.lower() != "wal":
                self._warn(
                    f"{self.path}: SQLite could not use its WAL journal here (journal mode "
                    f"{self.journal_mode}); a file system without shared memory (NFS, SMB) is "
                    "not safe for several writers (docs/SCALE_OUT.md)"
                )
            conn.execute("PRAGMA synchronous = NORMAL")
            if self._needs_setup(conn) or legacy is not None:
                with _immediate(conn):
                    self._set_up(conn, legacy)
            self._check_legacy_unchanged(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _legacy_to_migrate(self) -> JsonMemory | None:
        """The JSON memory to import, read (and validated) before the database is created, so a
        JSON file that cannot be read leaves no empty database behind."""
        legacy = self.location.legacy_json
        if legacy is None or (self.path.exists() and self.path.stat().st_size):
            return None
        return read_json_memory(legacy)

    def _open_read_only(self) -> sqlite3.Connection:
        legacy = self.location.legacy_json
        if not self.path.exists():
            # A frozen JSON memory: read into a private in-memory database, the file untouched.
            assert legacy is not None
            conn = self._connect(":memory:")
            with _immediate(conn):
                self._set_up(conn, read_json_memory(legacy))
            return conn
        target = "file:" + urllib.parse.quote(str(self.path)) + "?mode=ro"
        conn = self._connect(target, uri=True)
        try:
            version = self._check_version(conn)
        except sqlite3.OperationalError:
            # A read-only directory where the WAL's -shm cannot be made: with no -wal file the
            # database file holds everything, and nothing may change it (frozen), so read it
            # as immutable.
            conn.close()
            if Path(f"{self.path}-wal").exists():
                raise
            conn = self._connect(target + "&immutable=1", uri=True)
            version = self._check_version(conn)
        if version < DB_SCHEMA_VERSION or self._meta(conn, "keys_version") != str(KEYS_VERSION):
            # An older layout cannot be upgraded read-only: read it into memory as it would be.
            entries = [entry_from_row(r) for r in _old_rows(conn, version)]
            conn.close()
            conn = self._connect(":memory:")
            with _immediate(conn):
                self._set_up(conn, None)
                for entry in entries:
                    insert(conn, entry)
        return conn

    def _needs_setup(self, conn: sqlite3.Connection) -> bool:
        version = self._check_version(conn)
        return version < DB_SCHEMA_VERSION or self._meta(conn, "keys_version") != str(KEYS_VERSION)

    def _check_version(self, conn: sqlite3.Connection) -> int:
        """The database's schema version; a foreign or newer database raises, untouched."""
        with _snapshot(conn):
            app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            tables = [
                r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            ]
        if app_id != APPLICATION_ID and (app_id != 0 or tables):
            shown = ", ".join(tables[:4]) or "no tables"
            raise CorruptMemoryError(
                f"{self.path} is a SQLite database but not a Celil memory ({shown}); it is left "
                "as it is: point episodic_memory_path at another file"
            )
        if version > DB_SCHEMA_VERSION:
            raise EpisodicMemoryError(
                f"{self.path} was written by a newer Celil (schema {version} > "
                f"{DB_SCHEMA_VERSION}); it is left as it is: upgrade Celil or point "
                "episodic_memory_path at another file"
            )
        return version

    def _set_up(self, conn: sqlite3.Connection, legacy: JsonMemory | None) -> None:
        """Inside a write transaction: create or upgrade the schema, recompute stale keys and
        import the JSON memory once (another process may have done all of it meanwhile)."""
        version = self._check_version(conn)
        for step in _MIGRATIONS[version:]:
            for statement in step:
                conn.execute(statement)
        if version == 0:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            self._set_meta(conn, "created_at", utcnow().isoformat())
        if version < DB_SCHEMA_VERSION:
            conn.execute(f"PRAGMA user_version = {DB_SCHEMA_VERSION}")
        if self._meta(conn, "keys_version") != str(KEYS_VERSION):
            if version:
                self._recompute_keys(conn)
            self._set_meta(conn, "keys_version", str(KEYS_VERSION))
        if legacy is not None and self._meta(conn, "migrated_from") is None:
            self._import_legacy(conn, legacy)

    def _import_legacy(self, conn: sqlite3.Connection, legacy: JsonMemory) -> None:
        source = self.location.legacy_json
        assert source is not None
        merged = 0
        for entry in legacy.entries:
            if merge(conn, with_apps(entry)) != "added":
                merged += 1
        st = source.stat()
        self._set_meta(
            conn,
            "migrated_from",
            json.dumps(
                {
                    "path": str(source),
                    "sha256": legacy.sha256,
                    "size": st.st_size,
                    "mtime_ns": st.st_mtime_ns,
                    "entries": len(legacy.entries),
                    "at": utcnow().isoformat(),
                }
            ),
        )
        where = "memory (read only: nothing written)" if self.read_only else str(self.path)
        message = (
            f"migrated {len(legacy.entries)} entries from {source} into {where}"
            + (f" ({merged} merged into others of the same task)" if merged else "")
            + f"; {source.name} is kept unchanged"
        )
        if legacy.invalid:
            message += f"; {legacy.invalid} entries of it were invalid and not migrated"
            self._warn(message)
        else:
            self._note(message)

    def _check_legacy_unchanged(self, conn: sqlite3.Connection) -> None:
        """Say so when the JSON file changed after its migration (an older Celil still writing
        it): its new entries are not in the database until imported."""
        source = self.location.legacy_json
        raw = self._meta(conn, "migrated_from")
        if source is None:
            return
        if raw is None:
            self._warn(
                f"{source} was never migrated: {self.path} existed before it. Merge it with: "
                f"python -m android_world.harness.memory_review --memory {self.path} import {source}"
            )
            return
        with contextlib.suppress(OSError, ValueError, KeyError):
            info = json.loads(raw)
            st = source.stat()
            if (st.st_size, st.st_mtime_ns) == (info["size"], info["mtime_ns"]):
                return
            if hashlib.sha256(source.read_bytes()).hexdigest() != info["sha256"]:
                self._warn(
                    f"{source} changed after it was migrated into {self.path}; its new entries "
                    "are not used. Merge them with: python -m android_world.harness.memory_review "
                    f"--memory {self.path} import {source}"
                )

    def _recompute_keys(self, conn: sqlite3.Connection) -> None:
        rows = conn.execute(f"SELECT {', '.join(COLUMNS)} FROM entries").fetchall()
        for row in rows:
            entry = entry_from_row(row)
            keys = entry_keys(entry)
            clash = conn.execute(
                "SELECT id FROM entries WHERE entry_key = ? AND id != ?", (keys.entry_key, entry.id)
            ).fetchone()
            if clash is not None:  # two entries became one task: keep both, the later by words
                keys = EntryKeys(f"{keys.entry_key}#{entry.id}", keys.wording_key, None)
            conn.execute(
                "UPDATE entries SET entry_key = ?, wording_key = ?, meaning_key = ? WHERE id = ?",
                (keys.entry_key, keys.wording_key, keys.meaning_key, entry.id),
            )

    @staticmethod
    def _meta(conn: sqlite3.Connection, key: str) -> str | None:
        exists = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
        ).fetchone()
        if not exists:
            return None
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    @staticmethod
    def _set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def meta(self, key: str) -> str | None:
        conn = self.connection(create=False)
        return None if conn is None else self._meta(conn, key)

    # -- transactions ----------------------------------------------------------------------

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE: the writer lock first, so two processes never
        both read, then both write). Rolled back if the block raises."""
        if self.read_only:
            raise EpisodicMemoryError(f"{self.path} is open read-only")
        with self._lock:
            conn = self.connection()
            assert conn is not None
            try:
                with _immediate(conn):
                    yield conn
            except sqlite3.DatabaseError as exc:
                raise _storage_error(self.path, exc) from None

    @contextlib.contextmanager
    def read(self) -> Iterator[sqlite3.Connection | None]:
        """A consistent snapshot for several SELECTs (None: no memory yet)."""
        with self._lock:
            conn = self.connection(create=False)
            if conn is None:
                yield None
                return
            try:
                conn.execute("BEGIN")
                try:
                    yield conn
                finally:
                    conn.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                raise _storage_error(self.path, exc) from None


def _old_rows(conn: sqlite3.Connection, version: int) -> Sequence[sqlite3.Row]:
    """Every entry row of a database at schema `version` (only 1 exists so far)."""
    if version == 0:
        return []
    return conn.execute(f"SELECT {', '.join(COLUMNS)} FROM entries").fetchall()


@contextlib.contextmanager
def _immediate(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _use_wal(conn: sqlite3.Connection, timeout: float) -> str:
    """Switch to the WAL journal; the journal mode SQLite ends up in.

    Processes that create one store at the same moment all switch it; SQLite answers "database
    is locked" at once to all but one (its busy timeout does not cover this), so wait for the
    switch to be done, up to `timeout`."""
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() + delay > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


@contextlib.contextmanager
def _snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """Several reads seen at one moment. Outside a transaction each statement is its own, so a
    process that creates the store between them (tables committed after the application id was
    read as 0) would make a new Celil memory look like a foreign database."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("COMMIT")


def _storage_error(path: Path, exc: sqlite3.DatabaseError) -> EpisodicMemoryError:
    """One line for a SQLite error, naming the file and what to do."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "locked" in text or "busy" in text:
        return EpisodicMemoryError(f"{path} stayed locked by another process ({text}); try again")
    if isinstance(exc, sqlite3.OperationalError) and "unable to open" in text:
        return EpisodicMemoryError(f"cannot open {path} ({text})")
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return CorruptMemoryError(
            f"{path} is damaged ({text}); it is left as it is: recover it with "
            f"`sqlite3 {path} .recover`, or point episodic_memory_path at another file"
        )
    return EpisodicMemoryError(f"{path}: {text}")


__all__ = [
    "APPLICATION_ID",
    "DB_SCHEMA_VERSION",
    "KEYS_VERSION",
    "EntryKeys",
    "MemoryLocation",
    "SqliteStore",
    "entry_keys",
    "locate",
    "mount_type",
    "network_file_system",
]
