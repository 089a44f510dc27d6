"""The goal check of "Update the content of a.txt to "new text" ... and change its name to b.txt"
(offline_goal_content): done only when a field showed exactly the new text and the editor was
left, and the new name then took the old one's place; a field with part of the text, the old
text with the new appended, an editor never left, a rename never confirmed, or a listing where
the old row's place cannot be seen all stay unknown."""

from __future__ import annotations

import celil_fakes

from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNKNOWN,
    Observation,
    TrailStep,
)
from android_world.agents.custom.offline_roles import offline_goal
from android_world.agents.custom.offline_roles import offline_goal_content as content
from android_world.env.representation_utils import UIElement

MARKOR = celil_fakes.MARKOR
OLD, NEW, TEXT = "fair_koala_6Ugh.txt", "ready_koala_2023_01_03.txt", "OTOjfF7NW22PIHNaCfzP"
GOAL = f'Update the content of {OLD} to "{TEXT}" in Markor and change its name to {NEW}.'
# Sorted by name: the old note sits between two others; the new name sorts below the screen.
ABOVE, BELOW = "Cuxz_garden_layout_plan.md", "final_birthday_gift_ideas_mom.md"


_el = celil_fakes.element_at


def _obs(*elements: UIElement) -> Observation:
    return celil_fakes.screen_of(*elements, activity=MARKOR)


def _listing(*names: str) -> Observation:
    return celil_fakes.markor_listing(*names)


def _editor(text: str, title: str = OLD) -> Observation:
    field = _el(text, 400, cls="android.widget.EditText", h=600, is_editable=True)
    return _obs(_el(title, 160, x=(160, 700)), field)


def _rename(text: str) -> Observation:
    field = _el(text, 900, cls="android.widget.EditText", is_editable=True)
    return _obs(_el("Rename", 800), field, _el("OK", 1100, cls="android.widget.Button"))


BEFORE = _listing(ABOVE, OLD, BELOW)
AFTER = _listing(ABOVE, BELOW)


def _trail(typed: str = TEXT, *, leave: bool = True, confirm: str = "OK") -> list[TrailStep]:
    steps = [
        TrailStep(1, BEFORE, "click", 2, OLD),
        TrailStep(2, _editor("old words"), "input_text", 1, "old words", typed=typed),
    ]
    if leave:
        steps.append(TrailStep(3, _editor(typed), "click", target="Navigate up"))
    steps += [
        TrailStep(4, BEFORE, "long_press", 2, OLD),
        TrailStep(5, _rename(OLD), "input_text", 1, OLD, typed=NEW),
        TrailStep(6, _rename(NEW), "click", 2, confirm),
    ]
    return steps


def _statuses(trail, current):
    return [c.status for c in content.content_checks(GOAL, trail, current)]


def test_reads_the_goal_and_its_rename():
    assert content.parse_replace(GOAL) == (OLD, TEXT, NEW)
    assert content.parse_replace("Change the text of notes.md to 'hi'.") == ("notes.md", "hi", None)
    assert content.parse_replace("Create a note named a.md with the text 'hi'.") is None
    assert content.covers_content("and change its name to b.txt")


def test_done_when_the_whole_text_was_left_in_the_editor_and_the_old_row_closed_up():
    assert _statuses(_trail(), AFTER) == [GOAL_DONE, GOAL_DONE]
    verdict = offline_goal.check_goal(GOAL, _trail(), AFTER)
    assert verdict.status == GOAL_DONE, verdict.as_dict()


def test_done_when_the_new_name_shows_in_the_listing():
    assert _statuses(_trail(), _listing(ABOVE, BELOW, NEW)) == [GOAL_DONE, GOAL_DONE]


def test_part_of_the_text_is_no_replacement():
    assert _statuses(_trail(TEXT[:12]), AFTER)[0] == GOAL_UNKNOWN
    assert offline_goal.check_goal(GOAL, _trail(TEXT[:12]), AFTER).status == GOAL_UNKNOWN


def test_the_old_text_with_the_new_appended_is_no_replacement():
    assert _statuses(_trail(f"old words {TEXT}"), AFTER)[0] == GOAL_UNKNOWN


def test_an_editor_never_left_is_not_saved():
    assert _statuses(_trail(leave=False), AFTER)[0] == GOAL_UNKNOWN


def test_a_rename_dialog_cancelled_is_no_rename():
    assert _statuses(_trail(confirm="Cancel"), AFTER)[1] == GOAL_UNKNOWN


def test_the_old_row_still_listed_or_its_place_out_of_view_stays_unknown():
    assert _statuses(_trail(), BEFORE)[1] == GOAL_UNKNOWN
    # Scrolled away: the old row's neighbours are not next to each other on screen.
    assert _statuses(_trail(), _listing(BELOW, "zeta.md"))[1] == GOAL_UNKNOWN
    assert offline_goal.check_goal(GOAL, _trail(), BEFORE).status == GOAL_UNKNOWN


def test_the_old_row_first_in_view_marks_no_place():
    trail = _trail()
    top = _listing(OLD, BELOW)
    trail = [
        TrailStep(
            t.step,
            top if t.screen is BEFORE else t.screen,
            t.action_type,
            t.index,
            t.target,
            t.typed,
        )
        for t in trail
    ]
    assert _statuses(trail, _listing(BELOW))[1] == GOAL_UNKNOWN


def test_the_text_left_in_another_notes_editor_is_not_this_notes_content():
    trail = _trail()
    trail[2] = TrailStep(3, _editor(TEXT, title=ABOVE), "click", target="Navigate up")
    assert _statuses(trail, AFTER)[0] == GOAL_UNKNOWN


def test_another_file_renamed_to_the_new_name_is_not_this_rename():
    trail = _trail()
    trail[-2] = TrailStep(5, _rename(ABOVE), "input_text", 1, ABOVE, typed=NEW)
    trail[-1] = TrailStep(6, _rename(NEW), "click", 2, "OK")
    assert _statuses(trail, _listing(OLD, BELOW, NEW))[1] == GOAL_UNKNOWN
    assert _statuses(trail, _listing(BELOW, NEW))[1] == GOAL_UNKNOWN
