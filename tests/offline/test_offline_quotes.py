"""Quoted values and slot values in the offline planner's sub-goals, on every sim task's goals.

A sub-goal that carries a goal's value must carry it whole and verbatim: cut at an apostrophe
("...team roles. Let") or with its line breaks turned into spaces, it is not the goal's slot
value, the task types the wrong text and episodic memory refuses to store the plan.
"""

from __future__ import annotations

import random
import re

import pytest

from android_world.agents.custom.memory.celil_episodic import (
    abstract_goal,
    abstract_plan,
    plan_leaks,
)
from android_world.agents.custom.offline_roles import offline, offline_screen, offline_text
from android_world.task_evals.registry import TaskRegistry

SEEDS = range(6)


@pytest.fixture(scope="module")
def goals() -> list[tuple[str, str]]:
    """(task, goal) for every sim task under several seeds, drawn as the suite draws them."""
    state = random.getstate()
    out = []
    try:
        for name, cls in sorted(TaskRegistry().get_registry("sim").items()):
            for seed in SEEDS:
                random.seed(seed)
                out.append((name, cls(cls.generate_random_params()).goal))
    finally:
        random.setstate(state)
    return out


def test_an_apostrophe_inside_a_single_quoted_value_does_not_end_it():
    goal = (
        "create an event with the title 'Team sync' and the description "
        "'We will explore team roles. Let's be punctual.'. The event should last 15 mins."
    )
    assert offline_text.quoted_values(goal) == [
        "Team sync",
        "We will explore team roles. Let's be punctual.",
    ]
    fields = dict(offline_text.parse_fields(goal))
    assert fields["title"] == "Team sync"
    assert fields["description"] == "We will explore team roles. Let's be punctual."


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("Don't forget to water the plants while I'm away.", []),
        ("Parents' evening at school", []),
        ("named 'O'Neil' today", ["O'Neil"]),
        ("rename 'a.txt' to 'b.txt'", ["a.txt", "b.txt"]),
        ('the title "Let\'s go" and "x"', ["Let's go", "x"]),
        ("the title ‘It’s here’ now", ["It’s here"]),
        ("with text 'two\nlines'", ["two\nlines"]),
        ("an ' unmatched quote", []),
    ],
)
def test_quoted_values(text, values):
    assert offline_text.quoted_values(text) == values


def test_a_name_inside_a_message_is_not_a_contact_name():
    goal = "Send a text message to +15550100 with message: Hiking trip to Blue Mountain."
    assert "name" not in dict(offline_text.parse_fields(goal))
    assert offline_text.parse_fields("Add a contact for Jane Roe, number 555-0100")[0] == (
        "name",
        "Jane Roe",
    )


def test_every_value_a_sub_goal_carries_is_the_goals_own_whole_value(goals):
    checked = 0
    for task, goal in goals:
        plan, _ = offline.build_plan(offline_text.parse_goal(goal))
        for step in plan:
            for value in offline_text.quoted_values(step):
                assert value in goal, (task, value, goal)
                for at in [m.end() for m in re.finditer(re.escape(value), goal)]:
                    # Stopped right before "'s" would be a value cut at an apostrophe.
                    assert not re.match(r"['’]\w", goal[at:]), (task, value, goal)
                checked += 1
    assert checked > 200


def test_multi_line_values_keep_their_line_breaks(goals):
    multi = [(t, g) for t, g in goals if "Replace the text with" in g and "\n" in g]
    assert multi, "no multi-line Markor goal drawn"
    for task, goal in multi:
        value = goal.split("Replace the text with ", 1)[1].strip()
        plan, _ = offline.build_plan(offline_text.parse_goal(goal))
        assert any(f"'{value}'" in step for step in plan), (task, plan)


def test_every_plan_the_planner_writes_can_be_stored_in_episodic_memory(goals):
    """Abstracted with the goal's slots, the plan names none of this goal's values."""
    for task, goal in goals:
        plan, _ = offline.build_plan(offline_text.parse_goal(goal))
        template = abstract_goal(goal)
        assert plan_leaks(template, abstract_plan(plan, template.slots)) == [], (task, goal, plan)


def test_history_steps_whose_sub_goal_spans_lines_are_still_read():
    summary = (
        "Task goal: Edit a.md in Markor. Replace the text with one\ntwo\n"
        "Plan:\n  1. [done] Open Markor\n"
        "Recent steps:\n"
        "step 1: [Open Markor] open_app Markor -> ok (verifier 9.0)\n"
        "step 2: [Enter 'one\ntwo' as the text] input_text 'one\ntwo' -> ok - typed\n"
        "step 3: [Tap Save] click #4 -> no change\n"
        "Facts: none"
    )
    steps = offline_screen.parse_history(summary)
    assert [s.step for s in steps] == [1, 2, 3]
    assert steps[1].sub_goal == "Enter 'one\ntwo' as the text" and steps[1].ok
    assert steps[2].outcome == "no change"
    assert offline_screen.goal_from_context(summary).endswith("one\ntwo")
