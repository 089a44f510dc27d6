"""The goal check of "Reply to the most recent text message with message: X": which conversation
was most recent, as the list's times showed it, and the reply sent in that conversation's thread.

The message's words being sent proves nothing about where they went: a reply typed and sent in
any thread reads the same to the value checks. So a reply to "the most recent" message or
conversation is `done` only when, model-free:

- a list seen before the first Send tap of the episode (a send reorders the list: the thread
  just written to comes first) showed which conversation was most recent, by the times its
  rows show ("15:33", "3:04 PM", "Yesterday", "Oct 14"): every row of the list carries one
  time, and either the rows run newest first with the top row strictly newest (a list ordered
  newest first), or the whole list was on the screen (nothing more below) and one row is
  strictly newest; no scroll ran before that screen, so its top row is the list's top row;
- every such list agrees on that row, and its name (the contact or number) is one row's only;
- the message was sent (a Send tap with the message in the screen's text field) on a screen
  whose header (the title bar's text) names that same contact or number.

A message sent only in threads whose headers name someone else is `unmet`. Anything else, no
list seen, times that cannot be compared, a tie, a header that cannot be read, is `unknown`:
the planner's confirmation decides, never `done` on a guess.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from android_world.agents.custom.celil_geometry import element_box
from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNKNOWN,
    GOAL_UNMET,
    GoalCheck,
    Observation,
    TrailStep,
)
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles import offline_wording as wording
from android_world.agents.custom.offline_roles.offline_elements import keyboard_top
from android_world.agents.custom.offline_roles.offline_goal_screens import held_texts, value_shown

# "Reply to the most recent text message", "respond to the latest conversation",
# "answer my newest SMS".
_RECENT_REPLY = re.compile(
    r"\b(?:reply|respond|answer)\b.*?\b(?:most\s+recent|latest|newest|last)\s+"
    r"(?:\w+\s+){0,2}?(?:messages?|texts?|sms|conversations?|threads?|chats?)\b",
    re.I,
)
_TAPS = ("click", "long_press", "double_tap")
_MOVES = ("scroll", "swipe")

# A row's time: "15:33", "3:04 PM" (today), "Yesterday", "Oct 14", "14 Oct", "Oct 14, 2023".
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?:\s*([ap])\.?\s?m\.?)?$", re.I)
_MONTH_NAMES = wording.MONTHS
_MONTH_DAY = re.compile(r"^([a-z]{3,9})\.?\s+(\d{1,2})(?:,?\s+(\d{4}))?$", re.I)
_DAY_MONTH = re.compile(r"^(\d{1,2})\s+([a-z]{3,9})\.?(?:,?\s+(\d{4}))?$", re.I)
_YESTERDAY = re.compile(r"^yesterday$", re.I)
_TODAY, _DAY_BEFORE, _DATED = 3, 2, 1


def parse_recent_reply(clause: str) -> bool:
    return bool(_RECENT_REPLY.search(clause))


def _month(name: str) -> int | None:
    """A month's number from its name or its abbreviation ("Oct", "Sept", "October")."""
    word = name.casefold()
    return next((i + 1 for i, m in enumerate(_MONTH_NAMES) if m.startswith(word)), None)


def time_key(text: str) -> tuple | None:
    """An order key of a row's time label (larger is newer), or None when it is no time.

    A clock time is today's (apps show today's messages by the time, older ones by the date);
    a date's key holds its year when it shows one, else None for the year (compared only with
    other dates: see `comparable`)."""
    raw = (text or "").strip()
    clock = _CLOCK.match(raw)
    if clock:
        hour, minute, half = int(clock.group(1)), int(clock.group(2)), clock.group(3)
        if minute > 59 or hour > 23 or (half and not 1 <= hour <= 12):
            return None
        if half:
            hour = hour % 12 + (12 if half.casefold() == "p" else 0)
        return (_TODAY, hour * 60 + minute)
    if _YESTERDAY.match(raw):
        return (_DAY_BEFORE, 0)
    for pattern, month_at, day_at in ((_MONTH_DAY, 1, 2), (_DAY_MONTH, 2, 1)):
        match = pattern.match(raw)
        if not match:
            continue
        month, day = _month(match.group(month_at)), int(match.group(day_at))
        if month is None or not 1 <= day <= 31:
            return None
        year = int(match.group(3)) if match.group(3) else None
        return (_DATED, year, month, day)
    return None


def comparable(keys: Sequence[tuple]) -> bool:
    """Dates without a year compare only among dates without one, within half a year of each
    other (a list spanning December and January cannot say which comes first)."""
    dated = [k for k in keys if k[0] == _DATED]
    years = {k[1] is None for k in dated}
    if len(years) > 1:
        return False
    if dated and dated[0][1] is None:
        months = [k[2] for k in dated]
        return max(months) - min(months) <= 6
    return True


def order_key(key: tuple) -> tuple:
    return tuple(-1 if v is None else v for v in key)


def row_texts(observation: Observation, item: Sequence[int]) -> list[tuple[int, str]]:
    """(index, text) of a list item's elements that show text."""
    elements = observation.ui_elements
    return [(i, t) for i in item if (t := screen.element_text(elements[i]))]


def one_time(texts: Sequence[tuple[int, str]]) -> tuple[int, tuple] | None:
    """(index, time key) of the row's only time label; None with none or two."""
    times = [(i, key) for i, t in texts if (key := time_key(t)) is not None]
    return times[0] if len(times) == 1 else None


def before_send_unmoved(trail: Sequence[TrailStep]) -> Sequence[TrailStep]:
    """The steps before the episode's first Send and its first scroll or swipe: a send reorders
    lists and threads, and a scroll hides their tops."""
    first_send = next((i for i, t in enumerate(trail) if sends(t)), len(trail))
    before = trail[:first_send]
    moved = next((i for i, t in enumerate(before) if t.action_type in _MOVES), len(before))
    return before[:moved]


def _list_rows(observation: Observation) -> list[tuple[str, tuple]] | None:
    """The rows of the screen's list as (name, time key), top to bottom; None when the screen
    is no list of timed rows (a screen with a text field is a thread or a form, not the list)."""
    if screen.form_fields(observation):
        return None
    elements = observation.ui_elements
    rows: list[tuple[str, tuple]] = []
    for item in screen.list_items(observation):
        texts = row_texts(observation, item)
        if not texts:
            continue  # a floating button over the list (a description, no text)
        timed = one_time(texts)
        if timed is None:
            return None  # a row without its time (or with two): the list cannot be read
        names = [(i, t) for i, t in texts if i != timed[0]]
        if not names:
            return None
        boxes = {i: element_box(elements[i], observation.screen_size) for i, _ in names}
        if any(b is None for b in boxes.values()):
            return None
        # The row's name is its first line: the topmost text, the leftmost of those.
        name = min(names, key=lambda n: (boxes[n[0]].y_min, boxes[n[0]].x_min))[1]
        rows.append((name, timed[1]))
    return rows or None


def newest_row(observation: Observation) -> str | None:
    """The name of the row the list shows most recent (see the module doc), or None."""
    rows = _list_rows(observation)
    if not rows:
        return None
    keys = [k for _, k in rows]
    if not comparable(keys):
        return None
    order = [order_key(k) for k in keys]
    names = [name_key(n) for n, _ in rows]
    # Every row on the screen: nothing below the list's edge, no keyboard over it.
    whole = screen.more_below(observation) is None and keyboard_top(observation) is None
    if len(rows) == 1:
        top = 0 if whole else None
    elif all(a >= b for a, b in itertools.pairwise(order)) and order[0] > order[1]:
        top = 0  # ordered newest first, the top row strictly newest
    elif whole:
        best = max(order)
        top = order.index(best) if order.count(best) == 1 else None
    else:
        top = None
    if top is None or names.count(names[top]) != 1:
        return None
    return rows[top][0]


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def name_key(text: str) -> str:
    """A contact's name by its words, a number by its last ten digits."""
    raw = (text or "").strip()
    if re.fullmatch(r"[\d\s().+-]+", raw) and len(_digits(raw)) >= 7:
        return "#" + _digits(raw)[-10:]
    return text_lib.normalize(raw)


def header_texts(observation: Observation) -> list[str]:
    """The texts of the screen's title bar (a thread's contact or number)."""
    size = observation.screen_size
    out = []
    for i in screen.content_indices(observation):
        element = observation.ui_elements[i]
        if screen.element_text(element) and screen.in_title_bar(element, size):
            out.append(screen.element_text(element))
    return out


def sends(step: TrailStep) -> bool:
    label = text_lib.normalize(step.target)
    return step.ok and step.action_type in _TAPS and label.split()[:1] == ["send"]


def _holds(observation: Observation, message: str | None) -> bool:
    """A text field on the screen holds the message (any words when the goal gives none)."""
    held = held_texts(observation)
    if message is None:
        return bool(held)
    return value_shown(message, held)


def _most_recent(trail: Sequence[TrailStep]) -> tuple[str | None, str]:
    """The most recent conversation's name as the lists before any send showed it, and why."""
    found = {newest_row(t.screen) for t in before_send_unmoved(trail)} - {None}
    if not found:
        return None, "no list seen before the reply showed which conversation was most recent"
    if len({name_key(n) for n in found if n}) != 1:
        return None, "the lists seen disagree on which conversation was most recent"
    return sorted(n for n in found if n)[0], ""


def recent_reply_checks(
    clauses: Sequence[str],
    message: str | None,
    trail: Sequence[TrailStep],
    current: Observation,
) -> list[GoalCheck]:
    """A check per "reply to the most recent ..." clause (see the module doc)."""
    del current  # the reply is read off the screens Send was tapped on
    return [_check(c, message, trail) for c in clauses if parse_recent_reply(c)]


def _check(clause: str, message: str | None, trail: Sequence[TrailStep]) -> GoalCheck:
    what = f"clause {clause[:60]!r}"
    sent = [t for t in trail if sends(t) and _holds(t.screen, message)]
    if not sent:
        return GoalCheck(what, GOAL_UNKNOWN, "the reply was not sent yet")
    newest, why = _most_recent(trail)
    if newest is None:
        return GoalCheck(what, GOAL_UNKNOWN, why)
    want = name_key(newest)
    headers = [[name_key(h) for h in header_texts(t.screen)] for t in sent]
    for step, names in zip(sent, headers):
        if want in names:
            why = f"sent at step {step.step} in the thread of {newest!r}, the most recent"
            return GoalCheck(what, GOAL_DONE, why)
    if all(headers):
        where = header_texts(sent[-1].screen)[0]
        why = f"sent in the thread of {where!r}; the most recent conversation was {newest!r}"
        return GoalCheck(what, GOAL_UNMET, why)
    return GoalCheck(what, GOAL_UNKNOWN, "the thread the reply was sent in shows no header")
