"""The goal check of "Delete the newest note" (offline_goal_newest): done only when the deleted
row was the top row of the list sorted newest first and is gone since; any guess (another
order, another row, a scrolled list, two rows selected, the row still listed) stays unknown."""

from __future__ import annotations

import celil_fakes

from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNKNOWN,
    Observation,
    TrailStep,
)
from android_world.agents.custom.offline_roles import offline_goal
from android_world.agents.custom.offline_roles import offline_goal_newest as newest
from android_world.env.representation_utils import UIElement

MARKOR = celil_fakes.MARKOR
GOAL = "Delete the newest note in Markor."
NOTES = ("fair_lamp.md", "old_fox.txt", "calm_sea.md")


_el = celil_fakes.element_at


def _obs(*elements: UIElement) -> Observation:
    return celil_fakes.screen_of(*elements, activity=MARKOR)


def _listing(*names: str) -> Observation:
    return celil_fakes.markor_listing(
        *names, summary="Oct 15, 2023 22:44, 20 bytes", sort_button=True
    )


def _index(observation: Observation, text: str) -> int:
    return next(i for i, e in enumerate(observation.ui_elements) if e.text == text)


MENU = _obs(_el("Name", 300), _el("Date modified", 400), _el("Size", 500))
DIALOG = _obs(_el("Delete file?", 900), _el("OK", 1100, cls="android.widget.Button"))


def _trail(
    *,
    order: str = "Date modified",
    pick: str = NOTES[0],
    scrolled: bool = False,
    two_picks: bool = False,
) -> list[TrailStep]:
    listed = _listing(*NOTES)
    steps = [
        TrailStep(1, listed, "click", target="Sort by"),
        TrailStep(2, MENU, "click", target=order),
    ]
    if scrolled:
        steps.append(TrailStep(3, listed, "scroll"))
    if two_picks:
        steps.append(TrailStep(4, listed, "long_press", _index(listed, NOTES[1]), NOTES[1]))
    steps += [
        TrailStep(5, listed, "long_press", _index(listed, pick), pick),
        TrailStep(6, listed, "click", target="Delete"),
        TrailStep(7, DIALOG, "click", target="OK"),
    ]
    return steps


def _after(pick: str = NOTES[0]) -> Observation:
    return _listing(*[n for n in NOTES if n != pick])


def test_the_top_row_sorted_newest_first_deleted_and_gone_is_done():
    verdict = offline_goal.check_goal(GOAL, _trail(), _after())
    assert verdict.status == GOAL_DONE, verdict.reason()


def test_a_list_sorted_by_name_proves_nothing_about_the_newest():
    verdict = offline_goal.check_goal(GOAL, _trail(order="Name"), _after())
    assert verdict.status == GOAL_UNKNOWN


def test_a_list_never_sorted_proves_nothing():
    trail = _trail()[2:]  # the same delete, with no sort menu before it
    assert offline_goal.check_goal(GOAL, trail, _after()).status == GOAL_UNKNOWN


def test_a_row_below_the_top_is_not_the_newest():
    verdict = offline_goal.check_goal(GOAL, _trail(pick=NOTES[1]), _after(NOTES[1]))
    assert verdict.status == GOAL_UNKNOWN
    assert "not the top row" in verdict.reason()


def test_a_scrolled_list_may_hide_rows_above_the_top_one():
    verdict = offline_goal.check_goal(GOAL, _trail(scrolled=True), _after())
    assert verdict.status == GOAL_UNKNOWN


def test_two_rows_selected_before_the_delete_is_not_one_newest_deleted():
    verdict = offline_goal.check_goal(GOAL, _trail(two_picks=True), _after())
    assert verdict.status == GOAL_UNKNOWN


def test_a_row_still_listed_after_the_delete_is_not_done():
    verdict = offline_goal.check_goal(GOAL, _trail(), _listing(*NOTES))
    assert verdict.status == GOAL_UNKNOWN


def test_the_dialog_not_yet_answered_is_not_done():
    verdict = offline_goal.check_goal(GOAL, _trail()[:-1], DIALOG)
    assert verdict.status == GOAL_UNKNOWN


def test_a_later_choice_of_another_order_undoes_the_newest_first_order():
    listed = _listing(*NOTES)
    resorted = [
        TrailStep(3, listed, "click", target="Sort by"),
        TrailStep(4, MENU, "click", target="Size"),
    ]
    trail = _trail()
    trail = trail[:2] + resorted + trail[2:]
    assert offline_goal.check_goal(GOAL, trail, _after()).status == GOAL_UNKNOWN


def test_only_delete_goals_about_the_newest_are_read():
    assert newest.parse_newest("Delete the newest note in Markor")
    assert newest.parse_newest("remove my most recent recording")
    assert not newest.parse_newest("Delete the oldest note in Markor")
    assert not newest.parse_newest("Open the newest note in Markor")
