"""Day questions narrowed by time: "at" an instant, "after" a time, "between" two times."""

from __future__ import annotations

import datetime

import pytest

from android_world.agents.custom.offline_roles import offline_text


@pytest.mark.parametrize(
    ("goal", "when", "times"),
    [
        ("What is on my schedule for October 28 2023 at 7:45am in the app?", "at", ((7, 45),)),
        ("What is on my schedule for today at 12am?", "at", ((0, 0),)),
        ("What is my first event after 16:15 this Tuesday?", "after", ((16, 15),)),
        ("Do I have any events between 4:15pm and 8pm October 20?", "between", ((16, 15), (20, 0))),
        ("What events do I have tomorrow in the app?", "", ()),
    ],
)
def test_parse(goal, when, times):
    question = offline_text.parse_question(goal)
    assert question.kind == "day" and question.when == when and question.times == times


def test_keeps():
    at = offline_text.parse_question("What is on for October 20 at 11:00am?")
    assert at.keeps((10, 30), (11, 0)) and not at.keeps((11, 5), (12, 0))
    assert at.keeps((23, 0), (0, 30)) is False  # past midnight counts as 24:00, not before 11
    after = offline_text.parse_question("My first event after 4pm October 20?")
    assert after.keeps((16, 0), (16, 30)) and not after.keeps((15, 0), (17, 0))
    window = offline_text.parse_question("Any events between 9:45am and 8pm October 20?")
    assert window.keeps((20, 0), (21, 0)) and not window.keeps((9, 30), (10, 30))


def test_relative_days_in_creation_goals():
    goal = (
        "In Simple Calendar Pro, create a calendar event in two weeks from today at 2h with the"
        " title 'Review for next Monday' and the description 'x'. The event should last for 45 mins."
    )
    when = offline_text.parse_goal(goal).when
    assert when.date == "in two weeks from today"  # the quoted title's "Monday" is not the date
    assert offline_text.is_relative_day(when.date)
    today = datetime.date(2023, 10, 15)
    assert offline_text.parse_date(when.date, today) == datetime.date(2023, 10, 29)
    assert offline_text.parse_date("in 3 days", today) == datetime.date(2023, 10, 18)
    assert not offline_text.is_relative_day("2023-10-19")
    tomorrow = offline_text.parse_goal("Create an event for tomorrow at 13h titled 'x'").when
    assert tomorrow.date == "tomorrow"


def test_reading_steps_are_recognised():
    from android_world.agents.custom.loop.celil_progress import is_reading_step

    assert is_reading_step("Read today's date on the Clock")
    assert is_reading_step("Note down the total")
    assert not is_reading_step("Tap Save") and not is_reading_step("Open the reader app")


def test_repetition_and_should_be_values():
    goal = (
        "In Simple Calendar Pro, create a recurring calendar event titled 'Daily standup' starting"
        " on 2023-10-15 at 14h. The event recurs weekly, forever, and lasts for 60 minutes each"
        " occurrence. The event description should be 'We will plan. Snacks will be provided.'."
    )
    assert offline_text.repetition(goal) == "Weekly"  # not the quoted title's "Daily"
    assert offline_text.repetition("a task that repeats every month") == "Monthly"
    assert offline_text.repetition("Create a note 'recurs daily'") is None
    fields = dict(offline_text.parse_goal(goal).fields)
    assert fields["description"] == "We will plan. Snacks will be provided."


def test_delete_everything_on_a_day_plans_one_emptying_step():
    from android_world.agents.custom.offline_roles import offline

    goal = "In Simple Calendar Pro, delete all events scheduled for this Monday."
    assert offline_text.delete_all_day(goal) == "this Monday"
    plan, _ = offline.build_plan(offline_text.parse_goal(goal))
    assert plan[-1] == "Delete every event on this Monday" and plan[0] == "Open Clock"
    absolute = "In Simple Calendar Pro, delete all the calendar events on 2023-10-27"
    assert offline.build_plan(offline_text.parse_goal(absolute))[0][-1].endswith("on 2023-10-27")
    assert offline_text.delete_all_day("Delete all notes for the project") is None
    assert offline_text.delete_all_day("Delete all my expenses") is None


def test_questions_about_one_item_search_for_it():
    from android_world.agents.custom.offline_roles import offline

    location = "What is the location of my Team lunch event in Simple Calendar Pro? Answer with the location only."
    assert offline_text.attribute_question(location) == ("location", "Team lunch")
    plan, _ = offline.build_plan(offline_text.parse_goal(location))
    assert plan[1:] == ["Search for 'Team lunch'", "Open 'Team lunch'", offline.FIND_SUB_GOAL]
    meeting = "When is my next meeting with Mia in Simple Calendar Pro? Express your answer ..."
    assert offline_text.when_with_question(meeting) == "Mia"
    assert offline_text.parse_question(meeting).kind == "other"  # not "the next event"
    plan, _ = offline.build_plan(offline_text.parse_goal(meeting))
    assert plan == ["Open Simple Calendar Pro", "Search for 'Mia'", offline.FIND_SUB_GOAL]
    assert offline_text.when_with_question("What is my next upcoming event?") is None


def test_a_date_and_time_put_together_is_grounded_in_header_and_row():
    from android_world.agents.custom.loop import celil_evidence

    texts = ["friday, october 27, 2023", "drinks with mia", "15:15 - 15:45"]
    assert celil_evidence._date_time_seen("october 27 2023 15:15", texts)
    assert not celil_evidence._date_time_seen("october 27 2023 16:15", texts)
    assert not celil_evidence._date_time_seen("october 28 2023 15:15", texts)


def test_a_total_is_not_a_field_of_one_item():
    from android_world.agents.custom.offline_roles import offline

    goal = "What is the total amount of my Health Care expenses in pro expense? Answer with the number only."
    plan, _ = offline.build_plan(offline_text.parse_goal(goal))
    assert not any(step.startswith(("Search for", "Open '")) for step in plan)


def test_other_wordings_of_the_same_questions():
    assert offline_text.when_with_question("When's the next event with David?") == "David"
    assert offline_text.when_with_question("Tell me when my next appointment with David is") == (
        "David"
    )
    assert offline_text.attribute_question("Where is my Team Offsite event?") == (
        "location",
        "Team Offsite",
    )
    assert offline_text.delete_all_day("Could you clear all of my calendar events on 2023-10-21?")


def test_week_questions():
    goal = (
        "What events do I have in the next week in Simple Calendar Pro? Assume the week starts"
        " from Monday. Answer with the titles only."
    )
    question = offline_text.parse_question(goal)
    assert question.kind == "week" and question.needs_today  # not "Monday"'s day question
    sunday = datetime.date(2023, 10, 15)
    assert offline_text.week_span("next", sunday) == (
        datetime.date(2023, 10, 16),
        datetime.date(2023, 10, 22),
    )
    assert offline_text.week_span("this", datetime.date(2023, 10, 18))[0] == datetime.date(
        2023, 10, 16
    )


def test_more_ways_to_say_when():
    when = offline_text.parse_goal(
        "Please add 'Standup' to Simple Calendar Pro tomorrow at 21:00 for 45 minutes."
    ).when
    assert (when.date, when.time, when.duration) == ("tomorrow", "21:00", "45 minutes")
    when = offline_text.parse_goal(
        "Create an event two weeks from today at 9h called 'x', 30 minutes long."
    ).when
    assert (when.date, when.duration) == ("two weeks from today", "30 minutes")
    assert offline_text.attribute_question("Please tell me the location of my Gym event.") == (
        "location",
        "Gym",
    )


@pytest.mark.parametrize(
    "goal, item",
    [
        # an event whose title ends in a kind word keeps it (SimpleCalendarLocationOfEvent seed 2)
        (
            "What is the location of my Doctor's appointment event in Simple Calendar Pro?",
            "Doctor's appointment",
        ),
        ("Where is my Team meeting event?", "Team meeting"),
        ("What is the location of my Team lunch event?", "Team lunch"),
    ],
)
def test_an_event_title_ending_in_a_kind_word_is_read_whole(goal, item):
    assert offline_text.attribute_question(goal) == ("location", item)
