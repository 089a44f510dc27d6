"""A JSON-safe copy of episode data, for our checkpoints and upstream's alike.

Its own module so that `checkpointer` (our JSON files) and `upstream_checkpoints` (upstream's
pickles) both use it without importing each other.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
from pathlib import Path
from typing import Any


def to_jsonable(value: Any) -> Any:
    """A JSON-safe copy: arrays become a short description, NaN/inf become None.

    Agents promise JSON-serialisable step data, but agents written for upstream put screenshots
    and dataclasses in it; dropping those beats failing to save a finished episode.
    """
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_jsonable(dataclasses.asdict(value))
    if isinstance(value, datetime.datetime | datetime.date):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    shape = getattr(value, "shape", None)
    if shape is not None and hasattr(value, "dtype"):
        if shape == ():
            return to_jsonable(value.item())
        return f"<array shape={tuple(shape)} dtype={value.dtype}>"
    as_dict = getattr(value, "as_dict", None)
    if callable(as_dict):
        return to_jsonable(as_dict())
    return repr(value)
