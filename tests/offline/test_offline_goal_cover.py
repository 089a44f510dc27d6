"""A sub-goal that only opens an app is never the whole goal restated, even when the goal's
other words are mostly the app's name ("Delete the following expenses from pro expense:
Environmental"): taken for the goal, "Open Pro Expense" could never be done and the episode
ran out of steps (ExpenseDeleteSingle, task seed 1)."""

from __future__ import annotations

import pytest

from android_world.agents.custom.offline_roles import offline_goal

DELETE = "Delete the following expenses from pro expense: Environmental."


@pytest.mark.parametrize(
    "goal, sub_goal, covers",
    [
        (DELETE, "Open Pro Expense", False),
        (DELETE, "Delete Environmental from Pro Expense", True),
        (DELETE, DELETE, True),
        ("Open the Clock app.", "Open Clock", True),
        ("Open the contacts app.", "Open Contacts", True),
        (DELETE, "Open the Pro Expense app", False),
        # a restated goal that starts by opening an app still says the rest (plan style
        # "restated"): it is the goal
        (
            "Open the contacts app. Clear any pop-ups that may appear by granting all "
            "permissions that are required.",
            "Start the contacts app. Clear any pop-ups that may appear by granting all "
            "permissions that are required.",
            True,
        ),
    ],
)
def test_an_open_step_covers_only_an_open_goal(goal, sub_goal, covers):
    assert offline_goal.covers_goal(goal, sub_goal) is covers
