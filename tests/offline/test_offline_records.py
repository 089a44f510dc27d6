"""Goals that list several records to create (csv rows or "<Object>: name" blocks): one round
of sub-goals per record, each value whole, and memory keeps shared values apart."""

from __future__ import annotations

from android_world.agents.custom.memory.celil_episodic import abstract_goal, abstract_plan
from android_world.agents.custom.offline_roles import offline, offline_text

BLOCKS = """Add the following recipes into the Broccoli app:
Recipe: Lentil Soup
 description: A quick meal.
 servings: 2 servings
 directions: Cook onions. Add lentils.

Recipe: Kale and Quinoa Salad
 description: A quick meal.
 servings: 4 servings
 directions: Toss kale. Serve cold.
"""
CSV = """Add the following recipes into the Broccoli app:
title|description|servings
Lentil Soup|A quick meal.|2 servings
Kale Salad|Fresh.|4 servings
"""


def test_each_record_gets_its_own_round_of_sub_goals():
    plan, _ = offline.build_plan(offline_text.parse_goal(BLOCKS))
    assert plan[0] == "Open Broccoli"
    assert plan.count("Start a new recipe (first)") == 1
    assert "Start a new recipe (second)" in plan and "Tap Save (second)" in plan
    assert "Enter 'Cook onions. Add lentils' as the directions (first)" in plan
    assert "Enter 'Toss kale. Serve cold' as the directions (second)" in plan
    assert "Enter '4 servings' as the servings (second)" in plan


def test_csv_rows_are_records_too_and_the_ordinal_does_not_reach_the_intent():
    info = offline_text.parse_goal(CSV)
    assert [dict(r)["title"] for r in info.records] == ["Lentil Soup", "Kale Salad"]
    intent = offline.parse_sub_goal("Enter 'Kale Salad' as the title (second)", info)
    assert (intent.kind, intent.field, intent.value) == ("fill", "title", "Kale Salad")
    assert offline.parse_sub_goal("Tap Save (second)", info).subject == "Save"


def test_one_record_plans_as_before():
    one = "Add the following recipes into the Broccoli app:\nRecipe: Lentil Soup\n servings: 2"
    plan, _ = offline.build_plan(offline_text.parse_goal(one))
    assert "Start a new recipe" in plan and not any("(first)" in s for s in plan)


def test_a_value_two_records_share_maps_to_each_records_slot_in_turn():
    plan, _ = offline.build_plan(offline_text.parse_goal(BLOCKS))
    template = abstract_goal(BLOCKS)
    abstracted = abstract_plan(plan, template.slots)
    descriptions = [s for s in abstracted if "as the description" in s]
    assert len(descriptions) == 2 and descriptions[0] != descriptions[1]
