"""What the plugin does when an optional package is missing: say so once, then carry on.

Inside an upstream AndroidWorld checkout only upstream's requirements may be installed, so
`filelock` (episodic-memory locking) and `pytesseract` (OCR) are optional. A missing one costs a
feature or a nicety, never the run: the memory falls back to the operating system's own file
lock (fcntl on POSIX, msvcrt on Windows), and `ocr: auto` turns OCR off. Each such fallback is
announced by exactly one warning per process, through logging (upstream's absl logging shows
warnings), not once per episode or per agent.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any

logger = logging.getLogger("celil")

_warned: set[str] = set()
_warned_lock = threading.Lock()


def warn_once(key: str, message: str) -> bool:
    """Log `message` as a warning the first time `key` is seen in this process.

    Returns whether it was logged, so callers can also record it elsewhere exactly once.
    """
    with _warned_lock:
        if key in _warned:
            return False
        _warned.add(key)
    logger.warning("%s", message)
    return True


def forget_warnings() -> None:
    """Let every warning be logged again (tests)."""
    with _warned_lock:
        _warned.clear()


class LockTimeout(TimeoutError):
    """The lock file stayed locked by another process for longer than the timeout."""


class OsFileLock:
    """A re-entrant, cross-process exclusive lock on `path` using the OS's advisory locking.

    Same use as `filelock.FileLock` (a context manager with a timeout), which is what the
    episodic memory needs: two runs sharing one memory file must not interleave their writes.
    """

    def __init__(self, path: str | os.PathLike[str], timeout: float = 30.0, poll_s: float = 0.05):
        self.lock_file = str(path)
        self.timeout = timeout
        self._poll_s = poll_s
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._handle: Any = None

    @property
    def is_locked(self) -> bool:
        return self._depth > 0

    def acquire(self) -> OsFileLock:
        self._thread_lock.acquire()
        if self._depth == 0:
            try:
                self._handle = self._lock_os()
            except BaseException:
                self._thread_lock.release()
                raise
        self._depth += 1
        return self

    def release(self) -> None:
        if self._depth == 0:
            return
        self._depth -= 1
        if self._depth == 0:
            handle, self._handle = self._handle, None
            _unlock(handle)
        self._thread_lock.release()

    def __enter__(self) -> OsFileLock:
        return self.acquire()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    def _lock_os(self) -> Any:
        Path(self.lock_file).parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.lock_file, "a+b")  # noqa: SIM115 - kept open while locked
        deadline = time.monotonic() + max(0.0, self.timeout)
        while True:
            try:
                _try_lock(handle)
                return handle
            except OSError:
                if time.monotonic() >= deadline:
                    handle.close()
                    raise LockTimeout(
                        f"the lock {self.lock_file} is still held after {self.timeout:g} s"
                    ) from None
                time.sleep(self._poll_s)


if os.name == "nt":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(handle: Any) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)

    def _unlock(handle: Any) -> None:
        try:
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        finally:
            handle.close()

else:
    import fcntl

    def _try_lock(handle: Any) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(handle: Any) -> None:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        finally:
            handle.close()


FILELOCK_MISSING = (
    "Celil: the optional package filelock is not installed; episodic memory locks its file "
    "with the operating system's lock instead (pip install filelock to use it)"
)


def file_lock(path: str | os.PathLike[str], timeout: float = 30.0) -> Any:
    """`filelock.FileLock(path)` when filelock is installed, else an `OsFileLock`.

    Either one's timeout error is a `TimeoutError` (so an `OSError`).
    """
    try:
        import filelock
    except ImportError:
        warn_once("filelock", FILELOCK_MISSING)
        return OsFileLock(path, timeout=timeout)
    return filelock.FileLock(str(path), timeout=timeout)
