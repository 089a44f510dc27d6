"""Intent family: getting around apps. Open an app, go back, tap a named control ("Tap Save",
"Tap Pause"), start a new record, and any sub-goal in other words (`generic`); plus the plan
rule for goals that just run a control (take a photo, record audio, start the stopwatch)."""

from __future__ import annotations

import re

from android_world.agents.custom.celil_geometry import element_label
from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.offline_common import (
    NAVIGATE_MIN_RELEVANCE,
    OVERFLOW_LABELS,
    TAP_NAMES,
    Chosen,
    make_action,
)
from android_world.agents.custom.offline_roles.offline_goal_steps import named_control
from android_world.agents.custom.offline_roles.offline_handler import (
    IntentHandler,
    PlanDraft,
    PlanRule,
)
from android_world.agents.custom.offline_roles.offline_intent import Intent, intent_terms
from android_world.agents.custom.offline_roles.offline_moves import ActorBase
from android_world.env import json_action

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


# Labels that name both a menu item opening a folder picker and the move itself.
_PICKER_OPENERS = frozenset({"move", "copy"})


def _asks_still(observation: Observation) -> bool:
    """A dialog is open that waits for an answer: it offers Cancel."""
    return any(
        e.is_clickable and text_lib.normalize(screen.element_label(e)) == "cancel"
        for e in (observation.ui_elements[i] for i in screen.content_indices(observation))
    )


def open_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    if (
        intent.app
        and not screen.is_launcher(observation)
        and text_lib.activity_matches_app(observation.foreground_activity, intent.app)
    ):
        return True, f"{intent.app} is in the foreground"
    return False, f"{intent.app} is not in the foreground"


def new_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    if screen.form_fields(observation):
        return True, "a form with fields is open"
    return False, "no form is open"


def tap_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    opposite = already_in_state(intent.subject, observation)
    if opposite:
        return True, f"{opposite!r} is showing, so it is already {intent.subject.casefold()}d"
    step = screen.acted_on(history, intent.sub_goal, TAP_NAMES, allow_unchanged=True)
    subject = text_lib.normalize(intent.subject.strip("'\""))
    named = named_control(intent.sub_goal)  # "Tap 'More options'": that label, not its first word
    if named and step is not None and not _tapped(named, step.action):
        return False, f"the tap was not on {named!r}"
    if step is not None and subject and subject.split()[0] in text_lib.normalize(step.action):
        if subject in _PICKER_OPENERS and _asks_still(observation):
            # A "Move" menu item opens the folder picker; the move is its OK.
            return False, f"the tap on {intent.subject!r} opened a dialog that still asks"
        return True, f"the step '{step.action}' for it went through"
    return False, "the named element was not tapped yet"


def _tapped(label: str, action: str) -> bool:
    """The step's description names the label as a whole ("OK" is no part of "Book")."""
    want = re.escape(text_lib.normalize(label))
    return re.search(rf"(?<!\w){want}(?!\w)", text_lib.normalize(action)) is not None


def step_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    """Nothing on screen shows it: a step taken for the sub-goal that went through."""
    step = screen.acted_on(history, intent.sub_goal)
    if step is not None:
        return True, f"the step '{step.action}' for it went through"
    return False, "nothing was done for it yet"


def act_open(
    gen: ActorBase,
    intent: Intent,
    info: text_lib.GoalInfo,
    obs: Observation,
    history: list[screen.PastStep],
    signature: str,
) -> Chosen | None:
    action = make_action(json_action.OPEN_APP, app_name=intent.app)
    if gen._usable(action, signature):
        return action, f"open {intent.app}", intent.app or ""
    return gen._navigate(intent, info, obs, signature)


def act_back(
    gen: ActorBase,
    intent: Intent,
    info: text_lib.GoalInfo,
    obs: Observation,
    history: list[screen.PastStep],
    signature: str,
) -> Chosen | None:
    return make_action(json_action.NAVIGATE_BACK), "go back to recover", "back"


def _overflow_ok(
    intent: Intent, obs: Observation, index: int, info: text_lib.GoalInfo | None
) -> bool:
    """The named control is nowhere on screen: the overflow menu is where it would hide."""
    label = text_lib.normalize(element_label(obs.ui_elements[index]))
    if label not in OVERFLOW_LABELS or info is None:
        return False
    terms = intent_terms(intent, info)
    return not any(
        screen.relevance(obs, i, terms) >= NAVIGATE_MIN_RELEVANCE
        for i in screen.content_indices(obs)
        if i != index
    )


def tap_target_ok(
    intent: Intent, obs: Observation, index: int, info: text_lib.GoalInfo | None
) -> bool:
    if index == screen.dialog_accept(obs, intent.subject):
        return True
    return _overflow_ok(intent, obs, index, info)


def write_media(d: PlanDraft) -> bool:
    """Goals that run a control: take a photo or video, record audio, start/pause a timer."""
    verbs, obj = d.verbs, d.obj
    if not (verbs & {"take", "record", "start", "run", "pause", "stop", "reset"}) or (
        d.info.toggles or d.info.levels
    ):
        return False
    info, subs = d.info, d.subs
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
    return True


MEDIA = PlanRule("media", "apps", write_media)
HANDLERS = (
    IntentHandler("open", "apps", open_done, act_open, stage="first", evidence="state"),
    IntentHandler("back", "apps", step_done, act_back, stage="prompt", evidence="step"),
    IntentHandler("tap", "apps", tap_done, target_ok=tap_target_ok, evidence="control"),
    IntentHandler("generic", "apps", step_done, target_ok=_overflow_ok),
    IntentHandler("new", "apps", new_done, evidence="form"),
)
