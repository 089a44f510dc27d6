"""Issue 26, model path under noise: a planner's "done" counts only with evidence about what it
was asked. Each test here failed before its fix: the scripted model's wrong progress answers
(`benchmarks/scripted_model.py`, `--progress_wrong`) quote a text that is on the screen but
names nothing of the task, and the agent used to take that as the whole goal done."""

from __future__ import annotations

import dataclasses

import celil_fakes as fakes
import pytest

from android_world.agents.custom.celil_protocols import (
    Evidence,
    GoalCheck,
    GoalVerdict,
    Observation,
    Plan,
    TrailStep,
)
from android_world.agents.custom.loop import celil_evidence
from android_world.agents.custom.loop.celil_agent import CelilAgent
from android_world.agents.custom.loop.celil_events import EventLog
from android_world.agents.custom.loop.celil_progress import ProgressJudge
from android_world.agents.custom.loop.celil_step_data import StepData
from android_world.agents.custom.offline_roles import offline_capture, offline_goal
from android_world.agents.custom.offline_roles.offline import OfflinePlanner
from android_world.agents.custom.roles.celil_perception import PerceptionModule
from android_world.env import json_action

MAZE = (
    "Open the file task.html in Downloads in the file manager; when prompted open it with "
    "Chrome. Then navigate the X to the bottom-right cell, by using the direction buttons."
)
MERGE = (
    "Merge the contents of Markor notes tough_frog_2023_08_05.txt, bold_cat.md (in the same "
    "order) into a new Markor note named mIObBbo4 and save it. Add a new line between the "
    "content of each note."
)
TRACK = (
    "Save a track with waypoints Schönberg, Liechtenstein, Triesen, Liechtenstein, Bendern, "
    "Liechtenstein in the OsmAnd maps app in the same order as listed."
)
TIMER = "Create a timer with 0 hours, 16 minutes, and 35 seconds. Do not start the timer."


screen = fakes.labelled_screen


# --- the rule ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ('"Simple Calendar Pro"', MAZE),  # a launcher label, seen while the maze is not solved
        ('"08" is shown', MERGE),  # a piece of a file's date, not a value the goal names
        ('"Start"', TRACK),  # a button on the route screen, before any track is saved
    ],
)
def test_evidence_that_names_nothing_of_the_task_is_not_about_it(text, subject):
    about, why = celil_evidence.relevant(text, [subject, "Do the whole task as asked"])
    assert not about and "names nothing the task names" in why


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ('"00:16:35"', TIMER),  # the timer's digits: numbers the goal names on their own
        ('"mIObBbo4.md"', MERGE),
        ('"Bendern, Liechtenstein"', TRACK),
        ("the Downloads folder lists task.html", MAZE),
    ],
)
def test_evidence_naming_a_value_or_word_of_the_task_is_about_it(text, subject):
    assert celil_evidence.relevant(text, [subject])[0]


# --- the judge -------------------------------------------------------------------------------


class _SaysDone(fakes.ScriptedPlanner):
    reads_screen = False  # a model planner


def _judge(evidence: Evidence) -> ProgressJudge:
    planner = _SaysDone(initial=[Plan([MAZE])], progress=[evidence])
    return ProgressJudge(
        planner, OfflinePlanner(), EventLog(), require_evidence=True, progress_check="screen"
    )


def test_a_planners_done_quoting_an_unrelated_on_screen_text_does_not_end_the_goal():
    # Before: the whole-goal check said "unknown", the planner said done quoting a launcher
    # label that is on the screen, and the agent claimed complete (BrowserMaze, seed 0).
    observation = screen("Simple Calendar Pro", "Chrome", "Files")
    judge = _judge(Evidence(True, '"Simple Calendar Pro"', "model"))
    record = StepData(goal=MAZE)
    unmet = judge.goal_not_shown(MAZE, observation, "", record, own_plan=False)
    assert unmet is not None
    assert record.evidence[-1]["accepted"] is False
    assert "names nothing the task names" in record.evidence[-1]["why"]


def test_a_planners_done_quoting_what_the_task_names_still_ends_the_goal():
    observation = screen("task.html", "Chrome", "You reached the bottom-right cell")
    judge = _judge(Evidence(True, '"task.html", "bottom-right cell"', "model"))
    record = StepData(goal=MAZE)
    assert judge.goal_not_shown(MAZE, observation, "", record, own_plan=False) is None


# --- a step's field and control labels are not values ------------------------------------------

NOTE = (
    "Create a new note in Markor named fair_ant_XOdi.txt with the following text: Actions "
    "speak louder than words."
)
STEP = "Tap 'OK', then enter 'Actions speak louder than words.' in 'Write something…'"


def test_the_labels_a_step_acts_on_are_places_not_values():
    from android_world.agents.custom.loop.celil_progress import place_labels

    assert place_labels(STEP) == {"ok", "write something…"}
    assert place_labels("Enter 'Bob' in 'Name', then tap the 'Save' button") == {"name", "save"}
    assert place_labels("Rename the note to 'b.md'") == set()
    assert place_labels("Create a contact named 'Ann Lee'") == set()


def test_a_filled_fields_vanished_hint_does_not_refuse_a_grounded_done():
    # Before: the planner's right "done" for a fine-grained step quoted the typed text, which is
    # on the screen, and was refused because the field's hint 'Write something…' (gone once the
    # field is filled) was taken for a value the step must show (MarkorCreateNoteAndSms, fine).
    observation = screen("fair_ant_XOdi.txt", "Actions speak louder than words.")
    planner = _SaysDone(initial=[Plan([STEP])])
    judge = ProgressJudge(
        planner, OfflinePlanner(), EventLog(), require_evidence=True, progress_check="screen"
    )
    record = StepData(goal=NOTE)
    verdict = Evidence(True, '"Actions speak louder than words."', "model")
    assert judge.judge(STEP, "executor", verdict, observation, record) is not None
    # A value the step writes is still needed: the same "done" without the text on any screen.
    judge.seen_texts.clear()
    elsewhere = screen("fair_ant_XOdi.txt", "Actions speak louder than words")
    refused = judge.judge(
        STEP, "executor", Evidence(True, '"fair_ant_XOdi.txt"', "model"), elsewhere, record
    )
    assert refused is None


# --- the scripted model's noise, in the loop -----------------------------------------------------


@pytest.mark.slow
def test_a_wrong_done_quoting_a_date_fragment_no_longer_completes_a_gallery_copy():
    # Before (main 2f25a21): under noise, seed 0, the executor said "complete" too early and
    # the planner confirmed it quoting "01" (a piece of receipt_2023_01_22_sure_frog.jpg on the
    # screen); the copy was never saved and the agent claimed complete.
    import scripted_model as sm
    import verifier_value as vv

    rates = sm.Rates(p=0.3, q=0.8, progress_wrong=0.2, plan_style="neutral")
    row = vv.run_row("adaptive", rates, ["SaveCopyOfReceiptTaskEval"], "independent", [0])
    assert row.episodes == 1
    assert row.false_complete == 0, row.failures


def test_relevance_reads_any_text_without_raising():
    # Untrusted model text: superscripts are digits to str.isdigit but no int.
    assert celil_evidence.relevant('"x²" and "²"', ["Set the volume to 2"])[0] is False
    assert celil_evidence.relevant('"٣"', ["Add 3 apples"])[0] is True
    assert celil_evidence.relevant("", [""])[0] is False
    assert celil_evidence.relevant(None, [TIMER])[0] is False


# --- a sentence quoted from the screen is not the model's claim ----------------------------------


def test_a_screen_hint_quoted_as_evidence_is_not_a_claim_that_the_switch_is_on():
    # Before: with vendor wording (Wi-Fi -> WLAN) the whole-goal check cannot read "Turn wifi
    # off", the planner rightly quoted the off screen's hint, and the agent read the hint's
    # "turn WLAN on" as the model saying the switch is on: refused, the task never claimed.
    wlan = fakes.element("WLAN", class_name="android.widget.Switch", box=(0, 500, 300, 390))
    wlan.is_checkable, wlan.is_checked = True, False
    hint = fakes.element("To see available networks, turn WLAN on", box=(0, 500, 400, 490))
    observation = screen()
    observation.ui_elements.extend([wlan, hint])
    ok, why = celil_evidence.ground_text('"To see available networks, turn WLAN on"', observation)
    assert ok, why
    # The model's own words, or a short quote, still claim a position the screen must show.
    assert not celil_evidence.ground_text("The WLAN switch is on", observation)[0]
    assert not celil_evidence.ground_text('"WLAN" is "on"', observation)[0]


@pytest.mark.parametrize(
    ("sub_goal", "activity", "in_front"),
    [
        ("Open the Settings app", "com.android.settings/.Settings", True),
        ("Launch Clock", "com.google.android.deskclock/.DeskClock", True),
        ("Open the Settings app", "com.google.android.apps.nexuslauncher/.Launcher", False),
        ("Open Network & internet", "com.android.settings/.Settings", False),  # a page, no app
        ("Open the Settings app and turn on Wi-Fi", "com.android.settings/.Settings", False),
        ("Open the Settings app", None, False),
    ],
)
def test_a_step_that_only_opens_an_app_is_shown_by_that_app_in_front(sub_goal, activity, in_front):
    """A model's 'done' for 'Open the Settings app' that quotes the app's own screen ("'Network &
    internet'") names nothing the step names; the app in front is the evidence instead."""
    assert celil_evidence.opened_app_in_front(sub_goal, activity) is in_front


# --- the budget's last step ------------------------------------------------------------------


CONTACT = "Add a contact named Bob"


class _CannotReadTheGoal(OfflinePlanner):
    """A screen checker that never decides the whole goal (a clause no check reads)."""

    def check_goal(self, goal, trail, current):
        return GoalVerdict("unknown", (GoalCheck("clause", "unknown", "no check reads it"),))


class _ReadsBobSaved(OfflinePlanner):
    """A screen checker that reads the goal as done once the phone has saved Bob."""

    def __init__(self, env: fakes.FakePhone) -> None:
        super().__init__()
        self._env = env

    def check_goal(self, goal, trail, current):
        if "Bob" in self._env.saved:
            return GoalVerdict("done", (GoalCheck("value", "done", "'Bob' is saved"),))
        return GoalVerdict("unknown", (GoalCheck("value", "unknown", "not saved yet"),))


def _run_to_budget(
    env: fakes.FakePhone, planner: _SaysDone, checker, budget: int
) -> tuple[fakes.FakePhone, list]:
    """Contacts, Add contact, type Bob, Save, within `budget` steps: the claims made and how
    often the planner was asked about progress."""
    executor = fakes.ScriptedExecutor(
        script=[fakes.click(0), fakes.click(0), fakes.type_text(0, "Bob"), fakes.click(1)]
    )
    agent = CelilAgent(
        env,
        PerceptionModule(ocr="off"),
        planner,
        executor,
        fakes.ScriptedVerifier(),
        screen_checker=checker,
        transition_pause=0.0,
        progress_check="screen",
    )
    agent.reset()
    agent.set_max_steps(budget)
    for _ in range(budget):
        if agent.step(CONTACT).done:
            break
    claims: list = [a.goal_status for a in env.actions if a.action_type == json_action.STATUS]
    asked = sum(1 for call in planner.calls if call[0] == "progress")
    return env, [*claims, ("planner asked", asked)]


def _budget_run(
    planner_says: Evidence, budget: int = 4, checker_reads: bool = False
) -> tuple[fakes.FakePhone, list]:
    """The work ends on the budget's last step, under a one-step plan."""
    env = fakes.FakePhone()
    planner = _SaysDone(
        initial=[Plan(["Do the whole task as asked"])], progress=[planner_says], confirm=False
    )
    checker = _ReadsBobSaved(env) if checker_reads else _CannotReadTheGoal()
    return _run_to_budget(env, planner, checker, budget)


def test_work_the_screens_show_finished_on_the_budgets_last_step_is_claimed():
    # Before: the Save on the last step finished the task and the episode ended unclaimed
    # (SimpleCalendarDeleteEvents, ClockStopWatchRunning: work done as the budget ran out,
    # scored 0). The whole goal is now checked once more on the screens.
    env, claims = _budget_run(Evidence(False, "", "model"), checker_reads=True)
    assert env.saved == ["Bob"]
    assert claims == ["complete", ("planner asked", 0)]


def test_on_the_budgets_last_step_the_planners_done_alone_is_not_a_claim():
    # When the budget runs out the work is mostly not done, and a judge that is sometimes
    # wrong then claims more false completions than it finds finished work (the planner
    # asked here made 9 false completions of 255 under `verify` plans, against 4 without):
    # only the screens decide. Even a "done" with its evidence on screen does not count.
    env, claims = _budget_run(Evidence(True, "'Bob' is listed as saved", "model"))
    assert env.saved == ["Bob"]
    assert claims == [("planner asked", 0)]
    env, claims = _budget_run(Evidence(True, '"Contact saved"', "model"), budget=3)
    assert env.saved == []  # Save never ran: the budget ended first
    assert claims == [("planner asked", 0)]


# --- a file name with another extension is another file ---------------------------------------


CLIPBOARD_NOTE = (
    "Create a note in Markor named 2023_09_08_active_umbrella.txt. Perform a paste operation in "
    "the note and save the note."
)


def test_a_file_name_typed_with_a_typo_in_its_extension_is_not_the_name():
    # Before: "…umbrella.ttx" (a typo that passed the gate) showed the stem of
    # "…umbrella.txt", so the goal check said the name was entered and the planner's done
    # quoting the typo was taken: a false completion (MarkorCreateNoteFromClipboard, seed 0).
    typo = ["2023_09_08_active_umbrella.ttx"]
    assert not offline_goal.value_shown("2023_09_08_active_umbrella.txt", typo)
    assert offline_goal.values_missing(CLIPBOARD_NOTE, screen(*typo)) == [
        "2023_09_08_active_umbrella.txt"
    ]
    # The name without its extension, as a list or a player titles it, is still the name.
    assert offline_goal.value_shown(
        "2023_09_08_active_umbrella.txt", ["2023_09_08_active_umbrella"]
    )
    assert offline_goal.value_shown("clip_7.mp4", ["Playing clip_7."])


# --- a capture is read off the trail ------------------------------------------------------------


def _camera(video: bool = False) -> Observation:
    photo_tab, video_tab = fakes.element("Camera"), fakes.element("Video")
    photo_tab.is_selected, video_tab.is_selected = not video, video
    shutter = fakes.element(description="Stop" if video else "Shutter", class_name="ImageButton")
    clock = fakes.element("15:34", clickable=False)
    return dataclasses.replace(screen(), ui_elements=[clock, photo_tab, video_tab, shutter])


def _tap(step: int, target: str, *, video: bool = False, ok: bool = True) -> TrailStep:
    return TrailStep(step, _camera(video), "click", index=3, target=target, ok=ok)


def test_one_shutter_tap_that_went_through_is_one_photo_taken():
    # Before: "no check reads" "Take one photo", the planner's honest done could quote only the
    # status-bar clock, which names nothing of the task, and the photo was never claimed
    # (CameraTakePhoto unclaimed in every plan style, every answer right).
    verdict = offline_goal.check_goal("Take one photo.", [_tap(1, "Shutter")], _camera())
    assert verdict.status == "done", verdict.reason()


def test_photos_beyond_the_one_asked_are_not_done():
    two = [_tap(1, "Shutter"), _tap(2, "Shutter", ok=False)]  # the second changed nothing
    assert offline_goal.check_goal("Take one photo.", two, _camera()).status == "unknown"
    three = [_tap(1, "Shutter"), _tap(2, "Shutter"), _tap(3, "Shutter")]
    assert offline_goal.check_goal("Take one photo.", three, _camera()).status == "unmet"
    assert offline_goal.check_goal("Take one photo.", [], _camera()).status == "unknown"


def test_a_video_is_a_recording_started_in_video_mode_and_stopped():
    started = _tap(1, "Shutter", video=True)
    stopped = _tap(2, "Stop", video=True)
    goal = "Take one video."
    assert offline_goal.check_goal(goal, [started, stopped], _camera(True)).status == "done"
    assert offline_goal.check_goal(goal, [started], _camera(True)).status == "unknown"
    assert offline_goal.check_goal(goal, [_tap(1, "Shutter")], _camera()).status == "unknown"
    assert offline_capture.parse_capture("Take a photo and send it to Ann") is None


# --- the budget's last action finished the plan's last step -------------------------------------


FINE_PLAN = ["Open Contacts", "Tap 'Add contact'", "Enter 'Bob' in 'Name'", "Tap 'Save'"]


class _ShowsSteps(_CannotReadTheGoal):
    """Never decides the whole goal; shows each plan step done on the screen after the action
    for it, except the steps in `unprovable` (a control that never showed up)."""

    def __init__(self, env: fakes.FakePhone, unprovable: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self._env = env
        self._unprovable = unprovable
        self._shown = {
            "Open Contacts": lambda: env.screen != "home",
            "Tap 'Add contact'": lambda: env.screen in ("editor", "saved"),
            "Enter 'Bob' in 'Name'": lambda: env.name_field == "Bob" or "Bob" in env.saved,
            "Tap 'Save'": lambda: "Bob" in env.saved,
        }

    def check_sub_goal(self, goal, sub_goal, observation, context=""):
        if sub_goal in self._unprovable or not self._shown[sub_goal]():
            return Evidence(False, "not shown")
        return Evidence(True, f"the screen shows {sub_goal!r} done", "screen")


def _fine_budget_run(
    planner_says: Evidence, unprovable: frozenset[str] = frozenset()
) -> tuple[fakes.FakePhone, list]:
    """A four-step plan whose last step (Save) runs on the budget's last step."""
    env = fakes.FakePhone()
    planner = _SaysDone(initial=[Plan(FINE_PLAN)], progress=[planner_says], confirm=False)
    return _run_to_budget(env, planner, _ShowsSteps(env, unprovable), 4)


def test_a_plan_the_budgets_last_action_finished_is_judged_as_at_any_plan_end():
    # Before: the Delete/Save of the budget's last step finished the plan's last step, the
    # whole-goal check could not read the goal ("delete all events scheduled for this
    # Friday"), and the episode ended unclaimed although the next step would have found the
    # plan done and asked the planner (SimpleCalendarDeleteEventsOnRelativeDay, fine, seed 5).
    env, claims = _fine_budget_run(Evidence(True, "'Bob' is listed as saved", "model"))
    assert env.saved == ["Bob"]
    assert claims == ["complete", ("planner asked", 1)]


def test_at_the_budgets_end_the_planner_saying_not_done_is_no_claim():
    env, claims = _fine_budget_run(Evidence(False, "no contact Bob is listed", "model"))
    assert env.saved == ["Bob"]
    assert claims == [("planner asked", 1)]


def test_at_the_budgets_end_a_done_quoting_text_not_on_screen_is_no_claim():
    _env, claims = _fine_budget_run(Evidence(True, "'Bob Smith' is listed", "model"))
    assert claims == [("planner asked", 1)]


def test_at_the_budgets_end_a_plan_step_the_screen_does_not_show_keeps_the_planner_unasked():
    # The last step is not shown done (its control never showed up, or it did nothing): the
    # plan is not finished, and an unknown goal alone asks no planner at the budget's end.
    env, claims = _fine_budget_run(
        Evidence(True, "'Bob' is listed as saved", "model"), frozenset({"Tap 'Save'"})
    )
    assert env.saved == ["Bob"]
    assert claims == [("planner asked", 0)]
