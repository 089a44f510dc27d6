"""The goal check's memo of screen readings (offline_goal_screens): a reading is served from the
memo only for a screen whose every read field is the same, so a memo cannot answer stale."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from android_world.agents.custom.celil_protocols import Observation, OcrLine, TrailStep
from android_world.agents.custom.offline_roles import offline_goal
from android_world.agents.custom.offline_roles import offline_goal_screens as goal_screens
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.env.representation_utils import BoundingBox, UIElement

SIZE = (1080, 2400)


def _el(text="", y=400, *, cls="android.widget.TextView", **kw) -> UIElement:
    return UIElement(text=text, class_name=cls, bbox_pixels=BoundingBox(40, 1040, y, y + 80), **kw)


def _form() -> Observation:
    elements = [
        _el("New contact", 120),
        _el("First name", 400),
        _el("Ann", 500, cls="android.widget.EditText", is_editable=True, hint_text="First"),
        _el("Phone", 700),
        _el("", 800, cls="android.widget.EditText", is_editable=True, hint_text="Phone"),
        _el("Save", 1000, cls="android.widget.Button", is_clickable=True),
    ]
    return Observation(
        screenshot=np.zeros((0, 0, 3), np.uint8),
        ui_elements=elements,
        ocr_lines=[OcrLine("Contacts", BoundingBox(0, 10, 0, 10), 90.0)],
        ocr_summary="",
        ui_tree_summary="",
        screen_size=SIZE,
        frame_hash="",
        foreground_activity="com.android.contacts/.Edit",
    )


def _fresh(observation: Observation) -> tuple:
    """The readings computed without the memo."""
    texts = tuple(
        tuple(goal_screens._read_texts(observation, editable)) for editable in (None, True, False)
    )
    return texts, tuple(screen.form_fields(observation))


def _memoised(observation: Observation) -> tuple:
    texts = tuple(
        tuple(goal_screens.texts(observation, editable=editable))
        for editable in (None, True, False)
    )
    return texts, tuple(goal_screens.form_fields(observation))


@pytest.fixture(autouse=True)
def _empty_memo():
    goal_screens.MEMO.clear()
    yield
    goal_screens.MEMO.clear()


def test_a_memoised_reading_equals_the_reading_and_an_equal_screen_hits():
    first = _form()
    assert _memoised(first) == _fresh(first)
    misses = goal_screens.MEMO.misses
    assert _memoised(_form()) == _fresh(first)  # another object, the same content
    assert goal_screens.MEMO.misses == misses
    assert goal_screens.MEMO.hits >= 4


# A changed value for every field of an element: the key must see each one, or a screen
# changed in place would be answered from the memo of its old content.
_CHANGED = {
    "text": "Bob",
    "content_description": "desc",
    "class_name": "android.widget.Button",
    "bbox": BoundingBox(0.1, 0.2, 0.3, 0.4),
    "bbox_pixels": BoundingBox(40, 1040, 2300, 2380),
    "hint_text": "Given name",
    "is_checked": True,
    "is_checkable": True,
    "is_clickable": True,
    "is_editable": False,
    "is_enabled": False,
    "is_focused": True,
    "is_focusable": True,
    "is_long_clickable": True,
    "is_scrollable": True,
    "is_selected": True,
    "is_visible": False,
    "package_name": "com.other",
    "resource_name": "com.android.systemui:id/clock",
    "tooltip": "tip",
    "resource_id": "id/first",
    "metadata": {"k": "v"},
}


def test_every_element_field_is_in_the_key():
    assert set(_CHANGED) == {f.name for f in dataclasses.fields(UIElement)}
    for name, value in _CHANGED.items():
        observation = _form()
        before = goal_screens.screen_key(observation)
        setattr(observation.ui_elements[2], name, value)
        assert goal_screens.screen_key(observation) != before, name


@pytest.mark.parametrize("name", sorted(_CHANGED))
def test_a_screen_changed_in_place_is_read_again_not_served_stale(name):
    observation = _form()
    _memoised(observation)
    setattr(observation.ui_elements[2], name, _CHANGED[name])
    assert _memoised(observation) == _fresh(observation)


def test_a_box_moved_in_place_and_an_ocr_line_changed_are_read_again():
    observation = _form()
    _memoised(observation)
    observation.ui_elements[2].bbox_pixels.y_min = 2300  # under where a keyboard would be
    observation.ocr_lines[0] = OcrLine("Edit contact", BoundingBox(0, 10, 0, 10), 90.0)
    observation.screen_size = (540, 1200)
    assert _memoised(observation) == _fresh(observation)
    assert "Edit contact" in goal_screens.texts(observation)


def test_the_goal_check_is_the_same_with_and_without_the_memo():
    goal = "Create a new contact for Ann Lee. Their number is +15551234567."
    form = _form()
    trail = [
        TrailStep(0, form, "input_text", index=2, target="First", typed="Ann Lee"),
        TrailStep(1, form, "click", index=5, target="Save"),
    ]
    listing = _form()
    listing.ui_elements = [_el("Ann Lee", 400, is_clickable=True)]
    with_memo = [offline_goal.check_goal(goal, trail[:n], listing) for n in range(3)]
    goal_screens.MEMO.size = 0
    try:
        without = [offline_goal.check_goal(goal, trail[:n], listing) for n in range(3)]
    finally:
        goal_screens.MEMO.size = goal_screens.MEMO_SIZE
    assert with_memo == without


# Keys made once a check, and shared by equal screens (issue 30: the goal check rebuilt every
# screen's key for every reading, and hashed it again for every memo lookup).


def _count_key_values(monkeypatch) -> list[int]:
    made = [0]
    real = goal_screens._key_value

    def counted(observation):
        made[0] += 1
        return real(observation)

    monkeypatch.setattr(goal_screens, "_key_value", counted)
    return made


def test_within_one_check_each_screen_key_is_made_once(monkeypatch):
    made = _count_key_values(monkeypatch)
    goal = "Create a new contact for Ann Lee. Their number is +15551234567."
    form = _form()
    listing = _form()
    listing.ui_elements = [_el("Ann Lee", 400, is_clickable=True)]
    trail = [
        TrailStep(0, form, "input_text", index=2, target="First", typed="Ann Lee"),
        TrailStep(1, _form(), "click", index=5, target="Save"),
    ]
    offline_goal.check_goal(goal, trail, listing)
    assert made[0] <= 3  # one per distinct screen object, however often the readers look
    made[0] = 0
    goal_screens.screen_key(form)  # outside a check: made again, every time
    goal_screens.screen_key(form)
    assert made[0] == 2


def test_equal_screens_share_one_key_and_different_ones_do_not():
    first, second = goal_screens.screen_key(_form()), goal_screens.screen_key(_form())
    assert first is second
    changed = _form()
    changed.ui_elements[2].text = "Bob"
    assert goal_screens.screen_key(changed) != first
    goal_screens.MEMO.clear()  # forgets the shared keys too: a new key object, still equal
    again = goal_screens.screen_key(_form())
    assert again is not first and again == first and hash(again) == hash(first)


def test_a_screen_changed_between_checks_is_read_again():
    goal = "Create a new contact for Ann Lee. Their number is +15551234567."
    form = _form()
    listing = _form()
    listing.ui_elements = [_el("Ann Lee", 400, is_clickable=True)]
    trail = [TrailStep(0, form, "input_text", index=2, target="First", typed="Ann Lee")]
    offline_goal.check_goal(goal, trail, listing)
    listing.ui_elements[0].text = "Bob Ray"  # in place, between two checks
    kept = offline_goal.check_goal(goal, trail, listing)
    goal_screens.MEMO.clear()
    fresh = _form()
    fresh.ui_elements = [_el("Bob Ray", 400, is_clickable=True)]
    assert kept == offline_goal.check_goal(goal, trail, fresh)


def test_keys_are_held_only_while_a_check_runs():
    assert not goal_screens._SEEN.holding()
    seen = []

    @goal_screens.holding_keys
    def check():
        seen.append(goal_screens._SEEN.holding())
        raise ValueError("a check that fails")

    with pytest.raises(ValueError):
        check()
    assert seen == [True] and not goal_screens._SEEN.holding()
