"""Offline roles: the whole Conductor pipeline with no model, no network and no GPU.

This is a no-model BASELINE, never an LLM result: plans carry `source="offline"`, and every
thought, rationale and vote reason starts with "[offline]". It lets a new user see planning,
gating, rehearsal and answering work on the simulated phone before configuring any model, and
it is the fallback the factory uses when a role has no model.

What the roles know comes only from the goal text and the screen: app names and the generic
phone vocabulary in `offline_text` (wifi lives near "internet", a contact form has a "Phone"
field), lexical and fuzzy similarity between goal slots and element labels, and the agent's own
step history from the context summary. They know nothing about any benchmark task.

Build them with `build_offline_roles(**options)`; each class also works on its own, so any role
can be offline while the others use models.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from android_world.agents.custom.celil_geometry import element_box, element_label
from android_world.agents.custom.celil_protocols import (
    ActionGenerator,
    ElementSelector,
    Evidence,
    FailureContext,
    GoalVerdict,
    Observation,
    Plan,
    Planner,
    ProposedAction,
    ScreenChecker,
    TrailStep,
    Verifier,
    Vote,
)
from android_world.agents.custom.offline_roles import offline_clear as clear
from android_world.agents.custom.offline_roles import offline_goal
from android_world.agents.custom.offline_roles import offline_reading as reading
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles import offline_wording as wording
from android_world.agents.custom.roles.celil_quality_control import (
    DEFAULT_WEIGHTS,
    EFFICIENCY_EXPERT,
    IRREVERSIBLE_WORDS,
    PRAGMATIST,
    SKEPTIC,
    describe_action,
)
from android_world.env import json_action

TAG = "[offline]"
SOURCE = "offline"
NAVIGATE_MIN_RELEVANCE = 0.5
MAX_SCROLLS_PER_SCREEN = 3
_TAP_TYPES = (json_action.CLICK, json_action.LONG_PRESS, json_action.DOUBLE_TAP)
_TAP_NAMES = ("click", "long_press", "double_tap")
DELETE_LABELS = ("delete", "delete permanently", "remove", "trash", "move to trash", "delete file")
TEXT_SLOTS = ("text", "message", "content", "body", "note")
CHANGING_WORDS = frozenset({"new", "add", "create", "edit", "delete", "remove", "compose"})
SAVE_WORDS = ("save", "done", "ok", "create", "confirm", "apply")
OVERFLOW_LABELS = ("more options", "more", "menu", "overflow menu")
CONFIRM_LABELS = ("ok", "done", "create", "next", "continue", "confirm", "apply")


# --------------------------------------------------------------------------------------------
# Sub-goals: the planner writes them in a small controlled phrasing that the executor reads
# back; any other text (a model planner's) falls back to lexical matching.


@dataclasses.dataclass(frozen=True)
class Intent:
    kind: str  # open, permission, toggle, level, fill, new, tap, back, find, generic
    sub_goal: str
    app: str | None = None
    subject: str = ""
    state: bool | None = None
    level: str | None = None
    field: str | None = None
    value: str | None = None


_FILL = re.compile(
    r"^(?:enter|type|fill in|input|write)\s+'(.+)'\s+(?:in|into|as)\s+(?:the\s+)?(.+?)(?:\s+field)?$",
    re.I | re.S,
)
_NEW = re.compile(r"^(?:start|create|add|begin|compose)\s+(?:a\s+|an\s+)?new\s+(.+)$", re.I)
_TAP = re.compile(r"^(?:tap|press|click|select|choose|go to)\s+(?:the\s+|on\s+)?(.+?)$", re.I)
_DELETE = re.compile(r"^(?:delete|remove)\s+'(.+)'$", re.I)
_SELECT = re.compile(r"^select\s+'(.+)'$", re.I)
_APPEND = re.compile(r"^append\s+'(.+)'\s+to\s+(?:the\s+)?(.+)$", re.I | re.S)
_PREPEND = re.compile(r"^prepend\s+'(.+)'\s+to\s+(?:the\s+)?(.+)$", re.I | re.S)
# Written out in words ("2 hours 5 minutes 0 seconds") so episodic memory turns each number of
# the goal into a slot and a remembered plan fills in the next goal's duration.
_DURATION = re.compile(
    r"^set the duration to (\d+)\s*(?:h|hours?) (\d+)\s*(?:m|minutes?) (\d+)\s*(?:s|seconds?)$",
    re.I,
)
_REOPEN = re.compile(r"^(?:re)?open\s+(?:the\s+)?(.+?)(?:\s+app)?(?:\s+\(.*\))?$", re.I)
# "Set the start date to 2023-10-27", "Set the end time to 15 mins after the start": the goal's
# own words, so episodic memory slots them; the executor works the form's pickers out.
_WHEN = re.compile(r"^set the (start|end) (date|time) to (.+)$", re.I)
_READ_DATE = re.compile(r"^read today'?s date\b", re.I)
# "Delete every event on 2023-10-27": every item of that day's list, whatever their names.
_DELETE_ALL = re.compile(r"^(?:delete|remove) every (\w+) on (.+)$", re.I)
# "Search for 'Team lunch'", then "Open 'Team lunch'": find one item among many, then open it.
_SEARCH_FOR = re.compile(r"^search for '(.+)'$", re.I)
_OPEN_ITEM = re.compile(r"^open '(.+)'$", re.I)
READ_DATE_SUB_GOAL = "Read today's date on the Clock"
DATE_SOURCE_APP = "Clock"
FIND_SUB_GOAL = "Find the information the question asks for"


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
_ROUND = re.compile(rf"\s*\((?:{'|'.join(ORDINALS)})\)$", re.I)


def parse_sub_goal(sub_goal: str, info: text_lib.GoalInfo) -> Intent:
    # "Tap Save (second)": the ordinal only tells one record's round from another's.
    text = _ROUND.sub("", " ".join(sub_goal.split()).rstrip("."))
    lowered = text.casefold()
    match = _REOPEN.match(text)
    if match and (apps := text_lib.find_apps(match.group(1))):
        return Intent("open", sub_goal, app=apps[0])
    if lowered.startswith("go back"):
        return Intent("back", sub_goal)
    match = _WHEN.match(text)
    if match:
        subject = f"{match.group(1).casefold()} {match.group(2).casefold()}"
        return Intent("when", sub_goal, subject=subject, value=match.group(3).strip())
    if kind := clear.parse_sub_goal(text):
        return Intent("clear", sub_goal, subject=kind)
    match = _DELETE_ALL.match(text)
    if match:
        return Intent("delete_all", sub_goal, subject=match.group(1), value=match.group(2))
    match = _SEARCH_FOR.match(text)
    if match:
        return Intent("search", sub_goal, subject="search", value=match.group(1))
    match = _OPEN_ITEM.match(text)
    if match and not text_lib.find_apps(match.group(1)):
        return Intent("open_item", sub_goal, subject=match.group(1))
    if _READ_DATE.match(text):
        return Intent("read_date", sub_goal, subject=text)
    if re.search(r"\b(permission|pop-?ups?|allow)\b", lowered):
        return Intent("permission", sub_goal)
    level = text_lib.parse_level(text)
    if level is not None:
        return Intent("level", sub_goal, subject=level[0], level=level[1])
    toggle = text_lib.parse_toggle(text)
    if toggle is not None:
        return Intent("toggle", sub_goal, subject=toggle[0], state=toggle[1])
    match = _FILL.match(text)
    if match:
        return Intent("fill", sub_goal, field=match.group(2).strip(), value=match.group(1))
    match = _APPEND.match(text)
    if match:
        return Intent("append", sub_goal, field=match.group(2).strip(), value=match.group(1))
    match = _PREPEND.match(text)
    if match:
        return Intent("prepend", sub_goal, field=match.group(2).strip(), value=match.group(1))
    match = _DELETE.match(text)
    if match:
        return Intent("delete", sub_goal, subject=match.group(1))
    match = _SELECT.match(text)
    if match:
        return Intent("select", sub_goal, subject=match.group(1))
    match = _DURATION.match(text)
    if match:
        h, m, sec = (int(g) for g in match.groups())
        return Intent("keypad", sub_goal, value=f"{h:02d}{m:02d}{sec:02d}".lstrip("0") or "0")
    if lowered.startswith("open the most recent") or lowered.startswith("open the first"):
        return Intent("first_item", sub_goal)
    match = _NEW.match(text)
    if match:
        return Intent("new", sub_goal, subject=match.group(1).strip())
    if lowered.startswith("find"):
        return Intent("find", sub_goal, subject=text, value=info.goal)
    if lowered.startswith("paste"):
        return Intent("paste", sub_goal, subject=text)
    match = _TAP.match(text)
    if match:
        return Intent("tap", sub_goal, subject=match.group(1).strip())
    del info
    return Intent("generic", sub_goal, subject=text)


def intent_terms(intent: Intent, info: text_lib.GoalInfo) -> list[tuple[str, float]]:
    """The words that lead toward the intent's target on screen, weighted."""
    if intent.kind in ("fill", "append", "prepend"):
        base = [intent.field or ""]
    elif intent.kind == "delete":
        return [
            (intent.subject, 1.0),
            ("delete", 1.0),
            ("trash", 0.8),
            ("remove", 0.8),
            ("more options", 0.55),
        ]
    elif intent.kind == "new":
        base = ["new", "add", "create", intent.subject]
    elif intent.kind == "find":
        base = text_lib.content_words(info.goal)
    else:
        base = text_lib.content_words(intent.subject or intent.sub_goal)
    terms = text_lib.expand_terms(base)
    if intent.kind == "tap" and text_lib.normalize(intent.subject) in SAVE_WORDS:
        obj = _object_word(info)
        terms += [(w, 0.85) for w in SAVE_WORDS if w != "save"]
        if obj != "item":
            terms.append((obj, 0.95))
    if intent.kind == "new":
        terms += [("compose", 0.8), ("start chat", 0.8), ("plus", 0.7)]
    if intent.kind == "find" and _row_wants(info.goal).done is True:
        # Lists hide done items until their menu shows them.
        terms += [("show completed", 1.0), ("more options", 0.85)]
    return terms


# Labels that name both a menu item opening a folder picker and the move itself.
_PICKER_OPENERS = frozenset({"move", "copy"})


def _asks_still(observation: Observation) -> bool:
    """A dialog is open that waits for an answer: it offers Cancel."""
    return any(
        e.is_clickable and text_lib.normalize(screen.element_label(e)) == "cancel"
        for e in (observation.ui_elements[i] for i in screen.content_indices(observation))
    )


def sub_goal_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    """Whether the screen (or the agent's last successful step) shows the sub-goal done."""
    elements = observation.ui_elements
    if intent.kind == "open":
        if (
            intent.app
            and not screen.is_launcher(observation)
            and text_lib.activity_matches_app(observation.foreground_activity, intent.app)
        ):
            return True, f"{intent.app} is in the foreground"
        return False, f"{intent.app} is not in the foreground"
    if intent.kind == "permission":
        if screen.grant_button(observation) is None:
            return True, "no permission request is showing"
        return False, "a permission request is showing"
    if intent.kind == "toggle":
        index = screen.find_switch(observation, intent.subject)
        if index is not None and bool(elements[index].is_checked) == intent.state:
            state = "on" if intent.state else "off"
            return True, f"the {intent.subject} switch shows {state}"
        return False, f"no {intent.subject} switch in the wanted state is visible"
    if intent.kind == "level":
        index = screen.find_slider(observation, intent.subject)
        if index is not None:
            at = screen.slider_at(elements[index], intent.level or "max")
            if at:
                return True, f"the {intent.subject} slider is at its {intent.level}"
            if at is None and screen.acted_on(history, intent.sub_goal, ("scroll", "swipe")):
                return True, f"the {intent.subject} slider was dragged to its {intent.level}"
        return False, f"the {intent.subject} slider is not at its {intent.level}"
    if intent.kind == "fill":
        return fill_done(intent, observation)
    if intent.kind == "paste":
        step = screen.acted_on(history, intent.sub_goal)
        filled = any(screen.field_text(elements[i]) for i in screen.fields(observation))
        if step is not None and _PASTE_LABEL.search(step.action) and filled:
            return True, "the clipboard was pasted into the field"
        return False, "nothing was pasted yet"
    if intent.kind == "prepend":
        for i in screen.fields(observation):
            current = text_lib.normalize(screen.field_text(elements[i]))
            if current.startswith(text_lib.normalize(intent.value)):
                return True, "the text was added at the top"
        return False, "the text is not at the top yet"
    if intent.kind == "append":
        for i in screen.fields(observation):
            current = text_lib.normalize(screen.field_text(elements[i]))
            if current.endswith(text_lib.normalize(intent.value)):
                return True, "the text was added at the end"
        return False, "the text is not there yet"
    if intent.kind == "keypad":
        shown = screen.keypad_digits(observation)
        if shown is not None and shown == intent.value:
            return True, "the display shows the wanted duration"
        return False, "the display does not show the wanted duration"
    if intent.kind == "delete":
        key = text_lib.normalize(intent.sub_goal)
        deleted = any(
            text_lib.normalize(step.sub_goal) == key
            and step.ok
            and "delet" in step.action.casefold()
            for step in history
        )
        visible = screen.find_text(observation, intent.subject) is not None
        listing = any(e.is_scrollable for e in elements) or screen.shows_empty_list(observation)
        if deleted and not visible and listing:
            return True, f"{intent.subject!r} is gone from the list"
        return False, f"{intent.subject!r} is not deleted yet"
    if intent.kind == "select":
        step = screen.acted_on(history, intent.sub_goal, ("long_press",))
        if step is not None:
            return True, f"{intent.subject!r} was selected"
        return False, f"{intent.subject!r} is not selected yet"
    if intent.kind == "new":
        if screen.form_fields(observation):
            return True, "a form with fields is open"
        return False, "no form is open"
    if intent.kind == "tap":
        opposite = already_in_state(intent.subject, observation)
        if opposite:
            return True, f"{opposite!r} is showing, so it is already {intent.subject.casefold()}d"
        step = screen.acted_on(history, intent.sub_goal, _TAP_NAMES, allow_unchanged=True)
        subject = text_lib.normalize(intent.subject.strip("'\""))
        if step is not None and subject and subject.split()[0] in text_lib.normalize(step.action):
            if subject in _PICKER_OPENERS and _asks_still(observation):
                # A "Move" menu item opens the folder picker; the move is its OK.
                return False, f"the tap on {intent.subject!r} opened a dialog that still asks"
            return True, f"the step '{step.action}' for it went through"
        return False, "the named element was not tapped yet"
    if intent.kind == "when":
        return when_done(intent, observation)
    if intent.kind == "search":
        for i in screen.fields(observation):
            if text_lib.normalize(screen.field_text(elements[i])) == text_lib.normalize(
                intent.value
            ):
                return True, f"the search box holds {intent.value!r}"
        return False, "the search box does not hold it yet"
    if intent.kind == "open_item":
        for i in screen.form_fields(observation):
            if text_lib.normalize(screen.field_text(elements[i])) == text_lib.normalize(
                intent.subject
            ):
                return True, f"{intent.subject!r} is open"
        return False, f"{intent.subject!r} is not open yet"
    if intent.kind == "clear":
        return clear.emptied(observation)
    if intent.kind == "delete_all":
        day, rows = screen.day_view(observation)
        target = text_lib.parse_date(intent.value, default_year=screen.shown_year(observation))
        if target is not None and day == target and not rows:
            return True, f"the list of {target:%B %d %Y} is empty"
        return False, "the day's list is not shown empty yet"
    if intent.kind == "read_date":
        return False, "the executor reads the date when the screen shows it"
    if intent.kind == "find":
        goal = intent.value or ""
        if text_lib.parse_question(goal).kind != "other" or _row_wants(goal).labels:
            return False, "the answer needs the whole list read; the executor says when"
        if text_lib.attribute_question(goal) or text_lib.when_with_question(goal):
            return False, "the answer is read off the item found; the executor reads it"
        if goal and question_answer(goal, observation, ""):
            return True, "the screen shows text that answers the question"
        return False, "no answer on screen yet"
    if intent.kind in ("back", "generic", "first_item"):
        step = screen.acted_on(history, intent.sub_goal)
        if step is not None:
            return True, f"the step '{step.action}' for it went through"
        return False, "nothing was done for it yet"
    return False, "not checkable from the screen"


# Verdicts read straight off the screen's state; every other kind rests on a step taken for the
# sub-goal, which counts only when it is tied to it (see `sub_goal_evidence`).
_STATE_KINDS = frozenset(
    {
        "open",
        "permission",
        "toggle",
        "fill",
        "prepend",
        "append",
        "keypad",
        "new",
        "when",
        "find",
        "delete_all",
        "clear",
        "search",
        "open_item",
    }
)
# Step descriptions quote labels as JSON strings (celil_untrusted.quote); older records used
# single quotes.
_QUOTED_LABEL = re.compile(r""""((?:[^"\\]|\\.)+)"|'([^']+)'""")


def _quoted_labels(text: str) -> list[str]:
    return [double or single for double, single in _QUOTED_LABEL.findall(text)]


# A paste is done when a field holds text after a step that chose 'Paste'.
_STATE_KINDS |= {"paste"}
_PASTE_LABEL = re.compile(r"""["']paste["']""", re.I)


# State kinds that show only a step of the way (a form open), not the values a sub-goal names.
_WEAK_KINDS = frozenset({"new"})


# Words that talk about the work, not about anything on a screen ("Do the whole task as asked"):
# a step on a control that happens to share one ("Tasks") is no step for such a sub-goal.
_META_WORDS = frozenset(
    {"task", "tasks", "whole", "asked", "goal", "step", "steps", "everything", "done"}
    | {"complete", "finish", "finished", "verify", "check", "sure", "request", "instructions"}
)


def _step_names_sub_goal(intent: Intent, history: list[screen.PastStep]) -> bool:
    """The latest step that went through for this sub-goal aimed at a control the sub-goal
    names ("Take a photo" -> 'Shutter'), not at whatever happened to be on screen."""
    step = screen.acted_on(history, intent.sub_goal)
    if step is None:
        return False
    labels = _quoted_labels(step.action) or [step.action]
    words = text_lib.content_words(intent.subject or intent.sub_goal)
    terms = text_lib.expand_terms([w for w in words if w not in _META_WORDS])
    return any(text_lib.label_relevance(terms, label) >= 0.5 for label in labels)


def sub_goal_evidence(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> Evidence:
    """`sub_goal_done` with what kind of evidence backs it (celil_protocols.EVIDENCE_KINDS).

    A switch, a field, a form, the foreground app: `screen`. A control the sub-goal names that
    was tapped and answered (a deleted row gone from its list, a pause shown as resume):
    `screen` or `transition`. A step that merely ran for a sub-goal nothing on screen can
    confirm: `action`, which the agent does not count as done.
    """
    done, why = sub_goal_done(intent, observation, history)
    if not done:
        return Evidence(False, why, "none")
    if intent.kind in _WEAK_KINDS or intent.kind not in _STATE_KINDS | {"delete", "level"}:
        # "A form is open" or "a step for it went through" proves nothing about the values a
        # sub-goal names ("Create a contact for Ann Lee"): those must show on the screen.
        missing = offline_goal.values_missing(intent.sub_goal, observation)
        if missing:
            return Evidence(False, f"{missing[0]!r} is not on the screen", "none")
    if intent.kind in _STATE_KINDS or intent.kind == "delete":
        return Evidence(True, why, "screen")
    if intent.kind == "level":
        return Evidence(True, why, "transition" if "dragged" in why else "screen")
    if intent.kind == "tap":
        return Evidence(True, why, "screen" if "is showing" in why else "transition")
    if intent.kind in ("select", "back", "first_item"):
        return Evidence(True, why, "transition")
    if _step_names_sub_goal(intent, history):
        return Evidence(True, why, "transition")
    return Evidence(True, why, "action")


# A control that flips between two states shows the other state's label once it is in one:
# a running stopwatch shows "Pause", a paused one "Start" or "Resume".
STATE_OPPOSITES = {
    "pause": ("start", "resume", "play"),
    "stop": ("start", "play"),
    "start": ("pause", "stop"),
    "run": ("pause", "stop"),
    "resume": ("pause", "stop"),
    "play": ("pause", "stop"),
}


def already_in_state(subject: str, observation: Observation) -> str | None:
    """For "Tap Pause": the opposite control's label when only it is on screen, else None."""
    key = text_lib.normalize(subject)
    opposites = STATE_OPPOSITES.get(key)
    if not opposites:
        return None
    shown = {
        text_lib.normalize(element_label(observation.ui_elements[i]))
        for i in screen.content_indices(observation)
        if observation.ui_elements[i].is_clickable
    }
    if key in shown:
        return None
    return next((o for o in opposites if o in shown), None)


def _name_parts(value: str) -> list[str]:
    return value.split(None, 1) if len(value.split()) >= 2 else [value]


def fill_done(intent: Intent, observation: Observation) -> tuple[bool, str]:
    elements = observation.ui_elements
    value = intent.value or ""
    holding = [
        i
        for i in screen.fields(observation)
        if text_lib.normalize(screen.field_text(elements[i])) == text_lib.normalize(value)
    ]
    if holding:
        return True, f"a field holds {value!r}"
    chosen = screen.find_text(observation, value, exact=True)
    if (
        chosen is not None
        and not screen.is_field(elements[chosen])
        and screen.form_fields(observation)
    ):
        return True, f"the form shows {value!r} chosen"
    first = screen.find_field(observation, "first name", minimum=0.9)
    last = screen.find_field(observation, "last name", minimum=0.9)
    parts = _name_parts(value)
    if (
        intent.field
        and "name" in intent.field
        and first is not None
        and last is not None
        and (
            len(parts) == 2
            and [screen.field_text(elements[first]), screen.field_text(elements[last])] == parts
        )
    ):
        return True, "first and last name are filled in"
    return False, f"no field holds {value!r} yet"


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


# --------------------------------------------------------------------------------------------
# Planner


def _app_for_clause(clause: str, info: text_lib.GoalInfo) -> str | None:
    apps = text_lib.find_apps(clause)
    if apps:
        return apps[0]
    return info.apps[0] if info.apps else None


def _plan_app(plan: list[str], sub_goal: str) -> str | None:
    """The app of the last "Open X" step at or before `sub_goal` in the plan."""
    app = None
    for step in plan:
        match = _REOPEN.match(step)
        if match and (apps := text_lib.find_apps(match.group(1))):
            app = apps[0]
        if text_lib.normalize(step) == text_lib.normalize(sub_goal):
            break
    return app


def _object_word(info: text_lib.GoalInfo) -> str:
    for word in info.objects:
        if word not in ("calendar", "sms", "filesystem", "storage"):
            return text_lib.stem(word)
    if "send" in info.verbs:
        return "message"
    hint = text_lib.app_hint(info.apps[0]) if info.apps else None
    return text_lib.stem(hint.keywords[0]) if hint and hint.keywords else "item"


def app_segments(info: text_lib.GoalInfo) -> list[str]:
    """The goal cut into runs of clauses that each name a different app, when it names two or
    more apps explicitly ("Create a note in Markor ... Share it ... using Simple SMS Messenger");
    one segment (the goal) otherwise."""
    segments: list[tuple[str | None, list[str]]] = []
    for clause in info.clauses:
        named = text_lib.find_apps(clause) if _names_app(clause) else []
        app = named[0] if named else None
        if segments and (app is None or app == segments[-1][0] or segments[-1][0] is None):
            segments[-1] = (segments[-1][0] or app, [*segments[-1][1], clause])
        else:
            segments.append((app, [clause]))
    named_apps = {app for app, _ in segments if app}
    if len(named_apps) < 2:
        return [info.goal]
    return [". ".join(clauses) for _, clauses in segments]


def _names_app(clause: str) -> bool:
    norm = text_lib.normalize(clause)
    return any(
        text_lib.phrase_in(alias, norm)
        for hint in text_lib.APP_HINTS
        for alias in (hint.label, *hint.aliases)
    )


def _segment_info(segment: str, carried_text: str | None) -> text_lib.GoalInfo:
    """A segment's own goal info; sharing "the content" sends the text an earlier segment wrote."""
    info = text_lib.parse_goal(segment)
    passes_on = re.search(
        r"\b(?:share|send|forward)\s+(?:it|its\s+\w+|that\s+\w+|the\s+(?:whole\s+|entire\s+)?"
        r"(?:note|content|text|file))\b",
        text_lib.read_request(segment)[0],
        re.I,
    )
    if passes_on and "send" in info.verbs:
        info.objects = ["message"]
        keys = {k for k, _ in info.fields}
        if carried_text and not keys & {"message", "text"}:
            info.fields.append(("message", carried_text))
    if passes_on and not any(k == "phone" for k, _ in info.fields):
        info.fields[:0] = [("phone", n) for n in wording.phone_numbers(segment)[:1]]
    if text_lib.phrase_in("share", segment) and "send" not in info.verbs:
        info.verbs.append("send")
        info.objects = ["message"]
        keys = {k for k, _ in info.fields}
        if carried_text and not keys & {"message", "text"}:
            info.fields.append(("message", carried_text))
    return info


def build_plan(info: text_lib.GoalInfo, max_sub_goals: int = 12) -> tuple[list[str], str]:
    """Coarse sub-goals from the goal's clauses; returns (sub_goals, rationale)."""
    segments = app_segments(info) if not info.is_question else [info.goal]
    if len(segments) > 1:
        subs: list[str] = []
        carried: str | None = None
        for segment in segments:
            part = _segment_info(segment, carried)
            subs += build_plan(part, max_sub_goals)[0]
            carried = next((v for k, v in part.fields if k in ("text", "message")), carried)
        rationale = f"{TAG} rule-based plan, one part per app ({', '.join(info.apps)})"
        return list(dict.fromkeys(subs))[:max_sub_goals], rationale
    subs = []
    opened: list[str] = []

    def ensure_app(app: str | None) -> None:
        if app and (not opened or opened[-1] != app):
            subs.append(f"Open {app}")
            opened.append(app)

    for clause in info.clauses:
        if text_lib.forbidden_words(clause) and re.match(
            r"\s*(do not|don't|never)\b", clause, re.I
        ):
            continue
        target = text_lib.parse_open(clause)
        if target is not None:
            ensure_app(target)
            continue
        clause_app = _app_for_clause(clause, info)
        level = text_lib.parse_level(clause)
        toggle = text_lib.parse_toggle(clause)
        if re.search(r"\b(pop-?ups?|permissions?)\b", clause, re.I):
            ensure_app(clause_app)
            subs.append("Allow any permission requests")
        elif level is not None:
            ensure_app(clause_app if clause_app != "Camera" else "Settings")
            subs.append(f"Set {level[0]} to {level[1]}")
        elif toggle is not None:
            implied = text_lib.find_apps(toggle[0]) or [clause_app]
            ensure_app(implied[0])
            subs.append(f"Turn {toggle[0]} {'on' if toggle[1] else 'off'}")
        else:
            ensure_app(clause_app)
    verbs = set(info.verbs)
    obj = _object_word(info)
    forbidden = set(info.forbidden)
    creating = verbs & {"create", "add", "make", "new", "write", "send"}
    fields = dict(info.fields)
    if info.is_question:
        question = text_lib.parse_question(info.goal)
        if question.needs_today and DATE_SOURCE_APP not in info.apps:
            # "Wednesday", "next": relative to today, which the clock shows.
            subs[:0] = [f"Open {DATE_SOURCE_APP}", READ_DATE_SUB_GOAL]
        attribute = text_lib.attribute_question(info.goal) if question.kind == "other" else None
        who = text_lib.when_with_question(info.goal)
        if attribute is not None:  # "the location of my X event": find X, open it, read
            subs += [f"Search for '{attribute[1]}'", f"Open '{attribute[1]}'"]
        elif who is not None:  # "when is my next meeting with X": X's items show their dates
            subs.append(f"Search for '{who}'")
        subs.append(FIND_SUB_GOAL)
    elif info.move is not None:
        item, source, destination = info.move
        subs += [
            f"Tap '{source}'",
            f"Select '{item}'",
            "Tap Move to",
            f"Tap '{destination}'",
            "Tap Move",
        ]
    elif day := text_lib.delete_all_day(info.goal):
        # "Delete all the events on <day>": empty that day's list, whatever its items are.
        if text_lib.is_relative_day(day) and DATE_SOURCE_APP not in info.apps:
            subs[:0] = [f"Open {DATE_SOURCE_APP}", READ_DATE_SUB_GOAL]
        subs.append(f"Delete every {obj} on {day}")
    elif kind := clear.list_kind(info.goal):
        # "Delete all my notes": the app's whole list, whatever its items are called.
        subs.append(clear.sub_goal(kind))
    elif verbs & {"delete", "remove"} and info.targets:
        if info.folder:
            subs.append(f"Tap {info.folder}")
        subs += [f"Delete '{t}'" for t in info.targets]
    elif info.duration is not None:
        if obj in ("timer", "stopwatch", "alarm"):
            subs.append(f"Tap {obj.title()}")
        h, m, sec = info.duration
        subs.append(f"Set the duration to {h} hours {m} minutes {sec} seconds")
        if not forbidden & {"start", "save"} and creating - {"create", "make", "new"}:
            subs.append("Tap Start")
    elif info.edit or info.append or info.prepend:
        if info.edit:
            subs.append(f"Tap '{info.edit}'")
        if info.prepend:
            subs.append(f"Prepend '{info.prepend}' to the text")
        if info.append:
            subs.append(f"Append '{info.append}' to the text")
        subs += [f"Enter '{v}' as the {k}" for k, v in info.fields if k == "text"]
        if "save" not in forbidden:
            subs.append("Tap Save")
    elif "reply" in verbs:
        if "phone" in fields:
            subs.append(f"Tap '{fields['phone']}'")
        else:
            subs.append("Open the most recent conversation")
        subs += [f"Enter '{v}' as the {k}" for k, v in info.fields if k != "phone"]
        subs.append("Tap Send")
    elif creating and len(info.records) >= 2:
        # One round per record; the ordinal keeps each round's sub-goals apart.
        for n, record in enumerate(info.records[: len(ORDINALS)]):
            tag = f" ({ORDINALS[n]})"
            subs.append(f"Start a new {obj}{tag}")
            subs += [f"Enter '{v}' as the {k}{tag}" for k, v in record]
            subs.append(f"Tap Save{tag}")
        max_sub_goals = max(max_sub_goals, len(subs) + 2)
    elif info.fields or creating:
        if creating and not info.toggles:
            subs.append(f"Start a new {obj}")
        for field, value in info.fields:
            if not _CLIPBOARD.search(value):  # "the clipboard's text" is pasted, not typed
                subs.append(f"Enter '{value}' as the {field}")
        subs += when_sub_goals(info.when)
        repeat = text_lib.repetition(info.goal)
        if repeat:  # "recurs weekly": the form's repetition control, then the choice
            subs += ["Tap Repetition", f"Tap {repeat}"]
        relative = info.when is not None and text_lib.is_relative_day(info.when.date)
        if relative and DATE_SOURCE_APP not in info.apps:  # "for tomorrow": read today first
            subs[:0] = [f"Open {DATE_SOURCE_APP}", READ_DATE_SUB_GOAL]
        if "send" in verbs and "send" not in forbidden:
            subs.append("Tap Send")
        elif "save" not in forbidden and (info.fields or creating):
            subs.append("Tap Save")
    elif verbs & {"take", "record", "start", "run", "pause", "stop", "reset"} and not (
        info.toggles or info.levels
    ):
        if obj in ("stopwatch", "timer", "alarm"):
            subs.append(f"Tap {obj.title()}")
        if "record" in verbs and ("audio" in obj or "Audio Recorder" in info.apps):
            # A recorder records from its Record button until Stop, which also saves the file.
            subs += ["Tap Record", "Tap Stop"]
        elif verbs & {"take", "record"} and obj in ("video", "clip", "movie"):
            # A camera records in video mode, from the shutter until it is stopped.
            subs += ["Tap Video", "Start recording", "Stop recording"]
        elif verbs & {"take", "record"}:
            subs.append(f"Take a {obj}" if obj != "item" else "Take it")
        elif verbs & {"start", "run"}:
            subs.append("Tap Start")
        elif "pause" in verbs or "stop" in verbs:
            subs.append("Tap Pause" if "pause" in verbs else "Tap Stop")
        elif "reset" in verbs:
            subs.append("Tap Reset")
    if not subs or (
        all(s.startswith("Open ") for s in subs)
        and not any(text_lib.parse_open(c) for c in info.clauses)
    ):
        subs += [c for c in info.clauses if c]
    if _PASTE_GOAL.search(info.goal) and subs and subs[-1] in ("Tap Send", "Tap Save"):
        subs.insert(len(subs) - 1, "Paste the clipboard into the text")
    deduped = list(dict.fromkeys(subs))[:max_sub_goals]
    rationale = (
        f"{TAG} rule-based plan from the goal's clauses"
        f" (apps: {', '.join(info.apps) or 'none named'})"
    )
    return deduped, rationale


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


def _middle(element) -> float:
    box = element.bbox_pixels or element.bbox
    return (box.y_min + box.y_max) / 2 if box is not None else 0.0


def _weekday_year(shown: str | None) -> int | None:
    """The latest year up to now in which a date shown with its weekday ("Sun, Oct 15") falls
    on that weekday."""
    match = re.match(r"\s*(mon|tue|wed|thu|fri|sat|sun)\w*,?\s+(.+)$", shown or "", re.I)
    if not match:
        return None
    this_year = datetime.date.today().year
    for year in range(this_year, this_year - 12, -1):
        day = text_lib.parse_date(match.group(2), default_year=year)
        if day is not None and day.strftime("%a").lower() == match.group(1).lower()[:3]:
            return year
    return None


def _dated_list(obs: Observation, year: int) -> bool:
    """A list whose items each show a date (to-dos, bills): read row by row, not as a day view
    (whose date is its title)."""
    dated = 0
    for item in screen.list_items(obs):
        texts = screen.item_texts(obs, item)
        if any(text_lib.parse_date(t, default_year=year) is not None for t in texts):
            dated += 1
    return dated >= 2


@dataclasses.dataclass(frozen=True)
class RowWants:
    """What a question asks of a list item besides its date: labels it must carry ("high
    priority") and whether its check box must be done (True), open (False) or either (None)."""

    labels: tuple[str, ...]
    done: bool | None


def _row_wants(goal: str) -> RowWants:
    text = goal.lower()
    labels = tuple(
        dict.fromkeys(m.group(0) for m in re.finditer(r"\b(?:high|low|medium)[ -]priority\b", text))
    )
    labels = tuple(label.replace("-", " ") for label in labels)
    if re.search(
        r"\b(?:incomplete|not (?:yet )?(?:completed|done|finished)|unfinished|still (?:have|need) to)\b",
        text,
    ):
        done: bool | None = False
    elif re.search(r"\b(?:completed|finished|done|checked off)\b", text):
        done = True
    else:
        done = None
    return RowWants(labels, done)


_FOUND_FACT = re.compile(r"Find the information[^:\n]*:[ \t]*([^\n;]+)")


def found_answer(context_summary: str) -> str:
    """The answer the executor reported when it finished the question's sub-goal, if any."""
    found = _FOUND_FACT.findall(context_summary or "")
    return found[-1].strip() if found else ""


def question_answer(goal: str, observation: Observation, context_summary: str) -> str:
    """A best-effort answer: what the executor read off the screens for the question, else the
    screen line that shares the most words with it (never invented: empty when nothing
    relates)."""
    reported = found_answer(context_summary)
    if reported:
        return reported if text_lib.answer_fits(goal, reported) else ""
    info = text_lib.parse_goal(goal)
    wanted = set(text_lib.content_words(goal)) - {"answer", "titles", "only", "format", "list"}
    for app in info.apps:
        wanted -= set(text_lib.content_words(app))
    candidates = screen.screen_text(observation)
    for line in (context_summary or "").splitlines():
        if "|" in line:
            candidates += [p.strip() for p in re.split(r"\|+", line) if p.strip()]
    if re.search(r"\bhow many\b", goal, re.I):
        numbers = [c for c in candidates if re.fullmatch(r"\d+", c.strip())]
        return numbers[0] if numbers else ""
    scored = []
    for line in candidates:
        line_words = set(text_lib.content_words(line))
        overlap = len(line_words & wanted)
        if overlap and len(line) < 120:
            scored.append((overlap, line))
    scored = [(n, line) for n, line in scored if text_lib.answer_fits(goal, line)]
    if not scored:
        return ""
    scored.sort(key=lambda pair: -pair[0])
    return scored[0][1]


_UNFILLED_SLOT = re.compile(r"\{[a-z]+_\d+\}")


def _plan_values(plan: list[str]) -> tuple[set[str], set[str]]:
    """Quoted values (normalised) and numbers (no leading zeros) a plan's steps mention."""
    quoted: set[str] = set()
    numbers: set[str] = set()
    for step in plan:
        quoted.update(text_lib.normalize(v) for v in text_lib.quoted_values(step))
        unquoted = _unquoted(step)
        numbers.update(n.lstrip("0") or "0" for n in re.findall(r"\d+", unquoted))
    return quoted, numbers


def _unquoted(step: str) -> str:
    """The step with its quoted values blanked out (their digits are values, not counts)."""
    for start, end in reversed(text_lib.quoted_spans(step)):
        step = step[:start] + " " + step[end:]
    return step


def _value_order(plan: list[str], keep: set[str]) -> list[str]:
    """The plan's quoted values among `keep`, first mention order."""
    values = [text_lib.normalize(v) for step in plan for v in text_lib.quoted_values(step)]
    return list(dict.fromkeys(v for v in values if v in keep))


def _opened_apps(plan: list[str]) -> set[str]:
    apps = set()
    for step in plan:
        match = _REOPEN.match(" ".join(step.split()).rstrip("."))
        if match and (found := text_lib.find_apps(match.group(1))):
            apps.add(found[0])
    return apps


def plan_misfit(plan: list[str], info: text_lib.GoalInfo, own_plan: list[str]) -> str | None:
    """Why a remembered plan does not fit this goal, or None when it does.

    Memory fills a plan's slots with this goal's values, but a value the abstraction missed is
    still the old episode's (a name, a number, a list item), and acting on it does the wrong
    task. So: every quoted value and number in the remembered plan must come from this goal;
    every value and app that this planner's own plan uses must be in it (a plan for a one-item
    delete does not serve a three-item one); and it may open only apps this goal needs.
    """
    for step in plan:
        if _UNFILLED_SLOT.search(step):
            return f"unfilled slot in {step!r}"
        for value in text_lib.quoted_values(step):
            if not text_lib.value_in_goal(value, info.goal):
                return f"{value!r} is not in this goal"
    goal_numbers = {n.lstrip("0") or "0" for n in re.findall(r"\d+", info.goal)}
    quoted, numbers = _plan_values(plan)
    # Zero is a default ("0 seconds" of a goal that names none), never another goal's value.
    stray = sorted(numbers - goal_numbers - {"0"})
    if stray:
        return f"number {stray[0]} is not in this goal"
    own_quoted, own_numbers = _plan_values(own_plan)
    missing = sorted((own_quoted - quoted) | (own_numbers - numbers - {"0"}))
    if missing:
        return f"it leaves out {missing[0]!r}, which this goal needs"
    if _value_order(plan, own_quoted) != _value_order(own_plan, own_quoted):
        return "it uses this goal's values in another order (source and target swapped?)"
    extra_apps = sorted(_opened_apps(plan) - _opened_apps(own_plan) - set(info.apps))
    if extra_apps:
        return f"it opens {extra_apps[0]}, which this goal does not need"
    # "Wednesday" needs the clock's date first, "October 18" does not: same template, not plan.
    missing_apps = sorted(_opened_apps(own_plan) - _opened_apps(plan))
    if missing_apps:
        return f"it never opens {missing_apps[0]}, which this goal needs"
    return None


# The goal's content is the clipboard's ("with the clipboard content", "perform a paste",
# "whatever is on the clipboard").
_PASTE_GOAL = re.compile(
    r"\bpaste\b|\bclipboard(?:'s)?\s+(?:content|contents|text)\b|\bon\s+(?:the|my)\s+clipboard\b|\bcopied\s+text\b",
    re.I,
)
_CLIPBOARD = re.compile(r"\bclipboard\b", re.I)

# The planner's own step for a camera goal ("Take a photo"), which the executor reads as is.
_TAKE = re.compile(r"^take\s+(?:a|an|one)\s+\w+$|^take it$", re.I)


def _screen_answer(goal: str, observation: Observation, context: str) -> str | None:
    """The best screen line for a question, unless it is a qualifier ("Low priority") where
    the question asks for the titles that qualifier picks out."""
    answer = question_answer(goal, observation, context) or None
    if answer and text_lib.asks_for_titles(goal) and text_lib.is_qualifier_label(answer):
        return None
    return answer


# "Delete the recipes that use olives in the directions": which rows go depends on what each
# holds inside, which the planner's steps never open and read.
_PICKED_BY_CONTENT = re.compile(
    r"\b(?:delete|remove|erase)\b[^.]{0,80}?\b(?:that|which)\s+"
    r"(?:use|uses|contain|contains|mention|mentions|include|includes)\b",
    re.I,
)


# "Add the recipes from the Markor note recipes.txt to Broccoli": the entries are a file's
# content, which the planner's steps never read.
_READ_FROM_FILE = re.compile(
    r"\b(?:from|listed in|in|open|go through|of)\s+(?:the\s+)?(?:markor\s+)?(?:note\s+|file\s+)?"
    r"['\"]?[\w.-]+\.(?:txt|md)\b",
    re.I,
)


def not_understood(info: text_lib.GoalInfo, plan: list[str]) -> str | None:
    """Why this plan does not carry out the goal as written, or None.

    A clause the planner could not turn into steps stays in the plan verbatim, and a value the
    goal gives (a quoted text, a phone number, an amount, a file name) that no step uses was not
    read; acting on such a plan does some other task and may end `complete` on it.
    """
    if info.is_question:
        return None
    if _PICKED_BY_CONTENT.search(info.goal):
        return "it picks the items by what they hold, which no step reads"
    if len(info.apps) >= 2 and _READ_FROM_FILE.search(info.goal):
        return "it copies what a file lists into another app, which no step reads"
    clauses = {text_lib.normalize(c) for c in info.clauses}
    for step in plan:
        if (
            text_lib.normalize(step) in clauses
            and parse_sub_goal(step, info).kind == "generic"
            and not _TAKE.match(step)
        ):
            return f"no step for {step!r}"
    used = " ".join(plan)
    for value in offline_goal.given_values(info):
        value = value.rstrip(".!?") or value
        parts = [p for p in re.split(r",\s*(?:and\s+)?|\s+and\s+", value) if p.strip()]
        if not text_lib.value_in_goal(value, used) and not all(
            text_lib.value_in_goal(p, used) for p in parts
        ):
            return f"no step uses {value!r}"
    return None


class OfflinePlanner(Planner, ScreenChecker):
    """Planner protocol without a model: clause-by-clause plans, screen-based progress checks."""

    reads_screen = True  # its progress check is the agent's screen check (no model call)

    def __init__(self, *, max_sub_goals: int = 12, **_ignored: Any):
        self.max_sub_goals = max_sub_goals
        self._rehearsals = 0

    def generate_initial_plan(
        self, goal: str, observation: Observation, retrieved_plan: list[str] | None
    ) -> Plan:
        self._rehearsals = 0
        info = text_lib.parse_goal(goal, screen.launcher_labels(observation))
        sub_goals, rationale = build_plan(info, self.max_sub_goals)
        warnings: list[str] = []
        if retrieved_plan:
            misfit = plan_misfit(retrieved_plan, info, sub_goals)
            if misfit is None:
                return Plan(
                    list(retrieved_plan)[: self.max_sub_goals],
                    rationale=f"{TAG} reusing a verified plan from episodic memory",
                    source=SOURCE,
                )
            warnings.append(f"remembered plan not reused: {misfit}")
        return Plan(
            sub_goals,
            rationale=rationale,
            source=SOURCE,
            warnings=warnings,
            not_understood=not_understood(info, sub_goals),
        )

    def generate_corrective_plan(self, failure_context: FailureContext) -> Plan:
        """Keep the unfinished sub-goals and put a recovery step before them: go back after a
        loop, reopen the app when it left the foreground; the executor then tries the next
        candidate because it remembers what failed on each screen."""
        ctx = failure_context
        self._rehearsals += 1
        done = {text_lib.normalize(s) for s in ctx.done_sub_goals}
        remaining = [s for s in ctx.plan if text_lib.normalize(s) not in done]
        if ctx.kind == "missing_control":
            # The step names a control this app does not show; what it was for is judged by
            # the goal check, so the plan goes on without it.
            failed = text_lib.normalize(ctx.failed_sub_goal)
            remaining = [s for s in remaining if text_lib.normalize(s) != failed]
        info = text_lib.parse_goal(ctx.goal)
        intent = parse_sub_goal(ctx.failed_sub_goal or (remaining[0] if remaining else ""), info)
        app = (
            intent.app
            or _plan_app(ctx.plan, ctx.failed_sub_goal)
            or (info.apps[0] if info.apps else None)
        )
        prefix: list[str] = []
        n = self._rehearsals
        in_app = app is not None and text_lib.activity_matches_app(
            ctx.observation.foreground_activity, app
        )
        if ctx.kind == "no_answer":
            prefix = [f"Find the information the question asks for (attempt {n})"]
        elif app and not in_app and intent.kind != "open":
            prefix = [f"Reopen {app} (attempt {n})"]
        elif ctx.kind == "loop" and intent.kind not in ("back", "open"):
            prefix = [f"Go back (attempt {n})"]
        why = "; ".join(ctx.reasons)[:200]
        return Plan(
            prefix + remaining,
            rationale=f"{TAG} after {ctx.kind} on '{ctx.failed_sub_goal}': {why}",
            source=SOURCE,
            recovery_sub_goals=list(prefix),
        )

    def check_sub_goal(
        self, goal: str, sub_goal: str, observation: Observation, context_summary: str
    ) -> Evidence:
        """The progress check with its evidence; the agent counts only screen-backed kinds."""
        intent = parse_sub_goal(sub_goal, text_lib.parse_goal(goal))
        intent = with_today(intent, _fact_today(context_summary), observation)
        return sub_goal_evidence(intent, observation, screen.parse_history(context_summary))

    def check_goal(
        self, goal: str, trail: Sequence[TrailStep], observation: Observation
    ) -> GoalVerdict:
        """The whole goal against the episode's screens (see `offline_goal.check_goal`)."""
        return offline_goal.check_goal(goal, trail, observation)

    def covers_goal(self, goal: str, sub_goal: str) -> bool:
        return offline_goal.covers_goal(goal, sub_goal)

    def control_shown(self, sub_goal: str, observation: Observation) -> bool | None:
        return offline_goal.control_shown(sub_goal, observation)

    def values_missing(
        self, sub_goal: str, observation: Observation, seen: Sequence[str] = ()
    ) -> list[str]:
        return offline_goal.values_missing(sub_goal, observation, seen)

    def is_sub_goal_done(
        self, goal: str, sub_goal: str, observation: Observation, context_summary: str
    ) -> bool:
        evidence = self.check_sub_goal(goal, sub_goal, observation, context_summary)
        return evidence.done and evidence.kind != "action"

    def answer_question(
        self, goal: str, observation: Observation, context_summary: str
    ) -> str | None:
        if not text_lib.parse_goal(goal).is_question:
            return None
        return question_answer(goal, observation, context_summary)


# --------------------------------------------------------------------------------------------
# Executor


def _action(kind: str, **fields: Any) -> json_action.JSONAction:
    return json_action.JSONAction(action_type=kind, **fields)


def _key(action: json_action.JSONAction) -> str:
    return action.json_str()


def _typing_took(key: str, observation: Observation) -> bool:
    """The last action typed into a field and the field now holds the text. The screen's
    signature leaves typed text out, so a form looks unchanged after typing; counted a dud, the
    same typing on the next record's empty form (same name twice) was never proposed again."""
    try:
        action = json.loads(key)
    except ValueError:
        return False
    index = action.get("index")
    if action.get("action_type") != json_action.INPUT_TEXT or not isinstance(index, int):
        return False
    if not 0 <= index < len(observation.ui_elements):
        return False
    held = screen.field_text(observation.ui_elements[index])
    return bool(held) and text_lib.normalize(held) == text_lib.normalize(action.get("text"))


def _claimed_by_other_slot(
    obs: Observation, index: int, field: str, fields: list[tuple[str, str]]
) -> bool:
    """Whether the field's label names another of the goal's slots (a "Name" box is not where
    the note's text goes)."""
    names = screen.element_names(obs, index)
    return any(
        text_lib.label_relevance(text_lib.field_terms(other), n) >= 0.8
        for other, _ in fields
        if other != field
        for n in names
    )


def _named_for_something_else(obs: Observation, index: int, field: str) -> bool:
    """Whether the field carries a name of its own that has nothing to do with this slot: the
    recipe's directions do not go into an empty "Source" box because it is the only empty one
    left, nor an SMS text into "Add Contact or Number"."""
    element = obs.ui_elements[index]
    names = [n for n in screen.element_names(obs, index) if n != screen.field_text(element)]
    if not names:
        return False
    terms = text_lib.field_terms(field)
    return max(text_lib.label_relevance(terms, n) for n in names) < 0.3


class OfflineActionGenerator(ActionGenerator):
    """ActionGenerator protocol without a model: grounds the sub-goal on the screen by words.

    It remembers, per sub-goal and screen, which actions it already tried and which changed
    nothing (or were rejected by the verifiers), so after a rehearsal it tries the next
    candidate instead of repeating itself.
    """

    def __init__(self, *, goal: str | None = None, **_ignored: Any):
        self._goal = goal or ""
        self._info: text_lib.GoalInfo | None = None
        self.reset()

    def reset(self) -> None:
        self._tried: dict[tuple[str, str], set[str]] = {}
        self._duds: dict[str, set[str]] = {}
        self._scrolls: dict[tuple[str, str], int] = {}
        self._last: tuple[str, str, str] | None = None  # (screen, action key, sub-goal)
        # What reading a question has gathered so far, across scrolls and screens.
        self._today: str | None = None
        self._tally: dict[tuple[str, float], float] = {}
        self._rows: dict[tuple[str, tuple[int, int], tuple[int, int]], datetime.date] = {}
        self._dated: dict[tuple[str, datetime.date], bool] = {}
        self._menu_for_done = False
        self._selected_all: set[str] = set()  # sub-goals whose selection holds every item
        self._next_offset = 0
        self._when_targets: dict[str, datetime.datetime] = {}

    def set_goal(self, goal: str) -> None:
        if goal != self._goal:
            self._goal = goal
            self._info = None
            self.reset()

    def discard_last_turn(self) -> None:
        """The verifiers rejected the last proposal: never propose it on that screen again."""
        if self._last is not None:
            signature, key, _ = self._last
            self._duds.setdefault(signature, set()).add(key)
            self._last = None

    def _goal_info(self, context_summary: str, observation: Observation) -> text_lib.GoalInfo:
        goal = screen.goal_from_context(context_summary) or self._goal
        if goal != self._goal:
            self.set_goal(goal)
        if self._info is None:
            self._info = text_lib.parse_goal(goal, screen.launcher_labels(observation))
        return self._info

    def generate_action(
        self, sub_goal: str, observation: Observation, context_summary: str
    ) -> ProposedAction:
        info = self._goal_info(context_summary, observation)
        signature = screen.screen_signature(observation)
        if (
            self._last is not None
            and self._last[0] == signature
            and not _typing_took(self._last[1], observation)
        ):
            # The last action ran and the screen did not change: it is a dud here.
            self._duds.setdefault(signature, set()).add(self._last[1])
        self._last = None
        intent = parse_sub_goal(sub_goal, info)
        self._today = self._today or _fact_today(context_summary)
        intent = with_today(intent, self._today, observation)
        history = screen.parse_history(context_summary)
        evidence = sub_goal_evidence(intent, observation, history)
        if evidence.done and evidence.kind != "action":
            return ProposedAction(
                None,
                thought=f"{TAG} the sub-goal is already done: {evidence.text}",
                sub_goal_finished=True,
                finished_content=None,
            )
        closing = self._close_interruption(observation, signature, sub_goal)
        if closing is not None:
            return closing
        reading = self._read(intent, info, observation, context_summary)
        if reading is not None:
            content, why = reading
            return ProposedAction(
                None,
                thought=f"{TAG} {why}",
                sub_goal_finished=True,
                finished_content=content,
            )
        action, thought, target = self._choose(intent, info, observation, history, signature)
        leaving = action is None or action.action_type in (
            json_action.NAVIGATE_BACK,
            json_action.OPEN_APP,
        )
        if intent.kind == "find" and leaving:
            # Nothing left to look at here: answer from what has been seen rather than wander.
            return ProposedAction(
                None,
                thought=f"{TAG} nothing more to explore for the question; answering from the screen",
                sub_goal_finished=True,
                finished_content=_screen_answer(info.goal, observation, context_summary),
            )
        if action is None:
            return ProposedAction(None, thought=f"{TAG} {thought}", error=f"{TAG} {thought}")
        self._last = (signature, _key(action), sub_goal)
        self._tried.setdefault((sub_goal, signature), set()).add(_key(action))
        return ProposedAction(
            action, thought=f"{TAG} {thought}", target_description=target, is_safe=None
        )

    def _close_interruption(
        self, observation: Observation, signature: str, sub_goal: str
    ) -> ProposedAction | None:
        """Close a pop-up the app showed on its own before anything else: read through, its
        title passes for content (a question answered "What's new in Simple Calendar Pro")."""
        index = screen.interruption_button(observation)
        if index is None:
            return None
        action = _action(json_action.CLICK, index=index)
        if not self._usable(action, signature):
            action = _action(json_action.NAVIGATE_BACK)
            if not self._usable(action, signature):
                return None
        self._last = (signature, _key(action), sub_goal)
        label = element_label(observation.ui_elements[index])
        return ProposedAction(
            action,
            thought=f"{TAG} close the pop-up in the way ({label})",
            target_description=label,
            is_safe=None,
        )

    # --- choosing ----------------------------------------------------------------------------

    def _usable(self, action: json_action.JSONAction, signature: str) -> bool:
        return _key(action) not in self._duds.get(signature, set())

    def _choose(
        self,
        intent: Intent,
        info: text_lib.GoalInfo,
        obs: Observation,
        history: list[screen.PastStep],
        signature: str,
    ) -> tuple[json_action.JSONAction | None, str, str]:
        elements = obs.ui_elements
        if intent.kind == "open":
            action = _action(json_action.OPEN_APP, app_name=intent.app)
            if self._usable(action, signature):
                return action, f"open {intent.app}", intent.app or ""
            return self._navigate(intent, info, obs, signature)
        grant = screen.grant_button(obs)
        if grant is not None:
            action = _action(json_action.CLICK, index=grant)
            if self._usable(action, signature):
                return (
                    action,
                    "accept the permission request in the way",
                    element_label(elements[grant]),
                )
        if intent.kind == "permission":
            return None, "no permission request to accept", ""
        if intent.kind == "back":
            return _action(json_action.NAVIGATE_BACK), "go back to recover", "back"
        away = self._leave_other_app(intent, info, obs, signature)
        if away is not None:
            return away
        if intent.kind == "toggle":
            index = screen.find_switch(obs, intent.subject)
            if index is not None:
                action = _action(json_action.CLICK, index=index)
                if self._usable(action, signature):
                    state = "on" if intent.state else "off"
                    return (
                        action,
                        f"flip the {intent.subject} switch {state}",
                        element_label(elements[index]),
                    )
        if intent.kind == "level":
            index = screen.find_slider(obs, intent.subject)
            if index is not None:
                # Scroll names the content direction: "left" moves the finger right (maximum).
                direction = "left" if intent.level == "max" else "right"
                action = _action(json_action.SCROLL, index=index, direction=direction)
                if self._usable(action, signature):
                    return (
                        action,
                        f"drag the {intent.subject} slider to its {intent.level}",
                        element_label(elements[index]),
                    )
        specific = {
            "when": lambda: self._when(intent, obs, signature),
            "fill": lambda: self._fill(intent, obs, signature, info.fields),
            "append": lambda: self._add_text(intent, obs, signature, at_top=False),
            "prepend": lambda: self._add_text(intent, obs, signature, at_top=True),
            "keypad": lambda: self._keypad(intent, obs, signature),
            "delete": lambda: self._delete(intent, obs, signature),
            "delete_all": lambda: self._delete_all(intent, obs, signature),
            "clear": lambda: self._clear(intent, obs, signature),
            "search": lambda: self._search(intent, obs, signature),
            "open_item": lambda: self._open_item(intent, obs, signature),
            "first_item": lambda: self._first_item(obs, signature),
            "select": lambda: self._select(intent, obs, signature),
            "paste": lambda: self._paste(obs, signature),
        }.get(intent.kind)
        chosen = specific() if specific is not None else None
        if chosen is not None:
            return chosen
        if intent.kind == "find":
            return self._find(intent, info, obs, history, signature)
        return self._navigate(intent, info, obs, signature)

    def _click(
        self, obs: Observation, index: int, signature: str, why: str, long: bool = False
    ) -> tuple[json_action.JSONAction, str, str] | None:
        kind = json_action.LONG_PRESS if long else json_action.CLICK
        action = _action(kind, index=index)
        if not self._usable(action, signature):
            return None
        label = element_label(obs.ui_elements[index])
        return action, f"{why} ({label!r})", label

    def _add_text(
        self, intent: Intent, obs: Observation, signature: str, at_top: bool
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """Typing goes to the end of a field, so adding at the top rewrites the field: the new
        line, then what it held."""
        candidates = screen.form_fields(obs)
        if not candidates:
            return None
        index = screen.find_field(obs, intent.field or "text") or candidates[0]
        if at_top:
            current = screen.field_text(obs.ui_elements[index])
            text = f"{intent.value}\n{current}" if current else intent.value or ""
            action = _action(json_action.INPUT_TEXT, index=index, text=text, clear_text=True)
        else:
            action = _action(json_action.INPUT_TEXT, index=index, text=intent.value)
        if not self._usable(action, signature):
            return None
        where = "top" if at_top else "end"
        return (
            action,
            f"add {intent.value!r} at the {where} of the text",
            element_label(obs.ui_elements[index]),
        )

    def _paste(
        self, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """Android pastes from a text field's long-press menu: choose Paste when it shows,
        else hold the text field (the last one: a message box, a note's body)."""
        for i in screen.content_indices(obs):
            element = obs.ui_elements[i]
            if element.is_clickable and text_lib.normalize(element_label(element)) == "paste":
                return self._click(obs, i, signature, "paste the clipboard")
        fields = screen.fields(obs)
        if not fields:
            return None
        if all(screen.field_text(obs.ui_elements[i]) for i in fields):
            # A filled form (a new file's name) stands before the body the paste goes into.
            for i in screen.content_indices(obs):
                element = obs.ui_elements[i]
                if element.is_clickable and text_lib.normalize(element_label(element)) in (
                    CONFIRM_LABELS
                ):
                    return self._click(obs, i, signature, "confirm the form first")
        return self._click(obs, fields[-1], signature, "hold the text field for Paste", long=True)

    def _keypad(
        self, intent: Intent, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        shown = screen.keypad_digits(obs)
        target = intent.value or ""
        if shown is None:
            return None
        typed = "" if shown == "0" else shown
        if not target.startswith(typed) or len(typed) >= len(target):
            return None
        digit = target[len(typed)]
        index = screen.digit_button(obs, digit)
        if index is None:
            return None
        return self._click(obs, index, signature, f"key in the next digit {digit}")

    def _delete(
        self, intent: Intent, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        elements = obs.ui_elements
        for i in screen.content_indices(obs):
            element = elements[i]
            name = text_lib.normalize(element_label(element))
            if element.is_clickable and name in DELETE_LABELS:
                chosen = self._click(obs, i, signature, "delete")
                if chosen is not None:
                    return chosen
        confirm = screen.confirm_button(obs, "delet")
        if confirm is not None:
            chosen = self._click(obs, confirm, signature, "confirm the deletion")
            if chosen is not None:
                return chosen
        target = screen.find_text(obs, intent.subject, skip_titles=True)
        if target is not None:
            # Lists usually select an item for deletion on a long press; if that does nothing
            # here, opening the item (where a Delete control may be) is the next candidate.
            tried = self._tried.get((intent.sub_goal, signature), set())
            press = _action(json_action.LONG_PRESS, index=target)
            chosen = None
            if _key(press) not in tried:
                chosen = self._click(
                    obs, target, signature, f"select {intent.subject!r}", long=True
                )
            if chosen is None:
                chosen = self._click(obs, target, signature, f"open {intent.subject!r}")
            if chosen is not None:
                return chosen
        day = self._day_cell(obs, signature, intent)
        if target is None and day is not None:
            return day
        if target is None:
            scroll = self._scroll_for(intent, obs, signature, f"scroll to find {intent.subject!r}")
            if scroll is not None:
                return scroll
        tried = self._tried.get((intent.sub_goal, signature), set())
        for i in screen.content_indices(obs):
            if text_lib.normalize(element_label(elements[i])) == "more options":
                if _key(_action(json_action.CLICK, index=i)) in tried:
                    continue
                chosen = self._click(obs, i, signature, "look for delete in the menu")
                if chosen is not None:
                    return chosen
        return None

    def _delete_all(
        self, intent: Intent, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """Empty one day's list: confirm a deletion, delete a selection, select the first row
        of the day (opening it when a long press does nothing), or go to the day."""
        confirm = screen.confirm_button(obs, "delet")
        if confirm is not None:
            return self._click(obs, confirm, signature, "confirm the deletion")
        for i in screen.content_indices(obs):
            element = obs.ui_elements[i]
            if element.is_clickable and text_lib.normalize(element_label(element)) in DELETE_LABELS:
                chosen = self._click(obs, i, signature, "delete the selection")
                if chosen is not None:
                    return chosen
        target = text_lib.parse_date(intent.value, default_year=screen.shown_year(obs))
        day, rows = screen.day_view(obs)
        if target is not None and day == target and rows:
            index = screen.find_text(obs, rows[0].title, skip_titles=True)
            if index is not None:
                why = f"select {rows[0].title!r}"
                chosen = self._click(obs, index, signature, why, long=True)
                return chosen or self._click(obs, index, signature, f"open {rows[0].title!r}")
        if target is not None:
            return self._go_to_day(intent, obs, signature, target)
        return None

    def _clear(
        self, intent: Intent, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """Empty the app's list (offline_clear): select a row, Select all, Delete, confirm."""
        tap = clear.next_tap(obs, intent.sub_goal in self._selected_all)
        if tap is None:
            return None
        chosen = self._click(obs, tap.index, signature, tap.why, long=tap.long)
        if chosen is not None and tap.selects_all:
            self._selected_all.add(intent.sub_goal)
        elif chosen is not None and not tap.long:
            self._selected_all.discard(intent.sub_goal)  # deleted: a new round selects anew
        return chosen

    def _search(
        self, intent: Intent, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """Type the query into a search box, or open the search box first."""
        boxes = [i for i in screen.fields(obs) if i not in screen.form_fields(obs)]
        if boxes:
            action = _action(json_action.INPUT_TEXT, index=boxes[0], text=intent.value)
            if self._usable(action, signature):
                return (
                    action,
                    f"search for {intent.value!r}",
                    element_label(obs.ui_elements[boxes[0]]),
                )
        for i in screen.content_indices(obs):
            element = obs.ui_elements[i]
            names = text_lib.normalize(" ".join(screen.labels(element)))
            if element.is_clickable and any(w in names.split() for w in screen.SEARCH_WORDS):
                chosen = self._click(obs, i, signature, "open the search")
                if chosen is not None:
                    return chosen
        return None

    def _open_item(
        self, intent: Intent, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """Tap the item the goal names in a list (not the search box that holds its name)."""
        key = text_lib.normalize(intent.subject)
        for i in screen.content_indices(obs):
            element = obs.ui_elements[i]
            if screen.is_field(element) or screen.in_title_bar(element, obs.screen_size):
                continue
            if text_lib.normalize(element.text) == key:
                chosen = self._click(obs, i, signature, f"open {intent.subject!r}")
                if chosen is not None:
                    return chosen
        return self._scroll_for(intent, obs, signature, f"scroll to find {intent.subject!r}")

    def _overflow_menu(
        self, intent: Intent, obs: Observation, signature: str, tried: set[str]
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """The screen's overflow menu button, once per screen and sub-goal, for tap sub-goals."""
        if intent.kind not in ("tap", "generic"):
            return None
        for i in screen.content_indices(obs):
            element = obs.ui_elements[i]
            label = text_lib.normalize(element_label(element))
            if element.is_clickable and label in OVERFLOW_LABELS:
                if _key(_action(json_action.CLICK, index=i)) in tried:
                    return None
                return self._click(obs, i, signature, "look for it in the overflow menu")
        return None

    def _select(
        self, intent: Intent, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """Lists select an item on a long press (then act on the selection from the bar)."""
        target = screen.find_text(obs, intent.subject, skip_titles=True)
        if target is not None:
            return self._click(obs, target, signature, f"select {intent.subject!r}", long=True)
        return self._scroll_for(intent, obs, signature, f"scroll to find {intent.subject!r}")

    def _scroll_for(
        self, intent: Intent, obs: Observation, signature: str, why: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """One more scroll down a list that has more below (bounded per screen and sub-goal)."""
        scroll_key = (intent.sub_goal, signature)
        if (
            screen.more_below(obs) is None
            or self._scrolls.get(scroll_key, 0) >= MAX_SCROLLS_PER_SCREEN
        ):
            return None
        action = _action(json_action.SCROLL, direction="down")
        if not self._usable(action, signature):
            return None
        self._scrolls[scroll_key] = self._scrolls.get(scroll_key, 0) + 1
        return action, why, "list"

    def _day_cell(
        self, obs: Observation, signature: str, intent: Intent
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """On a calendar grid, the goal's day number opens that day (once per screen)."""
        day = self._info.day if self._info is not None else None
        if not day:
            return None
        tried = self._tried.get((intent.sub_goal, signature), set())
        for i in screen.content_indices(obs):
            if (obs.ui_elements[i].text or "").strip() == day:
                if _key(_action(json_action.CLICK, index=i)) in tried:
                    return None
                return self._click(obs, i, signature, f"open day {day} of the calendar")
        return None

    def _first_item(
        self, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        container = next(
            (i for i in screen.content_indices(obs) if obs.ui_elements[i].is_scrollable), None
        )
        if container is None:
            return None
        box = element_box(obs.ui_elements[container], obs.screen_size)
        items = []
        for i in screen.content_indices(obs):
            element = obs.ui_elements[i]
            item_box = element_box(element, obs.screen_size)
            if i == container or not element.text or item_box is None or box is None:
                continue
            if box.y_min <= item_box.y_min < box.y_max:
                items.append((item_box.y_min, i))
        if not items:
            return None
        return self._click(obs, min(items)[1], signature, "open the first item in the list")

    def _leave_other_app(
        self, intent: Intent, info: text_lib.GoalInfo, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """Outside every app the goal needs (e.g. back on the home screen): reopen the app."""
        apps = info.apps or []
        if intent.kind == "toggle" or intent.kind == "level":
            apps = text_lib.find_apps(intent.subject) or apps
        if intent.kind == "read_date":
            apps = text_lib.find_apps(intent.sub_goal) or [DATE_SOURCE_APP]
        if not apps or any(text_lib.activity_matches_app(obs.foreground_activity, a) for a in apps):
            return None
        action = _action(json_action.OPEN_APP, app_name=apps[0])
        if not self._usable(action, signature):
            return None
        return action, f"{apps[0]} is not in front; open it", apps[0]

    def _fill(
        self,
        intent: Intent,
        obs: Observation,
        signature: str,
        other_fields: list[tuple[str, str]] = (),  # type: ignore[assignment]
    ) -> tuple[json_action.JSONAction, str, str] | None:
        elements = obs.ui_elements
        value = intent.value or ""
        field = intent.field or ""
        # Plans store sub-goals on one line; type the goal's own text (line breaks kept).
        for _, raw in other_fields:
            if raw != value and text_lib.normalize(raw) == text_lib.normalize(value):
                value = raw
        targets: list[tuple[str, str]] = [(field, value)]
        parts = _name_parts(value)
        if "name" in field and len(parts) == 2:
            first = screen.find_field(obs, "first name", minimum=0.9)
            last = screen.find_field(obs, "last name", minimum=0.9)
            if first is not None and last is not None:
                targets = [("first name", parts[0]), ("last name", parts[1])]
        form = screen.form_fields(obs)
        for name, text in targets:
            index = screen.find_field(obs, name)
            if (
                index is None
                and len(form) == 1
                and name in TEXT_SLOTS
                and not _claimed_by_other_slot(obs, form[0], name, other_fields)
            ):
                index = form[0]
            if index is None:
                continue
            current = screen.field_text(elements[index])
            if text_lib.normalize(current) == text_lib.normalize(text):
                continue
            action = _action(
                json_action.INPUT_TEXT, index=index, text=text, clear_text=bool(current) or None
            )
            if self._usable(action, signature):
                return (
                    action,
                    f"type {text!r} into the {name} field",
                    element_label(elements[index]),
                )
        # A value chosen from a list: pick it when the list is open, else open the chooser.
        option = screen.find_text(obs, value, exact=True)
        if option is not None and not screen.is_field(elements[option]) and not form:
            chosen = self._click(obs, option, signature, f"choose {value!r}")
            if chosen is not None:
                return chosen
        if not form:
            container = screen.more_below(obs)
            if container is not None:
                action = _action(json_action.SCROLL, index=container, direction="down")
                if self._usable(action, signature):
                    return action, f"scroll the list for {value!r}", "list"
        terms = text_lib.field_terms(field)
        best: tuple[float, int] | None = None
        for i in screen.content_indices(obs):
            element = elements[i]
            if screen.is_field(element) or screen.in_title_bar(element, obs.screen_size):
                continue
            score = max(
                (text_lib.label_relevance(terms, n) for n in screen.labels(element)), default=0.0
            )
            if score >= 0.8 and (best is None or score > best[0]):
                best = (score, i)
        if best is not None and form:
            chosen = self._click(obs, best[1], signature, f"open the {field} chooser")
            if chosen is not None:
                return chosen
        # No control is named for the slot, but the form has one drop-down: its value is chosen
        # there ("Phone Label: Home" next to a phone number); the open list is handled above.
        spinners = screen.drop_downs(obs)
        if best is None and form and len(spinners) == 1:
            chosen = self._click(obs, spinners[0], signature, f"open the drop-down for {field}")
            if chosen is not None:
                return chosen
        # No labelled field: a single empty field that no other slot claims takes the text.
        others = [f for f, _ in other_fields if f != field]
        empty = [i for i in form if not screen.field_text(elements[i])]
        del others
        free = [
            i
            for i in empty
            if not _claimed_by_other_slot(obs, i, field, other_fields)
            and not _named_for_something_else(obs, i, field)
        ]
        if len(free) == 1 and len(empty) == 1:
            action = _action(json_action.INPUT_TEXT, index=free[0], text=targets[0][1])
            if self._usable(action, signature):
                return (
                    action,
                    f"type {targets[0][1]!r} into the only empty field",
                    element_label(elements[free[0]]),
                )
        # Every field filled and the slot still has nowhere to go: confirm this step of the form.
        if form and not empty:
            for i in screen.content_indices(obs):
                element = elements[i]
                if (
                    element.is_clickable
                    and text_lib.normalize(element_label(element)) in CONFIRM_LABELS
                ):
                    chosen = self._click(obs, i, signature, "confirm this step of the form")
                    if chosen is not None:
                        return chosen
        return None

    def _find(
        self,
        intent: Intent,
        info: text_lib.GoalInfo,
        obs: Observation,
        history: list[screen.PastStep],
        signature: str,
    ) -> tuple[json_action.JSONAction | None, str, str]:
        del history
        question = text_lib.parse_question(info.goal)
        reveal = self._reveal_done_rows(info.goal, obs, signature)
        if reveal is not None:
            return reveal
        if question.kind == "week":
            listed = self._week_list_step(obs, signature)
            if listed is not None:
                return listed
        if question.kind in ("day", "next"):
            target = self._question_day(question, obs)
            if target is not None and not _dated_list(obs, target.year):
                moved = self._go_to_day(intent, obs, signature, target)
                if moved is not None:
                    return moved
        listed = question.kind == "week" or (
            question.kind == "other" and bool(_row_wants(info.goal).labels)
        )
        if question.kind in ("total", "day", "next") or listed:
            scroll = self._scroll_for(intent, obs, signature, "read the rest of the list")
            if scroll is not None:
                return scroll
        day = self._day_cell(obs, signature, intent)
        if day is not None:
            return day
        return self._navigate(intent, info, obs, signature)

    def _week_list_step(
        self, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """A week is read from a list of days: scroll one that shows day headers; otherwise
        pick a list view where the screen offers one ("Change view", then "Event list view")."""
        if reading.listed_days(obs):
            return self._scroll_for(
                Intent("find", "week"), obs, signature, "read the rest of the week"
            )
        for words in (reading.LIST_VIEW_WORDS, reading.VIEW_WORDS):
            for i in screen.content_indices(obs):
                element = obs.ui_elements[i]
                names = set(text_lib.words(element_label(element)))
                if element.is_clickable and names & words and not names & {"month", "day"}:
                    chosen = self._click(obs, i, signature, "show the events as a list")
                    if chosen is not None:
                        return chosen
        return None

    # --- reading questions off the screen ------------------------------------------------------

    def _read(
        self,
        intent: Intent,
        info: text_lib.GoalInfo,
        obs: Observation,
        context_summary: str,
    ) -> tuple[str, str] | None:
        """(answer, why) once the screens read so far answer the sub-goal, else None."""
        if intent.kind == "read_date":
            for line in screen.screen_text(obs):
                if _WEEKDAY_DATE.match(line) and text_lib.parse_date(line, default_year=2000):
                    self._today = line
                    return line, f"the screen shows today's date: {line!r}"
            return None
        if intent.kind != "find":
            return None
        self._today = self._today or _fact_today(context_summary)
        question = text_lib.parse_question(info.goal)
        end_of_list = screen.more_below(obs) is None or self._list_exhausted(intent, obs)
        if question.kind == "total":
            return self._read_total(question, obs, end_of_list)
        if question.kind == "week":
            if reading.listed_days(obs):  # a list of days under day headers (a calendar)
                return self._read_week_headers(question, obs, end_of_list)
            return self._read_week(question, info.goal, obs, end_of_list)
        if question.kind == "other" and _row_wants(info.goal).labels:
            year = screen.shown_year(obs) or datetime.date.today().year
            if _dated_list(obs, year):
                labels = " and ".join(_row_wants(info.goal).labels)
                return self._read_dated_list(
                    info.goal, obs, year, lambda d: True, end_of_list, f"any day, {labels}"
                )
        attribute = text_lib.attribute_question(info.goal)
        if question.kind == "other" and attribute is not None:
            return reading.read_attribute(obs, *attribute)
        who = text_lib.when_with_question(info.goal)
        if question.kind == "other" and who is not None:
            return reading.read_when_with(obs, who)
        if question.kind in ("day", "next"):
            target = self._question_day(question, obs)
            if target is not None and question.kind == "day" and _dated_list(obs, target.year):
                by = re.search(r"\bby\b", info.goal, re.I) is not None
                return self._read_dated_list(
                    info.goal,
                    obs,
                    target.year,
                    (lambda d: d <= target) if by else (lambda d: d == target),
                    end_of_list,
                    f"{'by' if by else 'on'} {target:%b %d}",
                )
            day, rows = screen.day_view(obs)
            if target is None or day != target:
                return None
            for row in rows:
                self._rows.setdefault((row.title, row.start, row.end), day)
            if not end_of_list:
                return None
            return self._day_answer(question, obs, day)
        return None

    def _read_dated_list(
        self,
        goal: str,
        obs: Observation,
        year: int,
        keep: Callable[[datetime.date], bool],
        end_of_list: bool,
        when: str,
    ) -> tuple[str, str] | None:
        """A list whose items carry a date (to-dos by due date): the titles of the items whose
        date `keep`s, kept to those the question's qualifiers fit (a "high priority" label; a
        done or open check box), or their count for "how many". Read across scrolls; answered
        at the list's end."""
        wants = _row_wants(goal)
        for item in screen.list_items(obs):
            # An item may hold several rows (a floating button can bridge two): each title
            # makes a row, and every other element joins the row whose middle is nearest.
            elements = [obs.ui_elements[i] for i in item]
            titles = [
                e
                for e in elements
                if (e.text or "").strip()
                and not e.is_checkable
                and text_lib.parse_date(e.text or "", default_year=year) is None
            ]
            rows: list[list] = [[t] for t in titles]
            for element in elements:
                if element in titles or not titles:
                    continue
                middle = _middle(element)
                nearest = min(range(len(titles)), key=lambda k: abs(_middle(titles[k]) - middle))
                rows[nearest].append(element)
            for row in rows:
                self._note_dated_row(row, year, wants)
        if not end_of_list:
            return None
        found = [title for (title, day), fits in self._dated.items() if fits and keep(day)]
        if re.search(r"\bhow many\b", goal, re.I):
            if text_lib.count_qualifier(goal):
                return None  # items of one kind only: the dates alone do not count them
            return str(len(found)), f"{len(found)} list items dated {when} fit the question"
        answer = ", ".join(found)
        if (
            not found
            or not text_lib.asks_for_titles(goal)
            or not text_lib.answer_fits(goal, answer)
        ):
            return None  # the titles read are not what the question asks for
        return answer, f"{len(found)} list items dated {when} fit the question"

    def _reveal_done_rows(
        self, goal: str, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """A question about done items on a list that shows none: lists hide them until their
        menu's "Show completed" asks; open the menu once, then pick that item."""
        if _row_wants(goal).done is not True:
            return None
        elements = obs.ui_elements
        content = screen.content_indices(obs)
        if any(elements[i].is_checkable and elements[i].is_checked for i in content):
            return None
        for i in content:
            if re.match(r"\s*show\s+(?:completed|done|finished)\b", elements[i].text or "", re.I):
                return self._click(obs, i, signature, "show the done items")
        if self._menu_for_done:
            return None
        for i in content:
            if (elements[i].content_description or "").strip().lower() == "more options":
                chosen = self._click(obs, i, signature, "look for the done items in the menu")
                if chosen is not None:
                    self._menu_for_done = True
                return chosen
        return None

    def _read_week(
        self, question: text_lib.Question, goal: str, obs: Observation, end_of_list: bool
    ) -> tuple[str, str] | None:
        """Items dated in the week the question names (weeks start on Monday)."""
        year = screen.shown_year(obs) or _weekday_year(self._today)
        today = text_lib.parse_date(self._today, default_year=year) if self._today else None
        if today is None or year is None or not _dated_list(obs, year):
            return None
        monday, sunday = text_lib.week_span(question.qualifier, today)
        return self._read_dated_list(
            goal,
            obs,
            year,
            lambda d: monday <= d <= sunday,
            end_of_list,
            f"{monday:%b %d} to {sunday:%b %d}",
        )

    def _note_dated_row(self, row: list, year: int, wants: RowWants) -> None:
        title = next(
            (e.text or "").strip() for e in row if (e.text or "").strip() and not e.is_checkable
        )
        dates = [
            d
            for e in row
            if (d := text_lib.parse_date(e.text or "", default_year=year)) is not None
        ]
        if not dates:
            return
        labels = text_lib.normalize(" | ".join(label for e in row for label in screen.labels(e)))
        checks = [bool(e.is_checked) for e in row if e.is_checkable]
        done = bool(checks) and checks[0]
        self._dated[(title, dates[0])] = all(
            text_lib.phrase_in(q, labels) for q in wants.labels
        ) and (wants.done is None or done == wants.done)

    def _read_week_headers(
        self, question: text_lib.Question, obs: Observation, end_of_list: bool
    ) -> tuple[str, str] | None:
        """Titles listed under the week's day headers, once a later day or the list's end shows."""
        year = screen.shown_year(obs)
        today = text_lib.parse_date(self._today, default_year=year) if self._today else None
        listed = reading.listed_days(obs)
        if today is None or not listed:
            return None
        monday, sunday = text_lib.week_span(question.qualifier, today)
        for day, title in listed:
            if monday <= day <= sunday:
                self._rows.setdefault((title, (0, 0), (0, 0)), day)
        if not (end_of_list or any(day > sunday for day, _ in listed)):
            return None
        titles = list(
            dict.fromkeys(t for (t, _, _), d in self._rows.items() if monday <= d <= sunday)
        )
        if not titles:
            return None
        return ", ".join(titles), f"the list shows {len(titles)} item(s) from {monday} to {sunday}"

    def _list_exhausted(self, intent: Intent, obs: Observation) -> bool:
        """The last scroll here changed nothing, or the scroll budget for the screen is spent."""
        signature = screen.screen_signature(obs)
        scroll = _key(_action(json_action.SCROLL, direction="down"))
        spent = self._scrolls.get((intent.sub_goal, signature), 0) >= MAX_SCROLLS_PER_SCREEN
        return spent or scroll in self._duds.get(signature, set())

    def _read_total(
        self, question: text_lib.Question, obs: Observation, end_of_list: bool
    ) -> tuple[str, str] | None:
        for item in screen.list_items(obs):
            texts = screen.item_texts(obs, item)
            if not any(text_lib.phrase_in(question.qualifier, t) for t in texts):
                continue
            amounts = [a for a in (screen.money(t) for t in texts) if a is not None]
            if amounts:
                # By title and amount: a row cut off by the screen's edge shows fewer of its
                # texts, and read again whole after a scroll it must not count twice.
                self._tally[(texts[0], amounts[0])] = amounts[0]
        if not end_of_list or not self._tally:
            return None
        total = sum(self._tally.values())
        return (
            f"{total:.2f}",
            f"the {len(self._tally)} items naming {question.qualifier!r} add up to {total:.2f}",
        )

    def _question_day(self, question: text_lib.Question, obs: Observation) -> datetime.date | None:
        # A screen without a year (a to-do list): the year in which today's shown weekday
        # falls on its date, else this year (the dates compared are then all of one year).
        year = (
            screen.shown_year(obs)
            or _weekday_year(self._today)
            or (None if question.kind == "next" else datetime.date.today().year)
        )
        today = text_lib.parse_date(self._today, default_year=year) if self._today else None
        if question.kind == "next":
            return today + datetime.timedelta(days=self._next_offset) if today else None
        return text_lib.parse_date(question.day, today=today, default_year=year)

    def _day_answer(
        self, question: text_lib.Question, obs: Observation, day: datetime.date
    ) -> tuple[str, str] | None:
        rows = [key for key, seen_on in self._rows.items() if seen_on == day]
        if question.kind == "day":
            rows = [row for row in rows if question.keeps(row[1], row[2])]
            if question.when == "after" and rows:
                first = min(start for _, start, _ in rows)
                rows = [row for row in rows if row[1] == first]
            if not rows:
                return None
            titles = list(dict.fromkeys(title for title, _, _ in rows))
            narrowed = f" {question.when} the goal's time" if question.when else ""
            return (
                ", ".join(titles),
                f"the day view of {day:%B %d %Y} lists {len(titles)} item(s){narrowed}",
            )
        # On today only what starts from now on is upcoming; on a later day, everything is.
        now = screen.status_time(obs) if self._next_offset == 0 else (0, 0)
        upcoming = sorted(
            ((start, title) for title, start, _ in rows if now is None or start >= now),
            key=lambda pair: pair[0],  # equal starts keep the screen's order
        )
        if not upcoming:
            if self._next_offset < 7:
                self._next_offset += 1  # nothing left today: the next day's first item is next
            return None
        first = upcoming[0][0]
        titles = list(dict.fromkeys(t for start, t in upcoming if start == first))
        return ", ".join(titles), f"the first item from {first[0]:02d}:{first[1]:02d} on {day}"

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
                if elements[i].is_clickable and _names_all(obs, i, word, "day"):
                    chosen = self._click(obs, i, signature, f"go to the {word} day")
                    if chosen is not None:
                        return chosen
            back = _action(json_action.NAVIGATE_BACK)
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

    # --- dates and times in forms ---------------------------------------------------------------

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

    def _navigate(
        self, intent: Intent, info: text_lib.GoalInfo, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction | None, str, str]:
        """Tap the element whose words best match the sub-goal; else scroll; else go back."""
        elements = obs.ui_elements
        terms = intent_terms(intent, info)
        tried = self._tried.get((intent.sub_goal, signature), set())
        accept = screen.dialog_accept(obs, intent.subject) if intent.kind == "tap" else None
        if accept is not None:  # "Tap Move" in the "Move to" folder chooser: its OK
            chosen = self._click(obs, accept, signature, f"{intent.subject} with the dialog's")
            if chosen is not None:
                return chosen
        best: tuple[float, int] | None = None
        for i in screen.content_indices(obs):
            element = elements[i]
            if screen.is_field(element) or screen.is_slider(element):
                continue
            if screen.is_switch(element) and intent.kind != "generic":
                continue
            if screen.in_title_bar(element, obs.screen_size):
                continue
            if intent.kind == "find" and _stem_words(element_label(element)) & CHANGING_WORDS:
                continue  # answering a question must not create, edit or delete anything
            action = _action(json_action.CLICK, index=i)
            if _key(action) in tried or not self._usable(action, signature):
                continue
            score = screen.relevance(obs, i, terms)
            if not element.is_clickable:
                score *= 0.9
            if best is None or score > best[0]:
                best = (score, i)
        if best is not None and best[0] >= NAVIGATE_MIN_RELEVANCE:
            index = best[1]
            label = element_label(elements[index])
            return (
                _action(json_action.CLICK, index=index),
                f"tap {label!r}, the closest match",
                label,
            )
        # An action ("Tap Move to") not on screen is usually in the overflow menu; an item
        # ("Tap 'Movies'") is usually further down the list. Try the likelier place first.
        menu = self._overflow_menu(intent, obs, signature, tried)
        wants_item = intent.subject.startswith(("'", '"'))
        if menu is not None and not wants_item:
            return menu
        scroll = self._scroll_for(intent, obs, signature, "nothing matches here; scroll for more")
        if scroll is not None:
            return scroll
        if menu is not None:
            return menu
        if screen.is_launcher(obs):
            app = intent.app or (info.apps[0] if info.apps else None)
            if app:
                return _action(json_action.OPEN_APP, app_name=app), f"open {app}", app
            return None, "nothing on the home screen matches the sub-goal", ""
        back = _action(json_action.NAVIGATE_BACK)
        if self._usable(back, signature):
            return back, "nothing here matches; go back", "back"
        return None, "no candidate left on this screen", ""


_WEEKDAY_DATE = re.compile(
    r"^\s*(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+\w+\.?\s+\d{1,2}\b", re.I
)
_TODAY_FACT = re.compile(r"Read today'?s date[^:\n]*:[ \t]*([^\n;]+)")


def _fact_today(context_summary: str) -> str | None:
    """Today's date as an earlier sub-goal read it off the clock (a fact in the context)."""
    found = _TODAY_FACT.findall(context_summary or "")
    return found[-1].strip() if found else None


def _typed_from_goal(
    action: json_action.JSONAction, intent: Intent, obs: Observation, info: text_lib.GoalInfo
) -> bool:
    """Typed text comes from the goal; so does a rewrite of a field that puts the goal's text
    before what the field already holds (adding at the top)."""
    if text_lib.value_in_goal(action.text, info.goal):
        return True
    typed, value = action.text or "", intent.value or ""
    if intent.kind != "prepend" or not value or not typed.startswith(value):
        return False
    index = action.index
    if not isinstance(index, int) or not 0 <= index < len(obs.ui_elements):
        return False
    held = screen.field_text(obs.ui_elements[index])
    return text_lib.normalize(typed[len(value) :]) == text_lib.normalize(held)


def _names_all(obs: Observation, index: int, *words: str) -> bool:
    name = set(text_lib.words(element_label(obs.ui_elements[index])))
    return all(w in name for w in words)


# --------------------------------------------------------------------------------------------
# Verifier


def _stem_words(text: str) -> set[str]:
    return {text_lib.stem(w) for w in text_lib.words(text)}


# Goals often ask for an irreversible step without naming it: a reply is sent, a text message
# is sent, a share by SMS is sent.
_IMPLIED = {
    "reply": "send",
    "share": "send",
    "text message": "send",
    "erase": "delete",
    "remove": "delete",
    "trash": "delete",
    "clear all": "delete",
}


def implied_verbs(goal: str) -> set[str]:
    return {verb for phrase, verb in _IMPLIED.items() if text_lib.phrase_in(phrase, goal)}


def intent_target_ok(
    intent: Intent, obs: Observation, index: int, info: text_lib.GoalInfo | None = None
) -> bool:
    """Targets that serve the intent though their words do not match it (a keypad digit, a
    form's OK button, the first item of a list, the chooser of a field, the goal's day)."""
    element = obs.ui_elements[index]
    label = text_lib.normalize(element_label(element))
    if info is not None and info.day and label == info.day and intent.kind in ("delete", "find"):
        return True
    if intent.kind == "when":
        return index in screen.when_controls(obs)
    if intent.kind == "find" and index in screen.date_navigation(obs):
        return True
    week = info is not None and text_lib.parse_question(info.goal).kind == "week"
    if intent.kind == "find" and week and set(text_lib.words(label)) & reading.ALL_VIEW_WORDS:
        return True  # a week reads best as a list: the view switch and the list view
    if intent.kind == "keypad":
        return bool(label) and label.isdigit() and label in (intent.value or "")
    if intent.kind == "paste":  # the Paste item, the field to hold, a filled form's OK
        form_ok = label in CONFIRM_LABELS and bool(screen.form_fields(obs))
        return label == "paste" or screen.is_field(element) or form_ok
    if intent.kind == "fill":
        if label in CONFIRM_LABELS and screen.form_fields(obs):
            return True
        if label == text_lib.normalize(intent.value):
            return True
        terms = text_lib.field_terms(intent.field or "")
        best = max(
            (
                text_lib.label_relevance(terms, n)
                for i in screen.content_indices(obs)
                if not screen.is_field(obs.ui_elements[i])
                and not screen.in_title_bar(obs.ui_elements[i], obs.screen_size)
                for n in screen.labels(obs.ui_elements[i])
            ),
            default=0.0,
        )
        mine = max((text_lib.label_relevance(terms, n) for n in screen.labels(element)), default=0)
        if mine >= 0.8:
            return True
        # No control is named for the slot: the form's only drop-down is where its value goes.
        spinners = screen.drop_downs(obs)
        return best < 0.8 and spinners == [index] and bool(screen.form_fields(obs))
    if intent.kind == "first_item":
        return any(obs.ui_elements[i].is_scrollable for i in screen.content_indices(obs))
    if intent.kind == "tap" and index == screen.dialog_accept(obs, intent.subject):
        return True
    if intent.kind in ("tap", "generic") and label in OVERFLOW_LABELS and info is not None:
        # The named control is nowhere on screen: the overflow menu is where it would hide.
        terms = intent_terms(intent, info)
        return not any(
            screen.relevance(obs, i, terms) >= NAVIGATE_MIN_RELEVANCE
            for i in screen.content_indices(obs)
            if i != index
        )
    if intent.kind == "delete":
        return (
            label in DELETE_LABELS
            or label == "more options"
            or index == screen.confirm_button(obs, "delet")
        )
    if intent.kind == "clear":
        return clear.target_ok(obs, index)
    if intent.kind == "delete_all":  # the day's cell, its rows (any name), delete, confirm
        if label in DELETE_LABELS or index == screen.confirm_button(obs, "delet"):
            return True
        if index in screen.date_navigation(obs):
            return True
        _, rows = screen.day_view(obs)
        return label in {text_lib.normalize(row.title) for row in rows}
    return False


class OfflineVerifier(Verifier):
    """Verifier protocol without a model: the three personas as rules on the 0-10 scale.

    Pragmatist: does the target relate to the sub-goal? Skeptic: is it a field for typing, not a
    repeat of a step that just failed, and not irreversible without the goal asking for it?
    Efficiency Expert: is it the direct step (no scrolling past a visible target)?
    """

    def __init__(
        self,
        *,
        weights: tuple[float, float, float] = DEFAULT_WEIGHTS,
        threshold: float = 7.0,
        irreversible_threshold: float = 8.5,
        **_ignored: Any,
    ):
        self.weights = dict(zip((PRAGMATIST, SKEPTIC, EFFICIENCY_EXPERT), weights))
        self.threshold = threshold
        self.irreversible_threshold = irreversible_threshold

    def verify_action(
        self,
        sub_goal: str,
        proposed_action: ProposedAction,
        observation: Observation,
        context_summary: str,
    ) -> tuple[float, list[Vote]]:
        goal = screen.goal_from_context(context_summary)
        info = text_lib.parse_goal(goal or sub_goal)
        intent = parse_sub_goal(sub_goal, info)
        history = screen.parse_history(context_summary)
        votes = [
            Vote(PRAGMATIST, *self._pragmatist(intent, info, proposed_action, observation)),
            Vote(SKEPTIC, *self._skeptic(intent, info, proposed_action, observation, history)),
            Vote(EFFICIENCY_EXPERT, *self._efficiency(intent, info, proposed_action, observation)),
        ]
        total = sum(self.weights.values()) or 1.0
        score = sum(self.weights[v.persona] * v.score for v in votes) / total
        return round(score, 3), votes

    @staticmethod
    def _target(action: json_action.JSONAction, obs: Observation) -> int | None:
        index = action.index
        if isinstance(index, int) and 0 <= index < len(obs.ui_elements):
            return index
        return None

    def _pragmatist(
        self, intent: Intent, info: text_lib.GoalInfo, proposed: ProposedAction, obs: Observation
    ) -> tuple[float, str]:
        action = proposed.action
        if action is None:
            return 0.0, f"{TAG} no action"
        kind = action.action_type
        if kind == json_action.OPEN_APP:
            wanted = [intent.app] if intent.app else info.apps
            if any(text_lib.canonical_app(action.app_name or "") == a for a in wanted if a):
                return 9.5, f"{TAG} opens {action.app_name}, the app the goal needs"
            return 3.0, f"{TAG} {action.app_name} is not an app the goal names"
        index = self._target(action, obs)
        if kind in _TAP_TYPES:
            if index is None:
                return 3.0, f"{TAG} the tap hits no known element"
            if index == screen.grant_button(obs):
                return 8.5, f"{TAG} accepts a permission request that blocks the app"
            if index == screen.interruption_button(obs):
                return 8.5, f"{TAG} closes a pop-up the app showed on its own"
            rel = min(1.0, screen.relevance(obs, index, intent_terms(intent, info)))
            if intent_target_ok(intent, obs, index, info):
                rel = max(rel, 0.85)
            if intent.kind == "toggle" and screen.is_switch(obs.ui_elements[index]):
                rel = max(rel, 0.5 + 0.5 * rel)
            return round(1.0 + 8.5 * rel, 2), f"{TAG} target relevance to the sub-goal {rel:.2f}"
        if kind == json_action.INPUT_TEXT:
            if not _typed_from_goal(action, intent, obs, info):
                return 3.0, f"{TAG} the typed text is not from the goal"
            if intent.kind == "fill" and index is not None:
                return 9.0, f"{TAG} types the goal's value into a field"
            return 7.0, f"{TAG} types text from the goal"
        if kind == json_action.SCROLL:
            if index is not None and screen.is_slider(obs.ui_elements[index]):
                return (9.0 if intent.kind == "level" else 4.0), f"{TAG} drags a slider"
            return 6.5, f"{TAG} scrolling to look for the target"
        if kind == json_action.NAVIGATE_BACK:
            return 6.5, f"{TAG} going back to find another way"
        if kind in (json_action.NAVIGATE_HOME, json_action.WAIT, json_action.SWIPE):
            return 5.0, f"{TAG} a neutral step"
        if kind in (json_action.ANSWER, json_action.STATUS, json_action.KEYBOARD_ENTER):
            return 7.0, f"{TAG} a finishing step"
        return 4.0, f"{TAG} an unusual action"

    def _skeptic(
        self,
        intent: Intent,
        info: text_lib.GoalInfo,
        proposed: ProposedAction,
        obs: Observation,
        history: list[screen.PastStep],
    ) -> tuple[float, str]:
        action = proposed.action
        if action is None:
            return 0.0, f"{TAG} no action"
        kind = action.action_type
        index = self._target(action, obs)
        elements = obs.ui_elements
        if kind == json_action.INPUT_TEXT:
            target_is_field = index is not None and screen.is_field(elements[index])
            focused = any(e.is_focused and screen.is_field(e) for e in elements)
            if not target_is_field and not focused:
                return 2.0, f"{TAG} typing needs a text field and the target is not one"
            if not _typed_from_goal(action, intent, obs, info):
                return 3.0, f"{TAG} the text differs from what the goal says"
        description = self._describe(action, obs)
        for step in history[-3:]:
            if step.action == description and not step.ok:
                return 3.0, f"{TAG} the same action just failed ({step.outcome})"
        if kind in _TAP_TYPES and index is not None:
            element = elements[index]
            if element.is_enabled is False:
                return 2.0, f"{TAG} the target is disabled"
            if (
                intent.kind == "toggle"
                and screen.is_switch(element)
                and bool(element.is_checked) == intent.state
            ):
                return 1.0, f"{TAG} the switch is already in the wanted state"
            label = " ".join(screen.element_names(obs, index))
            risky = _stem_words(label) & set(IRREVERSIBLE_WORDS)
            if risky:
                if risky & (_stem_words(info.goal) | implied_verbs(info.goal)):
                    return 10.0, f"{TAG} irreversible ({', '.join(risky)}) but the goal asks for it"
                return (
                    1.5,
                    f"{TAG} irreversible ({', '.join(risky)}) and the goal does not ask for it",
                )
        if kind == json_action.OPEN_APP and not action.app_name:
            return 1.0, f"{TAG} open_app without an app name"
        return 9.0, f"{TAG} no problem found"

    def _efficiency(
        self, intent: Intent, info: text_lib.GoalInfo, proposed: ProposedAction, obs: Observation
    ) -> tuple[float, str]:
        action = proposed.action
        if action is None:
            return 0.0, f"{TAG} no action"
        kind = action.action_type
        if kind == json_action.OPEN_APP:
            if text_lib.activity_matches_app(obs.foreground_activity, action.app_name or ""):
                return 3.0, f"{TAG} the app is already open"
            return 10.0, f"{TAG} opening the app directly is the shortest way"
        if kind == json_action.SCROLL and not (
            self._target(action, obs) is not None
            and screen.is_slider(obs.ui_elements[self._target(action, obs) or 0])
        ):
            terms = intent_terms(intent, info)
            visible = [
                i
                for i in screen.content_indices(obs)
                if obs.ui_elements[i].is_clickable and screen.relevance(obs, i, terms) >= 0.9
            ]
            if visible:
                return 4.0, f"{TAG} a matching target is already visible; scrolling is a detour"
            return 8.0, f"{TAG} scrolling is needed to find the target"
        if kind in (json_action.NAVIGATE_BACK, json_action.NAVIGATE_HOME):
            return 6.0, f"{TAG} going back costs steps"
        return 9.0, f"{TAG} a direct step"

    @staticmethod
    def _describe(action: json_action.JSONAction, obs: Observation) -> str:
        return describe_action(action, obs.ui_elements)


# --------------------------------------------------------------------------------------------
# Vision-fallback stand-in and the constructor


class OfflineElementSelector(ElementSelector):
    """ElementSelector protocol without a model: the element whose words best match."""

    def select_element(self, sub_goal: str, observation: Observation) -> int | None:
        info = text_lib.parse_goal(sub_goal)
        terms = intent_terms(parse_sub_goal(sub_goal, info), info)
        best: tuple[float, int] | None = None
        for i in screen.content_indices(observation):
            score = screen.relevance(observation, i, terms)
            if best is None or score > best[0]:
                best = (score, i)
        return best[1] if best is not None and best[0] >= NAVIGATE_MIN_RELEVANCE else None


@dataclasses.dataclass
class OfflineRoles:
    planner: OfflinePlanner
    action_generator: OfflineActionGenerator
    verifier: OfflineVerifier
    element_selector: OfflineElementSelector
    source: str = SOURCE


def build_offline_roles(
    *,
    threshold: float = 7.0,
    irreversible_threshold: float = 8.5,
    weights: tuple[float, float, float] = DEFAULT_WEIGHTS,
    max_sub_goals: int = 12,
    **_ignored: Any,
) -> OfflineRoles:
    """The four offline roles, configured like their model-backed counterparts."""
    return OfflineRoles(
        planner=OfflinePlanner(max_sub_goals=max_sub_goals),
        action_generator=OfflineActionGenerator(),
        verifier=OfflineVerifier(
            weights=weights, threshold=threshold, irreversible_threshold=irreversible_threshold
        ),
        element_selector=OfflineElementSelector(),
    )
