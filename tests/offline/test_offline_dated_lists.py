"""The offline executor reads a list whose rows carry dates (a to-do list) row by row: titles
dated the question's day, or by it, kept to the rows its qualifiers fit."""

from __future__ import annotations

import datetime

import pytest

from android_world.agents.custom.offline_roles import offline
from android_world.agents.custom.roles.celil_perception import PerceptionModule
from android_world.env.json_action import JSONAction
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals.single import tasks_app as tq

FIND = "Find the information the question asks for"


def row(title: str, day: int, **kw) -> dict:
    return tq.make_row(title, due=tq.ms_at(datetime.date(2023, 10, day), "9:00am"), **kw)


@pytest.fixture(scope="module")
def env():
    sim = SimEnv(render=False)
    tq.clear(sim)
    tq.add_rows(
        sim,
        [
            row("Pay rent", 16, importance=0),
            row("Water plants", 17, importance=2),
            row("Call the bank", 17, importance=0),
            row("Book flights", 18, importance=0),
            row("Old chore", 14, importance=3),
        ],
    )
    sim.execute_action(JSONAction(action_type="open_app", app_name="Tasks"))
    yield sim
    sim.close()


def answer(env, goal: str) -> str | None:
    roles = offline.build_offline_roles()
    executor = roles.action_generator
    executor.set_goal(goal)
    obs = PerceptionModule(ocr="off").process_observation(env.get_state())
    proposed = executor.generate_action(FIND, obs, f"Task goal: {goal}\n")
    return proposed.finished_content if proposed.sub_goal_finished else None


def titles(text: str | None) -> set[str]:
    return {t.strip() for t in (text or "").split(",") if t.strip()}


def test_rows_due_on_the_day(env):
    got = answer(env, "What tasks do I have due October 17 2023 in Tasks app? Titles only.")
    assert titles(got) == {"Water plants", "Call the bank"}


def test_a_priority_label_narrows_the_rows(env):
    got = answer(env, "Which tasks with high priority are due October 17 2023 in the Tasks app?")
    assert titles(got) == {"Call the bank"}


def test_by_a_day_means_on_or_before_it_and_open_rows_only(env):
    got = answer(
        env, "What incomplete tasks do I still have to do by October 16 2023 in Tasks app?"
    )
    assert titles(got) == {"Pay rent", "Old chore"}


def test_a_weekday_pins_the_year_of_a_shown_date():
    assert offline._weekday_year("Sun, Oct 15") == 2023
    assert offline._weekday_year("Oct 15") is None


def test_a_label_alone_lists_every_row_carrying_it(env):
    got = answer(env, "What are my high priority tasks in Tasks app? Titles only.")
    assert titles(got) == {"Pay rent", "Call the bank", "Book flights"}


def test_how_many_counts_the_rows_of_next_week_from_the_shown_today(env):
    roles = offline.build_offline_roles()
    executor = roles.action_generator
    goal = "How many tasks do I have due next week in Tasks app? Weeks start on Monday."
    executor.set_goal(goal)
    executor._today = "Sun, Oct 15"  # what reading the clock leaves behind
    obs = PerceptionModule(ocr="off").process_observation(env.get_state())
    proposed = executor.generate_action(FIND, obs, f"Task goal: {goal}\n")
    assert proposed.sub_goal_finished and proposed.finished_content == "4"


def test_a_one_digit_count_is_an_answer_not_a_placeholder():
    from android_world.agents.custom.loop import celil_evidence

    assert not celil_evidence.is_placeholder("6")
    assert celil_evidence.is_placeholder("x") and celil_evidence.is_placeholder("")


def test_done_rows_hidden_by_the_list_are_looked_for_in_its_menu():
    sim = SimEnv(render=False)
    try:
        tq.clear(sim)
        done = tq.ms_at(datetime.date(2023, 10, 12), "9:00am")
        tq.add_rows(sim, [row("Pay rent", 16), row("Filed taxes", 13, completed=done)])
        sim.execute_action(JSONAction(action_type="open_app", app_name="Tasks"))
        goal = "Which tasks have I completed for October 13 2023 in Tasks app?"
        executor = offline.build_offline_roles().action_generator
        executor.set_goal(goal)
        perception = PerceptionModule(ocr="off")
        steps = []
        for _ in range(4):
            obs = perception.process_observation(sim.get_state(), sim.foreground_activity_name)
            proposed = executor.generate_action(FIND, obs, f"Task goal: {goal}\n")
            if proposed.action is None:
                break
            steps.append(proposed.thought)
            sim.execute_action(proposed.action)
        assert "menu" in steps[0] and "show the done items" in steps[1]
        assert proposed.sub_goal_finished and titles(proposed.finished_content) == {"Filed taxes"}
    finally:
        sim.close()
