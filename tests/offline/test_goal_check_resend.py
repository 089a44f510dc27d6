"""The goal check of "Resend the message I just sent to ..." (offline_goal_resend): done only when
the contact's thread, seen whole before the send, showed the last message on one's own side and
exactly those words were sent again, once, in that thread."""

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
from android_world.agents.custom.offline_roles import offline_goal_resend as resend

SMS = "com.simplemobiletools.smsmessenger/.activities.ThreadActivity"
_el = celil_fakes.element_at

GOAL = "Resend the message I just sent to Noa Mohammed in Simple SMS Messenger"
MINE = "Better late than never."
GLITCH = "Sorry, there was a glitch, what was the last message you sent me?"
# (words, mine, time) oldest first, as the thread shows them.
THREAD = [("Old news.", True, "15:01"), ("Ok", False, "15:02"), (MINE, True, "15:32")]
THREAD += [(GLITCH, False, "15:33")]


def _obs(*elements) -> Observation:
    return celil_fakes.screen_of(*elements, activity=SMS)


def _thread(
    title: str = "Noa Mohammed", messages=THREAD, typed: str = "", *, cut: bool = False
) -> Observation:
    """A thread: the contact in the title bar, the messages (own on the right, theirs on the
    left, each with its time below), the message box and Send."""
    box = _el("", 290, x=(0, 1080), cls="androidx.recyclerview.widget.RecyclerView", h=1806)
    box.is_scrollable = True
    elements = [_el(title, 159, x=(156, 924), h=81), box]
    for i, (words, mine, when) in enumerate(messages):
        x = (320, 1008) if mine else (72, 760)
        elements += [_el(words, 332 + 180 * i, x=x), _el(when, 392 + 180 * i, x=x, h=46)]
    if cut:  # a message cut by the list's bottom edge: the thread goes on below
        elements.append(_el("More words", 2060, x=(72, 760), h=60))
    field = _el(typed, 2108, x=(0, 924), cls="android.widget.EditText", h=150, is_editable=True)
    field.hint_text = "Type a message"
    send = _el("", 2111, x=(924, 1068), cls="android.widget.ImageButton", h=144)
    send.content_description = "Send"
    send.is_clickable = True
    return _obs(*elements, field, send)


def _resend(
    words: str = MINE, *, title: str = "Noa Mohammed", times: int = 1, **thread
) -> tuple[list[TrailStep], Observation]:
    shown = list(thread.pop("messages", THREAD))
    trail: list[TrailStep] = []
    for n in range(times):
        trail.append(
            TrailStep(2 * n + 1, _thread(title, shown, **thread), "input_text", 6, "", words)
        )
        trail.append(
            TrailStep(2 * n + 2, _thread(title, shown, words, **thread), "click", 7, "Send")
        )
        shown = [*shown, (words, True, "15:34")]
    return trail, _thread(title, shown)


def _verdict(trail, current):
    return offline_goal.check_goal(GOAL, trail, current)


def test_the_last_own_message_sent_again_once_in_its_thread_is_done():
    verdict = _verdict(*_resend())
    assert verdict.status == GOAL_DONE, verdict.reason()


def test_their_message_sent_back_is_not_done():
    verdict = _verdict(*_resend(GLITCH))
    assert verdict.status == GOAL_UNMET, verdict.reason()


def test_an_older_own_message_is_not_the_one_just_sent():
    verdict = _verdict(*_resend("Old news."))
    assert verdict.status == GOAL_UNMET, verdict.reason()


def test_the_words_sent_in_another_thread_are_not_done():
    trail, _ = _resend(title="Emil Wang")
    # The contact's own thread seen first (the words), then sent in another.
    first = TrailStep(0, _thread(), "navigate_back", None, "")
    verdict = _verdict([first, *trail], _thread("Emil Wang", [*THREAD, (MINE, True, "15:34")]))
    assert verdict.status == GOAL_UNMET, verdict.reason()


def test_sent_twice_is_not_one_resend():
    verdict = _verdict(*_resend(times=2))
    assert verdict.status == GOAL_UNKNOWN, verdict.reason()


def test_a_thread_not_seen_to_its_end_proves_nothing():
    verdict = _verdict(*_resend(cut=True))
    assert verdict.status == GOAL_UNKNOWN, verdict.reason()


def test_times_going_back_down_the_thread_are_not_read():
    messages = [THREAD[2], THREAD[0], THREAD[3]]
    messages[0] = (MINE, True, "15:40")
    verdict = _verdict(*_resend(messages=messages))
    assert verdict.status == GOAL_UNKNOWN, verdict.reason()


def test_nearly_the_same_words_are_left_to_the_planner():
    verdict = _verdict(*_resend("Better late than never!!"))
    assert verdict.status == GOAL_UNKNOWN, verdict.reason()


def test_nothing_sent_yet_is_not_done():
    verdict = _verdict([], _thread())
    assert verdict.status == GOAL_UNKNOWN, verdict.reason()


def test_the_contact_is_read_from_the_goal():
    assert resend.parse_resend(GOAL) == "Noa Mohammed"
    assert resend.parse_resend("Resend my last text to +16604876475.") == "+16604876475"
    assert resend.parse_resend("Send a message to Noa Mohammed") is None


def test_a_keyboard_over_the_thread_may_hide_its_last_messages():
    keys = [
        _el(letter, 1500 + 120 * (n // 10), x=(108 * (n % 10), 108 * (n % 10) + 100), h=100)
        for n, letter in enumerate("qwertyuiopasdfghjklzxcvbnm")
    ]
    for key in keys:
        key.is_clickable = True
    assert resend._shows_end(_thread())
    # The list runs on under the keyboard: what it hides there may be the last message.
    assert not resend._shows_end(_obs(*_thread().ui_elements, *keys))
