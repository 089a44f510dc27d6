"""Generic phone skills of the offline roles added in phase 2: moving an item between folders,
the overflow menu, lists that hide a clipped row, and goals that span two apps."""

from __future__ import annotations

from test_offline_roles import context, el, obs

from android_world.agents.custom.celil_protocols import ProposedAction
from android_world.agents.custom.offline_roles import offline, offline_screen, offline_text
from android_world.env import json_action

FILES = "com.android.documentsui/.files.FilesActivity"
MOVE_GOAL = (
    "Move the file notes.pdf from Download within the phone storage to the Documents folder."
)


def test_move_goals_become_open_select_move_plans():
    info = offline_text.parse_goal(MOVE_GOAL)
    assert info.move == ("notes.pdf", "Download", "Documents")
    plan, _ = offline.build_plan(info)
    assert plan == [
        "Open Files",
        "Tap 'Download'",
        "Select 'notes.pdf'",
        "Tap Move to",
        "Tap 'Documents'",
        "Tap Move",
    ]
    assert offline_text.move_request("Move on to the next step") is None


def test_select_is_a_long_press_and_done_once_it_went_through():
    screen = obs([el("notes.pdf", (0, 1080, 600, 700))], FILES)
    executor = offline.OfflineActionGenerator(goal=MOVE_GOAL)
    proposal = executor.generate_action("Select 'notes.pdf'", screen, context(MOVE_GOAL))
    assert proposal.action.action_type == json_action.LONG_PRESS and proposal.action.index == 0
    done = context(
        MOVE_GOAL, ["step 3: [Select 'notes.pdf'] long_press on element [0] 'notes.pdf' -> ok"]
    )
    again = executor.generate_action("Select 'notes.pdf'", screen, done)
    assert again.sub_goal_finished


def test_an_action_missing_from_the_screen_is_looked_for_in_the_overflow_menu():
    screen = obs(
        [
            el("notes.pdf", (0, 1080, 600, 700)),
            el(None, (924, 1068, 128, 272), desc="More options", cls="android.widget.ImageButton"),
        ],
        FILES,
    )
    executor = offline.OfflineActionGenerator(goal=MOVE_GOAL)
    proposal = executor.generate_action("Tap Move to", screen, context(MOVE_GOAL))
    assert proposal.action.action_type == json_action.CLICK and proposal.action.index == 1
    # The verifiers accept it because nothing on the screen names the wanted control.
    score, _ = offline.OfflineVerifier().verify_action(
        "Tap Move to", proposal, screen, context(MOVE_GOAL)
    )
    assert score >= 7.0
    named = obs([*screen.ui_elements, el("Move to…", (0, 1080, 300, 400))], FILES)
    menu = ProposedAction(json_action.JSONAction(action_type="click", index=1))
    score, _ = offline.OfflineVerifier().verify_action(
        "Tap Move to", menu, named, context(MOVE_GOAL)
    )
    assert score < 7.0  # the control is on screen: the menu is a detour


def _rows(count: int, top: int = 500, pitch: int = 200) -> list:
    rows = []
    for n in range(count):
        y = top + n * pitch
        rows.append(el(f"Item {n}", (48, 760, y + 40, y + 100), clickable=False))
        rows.append(el(f"Detail {n}", (48, 760, y + 100, y + 150), clickable=False))
    return rows


def test_a_list_whose_next_row_would_not_fit_may_have_more_below():
    listing = el(None, (0, 1080, 480, 2268), clickable=False, scrollable=True)
    full = obs([listing, *_rows(8)])  # rows end at 2050; a ninth would end near 2300
    assert offline_screen.repeated_rows([e.bbox_pixels for e in _rows(8)]) == (200.0, 1940.0)
    assert offline_screen.more_below(full) == 0
    short = obs([listing, *_rows(3)])  # plenty of room left: the list has ended
    assert offline_screen.more_below(short) is None


def test_a_goal_across_two_apps_is_planned_per_app_and_shares_the_text():
    goal = (
        "Create a new note in Markor named plan.txt with the following text: Buy milk.. "
        "Share the entire content of the note with the phone number +15550100 via SMS "
        "using Simple SMS Messenger"
    )
    plan, rationale = offline.build_plan(offline_text.parse_goal(goal))
    assert plan == [
        "Open Markor",
        "Start a new note",
        "Enter 'plan.txt' as the name",
        "Enter 'Buy milk.' as the text",
        "Tap Save",
        "Open Simple SMS Messenger",
        "Start a new message",
        "Enter '+15550100' as the phone",
        "Enter 'Buy milk.' as the message",
        "Tap Send",
    ]
    assert "one part per app" in rationale
    # One app (another implied by a setting) keeps the single plan.
    single, _ = offline.build_plan(offline_text.parse_goal("Turn on Wi-Fi and open Contacts."))
    assert single == ["Open Settings", "Turn Wi-Fi on", "Open Contacts"]


def test_a_list_emptied_by_a_delete_shows_its_empty_message_not_a_dialog_button():
    empty = obs([el("No upcoming events", clickable=False)], "com.simplemobiletools.calendar.pro")
    assert offline_screen.shows_empty_list(empty)
    assert offline_screen.shows_empty_list(obs([el("The folder is empty", clickable=False)]))
    assert not offline_screen.shows_empty_list(obs([el("No thanks", cls="android.widget.Button")]))
    assert not offline_screen.shows_empty_list(obs([el("No", clickable=False)]))
    assert not offline_screen.shows_empty_list(obs([el("Notes for today", clickable=False)]))


def test_typed_words_do_not_name_a_generic_sub_goal():
    """'Do the whole task' is not named by a typed 'do as the Romans do': a function word is
    no evidence (this marked a note done before it was saved)."""
    goal = "Create a new note in Markor named a.txt with the following text: do as they do."
    steps = [
        'step 4: [Do the whole task as asked] input_text on element [9] EditText "Write" '
        "text='When in Rome, do as the Romans do.' -> ok (verifier 9.0)"
    ]
    screen = obs([el("When in Rome, do as the Romans do.", editable=True)], "net.gsantner.markor")
    verdict = offline.OfflinePlanner().check_sub_goal(
        goal, "Do the whole task as asked", screen, context(goal, steps)
    )
    assert not (verdict.done and verdict.kind in ("screen", "transition"))
