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


SEND = "Send a text message using Simple SMS Messenger to +17622214033 with message: It's a bird."


@pytest.mark.parametrize(
    "goal, sub_goal, covers",
    [
        # Most of the goal's words, "message" counting as its verb "send": a step that only
        # types is one part of a goal that sends what is typed. Taken for the goal, it could
        # never be done before the next step (Tap Send) once a message left in its field reads
        # as not sent (offline_goal_unsaved), and the episode ran out of steps.
        (SEND, "Enter 'It's a bird.' as the message", False),
        (
            "Reply to the most recent text message with message: On my way.",
            "Type 'On my way.' as the message",
            False,
        ),
        # Typing and committing, or the goal itself typing: still the goal in other words.
        (SEND, "Type the message 'It's a bird.' to +17622214033 and send it", True),
        (SEND, "Send a text message to +17622214033 saying: It's a bird.", True),
        (SEND, SEND, True),
        ("Type 'hello' in the search box.", "Enter 'hello' in the search box", True),
    ],
)
def test_a_step_that_only_types_does_not_cover_a_goal_that_sends(goal, sub_goal, covers):
    assert offline_goal.covers_goal(goal, sub_goal) is covers
