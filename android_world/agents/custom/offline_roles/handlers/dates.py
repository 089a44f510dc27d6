"""Intent family: dates and times. Setting a form's start/end date and time through its
pickers ("Set the start date to 2023-10-27"), and reading today's date off the clock for goals
that say "tomorrow" or "Wednesday"."""

from __future__ import annotations

import dataclasses
import datetime

from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.offline_common import (
    WEEKDAY_DATE,
    make_action,
    names_all,
)
from android_world.agents.custom.offline_roles.offline_handler import IntentHandler, on_screen
from android_world.agents.custom.offline_roles.offline_intent import Intent
from android_world.agents.custom.offline_roles.offline_moves import ActorBase
from android_world.env import json_action


def when_target(
    intent: Intent, observation: Observation
) -> datetime.date | tuple[int, int] | datetime.datetime | None:
    """What a "Set the start/end date/time to ..." sub-goal wants: a date, an (hour, minute), or
    for "N mins after the start" the end as a datetime, worked out from the start the form shows.
    """
    part = (intent.subject or "start date").split()[-1]
    value = intent.value or ""
    if "after the start" in value.casefold():
        minutes = text_lib.duration_minutes(value)
        start = screen.row_datetime(observation, "start")
        if minutes is None or start is None:
            return None
        return start + datetime.timedelta(minutes=minutes)
    if part == "date":
        return text_lib.parse_date(value, default_year=screen.shown_year(observation))
    return text_lib.parse_clock(value)


def with_today(intent: Intent, today: str | None, observation: Observation) -> Intent:
    """A "Set the start date to tomorrow" sub-goal with its day worked out from today's date
    (as read off the clock), so the form can be set and checked like an absolute date."""
    relative = text_lib.is_relative_day(intent.value)
    if intent.kind not in ("when", "delete_all") or not today or not relative:
        return intent
    base = text_lib.parse_date(today, default_year=screen.shown_year(observation))
    day = text_lib.parse_date(intent.value, today=base) if base else None
    return dataclasses.replace(intent, value=f"{day:%Y-%m-%d}") if day else intent


def when_done(intent: Intent, observation: Observation) -> tuple[bool, str]:
    which, part = (intent.subject or "start date").split()
    target = when_target(intent, observation)
    if target is None:
        return False, f"the form shows no {which} row to check"
    if isinstance(target, datetime.datetime):
        shown = screen.row_datetime(observation, which)
        if shown is not None and shown == target:
            return True, f"the {which} shows {target:%Y-%m-%d %H:%M}"
        return False, f"the {which} does not show {target:%Y-%m-%d %H:%M} yet"
    shown = screen.row_datetime(observation, which)
    if shown is None:
        return False, f"the form shows no {which} row"
    have = shown.date() if part == "date" else (shown.hour, shown.minute)
    if have == target:
        return True, f"the {which} {part} already shows it"
    return False, f"the {which} {part} shows {have}, not {target}"


def when_sub_goals(when: text_lib.When | None) -> list[str]:
    """Start date, start time, then the end from the duration (a new start moves the end)."""
    if when is None:
        return []
    subs = []
    if when.date:
        subs.append(f"Set the start date to {when.date}")
    if when.time:
        subs.append(f"Set the start time to {when.time}")
    if when.duration:
        subs.append(f"Set the end time to {when.duration} after the start")
    return subs


def read_date_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    return False, "the executor reads the date when the screen shows it"


class DateActs(ActorBase):
    """The executor's moves on date and time pickers and day views."""

    def _go_to_day(
        self, intent: Intent, obs: Observation, signature: str, target: datetime.date
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """One step toward the day view of `target`: day arrows in a day view, month arrows and
        the day's cell in a month view."""
        day, _ = screen.day_view(obs)
        elements = obs.ui_elements
        if day is not None and day != target:
            word = "next" if target > day else "previous"
            for i in screen.content_indices(obs):
                if elements[i].is_clickable and names_all(obs, i, word, "day"):
                    chosen = self._click(obs, i, signature, f"go to the {word} day")
                    if chosen is not None:
                        return chosen
            back = make_action(json_action.NAVIGATE_BACK)
            if self._usable(back, signature):
                return back, "back to the month to pick the day", "back"
            return None
        if day is not None:
            return None
        grid = screen.month_grid(obs)
        if grid is None or grid.ok is not None:
            return None
        if (grid.year, grid.month) != (target.year, target.month):
            later = (target.year, target.month) > (grid.year, grid.month)
            arrow = grid.next if later else grid.previous
            if arrow is not None:
                return self._click(obs, arrow, signature, "turn the month toward the day")
            return None
        cell = grid.days.get(target.day)
        if cell is None:
            return None
        return self._click(obs, cell, signature, f"open {target:%B %d}")

    def _when(
        self, intent: Intent, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        which, part = (intent.subject or "start date").split()
        target = when_target(intent, obs)
        if isinstance(target, datetime.datetime):
            self._when_targets[intent.sub_goal] = target
        elif target is None:
            target = self._when_targets.get(intent.sub_goal)
        if target is None:
            return None
        picker = screen.time_picker(obs)
        if picker is not None:
            want = (target.hour, target.minute) if isinstance(target, datetime.datetime) else target
            if isinstance(want, tuple):
                return self._pick_time(obs, signature, picker, want)
        grid = screen.month_grid(obs)
        if grid is not None and grid.ok is not None:
            want_day = target.date() if isinstance(target, datetime.datetime) else target
            if isinstance(want_day, datetime.date):
                return self._pick_date(obs, signature, grid, want_day)
        date_index, time_index = screen.when_row(obs, which)
        if isinstance(target, datetime.datetime):
            shown = screen.row_datetime(obs, which)
            if shown is not None and shown.date() != target.date() and date_index is not None:
                return self._click(obs, date_index, signature, f"open the {which} date picker")
            if time_index is not None:
                return self._click(obs, time_index, signature, f"open the {which} time picker")
            return None
        index = date_index if part == "date" else time_index
        if index is None:
            return None
        return self._click(obs, index, signature, f"open the {which} {part} picker")

    def _pick_date(
        self, obs: Observation, signature: str, grid: screen.MonthGrid, want: datetime.date
    ) -> tuple[json_action.JSONAction, str, str] | None:
        if (grid.year, grid.month) != (want.year, want.month):
            later = (want.year, want.month) > (grid.year, grid.month)
            arrow = grid.next if later else grid.previous
            return (
                self._click(obs, arrow, signature, "turn the month") if arrow is not None else None
            )
        picked = any(
            text_lib.parse_date(t, default_year=grid.year) == want
            for t in grid.texts
            if not t.isdigit() and text_lib.parse_month_title(t) is None
        )
        cell = grid.days.get(want.day)
        if not picked and cell is not None:
            chosen = self._click(obs, cell, signature, f"pick day {want.day}")
            if chosen is not None:
                return chosen
        if grid.ok is not None:
            return self._click(obs, grid.ok, signature, f"confirm {want:%B %d %Y}")
        return None

    def _pick_time(
        self,
        obs: Observation,
        signature: str,
        picker: screen.TimePicker,
        want: tuple[int, int],
    ) -> tuple[json_action.JSONAction, str, str] | None:
        hour, minute = want
        if picker.hour != hour:
            if picker.mode == "hour" and hour in picker.cells:
                return self._click(obs, picker.cells[hour], signature, f"pick hour {hour:02d}")
            if picker.hour_at is not None:
                return self._click(obs, picker.hour_at, signature, "switch to the hours")
        elif picker.minute != minute:
            if picker.mode == "minute" and minute in picker.cells:
                return self._click(
                    obs, picker.cells[minute], signature, f"pick minute {minute:02d}"
                )
            if picker.mode == "hour" and picker.minute_at is not None:
                return self._click(obs, picker.minute_at, signature, "switch to the minutes")
        if picker.ok is not None:
            return self._click(obs, picker.ok, signature, f"confirm {hour:02d}:{minute:02d}")
        return None


def read_today(
    gen: DateActs, intent: Intent, info: text_lib.GoalInfo, obs: Observation, context_summary: str
) -> tuple[str, str] | None:
    """Today's date as the screen shows it (the clock's weekday and date line)."""
    for line in screen.screen_text(obs):
        if WEEKDAY_DATE.match(line) and text_lib.parse_date(line, default_year=2000):
            gen._today = line
            return line, f"the screen shows today's date: {line!r}"
    return None


def when_target_ok(
    intent: Intent, obs: Observation, index: int, info: text_lib.GoalInfo | None
) -> bool:
    return index in screen.when_controls(obs)


HANDLERS = (
    IntentHandler(
        "when",
        "dates",
        lambda i, o, h: when_done(i, o),
        on_screen(DateActs._when),
        target_ok=when_target_ok,
        evidence="state",
    ),
    IntentHandler("read_date", "dates", read_date_done, read=read_today),
)
