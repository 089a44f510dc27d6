"""Issue 26, false completions of the offline roles on goals worded by people outside the
project (benchmarks/paraphrase.py, dev split): answers of another form than the question asks
were claimed (a list of a row's figures for "which activity types", titles for "the number of
tasks", a screen line for "(True) or (False)", the first figure on screen for "how many
minutes"); "separated by commas" read as "due by"; a value read past its clause; "has no X" as
"add X". Each is now either the right reading or no answer at all."""

from __future__ import annotations

import pytest

from android_world.agents.custom.offline_roles import offline_questions as questions
from android_world.agents.custom.offline_roles import offline_restate, offline_text
from android_world.agents.custom.offline_roles.handlers import questions as question_handler

ROW_FIGURES = "2.17 mi · 2:15:00, 1.86 mi · 0:20:00"


@pytest.mark.parametrize(
    ("goal", "answer"),
    [
        ("Which activity types did I record on October 11 2023? List the types.", ROW_FIGURES),
        ("What was my farthest ride this week, in meters? Reply with a number.", ROW_FIGURES),
        ("What is the number of hiking activities this week? Just the number.", "Hike, Walk"),
        ("What number of participants does the note record? A single number, please.", "Bob"),
        ("Tell me whether the note 'X' is a to-do (True) or a plain note (False).", "note list"),
        ("What is the longest distance this week? Answer in meters, rounded.", "Slow day"),
    ],
)
def test_an_answer_of_another_form_than_asked_does_not_fit(goal, answer):
    assert not questions.answer_fits(goal, answer)


@pytest.mark.parametrize(
    ("goal", "answer"),
    [
        ("What is the number of hiking activities this week? Just the number.", "3"),
        ("Tell me whether the note 'X' is a to-do (True) or a plain note (False).", "True"),
        ("Which tasks are due October 22 2023? Give only their titles.", "Water Plants, Call Mom"),
        ("What time does my meeting start?", "13:30"),
        ("What is the phone number of Ann?", "+1 555-123-4567"),
        ("What is the total of my food expenses? Answer in dollars.", "1,204.50"),
    ],
)
def test_an_answer_of_the_asked_form_fits(goal, answer):
    assert questions.answer_fits(goal, answer)


def test_counts_and_measures_are_told_apart():
    assert questions.asks_for_count("Tell me the number of tasks due next week in Tasks.")
    assert questions.asks_for_count("How many tasks are due next week?")
    assert not questions.asks_for_count("How many minutes did my sailing activity last?")
    assert questions.asks_for_number("How many minutes did my sailing activity last?")
    assert questions.count_qualifier("What is the number of hiking activities in OpenTracks?")
    assert questions.count_qualifier("Tell me the number of tasks due next week.") == ""


def test_types_are_not_titles():
    assert not questions.asks_for_titles("Which activity types did I record? List the types.")
    assert questions.asks_for_titles("Which tasks are due today? Give only their titles.")


def test_a_question_wanting_a_number_gets_no_guessed_figure_from_the_screen():
    goal = "In OpenTracks, how many minutes did my sailing activity last? Answer with one integer."
    observation = _screen("1", "Slow day", "2.17 mi · 2:15:00")
    assert question_handler.question_answer(goal, observation, "") == ""


def test_due_by_is_read_before_the_day_not_anywhere():
    day = "October 22 2023"
    commas = f"Which tasks are due {day} in the Tasks app? Give their titles, separated by commas."
    assert not question_handler._due_by(commas, day)
    assert question_handler._due_by(f"Which tasks are due by {day}?", day)


def test_a_replacement_text_ends_where_the_next_order_starts():
    goal = "Could you replace the content of note a.md with bbc02QZ, then rename it to b.txt?"
    assert ("text", "bbc02QZ") in offline_text.parse_goal(goal).fields


def test_describing_it_as_reads_the_quoted_description():
    goal = (
        "Establish a calendar event for this Friday at 17 o'clock, naming it 'Review' and "
        "describing it as 'We will plan.'. Make sure the event lasts for 60 minutes."
    )
    assert ("description", "We will plan.") in offline_text.parse_goal(goal).fields


def test_a_duration_listed_among_an_events_facts_is_its_duration():
    goal = "Please add 'Catch up' to Simple Calendar Pro for this Friday at 14:00, 30 minutes."
    when = offline_text.parse_goal(goal).when
    assert when is not None and when.duration == "30 minutes"


def test_has_no_is_reached_by_deleting_and_forbids_no_tap():
    goal = "Make sure pro expense has no exact duplicate expenses (keep one of each)."
    assert offline_restate.negated_verbs(goal) == []
    assert offline_restate.negated_verbs("Create the timer, no starting it.") == ["start"]
    clauses = offline_text.parse_goal(goal).clauses
    assert clauses[0].startswith("Delete the exact duplicate expenses")


def test_and_guide_starts_a_new_clause():
    goal = "Open task.html in Chrome and guide the X to the bottom-right square."
    assert len(offline_text.parse_goal(goal).clauses) == 2


def _screen(*texts: str):
    import numpy as np

    from android_world.agents.custom.celil_protocols import Observation
    from android_world.env import representation_utils

    elements = [
        representation_utils.UIElement(
            text=t,
            bbox_pixels=representation_utils.BoundingBox(0, 100, 200 + 100 * i, 280 + 100 * i),
        )
        for i, t in enumerate(texts)
    ]
    return Observation(
        screenshot=np.zeros((4, 4, 3), dtype=np.uint8),
        ui_elements=elements,
        foreground_activity="de.dennisguse.opentracks/.TrackListActivity",
        ocr_lines=[],
        ocr_summary="",
        ui_tree_summary="",
        screen_size=(1080, 2400),
        frame_hash="x",
    )
