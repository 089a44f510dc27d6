"""The goal check on messaging goals (offline_goal.check_goal): a message whose words end a
sentence with a number ("... at 6 PM.") is read whole, and done only once it was sent."""

from __future__ import annotations

import celil_fakes

from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNKNOWN,
    GOAL_UNMET,
    Observation,
    TrailStep,
)
from android_world.agents.custom.offline_roles import offline_goal

SMS = "com.simplemobiletools.smsmessenger/.activities.ThreadActivity"
_el = celil_fakes.element_at


def _obs(*elements) -> Observation:
    return celil_fakes.screen_of(*elements, activity=SMS)


def _thread(title: str, bubbles: list[str], typed: str = "") -> Observation:
    elements = [_el(title, 160, x=(160, 700))]
    elements += [_el(b, 400 + 120 * i, h=100) for i, b in enumerate(bubbles)]
    field = _el(typed, 2000, cls="android.widget.EditText", h=120, is_editable=True)
    field.hint_text = "Type a message"
    send = _el("", 2000, x=(940, 1060), cls="android.widget.ImageButton", h=120)
    send.content_description = "Send"
    send.is_clickable = True
    return _obs(*elements, field, send)


REPLY = (
    "Reply to the most recent text message using Simple SMS Messenger with message: "
    "Yoga class every Tuesday and Thursday at 6 PM."
)
WORDS = "Yoga class every Tuesday and Thursday at 6 PM."


def _reply_trail(typed: str = WORDS, *, send: bool = True) -> tuple[list[TrailStep], Observation]:
    trail = [TrailStep(1, _thread("+16362938783", ["Hi there"]), "input_text", 2, "", typed=typed)]
    if not send:
        return trail, _thread("+16362938783", ["Hi there"], typed)
    trail.append(TrailStep(2, _thread("+16362938783", ["Hi there"], typed), "click", 3, "Send"))
    return trail, _thread("+16362938783", ["Hi there", typed])


def test_a_message_ending_in_a_time_is_read_whole_and_done_once_sent():
    verdict = offline_goal.check_goal(REPLY, *_reply_trail())
    assert verdict.status == GOAL_DONE, verdict.reason()


def test_a_message_ending_in_a_time_typed_but_not_sent_is_not_done():
    assert offline_goal.check_goal(REPLY, *_reply_trail(send=False)).status == GOAL_UNKNOWN


def test_a_message_with_another_time_is_not_done():
    verdict = offline_goal.check_goal(REPLY, *_reply_trail("Yoga class every Tuesday at 7 PM."))
    assert verdict.status == GOAL_UNMET, verdict.reason()
