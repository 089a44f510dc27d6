"""Checking an agent's answer to an information-retrieval question, with upstream's rules.

Upstream (`proto_utils.check_agent_answer`) splits the answer on commas and strips each part,
casts the parts by the expectation's match type (strings; numbers as floats; dates
'%B %d %Y'; times '%H:%M'; date and time together), then requires the same number of parts as
expected answers and every part to match some expected answer, in any order. Strings match
fuzzily (difflib ratio >= 0.9, case-insensitive); numbers may allow an absolute tolerance. An
unparseable answer scores 0, and so does an empty one.
"""

from __future__ import annotations

import datetime
import difflib
import enum
from collections.abc import Callable, Sequence
from typing import Any

DATE_FORMAT = "%B %d %Y"
TIME_FORMAT = "%H:%M"
FUZZY_THRESHOLD = 0.9


class MatchType(enum.Enum):
    STRING = "string"
    NUMBER = "number"
    DATE = "date"
    TIME = "time"
    DATE_TIME = "date_time"


def fuzzy_match(
    a: Any, b: Any, ignore_case: bool = True, threshold: float = FUZZY_THRESHOLD
) -> bool:
    """Upstream's `fuzzy_match_lib.fuzzy_match`: SequenceMatcher ratio at or above 0.9."""
    if a is None or b is None:
        return False
    left, right = str(a), str(b)
    if ignore_case:
        left, right = left.lower(), right.lower()
    return difflib.SequenceMatcher(None, left, right).ratio() >= threshold


def split_answer(answer: str) -> list[str]:
    return [part.strip() for part in answer.split(",")]


def cast(match_type: MatchType, value: Any) -> Any:
    """One value as the match type compares it; ValueError when it does not parse."""
    if match_type is MatchType.STRING:
        return str(value)
    if match_type is MatchType.NUMBER:
        if isinstance(value, bool):
            raise ValueError(f"Not a number: {value!r}")
        return float(value)
    if match_type is MatchType.DATE:
        if isinstance(value, datetime.datetime):
            return value.date()
        if isinstance(value, datetime.date):
            return value
        return datetime.datetime.strptime(str(value), DATE_FORMAT).date()
    if match_type is MatchType.TIME:
        if isinstance(value, datetime.time):
            return value.replace(second=0, microsecond=0)
        if isinstance(value, datetime.datetime):
            return value.time().replace(second=0, microsecond=0)
        return datetime.datetime.strptime(str(value), TIME_FORMAT).time()
    if match_type is MatchType.DATE_TIME:
        if isinstance(value, datetime.datetime):
            return value.replace(second=0, microsecond=0, tzinfo=None)
        return datetime.datetime.strptime(str(value), f"{DATE_FORMAT} {TIME_FORMAT}")
    raise ValueError(f"Unknown match type {match_type!r}")


def comparator(match_type: MatchType, tolerance: float | None = None) -> Callable[[Any, Any], bool]:
    if match_type is MatchType.STRING:
        return fuzzy_match
    if match_type is MatchType.NUMBER and tolerance is not None:
        return lambda x, y: abs(x - y) < tolerance
    return lambda x, y: x == y


def check_answer(
    answer: str,
    expected: Sequence[Any],
    match_type: MatchType,
    tolerance: float | None = None,
) -> bool:
    """True when the answer matches the expected values; ValueError if a part does not parse."""
    parts = [cast(match_type, part) for part in split_answer(answer)]
    wanted = [cast(match_type, value) for value in expected]
    if len(parts) != len(wanted):
        return False
    same = comparator(match_type, tolerance)
    return all(any(same(part, value) for value in wanted) for part in parts)


def score_answer(
    interaction_cache: str | None,
    expected: Sequence[Any],
    match_type: MatchType,
    tolerance: float | None = None,
) -> float:
    """Upstream's `InformationRetrieval.is_successful`: 0.0 for no answer or a malformed one."""
    if not interaction_cache:
        return 0.0
    try:
        return 1.0 if check_answer(interaction_cache, expected, match_type, tolerance) else 0.0
    except ValueError:
        return 0.0
