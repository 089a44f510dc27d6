"""Reading one item's facts off the screen for the offline roles: a field of an opened item
("the location of my X event"), the day and start of a searched item ("when is my next meeting
with X"), and the items a list shows under day headers (a week read from a list view).

Pure functions of an observation, so the executor's reading and the tests share them.
"""

from __future__ import annotations

import datetime
import re

from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib

_TIME_SPAN = re.compile(r"^\s*(\d{1,2}:\d{2})\s*[-–]\s*(\d{1,2}:\d{2})\s*$")
_WEEKDAY_NAME = re.compile(r"\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\b", re.I)


def read_attribute(obs: Observation, attribute: str, item: str) -> tuple[str, str] | None:
    """The value of the field named `attribute` once the item is open (a form showing it)."""
    key = text_lib.normalize(item)
    if not any(
        text_lib.normalize(screen.field_text(obs.ui_elements[i])) == key
        for i in screen.form_fields(obs)
    ):
        return None
    terms = text_lib.field_terms(attribute)
    for i in screen.form_fields(obs):
        value = screen.field_text(obs.ui_elements[i])
        names = screen.element_names(obs, i)
        if value and max((text_lib.label_relevance(terms, n) for n in names), default=0) >= 0.8:
            return value, f"the {attribute} field of {item!r} holds {value!r}"
    return None


# A week reads best from a list of days: the control that changes the view, and the list view.
VIEW_WORDS = frozenset({"view", "views"})
LIST_VIEW_WORDS = frozenset({"list", "agenda", "schedule"})
ALL_VIEW_WORDS = VIEW_WORDS | LIST_VIEW_WORDS


def listed_days(obs: Observation) -> list[tuple[datetime.date, str]]:
    """(day, title) of the items a list shows under day headers ("Monday, October 16, 2023")."""
    found: list[tuple[datetime.date, str]] = []
    day = None
    year = screen.shown_year(obs)
    for item in screen.list_items(obs):
        for text in screen.item_texts(obs, item):
            if _TIME_SPAN.match(text):
                continue
            header = text_lib.parse_date(text, default_year=year) if len(text) < 40 else None
            if header is not None and _WEEKDAY_NAME.search(text):
                day = header
            elif day is not None:
                found.append((day, text))
                break
    return found


def read_when_with(obs: Observation, who: str) -> tuple[str, str] | None:
    """The date and start of the first listed item naming `who`, under its day header
    ("Monday, October 16, 2023" then "Drinks with Mia" / "13:30 - 14:00")."""
    day = None
    year = screen.shown_year(obs)
    for item in screen.list_items(obs):
        for text in screen.item_texts(obs, item):
            header = text_lib.parse_date(text, default_year=year) if len(text) < 40 else None
            if header is not None and not _TIME_SPAN.match(text):
                day = header
        texts = screen.item_texts(obs, item)
        span = next((m for t in texts if (m := _TIME_SPAN.match(t))), None)
        named = any(text_lib.phrase_in(who, t) for t in texts if not _TIME_SPAN.match(t))
        start = text_lib.parse_clock(span.group(1)) if span else None
        if day is not None and named and start is not None:
            when = f"{day:%B} {day.day} {day.year} {start[0]:02d}:{start[1]:02d}"
            return when, f"the item with {who} starts {when}"
    return None
