"""What the plugin does when an optional package is missing: say so once, then carry on.

Inside an upstream AndroidWorld checkout only upstream's requirements may be installed, so
`pytesseract` (OCR) is optional. A missing one costs a feature, never the run: `ocr: auto` turns
OCR off. Each such fallback is announced by exactly one warning per process, through logging
(upstream's absl logging shows warnings), not once per episode or per agent. (Episodic memory
needs no optional package: it is the standard library's sqlite3.)
"""

from __future__ import annotations

import logging
import threading

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
