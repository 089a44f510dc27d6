"""Goal abstraction: typed slots for upstream-style goals, exact round trips, plan slotting."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from android_world.agents.custom.memory.celil_episodic import (
    GoalTemplate,
    SlotValue,
    abstract_goal,
    abstract_plan,
    apps_in_goal,
    instantiate,
    plan_leaks,
    template_differences,
    template_similarity,
)

# (goal, expected template, expected slot values) for goals shaped like the upstream tasks'.
CASES = [
    (  # ContactsAddContact
        "Create a new contact for Hugo Pereira. Their number is +13920741751.",
        "Create a new contact for {name_1}. Their number is {number_1}.",
        {"name_1": "Hugo Pereira", "number_1": "+13920741751"},
    ),
    (  # MarkorCreateNote
        "Create a new note in Markor named ipsum_mountain_7xE6.md with the following text: "
        "Lorem ipsum, dolor sit amet.",
        "Create a new note in Markor named {file_1} with the following text: {text_1}",
        {"file_1": "ipsum_mountain_7xE6.md", "text_1": "Lorem ipsum, dolor sit amet."},
    ),
    (  # SimpleSmsSend
        "Send a text message using Simple SMS Messenger to +16505550123 with message: Hi Bob",
        "Send a text message using Simple SMS Messenger to {number_1} with message: {text_1}",
        {"number_1": "+16505550123", "text_1": "Hi Bob"},
    ),
    (  # ExpenseAddSingle
        "Add the following expenses into the pro expense:\nExpense: Taxi Fare\n amount_dollars: "
        "$57.47\n category_name: Transportation\n note: I may repeat this",
        "Add the following expenses into the pro expense:\nExpense: {text_1}\n amount_dollars: "
        "${number_1}\n category_name: {text_2}\n note: {text_3}",
        {"text_1": "Taxi Fare", "number_1": "57.47", "text_2": "Transportation"},
    ),
    (  # SimpleCalendarAddOneEvent
        "In Simple Calendar Pro, create a calendar event on 2023-10-22 at 16h with the title "
        "'Meeting with Bob' and the description 'We'll discuss it.'. The event should last for "
        "30 mins.",
        "In Simple Calendar Pro, create a calendar event on {date_1} at {time_1} with the title "
        "'{text_1}' and the description '{text_2}'. The event should last for {number_1} mins.",
        {"date_1": "2023-10-22", "time_1": "16h", "text_1": "Meeting with Bob"},
    ),
    (  # ClockTimerEntry
        "Create a timer with 0 hours, 10 minutes, and 25 seconds. Do not start the timer.",
        "Create a timer with {number_1} hours, {number_2} minutes, and {number_3} seconds. "
        "Do not start the timer.",
        {"number_1": "0", "number_2": "10", "number_3": "25"},
    ),
    ("Turn wifi on.", "Turn wifi {toggle_1}.", {"toggle_1": "on"}),
    ("Turn bluetooth off.", "Turn bluetooth {toggle_1}.", {"toggle_1": "off"}),
    (
        "Turn brightness to the max value.",
        "Turn brightness to the {toggle_1} value.",
        {"toggle_1": "max"},
    ),
    (  # OpenAppTaskEval: the app name is the task, so it stays literal.
        "Open the Camera app. Clear any pop-ups that may appear by granting all permissions "
        "that are required.",
        "Open the Camera app. Clear any pop-ups that may appear by granting all permissions "
        "that are required.",
        {},
    ),
    (  # FilesDeleteFile
        "Delete the file holiday_2023.jpg from the Android filesystem located in the Documents "
        "folder within the sdk_gphone_x86_64 storage area.",
        "Delete the file {file_1} from the Android filesystem located in the {folder_1} "
        "folder within the sdk_gphone_x86_64 storage area.",
        {"file_1": "holiday_2023.jpg", "folder_1": "Documents"},
    ),
    (  # SimpleCalendarEventsOnDate (information retrieval)
        "What events do I have on October 16 2023 in Simple Calendar Pro? Answer with the "
        "titles only. If there are multiple titles, format your answer as a comma separated list.",
        "What events do I have on {date_1} in Simple Calendar Pro? Answer with the titles only. "
        "If there are multiple titles, format your answer as a comma separated list.",
        {"date_1": "October 16 2023"},
    ),
    (
        'Text John "running late" at 3pm on Oct 15, then call 555-123-4567 at 15:30.',
        'Text {name_1} "{text_1}" at {time_1} on {date_1}, then call {number_1} at {time_2}.',
        {"name_1": "John", "time_1": "3pm", "date_1": "Oct 15", "number_1": "555-123-4567"},
    ),
    (
        "What is my next meeting with Alice Smith in Simple Calendar Pro?",
        "What is my next meeting with {name_1} in Simple Calendar Pro?",
        {"name_1": "Alice Smith"},
    ),
]


@pytest.mark.parametrize(("goal", "template", "values"), CASES)
def test_upstream_goals_abstract_to_typed_slots(goal, template, values):
    got = abstract_goal(goal)
    assert got.template == template
    for key, value in values.items():
        assert got.slots[key].value == value
    assert instantiate(got.template, got.slots) == goal


def test_slot_types():
    slots = abstract_goal(CASES[4][0]).slots
    assert slots["date_1"] == SlotValue("date", "2023-10-22")
    assert slots["time_1"].type == "time"
    assert slots["text_1"].type == "text"
    assert abstract_goal("Turn wifi off.").slots["toggle_1"].type == "toggle"


@pytest.mark.parametrize(
    "goal",
    [
        "Open Simple Calendar Pro and Pro Expense, then Markor.",
        "Open the Contacts app.",
        "Create a note. Then send it.",
    ],
)
def test_app_names_and_sentence_starts_are_not_names(goal):
    assert not any(s.type == "name" for s in abstract_goal(goal).slots.values())


def test_preposition_on_is_not_a_toggle():
    t = abstract_goal("Tap on Save and turn on the flashlight.")
    assert [s.value for s in t.slots.values() if s.type == "toggle"] == ["on"]
    assert t.template.startswith("Tap on ")


def test_literal_braces_survive_round_trip():
    goal = "Copy this to the clipboard: {name_1} and {{x}}"
    got = abstract_goal(goal)
    assert instantiate(got.template, got.slots) == goal
    assert instantiate("keep {{literal}} and {unknown_9}", {}) == "keep {literal} and {unknown_9}"


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("aZ 0189.:-'\"{}$+_,?\nMJohnSmithOctober2023hpm")),
        max_size=60,
    )
)
def test_round_trip_property(goal):
    got = abstract_goal(goal)
    assert instantiate(got.template, got.slots) == goal


def test_plan_gets_the_goal_slots_and_reinstantiates_for_a_new_goal():
    old = abstract_goal("Create a new contact for Alice Smith. Their number is +15550100.")
    plan = abstract_plan(
        [
            "Open the Contacts app",
            "Tap 'Create contact' and type Alice Smith as the name",
            "Enter +15550100 in the phone field",
            "Save the contact",
        ],
        old.slots,
    )
    assert plan[1] == "Tap 'Create contact' and type {name_1} as the name"
    assert plan[2] == "Enter {number_1} in the phone field"
    new = abstract_goal("Create a new contact for Bob Jones. Their number is +15550199.")
    assert new.template == old.template
    assert [instantiate(s, new.slots) for s in plan][1:3] == [
        "Tap 'Create contact' and type Bob Jones as the name",
        "Enter +15550199 in the phone field",
    ]


def test_repeated_values_take_successive_slots_and_toggles_need_setting_context():
    timer = abstract_goal("Create a timer with 5 hours, 5 minutes, and 0 seconds.")
    plan = abstract_plan(["Set hours to 5 and minutes to 5", "Leave seconds at 0"], timer.slots)
    assert plan == [
        "Set hours to {number_1} and minutes to {number_2}",
        "Leave seconds at {number_3}",
    ]
    wifi = abstract_goal("Turn wifi on.")
    assert abstract_plan(["Tap on Network", "Switch Wi-Fi on."], wifi.slots) == [
        "Tap on Network",
        "Switch Wi-Fi {toggle_1}.",
    ]


def test_similarity_ignores_slot_numbers_but_not_words():
    a = "Turn wifi {toggle_1}."
    assert template_similarity(a, "Turn wifi {toggle_2}.") == 1.0
    assert template_similarity(a, "Turn bluetooth {toggle_1}.") < 0.8
    assert template_similarity(a, "Turn wifi {number_1}.") < 1.0


def test_apps_in_goal():
    assert apps_in_goal(CASES[3][0]) == ["pro expense"]
    assert apps_in_goal("Open Simple Calendar Pro then Markor") == ["markor", "simple calendar pro"]


# --- the abstraction gaps that let one goal's values into another goal's plan ----------------

MOVE = (
    "Move the file {} from {} within the sdk_gphone_x86_64 storage area to the {} within the "
    "same sdk_gphone_x86_64 storage area in the Android filesystem."
)


def test_all_caps_folders_are_slots_so_source_and_destination_keep_their_roles():
    a = abstract_goal(MOVE.format("a.jpg", "DCIM", "Music"))
    b = abstract_goal(MOVE.format("b.mp3", "Music", "DCIM"))
    assert a.template == b.template
    assert (a.slots["folder_1"].value, a.slots["folder_2"].value) == ("DCIM", "Music")
    plan = abstract_plan(["Open Files", "Tap 'DCIM'", "Select 'a.jpg'", "Tap 'Music'"], a.slots)
    assert [instantiate(s, b.slots) for s in plan] == [
        "Open Files",
        "Tap 'Music'",
        "Select 'b.mp3'",
        "Tap 'DCIM'",
    ]
    # All-caps wording is not a value.
    assert abstract_goal("Fill the form. Do NOT hit save. Send it via SMS.").slots == {}


@pytest.mark.parametrize(
    ("goal", "apps"),
    [
        ("Open the settings app. Clear any pop-ups.", ["settings"]),
        ("Turn on Wifi, then open the camera app", ["camera"]),
        ("Open contacts and add Bob.", ["contacts"]),
        ("Delete a file in the Android filesystem located in the DCIM folder.", []),
        ("Share the note with the phone number +15550100 via SMS.", []),
        ("Run the stopwatch.", []),
        ("Delete the following expenses from pro expense: Jeans.", ["pro expense"]),
    ],
)
def test_app_names_are_found_case_insensitively_where_they_name_an_app(goal, apps):
    assert apps_in_goal(goal) == apps


def test_a_comma_separated_list_becomes_one_slot_per_item():
    goal = "Delete the following expenses from pro expense: Taxi Fare, Jeans, Property Taxes."
    got = abstract_goal(goal)
    assert got.template == (
        "Delete the following expenses from pro expense: {text_1}, {text_2}, {text_3}."
    )
    plan = abstract_plan(
        ["Delete 'Taxi Fare'", "Delete 'Jeans'", "Delete 'Property Taxes'"], got.slots
    )
    assert plan == ["Delete '{text_1}'", "Delete '{text_2}'", "Delete '{text_3}'"]
    single = abstract_goal("Delete the following expenses from pro expense: Taxi Fare.")
    assert single.template.endswith(": {text_1}.") and single.slots["text_1"].value == "Taxi Fare"


def test_table_cells_are_slots_and_the_header_stays_literal():
    goal = (
        "Add the following expenses into the pro expense:\n"
        "name|amount_dollars|category_name|note\nUtilities|$479.89|Others|Urgent to have"
    )
    got = abstract_goal(goal)
    assert got.template == (
        "Add the following expenses into the pro expense:\n"
        "name|amount_dollars|category_name|note\n{text_1}|${number_1}|{text_2}|{text_3}"
    )
    assert [s.value for s in got.slots.values()] == [
        "Utilities",
        "479.89",
        "Others",
        "Urgent to have",
    ]


@pytest.mark.parametrize(
    ("goal", "template"),
    [
        (
            "Go to the new contact screen and enter the following details: First Name: Leila, "
            "Last Name: Kim, Phone: 876-530-1663, Phone Label: Work. Do NOT hit save.",
            "Go to the new contact screen and enter the following details: First Name: {text_1}, "
            "Last Name: {text_2}, Phone: {number_1}, Phone Label: {text_3}. Do NOT hit save.",
        ),
        (
            "Create a new note in Markor named a_b.txt with the following text: Call Grandma now.. "
            "Share the entire content of the note with the phone number +19382421948 via SMS "
            "using Simple SMS Messenger",
            "Create a new note in Markor named {file_1} with the following text: {text_1}. "
            "Share the entire content of the note with the phone number {number_1} via SMS "
            "using Simple SMS Messenger",
        ),
        (
            "Reply to +12914177763 with message: We discuss '1984' at 11 AM. in Simple SMS Messenger",
            "Reply to {number_1} with message: {text_1} in Simple SMS Messenger",
        ),
        (
            "Edit note_UAqFz.txt in Markor. Add to the top of the note Book club meets next Tuesday.",
            "Edit {file_1} in Markor. Add to the {toggle_1} of the note {text_1}",
        ),
        (
            "Create a new folder in Markor named folder_20230725_130216.",
            "Create a new folder in Markor named {text_1}.",
        ),
        (
            "Delete the file happy_harbor_copy.exe from the Android filesystem located in the "
            "Alarms folder.",
            "Delete the file {file_1} from the Android filesystem located in the {folder_1} folder.",
        ),
    ],
)
def test_fields_messages_and_identifiers_end_where_the_goal_goes_on(goal, template):
    got = abstract_goal(goal)
    assert got.template == template
    assert instantiate(got.template, got.slots) == goal


def test_plan_leaks_finds_values_the_abstraction_missed():
    goal = abstract_goal("Delete the following expenses from pro expense: Taxi Fare.")
    assert plan_leaks(goal, ["Open Pro Expense", "Delete '{text_1}'"]) == []
    assert plan_leaks(goal, ["Open Pro Expense", "Delete the Taxi expense"]) == ["Taxi"]
    message = abstract_goal("Reply to +15550100 with message: We will explore roles. Let's go.")
    leaks = plan_leaks(message, ["Enter 'We will explore roles. Let' as the message"])
    assert "We will explore roles." in leaks and "Let" in leaks
    # A value the goal template itself kept literal (as an older abstraction did with DCIM).
    old = GoalTemplate("Move {file_1} from DCIM to {name_1}.", {})
    assert plan_leaks(old, ["Open Files", "Tap 'DCIM'", "Tap '{name_1}'"]) == ["DCIM"]
    assert plan_leaks(old, ["Open Files", "Tap Move to"]) == []


def test_template_differences_ignore_fillers_but_not_words():
    assert template_differences("Turn the wifi {toggle_1}.", "Turn wifi {toggle_1}") == []
    assert template_differences("Pause the stopwatch.", "Run the stopwatch.") == [("pause", "run")]
    assert template_differences("Open the contacts app.", "Open the settings app.")
    assert template_differences("Delete: {text_1}.", "Delete: {text_1}, {text_2}.")


_PIECES = [
    *"aZ 019.:-'\"{}$+_,?\n|",
    "Leila Kim",
    "DCIM",
    "October 16",
    "Name: ",
    "message: ",
    ", Phone: ",
    " in Markor",
    " of the note ",
    " named f_1.md",
    "..",
    " Simple SMS Messenger",
    "the settings app",
    "Taxi Fare, Jeans",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=14).map("".join))
def test_round_trip_property_with_fields_lists_tables_and_apps(goal):
    got = abstract_goal(goal)
    assert instantiate(got.template, got.slots) == goal
    assert all(isinstance(v, str) for v in plan_leaks(got, abstract_plan([goal], got.slots)))
