"""The goal check of "Copy the following text to the clipboard: X" (offline_goal_copy): done only
when a long-press on exactly X opened a menu without "Select all", the very next action tapped
Copy on it, and the screen after confirmed the copy; a copy of other text, of part of the text,
a Copy with no confirmation, or a later Copy or Cut all stay unknown (never unmet)."""

from __future__ import annotations

import celil_fakes

from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNKNOWN,
    Observation,
    TrailStep,
)
from android_world.agents.custom.offline_roles import offline_goal
from android_world.agents.custom.offline_roles import offline_goal_copy as copy

CONTACTS = "com.google.android.contacts/com.android.contacts.activities.PeopleActivity"
TEXT = "Innovate Inc, Room 10"
GOAL = f"Copy the following text to the clipboard: {TEXT}"

_el = celil_fakes.element_at


def _obs(*elements) -> Observation:
    return celil_fakes.screen_of(*elements, activity=CONTACTS)


def _search(text: str, *, toast: str | None = None) -> Observation:
    field = _el(
        text, 125, cls="android.widget.EditText", h=150, is_editable=True, is_clickable=True
    )
    elements = [_el("Navigate up", 128, x=(12, 156), h=144, is_clickable=True), field]
    elements.append(_el("No contacts found", 292, h=300))
    if toast:
        elements.append(_el(toast, 2008, x=(444, 636), h=110))
    return _obs(*elements)


def _menu(*labels: str) -> Observation:
    return _obs(
        *(_el(label, 152 + 150 * i, h=150, is_clickable=True) for i, label in enumerate(labels))
    )


def _trail(pressed: str = TEXT, menu: tuple[str, ...] = ("Cut", "Copy")) -> list[TrailStep]:
    return [
        TrailStep(1, _search(""), "input_text", 1, "", typed=pressed),
        TrailStep(2, _search(pressed), "long_press", 1, pressed),
        TrailStep(3, _menu(*menu), "click", list(menu).index("Copy"), "Copy"),
    ]


def _status(trail, current, goal: str = GOAL) -> str:
    return offline_goal.check_goal(goal, trail, current).status


def test_reads_copy_goals_only():
    assert copy.parse_copy(GOAL) == TEXT
    assert copy.parse_copy("Copy the following text to the clipboard: Tracking #: 1Z204E2A") == (
        "Tracking #: 1Z204E2A"
    )
    assert copy.parse_copy('Copy "Acme Corp" to the clipboard.') == "Acme Corp"
    assert copy.parse_copy("Send a message to Ann with the clipboard content") is None
    assert copy.parse_copy("Create a note from the clipboard content") is None
    assert copy.parse_copy('Copy "a" to the clipboard and paste it into b.md') is None


def test_done_when_the_text_was_long_pressed_copied_and_the_copy_confirmed():
    verdict = offline_goal.check_goal(GOAL, _trail(), _search(TEXT, toast="Copied"))
    assert verdict.status == GOAL_DONE, verdict.reason()


def test_done_when_the_confirmation_screen_is_in_the_trail():
    trail = [*_trail(), TrailStep(4, _search(TEXT, toast="Copied"), "navigate_back")]
    assert _status(trail, _search("")) == GOAL_DONE


def test_unknown_without_a_confirmation():
    assert _status(_trail(), _search(TEXT)) == GOAL_UNKNOWN


def test_unknown_when_other_text_was_copied():
    trail = _trail(pressed="Innovate Inc")
    assert _status(trail, _search("Innovate Inc", toast="Copied")) == GOAL_UNKNOWN


def test_unknown_when_only_part_was_selected():
    trail = _trail(menu=("Cut", "Copy", "Select all"))
    assert _status(trail, _search(TEXT, toast="Copied")) == GOAL_UNKNOWN


def test_unknown_when_the_copy_did_not_follow_the_long_press():
    trail = _trail()
    trail.insert(2, TrailStep(3, _search(TEXT), "input_text", 1, TEXT, typed=" x"))
    assert _status(trail, _search(TEXT, toast="Copied")) == GOAL_UNKNOWN


def test_unknown_when_a_cut_or_copy_ran_after_it():
    later = [
        TrailStep(4, _search(TEXT, toast="Copied"), "long_press", 1, TEXT),
        TrailStep(5, _menu("Cut", "Copy"), "click", 0, "Cut"),
    ]
    assert _status([*_trail(), *later], _search("")) == GOAL_UNKNOWN


def test_unknown_when_no_copy_ran():
    assert _status(_trail()[:2], _menu("Cut", "Copy")) == GOAL_UNKNOWN


def test_a_paste_goal_is_not_read_as_a_copy():
    goal = "Send a message to +16505550101 with the clipboard content"
    assert copy.copy_checks(goal, _trail(), _search(TEXT, toast="Copied")) == []
