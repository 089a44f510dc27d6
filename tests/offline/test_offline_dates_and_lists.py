"""Offline skills for dates, times and reading answers off lists, on hand-built screens.

What a careful person does with the goal text: set a form's start date and time with its pickers
and the end from the duration; learn today's date from the clock before answering a question
about "Wednesday" or "next"; add up the amounts of a list's matching items across scrolls;
list a day's items from its day view.
"""

from __future__ import annotations

import datetime

import numpy as np
import pytest

from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline, offline_text
from android_world.env import json_action, representation_utils

TODAY = datetime.date(2023, 10, 15)  # a Sunday
CALENDAR = "com.example.calendar/.Main"
EVENT_GOAL = (
    "In Simple Calendar Pro, add an event on 2023-11-02 at 9:30 am with the title 'Standup'."
    " The event should last for 45 mins."
)


def el(text=None, box=(0, 1080, 500, 600), *, desc=None, hint=None, clickable=False, **flags):
    x0, x1, y0, y1 = box
    return representation_utils.UIElement(
        text=text,
        content_description=desc,
        hint_text=hint,
        class_name=flags.pop("cls", "android.widget.TextView"),
        bbox_pixels=representation_utils.BoundingBox(x0, x1, y0, y1),
        is_clickable=clickable,
        is_editable=flags.pop("editable", False),
        is_scrollable=flags.pop("scrollable", False),
        is_enabled=True,
        is_visible=True,
    )


def obs(elements, activity: str = CALENDAR) -> Observation:
    return Observation(
        np.zeros((4, 4, 3), np.uint8),
        list(elements),
        [],
        "",
        "",
        (1080, 2400),
        "x",
        foreground_activity=activity,
    )


STATUS = el("15:34", (48, 268, 27, 82))


def form(start=("Sun, Oct 15, 2023", "16:00"), end=("Sun, Oct 15, 2023", "17:00")):
    return obs(
        [
            STATUS,
            el(hint="Title", box=(0, 1080, 290, 440), cls="android.widget.EditText", editable=True),
            el("Starts", (48, 218, 791, 843)),
            el(start[0], (230, 864, 742, 892), clickable=True),
            el(start[1], (876, 1056, 787, 847), clickable=True),
            el("Ends", (48, 218, 941, 993)),
            el(end[0], (230, 864, 892, 1042), clickable=True),
            el(end[1], (876, 1056, 937, 997), clickable=True),
        ]
    )


def date_picker(month="October 2023", header="Sun, Oct 15"):
    cells = [
        el(str(d), (134 + 118 * ((d - 1) % 7), 252 + 118 * ((d - 1) % 7), y, y + 60))
        for d in range(1, 32)
        for y in [1078 + 110 * ((d - 1) // 7)]
    ]
    return obs(
        [
            STATUS,
            el("Select date", (134, 962, 615, 690)),
            el(header, (134, 962, 714, 804)),
            el(desc="Previous month", box=(134, 278, 828, 972), clickable=True),
            el(month, (278, 818, 828, 972)),
            el(desc="Next month", box=(818, 962, 828, 972), clickable=True),
            *cells,
            el("Cancel", (450, 750, 1655, 1775), clickable=True),
            el("OK", (762, 962, 1655, 1775), clickable=True),
        ]
    )


def time_picker(hour="16", minute="00", mode="hour"):
    values = range(24) if mode == "hour" else range(0, 60, 5)
    cells = [
        el(f"{v:02d}", (134 + 207 * (n % 4), 341 + 207 * (n % 4), y, y + 110), clickable=True)
        for n, v in enumerate(values)
        for y in [890 + 134 * (n // 4)]
    ]
    return obs(
        [
            STATUS,
            el("Select time", (134, 962, 561, 636)),
            el(hour, (348, 528, 660, 790), clickable=True),
            el(":", (528, 568, 660, 790)),
            el(minute, (568, 748, 660, 790), clickable=True),
            el("Select hour" if mode == "hour" else "Select minutes", (134, 962, 814, 866)),
            *cells,
            el("OK", (762, 962, 1709, 1829), clickable=True),
        ]
    )


def propose(generator, sub_goal, observation, goal=EVENT_GOAL, facts=""):
    summary = f"Task goal: {goal}\nPlan:\n  1. [current] {sub_goal}"
    if facts:
        summary += f"\nFacts: {facts}"
    return generator.generate_action(sub_goal, observation, summary)


def tapped(proposal, observation) -> str:
    action = proposal.action
    assert action is not None, proposal
    assert action.action_type == json_action.CLICK, action
    element = observation.ui_elements[action.index]
    return element.text or element.content_description


# --- goal text -------------------------------------------------------------------------------


def test_dates_times_and_durations_read_like_a_person_reads_them():
    assert offline_text.parse_when(EVENT_GOAL) == offline_text.When(
        "2023-11-02", "9:30 am", "45 mins"
    )
    assert offline_text.parse_clock("13h") == (13, 0)
    assert offline_text.parse_clock("9:30 am") == (9, 30)
    assert offline_text.parse_clock("12am") == (0, 0)
    assert offline_text.parse_clock("17") is None
    assert offline_text.duration_minutes("1.5 hours") == 90
    parse = offline_text.parse_date
    assert parse("Sun, Oct 15, 2023") == TODAY
    assert parse("Wednesday, October 18", default_year=2023) == datetime.date(2023, 10, 18)
    assert parse("Wednesday", today=TODAY) == datetime.date(2023, 10, 18)
    assert parse("the Wednesday after next", today=TODAY) == datetime.date(2023, 10, 25)
    assert parse("tomorrow", today=TODAY) == datetime.date(2023, 10, 16)
    assert parse("Wednesday") is None  # relative, and today is unknown


def test_a_time_inside_a_message_is_not_when_anything_happens():
    goal = "Send a text message to +15550100 with message: Yoga class at 6 PM."
    assert offline_text.parse_goal(goal).when is None
    plan, _ = offline.build_plan(offline_text.parse_goal(goal))
    assert not any(step.startswith("Set the") for step in plan)


@pytest.mark.parametrize(
    ("goal", "kind", "today"),
    [
        ("What is the total amount of my Food expenses in the app?", "total", False),
        ("What events do I have Wednesday in the calendar?", "day", True),
        ("What events do I have October 18 2023 in the calendar?", "day", False),
        ("What is my next upcoming event in the calendar?", "next", True),
        ("What is the name of my contact?", "other", False),
    ],
)
def test_questions_are_read_by_kind(goal, kind, today):
    question = offline_text.parse_question(goal)
    assert question.kind == kind and question.needs_today is today


def test_plans_set_the_when_before_saving_and_read_the_clock_for_relative_days():
    plan, _ = offline.build_plan(offline_text.parse_goal(EVENT_GOAL))
    assert plan[-4:] == [
        "Set the start date to 2023-11-02",
        "Set the start time to 9:30 am",
        "Set the end time to 45 mins after the start",
        "Tap Save",
    ]
    relative = offline.build_plan(
        offline_text.parse_goal("What events do I have Wednesday in Simple Calendar Pro?")
    )[0]
    assert relative[:3] == ["Open Clock", offline.READ_DATE_SUB_GOAL, "Open Simple Calendar Pro"]
    explicit = offline.build_plan(
        offline_text.parse_goal("What events do I have October 18 in Simple Calendar Pro?")
    )[0]
    assert "Open Clock" not in explicit


# --- forms and pickers -------------------------------------------------------------------------


def test_the_start_date_is_set_with_the_date_picker():
    generator = offline.OfflineActionGenerator()
    sub_goal = "Set the start date to 2023-11-02"
    screen = form()
    assert tapped(propose(generator, sub_goal, screen), screen) == "Sun, Oct 15, 2023"
    october = date_picker()
    assert tapped(propose(generator, sub_goal, october), october) == "Next month"
    november = date_picker("November 2023", "Sun, Oct 15")
    assert tapped(propose(generator, sub_goal, november), november) == "2"
    picked = date_picker("November 2023", "Thu, Nov 2")
    assert tapped(propose(generator, sub_goal, picked), picked) == "OK"
    done = propose(generator, sub_goal, form(start=("Thu, Nov 2, 2023", "16:00")))
    assert done.sub_goal_finished and done.action is None


def test_the_start_time_is_set_hour_then_minute():
    generator = offline.OfflineActionGenerator()
    sub_goal = "Set the start time to 9:30 am"
    screen = form()
    assert tapped(propose(generator, sub_goal, screen), screen) == "16:00"
    hours = time_picker("16", "00", "hour")
    assert tapped(propose(generator, sub_goal, hours), hours) == "09"
    minutes = time_picker("09", "00", "minute")
    assert tapped(propose(generator, sub_goal, minutes), minutes) == "30"
    ready = time_picker("09", "30", "minute")
    assert tapped(propose(generator, sub_goal, ready), ready) == "OK"


def test_the_end_follows_from_the_start_and_the_duration():
    generator = offline.OfflineActionGenerator()
    sub_goal = "Set the end time to 45 mins after the start"
    start = ("Thu, Nov 2, 2023", "09:30")
    screen = form(start=start, end=("Thu, Nov 2, 2023", "10:30"))
    assert tapped(propose(generator, sub_goal, screen), screen) == "10:30"
    # In the picker the form is hidden: the end worked out on the form is remembered.
    hours = time_picker("10", "30", "hour")  # the hour is right: switch to the minutes
    assert tapped(propose(generator, sub_goal, hours), hours) == "30"
    minutes = time_picker("10", "30", "minute")
    assert tapped(propose(generator, sub_goal, minutes), minutes) == "15"
    info = offline_text.parse_goal(EVENT_GOAL)
    intent = offline.parse_sub_goal(sub_goal, info)
    assert offline.when_done(intent, form(start=start, end=("Thu, Nov 2, 2023", "10:15")))[0]
    # An end past midnight needs the end date first.
    late = form(start=("Thu, Nov 2, 2023", "23:30"), end=("Thu, Nov 2, 2023", "23:59"))
    assert tapped(propose(offline.OfflineActionGenerator(), sub_goal, late), late) == (
        "Thu, Nov 2, 2023"
    )


def test_the_verifier_passes_picker_taps_it_would_otherwise_find_irrelevant():
    verifier = offline.OfflineVerifier()
    sub_goal = "Set the start date to 2023-11-02"
    screen = date_picker()
    arrow = next(
        i for i, e in enumerate(screen.ui_elements) if e.content_description == "Next month"
    )
    proposal = offline.ProposedAction(json_action.JSONAction(action_type="click", index=arrow))
    score, _ = verifier.verify_action(sub_goal, proposal, screen, f"Task goal: {EVENT_GOAL}")
    assert score >= verifier.threshold


# --- reading answers ---------------------------------------------------------------------------


def expense_list(rows, more=True):
    """A scrollable list of (name, "Category · date", "$amount") items, 200 px apart."""
    elements = [
        STATUS,
        el("Total expenses", (48, 1032, 310, 362)),
        el("$999.00", (48, 1032, 362, 452)),
    ]
    elements.append(el(None, (0, 1080, 480, 2268), scrollable=True))
    for n, (name, category, amount) in enumerate(rows):
        top = 524 + 200 * n
        elements += [
            el(name, (48, 760, top, top + 60)),
            el(category, (48, 760, top + 60, top + 112)),
            el(amount, (784, 1044, top + 26, top + 86)),
        ]
    if more:  # an item cut by the bottom edge: there is more below, and it is not counted
        elements.append(el("Half shown", (48, 760, 2240, 2300)))
    return obs(elements, "com.example.expense/.Main")


def test_a_total_adds_up_matching_items_over_every_scroll():
    goal = "What is the total amount of my Food expenses in Pro Expense? Answer with the number."
    generator = offline.OfflineActionGenerator()
    sub_goal = offline.FIND_SUB_GOAL
    first = expense_list(
        [("Lunch", "Food · Oct 15, 2023", "$12.50"), ("Taxi", "Transport · Oct 14, 2023", "$30.00")]
    )
    scroll = propose(generator, sub_goal, first, goal)
    assert scroll.action is not None and scroll.action.action_type == json_action.SCROLL
    last = expense_list(
        [
            ("Taxi", "Transport · Oct 14, 2023", "$30.00"),
            ("Groceries", "Food · Oct 13, 2023", "$1,020.25"),
            ("Lunch", "Food · Oct 15, 2023", "$12.50"),  # seen before: counted once
        ],
        more=False,
    )
    answer = propose(generator, sub_goal, last, goal)
    assert answer.sub_goal_finished and answer.finished_content == "1032.75"
    # The planner answers with what the executor read.
    facts = f"- {sub_goal}: {answer.finished_content}"
    assert offline.question_answer(goal, last, facts) == "1032.75"


def day_screen(title, rows, year="2023"):
    elements = [
        STATUS,
        el(title, (156, 924, 140, 210)),
        el(year, (156, 924, 210, 260)),
        el(desc="Previous day", box=(780, 924, 128, 272), clickable=True),
        el(desc="Next day", box=(924, 1068, 128, 272), clickable=True),
        el(None, (0, 1080, 290, 2268), scrollable=True),
    ]
    for n, (name, when) in enumerate(rows):
        top = 320 + 200 * n
        elements += [el(name, (48, 1032, top, top + 60)), el(when, (48, 1032, top + 60, top + 112))]
    return obs(elements)


def test_a_relative_day_is_found_from_the_clocks_date():
    goal = "What events do I have Wednesday in Simple Calendar Pro? Answer with the titles only."
    generator = offline.OfflineActionGenerator()
    clock = obs(
        [STATUS, el("15:34", (0, 1080, 400, 620)), el("Sun, Oct 15", (0, 1080, 620, 700))],
        "com.example.deskclock/.Main",
    )
    read = propose(generator, offline.READ_DATE_SUB_GOAL, clock, goal)
    assert read.sub_goal_finished and read.finished_content == "Sun, Oct 15"
    facts = f"{offline.READ_DATE_SUB_GOAL}: Sun, Oct 15"
    sunday = day_screen("Sunday, October 15", [("Brunch", "11:00 - 12:00")])
    step = propose(generator, offline.FIND_SUB_GOAL, sunday, goal, facts)
    assert tapped(step, sunday) == "Next day"
    wednesday = day_screen(
        "Wednesday, October 18", [("Bug Bash", "09:00 - 10:00"), ("Dan's party", "19:00 - 22:00")]
    )
    answer = propose(generator, offline.FIND_SUB_GOAL, wednesday, goal, facts)
    assert answer.finished_content == "Bug Bash, Dan's party"


def test_the_next_item_is_the_first_from_now_else_the_next_days_first():
    goal = "What is my next upcoming event in Simple Calendar Pro? Answer with the title only."
    facts = f"{offline.READ_DATE_SUB_GOAL}: Sun, Oct 15"
    generator = offline.OfflineActionGenerator()
    today = day_screen(
        "Sunday, October 15", [("Brunch", "11:00 - 12:00"), ("Gym", "15:00 - 16:00")]
    )
    step = propose(generator, offline.FIND_SUB_GOAL, today, goal, facts)
    assert step.action is not None and not step.sub_goal_finished  # nothing after 15:34 today
    monday = day_screen(
        "Monday, October 16", [("Standup", "09:00 - 09:15"), ("Retro", "09:00 - 10:00")]
    )
    answer = propose(generator, offline.FIND_SUB_GOAL, monday, goal, facts)
    assert answer.finished_content == "Standup, Retro"
    later = day_screen(
        "Sunday, October 15", [("Brunch", "11:00 - 12:00"), ("Movie", "20:00 - 22:00")]
    )
    fresh = offline.OfflineActionGenerator()
    assert propose(fresh, offline.FIND_SUB_GOAL, later, goal, facts).finished_content == "Movie"
