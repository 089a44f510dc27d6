"""Issue 26, false completions of the model path: a planner's early "done" that quotes only the
goal's own order ("Delete", the confirm button of "Delete the recipe X") is about nothing the
task names, and an executor's number that no screen shows counts only when the task names it or
it is worked out from what the screens showed (a count, a total of amounts), never any number."""

from __future__ import annotations

import pytest

from android_world.agents.custom.loop import celil_evidence

RECIPE = "Delete the following recipes from Broccoli app: Chicken Alfredo Pasta."


@pytest.mark.parametrize("text", ['"Delete"', '"DELETE"', "Deleted", '"Save"'])
def test_a_quote_of_the_goals_verb_alone_is_not_about_the_task(text):
    about, why = celil_evidence.relevant(text, [RECIPE, "Save the recipe"])
    assert not about and "names nothing the task names" in why


@pytest.mark.parametrize("text", ['"Chicken Alfredo Pasta" deleted', '"Broccoli"', '"recipes"'])
def test_a_quote_naming_what_the_verb_acts_on_is_still_about_the_task(text):
    assert celil_evidence.relevant(text, [RECIPE])[0]


def test_a_verb_is_only_left_out_as_an_order_not_as_a_value():
    # "16" stays a named number; "Timer" a named word; only the order words are left out.
    subject = "Create a timer with 0 hours, 16 minutes, and 35 seconds."
    assert celil_evidence.relevant('"16"', [subject])[0]
    assert celil_evidence.relevant('"Timer"', [subject])[0]
    assert not celil_evidence.relevant('"Create"', [subject])[0]


SEEN = ["$12.50", "$7.25", "Groceries", "2:15:00", "Sailing", "Slow day"]


@pytest.mark.parametrize(
    ("answer", "subject", "why"),
    [
        ("16", "Set a timer for 16 minutes", "names"),
        ("19.75", "What is the total of my Groceries expenses?", "total"),
        ("3", "How many tasks are due on Friday?", "count"),
    ],
)
def test_a_number_named_or_worked_out_from_the_screens_counts(answer, subject, why):
    worked_out, how = celil_evidence.number_worked_out(answer, [subject], SEEN)
    assert worked_out and why in how


@pytest.mark.parametrize(
    ("answer", "subject"),
    [
        ("1", "How many minutes did my sailing activity last?"),  # a measure, not a count
        ("42", "What is the total of my Groceries expenses?"),  # no amounts add up to it
        ("135", "How long was my sailing activity, in minutes?"),
        ("9", "How many tasks are due on Friday?"),  # more than the 6 texts seen
        ("-3", "How many tasks are due?"),
        ("N/A", "How many tasks are due?"),
    ],
)
def test_any_other_number_is_a_guess_not_a_reading(answer, subject):
    assert not celil_evidence.number_worked_out(answer, [subject], SEEN)[0]


def test_the_total_check_stays_small_for_large_numbers():
    many = [f"${n}.99" for n in range(500)]
    assert not celil_evidence.number_worked_out("99999999", ["What is the total?"], many)[0]
    assert celil_evidence.number_worked_out("2.98", ["What is the total?"], many)[0]


@pytest.mark.parametrize(
    ("quote", "goal"),
    [
        ("WLAN is on", "Turn wifi on."),
        ("Use WLAN: On", "Turn on Wi-Fi"),
        ("Wi-Fi On", "Turn on WLAN"),
    ],
)
def test_a_vendor_name_of_the_setting_names_the_task(quote, goal):
    # Vendors call Wi-Fi "WLAN" (the vendor sim profile does too); with the goal's verbs no
    # longer naming words, the setting's other name is what the quote names.
    assert celil_evidence.relevant(quote, [goal])[0]


@pytest.mark.parametrize(
    ("quote", "goal"), [("On", "Turn on Wi-Fi"), ("Bluetooth on", "Turn on WLAN")]
)
def test_an_other_setting_or_a_bare_state_still_names_nothing(quote, goal):
    assert not celil_evidence.relevant(quote, [goal])[0]


CALENDAR = "In Simple Calendar Pro, delete all the calendar events on 2023-10-17"


@pytest.mark.parametrize("text", ['"10" is shown', '"17"', '"2023"'])
def test_a_piece_of_an_iso_date_is_no_number_the_task_names(text):
    # A calendar shows a "10" and a "17" in every month: a day cell quoted alone is not the date.
    about, why = celil_evidence.relevant(text, [CALENDAR])
    assert not about and "names nothing the task names" in why


@pytest.mark.parametrize("text", ['"Oct 17" has no events', '"October 2023"', '"17 events"'])
def test_the_dates_month_by_name_or_a_word_of_the_task_still_names_it(text):
    assert celil_evidence.relevant(text, [CALENDAR])[0]


def test_numbers_outside_a_date_stay_named_next_to_one():
    subject = "Add an expense of 35 on 2023-10-17"
    assert celil_evidence.relevant('"35"', [subject])[0]
    assert not celil_evidence.relevant('"10"', [subject])[0]
