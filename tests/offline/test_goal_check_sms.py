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


def _conversations() -> Observation:
    """The conversation list before the reply: the top row is the newest (its time is latest)."""
    box = _el("", 290, x=(0, 1080), cls="androidx.recyclerview.widget.RecyclerView", h=1978)
    box.is_scrollable = True
    rows = [("+16362938783", "Hi there", "15:33"), ("+15550000000", "Hello", "15:04")]
    elements = [_el("SMS Messenger", 160, x=(60, 780)), box]
    for i, (name, last, when) in enumerate(rows):
        elements += [_el(name, 334 + 200 * i, x=(48, 850)), _el(last, 394 + 200 * i, x=(48, 850))]
        elements.append(_el(when, 364 + 200 * i, x=(874, 1044), h=52))
    return _obs(*elements)


def _reply_trail(typed: str = WORDS, *, send: bool = True) -> tuple[list[TrailStep], Observation]:
    trail = [TrailStep(0, _conversations(), "click", 2, "+16362938783")]
    trail.append(
        TrailStep(1, _thread("+16362938783", ["Hi there"]), "input_text", 2, "", typed=typed)
    )
    if not send:
        return trail, _thread("+16362938783", ["Hi there"], typed)
    trail.append(TrailStep(2, _thread("+16362938783", ["Hi there"], typed), "click", 3, "Send"))
    return trail, _thread("+16362938783", ["Hi there", typed])


def test_a_message_ending_in_a_time_is_read_whole_and_done_once_sent():
    verdict = offline_goal.check_goal(REPLY, *_reply_trail())
    assert verdict.status == GOAL_DONE, verdict.reason()


def test_a_message_ending_in_a_time_typed_but_not_sent_is_not_done():
    # The words sit in the message field, nothing sent them: the reply is not sent (unmet,
    # not merely unknown: offline_goal_unsaved).
    verdict = offline_goal.check_goal(REPLY, *_reply_trail(send=False))
    assert verdict.status == GOAL_UNMET, verdict.reason()


def test_a_message_with_another_time_is_not_done():
    verdict = offline_goal.check_goal(REPLY, *_reply_trail("Yoga class every Tuesday at 7 PM."))
    assert verdict.status == GOAL_UNMET, verdict.reason()


CLIP_GOAL = "Send a message to +16604876475 with the clipboard content in Simple SMS Messenger"
CLIP = "The squeaky wheel gets the grease."
NUMBER = "+16604876475"


def _compose(number: str, typed: str = "", *, y: int = 2108) -> Observation:
    to = _el(number, 300, cls="android.widget.EditText", h=150, is_editable=True)
    to.hint_text = "Add Contact or Number…"
    field = _el(typed, y, cls="android.widget.EditText", h=150, is_editable=True)
    field.hint_text = "Type a message"
    send = _el("", y, x=(924, 1068), cls="android.widget.ImageButton", h=150)
    send.content_description = "Send"
    send.is_clickable = True
    return _obs(to, field, send)


def _paste_menu() -> Observation:
    return _obs(_el("Paste", 152, h=150, is_clickable=True))


def _clip_trail(
    *, before: str = "", copy_first: bool = False, typed_after: bool = False
) -> list[TrailStep]:
    trail = [TrailStep(1, _compose(""), "input_text", 0, "", typed=NUMBER)]
    if copy_first:
        menu = _obs(_el("Copy", 152, h=150, is_clickable=True))
        trail += [
            TrailStep(2, _compose(NUMBER, "junk"), "long_press", 1, "junk"),
            TrailStep(3, menu, "click", 0, "Copy"),
        ]
    if before:
        trail.append(TrailStep(4, _compose(NUMBER), "input_text", 1, "", typed=before))
    trail += [
        TrailStep(5, _compose(NUMBER, before), "long_press", 1, before or "Type a message"),
        TrailStep(6, _paste_menu(), "click", 0, "Paste"),
    ]
    held = before + CLIP
    if typed_after:
        trail.append(TrailStep(7, _compose(NUMBER, held, y=1308), "input_text", 1, "", typed="!"))
        held += "!"
    trail.append(TrailStep(8, _compose(NUMBER, held, y=1308), "click", 2, "Send"))
    return trail


def _sent(words: str = CLIP) -> Observation:
    return _obs(
        _el(NUMBER, 160, x=(160, 700)), _el(words, 900, h=100), *_compose(NUMBER).ui_elements[1:]
    )


def test_the_clipboard_pasted_whole_into_an_empty_box_and_sent_is_done():
    verdict = offline_goal.check_goal(CLIP_GOAL, _clip_trail(), _sent())
    assert verdict.status == GOAL_DONE, verdict.reason()


def test_the_clipboard_after_words_typed_first_is_not_known():
    trail = _clip_trail(before="Hi ")
    verdict = offline_goal.check_goal(CLIP_GOAL, trail, _sent("Hi " + CLIP))
    assert verdict.status == GOAL_UNKNOWN, verdict.reason()


def test_a_copy_before_the_paste_leaves_the_words_unknown():
    verdict = offline_goal.check_goal(CLIP_GOAL, _clip_trail(copy_first=True), _sent())
    assert verdict.status == GOAL_UNKNOWN, verdict.reason()


def test_typing_between_the_paste_and_the_send_leaves_the_words_unknown():
    verdict = offline_goal.check_goal(CLIP_GOAL, _clip_trail(typed_after=True), _sent(CLIP + "!"))
    assert verdict.status == GOAL_UNKNOWN, verdict.reason()


def test_no_sent_bubble_leaves_the_words_unknown():
    verdict = offline_goal.check_goal(CLIP_GOAL, _clip_trail(), _compose(NUMBER, y=1308))
    assert verdict.status == GOAL_UNKNOWN, verdict.reason()
