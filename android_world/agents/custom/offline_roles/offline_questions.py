"""Questions for the offline roles: what kind of reading of the screen answers a question (a total,
a day's items, the next item, a week, an item's attribute) and whether an answer has the form
the question asks for. Re-exported by offline_text."""

from __future__ import annotations

import dataclasses
import datetime
import re
from typing import Any

from android_world.agents.custom.offline_roles.offline_dates import (
    _DATE_PHRASE,
    day_phrase,
    parse_clock,
)
from android_world.agents.custom.offline_roles.offline_words import (
    words,
)

# --------------------------------------------------------------------------------------------
# Questions: what kind of reading of the screen answers them

_TOTAL = re.compile(
    r"\b(?:total|sum)\b(?:\s+(?:amount|cost|value|spent))?\s+(?:of|on|for|in)\s+"
    r"(?:all\s+)?(?:my\s+|the\s+)?(?P<qualifier>.+?)\s+"
    r"(?P<object>expenses|expense|purchases|payments|transactions|costs|spending|bills|items)\b",
    re.I,
)
_NEXT = re.compile(r"\b(?:next|upcoming|soonest)\b", re.I)
_WEEK = re.compile(r"\b(next|this|last|coming|following|current)\s+week\b", re.I)


def week_span(which: str, today: datetime.date) -> tuple[datetime.date, datetime.date]:
    """Monday and Sunday of "this" week, the "last" one or the "next" one (weeks start on
    Monday)."""
    monday = today - datetime.timedelta(days=today.weekday())
    if which == "last":
        monday -= datetime.timedelta(days=7)
    elif which not in ("this", "current"):
        monday += datetime.timedelta(days=7)
    return monday, monday + datetime.timedelta(days=6)


@dataclasses.dataclass(frozen=True)
class Question:
    """How to read a question: `total` sums the amounts of the list items naming `qualifier`;
    `day` lists the items of the day `day` names; `next` finds the earliest item from now;
    `week` reads the dated items of the week `qualifier` names ("next", Monday to Sunday).

    A day question may narrow the day by time (`when`): "at" an instant (items whose span covers
    it), "after" a time (the first items starting then or later), "between" two times (items
    starting inside the window); `times` holds the (hour, minute) bounds."""

    kind: str  # total, day, next, week, other
    qualifier: str = ""
    day: str | None = None
    when: str = ""  # "", "at", "after", "between"
    times: tuple[tuple[int, int], ...] = ()

    def keeps(self, start: tuple[int, int], end: tuple[int, int]) -> bool:
        """Whether an item from `start` to `end` (an end past midnight counts as 24:00) fits
        the question's time narrowing; "after" keeps every later item, the caller takes the
        earliest."""
        end = end if end >= start else (24, 0)
        if self.when == "at":
            return start <= self.times[0] <= end
        if self.when == "after":
            return start >= self.times[0]
        if self.when == "between":
            return self.times[0] <= start <= self.times[1]
        return True

    @property
    def needs_today(self) -> bool:
        """Whether the answer depends on today's date, which the screen must first show."""
        if self.kind in ("next", "week"):
            return True
        return self.kind == "day" and not _DATE_PHRASE.search(self.day or "")


# Other ways to ask for a sum: "how much did I spend on X", "add up all X expenses", "what do
# my X expenses come to", "total spent on the X category".
_SPENT_END = (
    r"(?:\s+(?:category|expenses?|items?|purchases?))?(?=\s+(?:in|on|at|using|from)\b|[?.,;(]|$)"
)
_TOTAL_FORMS = (
    re.compile(
        r"\bhow\s+much\s+(?:did|do|have|had)\s+i\s+(?:spen[dt]|paid|pay)\s+(?:in\s+total\s+)?"
        rf"(?:on|for)\s+(?:the\s+|my\s+|all\s+)?(?P<qualifier>.+?){_SPENT_END}",
        re.I,
    ),
    re.compile(
        r"\b(?:add|sum|total)\s+up\s+(?:all\s+)?(?:the\s+|my\s+|of\s+)?(?P<qualifier>.+?)\s+"
        r"(?:expenses|purchases|payments|transactions|costs|items)\b",
        re.I,
    ),
    re.compile(
        r"\b(?:my|the|all)\s+(?P<qualifier>.+?)\s+(?:expenses|purchases|payments|costs)\s+"
        r"(?:add\s+up|come\s+to|sum\s+to|total)\b",
        re.I,
    ),
    re.compile(
        r"\btotal\s+(?:spent|spending|cost|paid)\s+(?:on|for)\s+(?:the\s+|my\s+)?"
        rf"(?P<qualifier>.+?){_SPENT_END}",
        re.I,
    ),
)


_ATTRIBUTE = re.compile(
    r"\b(?:what(?:'s|\s+is|\s+was)|tell\s+me|give\s+me|find)\s+the\s+(?P<attr>[a-z]+(?:\s+[a-z]+)?)\s+of\s+(?:my\s+|the\s+)?"
    r"(?P<item>.+?)\s+(?P<object>event|appointment|meeting|note|contact|expense|task|recipe|file)\b"
    r"(?!\s+(?:event|appointment|meeting)\b)",  # "my Doctor's appointment event": the title is whole
    re.I,
)


_WHERE = re.compile(
    r"\bwhere\s+(?:is|'s|does)\s+(?:my|the)\s+(?P<item>.+?)\s+"
    r"(?P<object>event|appointment|meeting)\b(?!\s+(?:event|appointment|meeting)\b)",
    re.I,
)


def attribute_question(goal: str) -> tuple[str, str] | None:
    """(attribute, item) of "What is the location of my Team lunch event?" (or "Where is my
    Team lunch event?"): a field of one item, read where the item is opened."""
    text = " ".join((goal or "").split())
    where = _WHERE.search(text)
    if where:
        item = where.group("item").strip(" '\"")
        return ("location", item) if item else None
    match = _ATTRIBUTE.search(text)
    if not match:
        return None
    item = match.group("item").strip(" '\"")
    return (match.group("attr").casefold(), item) if item else None


_WHEN_WITH = re.compile(
    r"(?i:\bwhen(?:\s+is|'s|\s+)\s*(?:my|the)\s+(?:next\s+|upcoming\s+)?(?:[\w-]+\s+)?"
    r"(?:meeting|event|appointment|call|session)\s+with)\s+(?P<who>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)",
)


def when_with_question(goal: str) -> str | None:
    """Who "When is my next meeting with Mia?" is about: the item to search for; the answer is
    its date and start time."""
    match = _WHEN_WITH.search(" ".join((goal or "").split()))
    return match.group("who") if match else None


def parse_question(goal: str) -> Question:
    text = " ".join((goal or "").split())
    if when_with_question(text):
        return Question("other")  # found by searching for the person, not by date
    total = _TOTAL.search(text) or next((m for p in _TOTAL_FORMS if (m := p.search(text))), None)
    if total:
        return Question("total", qualifier=total.group("qualifier").strip())
    week = _WEEK.search(text)
    if week:  # "in the next week" (weeks start on Monday): read a list of that week's days
        return Question("week", qualifier=week.group(1).casefold(), day=week.group(0).lower())
    day = day_phrase(text)
    if _NEXT.search(text) and not day:
        return Question("next")
    if day:
        return Question("day", day=day, **_time_narrowing(text))
    return Question("other")


_CLOCK_WORD = r"\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?|h)?"
_BETWEEN_TIMES = re.compile(rf"\bbetween\s+({_CLOCK_WORD})\s+and\s+({_CLOCK_WORD})", re.I)
_AFTER_TIME = re.compile(rf"\b(?:after|from|since)\s+({_CLOCK_WORD})(?![\w:])", re.I)
_AT_TIME = re.compile(rf"\bat\s+({_CLOCK_WORD})(?![\w:])", re.I)


def _time_narrowing(text: str) -> dict[str, Any]:
    """The time part of a day question: "between 4pm and 8pm", "after 16:15", "at 9:45am"."""
    between = _BETWEEN_TIMES.search(text)
    if between:
        lo, hi = parse_clock(between.group(1)), parse_clock(between.group(2))
        if lo is not None and hi is not None:
            return {"when": "between", "times": (lo, hi)}
    for word, pattern in (("after", _AFTER_TIME), ("at", _AT_TIME)):
        match = pattern.search(text)
        clock = parse_clock(match.group(1)) if match else None
        if clock is not None:
            return {"when": word, "times": (clock,)}
    return {}


# The question wants a number: "as a single integer", "A single number, please", "reply with a
# number", "Just the number", "answer in meters", or a count ("how many", "the number of").
_SINGLE_NUMBER = re.compile(
    r"(?<!phone )\b(?:a|an|one|single|just\s+the|only\s+the)\s+(?:single\s+)?"
    r"(?:whole\s+)?(?:integer|number)\b(?!\s+of\b)"
    r"|\b(?:answer|reply|respond|express\w*)\s+(?:\w+\s+)?in\s+"
    r"(?:meters|metres|kilometers|km|miles|minutes|seconds|hours|days)\b",
    re.I,
)
_COUNT = re.compile(r"\b(?:how\s+many|(?:the|what)\s+number\s+of|(?:the\s+)?count\s+of)\b", re.I)
# "How many minutes did it last": a measure, which no list reader counts.
_MEASURE = re.compile(
    r"\bhow\s+many\s+(?:minutes|seconds|hours|days|meters|metres|kilometers|km|miles|steps|"
    r"calories|kcal)\b",
    re.I,
)
# Two answers to choose from: "either 'True' or 'False'", "a to-do (True) or a note (False)".
_EITHER = re.compile(r"\beither '([^']+)'.*?\bor '([^']+)'", re.I | re.S)
_EITHER_PARENS = re.compile(r"\(([^()]{1,20})\)[^()]{0,60}?\bor\b[^()]{0,60}?\(([^()]{1,20})\)")
_AMOUNT_UNIT = re.compile(r"\bin the format <amount> <unit>", re.I)
_ONLY = re.compile(r"\banswer with the ([a-z ]+?) only\b", re.I)
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_AMOUNT = re.compile(r"\d+(?:[./]\d+)?(?:\s+\d+/\d+)?\s+[a-z]+", re.I)
# A list part made of figures and units ("2.17 mi · 2:15:00"): a row's measurements, no title.
_MEASUREMENTS = re.compile(
    r"[\d\s.,:·•|/+-]*(?:(?:mi|km|m|ft|mph|min|h|hr|hrs|s|sec)\b[\d\s.,:·•|/+-]*)*"
)
# What a question asks for other than titles: "the activity types", "what kinds of ...".
_OTHER_THAN_TITLES = re.compile(r"\b(?:types?|kinds?|categor(?:y|ies))\b", re.I)


def asks_for_count(goal: str) -> bool:
    """A question whose answer is how many items fit ("how many tasks", "the number of
    to-dos"), not a measure ("how many minutes did it last")."""
    return bool(_COUNT.search(goal or "")) and not _MEASURE.search(goal or "")


def asks_for_number(goal: str) -> bool:
    """A question whose answer is one number: a count, a measure, or one it says is a number."""
    text = " ".join((goal or "").split())
    return bool(_COUNT.search(text) or _SINGLE_NUMBER.search(text))


def _choices(goal: str) -> set[str] | None:
    either = _EITHER.search(goal) or _EITHER_PARENS.search(goal)
    return {either.group(1).casefold(), either.group(2).casefold()} if either else None


def _measurements_only(part: str) -> bool:
    """Figures with units ("2.17 mi · 2:15:00"); a bare time or number ("13:30") may answer."""
    text = part.strip().casefold()
    has_unit = any(c.isalpha() for c in text)
    return has_unit and any(c.isdigit() for c in text) and bool(_MEASUREMENTS.fullmatch(text))


def answer_fits(goal: str, answer: str) -> bool:
    """Whether an answer has the form the question prescribes ("as a single integer", "either
    'True' or 'False'", "in the format <amount> <unit>"): a screen line or a list of titles of
    another form is not the answer, so no question is claimed answered with it. A list whose
    parts are a row's figures ("2.17 mi · 2:15:00") answers no question of names or kinds."""
    answer = (answer or "").strip()
    if not answer:
        return False
    if asks_for_number(goal) and not _NUMBER.fullmatch(answer):
        return False
    choices = _choices(goal)
    if choices and answer.casefold() not in choices:
        return False
    if _AMOUNT_UNIT.search(goal) and not _AMOUNT.fullmatch(answer):
        return False
    return asks_for_number(goal) or not any(_measurements_only(p) for p in answer.split(","))


def is_qualifier_label(text: str) -> bool:
    """A row's label that qualifies items ("High priority", "Completed"), not an item's title."""
    found = words(text)
    return bool(found) and all(w in _COUNTED_BY_READERS for w in found)


def asks_for_titles(goal: str) -> bool:
    """A question whose answer is items' titles (or says nothing of what it wants): what the
    readers of listed items answer with. "Answer with the activity type only" asks for
    something else."""
    only = _ONLY.search(goal)
    if only is not None:
        return only.group(1).strip().casefold() in ("title", "titles", "name", "names")
    return not _OTHER_THAN_TITLES.search(goal or "")


_HOW_MANY = re.compile(
    r"\bhow many ((?:[\w-]+ )*?)[\w-]+ (?:do|did|does|are|were|have|has)\b", re.I
)
# "the number of hiking activities in ...", "what number of tasks are due": the same words.
_NUMBER_OF = re.compile(
    r"\b(?:the|what)\s+number\s+of\s+((?:[\w-]+ )*?)[\w-]+"
    r"(?= (?:do|did|does|are|were|have|has|due|in|on|for|from|this|that|i|you)\b)",
    re.I,
)
_COUNTED_BY_READERS = frozenset(
    {"high", "low", "medium", "priority", "completed", "incomplete", "open", "done", "unfinished"}
)


def count_qualifier(goal: str) -> str:
    """Words that narrow what a "how many" question counts beyond what the list readers check
    (a date, a priority label, a check box): "hiking" in "How many hiking activities did I do
    this week"; "" when there are none."""
    match = _HOW_MANY.search(goal) or _NUMBER_OF.search(goal)
    if match is None:
        return ""
    return " ".join(w for w in match.group(1).split() if w.casefold() not in _COUNTED_BY_READERS)
