"""A value computed from a frame, kept by the frame object itself.

Both the agent's perception (a frame's digest) and the harness's PNG writer (a frame's key) see
the same read-only frame object again and again: the sim's renderer serves an unchanged screen
from its cache. Such a frame's pixels never change, so what was computed from them holds while
the object lives. The object is known by its id, checked by a weak reference, so a frame that is
gone never answers for a new one born at its address. Which frames may be kept is the caller's
rule; this only remembers.
"""

from __future__ import annotations

import collections
import threading
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

_Value = TypeVar("_Value")


class ByFrameObject(Generic[_Value]):
    """The values of the last `size` frame objects, least recently used dropped first."""

    def __init__(self, size: int):
        self.size = size
        self._items: collections.OrderedDict[int, tuple[weakref.ref, _Value]] = (
            collections.OrderedDict()
        )
        self._lock = threading.Lock()

    def get(self, frame: object, compute: Callable[[object], _Value]) -> tuple[_Value, bool]:
        """The frame's value and whether it was kept (False: computed now)."""
        with self._lock:
            entry = self._items.get(id(frame))
            if entry is not None and entry[0]() is frame:
                self._items.move_to_end(id(frame))
                return entry[1], True
        value = compute(frame)
        with self._lock:
            self._items[id(frame)] = (weakref.ref(frame), value)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value, False
