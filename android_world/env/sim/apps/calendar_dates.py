"""Simple Calendar Pro's dates: epoch-second times on UTC, repetitions and their occurrences, and
the month grid that both the month view and the date picker draw."""

from __future__ import annotations

import calendar as std_calendar
import datetime
from collections.abc import Callable

from android_world.env.sim import widgets as w
from android_world.env.sim.widgets import Node

UTC = datetime.UTC
WEEKDAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")
DAY_S, WEEK_S, MONTH_S, YEAR_S = 86400, 604800, 2592001, 31536000
REPEAT_SAME_DAY = 1
# (label, repeat_interval) offered by the Repetition dialog, in the real app's order.
REPETITIONS = (
    ("No repetition", 0),
    ("Daily", DAY_S),
    ("Weekly", WEEK_S),
    ("Monthly", MONTH_S),
    ("Yearly", YEAR_S),
)
LIST_DAYS = 366  # how far ahead the event list view reaches


def to_ts(when: datetime.datetime) -> int:
    return (
        int(when.replace(tzinfo=UTC).timestamp()) if when.tzinfo is None else int(when.timestamp())
    )


def from_ts(ts: int) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(ts, tz=UTC)


def month_weeks(year: int, month: int) -> list[list[int]]:
    """Weeks of the month, Sunday first; 0 marks a day of another month."""
    return std_calendar.Calendar(firstweekday=6).monthdayscalendar(year, month)


def shift_month(year: int, month: int, delta: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + delta
    return index // 12, index % 12 + 1


def weekly_rule(day: datetime.date) -> int:
    """The real app's weekly repeat rule for one weekday: Monday 1, Tuesday 2, ... Sunday 64."""
    return 1 << (day.isoweekday() - 1)


def _occurrence_starts(row: dict, lo: int, hi: int) -> list[int]:
    """Start times in [lo, hi) of one event, following its repetition (forever, or until
    `repeat_limit` when that is a positive timestamp)."""
    first, interval, rule = row["start_ts"], row["repeat_interval"], row["repeat_rule"]
    if interval <= 0:
        return [first] if lo <= first < hi else []
    limit = row.get("repeat_limit") or 0
    hi = min(hi, limit + 1) if limit > 0 else hi
    begin = from_ts(first)
    starts: list[int] = []
    if interval % WEEK_S == 0 and rule:
        weeks = interval // WEEK_S
        monday = begin - datetime.timedelta(days=begin.weekday())
        day = begin
        while to_ts(day) < hi:
            week_index = (day - monday).days // 7
            if week_index % weeks == 0 and rule & weekly_rule(day.date()):
                starts.append(to_ts(day))
            day += datetime.timedelta(days=1)
    elif interval % DAY_S == 0:
        step = interval
        ts = first if first >= lo else first + ((lo - first + step - 1) // step) * step
        starts = list(range(ts, hi, step))
    else:  # monthly or yearly on the same day (months without that day are skipped)
        months = 12 if interval % YEAR_S == 0 else max(1, interval // MONTH_S)
        k = 0
        while True:
            y, m = shift_month(begin.year, begin.month, k * months)
            k += 1
            if datetime.datetime(y, m, 1, tzinfo=UTC) >= from_ts(hi):
                break
            if begin.day <= std_calendar.monthrange(y, m)[1]:
                starts.append(to_ts(begin.replace(year=y, month=m)))
    return [ts for ts in starts if lo <= ts < hi]


def expand_occurrences(rows: list[dict], lo: int, hi: int) -> list[dict]:
    """One dict per occurrence in [lo, hi): the row with its start and end shifted."""
    found = []
    for row in rows:
        duration = row["end_ts"] - row["start_ts"]
        for ts in _occurrence_starts(row, lo, hi):
            found.append(dict(row, start_ts=ts, end_ts=ts + duration))
    return sorted(found, key=lambda r: (r["start_ts"], r["id"]))


def repetition_label(interval: int) -> str:
    for text, value in REPETITIONS:
        if value == interval:
            return text
    if interval % WEEK_S == 0:
        return f"Every {interval // WEEK_S} weeks"
    if interval % DAY_S == 0:
        return f"Every {interval // DAY_S} days"
    return "Custom"


def format_section(day: datetime.date) -> str:
    """A day's header in the event list and in search results, e.g. "Monday, October 16, 2023"."""
    return f"{day:%A, %B} {day.day}, {day.year}"


def _day_cell(
    day: int,
    *,
    selected: bool,
    today: bool,
    dots: int,
    on_click: Callable[[], None] | None,
    h: int,
    size: int,
) -> Node:
    if not day:
        return w.spacer(h=h)
    marks = [
        Node(kind="box", cls="android.view.View", w=16, h=16, style={"bg": "accent"})
        for _ in range(min(dots, 3))
    ]
    return w.column(
        w.label(
            str(day),
            size=size,
            center=True,
            color="accent" if today else "text",
            bold=today,
            h=int(size * 1.5),
        ),
        w.row(*marks, h=24, gap=10, align="center") if marks else w.spacer(h=24),
        kind="box",
        h=h,
        pad=(0, 12, 0, 0),
        clickable=on_click is not None,
        focusable=True,
        on_click=on_click,
        selected=selected,
        style={"bg": "tonal"} if selected else {},
    )


def month_grid(
    year: int,
    month: int,
    *,
    on_pick: Callable[[int], None],
    selected: int | None,
    today: int | None,
    dots: dict[int, int] | None = None,
    cell_h: int = 220,
    size: int = 44,
) -> Node:
    """Weekday header and the weeks of a month; tapping a day calls on_pick(day)."""
    dots = dots or {}
    header = w.row(*[w.label(d, size=34, color="secondary", center=True) for d in WEEKDAYS], h=70)
    weeks = [
        w.row(
            *[
                _day_cell(
                    day,
                    selected=day == selected,
                    today=day == today,
                    dots=dots.get(day, 0),
                    on_click=(lambda d=day: on_pick(d)) if day else None,
                    h=cell_h,
                    size=size,
                )
                for day in week
            ],
            h=cell_h,
        )
        for week in month_weeks(year, month)
    ]
    return w.column(header, *weeks, res_id="month_view")
