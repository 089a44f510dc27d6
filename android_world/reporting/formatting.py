"""Small value helpers of the report: numbers read from untrusted rows, and the formatters the
templates use as filters (`num`, `cost`, `pct`, `secs`)."""

from __future__ import annotations

import datetime
import math
from collections.abc import Sequence
from typing import Any

import jinja2

# Role names as the ledger writes them, and how the report labels them.
ROLE_LABELS = {
    "maestro": "planner (maestro)",
    "section_leader": "executor (section leader)",
    "verifiers": "verifiers",
    "vision_fallback": "vision fallback",
    "ocr": "OCR",
    "device": "device (execute)",
    "post_check": "settle + observe (post-check)",
    "other": "other (agent, harness)",
}


def _defined(value: Any) -> Any:
    """Template lookups of absent fields give jinja2's Undefined; the filters treat it as None."""
    return None if isinstance(value, jinja2.Undefined) else value


def fmt_num(value: Any, digits: int = 2) -> str:
    value = _defined(value)
    if value is None or value == "":
        return "–"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        if value.is_integer() and abs(value) >= 100:
            return f"{int(value):,}"
        return f"{value:,.{digits}f}"
    return str(value)


def fmt_cost(value: Any) -> str:
    value = _defined(value)
    if value is None:
        return "–"
    value = float(value)
    return f"${value:.4f}" if value < 1 else f"${value:,.2f}"


def fmt_pct(value: Any) -> str:
    value = _defined(value)
    return "–" if value is None else f"{100 * float(value):.0f}%"


def fmt_seconds(value: Any) -> str:
    value = _defined(value)
    if value is None:
        return "–"
    seconds = float(value)
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, sec = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {sec:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def mean_of(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def as_number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def parse_time(text: Any) -> datetime.datetime | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
