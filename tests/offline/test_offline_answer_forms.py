"""The offline roles claim a question answered only with an answer of the form the question asks
for, and count items only when the list readers can tell them apart (no false completions on
upstream's OpenTracks and Joplin questions)."""

from __future__ import annotations

import pytest

from android_world.agents.custom.offline_roles import offline_text as text_lib

INTEGER = "How long was my running activity October 12 in the OpenTracks app? Express your answer in minutes as a single integer."
EITHER = "Is the note titled 'Grocery List' in the Joplin app marked as a todo item? Respond with either 'True' if it is a todo or 'False' if not."
AMOUNT = "What quantity of tahini do I need for the recipe 'Tacos' in the Joplin app? Express your answer in the format <amount> <unit> where both the amount and unit exactly match the format in the recipe."


@pytest.mark.parametrize(
    ("goal", "answer", "fits"),
    [
        (INTEGER, "75", True),
        (INTEGER, "3.73 mi · 2:15:00", False),
        (INTEGER, "1:15:00", False),
        (EITHER, "false", True),
        (EITHER, "Grocery List", False),
        (AMOUNT, "3/4 cup", True),
        (AMOUNT, "1 1/2 cups", True),
        (AMOUNT, "Create your first recipe and start your collection!", False),
        ("What tasks do I have due today in Tasks app?", "Call Bob, Pay rent", True),
        (INTEGER, "", False),
    ],
)
def test_answer_forms(goal, answer, fits):
    assert text_lib.answer_fits(goal, answer) is fits


def test_titles_and_count_qualifiers():
    assert text_lib.asks_for_titles("What tasks ...? Answer with the titles only.")
    assert not text_lib.asks_for_titles("What activities ...? Answer with the activity type only.")
    assert text_lib.count_qualifier("How many hiking activities did I do this week?") == "hiking"
    assert text_lib.count_qualifier("How many tasks do I have due next week in Tasks app?") == ""
    assert text_lib.count_qualifier("How many high priority tasks do I have?") == ""


def test_upstreams_app_names_reach_their_apps():
    for name, app in (
        ("the Joplin app", "Joplin"),
        ("the OsmAnd maps app", "OsmAnd"),
        ("the OpenTracks app", "OpenTracks"),
    ):
        assert (
            text_lib.find_apps(f"What quantity of flour do I need for the recipe in {name}?")[0]
            == app
        )
