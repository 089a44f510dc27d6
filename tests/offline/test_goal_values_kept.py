"""The goal's values kept per parsed goal (issue 30): the same values as reading them afresh,
read again for a goal changed anywhere, and each caller's list its own."""

from __future__ import annotations

import pytest

from android_world.agents.custom.offline_roles import offline_goal_values as values
from android_world.agents.custom.offline_roles import offline_text as text_lib

GOALS = [
    "Create a new contact for Ann Lee. Their number is +15551234567.",
    "Add the following recipes into the Broccoli app:\nRecipe: Pasta\nServings: 2",
    "Create a note in Markor named groceries.md with the text 'milk, eggs'.",
    "Add the recipes from recipes.txt into Broccoli.",
]


@pytest.fixture(autouse=True)
def _forget():
    values.goal_values.cache_clear()
    yield
    values.goal_values.cache_clear()


def test_kept_values_are_the_values_read_afresh():
    for goal in GOALS:
        info = text_lib.parse_goal(goal)
        fresh = values.goal_values.__wrapped__(info)
        assert values.goal_values(info) == fresh
        assert values.goal_values(text_lib.parse_goal(goal)) == fresh  # kept: the same


def test_a_goal_changed_anywhere_is_read_again():
    info = text_lib.parse_goal(GOALS[2])
    before = values.goal_values(info)
    info.quoted.append("bread")
    after = values.goal_values(info)
    assert after == values.goal_values.__wrapped__(info) and "bread" in after
    assert "bread" not in before


def test_each_caller_gets_its_own_list():
    info = text_lib.parse_goal(GOALS[0])
    first = values.goal_values(info)
    first.append("mine")
    assert "mine" not in values.goal_values(info)
