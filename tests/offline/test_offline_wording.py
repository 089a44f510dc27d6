"""Free wording for the offline planner (issue 14.3): requests read as people phrase them, and a
goal the planner cannot read ends `infeasible` before any action instead of acting on a guess."""

from __future__ import annotations

import pytest

from android_world.agents.custom.offline_roles import offline
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.offline import OfflinePlanner
from android_world.agents.custom.roles import celil_goal_questions as questions
from android_world.agents.custom.roles.celil_perception import PerceptionModule
from android_world.env.sim.sim_env import SimEnv


def plan_for(goal: str) -> list[str]:
    return offline.build_plan(text_lib.parse_goal(goal))[0]


def fields(goal: str) -> dict[str, str]:
    return dict(text_lib.parse_goal(goal).fields)


@pytest.mark.parametrize(
    ("goal", "text", "polite"),
    [
        ("Could you pause the stopwatch?", "Pause the stopwatch.", True),
        ("Please turn off Bluetooth.", "Turn off Bluetooth.", True),
        ("Wifi on, please.", "Wifi on.", False),
        ("Can you tell me how many events I have?", "Tell me how many events I have?", True),
    ],
)
def test_courtesy_is_dropped_and_a_polite_request_is_no_question(goal, text, polite):
    assert questions.strip_politeness(goal) == (text, polite)


@pytest.mark.parametrize(
    ("goal", "question"),
    [
        ("Could you pause the stopwatch?", False),
        ("Please tell me the title of my upcoming event.", True),
        ("In Simple Calendar Pro, what's scheduled for Wednesday?", True),
        ("Add up all Food expenses and give me the total.", True),
        ("Pause the stopwatch?", True),
    ],
)
def test_agent_question_detection_reads_requests_and_asks(goal, question):
    assert questions.is_question(goal) is question
    assert text_lib.parse_goal(goal).is_question is question


@pytest.mark.parametrize(
    ("goal", "step"),
    [
        ("Make sure WiFi is on.", "Turn WiFi on"),
        ("Make sure bluetooth is off.", "Turn bluetooth off"),
        ("Disable Bluetooth in the settings", "Turn Bluetooth off"),
        ("Bluetooth off, please.", "Turn Bluetooth off"),
        ("Make sure the stopwatch is running.", "Tap Start"),
        ("Could you make the screen as bright as possible?", "Set brightness to max"),
        ("Please set the screen brightness to maximum.", "Set brightness to max"),
        ("Turn the brightness all the way down", "Set brightness to min"),
    ],
)
def test_wanted_states_become_the_orders_that_reach_them(goal, step):
    assert step in plan_for(goal)


def test_two_wanted_states_in_one_sentence_are_two_steps():
    assert plan_for("Make sure Bluetooth is on and Wi-Fi is off.") == [
        "Open Settings",
        "Turn Bluetooth on",
        "Turn Wi-Fi off",
    ]


@pytest.mark.parametrize(
    "goal",
    [
        "Set a timer for 14 hours, 35 minutes and 31 seconds, without starting it.",
        "Could you create a 14h 35m 31s timer? Don't start it.",
        "Make a timer with 14 hr, 35 min and 31 sec; leave it stopped.",
    ],
)
def test_negations_in_any_form_keep_the_timer_stopped(goal):
    plan = plan_for(goal)
    assert "Set the duration to 14 hours 35 minutes 31 seconds" in plan
    assert "Tap Start" not in plan


def test_a_lone_minutes_value_and_a_start_hour_are_no_duration():
    goal = "Create an event on 2023-10-17 at 13h titled 'Standup'. It lasts 60 mins."
    assert text_lib.parse_goal(goal).duration is None


@pytest.mark.parametrize(
    ("goal", "name", "phone"),
    [
        ("Add a contact named Ravi Okafor with phone +19199296180.", "Ravi Okafor", "+19199296180"),
        ("Add Ravi Okafor (+19199296180) to my contacts.", "Ravi Okafor", "+19199296180"),
        ("Add a contact named José Núñez with phone +19199296180.", "José Núñez", "+19199296180"),
        (
            "Save a new contact called Seán O'Brien, phone number (555) 123-4567.",
            "Seán O'Brien",
            "5551234567",
        ),
        ('Create a new contact: name "Ravi Okafor", phone "+19199296180".', "Ravi Okafor", None),
    ],
)
def test_contact_names_and_numbers_in_any_order_script_and_format(goal, name, phone):
    got = fields(goal)
    assert got["name"] == name
    assert got["phone"] == (phone or "+19199296180")


def test_unquoted_values_stop_where_the_next_part_starts():
    got = fields(
        "Please add an expense called Seminars for $41.85 in the Education category "
        "with the note 'Urgent' in pro expense."
    )
    assert got == {"name": "Seminars", "amount": "41.85", "category": "Education", "note": "Urgent"}
    got = fields(
        "Could you log a Housing expense named Utilities, amount $157.7, note: Want to have."
    )
    assert got["note"] == "Want to have" and got["category"] == "Housing"
    titled = fields("In Simple Calendar Pro, create an event titled Meeting with HR on 2023-10-17.")
    assert titled["title"] == "Meeting with HR"


def test_messages_keep_their_own_words_and_lose_the_app_named_after_them():
    assert fields("Please reply to +10956025611 in Simple SMS Messenger with: To be or not to be.")[
        "message"
    ] == ("To be or not to be.")
    got = fields(
        "Send +1 762-221-4033 the message: The early bird catches the worm. (use Simple SMS Messenger)"
    )
    assert got == {"phone": "+17622214033", "message": "The early bird catches the worm."}


@pytest.mark.parametrize(
    ("goal", "targets"),
    [
        ("Please remove the Specialty Foods expense from pro expense.", ["Specialty Foods"]),
        (
            "Could you remove the expenses Magazines, Doctor Visits and Streaming Services in pro expense?",
            ["Magazines", "Doctor Visits", "Streaming Services"],
        ),
        (
            'Delete the expenses named "Magazines", "Doctor Visits" and "Streaming Services".',
            ["Magazines", "Doctor Visits", "Streaming Services"],
        ),
        (
            "Make sure there's no note called 2023_03_26_bright_harbor in Markor any more.",
            ["2023_03_26_bright_harbor"],
        ),
        (
            "Utilize Simple Calendar Pro to delete the event scheduled for0h on 2023-10-19 "
            "labeled 'Appointment for Campaign'.",
            ["Appointment for Campaign"],
        ),
    ],
)
def test_delete_targets_quoted_or_not_one_or_a_list(goal, targets):
    assert text_lib.parse_goal(goal).targets == targets


def test_edits_read_the_end_and_the_replacement_however_they_are_named():
    info = text_lib.parse_goal(
        'Open note_iJ59H.md in Markor and put "Yoga class every Tuesday." on a new last line.'
    )
    assert (info.edit, info.append) == ("note_iJ59H.md", "Yoga class every Tuesday")
    info = text_lib.parse_goal(
        "Please replace everything in the Markor note note_duB2a.md with: First line.\nSecond."
    )
    assert info.edit == "note_duB2a.md" and info.fields == [("text", "First line.\nSecond.")]
    assert not info.targets


def test_o_clock_is_a_time_not_the_clock_app():
    goal = "Remove the calendar event titled 'Standup' at 0 o'clock on 2023-10-19 from Simple Calendar Pro."
    assert plan_for(goal)[0] == "Open Simple Calendar Pro"


@pytest.mark.parametrize(
    ("goal", "why"),
    [
        ("I need one photo taken, thanks!", "no step for"),
        ('Add "Seminars" ($41.85, Education) to pro expense with the note "Urgent".', "Education"),
        ("Connect to WiFi by turning it on.", "no step for"),
    ],
)
def test_a_goal_the_planner_cannot_read_is_reported_not_guessed(goal, why):
    info = text_lib.parse_goal(goal)
    reason = offline.not_understood(info, offline.build_plan(info)[0])
    assert reason is not None and why in reason


@pytest.mark.parametrize(
    "goal",
    [
        "Turn bluetooth off.",
        "Create a new contact for Ravi Okafor. Their number is +19199296180.",
        "Delete the file a_b.mp3 from the Android filesystem located in the Recordings folder "
        "within the sdk_gphone_x86_64 storage area.",
        "Add the following expenses into the pro expense:\nname|amount_dollars|category_name|note\n"
        "Utilities|$157.7|Housing|Want to have",
    ],
)
def test_goals_the_planner_reads_pass_the_understanding_check(goal):
    info = text_lib.parse_goal(goal)
    assert offline.not_understood(info, offline.build_plan(info)[0]) is None


def test_an_unreadable_goal_ends_infeasible_before_any_action():
    from android_world.agents.custom.loop import celil_agent

    env = SimEnv(seed=0, render=False)
    try:
        roles = offline.build_offline_roles()
        agent = celil_agent.CelilAgent(
            env,
            PerceptionModule(ocr="off"),
            roles.planner,
            roles.action_generator,
            roles.verifier,
            screen_checker=OfflinePlanner(),
            transition_pause=0.0,
        )
        agent.reset()
        result = agent.step("I need one photo taken, thanks!")
        summary = agent.episode_summary()
    finally:
        env.close()
    assert result.done
    assert summary["status"] == "infeasible"
    assert summary["infeasible_reason"].startswith("could not understand the goal: no step for")
    # The only action is the terminal status: nothing on the phone was touched.
    assert result.data["action"] == {"action_type": "status", "goal_status": "infeasible"}


def test_a_when_clause_before_a_request_is_a_condition_not_a_question():
    """Upstream's browser goals say "...; when prompted open it with Chrome. Then ...": read as a
    question, the offline roles answered "task.html" and claimed the maze solved."""
    request = (
        "Open the file task.html in Downloads in the file manager; when prompted open it with"
        " Chrome. Then navigate the X to the bottom-right cell, by using the direction buttons."
    )
    question = "When is my next meeting with Ana in Simple Calendar Pro? Answer with the date."
    assert not text_lib.parse_goal(request).is_question
    assert not questions.is_question(request)
    assert text_lib.parse_goal(question).is_question
    assert questions.is_question(question)
