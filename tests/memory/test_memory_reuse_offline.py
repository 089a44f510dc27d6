"""Episodic memory reuse on the sim (issue 7's last criterion), with the offline roles.

Pass 1 stores verified plans; pass 2 runs the same tasks with new seeds, so new goal values,
and must hit the memory and use the stored plans filled with the NEW goal's values.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytest.importorskip("android_world.env.sim.sim_env")

import memory_reuse  # noqa: E402

from android_world.agents.custom.offline_roles import offline, offline_text  # noqa: E402

TASKS = ("ClockTimerEntry", "ContactsAddContact", "MarkorCreateNote")


@pytest.fixture(scope="module")
def passes(tmp_path_factory):
    memory = tmp_path_factory.mktemp("memory") / "memory.json"
    first = memory_reuse.run_pass(TASKS, [0], memory)
    second = memory_reuse.run_pass(TASKS, [1], memory)
    return first, second


def test_pass_one_stores_verified_plans_with_an_empty_memory(passes):
    first, _ = passes
    for result in first:
        assert result.error is None, result
        assert result.score == 1.0 and result.stored, result.task
        assert not result.memory_hit
        assert not any(e["type"] == "memory_hit" for e in result.events)


def test_pass_two_hits_memory_and_instantiates_plans_with_the_new_values(passes):
    first, second = passes
    for old, new in zip(first, second, strict=True):
        assert old.task == new.task and old.goal != new.goal
        hits = [e for e in new.events if e["type"] == "memory_hit"]
        assert hits and new.memory_hit, new.task
        created = next(e for e in new.events if e["type"] == "plan_created")
        # Same template, one verified success: the plan is reused without asking the planner.
        assert created["source"] == "memory", created
        assert created["sub_goals"] == hits[0]["plan"]
        new_values = offline_text.parse_goal(new.goal).slot_values()
        old_values = offline_text.parse_goal(old.goal).slot_values()
        plan_text = " | ".join(new.plan)
        for value in new_values:
            if value not in old_values:
                assert value in plan_text, (new.task, value, new.plan)
        for value in old_values:
            if value not in new_values and len(value) > 2:
                assert value not in plan_text, (new.task, value, new.plan)
        assert new.score == 1.0, new.task
        assert new.model_calls == 0 and new.plans_written < old.plans_written


def test_the_table_reports_hits_steps_and_planner_calls(passes):
    rows = memory_reuse.compare(*passes)
    assert [r.hits for r in rows] == [1, 1, 1]
    table = memory_reuse.format_table(rows)
    assert "ContactsAddContact" in table and "hits" in table and "0 model calls" in table
    # Every retrieval is counted, and none carried a value of the goal it was stored for.
    assert [(r.retrieved, r.foreign) for r in rows] == [(1, 0), (1, 0), (1, 0)]
    assert "foreign" in table and "0/3" in table.splitlines()[-2]
    assert memory_reuse.format_refusals([*passes[0], *passes[1]]) == "plans refused at storage: 0"


def test_a_retrieved_plan_carrying_the_stored_goals_values_is_counted_as_foreign():
    stored = "Add a contact named Jane Roe with number 555-0100"
    new = "Add a contact named John Doe with number 555-0199"
    clean = ["Open Contacts", "Enter 'John Doe' as the name", "Enter '555-0199' as the phone"]
    assert memory_reuse.foreign_values(stored, new, clean) == []
    leaky = ["Open Contacts", "Enter 'Jane Roe' as the name", "Enter '555-0199' as the phone"]
    assert memory_reuse.foreign_values(stored, new, leaky) == ["Jane Roe"]
    # A value both goals share is not foreign.
    same = "Add a contact named Jane Roe with number 555-0199"
    assert memory_reuse.foreign_values(stored, same, leaky) == []


def test_refused_plans_are_counted_from_the_memorys_warnings():
    refused = "plan not stored: after abstraction it still spells out the goal's 'Buy' (template x)"
    results = [
        memory_reuse.EpisodeResult(
            "A", 0, "g", 1.0, 3, False, None, False, [], 1, 1, 0, [], memory_warnings=[refused]
        ),
        memory_reuse.EpisodeResult(
            "B", 0, "g", 1.0, 3, False, None, True, [], 1, 1, 0, [], memory_warnings=["other"]
        ),
    ]
    assert memory_reuse.format_refusals(results) == "plans refused at storage: 1 (A 1)"


def test_a_remembered_plan_that_does_not_fit_this_goal_is_not_reused():
    goal = "Add a contact named Jane Roe with number 555-0100"
    info = offline_text.parse_goal(goal)
    own = offline.build_plan(info)[0]
    assert offline.plan_misfit(own, info, own) is None
    misfit = offline.plan_misfit
    assert "John Doe" in misfit(["Open Contacts", "Enter 'John Doe' as the name"], info, own)
    assert "number 7" in misfit(["Set the duration to 0 hours 7 minutes 0 seconds"], info, own)
    assert "unfilled" in misfit(["Enter '{name_1}' as the name"], info, own)
    # A plan that covers only part of the goal (one of three items to delete) is not enough.
    many = offline_text.parse_goal("Delete the following expenses from pro expense: A1, B2, C3.")
    partial = ["Open Pro Expense", "Delete 'A1'"]
    assert "leaves out" in misfit(partial, many, offline.build_plan(many)[0])
    # The same values with their roles swapped (a source folder memory did not slot).
    move = offline_text.parse_goal("Move the file a.jpg from Music to the DCIM folder.")
    swapped = ["Open Files", "Tap 'DCIM'", "Select 'a.jpg'", "Tap 'Music'"]
    assert "order" in misfit(swapped, move, offline.build_plan(move)[0])
    # Opening another app than the goal needs (an app name memory did not turn into a slot).
    opening = offline_text.parse_goal("Open the settings app.")
    other = ["Open Contacts"]
    assert "opens Contacts" in misfit(other, opening, offline.build_plan(opening)[0])
    # Leaving out an app this goal needs ("Wednesday" needs the clock's date first).
    relative = offline_text.parse_goal("What events do I have Wednesday in Simple Calendar Pro?")
    dated = ["Open Simple Calendar Pro", offline.FIND_SUB_GOAL]
    assert "never opens Clock" in misfit(dated, relative, offline.build_plan(relative)[0])


def test_the_planner_falls_back_to_its_own_plan_with_a_warning():
    planner = offline.OfflinePlanner()
    observation = _blank_observation()
    goal = "Open the settings app."
    plan = planner.generate_initial_plan(goal, observation, ["Open Contacts"])
    assert plan.sub_goals == ["Open Settings"] and "not reused" in plan.warnings[0]
    reused = planner.generate_initial_plan(goal, observation, ["Open Settings"])
    assert reused.sub_goals == ["Open Settings"] and "reusing" in reused.rationale


def _blank_observation():
    import numpy as np

    from android_world.agents.custom.celil_protocols import Observation

    return Observation(np.zeros((1, 1, 3), np.uint8), [], [], "", "", (1080, 2400), "x")


def test_bad_input_is_one_line_and_exit_2(capsys):
    assert memory_reuse.main(["--tasks", "NoSuchTask"]) == 2
    assert (
        memory_reuse.main(["--tasks", "ClockTimerEntry", "--seeds-a", "1", "--seeds-b", "1"]) == 2
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("error:") for line in err)
