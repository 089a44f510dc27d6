"""The offline (no-model) roles: goal parsing, planning, grounding, rule-based votes, boundary."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from android_world.agents.custom.celil_protocols import (
    ActionGenerator,
    ElementSelector,
    FailureContext,
    Observation,
    Planner,
    ProposedAction,
    Verifier,
)
from android_world.agents.custom.offline_roles import offline, offline_screen, offline_text
from android_world.env import json_action, representation_utils

REPO = Path(__file__).resolve().parents[2]
CUSTOM = REPO / "android_world" / "agents" / "custom"
OFFLINE_FILES = sorted((CUSTOM / "offline_roles").glob("offline*.py"))
SETTINGS = "com.android.settings/.Settings"


def el(
    text: str | None = None,
    box: tuple[int, int, int, int] = (0, 1080, 500, 600),
    *,
    desc: str | None = None,
    hint: str | None = None,
    cls: str = "android.widget.TextView",
    clickable: bool = True,
    editable: bool = False,
    checkable: bool = False,
    checked: bool | None = None,
    scrollable: bool = False,
) -> representation_utils.UIElement:
    x0, x1, y0, y1 = box
    return representation_utils.UIElement(
        text=text,
        content_description=desc,
        hint_text=hint,
        class_name=cls,
        bbox_pixels=representation_utils.BoundingBox(x0, x1, y0, y1),
        is_clickable=clickable,
        is_editable=editable,
        is_checkable=checkable,
        is_checked=checked,
        is_scrollable=scrollable,
        is_enabled=True,
        is_visible=True,
    )


def obs(elements, activity: str = SETTINGS) -> Observation:
    return Observation(
        screenshot=np.zeros((4, 4, 3), dtype=np.uint8),
        ui_elements=list(elements),
        ocr_lines=[],
        ocr_summary="",
        ui_tree_summary="",
        screen_size=(1080, 2400),
        frame_hash="x",
        foreground_activity=activity,
    )


def context(goal: str, steps: list[str] = ()) -> str:
    lines = [f"Task goal: {goal}", "Plan:", "  1. [current] something"]
    if steps:
        lines += ["Recent steps:", *steps]
    return "\n".join(lines)


# --- no task knowledge, plugin boundary ---------------------------------------------------------


def test_offline_modules_name_no_registered_task_and_import_nothing_task_related():
    from android_world.task_evals import registry

    names = list(registry.TaskRegistry().get_registry())
    assert len(names) >= 10 and OFFLINE_FILES
    for path in OFFLINE_FILES:
        source = path.read_text()
        lowered = source.casefold()
        for name in names:
            assert name.casefold() not in lowered, f"{path.name} names task {name}"
        for node in ast.walk(ast.parse(source)):
            modules = []
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            for module in modules:
                assert not re.search(r"task_eval|env\.sim|env\.device|config|suite", module), (
                    f"{path.name} imports {module}"
                )


def test_roles_meet_the_protocols_and_the_factory_signature():
    roles = offline.build_offline_roles(threshold=6.5, irreversible_threshold=9.0)
    assert isinstance(roles.planner, Planner)
    assert isinstance(roles.action_generator, ActionGenerator)
    assert isinstance(roles.verifier, Verifier)
    assert isinstance(roles.element_selector, ElementSelector)
    assert roles.verifier.threshold == 6.5 and roles.source == "offline"
    # celil_factory builds each role as cls(**kwargs) or cls().
    offline.OfflineVerifier(threshold=7.0, irreversible_threshold=8.5)
    offline.OfflinePlanner()
    offline.OfflineActionGenerator()


# --- goal text ----------------------------------------------------------------------------------


def test_goal_parsing_finds_apps_toggles_levels_and_negations():
    info = offline_text.parse_goal("Turn off WiFi, then enable bluetooth")
    assert info.apps == ["Settings"]
    assert [(s.lower(), v) for s, v in info.toggles] == [("wifi", False), ("bluetooth", True)]
    assert offline_text.parse_goal("Turn brightness to the max value.").levels == [
        ("brightness", "max")
    ]
    timer = offline_text.parse_goal(
        "Create a timer with 1 hours, 2 minutes, and 3 seconds. Do not start the timer."
    )
    assert (
        timer.duration == (1, 2, 3) and timer.forbidden == ["start"] and "start" not in timer.verbs
    )
    assert offline_text.find_apps("Take one photo.") == ["Camera"]
    assert offline_text.find_apps("Create a new note in Markor named a.md") == ["Markor"]
    assert offline_text.find_apps("Record the stopwatch lap") == ["Clock"]


def test_goal_parsing_reads_field_values_in_several_shapes():
    fields = dict(
        offline_text.parse_fields(
            "Create a new contact for Ada Lovelace. Their number is +15550001111."
        )
    )
    assert fields == {"name": "Ada Lovelace", "phone": "+15550001111"}
    kv = dict(
        offline_text.parse_fields(
            "Add the following items:\nItem: Lamp\n amount_dollars: $12.50\n category_name: Home\n",
            "item",
        )
    )
    assert kv == {"name": "Lamp", "amount": "12.50", "category": "Home"}
    table = dict(offline_text.parse_fields("Add:\nname|amount_dollars\nLamp|$3\n"))
    assert table == {"name": "Lamp", "amount": "3"}
    sms = dict(
        offline_text.parse_fields(
            "Reply to +15551234567 with message: Hi there. in Simple SMS Messenger"
        )
    )
    assert sms["message"] == "Hi there." and sms["phone"] == "+15551234567"


def test_similarity_is_fuzzy_but_not_loose():
    assert offline_text.label_relevance([("wifi", 1.0)], "Wi-Fi") >= 1.0
    assert offline_text.label_relevance([("contact", 1.0)], "Contacts") >= 1.0
    assert offline_text.label_relevance([("wifi", 1.0)], "Battery") == 0.0
    assert not offline_text.phrase_in("on", "phone")
    assert offline_text.value_in_goal("555-0101", "call 555-0101 now")


# --- planner ------------------------------------------------------------------------------------


def test_planner_writes_coarse_clause_plans_labelled_offline():
    planner = offline.OfflinePlanner()
    plan = planner.generate_initial_plan("Turn off WiFi, then enable bluetooth", obs([]), None)
    assert plan.sub_goals == ["Open Settings", "Turn WiFi off", "Turn bluetooth on"]
    assert plan.source == "offline" and plan.rationale.startswith("[offline]")
    contact = planner.generate_initial_plan(
        "Create a new contact for Ada Lovelace. Their number is +15550001111.", obs([]), None
    )
    assert contact.sub_goals == [
        "Open Contacts",
        "Start a new contact",
        "Enter 'Ada Lovelace' as the name",
        "Enter '+15550001111' as the phone",
        "Tap Save",
    ]
    reused = planner.generate_initial_plan("x", obs([]), ["A", "B"])
    assert reused.sub_goals == ["A", "B"] and reused.source == "offline"


def test_corrective_plan_keeps_the_unfinished_part_and_adds_a_recovery_step():
    planner = offline.OfflinePlanner()
    ctx = FailureContext(
        goal="Turn wifi off.",
        plan=["Open Settings", "Turn wifi off"],
        done_sub_goals=["Open Settings"],
        failed_sub_goal="Turn wifi off",
        action="click",
        reasons=["loop"],
        observation=obs([], activity="com.google.android.apps.nexuslauncher/.Launcher"),
        kind="post_check_failed",
    )
    plan = planner.generate_corrective_plan(ctx)
    assert plan.sub_goals[0].startswith("Reopen Settings") and plan.sub_goals[1] == "Turn wifi off"
    assert plan.source == "offline" and plan.rationale.startswith("[offline]")


def test_progress_check_reads_switch_state_and_answers_only_questions():
    planner = offline.OfflinePlanner()
    on = obs(
        [
            el(
                "ON",
                (900, 1040, 500, 600),
                desc="Wi-Fi",
                cls="android.widget.Switch",
                checkable=True,
                checked=True,
            )
        ]
    )
    assert planner.is_sub_goal_done("Turn wifi on.", "Turn wifi on", on, "")
    assert not planner.is_sub_goal_done("Turn wifi off.", "Turn wifi off", on, "")
    assert planner.answer_question("Turn wifi on.", on, "") is None
    events = obs(
        [el("Dentist appointment", (0, 1080, 500, 600), clickable=False)], activity="cal/.Main"
    )
    answer = planner.answer_question(
        "What is my dentist appointment in Simple Calendar Pro?", events, ""
    )
    assert answer == "Dentist appointment"


# --- executor -----------------------------------------------------------------------------------


def settings_home():
    return obs(
        [
            el("Network & internet", (168, 1044, 484, 544), clickable=False),
            el("Mobile, Wi-Fi, hotspot", (168, 1044, 544, 596), clickable=False),
            el("Battery", (168, 1044, 684, 744), clickable=False),
        ]
    )


def test_executor_taps_the_best_match_then_the_next_candidate_after_a_rejection():
    executor = offline.OfflineActionGenerator()
    ctx = context("Turn wifi off.")
    first = executor.generate_action("Turn wifi off", settings_home(), ctx)
    assert first.action.action_type == "click" and first.action.index == 1
    assert first.thought.startswith("[offline]")
    executor.discard_last_turn()
    second = executor.generate_action("Turn wifi off", settings_home(), ctx)
    assert second.action.index == 0  # "Network & internet" via the related word "internet"


def test_executor_flips_a_switch_toward_the_wanted_state_and_finishes_when_there():
    executor = offline.OfflineActionGenerator()
    off = obs(
        [
            el(
                "OFF",
                (900, 1040, 500, 600),
                desc="Use Bluetooth",
                cls="android.widget.Switch",
                checkable=True,
                checked=False,
            )
        ]
    )
    proposal = executor.generate_action("Turn bluetooth on", off, context("Turn bluetooth on."))
    assert proposal.action.action_type == "click" and proposal.action.index == 0
    on = obs(
        [
            el(
                "ON",
                (900, 1040, 500, 600),
                desc="Use Bluetooth",
                cls="android.widget.Switch",
                checkable=True,
                checked=True,
            )
        ]
    )
    done = executor.generate_action("Turn bluetooth on", on, context("Turn bluetooth on."))
    assert done.sub_goal_finished and done.action is None


def test_executor_fills_the_field_whose_hint_matches_the_slot_and_splits_names():
    form = obs(
        [
            el(
                None,
                (0, 1080, 560, 710),
                hint="First name",
                cls="android.widget.EditText",
                editable=True,
            ),
            el(
                None,
                (0, 1080, 710, 860),
                hint="Last name",
                cls="android.widget.EditText",
                editable=True,
            ),
            el(
                None,
                (0, 1080, 860, 1010),
                hint="Phone",
                cls="android.widget.EditText",
                editable=True,
            ),
        ],
        activity="com.google.android.contacts/.Editor",
    )
    goal = "Create a new contact for Ada Lovelace. Their number is +15550001111."
    executor = offline.OfflineActionGenerator()
    phone = executor.generate_action("Enter '+15550001111' as the phone", form, context(goal))
    assert phone.action.action_type == "input_text" and phone.action.index == 2
    assert phone.action.text == "+15550001111"
    name = executor.generate_action("Enter 'Ada Lovelace' as the name", form, context(goal))
    assert (name.action.index, name.action.text) == (0, "Ada")


def test_executor_drags_a_slider_and_scrolls_when_nothing_matches():
    executor = offline.OfflineActionGenerator()
    slider = obs(
        [el("40%", (0, 1080, 512, 652), desc="Brightness level", cls="android.widget.SeekBar")]
    )
    proposal = executor.generate_action(
        "Set brightness to max", slider, context("Turn brightness to the max value.")
    )
    assert proposal.action.action_type == "scroll" and proposal.action.direction == "left"
    long_list = obs(
        [
            el(
                None,
                (0, 1080, 300, 2268),
                clickable=False,
                scrollable=True,
                cls="androidx.recyclerview.widget.RecyclerView",
            )
        ]
        + [el(f"Row {i}", (0, 1080, 300 + 200 * i, 500 + 200 * i)) for i in range(10)]
    )
    scroll = executor.generate_action("Turn wifi off", long_list, context("Turn wifi off."))
    assert scroll.action.action_type == "scroll" and scroll.action.direction == "down"


# --- verifier -----------------------------------------------------------------------------------


def test_verifier_scores_with_the_three_personas_and_their_weights():
    verifier = offline.OfflineVerifier()
    screen = settings_home()
    ctx = context("Turn wifi off.")
    good = ProposedAction(json_action.JSONAction(action_type="click", index=1))
    score, votes = verifier.verify_action("Turn wifi off", good, screen, ctx)
    assert [v.persona for v in votes] == ["Pragmatist", "Skeptic", "Efficiency Expert"]
    assert all(v.reasoning.startswith("[offline]") for v in votes)
    weighted = 0.4 * votes[0].score + 0.5 * votes[1].score + 0.1 * votes[2].score
    assert score == pytest.approx(weighted, abs=1e-3) and score >= 7.0
    off_topic = ProposedAction(json_action.JSONAction(action_type="click", index=2))
    assert verifier.verify_action("Turn wifi off", off_topic, screen, ctx)[0] < 7.0


def test_skeptic_blocks_typing_outside_fields_repeats_and_unasked_irreversible_taps():
    verifier = offline.OfflineVerifier()
    screen = obs(
        [el("Delete", (0, 300, 500, 600)), el("Title", (0, 1080, 700, 800), clickable=False)]
    )
    typing = ProposedAction(json_action.JSONAction(action_type="input_text", index=1, text="Ada"))
    _, votes = verifier.verify_action(
        "Enter 'Ada' as the name", typing, screen, context("Add contact Ada")
    )
    assert votes[1].score <= 2.0
    delete = ProposedAction(json_action.JSONAction(action_type="click", index=0))
    unasked, _ = verifier.verify_action("Tap Delete", delete, screen, context("Open the notes"))
    asked, _ = verifier.verify_action("Tap Delete", delete, screen, context("Delete the note"))
    assert unasked < 7.0 and asked >= 8.5
    repeat_ctx = context(
        "Delete the note",
        [
            'step 2: [Tap Delete] click on element [0] TextView "Delete" -> failed: the screen did not change'
        ],
    )
    _, votes = verifier.verify_action("Tap Delete", delete, screen, repeat_ctx)
    assert votes[1].score <= 3.0


def test_history_and_goal_are_read_back_from_the_context_summary():
    ctx = 'Task goal: Add:\nname: X\n\nPlan:\n  1. [done] a\nRecent steps:\nstep 3: [Tap Save] click on element [5] Button "Save" -> ok (verifier 9.2)'
    assert offline_screen.goal_from_context(ctx) == "Add:\nname: X"
    (step,) = offline_screen.parse_history(ctx)
    assert step.step == 3 and step.sub_goal == "Tap Save" and step.ok


# --- pop-ups an app shows on its own ------------------------------------------------------------


def _whats_new_over_a_calendar() -> Observation:
    return obs(
        [
            el("October 2023", (0, 1080, 200, 300), clickable=False),
            el("Team lunch", (0, 1080, 400, 500)),
            el("What's new in Simple Calendar Pro", (100, 980, 900, 1000), clickable=False),
            el("A fresh look and many small fixes.", (100, 980, 1000, 1200), clickable=False),
            el("Got it", (700, 980, 1250, 1350), cls="android.widget.Button"),
        ],
        activity="com.simplemobiletools.calendar.pro/.activities.MainActivity",
    )


def test_a_pop_up_is_closed_before_reading_and_never_taken_for_the_answer():
    # Found under the `dialogs` sim profile: the question was answered with the pop-up's title.
    executor = offline.OfflineActionGenerator()
    goal = "What is my next upcoming event in Simple Calendar Pro? Answer with the title only."
    screen_now = _whats_new_over_a_calendar()
    assert offline_screen.interruption_button(screen_now) == 4
    proposed = executor.generate_action(
        "Find the information the question asks for", screen_now, context(goal)
    )
    assert proposed.action.action_type == "click" and proposed.action.index == 4
    assert not proposed.sub_goal_finished and "pop-up" in proposed.thought
    verifier = offline.OfflineVerifier()
    score, _ = verifier.verify_action("Find the information", proposed, screen_now, context(goal))
    assert score >= verifier.threshold
    # A "Got it" that belongs to the app's content (no pop-up title) is not a pop-up.
    plain = obs([el("Tips", (0, 1080, 200, 300), clickable=False), el("Got it", cls="Button")])
    assert offline_screen.interruption_button(plain) is None


def test_a_step_that_declined_a_pop_up_does_not_count_for_the_sub_goal():
    # Found under `dialogs`: "Open the most recent conversation" was taken as done because the
    # step that closed the notification pop-up "went through" for it; the reply went nowhere.
    step = offline_screen.PastStep(
        2, "Open the most recent conversation", 'click on element [5] Button "Don\'t allow"', "ok"
    )
    assert offline_screen.closed_interruption(step, "open the most recent conversation")
    assert not offline_screen.closed_interruption(step, "tap don t allow")
    saved = offline_screen.PastStep(3, "Save the note", 'click on element [9] Button "Save"', "ok")
    assert not offline_screen.closed_interruption(saved, "save the note")


def test_a_value_never_goes_into_an_empty_field_named_for_something_else():
    # Found on the large sim screen: a recipe's directions were typed into "Source", the only
    # empty field left, and Save was claimed done; a contact's phone label went into "Email".
    executor = offline.OfflineActionGenerator()
    form = obs(
        [
            el(
                None,
                (0, 1080, 300, 400),
                hint="Title",
                cls="android.widget.EditText",
                editable=True,
            ),
            el(
                None,
                (0, 1080, 420, 520),
                hint="Source",
                cls="android.widget.EditText",
                editable=True,
            ),
        ],
        activity="com.flauschcode.broccoli/.MainActivity",
    )
    form.ui_elements[0].text = "Pancakes"
    goal = "Add a recipe in Broccoli: title Pancakes, directions Mix and fry."
    proposed = executor.generate_action(
        "Enter 'Mix and fry.' as the directions", form, context(goal)
    )
    assert proposed.action is None or proposed.action.index != 1
    unnamed = obs(
        [el(None, (0, 1080, 420, 520), cls="android.widget.EditText", editable=True)],
        activity="com.flauschcode.broccoli/.MainActivity",
    )
    proposed = offline.OfflineActionGenerator().generate_action(
        "Enter 'Mix and fry.' as the directions", unnamed, context(goal)
    )
    assert proposed.action.action_type == "input_text" and proposed.action.index == 0


@pytest.mark.parametrize(
    "goal",
    [
        "Please add the recipes from the Markor note recipes.txt to Broccoli.",
        "In Markor, open my_expenses.txt; every reimbursable one should be recorded in pro expense.",
        "Delete the recipes from Broccoli app that use olives in the directions.",
    ],
)
def test_goals_the_offline_steps_cannot_read_are_not_understood(goal):
    """These ended `complete` with some other task done (paraphrase benchmark, task seed 3)."""
    info = offline_text.parse_goal(goal)
    assert offline.not_understood(info, ["Open Broccoli"]) is not None


def test_the_clipboard_is_pasted_not_typed():
    plan = offline.OfflinePlanner().generate_initial_plan(
        "In Markor, add a note called 'fish.md' containing the clipboard's text.", obs([]), None
    )
    assert not any("clipboard" in s and s.startswith("Enter") for s in plan.sub_goals)
    assert any(s.startswith("Paste") for s in plan.sub_goals)
