"""Skip rules that pay (issue 30): a vote is skipped only for a tap one step undoes and the
post-check sees work; each rule's saved votes and the wrong actions it lets run are counted by
`benchmarks/verifier_value.py --skips`."""

from __future__ import annotations

import pytest
import verifier_value as vv
from test_call_budget import _element, _obs, _proposal

from android_world.agents.custom.roles import celil_quality_control as qc

unneeded = qc.vote_unneeded


def _tap(index, kind="click"):
    return _proposal(action_type=kind, index=index)


@pytest.mark.parametrize("label", ["More options", "Navigate up", "Sort by", "Search"])
def test_a_menu_or_up_button_is_not_voted(label):
    screen = _obs(_element(label, "android.widget.ImageButton"))
    reason = unneeded("Delete the note named tidy.md", "s", _tap(0), screen)
    assert reason and "back undoes it" in reason


def test_a_new_record_button_opens_an_editor_unvoted_but_not_on_a_form():
    fab = _element("New recipe", "android.widget.ImageButton")
    reason = unneeded("Add a recipe for Chili", "s", _tap(0), _obs(fab))
    assert reason and "saves nothing until its own Save" in reason
    field = _element("Title", "android.widget.EditText", is_editable=True)
    assert unneeded("Add a recipe for Chili", "s", _tap(0), _obs(fab, field)) is None
    # A plain "Add" (one word) may commit a form; a text button is not the floating one.
    assert unneeded("x", "s", _tap(0), _obs(_element("Add", "android.widget.ImageButton"))) is None
    text = _element("New recipe", "android.widget.Button")
    assert unneeded("Add a recipe", "s", _tap(0), _obs(text)) is None


def test_a_switch_is_skipped_only_when_the_goal_is_about_it():
    switch = _element("Use Bluetooth", "android.widget.Switch", is_checkable=True)
    reason = unneeded("Turn Bluetooth on.", "s", _tap(0), _obs(switch))
    assert reason and "tapping it again undoes it" in reason
    assert unneeded("Turn Wi-Fi on.", "s", _tap(0), _obs(switch)) is None
    # "use" is a filler word: it names no switch.
    assert unneeded("Use the app.", "s", _tap(0), _obs(switch)) is None


def test_a_row_is_skipped_only_when_the_goals_words_name_it():
    row = _element("Vegetarian Chili Deluxe", "android.widget.TextView")
    assert unneeded("Delete the Vegetarian Chili recipe", "s", _tap(0), _obs(row))
    assert unneeded("Delete the Lentil Soup recipe", "s", _tap(0), _obs(row)) is None
    pressed = unneeded("Delete the Vegetarian Chili recipe", "s", _tap(0, "long_press"), _obs(row))
    assert pressed and "selects it" in pressed
    assert unneeded("Delete the soup", "s", _tap(0, "long_press"), _obs(row)) is None


def test_after_trouble_and_for_irreversible_targets_every_cheap_tap_is_voted():
    screen = _obs(
        _element("More options", "android.widget.ImageButton"),
        _element("New recipe", "android.widget.ImageButton"),
        _element("Use Bluetooth", "android.widget.Switch", is_checkable=True),
        _element("Delete", "android.widget.ImageButton"),
    )
    goal = "Turn Bluetooth on and add a recipe for soup"
    for index in range(3):
        assert unneeded(goal, "s", _tap(index), screen)
        assert unneeded(goal, "s", _tap(index), screen, cautious=True) is None
    assert unneeded("Delete it", "s", _tap(3), screen) is None


@pytest.mark.parametrize(
    ("reason", "rule"),
    [
        ("open_app is undone by another step; the post-check sees it fail", "navigation: open_app"),
        (
            "taps 'more options': it opens a menu or goes up a screen, and back undoes it",
            "menu control",
        ),
        (
            "toggles 'Use Bluetooth', which the goal is about; tapping it again undoes it",
            "goal's switch",
        ),
        (
            "taps 'new recipe': it opens an editor that saves nothing until its own Save",
            "new-record button",
        ),
        ("long-presses the row 'a': it selects it, and back undoes it", "list row long-pressed"),
        ("taps the row 'a': it opens another screen, and back undoes it", "list row"),
        ("types the goal's own words", "goal's words typed"),
        ("taps 'Wi-Fi', which the goal names", "control the goal names"),
        ("something new", "other: something new"),
    ],
)
def test_the_benchmark_names_the_rule_behind_each_skip(reason, rule):
    assert vv.skip_rule(reason) == rule


def test_the_trade_of_each_skip_rule_is_priced_at_the_rows_own_vote_pass_rate():
    """Voting on a rule's proposals costs its votes (a call each, per step) and still lets
    through the wrong actions a vote passes (issue 30's trade-off table)."""
    row = vv.Row("default", "independent", steps=100, wrong_gated=30, wrong_unvoted=10)
    row.wrong_stopped = 18  # of 20 voted on, 2 passed: a 10% pass rate
    row.skips = {"scroll": [20, 8], "navigation: open_app": [40, 0]}
    assert vv.skip_tradeoff(row) == [
        ("scroll", 20, 8, 0.2, pytest.approx(0.8)),
        ("navigation: open_app", 40, 0, 0.4, 0.0),
    ]
