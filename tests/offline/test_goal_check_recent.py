"""The goal check of "Reply to the most recent text message ..." (offline_goal_recent): done only
when a list seen before the reply showed which conversation was most recent (its times) and the
reply was sent in the thread whose header names it; sent in another thread, unmet; no list read,
unknown."""

from __future__ import annotations

import celil_fakes
import pytest

from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNKNOWN,
    GOAL_UNMET,
    Observation,
    TrailStep,
)
from android_world.agents.custom.offline_roles import offline_goal
from android_world.agents.custom.offline_roles import offline_goal_recent as recent

SMS = "com.simplemobiletools.smsmessenger/.activities.MainActivity"
_el = celil_fakes.element_at

GOAL = (
    "Reply to the most recent text message using Simple SMS Messenger with message: See you soon."
)
WORDS = "See you soon."
ROWS = [("+16604876475", "Pick up groceries.", "15:33"), ("Alice Wong", "Hello", "15:04")]
ROWS += [("+18242194892", "The night is dark.", "14:51")]


def _obs(*elements) -> Observation:
    return celil_fakes.screen_of(*elements, activity=SMS)


def _conversations(rows=ROWS, *, more_below: bool = False) -> Observation:
    """The app's conversation list: a title, a scrollable list, one row per conversation (its
    name, its last message and its time at the right), and the floating New button."""
    box = _el("", 290, x=(0, 1080), cls="androidx.recyclerview.widget.RecyclerView", h=1978)
    box.is_scrollable = True
    elements = [_el("SMS Messenger", 160, x=(60, 780)), box]
    for i, (name, last, when) in enumerate(rows):
        elements += [_el(name, 334 + 200 * i, x=(48, 850)), _el(last, 394 + 200 * i, x=(48, 850))]
        elements.append(_el(when, 364 + 200 * i, x=(874, 1044), h=52))
    if more_below:  # a row cut by the list's bottom edge
        elements.append(_el("+19990001111", 2230, x=(48, 850), h=60))
    fab = _el("", 2020, x=(832, 1032), cls="android.widget.ImageButton", h=200)
    fab.content_description = "New conversation"
    fab.is_clickable = True
    return _obs(*elements, fab)


def _thread(title: str, bubbles: list[str], typed: str = "", *, header: bool = True):
    elements = [_el(title, 160, x=(160, 700))] if header else []
    elements += [_el(b, 400 + 120 * i, h=100) for i, b in enumerate(bubbles)]
    field = _el(typed, 2108, cls="android.widget.EditText", h=150, is_editable=True)
    field.hint_text = "Type a message"
    send = _el("", 2108, x=(924, 1068), cls="android.widget.ImageButton", h=150)
    send.content_description = "Send"
    send.is_clickable = True
    return _obs(*elements, field, send)


def _reply(
    to: str, *, listing: Observation | None = None, header: bool = True, scroll: bool = False
) -> tuple[list[TrailStep], Observation]:
    """Open the app's list (when given), open `to`'s thread, type the words, tap Send."""
    trail: list[TrailStep] = []
    if listing is not None:
        if scroll:
            trail.append(TrailStep(0, listing, "scroll", None, ""))
        trail.append(TrailStep(1, listing, "click", 2, to))
    trail.append(TrailStep(2, _thread(to, ["Hi"], header=header), "input_text", 2, "", WORDS))
    trail.append(TrailStep(3, _thread(to, ["Hi"], WORDS, header=header), "click", 3, "Send"))
    return trail, _thread(to, ["Hi", WORDS], header=header)


def _verdict(trail, current):
    return offline_goal.check_goal(GOAL, trail, current)


def test_a_reply_in_the_top_conversation_newest_first_is_done():
    verdict = _verdict(*_reply("+16604876475", listing=_conversations()))
    assert verdict.status == GOAL_DONE, verdict.reason()


def test_a_reply_in_another_conversation_is_not_done():
    verdict = _verdict(*_reply("Alice Wong", listing=_conversations()))
    assert verdict.status == GOAL_UNMET, verdict.reason()


def test_no_conversation_list_ever_seen_leaves_it_unknown():
    verdict = _verdict(*_reply("+16604876475"))
    assert verdict.status == GOAL_UNKNOWN, verdict.reason()


def test_a_list_seen_only_after_the_reply_proves_nothing():
    # A reply puts its own thread on top of the list: a list after it always "agrees".
    trail, _ = _reply("Alice Wong")
    after = _conversations([("Alice Wong", WORDS, "15:35"), *ROWS[:1], *ROWS[2:]])
    trail.append(TrailStep(4, _thread("Alice Wong", ["Hi", WORDS]), "navigate_back", None, ""))
    assert _verdict(trail, after).status == GOAL_UNKNOWN


def test_a_whole_list_in_another_order_names_its_latest_row():
    rows = [ROWS[1], ROWS[0], ROWS[2]]  # not newest first, but every row is on the screen
    assert _verdict(*_reply("+16604876475", listing=_conversations(rows))).status == GOAL_DONE
    assert _verdict(*_reply("Alice Wong", listing=_conversations(rows))).status == GOAL_UNMET


def test_an_unordered_list_with_more_below_is_not_read():
    rows = [ROWS[1], ROWS[0], ROWS[2]]
    listing = _conversations(rows, more_below=True)
    assert _verdict(*_reply("+16604876475", listing=listing)).status == GOAL_UNKNOWN


def test_two_rows_at_the_same_latest_minute_are_not_told_apart():
    rows = [ROWS[0], ("Alice Wong", "Hello", "15:33"), ROWS[2]]
    listing = _conversations(rows)
    assert _verdict(*_reply("+16604876475", listing=listing)).status == GOAL_UNKNOWN


def test_a_scrolled_list_may_hide_newer_rows_above():
    listing = _conversations()
    verdict = _verdict(*_reply("+16604876475", listing=listing, scroll=True))
    assert verdict.status == GOAL_UNKNOWN, verdict.reason()


def test_a_thread_without_a_header_is_unknown():
    verdict = _verdict(*_reply("+16604876475", listing=_conversations(), header=False))
    assert verdict.status == GOAL_UNKNOWN, verdict.reason()


def test_a_list_without_times_is_not_read():
    rows = [(name, last, "") for name, last, _ in ROWS]
    verdict = _verdict(*_reply("+16604876475", listing=_conversations(rows)))
    assert verdict.status == GOAL_UNKNOWN, verdict.reason()


def test_numbers_compare_by_their_digits():
    rows = [("+1 660-487-6475", "Pick up groceries.", "15:33"), *ROWS[1:]]
    verdict = _verdict(*_reply("+16604876475", listing=_conversations(rows)))
    assert verdict.status == GOAL_DONE, verdict.reason()


@pytest.mark.parametrize(
    ("newer", "older"),
    [
        ("3:04 PM", "11:59 AM"),
        ("00:01", "Yesterday"),
        ("Yesterday", "Oct 14"),
        ("Oct 14", "Sep 30"),
        ("14 Oct", "2 Oct"),
        ("Jan 2, 2024", "Dec 30, 2023"),
    ],
)
def test_time_labels_order(newer, older):
    assert recent.time_key(newer) > recent.time_key(older)


def test_dates_without_a_year_across_new_year_are_not_compared():
    rows = [("+16604876475", "a", "Jan 2"), ("Alice Wong", "b", "Dec 30")]
    assert recent.newest_row(_conversations(rows)) is None
    assert recent.time_key("Octopus 5") is None
    assert recent.time_key("25:61") is None


def test_only_replies_to_the_most_recent_are_read():
    assert recent.parse_recent_reply("Reply to the latest conversation with: ok")
    assert recent.parse_recent_reply("respond to my most recent SMS saying hi")
    assert not recent.parse_recent_reply("Reply to +16604876475 with message: hi")
    assert not recent.parse_recent_reply("Delete the most recent message")


def test_a_keyboard_over_an_unordered_list_may_hide_newer_rows():
    keys = [
        _el(letter, 1500 + 120 * (n // 10), x=(108 * (n % 10), 108 * (n % 10) + 100), h=100)
        for n, letter in enumerate("qwertyuiopasdfghjklzxcvbnm")
    ]
    for key in keys:
        key.is_clickable = True
    listing = _conversations([ROWS[1], ROWS[0], ROWS[2]])
    assert recent.newest_row(listing) == "+16604876475"
    assert recent.newest_row(_obs(*listing.ui_elements, *keys)) is None
