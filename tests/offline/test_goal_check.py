"""The whole-goal check (offline_goal.check_goal): every clause and value of the goal against the
screens of the episode, model-free, and the agent's completion rule built on it."""

from __future__ import annotations

import celil_fakes
import pytest

from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNKNOWN,
    GOAL_UNMET,
    Observation,
    TrailStep,
)
from android_world.agents.custom.offline_roles import offline_goal
from android_world.env.representation_utils import BoundingBox, UIElement


def _el(text="", y=400, *, cls="android.widget.TextView", height=80, **kw) -> UIElement:
    return UIElement(
        text=text, class_name=cls, bbox_pixels=BoundingBox(40, 1040, y, y + height), **kw
    )


def _field(text, y=400, hint=""):
    return _el(text, y, cls="android.widget.EditText", is_editable=True, hint_text=hint)


def _button(text, y=300):
    return _el(text, y, cls="android.widget.Button", is_clickable=True)


def _list(*rows: str) -> list[UIElement]:
    container = _el("", 300, cls="androidx.recyclerview.widget.RecyclerView", height=1800)
    container.is_scrollable = True
    return [container, *(_el(r, 320 + 100 * i, is_clickable=True) for i, r in enumerate(rows))]


def _obs(*elements: UIElement, activity="com.android.contacts/.People") -> Observation:
    return celil_fakes.screen_of(*elements, activity=activity)


def _step(n, screen, action_type, index=None, target="", typed=""):
    return TrailStep(n, screen, action_type, index=index, target=target, typed=typed)


CONTACT = "Create a new contact for Ann Lee. Their number is +15551234567."


def _contact_trail(first="Ann", saved=True):
    form = _obs(
        _button("Save", 150), _field(first, 400), _field("Lee", 500), _field("+15551234567", 600)
    )
    trail = [
        _step(1, form, "input_text", 1, "First name", first),
        _step(2, form, "input_text", 3, "Phone", "+15551234567"),
    ]
    if saved:
        trail.append(_step(3, form, "click", 0, "Save"))
        return trail, _obs(*_list(f"{first} Lee"))
    return trail, form


def test_a_saved_contact_with_every_value_is_done():
    trail, current = _contact_trail()
    verdict = offline_goal.check_goal(CONTACT, trail, current)
    assert verdict.status == GOAL_DONE, verdict.reason()


def test_typed_but_never_saved_is_not_done():
    trail, current = _contact_trail(saved=False)
    verdict = offline_goal.check_goal(CONTACT, trail, current)
    assert verdict.status != GOAL_DONE
    assert "saved" in verdict.reason()


def test_typed_values_left_in_the_open_form_are_unmet_not_unknown():
    # Nothing committed and the form, still open, holds the last typed text: not saved.
    trail, current = _contact_trail(saved=False)
    verdict = offline_goal.check_goal(CONTACT, trail, current)
    assert verdict.status == GOAL_UNMET, verdict.reason()
    assert any(c.what == "saved" and c.status == GOAL_UNMET for c in verdict.checks)


@pytest.mark.parametrize("shown", ["", "+1555"])
def test_a_form_no_longer_holding_the_typed_text_stays_unknown(shown):
    # The field shows other text now (cleared, or another value): the form cannot say that
    # the typed record sits in it unsaved.
    trail, _ = _contact_trail(saved=False)
    current = _obs(_button("Save", 150), _field("Ann", 400), _field("Lee", 500), _field(shown, 600))
    verdict = offline_goal.check_goal(CONTACT, trail, current)
    assert verdict.status == GOAL_UNKNOWN, verdict.reason()


EVENT = "Create a calendar event titled 'Call with HR' with the description 'Bring notes.'"
_CALENDAR = "com.simplemobiletools.calendar.pro/.activities.EventActivity"


def _event_form(title="Call with HR", description="Bring notes.") -> Observation:
    return _obs(
        _button("Save", 150),
        _field(title, 400, hint="Title"),
        _field(description, 500, hint="Description"),
        _el("16:00", 700, is_clickable=True),
        activity=_CALENDAR,
    )


def _picker() -> Observation:
    # A time picker over the form: its own numbers and buttons, none of the form's fields.
    return _obs(
        _el("16", 600, is_clickable=True),
        _el("00", 700, is_clickable=True),
        _button("Cancel", 900),
        _button("OK", 1000),
        activity=_CALENDAR,
    )


def _typed_event() -> list[TrailStep]:
    return [
        _step(1, _event_form("", ""), "input_text", 1, "Title", "Call with HR"),
        _step(2, _event_form(description=""), "input_text", 2, "Description", "Bring notes."),
    ]


def _saved_check(verdict):
    return next(c for c in verdict.checks if "saved" in c.what)


def test_a_pickers_ok_inside_the_open_form_is_not_the_forms_save():
    # The time picker's screen has none of the form's fields and its "OK" is a commit word;
    # the form came back holding the typed text, so neither saved it.
    trail = [
        *_typed_event(),
        _step(3, _event_form(), "click", 3, "16:00"),
        _step(4, _picker(), "click", 3, "OK"),
    ]
    verdict = offline_goal.check_goal(EVENT, trail, _event_form())
    assert verdict.status == GOAL_UNMET, verdict.reason()
    assert _saved_check(verdict).status == GOAL_UNMET


def test_the_form_under_an_open_picker_is_not_saved():
    # The picker is still on the screen: the form under it was last seen holding the typed
    # text, and nothing committed it since.
    trail = [*_typed_event(), _step(3, _event_form(), "click", 3, "16:00")]
    verdict = offline_goal.check_goal(EVENT, trail, _picker())
    assert verdict.status == GOAL_UNMET, verdict.reason()
    assert _saved_check(verdict).status == GOAL_UNMET


def test_a_list_showing_the_record_after_a_tap_of_no_known_name_is_saved():
    # The form left by a control whose name is no save word, to a list that shows the event:
    # the list is the record saved, not a picker.
    listing = _obs(*_list("Call with HR", "Standup"), activity=_CALENDAR)
    trail = [*_typed_event(), _step(3, _event_form(), "click", 5, "Checkmark")]
    verdict = offline_goal.check_goal(EVENT, trail, listing)
    assert verdict.status == GOAL_DONE, verdict.reason()


def test_a_back_that_only_hid_the_keyboard_is_not_the_forms_save():
    trail = [*_typed_event(), _step(3, _event_form(), "navigate_back")]
    verdict = offline_goal.check_goal(EVENT, trail, _event_form())
    assert verdict.status == GOAL_UNMET, verdict.reason()


def test_the_forms_save_after_a_picker_is_done():
    listing = _obs(*_list("Call with HR", "Standup"), activity=_CALENDAR)
    trail = [
        *_typed_event(),
        _step(3, _event_form(), "click", 3, "16:00"),
        _step(4, _picker(), "click", 3, "OK"),
        _step(5, _event_form(), "click", 0, "Save"),
    ]
    verdict = offline_goal.check_goal(EVENT, trail, listing)
    assert verdict.status == GOAL_DONE, verdict.reason()


def test_a_save_that_keeps_the_editor_open_is_still_a_save():
    # An editor that stays open after its own Save: a control named for saving commits the
    # form whatever the next screen is. Not unmet; the saved title shows nowhere else yet.
    trail = [*_typed_event(), _step(3, _event_form(), "click", 0, "Save")]
    verdict = offline_goal.check_goal(EVENT, trail, _event_form())
    assert verdict.status != GOAL_UNMET, verdict.reason()
    assert _saved_check(verdict).status != GOAL_UNMET


def test_the_record_shown_then_opened_again_was_left_not_kept():
    # The form left by a control of no known name to a view of the record (the typed text
    # outside any field), then opened again for editing: the form was left, the record saved.
    view = _obs(_el("Call with HR", 300), _el("Bring notes.", 400), activity=_CALENDAR)
    trail = [
        *_typed_event(),
        _step(3, _event_form(), "click", 5, "Checkmark"),
        _step(4, view, "click", 0, "Edit"),
    ]
    verdict = offline_goal.check_goal(EVENT, trail, _event_form())
    assert _saved_check(verdict).status == GOAL_DONE, verdict.reason()


def test_a_typo_in_a_saved_value_is_unmet():
    trail, current = _contact_trail(first="Anm")
    verdict = offline_goal.check_goal(CONTACT, trail, current)
    assert verdict.status == GOAL_UNMET
    assert any(c.status == GOAL_UNMET and "Ann Lee" in c.what for c in verdict.checks)


def test_switches_and_the_app_in_front():
    on = _obs(_el("Wi-Fi", cls="android.widget.Switch", is_checkable=True, is_checked=True))
    assert offline_goal.check_goal("Turn wifi on.", [], on).status == GOAL_DONE
    assert offline_goal.check_goal("Turn wifi off.", [], on).status == GOAL_UNMET
    # The Camera clause: the Settings screen does not show it in front.
    two = offline_goal.check_goal("Turn on Wi-Fi, then open the Camera app", [], on)
    assert two.status == GOAL_UNMET and "Camera" in two.reason()


def test_a_duration_and_a_forbidden_tap():
    goal = "Create a timer with 0 hours, 16 minutes, and 35 seconds. Do not start the timer."
    keys = [_button(str(d), 1200 + 10 * d) for d in range(10)]
    shown = _obs(_el("00h 16m 35s", 300), *keys, activity="com.android.deskclock/.DeskClock")
    assert offline_goal.check_goal(goal, [], shown).status == GOAL_DONE
    started = [_step(1, shown, "click", 0, "Start")]
    verdict = offline_goal.check_goal(goal, started, shown)
    assert verdict.status == GOAL_UNMET and "start" in verdict.reason()
    wrong = _obs(_el("00h 16m 53s", 300), *keys)
    assert offline_goal.check_goal(goal, [], wrong).status == GOAL_UNMET


def test_a_named_delete_needs_the_item_selected_then_deleted_then_gone():
    goal = "Delete the following expenses from pro expense: Taxi Fare, Shoes."
    listing = _obs(*_list("Taxi Fare", "Shoes", "Rent"))
    gone = _obs(*_list("Rent"))
    # Only Taxi Fare was selected: Shoes, merely off the screen now, is not deleted.
    one = [_step(1, listing, "long_press", 1, "Taxi Fare"), _step(2, listing, "click", 0, "Delete")]
    verdict = offline_goal.check_goal(goal, one, gone)
    assert verdict.status == GOAL_UNMET and "Shoes" in verdict.reason()
    both = [
        _step(1, listing, "long_press", 1, "Taxi Fare"),
        _step(2, listing, "click", 2, "Shoes"),
        _step(3, listing, "click", 0, "Delete"),
    ]
    assert offline_goal.check_goal(goal, both, gone).status == GOAL_DONE
    assert offline_goal.check_goal(goal, both, listing).status == GOAL_UNMET  # still listed


def test_questions_and_unread_clauses_are_unknown():
    screen = _obs(_el("Photo saved"))
    assert offline_goal.check_goal("Take one photo.", [], screen).status == GOAL_UNKNOWN
    assert offline_goal.check_goal("What is my next event?", [], screen).status == GOAL_UNKNOWN


@pytest.mark.parametrize(
    ("sub_goal", "covers"),
    [
        (CONTACT, True),
        ("Make a fresh contact for Ann Lee, number +15551234567", True),
        ("Verify that the contact was saved", True),
        ("Open the Contacts app", False),
        ("Tap the 'Save' button", False),
    ],
)
def test_which_sub_goals_are_the_goal_in_other_words(sub_goal, covers):
    assert offline_goal.covers_goal(CONTACT, sub_goal) is covers


def test_named_controls():
    screen = _obs(_button("Done"), _button("Cancel", 600))
    assert offline_goal.named_control("Tap the 'Save' button") == "Save"
    assert offline_goal.control_shown("Tap the 'Save' button", screen) is True  # Save = Done
    assert offline_goal.control_shown("Tap the 'Archive' button", screen) is False
    assert offline_goal.control_shown("Open the Contacts app", screen) is None


def test_the_check_agrees_with_the_tasks_own_on_every_reference_step():
    """On the reference solutions (and with steps left out, as a careless agent would), the
    check never says done while the task's check fails, and never unmet at a passed end."""
    import goal_check_truth as truth

    from android_world.task_evals.registry import TaskRegistry

    registry = TaskRegistry().get_registry("sim")
    tally = truth.Tally()
    for name in ("ContactsAddContact", "ExpenseDeleteMultiple", "ClockTimerEntry", "SimpleSmsSend"):
        truth.run_task(name, registry[name], 0, None, tally)
        for skip in (2, 4):
            truth.run_task(name, registry[name], 0, None, tally, skip=skip)
    assert tally.episodes == 12
    assert tally.false_done == 0 and tally.end_unmet == 0, tally.examples
    assert tally.end_done >= 4  # the four complete reference runs are read as done


CLIPBOARD = "Paste my clipboard into a new Markor note named fish.md and save it."


def _note_trail(*, paste: bool, save: bool):
    dialog = _obs(_field("fish.md", 400, hint="Name"), _button("OK", 600))
    editor = _obs(
        _field("pasted words", 400), _button("Paste", 300), _button("Save", 150), _el("fish.md", 60)
    )
    trail = [
        _step(1, dialog, "input_text", 0, "Name", "fish.md"),
        _step(2, dialog, "click", 1, "OK"),
    ]
    if paste:
        trail.append(_step(3, editor, "click", 1, "Paste"))
    if save:
        trail.append(_step(4, editor, "click", 2, "Save"))
    return trail, editor


@pytest.mark.parametrize(
    ("paste", "save", "expected"),
    [(False, False, GOAL_UNKNOWN), (True, False, GOAL_UNKNOWN), (True, True, GOAL_DONE)],
)
def test_clipboard_content_needs_a_paste_then_a_save(paste, save, expected):
    """A note named right but never pasted into was claimed complete on paraphrased goals."""
    trail, current = _note_trail(paste=paste, save=save)
    verdict = offline_goal.check_goal(CLIPBOARD, trail, current)
    assert verdict.status == expected, verdict.reason()


def test_example_sentences_and_sources_name_no_values():
    goal = (
        "Write the words shown in clip.mp4 to notes.txt in Markor. For example, if it shows "
        '"edna" then the file holds "edna".'
    )
    assert "edna" not in offline_goal.named_values(goal)
    info = offline_goal.text_lib.parse_goal(
        "Add the recipes from recipes.txt in Markor to Broccoli."
    )
    assert "recipes.txt" not in offline_goal.goal_values(info)


def test_a_file_name_shows_as_its_stem_and_a_plural_folder_as_its_singular():
    assert offline_goal.value_shown("clip_7.mp4", ["clip_7"])
    assert offline_goal.value_shown("Downloads", ["Download"])
    assert not offline_goal.value_shown("clip_7.mp4", ["clip_8"])


def test_the_notes_a_merge_reads_from_are_no_values_it_leaves_behind():
    goal = (
        "Merge the contents of Markor notes a_2023.txt, b_cat.txt and c.md (in the same order) "
        "into a new Markor note named mIObBbo4 and save it."
    )
    assert offline_goal.goal_values(offline_goal.text_lib.parse_goal(goal)) == ["mIObBbo4"]
