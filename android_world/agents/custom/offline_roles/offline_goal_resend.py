"""The goal check of "Resend the message I just sent to Noa": which message was "just sent", as
the thread showed it, and that very message sent again, once, in that thread.

The goal does not give its words: they are on the thread's screen, the last message of one's
own. A thread shows whose a message is only by its side (one's own on the right, the other
person's on the left, as messaging apps draw them) and which is latest by its place and time
(oldest at the top, newest at the bottom, where a thread opens). So the resend is `done` only
when, model-free:

- a thread screen seen before the first Send tap, before any scroll, headed by the goal's
  contact (the title bar names them), showed its end (nothing cut by the list's bottom edge),
  every message with one time, the times never going back down the list; its lowest message
  on the right side is the one just sent (every such screen agrees);
- exactly one Send tap with words in the text field ran in the episode (a resend is one more
  message, not two), on a screen headed by the same contact, the field holding exactly those
  words;
- a screen since, headed by that contact, shows the words on the right side once more than
  before the send (the new bubble).

Words sent that differ from the message just sent (more than a letter or a stop apart), or
sent in another contact's thread, are `unmet`; anything the screens did not show (a thread never seen whole, a bubble on neither
side, two sends) is `unknown`, for the planner's confirmation.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Sequence

from android_world.agents.custom.celil_geometry import element_box
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
from android_world.agents.custom.offline_roles.offline_elements import keyboard_top
from android_world.agents.custom.offline_roles.offline_goal_recent import (
    before_send_unmoved,
    comparable,
    header_texts,
    name_key,
    one_time,
    order_key,
    row_texts,
    sends,
)
from android_world.agents.custom.offline_roles.offline_goal_screens import held_texts

# "Resend the message I just sent to Noa Mohammed in Simple SMS Messenger": the first "resend",
# the first message word after it, the first "to" after that; the name runs to an app's "in ..."
# (each word found once from where the last was: linear, where one pattern with two lazy gaps
# took 0.5 s on a 4,000-character goal repeating "resend message").
_RESEND_WORD = re.compile(r"\bresend\b", re.I)
_MESSAGE_WORD = re.compile(r"\b(?:message|text|sms)\b", re.I)
_TO_WORD = re.compile(r"\bto\s+", re.I)
_APP_TAIL = re.compile(r"\s+(?:in|on|using|via|with)\s", re.I)
# How far from the screen's middle a bubble's middle must lie to be on one side.
_SIDE_SHARE = 0.05
_RIGHT, _LEFT = "right", "left"
_CLOSE = 0.9


def parse_resend(clause: str) -> str | None:
    """The contact a "resend the message I just sent to ..." clause names, else None."""
    text = (clause or "").strip()
    found = _RESEND_WORD.search(text)
    found = found and _MESSAGE_WORD.search(text, found.end())
    found = found and _TO_WORD.search(text, found.end())
    if not found:
        return None
    rest = text[found.end() :]
    tail = _APP_TAIL.search(rest)
    name = (rest[: tail.start()] if tail else rest).strip()
    if not tail and name[-1:] in (".", "!"):
        name = name[:-1].strip()
    return name or None


def _container(observation: Observation):
    elements = observation.ui_elements
    for i in screen.content_indices(observation):
        if elements[i].is_scrollable:
            return element_box(elements[i], observation.screen_size)
    return None


def _shows_end(observation: Observation) -> bool:
    """No text of the list crosses its bottom edge and no keyboard covers it: its last message
    is whole on the screen."""
    box = _container(observation)
    if box is None:
        return False
    keyboard = keyboard_top(observation)
    if keyboard is not None and keyboard < box.y_max:
        return False
    for i in screen.content_indices(observation):
        element = observation.ui_elements[i]
        inner = element_box(element, observation.screen_size)
        if inner is None or not screen.element_text(element) or screen.is_field(element):
            continue
        if box.x_min <= inner.center[0] <= box.x_max and inner.y_min < box.y_max < inner.y_max:
            return False
    return True


def bubbles(observation: Observation) -> list[tuple[str, str]] | None:
    """The thread's messages top to bottom as (words, side); None when the screen is no thread
    read whole (no text field to write in, a message without one time, on neither side, or
    times going back down the list)."""
    if not screen.form_fields(observation) or not _shows_end(observation):
        return None
    elements = observation.ui_elements
    size = observation.screen_size
    width = size[0] if size else 0
    if not width:
        return None
    out: list[tuple[str, str]] = []
    keys: list[tuple] = []
    for item in screen.list_items(observation):
        texts = row_texts(observation, item)
        if not texts:
            continue
        timed = one_time(texts)
        words = [t for i, t in texts if timed is None or i != timed[0]]
        if timed is None or len(words) != 1:
            return None
        boxes = [element_box(elements[i], size) for i, _ in texts]
        if any(b is None for b in boxes):
            return None
        middle = (min(b.x_min for b in boxes) + max(b.x_max for b in boxes)) / 2
        if middle > width * (0.5 + _SIDE_SHARE):
            side = _RIGHT
        elif middle < width * (0.5 - _SIDE_SHARE):
            side = _LEFT
        else:
            return None
        out.append((words[0], side))
        keys.append(timed[1])
    if not out or not comparable(keys):
        return None
    order = [order_key(k) for k in keys]
    if any(a > b for a, b in itertools.pairwise(order)):
        return None
    return out


def _headed_by(observation: Observation, contact: str) -> bool:
    return name_key(contact) in {name_key(h) for h in header_texts(observation)}


def _just_sent(trail: Sequence[TrailStep], contact: str) -> tuple[str | None, str]:
    """The words of the message last sent to `contact`, as threads seen before any send and
    any scroll showed them; None with why when they did not."""
    found = set()
    for step in before_send_unmoved(trail):
        if not _headed_by(step.screen, contact):
            continue
        shown = bubbles(step.screen)
        mine = [words for words, side in shown or [] if side == _RIGHT]
        if mine:
            found.add(mine[-1])
    if not found:
        return None, f"no thread with {contact} was seen whole before the send"
    if len({text_lib.normalize(w) for w in found}) != 1:
        return None, "the threads seen disagree on the message just sent"
    return sorted(found)[0], ""


def _mine_count(observation: Observation, words: str) -> int | None:
    shown = bubbles(observation)
    if shown is None:
        return None
    want = text_lib.normalize(words)
    return sum(1 for w, side in shown if side == _RIGHT and text_lib.normalize(w) == want)


def resend_checks(
    clauses: Sequence[str], trail: Sequence[TrailStep], current: Observation
) -> list[GoalCheck]:
    """A check per "resend the message I just sent to ..." clause (see the module doc)."""
    checks = []
    for clause in clauses:
        contact = parse_resend(clause)
        if contact:
            checks.append(_check(clause, contact, trail, current))
    return checks


def _check(
    clause: str, contact: str, trail: Sequence[TrailStep], current: Observation
) -> GoalCheck:
    what = f"clause {clause[:60]!r}"

    def unknown(why: str) -> GoalCheck:
        return GoalCheck(what, GOAL_UNKNOWN, why)

    sent = [i for i, t in enumerate(trail) if sends(t) and held_texts(t.screen)]
    if not sent:
        return unknown("nothing was sent yet")
    if len(sent) > 1:
        return unknown(f"{len(sent)} messages were sent, a resend is one")
    step = trail[sent[0]]
    words, why = _just_sent(trail, contact)
    if words is None:
        return unknown(why)
    headers = header_texts(step.screen)
    if not headers:
        return unknown("the thread the message was sent in shows no header")
    if not _headed_by(step.screen, contact):
        return GoalCheck(what, GOAL_UNMET, f"sent in the thread of {headers[0]!r}, not {contact}")
    held = held_texts(step.screen)
    if len(held) != 1:
        return unknown("more than one field held words when Send was tapped")
    if text_lib.normalize(held[0]) != text_lib.normalize(words):
        why = f"sent {held[0][:40]!r}; the message just sent was {words[:40]!r}"
        close = difflib.SequenceMatcher(None, held[0].casefold(), words.casefold()).ratio()
        # Nearly the same words (a letter or a stop apart) may still count as the same message.
        return unknown(why) if close >= _CLOSE else GoalCheck(what, GOAL_UNMET, why)
    before = _mine_count(step.screen, words)
    later = [t.screen for t in trail[sent[0] + 1 :]] + [current]
    for observation in later:
        if not _headed_by(observation, contact):
            continue
        count = _mine_count(observation, words)
        if before is not None and count is not None and count > before:
            why = f"{words[:40]!r}, the message just sent to {contact}, was sent again once"
            return GoalCheck(what, GOAL_DONE, why)
    return unknown("the message sent again was not seen in the thread")
