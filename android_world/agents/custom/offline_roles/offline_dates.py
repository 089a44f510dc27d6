"""Dates, times and durations for the offline roles: what a goal's "tomorrow at 3pm for 30 minutes"
means and what a form's pickers and a calendar's screens show. Re-exported by offline_text."""

from __future__ import annotations

import dataclasses
import datetime
import re

from android_world.agents.custom.offline_roles import offline_wording as wording

_MONTHS = wording.MONTHS
# --------------------------------------------------------------------------------------------
# Dates, times and durations: what a form's pickers and a calendar's screens show

_WEEKDAYS = wording.WEEKDAYS
_MONTH_NAMES = "|".join(_MONTHS)
_MONTH_WORD = rf"(?:{_MONTH_NAMES}|{'|'.join(m[:3] for m in _MONTHS)})\.?"
_DATE_PHRASE = re.compile(
    rf"\b\d{{4}}-\d{{1,2}}-\d{{1,2}}\b|\b{_MONTH_WORD}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b",
    re.I,
)
_RELATIVE_DAY = re.compile(
    rf"\b(today|tomorrow|yesterday|(?:(?:this|next|the)\s+)?(?:{'|'.join(_WEEKDAYS)})"
    r"(?:\s+after\s+next)?)\b",
    re.I,
)
_CLOCK = re.compile(r"^\s*(\d{1,2})(?:[:.](\d{2}))?\s*(h|hrs?|o'?clock|[ap]\.?\s?m\.?)?\s*$", re.I)
_WHEN_TIME = re.compile(
    r"\bat\s+(\d{1,2}(?::\d{2})?\s*(?:h|[ap]\.?m\.?|o'clock)(?![\w])|\d{1,2}:\d{2})", re.I
)
_WHEN_DURATION = re.compile(
    r"\b(?:last(?:s|ing)?|duration\s+(?:of|is|:)|should\s+take|takes|for)\s+(?:for\s+)?"
    r"(?:about\s+)?"
    r"(\d+(?:\.\d+)?\s*(?:minutes?|mins?|hours?|hrs?|h)\b)",
    re.I,
)
# "45 minutes long", "30 minutes each time": a duration written after its number.
_DURATION_AFTER = re.compile(
    r"\b(\d+(?:\.\d+)?\s*(?:minutes?|mins?|hours?|hrs?))\s+"
    r"(?:long|each(?:\s+time|\s+occurrence)?|in\s+length)\b",
    re.I,
)
# "at 14:00, 30 minutes, description ...": a duration listed on its own among the event's facts.
_DURATION_ITEM = re.compile(
    r"(?<=,)\s*(\d+(?:\.\d+)?\s*(?:minutes?|mins?|hours?|hrs?))\s*(?=[,;]|\.(?:\s|$)|$)", re.I
)
_MINUTES = re.compile(r"(\d+(?:\.\d+)?)\s*(minutes?|mins?|m|hours?|hrs?|h)\b", re.I)


@dataclasses.dataclass(frozen=True)
class When:
    """When a thing the goal creates should happen, each part as the goal writes it."""

    date: str | None = None
    time: str | None = None
    duration: str | None = None


# A day relative to today, as a goal to create something gives it: "for tomorrow", "for this
# Thursday", "in two weeks from today", "in 3 days".
_NUMBER_WORDS = ("a", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_COUNT = rf"(?:\d{{1,2}}|{'|'.join(_NUMBER_WORDS)})"
_RELATIVE_WHEN = re.compile(
    rf"\b(?:(?:for|on)\s+)?(today|tomorrow|(?:this|next)\s+(?:{'|'.join(_WEEKDAYS)}))\b"
    rf"|\b(?:for|on)\s+({'|'.join(_WEEKDAYS)})\b"
    rf"|\b((?:in\s+)?{_COUNT}\s+(?:days?|weeks?)\s+from\s+(?:today|now)"
    rf"|in\s+{_COUNT}\s+(?:days?|weeks?))\b",
    re.I,
)
_IN_DAYS = re.compile(rf"^(?:in\s+)?({_COUNT})\s+(days?|weeks?)(?:\s+from\s+(?:today|now))?$", re.I)


def is_relative_day(text: str | None) -> bool:
    """Whether a date phrase needs today's date to mean a day ("tomorrow", "this Friday")."""
    return bool(text) and parse_date(text) is None and parse_date(text, _ANY_DAY) is not None


_ANY_DAY = datetime.date(2000, 1, 3)  # only to test whether a phrase is relative


def parse_when(goal: str) -> When | None:
    """The date, start time and duration a goal gives ("on 2023-10-27 at 13h ... for 15 mins"),
    the date possibly relative to today ("for tomorrow", "in two weeks from today")."""
    date = _DATE_PHRASE.search(goal)
    if date is None:
        relative = _RELATIVE_WHEN.search(goal)
        if relative is not None:
            return _when(goal, next(g for g in relative.groups() if g))
    return _when(goal, date.group(0) if date else None)


def _when(goal: str, date: str | None) -> When | None:
    time = _WHEN_TIME.search(goal)
    duration = (
        _WHEN_DURATION.search(goal) or _DURATION_AFTER.search(goal) or _DURATION_ITEM.search(goal)
    )
    if not (date or time or duration):
        return None
    return When(
        date,
        time.group(1).strip().rstrip(".") if time else None,
        duration.group(1).strip() if duration else None,
    )


def parse_clock(text: str | None) -> tuple[int, int] | None:
    """(hour, minute) of "13h", "13:05", "1:30 pm", "4pm", "12am"; None for anything else."""
    match = _CLOCK.match(text or "")
    if not match:
        return None
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    suffix = (match.group(3) or "").casefold().replace(".", "").replace(" ", "")
    if not match.group(2) and not suffix:
        return None  # a bare number is not a time
    if suffix in ("am", "pm"):
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if suffix == "pm" else 0)
    if hour > 23 or minute > 59:
        return None
    return hour, minute


def duration_minutes(text: str | None) -> int | None:
    """Minutes in "15 mins", "1 hour", "1.5 hours", "90 m"."""
    match = _MINUTES.search(text or "")
    if not match:
        return None
    amount = float(match.group(1))
    return round(amount * 60) if match.group(2).casefold().startswith("h") else round(amount)


def parse_date(
    text: str | None, today: datetime.date | None = None, default_year: int | None = None
) -> datetime.date | None:
    """The day a text names: "2023-10-27", "October 27 2023", "Sun, Oct 15, 2023", "Wednesday,
    October 18" (year from `default_year`, else `today`), or relative to `today` ("tomorrow",
    "Wednesday" = the coming one, "the Wednesday after next")."""
    raw = (text or "").strip()
    lowered = raw.casefold()
    match = re.search(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b", raw)
    if match:
        return _safe_date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    match = re.search(
        rf"\b({_MONTH_WORD})\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b", raw, re.I
    )
    if match:
        month = _month_number(match.group(1))
        year = match.group(3) or default_year or (today.year if today else None)
        if month and year:
            return _safe_date(int(year), month, int(match.group(2)))
        return None
    if today is None:
        return None
    offsets = {"today": 0, "tomorrow": 1, "yesterday": -1}
    if lowered in offsets:
        return today + datetime.timedelta(days=offsets[lowered])
    match = _IN_DAYS.match(lowered)
    if match:
        count = match.group(1)
        n = int(count) if count.isdigit() else max(1, _NUMBER_WORDS.index(count))
        return today + datetime.timedelta(days=n * (7 if match.group(2).startswith("w") else 1))
    match = re.fullmatch(
        rf"(?:(this|next|the)\s+)?({'|'.join(_WEEKDAYS)})(\s+after\s+next)?", lowered
    )
    if match:
        ahead = (_WEEKDAYS.index(match.group(2)) - today.weekday()) % 7 or 7
        if match.group(3):
            ahead += 7
        return today + datetime.timedelta(days=ahead)
    return None


def _safe_date(year: int, month: int, day: int) -> datetime.date | None:
    try:
        return datetime.date(year, month, day)
    except ValueError:
        return None


def _month_number(word: str) -> int | None:
    key = word.casefold().rstrip(".")[:3]
    names = [m[:3] for m in _MONTHS]
    return names.index(key) + 1 if key in names else None


def parse_month_title(text: str | None) -> tuple[int, int] | None:
    """(year, month) of a month header such as "October 2023"."""
    match = re.fullmatch(rf"\s*({_MONTH_WORD})\s+(\d{{4}})\s*", text or "", re.I)
    if not match:
        return None
    month = _month_number(match.group(1))
    return (int(match.group(2)), month) if month else None


def day_phrase(goal: str) -> str | None:
    """The day a question asks about, as written: a date, or "today", "Wednesday", ..."""
    match = _DATE_PHRASE.search(goal) or _RELATIVE_DAY.search(goal)
    return match.group(0) if match else None
