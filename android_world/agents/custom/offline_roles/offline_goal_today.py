"""Today's date as the episode's screens showed it, for goal clauses relative to it.

"Delete all events scheduled for this Thursday" names a day only with today's date, which no
calendar screen states (the month view marks today by colour alone). The home screen's date
line ("Sunday, October 15") and the Clock's ("Sun, Oct 15") state it in words, and an episode
starts on the home screen. The goal check reads today's date there, model-free:

- only a launcher or Clock screen counts (a calendar's day title "Thursday, October 19" is a
  date the agent went to, not today's), and only a text no one can tap or type into;
- the line names a weekday and a day of a month; its year is the latest one up to now in
  which that day falls on that weekday (the line gives none);
- two different dates on such screens, or none, leave today unknown, and so every clause
  relative to it stays unread (`unknown`), as before.

A weekday that is today's own ("this Sunday" said on a Sunday) may mean today or a week on:
it is left unresolved too.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence

from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.offline_common import WEEKDAY_DATE, weekday_year


def _dates_screen(observation: Observation) -> bool:
    """A screen whose date line is today's: the home screen or the Clock."""
    if screen.is_launcher(observation):
        return True
    return text_lib.activity_matches_app(observation.foreground_activity, "Clock")


def shown_today(screens: Sequence[Observation]) -> datetime.date | None:
    """Today's date as a home-screen or Clock date line showed it; None when no such line
    showed, or two showed different dates."""
    found: set[datetime.date] = set()
    for observation in screens:
        if not _dates_screen(observation):
            continue
        for i in screen.content_indices(observation):
            element = observation.ui_elements[i]
            raw = (element.text or "").strip()
            if not raw or element.is_clickable or element.is_editable:
                continue
            if not WEEKDAY_DATE.match(raw):
                continue
            year = weekday_year(raw)
            day = text_lib.parse_date(raw, default_year=year) if year else None
            if day is not None:
                found.add(day)
    return found.pop() if len(found) == 1 else None


def relative_day(phrase: str, today: datetime.date | None) -> datetime.date | None:
    """The day a phrase names ("2023-10-27", "this Thursday", "tomorrow"), relative ones
    from `today`; None when it names none, or today's own weekday (today or a week on?)."""
    cleaned = re.sub(r"[\s.!?;,]+$", "", phrase or "").strip()
    if today is not None:
        weekday = today.strftime("%A").casefold()
        if re.search(rf"\b{weekday}\b", cleaned.casefold()) and not re.search(r"\d", cleaned):
            return None
    return text_lib.parse_date(cleaned, today=today)
