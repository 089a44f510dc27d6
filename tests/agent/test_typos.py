"""A typed text that copies the goal's words with a slip is refused before it runs
(celil_typos): the goal's own spelling is the evidence, and a text the goal does not give, or
gives exactly, is never refused by it."""

from __future__ import annotations

import pytest
from test_call_budget import _element, _obs, _proposal

from android_world.agents.custom.celil_protocols import VerificationDetails, Vote
from android_world.agents.custom.loop.celil_events import EventLog
from android_world.agents.custom.loop.celil_gate import Gate
from android_world.agents.custom.loop.celil_loop_settings import LoopSettings
from android_world.agents.custom.loop.celil_step_data import StepData
from android_world.agents.custom.loop.celil_typos import near_copy, typo_refusal

EVENT = (
    "In Simple Calendar Pro, create a calendar event in two weeks from today at 16h with the"
    " title 'Review session for Budget Planning' and the description 'We will review upcoming"
    " project milestones. Snacks will be provided.'. The event should last for 60 mins."
)
RECIPES = (
    "Add the following recipes into the Broccoli app:\n"
    "title|description|servings|preparationTime|ingredients|directions\n"
    "Thai Peanut Noodle Salad|A delicious and healthy choice for any time of the day.|"
    "2 servings|3 hrs|as desired|Toss cooked noodles with a Thai peanut sauce.\n"
)


@pytest.mark.parametrize(
    "goal, typed, meant",
    [
        (EVENT, "Review session for Budget Plannign", "Review session for Budget Planning"),
        (
            EVENT,
            "We will review upcoming project milestones. Snacks will be provide.d",
            "We will review upcoming project milestones. Snacks will be provided.",
        ),
        (EVENT, "Snacks wil be provided", "Snacks will be provided"),
        (RECIPES, "2 servinsg", "2 servings"),
        (RECIPES, "3 hsr", "3 hrs"),
        (RECIPES, "Thai Peanut Noodle Slaad", "Thai Peanut Noodle Salad"),
    ],
)
def test_a_near_copy_of_the_goals_words_is_found(goal, typed, meant):
    assert near_copy(goal, typed) == meant


@pytest.mark.parametrize(
    "goal, typed",
    [
        (EVENT, "Review session for Budget Planning"),  # the goal's words exactly
        (EVENT, "review  session"),  # case and spacing aside, exactly
        (EVENT, "Budge"),  # a part of a word the goal gives (typing in progress)
        (EVENT, "16:00"),  # another format of a value: no letters to slip on
        (RECIPES, "45 mins"),  # a value the goal does not give at all
        (RECIPES, "Baked Cod with Lemon and Dill"),  # read off the screen, not the goal
        (RECIPES, "2 serving"),  # a part of "2 servings" (typing in progress)
        (RECIPES, "Pro"),  # too short to tell a slip from another word
        ("Add an expense of $67.41", "67.41"),
        ("Add the contact with number 555-0123", "5550123"),
    ],
)
def test_the_goals_words_or_other_texts_are_no_near_copy(goal, typed):
    assert near_copy(goal, typed) is None


class _Verifier:
    def __init__(self, mode: str = "majority") -> None:
        self.asked = 0
        self.mode = mode

    def verification_details(self) -> VerificationDetails:
        return VerificationDetails(self.mode, 7.0, None, [], [])

    def vote_unneeded(self, goal, sub_goal, proposed, observation, cautious=False):
        return None

    def verify_action(self, sub_goal, proposed, observation, context):
        self.asked += 1
        return 9.0, [Vote(p, 9.0, "fits") for p in ("Pragmatist", "Skeptic")]


def _decide(typed: str, mode: str = "majority"):
    verifier = _Verifier(mode)
    field = _element("Title", cls="android.widget.EditText", is_editable=True)
    proposal = _proposal(action_type="input_text", index=0, text=typed)
    gate = Gate(verifier, LoopSettings())
    decision = gate.decide(
        EVENT, "Type the title", [], proposal, _obs(field), "", EventLog(), StepData(EVENT)
    )
    return decision, verifier


def test_the_gate_refuses_a_slip_without_asking_and_says_the_goals_spelling():
    decision, verifier = _decide("Reveiw session for Budget Planning")
    assert not decision.passed and decision.refused
    assert verifier.asked == 0
    assert "'Review session for Budget Planning'" in decision.reasons()[0]
    assert decision.reasons()[0].startswith("refused: ")


def test_the_gate_votes_on_the_goals_words_as_before():
    decision, verifier = _decide("Review session for Budget Planning")
    assert decision.passed and not decision.refused
    assert verifier.asked == 1


def test_a_tap_is_never_a_typo():
    assert typo_refusal(EVENT, _proposal(action_type="click", index=0)) is None


def test_with_verification_off_nothing_is_refused_for_a_slip():
    decision, _ = _decide("Reveiw session for Budget Planning", mode="off")
    assert not decision.refused


@pytest.mark.parametrize(
    "goal, typed",
    [
        ("word " * 20000, "wordd word"),  # the text's pieces occur everywhere in the goal
        ("ab" * 50000, "abababababx"),
        ("Title: " + "note " * 40, "note " * 30 + "nte"),  # a paragraph, not a value
    ],
    ids=["a word repeated", "a pair repeated", "a paragraph"],
)
def test_a_goal_that_repeats_itself_or_a_paragraph_is_left_to_the_votes(goal, typed):
    # Without the bounds the first case compares ~40,000 stretches (seconds, and more for
    # longer answers); with them it is refused as a search and answers None at once.
    assert near_copy(goal, typed) is None
