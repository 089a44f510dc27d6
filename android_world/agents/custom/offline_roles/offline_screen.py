"""Reading a screen for the offline roles: history, dates, lists (elements: offline_elements).

The offline roles cannot look at pixels with understanding, so they read the accessibility
elements (and OCR lines when there are any) and the agent's own step history from the context
summary. These helpers are pure functions of an `Observation` or of text, shared by the offline
planner, executor and verifier so that all three judge a screen the same way.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Sequence

from android_world.agents.custom.celil_geometry import element_box, element_label
from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.offline_elements import (
    _DECLINE_PERMISSION as _DECLINE_PERMISSION,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    DECLINE_LABELS as DECLINE_LABELS,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    SEARCH_WORDS as SEARCH_WORDS,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    YES_LABELS as YES_LABELS,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    Element as Element,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    confirm_button as confirm_button,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    content_indices as content_indices,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    dialog_accept as dialog_accept,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    digit_button as digit_button,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    drop_downs as drop_downs,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    element_names as element_names,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    field_text as field_text,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    fields as fields,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    find_field as find_field,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    find_slider as find_slider,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    find_switch as find_switch,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    find_text as find_text,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    form_fields as form_fields,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    grant_button as grant_button,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    in_status_bar as in_status_bar,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    in_title_bar as in_title_bar,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    interruption_button as interruption_button,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    is_field as is_field,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    is_launcher as is_launcher,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    is_slider as is_slider,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    is_switch as is_switch,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    is_system as is_system,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    keypad_digits as keypad_digits,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    labels as labels,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    launcher_labels as launcher_labels,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    more_below as more_below,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    relevance as relevance,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    repeated_rows as repeated_rows,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    row_label as row_label,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    screen_signature as screen_signature,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    screen_text as screen_text,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    shows_empty_list as shows_empty_list,
)
from android_world.agents.custom.offline_roles.offline_elements import (
    slider_at as slider_at,
)

# --------------------------------------------------------------------------------------------
# The agent's own history, as the context summary renders it


@dataclasses.dataclass(frozen=True)
class PastStep:
    step: int
    sub_goal: str
    action: str
    outcome: str

    @property
    def ok(self) -> bool:
        return self.outcome.startswith("ok")


_STEP_LINE = re.compile(
    r"^step (\d+): \[(.*?)\] (.*?) -> (.*?)(?: \(verifier [\d.]+\))?(?: - .*)?$", re.DOTALL
)
_STEP_START = re.compile(r"^step \d+: \[")
# The steps and facts sit in a `<screen_data>` block (celil_untrusted); its tags end a section.
_SECTION = re.compile(
    r"^(?:(?:Task goal|Plan|Recent steps|Facts|Current sub-goal)\b|</?screen_data>)"
)
_GOAL_LINE = re.compile(
    r"^Task goal:[ \t]*(.*?)"
    r"(?=\n(?:Plan:|Recent steps:|Facts:|Current sub-goal|</?screen_data>)|\Z)",
    re.MULTILINE | re.DOTALL,
)


def parse_history(context_summary: str) -> list[PastStep]:
    """The steps of the summary; a step whose sub-goal or typed text spans lines is one step."""
    records: list[str] = []
    open_record = False
    for line in (context_summary or "").splitlines():
        stripped = line.strip()
        if _STEP_START.match(stripped):
            records.append(stripped)
        elif open_record and not _SECTION.match(stripped):
            records[-1] += "\n" + line
        else:
            open_record = False
            continue
        # Only the sub-goal and the action can span lines; the outcome after "->" cannot.
        open_record = " -> " not in records[-1]
    steps = []
    for record in records:
        match = _STEP_LINE.match(record)
        if match:
            steps.append(
                PastStep(int(match.group(1)), match.group(2), match.group(3), match.group(4))
            )
    return steps


def goal_from_context(context_summary: str) -> str:
    match = _GOAL_LINE.search(context_summary or "")
    return match.group(1).strip() if match else ""


def closed_interruption(step: PastStep, sub_goal_key: str = "") -> bool:
    """A step that only declined a pop-up (Not now, Got it, Don't allow): it was taken during
    the sub-goal but did nothing for it, unless the sub-goal names that very button."""
    labels = re.findall(r""""([^"]+)"|'([^']+)'""", step.action)
    labels = [double or single for double, single in labels]
    declined = [
        text_lib.normalize(label)
        for label in labels
        if text_lib.normalize(label) in (*DECLINE_LABELS, *_DECLINE_PERMISSION)
    ]
    return bool(declined) and not any(label in sub_goal_key for label in declined)


def acted_on(
    history: Sequence[PastStep],
    sub_goal: str,
    kinds: Sequence[str] = (),
    allow_unchanged: bool = False,
) -> PastStep | None:
    """The latest successful step taken for this sub-goal (of one of `kinds`, when given).

    `allow_unchanged` also counts a step that ran but left the screen as it was (a Save button
    that saves in place does that).
    """
    key = text_lib.normalize(sub_goal)
    for step in reversed(history):
        if text_lib.normalize(step.sub_goal) != key or closed_interruption(step, key):
            continue
        unchanged = allow_unchanged and "did not change" in step.outcome
        if not step.ok and not unchanged:
            continue
        if not kinds or any(step.action.startswith(k) for k in kinds):
            return step
    return None


# --------------------------------------------------------------------------------------------
# Dates and times on screen: a form's date/time rows, date and time pickers, a day's list

START_WORDS = ("start", "starts", "from", "begin", "begins")
END_WORDS = ("end", "ends", "until", "to", "finish")
_TIME_RANGE = re.compile(r"^\s*(\d{1,2}:\d{2})\s*[-–—]\s*(\d{1,2}:\d{2})\s*$")


def element_text(element: Element) -> str:
    """The element's own text, trimmed ("" for none)."""
    return (element.text or "").strip()


def status_time(observation: Observation) -> tuple[int, int] | None:
    """The time the status bar shows (a careful person's "now")."""
    for element in observation.ui_elements:
        if in_status_bar(element, observation.screen_size) or is_system(element):
            clock = text_lib.parse_clock(element_text(element))
            if clock is not None:
                return clock
    return None


def shown_year(observation: Observation) -> int | None:
    """A year the screen shows on its own, in a month header ("2023", "October 2023") or, failing
    those, in a full date ("Sun, Oct 15, 2023" in a form)."""
    dated = None
    for i in content_indices(observation):
        text = element_text(observation.ui_elements[i])
        if re.fullmatch(r"(19|20)\d\d", text):
            return int(text)
        month = text_lib.parse_month_title(text)
        if month is not None:
            return month[0]
        if dated is None and re.search(r"\b(?:19|20)\d\d\b", text):
            day = text_lib.parse_date(text)
            dated = day.year if day else None
    return dated


def when_row(observation: Observation, which: str) -> tuple[int | None, int | None]:
    """(date element, time element) of a form's "Starts"/"Ends" row; by order when unlabelled."""
    words = START_WORDS if which == "start" else END_WORDS
    dates: list[int] = []
    times: list[int] = []
    labelled: dict[str, int] = {}
    year = shown_year(observation)
    for i in content_indices(observation):
        element = observation.ui_elements[i]
        text = element_text(element)
        if not text or not element.is_clickable:
            continue
        if text_lib.parse_clock(text) is not None and ":" in text:
            kind = "time"
            times.append(i)
        elif (
            text_lib.parse_date(text, default_year=year or 2000) is not None and not text.isdigit()
        ):
            kind = "date"
            dates.append(i)
        else:
            continue
        beside = set(text_lib.words(row_label(observation, i)))
        if beside & set(words) and kind not in labelled:
            labelled[kind] = i
    position = 0 if which == "start" else 1
    date = labelled.get("date", dates[position] if len(dates) > position else None)
    time = labelled.get("time", times[position] if len(times) > position else None)
    return date, time


def row_datetime(
    observation: Observation, which: str, year: int | None = None
) -> datetime.datetime | None:
    """The date and time a form's start or end row shows."""
    date_index, time_index = when_row(observation, which)
    if date_index is None or time_index is None:
        return None
    elements = observation.ui_elements
    day = text_lib.parse_date(
        element_text(elements[date_index]), default_year=year or shown_year(observation)
    )
    clock = text_lib.parse_clock(element_text(elements[time_index]))
    if day is None or clock is None:
        return None
    return datetime.datetime(day.year, day.month, day.day, clock[0], clock[1])


@dataclasses.dataclass(frozen=True)
class MonthGrid:
    """A month of day cells (a month view or a date picker)."""

    year: int
    month: int
    title: int
    days: dict[int, int]
    previous: int | None
    next: int | None
    ok: int | None
    texts: tuple[str, ...]


def _named(observation: Observation, i: int, *needles: str) -> bool:
    name = text_lib.normalize(element_label(observation.ui_elements[i]))
    return all(n in name.split() for n in needles)


def month_grid(observation: Observation) -> MonthGrid | None:
    """The month grid on screen: its "October 2023" header, day cells below it and arrows."""
    elements = observation.ui_elements
    indices = content_indices(observation)
    for t in indices:
        parsed = text_lib.parse_month_title(element_text(elements[t]))
        title_box = element_box(elements[t], observation.screen_size)
        if parsed is None or title_box is None:
            continue
        days: dict[int, int] = {}
        for i in indices:
            text = element_text(elements[i])
            box = element_box(elements[i], observation.screen_size)
            if text.isdigit() and 1 <= int(text) <= 31 and box and box.y_min >= title_box.y_max:
                days.setdefault(int(text), i)
        if len(days) < 28:
            continue
        arrows = [i for i in indices if elements[i].is_clickable]
        previous = next(
            (
                i
                for i in arrows
                if _named(observation, i, "previous") or _named(observation, i, "prev")
            ),
            None,
        )
        following = next((i for i in arrows if _named(observation, i, "next")), None)
        ok = next(
            (
                i
                for i in arrows
                if text_lib.normalize(element_label(elements[i])) in ("ok", "done", "set")
            ),
            None,
        )
        texts = tuple(element_text(elements[i]) for i in indices if element_text(elements[i]))
        return MonthGrid(parsed[0], parsed[1], t, days, previous, following, ok, texts)
    return None


@dataclasses.dataclass(frozen=True)
class TimePicker:
    """A time picker: hour and minute read-outs, the grid of values to tap, its mode and OK."""

    hour: int | None
    minute: int | None
    hour_at: int | None
    minute_at: int | None
    cells: dict[int, int]
    mode: str  # hour or minute
    ok: int | None


def time_picker(observation: Observation) -> TimePicker | None:
    """A dialog of two-digit cells with an "HH : MM" read-out above them, or None."""
    elements = observation.ui_elements
    indices = content_indices(observation)
    colon = next((i for i in indices if element_text(elements[i]) == ":"), None)
    two_digit = [
        i
        for i in indices
        if re.fullmatch(r"\d{2}", element_text(elements[i])) and elements[i].is_clickable
    ]
    if colon is None or len(two_digit) < 8:
        return None
    colon_box = element_box(elements[colon], observation.screen_size)
    if colon_box is None:
        return None
    header = []
    for i in two_digit:
        box = element_box(elements[i], observation.screen_size)
        if box is not None and abs(box.center[1] - colon_box.center[1]) < 30:
            header.append((box.x_min, i))
    header.sort()
    hour_at = header[0][1] if header else None
    minute_at = header[1][1] if len(header) > 1 else None
    cells = {int(element_text(elements[i])): i for i in two_digit if i not in (hour_at, minute_at)}
    notes = " ".join(element_text(elements[i]).casefold() for i in indices)
    if "minute" in notes:
        mode = "minute"
    elif "hour" in notes:
        mode = "hour"
    else:
        mode = "minute" if any(v > 23 for v in cells) else "hour"
    ok = next(
        (
            i
            for i in indices
            if elements[i].is_clickable
            and text_lib.normalize(element_label(elements[i])) in ("ok", "done", "set")
        ),
        None,
    )
    hour = int(element_text(elements[hour_at])) if hour_at is not None else None
    minute = int(element_text(elements[minute_at])) if minute_at is not None else None
    return TimePicker(hour, minute, hour_at, minute_at, cells, mode, ok)


def list_items(observation: Observation) -> list[list[int]]:
    """The items of the screen's scrollable list, each its elements (top to bottom); items cut
    by the list's edges are left out, so a scroll never shows half an item as a new one."""
    elements = observation.ui_elements
    size = observation.screen_size
    container = next((i for i in content_indices(observation) if elements[i].is_scrollable), None)
    if container is None:
        return []
    outer = element_box(elements[container], size)
    if outer is None:
        return []
    inside = []
    for i in content_indices(observation):
        box = element_box(elements[i], size)
        if i == container or box is None or not labels(elements[i]):
            continue
        if outer.y_min - 2 <= box.y_min and box.y_max <= outer.y_max + 2:
            inside.append((i, box))
    boxes = sorted(
        (box.y_min, box.y_max, i)
        for n, (i, box) in enumerate(inside)
        if not any(_overlaps_partly(box, earlier) for _, earlier in inside[:n])
    )
    items: list[list[int]] = []
    bottom = -1.0
    for top, end, i in boxes:
        if items and top <= bottom + 8:
            items[-1].append(i)
            bottom = max(bottom, end)
        else:
            items.append([i])
            bottom = end
    return items


def _overlaps_partly(a, b) -> bool:
    """Whether two boxes cross without one holding the other. The screen lists an overlay (a
    floating button) after what it covers, so an element crossing an earlier one is drawn on
    top of the list, not part of a row: joined to the rows it spans, it would merge them."""
    crosses = a.x_min < b.x_max and b.x_min < a.x_max and a.y_min < b.y_max and b.y_min < a.y_max
    holds = (
        a.x_min <= b.x_min and a.y_min <= b.y_min and b.x_max <= a.x_max and b.y_max <= a.y_max
    ) or (b.x_min <= a.x_min and b.y_min <= a.y_min and a.x_max <= b.x_max and a.y_max <= b.y_max)
    return crosses and not holds


def item_texts(observation: Observation, item: Sequence[int]) -> list[str]:
    return [
        element_text(observation.ui_elements[i])
        for i in item
        if element_text(observation.ui_elements[i])
    ]


def money(text: str) -> float | None:
    """The amount of "$1,234.56", "-€12.00", "12.50 USD"; None when the text is not money."""
    match = re.fullmatch(
        r"\s*(-)?\s*[$€£]\s?(\d[\d,]*(?:\.\d+)?)\s*|\s*(-)?(\d[\d,]*\.\d{2})\s*(?:usd|eur|gbp)?\s*",
        text,
        re.I,
    )
    if not match:
        return None
    sign = match.group(1) or match.group(3)
    number = float((match.group(2) or match.group(4)).replace(",", ""))
    return -number if sign else number


@dataclasses.dataclass(frozen=True)
class DayRow:
    title: str
    start: tuple[int, int]
    end: tuple[int, int]


def day_view(observation: Observation) -> tuple[datetime.date | None, list[DayRow]]:
    """The day a day view shows (its title) and its rows: a title above "HH:MM - HH:MM"."""
    elements = observation.ui_elements
    year = shown_year(observation)
    day = None
    for i in content_indices(observation):
        element = elements[i]
        text = element_text(element)
        if text and in_title_bar(element, observation.screen_size) and not text.isdigit():
            day = text_lib.parse_date(text, default_year=year)
            if day is not None:
                break
    rows = []
    for item in list_items(observation):
        texts = item_texts(observation, item)
        times = [_TIME_RANGE.match(t) for t in texts]
        found = next((m for m in times if m), None)
        titles = [t for t, m in zip(texts, times) if not m]
        if found and titles:
            start = text_lib.parse_clock(found.group(1))
            end = text_lib.parse_clock(found.group(2))
            if start and end:
                rows.append(DayRow(titles[0], start, end))
    return day, rows


def when_controls(observation: Observation) -> set[int]:
    """Every element that sets a date or time: a form's date/time rows and the pickers' parts."""
    found: set[int] = set()
    for which in ("start", "end"):
        found.update(i for i in when_row(observation, which) if i is not None)
    grid = month_grid(observation)
    if grid is not None:
        found.update(grid.days.values())
        found.update(i for i in (grid.previous, grid.next, grid.ok) if i is not None)
    picker = time_picker(observation)
    if picker is not None:
        found.update(picker.cells.values())
        found.update(i for i in (picker.hour_at, picker.minute_at, picker.ok) if i is not None)
    return found


def date_navigation(observation: Observation) -> set[int]:
    """Controls that only move through dates (day cells of a month, next/previous day or month):
    looking around a calendar with them changes nothing."""
    found: set[int] = set()
    grid = month_grid(observation)
    if grid is not None and grid.ok is None:
        found.update(grid.days.values())
    for i in content_indices(observation):
        name = set(text_lib.words(element_label(observation.ui_elements[i])))
        if name & {"next", "previous", "prev"} and name & {"day", "month", "week"}:
            found.add(i)
    return found
