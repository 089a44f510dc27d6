"""The goal check of "delete all but one of the duplicates" (offline_goal_duplicates): done only
when whole-list views prove one copy of a lone look-alike pair left and every other row kept;
unknown wherever the list cannot tell, look-alikes left after the deletes among them."""

from __future__ import annotations

import celil_fakes
import pytest

from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNKNOWN,
    Observation,
    TrailStep,
)
from android_world.agents.custom.offline_roles import offline_goal
from android_world.agents.custom.offline_roles import offline_goal_duplicates as dups
from android_world.env.representation_utils import BoundingBox, UIElement

RECIPES = "com.flauschcode.broccoli/.MainActivity"
GOAL = (
    "Delete all but one of any recipes in the Broccoli app that are exact duplicates, ensuring "
    "at least one instance of each unique recipe remains"
)
QUICK = "A quick and easy meal, perfect for busy weekdays."
TASTY = "A delicious and healthy choice for any time of the day."


def _el(text, y0, y1, x0=60, x1=1020, **kw) -> UIElement:
    return UIElement(
        text=text,
        class_name="android.widget.TextView",
        bbox_pixels=BoundingBox(x0, x1, y0, y1),
        **kw,
    )


def _list(*rows: tuple[str, str], toast: str = "", top: int = 314) -> Observation:
    """The recipe list as the sim lays it out: title line, description line, rows 208 px apart."""
    elements = [_el("Recipes", 159, 240, 60, 924)]
    box = UIElement(class_name="androidx.recyclerview.widget.RecyclerView")
    box.bbox_pixels = BoundingBox(0, 1080, 290, 2268)
    box.is_scrollable = True
    elements.append(box)
    for i, (title, description) in enumerate(rows):
        y = top + 208 * i
        elements += [_el(title, y, y + 66), _el(description, y + 72, y + 176)]
    elements.append(_el("New recipe", 2020, 2220, 832, 1032, is_clickable=True))
    if toast:
        elements.append(_el(toast, 2008, 2118, 202, 878))
    return celil_fakes.screen_of(*elements, activity=RECIPES)


def _detail(title: str) -> Observation:
    return celil_fakes.screen_of(
        _el(title, 159, 240, 156, 780),
        _el("More options", 128, 272, 924, 1068, is_clickable=True),
        _el("Servings", 314, 366),
        activity=RECIPES,
    )


def _dialog() -> Observation:
    return celil_fakes.screen_of(
        _el("Delete this recipe?", 1078, 1153, 134, 962),
        _el("Delete", 1192, 1312, 662, 962, is_clickable=True),
        activity=RECIPES,
    )


def _deleting(before: Observation, start: int = 1) -> list[TrailStep]:
    """Open a row, More options, Delete, confirm: one delete flow from the list `before`."""
    return [
        TrailStep(start, before, "click", index=None, target="Sausage Skillet"),
        TrailStep(start + 1, _detail("Sausage Skillet"), "click", target="More options"),
        TrailStep(start + 2, _detail("Sausage Skillet"), "click", target="Delete"),
        TrailStep(start + 3, _dialog(), "click", target="Delete"),
    ]


BEFORE = _list(("Baked Cod", TASTY), ("Sausage Skillet", TASTY), ("Sausage Skillet", QUICK),
               ("Sausage Skillet", QUICK), ("Stuffed Peppers", QUICK))  # fmt: skip


def test_one_copy_of_the_pair_left_and_every_other_row_kept_is_done():
    after = _list(("Baked Cod", TASTY), ("Sausage Skillet", TASTY), ("Sausage Skillet", QUICK),
                  ("Stuffed Peppers", QUICK), toast="The recipe has been deleted.")  # fmt: skip
    verdict = offline_goal.check_goal(GOAL, _deleting(BEFORE), after)
    assert verdict.status == GOAL_DONE, verdict.checks


def test_look_alikes_left_after_the_deletes_are_not_done_and_not_unmet():
    """Before: unmet. With every answer right, RecipeDeleteDuplicateRecipes2 deleted its exact
    copies and kept near-copies that the list shows alike (same title and description, other
    details); unmet then blocked the claim until the budget ran out (83/85 every style)."""
    before = _list(("Baked Cod", TASTY), ("Sausage Skillet", QUICK), ("Sausage Skillet", QUICK),
                   ("Sausage Skillet", QUICK))  # fmt: skip
    after = _list(("Baked Cod", TASTY), ("Sausage Skillet", QUICK), ("Sausage Skillet", QUICK))
    verdict = offline_goal.check_goal(GOAL, _deleting(before), after)
    assert verdict.status == GOAL_UNKNOWN, verdict.checks


def test_three_look_alikes_cut_to_one_stays_unknown():
    """Three rows alike may hide a near-duplicate (same title and description, other details):
    the list cannot prove the two deleted were copies."""
    before = _list(("Baked Cod", TASTY), ("Sausage Skillet", QUICK), ("Sausage Skillet", QUICK),
                   ("Sausage Skillet", QUICK))  # fmt: skip
    after = _list(("Baked Cod", TASTY), ("Sausage Skillet", QUICK))
    trail = _deleting(before) + _deleting(before, start=5)
    assert offline_goal.check_goal(GOAL, trail, after).status == GOAL_UNKNOWN


def test_two_look_alike_groups_stay_unknown():
    before = _list(("Baked Cod", TASTY), ("Baked Cod", TASTY), ("Sausage Skillet", QUICK),
                   ("Sausage Skillet", QUICK))  # fmt: skip
    after = _list(("Baked Cod", TASTY), ("Sausage Skillet", QUICK))
    trail = _deleting(before) + _deleting(before, start=5)
    assert offline_goal.check_goal(GOAL, trail, after).status == GOAL_UNKNOWN


def test_a_unique_row_deleted_as_well_is_not_done():
    after = _list(("Baked Cod", TASTY), ("Sausage Skillet", QUICK), ("Stuffed Peppers", QUICK))
    trail = _deleting(BEFORE) + _deleting(BEFORE, start=5)
    assert offline_goal.check_goal(GOAL, trail, after).status != GOAL_DONE


def test_a_list_longer_than_the_screen_stays_unknown():
    """Rows below the screen may hold more copies: neither view is a whole list."""
    many = [(f"Recipe {i}", QUICK) for i in range(10)]
    before = _list(*many, ("Sausage Skillet", QUICK), ("Sausage Skillet", QUICK))
    after = _list(*many, ("Sausage Skillet", QUICK))
    assert offline_goal.check_goal(GOAL, _deleting(before), after).status == GOAL_UNKNOWN
    assert dups.whole_list(before) is None


def test_a_scrolled_list_is_no_whole_list():
    assert dups.whole_list(_list(("A", QUICK), ("B", QUICK), top=700)) is None
    assert dups.whole_list(_list(("A", QUICK), ("B", QUICK))) is not None


def test_nothing_deleted_yet_is_unknown():
    trail = [TrailStep(1, BEFORE, "open_app", target="")]
    assert offline_goal.check_goal(GOAL, trail, BEFORE).status == GOAL_UNKNOWN


def test_rows_are_title_and_description_single_lines_are_rows_of_their_own():
    view = dups.whole_list(BEFORE)
    assert view is not None and len(view.rows) == 5 and len(view.rows[0]) == 2
    singles = celil_fakes.screen_of(
        _el("Notes", 159, 240, 60, 924),
        UIElement(
            class_name="ListView", bbox_pixels=BoundingBox(0, 1080, 290, 2268), is_scrollable=True
        ),
        *[_el(f"note{i}.md", 314 + 120 * i, 394 + 120 * i) for i in range(4)],
    )
    view = dups.whole_list(singles)
    assert view is not None and [len(r) for r in view.rows] == [1, 1, 1, 1]


@pytest.mark.parametrize(
    ("clause", "wanted"),
    [
        (GOAL, True),
        ("Remove the duplicate notes, keeping only one of each", True),
        ("Delete all recipes in the Broccoli app", False),
        ("Delete the recipe named Duplicate Soup", False),
        ("Duplicate the note a.md", False),
    ],
)
def test_parse_keep_one_duplicates(clause, wanted):
    assert dups.parse_keep_one_duplicates(clause) is wanted
