"""The post-check (DESIGN §3 step 8): did the action do something?

An action that ran may still have failed: a tap that changed nothing, text that never reached
the field. These pure functions read the screens before and after; the loop rehearses on a
failed check.
"""

from __future__ import annotations

import time

from android_world.agents.custom import celil_geometry
from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.loop.celil_events import EventLog
from android_world.agents.custom.loop.celil_step_data import ExecutionRecord, StepData
from android_world.agents.custom.roles.celil_quality_control import action_target_element
from android_world.env import interface, json_action

TAP_TYPES = (json_action.CLICK, json_action.LONG_PRESS, json_action.DOUBLE_TAP)
# Actions whose success does not show as a screen change.
_NO_CHANGE_EXPECTED = (json_action.WAIT, json_action.STATUS, json_action.ANSWER)
# A tap on these may leave the screen as it is when it works: saving in place.
_SAVE_WORDS = frozenset({"save", "done", "apply", "update"})


def _normalise_text(text: str | None) -> str:
    return " ".join((text or "").casefold().split())


def text_landed(
    action: json_action.JSONAction, before: Observation, after: Observation
) -> tuple[bool, str]:
    """Post-check for `input_text`: does the new screen show the typed text?

    Typing presses Enter, which may submit and leave the screen (search, send), so a change of
    foreground activity also counts; a text shown in any element or OCR line counts as landed.
    """
    needle = _normalise_text(action.text)[:40]
    if not needle:
        return True, "nothing to type"
    for element in after.ui_elements:
        if needle in _normalise_text(element.text) or needle in _normalise_text(
            element.content_description
        ):
            return True, "typed text is on screen"
    for line in after.ocr_lines:
        if needle in _normalise_text(line.text):
            return True, "typed text is on screen (OCR)"
    if (
        before.foreground_activity
        and after.foreground_activity
        and before.foreground_activity != after.foreground_activity
    ):
        return True, "the text was submitted and the app moved on"
    return False, f"typed text {action.text!r} does not appear on the screen"


def unchanged_is_expected(action: json_action.JSONAction, before: Observation) -> str | None:
    """Why an unchanged screen is the right result of this action, or None when it is a failure.

    Scrolling at a list's end, opening the app already in front, picking the value already
    selected and saving a note in place change nothing visible; a repeat of any of them is still
    caught by loop detection.
    """
    kind = action.action_type
    if kind in (json_action.SCROLL, json_action.SWIPE):
        return "nothing more to scroll that way (the list is at its end)"
    if kind == json_action.OPEN_APP:
        app = (action.app_name or "").casefold().replace(" ", "")
        front = (before.foreground_activity or "").casefold().replace(" ", "")
        if app and app in front:
            return f"{action.app_name} was already open"
        return None
    if kind not in TAP_TYPES:
        return None
    element = action_target_element(action, before)
    if element is None:
        return None
    if celil_geometry.is_position_sensitive(element):
        return "the slider was already at the point tapped"
    if element.is_selected and not element.is_checkable:
        return "the value tapped was already the selected one"
    label = celil_geometry.element_label(element).casefold()
    if label in _SAVE_WORDS:
        return f"{label!r} keeps the screen as it is when it saves in place"
    return None


def post_check(
    action: json_action.JSONAction,
    before: Observation,
    after: Observation,
    changed: bool,
    error_text: str | None,
) -> tuple[bool, str]:
    """(ok, why) for the action that ran (`error_text`: how it failed on the device)."""
    if error_text is not None:
        return False, f"execution failed: {error_text}"
    if action.action_type == json_action.INPUT_TEXT:
        return text_landed(action, before, after)
    if action.action_type in _NO_CHANGE_EXPECTED:
        return True, "no change expected"
    if not changed:
        expected = unchanged_is_expected(action, before)
        if expected is not None:
            return True, expected
        return False, "the screen did not change"
    return True, "the screen changed"


def step_outcome(action: json_action.JSONAction, ok: bool, changed: bool, reason: str) -> str:
    """The step's outcome in working memory, which every role's context shows."""
    if ok and not changed and action.action_type in TAP_TYPES:
        # Not a failure, but not progress either: nothing reads it as a step that worked.
        return f"the screen did not change, as expected ({reason})"
    return "ok" if ok else "failed: " + reason


def screen_notes(observation: Observation, max_chars: int = 600) -> str:
    """A compact text of a screen for the scratchpad (labels, then OCR lines)."""
    labels = [celil_geometry.element_label(e) for e in observation.ui_elements]
    text = " | ".join(label for label in labels if label)
    if observation.ocr_lines:
        text += " || " + " | ".join(line.text for line in observation.ocr_lines)
    header = observation.foreground_activity or "screen"
    return f"[{header}] {text}"[:max_chars]


def execute(
    env: interface.AsyncEnv, action: json_action.JSONAction, log: EventLog, record: StepData
) -> str | None:
    """Run the action; returns how it failed (a device that is gone ends the episode)."""
    error_text = None
    started = time.perf_counter()
    try:
        env.execute_action(action)
    except Exception as error:
        if is_device_failure(error):
            raise
        error_text = f"{type(error).__name__}: {error}"
    device_s = round(time.perf_counter() - started, 6)
    log.stats.executed += 1
    record.execution = ExecutionRecord(error_text is None, error_text, device_s)
    # Device time is not a `timing` event: the report measures it from gate to executed.
    log.emit(
        "executed",
        action=record.action,
        ok=error_text is None,
        error=error_text,
        duration_s=device_s,
    )
    return error_text


def is_device_failure(error: BaseException) -> bool:
    """A device that cannot be observed or driven (adb gone, screencap failing) fails the
    episode with its reason; the agent cannot fix it, and retrying would only burn the budget.

    Matched by class name because the plugin may not import the harness's `env.device`. Errors
    that are also ValueErrors (an untypeable character, a bad index) are the agent's own bad
    action, a recorded failure like any other.
    """
    names = {cls.__name__ for cls in type(error).__mro__}
    return "DeviceError" in names and "ValueError" not in names
