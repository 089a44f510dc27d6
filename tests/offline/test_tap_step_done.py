"""A "Tap 'X'" step is done when a tap on X went through, though X is gone from the screen.

The tapped control is where the step acts, not a value its end state shows: a tapped "More
options" is covered by the menu it opened, a tapped "Sort by" by its choices. Before, the
progress check asked for "More options" on the screen as if it were a value, so the step was
never done by the screen; under noise the planner's refused answers then cost two steps and a
replan, and a 10-step task done on its last step was never claimed (RecipeDeleteDuplicateRecipes,
MarkorDeleteNewestNote, `verifier_value.py --plan_style fine`). The tap must be on that very
control: another row with the same first word, or a label that only contains it, is not it.
"""

from __future__ import annotations

import celil_fakes as fakes
import pytest

from android_world.agents.custom.offline_roles import offline_goal
from android_world.agents.custom.offline_roles.offline_planner import OfflinePlanner

GOAL = (
    "Delete all but one of any recipes in the Broccoli app that are exact duplicates, ensuring "
    "at least one instance of each unique recipe remains"
)


screen = fakes.labelled_screen


def context(*steps: tuple[str, str, str]) -> str:
    lines = [f"Task goal: {GOAL}", "Recent steps:"]
    lines += [
        f"step {n}: [{sub_goal}] {action} -> {outcome}"
        for n, (sub_goal, action, outcome) in enumerate(steps, 1)
    ]
    return "\n".join(lines)


MENU = screen("Share", "Edit", "Delete")  # the overflow menu covers the button that opened it


@pytest.mark.parametrize(
    "sub_goal",
    ["Tap 'More options'", "Tap the 'More options' button", "Press 'More options'"],
)
def test_a_tap_on_the_named_control_that_went_through_is_the_steps_evidence(sub_goal):
    steps = (
        (
            "Tap 'Classic Margherita Pizza'",
            'click on element [7] TextView "Classic Margherita Pizza"',
            "ok",
        ),
        (sub_goal, 'click on element [6] ImageButton "Mark as favorite"', "rejected"),
        (sub_goal, 'click on element [7] ImageButton "More options"', "ok"),
    )
    verdict = OfflinePlanner().check_sub_goal(GOAL, sub_goal, MENU, context(*steps))
    assert verdict.done and verdict.kind == "transition", verdict


@pytest.mark.parametrize(
    ("sub_goal", "tapped"),
    [
        # Another row that shares the first word: before, "classic" in the action was enough.
        ("Tap 'Classic Margherita Pizza'", 'TextView "Classic Caesar Salad"'),
        # A label that only contains the control's name is another control.
        ("Tap 'OK'", 'TextView "Book"'),
        ("Tap 'More options'", 'ImageButton "Mark as favorite"'),
    ],
)
def test_a_tap_on_another_control_is_not_the_step(sub_goal, tapped):
    steps = ((sub_goal, f"click on element [7] {tapped}", "ok"),)
    verdict = OfflinePlanner().check_sub_goal(GOAL, sub_goal, MENU, context(*steps))
    assert not verdict.done, verdict


def test_a_step_that_failed_or_never_ran_is_not_done():
    sub_goal = "Tap 'More options'"
    failed = ((sub_goal, 'click on element [7] ImageButton "More options"', "failed: no change"),)
    assert not OfflinePlanner().check_sub_goal(GOAL, sub_goal, MENU, context(*failed)).done
    assert not OfflinePlanner().check_sub_goal(GOAL, sub_goal, MENU, context()).done


def test_the_labels_a_step_acts_on_are_places_not_values():
    assert offline_goal.values_missing("Tap 'More options'", MENU) == []
    assert offline_goal.values_missing("Type 'Ann Lee' in 'Name'", MENU) == ["Ann Lee"]
    # A value the step writes or names as what it makes is still a value.
    assert "Ann Lee" in offline_goal.values_missing("Create a contact for 'Ann Lee'", MENU)
    assert offline_goal.values_missing("Type 'Ann Lee' in 'Name'", screen("Ann Lee")) == []


def test_a_step_of_several_taps_is_not_done_by_its_first():
    # Under noise this made a false completion (SimpleCalendarAddOneEventTomorrow, fine plans):
    # the plan's last step "Tap '30', then tap 'OK', then tap 'Save'" counted done after the
    # tap on '30', and the planner's early "done" then ended the episode unsaved.
    sub_goal = "Tap '30', then tap 'OK', then tap 'Save'"
    steps = ((sub_goal, 'click on element [15] TextView "30"', "ok"),)
    picker = screen("20", "30", "45", "Cancel")
    verdict = OfflinePlanner().check_sub_goal(GOAL, sub_goal, picker, context(*steps))
    assert not verdict.done, verdict
    assert offline_goal.values_missing(sub_goal, picker) == ["OK", "Save"]
    typed_then_tap = "Enter 'We will prepare.' in 'Description', then tap '16:00'"
    assert "16:00" in offline_goal.values_missing(typed_then_tap, screen("We will prepare."))
