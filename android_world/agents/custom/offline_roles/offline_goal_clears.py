"""Goal checks of a whole list's end state: a day emptied, a record saved once, a stopwatch running.

The goal check (`offline_goal`) reads named items one by one; these read what a goal asks of a
list or a control as a whole, from the screens the episode showed, model-free:

- "delete all the events on 2023-10-27": after the last delete, a view of that very day shows
  its list empty (done), or still shows rows (unmet);
- "delete all but one of the duplicates": whole-list views before and after (offline_goal_duplicates);
- a goal that adds several records: one saved twice (the same values entered and saved on two
  forms) leaves an extra record the goal never asked for (unmet), which "every value was
  entered" cannot see;
- "Run the stopwatch": the stopwatch last seen offers Pause, so it runs.

Each says `done` only on what a screen showed; without such a screen it says `unknown`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

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
from android_world.agents.custom.offline_roles.offline_goal_duplicates import duplicate_checks
from android_world.agents.custom.offline_roles.offline_goal_today import relative_day, shown_today

# "delete all (the) events on <a day>", "remove all events scheduled for <a day>".
_CLEAR_DAY = re.compile(
    r"\b(?:delete|remove)\s+(?:all|every)\b.*?\b(?:on|for|from)\s+(?P<day>.+)$", re.I
)


def clear_day_checks(
    clauses: Sequence[str],
    deletes: Sequence[int],
    trail: Sequence[TrailStep],
    current: Observation,
) -> list[GoalCheck]:
    """Each clause that empties a day: read off the last view of that day since the last
    delete. A relative day ("this Thursday") is worked out from today's date as a home-screen
    or Clock date line showed it (offline_goal_today); without one it stays unread (the
    clause is then unknown). A clause that
    keeps one copy of each duplicate is read too (offline_goal_duplicates): both are deletes
    of a whole list's items that name no item."""
    checks = duplicate_checks(clauses, deletes, trail, current)
    today = shown_today([t.screen for t in trail] + [current])
    for clause in clauses:
        match = _CLEAR_DAY.search(clause)
        day = relative_day(match.group("day"), today) if match else None
        if day is None:
            continue
        what = f"no events left on {day.isoformat()}"
        if not deletes:
            checks.append(GoalCheck(what, GOAL_UNKNOWN, "nothing was deleted yet"))
            continue
        later = [t.screen for t in trail if t.step > deletes[-1]] + [current]
        status, why = GOAL_UNKNOWN, "no view of that day was seen since the last delete"
        for observation in reversed(later):
            shown_day, rows = screen.day_view(observation)
            if shown_day != day:
                continue
            if rows:
                status, why = GOAL_UNMET, f"that day still lists {rows[0].title!r}"
            elif screen.shows_empty_list(observation):
                status, why = GOAL_DONE, "that day's view shows no events since the last delete"
            break
        checks.append(GoalCheck(what, status, why))
    return checks


def saved_twice_checks(
    records: Sequence[Sequence[str]],
    saved_forms: Sequence[Sequence[str]],
    entered: Callable[[str, Sequence[str]], bool],
) -> list[GoalCheck]:
    """A record of a goal that adds several, saved on two forms: the second is an extra record
    (a restart that entered the first one again). `saved_forms`: the texts of each stretch of
    form screens that a save tap closed; `entered(value, texts)` reads one value on one."""
    if len(records) < 2:
        return []
    checks = []
    for record in records:
        values = [v for v in record if v.strip()]
        if not values:
            continue
        saves = sum(1 for texts in saved_forms if all(entered(v, texts) for v in values))
        if saves > 1:
            why = f"its values were entered and saved on {saves} forms: it is there {saves} times"
            checks.append(GoalCheck(f"{values[0][:40]!r} saved once", GOAL_UNMET, why))
    return checks


# "Run the stopwatch", "Start the stopwatch".
_RUN_STOPWATCH = re.compile(r"^\s*(?:run|start)\s+(?:the\s+)?stopwatch\s*[.!]?\s*$", re.I)
_RUNNING_LABELS = frozenset({"pause", "stop"})
_STOPPED_LABELS = frozenset({"start", "resume"})


def parse_run_stopwatch(clause: str) -> bool:
    return bool(_RUN_STOPWATCH.match(clause or ""))


def stopwatch_checks(clauses: Sequence[str], screens: Sequence[Observation]) -> list[GoalCheck]:
    """A stopwatch runs when its screen offers Pause (a stopped one offers Start): read off
    the last screen that shows a stopwatch (its title and one of those controls)."""
    if not any(parse_run_stopwatch(c) for c in clauses):
        return []
    what = "the stopwatch running"
    for observation in reversed(screens):
        running = _stopwatch_running(observation)
        if running is True:
            return [GoalCheck(what, GOAL_DONE, "the stopwatch last seen offers Pause")]
        if running is False:
            return [GoalCheck(what, GOAL_UNMET, "the stopwatch last seen offers Start")]
    return [GoalCheck(what, GOAL_UNKNOWN, "no stopwatch was seen")]


def _stopwatch_running(observation: Observation) -> bool | None:
    """True (Pause offered), False (Start offered) or None (not a stopwatch's screen)."""
    titled = False
    labels: set[str] = set()
    for i in screen.content_indices(observation):
        element = observation.ui_elements[i]
        name = text_lib.normalize(element.text or element.content_description or "")
        if name == "stopwatch" and screen.in_title_bar(element, observation.screen_size):
            titled = True
        elif element.is_clickable or (element.class_name or "").endswith("Button"):
            labels.add(name)
    if not titled:
        return None
    if labels & _RUNNING_LABELS and not labels & _STOPPED_LABELS:
        return True
    if labels & _STOPPED_LABELS and not labels & _RUNNING_LABELS:
        return False
    return None


def _squashed(text: str | None) -> str:
    return re.sub(r"[^a-z0-9]", "", (text or "").casefold())


# How far below a setting's title its summary line may start, and how far left of it.
_SUMMARY_GAP = 24
_SUMMARY_INDENT = 12


def summary_state(observation: Observation, subject: str) -> bool | None:
    """A setting's state as a settings list shows it without a switch: the row titled exactly
    with the subject ("Bluetooth") and, right under it, the summary "On" or "Off". None when
    no such row shows (a title that only contains the subject, "Bluetooth scanning", is
    another setting)."""
    want = _squashed(subject)
    if not want:
        return None
    elements = observation.ui_elements
    indices = screen.content_indices(observation)
    for i in indices:
        title = elements[i]
        box = title.bbox_pixels
        if box is None or _squashed(title.text) != want:
            continue
        if screen.in_title_bar(title, observation.screen_size):
            continue
        for j in indices:
            below = elements[j].bbox_pixels
            if j == i or below is None:
                continue
            if abs(below.x_min - box.x_min) > _SUMMARY_INDENT:
                continue
            if not 0 <= below.y_min - box.y_max <= _SUMMARY_GAP:
                continue
            state = _squashed(elements[j].text)
            if state in ("on", "off"):
                return state == "on"
    return None
