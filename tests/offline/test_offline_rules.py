"""The offline roles' rules as data: one test per sub-goal rule (`offline_intent.RULES`), per
goal-shape plan rule (`handlers.PLAN_RULES`) and per rewrite rule of the free-wording reader
(`offline_restate._SYNONYMS`), and the intent table covering every kind."""

from __future__ import annotations

import re

import pytest

from android_world.agents.custom.offline_roles import offline_intent, offline_restate, offline_text
from android_world.agents.custom.offline_roles.handlers import FAMILIES, HANDLERS, PLAN_RULES
from android_world.agents.custom.offline_roles.offline_common import object_word
from android_world.agents.custom.offline_roles.offline_handler import PlanDraft
from android_world.agents.custom.offline_roles.offline_planner import build_plan

GOAL = offline_text.parse_goal("Create a new note in Markor named todo.md with the text: milk")

# Rule name -> (sub-goal as the planner writes it, what the intent must carry).
SUB_GOALS: dict[str, tuple[str, dict[str, object]]] = {
    "open": ("Reopen Markor (attempt 2)", {"kind": "open", "app": "Markor"}),
    "back": ("Go back (attempt 1)", {"kind": "back"}),
    "when": (
        "Set the end time to 30 minutes after the start",
        {"kind": "when", "subject": "end time", "value": "30 minutes after the start"},
    ),
    "clear": ("Delete every note", {"kind": "clear", "subject": "note"}),
    "delete_all": (
        "Delete every event on October 20 2023",
        {"kind": "delete_all", "subject": "event", "value": "October 20 2023"},
    ),
    "search": ("Search for 'Team lunch'", {"kind": "search", "value": "Team lunch"}),
    "open_item": ("Open 'Team lunch'", {"kind": "open_item", "subject": "Team lunch"}),
    "read_date": ("Read today's date on the Clock", {"kind": "read_date"}),
    "permission": ("Allow any permission requests", {"kind": "permission"}),
    "level": ("Set brightness to max", {"kind": "level", "subject": "brightness"}),
    "toggle": ("Turn wifi off", {"kind": "toggle", "subject": "wifi", "state": False}),
    "fill": (
        "Enter 'Ann Lee' as the name (second)",
        {"kind": "fill", "field": "name", "value": "Ann Lee"},
    ),
    "append": (
        "Append 'milk' to the text",
        {"kind": "append", "field": "text", "value": "milk"},
    ),
    "prepend": (
        "Prepend 'milk' to the text",
        {"kind": "prepend", "field": "text", "value": "milk"},
    ),
    "delete": ("Delete 'notes.txt'", {"kind": "delete", "subject": "notes.txt"}),
    "select": ("Select 'notes.txt'", {"kind": "select", "subject": "notes.txt"}),
    "keypad": (
        "Set the duration to 1 hours 5 minutes 0 seconds",
        {"kind": "keypad", "value": "10500"},
    ),
    "first_item": ("Open the most recent conversation", {"kind": "first_item"}),
    "new": ("Start a new contact", {"kind": "new", "subject": "contact"}),
    "find": (
        "Find the information the question asks for",
        {"kind": "find", "value": GOAL.goal},
    ),
    "paste": ("Paste the clipboard into the text", {"kind": "paste"}),
    "tap": ("Tap Save (first)", {"kind": "tap", "subject": "Save"}),
}


def test_every_sub_goal_rule_has_its_test_and_every_pattern_its_rule():
    names = [rule.name for rule in offline_intent.RULES]
    assert sorted(names) == sorted(SUB_GOALS)
    assert set(offline_intent.PATTERNS) | set(offline_intent.PREFIXES) <= set(names)


@pytest.mark.parametrize("name", sorted(SUB_GOALS))
def test_sub_goal_rule(name):
    sub_goal, wanted = SUB_GOALS[name]
    intent = offline_intent.parse_sub_goal(sub_goal, GOAL)
    assert {key: getattr(intent, key) for key in wanted} == wanted
    assert intent.sub_goal == sub_goal
    # The named rule is the first that reads it (an earlier rule would shadow it).
    text = offline_intent._ROUND.sub("", sub_goal.rstrip("."))
    first = next(r.name for r in offline_intent.RULES if r.read(sub_goal, text, GOAL))
    assert first == name


def test_other_wording_is_a_generic_intent():
    intent = offline_intent.parse_sub_goal("Do the whole task as asked", GOAL)
    assert (intent.kind, intent.subject) == ("generic", "Do the whole task as asked")


# Plan rule name -> (goal, sub-goals its plan must hold, in this order).
PLANS: dict[str, tuple[str, list[str]]] = {
    "question": (
        "What is on my schedule for October 20 2023 in Simple Calendar Pro? Answer with titles.",
        ["Open Simple Calendar Pro", "Find the information the question asks for"],
    ),
    "move": (
        "Move the file holiday_photos.jpg from Downloads to Pictures in Files.",
        ["Tap 'Downloads'", "Select 'holiday_photos.jpg'", "Tap Move to", "Tap 'Pictures'"],
    ),
    "delete_day": (
        "Delete all the events on October 20 2023 in Simple Calendar Pro.",
        ["Delete every event on October 20 2023"],
    ),
    "clear": ("Delete all my notes in Markor.", ["Open Markor", "Delete every note"]),
    "delete": (
        "Delete the following recipes from Broccoli app: Chicken Curry, Beef Stew.",
        ["Delete 'Chicken Curry'", "Delete 'Beef Stew'"],
    ),
    "duration": (
        "Set a timer for 1 hours 5 minutes 0 seconds in the Clock app. Do not start the timer.",
        ["Tap Timer", "Set the duration to 1 hours 5 minutes 0 seconds"],
    ),
    "edit": (
        "Edit the note shopping.md in Markor: add 'milk' at the end.",
        ["Tap 'shopping.md'", "Append 'milk' to the text", "Tap Save"],
    ),
    "reply": (
        "Reply to +15550100199 with the message 'On my way' in Simple SMS Messenger.",
        ["Tap '+15550100199'", "Enter 'On my way' as the message", "Tap Send"],
    ),
    "records": (
        "Add the following recipes into the Broccoli app:\ntitle|description|servings\n"
        "Lentil Soup|A quick meal.|2 servings\nKale Salad|Fresh.|4 servings\n",
        ["Start a new recipe (first)", "Tap Save (first)", "Start a new recipe (second)"],
    ),
    "form": (
        "Create a new contact for Ann Lee. Her number is +15550100123.",
        ["Start a new contact", "Enter 'Ann Lee' as the name", "Tap Save"],
    ),
    "media": ("Take a photo using the Camera app.", ["Open Camera", "Take a photo"]),
}


def _first_rule(goal: str) -> str | None:
    info = offline_text.parse_goal(goal)
    verbs = set(info.verbs)
    draft = PlanDraft(
        info=info,
        subs=[],
        max_sub_goals=12,
        verbs=verbs,
        obj=object_word(info),
        forbidden=set(info.forbidden),
        creating=verbs & {"create", "add", "make", "new", "write", "send"},
        fields=dict(info.fields),
    )
    return next((rule.name for rule in PLAN_RULES if rule.write(draft)), None)


def test_every_plan_rule_has_its_test():
    assert sorted(rule.name for rule in PLAN_RULES) == sorted(PLANS)


@pytest.mark.parametrize("name", sorted(PLANS))
def test_plan_rule(name):
    goal, wanted = PLANS[name]
    assert _first_rule(goal) == name
    plan, _ = build_plan(offline_text.parse_goal(goal))
    positions = [plan.index(step) for step in wanted]
    assert positions == sorted(positions), plan


def test_a_goal_no_rule_knows_keeps_its_clauses():
    assert _first_rule("Look around the home screen.") is None
    plan, _ = build_plan(offline_text.parse_goal("Look around the home screen."))
    assert plan == ["Look around the home screen"]


def test_the_table_has_one_handler_per_intent_kind_from_its_family():
    kinds = {rule.name for rule in offline_intent.RULES} | {"generic"}
    assert set(HANDLERS) == kinds
    for family in FAMILIES:
        name = family.__name__.rsplit(".", 1)[-1]
        assert {h.family for h in family.HANDLERS} == {name}
        assert all(rule.family == name for rule in PLAN_RULES if rule in vars(family).values())
    assert {HANDLERS[k].stage for k in ("open", "back", "permission")} == {"first", "prompt"}


# One example per rewrite rule of the free-wording reader (`offline_restate._SYNONYMS`), in the
# rules' order: the wording people use -> the plain order the planner reads.
REWRITES = [
    ("Fire up the Clock app", "open the Clock app"),
    ("Power on bluetooth", "enable bluetooth"),
    ("Get rid of the note", "delete the note"),
    ("Trash the file", "delete the file"),
    ("Snap a photo", "take a photo"),
    ("Relocate the file", "move the file"),
    ("Jot down a note", "add a note"),
    ("Record a new expense", "add a new expense"),
    ("Text +15550100199 hello", "send +15550100199 hello"),
    ("Get the stopwatch running", "start the stopwatch"),
    ("Respond to Ann", "reply to Ann"),
    ("Answer the message", "reply to the message"),
    ("Schedule a meeting", "create a meeting"),
    ("Activate wifi", "enable wifi"),
    ("Open the directory", "Open the folder"),
    ("Cancel the meeting", "delete the meeting"),
    ("Halt the stopwatch", "pause the stopwatch"),
    ("Kick off the timer", "start the timer"),
    ("Bring up settings", "open settings"),
    ("I need the camera open", "open the camera"),
    ("Bluetooth off.", "turn Bluetooth off."),
    ("Max out the brightness", "set brightness to max"),
    ("Proceed to open the app", "open the app"),
    ("Access the Files app", "open the Files app"),
    ("Switch off wifi", "disable wifi"),
]


def test_every_rewrite_rule_has_its_example():
    assert len(REWRITES) == len(offline_restate._SYNONYMS)


@pytest.mark.parametrize("index", range(len(REWRITES)))
def test_rewrite_rule(index):
    pattern, replacement = offline_restate._SYNONYMS[index]
    wording, plain = REWRITES[index]
    assert re.sub(pattern, replacement, wording, flags=re.I) == plain
