"""The goal check's readings of a list or a setting as a whole (offline_goal_clears): each says
done only on what a screen showed, unmet when a screen shows the goal undone, and unknown
without such a screen."""

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
from android_world.agents.custom.offline_roles import offline_goal_clears as clears
from android_world.env.representation_utils import BoundingBox, UIElement

CALENDAR = "com.simplemobiletools.calendar.pro/.activities.MainActivity"


def _el(text="", y=400, *, x=(40, 1040), cls="android.widget.TextView", h=60, **kw) -> UIElement:
    return UIElement(text=text, class_name=cls, bbox_pixels=BoundingBox(x[0], x[1], y, y + h), **kw)


def _obs(*elements: UIElement, activity=CALENDAR) -> Observation:
    return celil_fakes.screen_of(*elements, activity=activity)


def _step(n, screen, action_type, target="", typed="", index=None):
    return TrailStep(n, screen, action_type, index=index, target=target, typed=typed)


# --- a day emptied -------------------------------------------------------------------------

CLEAR = "In Simple Calendar Pro, delete all the calendar events on 2023-10-27"


def _day(title: str, *rows: tuple[str, str]) -> Observation:
    elements = [_el(title, 140, x=(156, 780)), _el("2023", 214, x=(156, 780), h=50)]
    if rows:
        box = _el("", 300, cls="androidx.recyclerview.widget.RecyclerView", h=1500)
        box.is_scrollable = True
        elements.append(box)
        for i, (name, when) in enumerate(rows):
            elements.append(_el(name, 320 + 160 * i, is_clickable=True))
            elements.append(_el(when, 380 + 160 * i))
    else:
        elements.append(_el("No upcoming events", 300, h=300))
    return _obs(*elements)


def _clear_trail(*, deleted: bool):
    full = _day("Friday, October 27", ("Call with the Team", "10:00 - 11:00"))
    dialog = _obs(_el("Delete this event?", 900), _el("Delete", 1100, cls="android.widget.Button"))
    trail = [_step(1, full, "long_press", "Call with the Team")]
    if deleted:
        trail += [_step(2, full, "click", "Delete"), _step(3, dialog, "click", "Delete")]
    return trail


def test_a_day_shown_empty_after_the_delete_is_done():
    verdict = offline_goal.check_goal(CLEAR, _clear_trail(deleted=True), _day("Friday, October 27"))
    assert verdict.status == GOAL_DONE, verdict.reason()


def test_a_day_that_still_lists_an_event_is_unmet():
    current = _day("Friday, October 27", ("Workshop", "14:00 - 15:00"))
    verdict = offline_goal.check_goal(CLEAR, _clear_trail(deleted=True), current)
    assert verdict.status == GOAL_UNMET, verdict.reason()


@pytest.mark.parametrize(
    "deleted, current",
    [
        (False, "Friday, October 27"),  # empty, but nothing was deleted in this episode
        (True, "Saturday, October 28"),  # another day shown empty
    ],
)
def test_without_the_day_shown_empty_after_a_delete_it_is_unknown(deleted, current):
    verdict = offline_goal.check_goal(CLEAR, _clear_trail(deleted=deleted), _day(current))
    assert verdict.status == GOAL_UNKNOWN, verdict.reason()


def test_a_relative_day_is_not_read():
    goal = "In Simple Calendar Pro, delete all events scheduled for this Thursday."
    assert clears.clear_day_checks([goal], [3], _clear_trail(deleted=True), _day("Thursday")) == []


# --- a relative day ("this Thursday"), from today's date as the home screen showed it --------

RELATIVE = "In Simple Calendar Pro, delete all events scheduled for this Thursday."
LAUNCHER = "com.google.android.apps.nexuslauncher/.NexusLauncherActivity"
CLOCK = "com.google.android.deskclock/com.android.deskclock.DeskClock"


def _home(date_line="Sunday, October 15", activity=LAUNCHER) -> Observation:
    return _obs(
        _el("15:34", 30, x=(48, 268)),
        _el(date_line, 170),
        _el("Simple Calendar Pro", 700, x=(540, 798), is_clickable=True),
        activity=activity,
    )


def _relative_trail(home: Observation, day: str = "Thursday, October 19"):
    full = _day(day, ("Call with the Team", "10:00 - 11:00"))
    dialog = _obs(_el("Delete events", 900), _el("Delete", 1100, cls="android.widget.Button"))
    return [
        _step(0, home, "click", "Simple Calendar Pro"),
        _step(1, full, "long_press", "Call with the Team"),
        _step(2, full, "click", "Delete"),
        _step(3, dialog, "click", "Delete"),
    ]


@pytest.mark.parametrize("home", [_home(), _home("Sun, Oct 15", CLOCK)])
def test_this_weekday_emptied_is_done_with_today_on_the_home_screen_or_clock(home):
    trail = _relative_trail(home)
    verdict = offline_goal.check_goal(RELATIVE, trail, _day("Thursday, October 19"))
    assert verdict.status == GOAL_DONE, verdict.reason()
    assert verdict.checks[0].what == "no events left on 2023-10-19"


def test_this_weekday_still_listing_an_event_is_unmet():
    current = _day("Thursday, October 19", ("Workshop", "14:00 - 15:00"))
    verdict = offline_goal.check_goal(RELATIVE, _relative_trail(_home()), current)
    assert verdict.status == GOAL_UNMET, verdict.reason()


@pytest.mark.parametrize(
    "home, current",
    [
        (_home(), "Thursday, October 26"),  # another Thursday emptied: not this one
        (_home("Good morning"), "Thursday, October 19"),  # no date line: today unknown
        # A calendar's day title names a day the agent went to, not today.
        (_day("Monday, October 16"), "Thursday, October 19"),
        (_home("Thursday, October 12"), "Thursday, October 19"),  # today's weekday: ambiguous
    ],
)
def test_this_weekday_without_today_shown_or_another_day_empty_is_unknown(home, current):
    trail = _relative_trail(home, day=current)
    verdict = offline_goal.check_goal(RELATIVE, trail, _day(current))
    assert verdict.status == GOAL_UNKNOWN, verdict.reason()


def test_two_different_dates_leave_today_unknown():
    trail = [_step(-1, _home("Saturday, October 14"), "navigate_home"), *_relative_trail(_home())]
    verdict = offline_goal.check_goal(RELATIVE, trail, _day("Thursday, October 19"))
    assert verdict.status == GOAL_UNKNOWN, verdict.reason()


# --- a record saved twice ------------------------------------------------------------------

EXPENSES = (
    "Add the following expenses into the pro expense:\n"
    "Expense: Social Club Dues\n amount_dollars: $67.41\n category_name: Social\n"
    " note: Monthly recurring\n\n"
    "Expense: Legal Fees\n amount_dollars: $10.14\n category_name: Others\n note: Monthly recurring\n"
)
EXPENSE_APP = "com.arduia.expense/.ui.MainActivity"


def _expense_form(name, amount, category, note):
    def field(text, y, hint):
        return _el(text, y, cls="android.widget.EditText", is_editable=True, hint_text=hint)

    return _obs(
        field(name, 400, "Name"),
        field(amount, 500, "Amount"),
        _el(category, 600, is_clickable=True),
        field(note, 700, "Note"),
        _el("Save", 900, cls="android.widget.Button", is_clickable=True),
        activity=EXPENSE_APP,
    )


def _expense_list(*names):
    box = _el("", 300, cls="androidx.recyclerview.widget.RecyclerView", h=1500)
    box.is_scrollable = True
    rows = [_el(n, 320 + 100 * i, is_clickable=True) for i, n in enumerate(names)]
    return _obs(box, *rows, activity=EXPENSE_APP)


def _save(n, name, amount, category, note):
    form = _expense_form(name, amount, category, note)
    return [
        _step(n, form, "input_text", "Name", name, index=0),
        _step(n + 1, form, "input_text", "Amount", amount, index=1),
        _step(n + 2, form, "input_text", "Note", note, index=3),
        _step(n + 3, form, "click", "Save", index=4),
    ]


def test_every_record_saved_once_is_done():
    trail = _save(1, "Social Club Dues", "67.41", "Social", "Monthly recurring")
    trail += [_step(5, _expense_list("Social Club Dues"), "click", "Add expense")]
    trail += _save(6, "Legal Fees", "10.14", "Others", "Monthly recurring")
    current = _expense_list("Social Club Dues", "Legal Fees")
    verdict = offline_goal.check_goal(EXPENSES, trail, current)
    assert verdict.status == GOAL_DONE, verdict.reason()


def test_a_record_saved_twice_is_unmet():
    trail = _save(1, "Social Club Dues", "67.41", "Social", "Monthly recurring")
    trail += [_step(5, _expense_list("Social Club Dues"), "click", "Add expense")]
    trail += _save(6, "Social Club Dues", "67.41", "Social", "Monthly recurring")
    trail += [_step(10, _expense_list("Social Club Dues"), "click", "Add expense")]
    trail += _save(11, "Legal Fees", "10.14", "Others", "Monthly recurring")
    current = _expense_list("Social Club Dues", "Social Club Dues", "Legal Fees")
    verdict = offline_goal.check_goal(EXPENSES, trail, current)
    assert verdict.status == GOAL_UNMET, verdict.reason()
    assert "saved on 2 forms" in verdict.reason()


def test_a_form_left_without_a_save_is_no_second_record():
    first = _save(1, "Social Club Dues", "67.41", "Social", "Monthly recurring")
    again = _expense_form("Social Club Dues", "67.41", "Social", "Monthly recurring")
    trail = [*first, _step(5, _expense_list("Social Club Dues"), "click", "Add expense")]
    trail += [_step(6, again, "input_text", "Name", "Social Club Dues", index=0)]
    trail += [_step(7, again, "navigate_back")]
    trail += [_step(8, _expense_list("Social Club Dues"), "click", "Add expense")]
    trail += _save(9, "Legal Fees", "10.14", "Others", "Monthly recurring")
    current = _expense_list("Social Club Dues", "Legal Fees")
    assert offline_goal.check_goal(EXPENSES, trail, current).status == GOAL_DONE


# --- a stopwatch running, a setting's summary --------------------------------------------

CLOCK = "com.google.android.deskclock/com.android.deskclock.DeskClock"


def _stopwatch(control: str) -> Observation:
    return _obs(
        _el("Stopwatch", 160, x=(60, 924)),
        _el("00:01.30", 370, h=200),
        _el(
            None, 1946, x=(468, 612), cls="android.widget.ImageButton", content_description=control
        ),
        activity=CLOCK,
    )


@pytest.mark.parametrize(
    "control, expected", [("Pause", GOAL_DONE), ("Start", GOAL_UNMET), (None, GOAL_UNKNOWN)]
)
def test_a_stopwatch_runs_when_it_offers_pause(control, expected):
    current = _stopwatch(control) if control else _obs(_el("Alarm", 160), activity=CLOCK)
    start = _step(1, _obs(_el("Alarm", 160), activity=CLOCK), "click", "Stopwatch")
    verdict = offline_goal.check_goal("Run the stopwatch.", [start], current)
    assert verdict.status == expected, verdict.reason()


def _preferences(state: str, title: str = "Bluetooth") -> Observation:
    return _obs(
        _el("Connection preferences", 159, x=(156, 1068)),
        _el(title, 334, x=(168, 1044)),
        _el(state, 394, x=(168, 1044), h=52),
        _el("NFC", 534, x=(48, 870)),
        activity="com.android.settings/.Settings",
    )


@pytest.mark.parametrize(
    "goal, state, title, expected",
    [
        ("Turn bluetooth off.", "Off", "Bluetooth", GOAL_DONE),
        ("Turn bluetooth on.", "On", "Bluetooth", GOAL_DONE),
        ("Turn bluetooth on.", "Off", "Bluetooth", GOAL_UNMET),
        # another setting whose name holds the subject, or a summary that is no state
        ("Turn bluetooth off.", "Off", "Bluetooth scanning", GOAL_UNKNOWN),
        ("Turn bluetooth off.", "Bluetooth, NFC", "Bluetooth", GOAL_UNKNOWN),
    ],
)
def test_a_setting_summary_shows_its_state(goal, state, title, expected):
    opened = _step(1, _obs(_el("Settings", 159)), "click", "Connected devices")
    verdict = offline_goal.check_goal(goal, [opened], _preferences(state, title))
    assert verdict.status == expected, verdict.reason()


# --- a paste clause of its own ---------------------------------------------------------------

PASTE_GOAL = "Create a note in Markor named fish.md. Perform a paste operation in the note and save the note."
MARKOR = "net.gsantner.markor/.activity.DocumentActivity"


def _paste_trail(title: str, *, save: bool = True):
    def field(text, y, hint=""):
        return _el(text, y, cls="android.widget.EditText", is_editable=True, hint_text=hint)

    def button(text, y):
        return _el(text, y, cls="android.widget.Button", is_clickable=True)

    dialog = _obs(field("fish.md", 400, "Name"), button("OK", 600), activity=MARKOR)
    editor = _obs(_el(title, 160), field("", 400, "Write something"), activity=MARKOR)
    menu = _obs(_el("Paste", 160, is_clickable=True), activity=MARKOR)
    saved = _obs(_el(title, 160), field("pasted words", 400), button("Save", 150), activity=MARKOR)
    trail = [
        _step(1, dialog, "input_text", "Name", "fish.md", index=0),
        _step(2, dialog, "click", "OK", index=1),
        _step(3, editor, "long_press", "Write something", index=1),
        _step(4, menu, "click", "Paste", index=0),
    ]
    if save:
        trail.append(_step(5, saved, "click", "Save", index=2))
    else:
        trail.append(_step(5, saved, "navigate_back"))
    listing = _obs(_el("fish.md", 400, is_clickable=True), activity=MARKOR)
    return trail, listing


def test_a_paste_into_the_named_note_then_a_save_is_done():
    trail, current = _paste_trail("fish.md")
    verdict = offline_goal.check_goal(PASTE_GOAL, trail, current)
    assert verdict.status == GOAL_DONE, verdict.reason()


@pytest.mark.parametrize("title, save", [("other.md", True), ("fish.md", False)])
def test_a_paste_elsewhere_or_unsaved_is_not_done(title, save):
    trail, current = _paste_trail(title, save=save)
    verdict = offline_goal.check_goal(PASTE_GOAL, trail, current)
    assert verdict.status != GOAL_DONE, verdict.reason()
