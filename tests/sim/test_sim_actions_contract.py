"""DESIGN §2 facts for JSONAction, UIElement/BoundingBox and the node-to-element rule."""

from __future__ import annotations

import pytest

from android_world.env import json_action, representation_utils
from android_world.env.json_action import JSONAction
from android_world.env.representation_utils import AccessibilityNode, BoundingBox, UIElement
from android_world.env.sim import SimEnv


def test_all_fourteen_action_types_construct():
    assert len(json_action.ACTION_TYPES) == 14
    for kind in json_action.ACTION_TYPES:
        assert JSONAction(action_type=kind).action_type == kind


@pytest.mark.parametrize("kind", ["tap", None, "CLICK", "press_keyboard", "drag_and_drop"])
def test_unknown_action_type_is_rejected(kind):
    with pytest.raises(ValueError):
        JSONAction(action_type=kind)


def test_index_with_xy_is_rejected_and_index_is_coerced():
    with pytest.raises(ValueError):
        JSONAction(action_type="click", index=1, x=3)
    with pytest.raises(ValueError):
        JSONAction(action_type="click", index=1, y=3)
    assert JSONAction(action_type="click", index="7").index == 7


def test_bad_direction_and_keycode_are_rejected():
    with pytest.raises(ValueError):
        JSONAction(action_type="scroll", direction="sideways")
    for direction in ("up", "down", "left", "right"):
        assert JSONAction(action_type="scroll", direction=direction).direction == direction
    with pytest.raises(ValueError):
        JSONAction(action_type="unknown", keycode="ENTER")
    assert JSONAction(action_type="unknown", keycode="KEYCODE_ENTER").keycode == "KEYCODE_ENTER"


@pytest.mark.parametrize(
    "fields",
    [
        {"x": float("nan"), "y": 10},
        {"x": 10, "y": float("inf")},
        {"index": float("inf")},
    ],
)
def test_non_finite_coordinates_and_index_are_rejected(fields):
    with pytest.raises(ValueError, match="Invalid"):
        json_action.JSONAction(action_type="click", **fields)


def test_text_is_coerced_and_equality_ignores_case_of_text_and_app():
    assert JSONAction(action_type="input_text", text=42).text == "42"
    assert JSONAction(action_type="open_app", app_name="Clock") == JSONAction(
        action_type="open_app", app_name="clock"
    )
    assert JSONAction(action_type="input_text", text="A") == JSONAction(
        action_type="input_text", text="a"
    )
    assert JSONAction(action_type="click", index=1) != JSONAction(action_type="click", index=2)


def test_missing_fields_pass_construction_and_fail_at_execution():
    action = JSONAction(action_type="click")  # upstream checks this only when executing
    env = SimEnv(render=False)
    try:
        with pytest.raises(ValueError):
            env.execute_action(action)
        with pytest.raises(ValueError):
            env.execute_action(JSONAction(action_type="open_app"))
    finally:
        env.close()


def test_bounding_box_field_order_and_geometry():
    box = BoundingBox(10, 30, 100, 140)
    assert (box.x_min, box.x_max, box.y_min, box.y_max) == (10, 30, 100, 140)
    assert box.center == (20.0, 120.0)
    assert (box.width, box.height, box.area) == (20, 40, 800)


def test_ui_element_fields_default_to_none():
    element = UIElement()
    assert element.text is None and element.bbox is None and element.bbox_pixels is None
    assert element.is_checked is None and element.resource_id is None and element.metadata is None


def _node(uid, children=(), desc="", scrollable=False):
    return AccessibilityNode(
        uid,
        BoundingBox(0, 10, 0, 10),
        child_ids=list(children),
        content_description=desc,
        is_scrollable=scrollable,
    )


def test_node_to_element_rule():
    nodes = [
        _node(0, [1, 2]),  # plain container: dropped
        _node(1),  # leaf: kept
        _node(2, [3], desc="Card"),  # described container: kept
        _node(3, [4], scrollable=True),  # scrollable container: kept
        _node(4),
    ]
    elements = representation_utils.nodes_to_ui_elements(nodes)
    assert [e.content_description for e in elements] == [None, "Card", None, None]
    assert elements[2].is_scrollable


def test_live_sim_states_fill_bbox_pixels_not_bbox():
    env = SimEnv(render=False)
    try:
        state = env.get_state()
        assert state.ui_elements
        assert all(e.bbox is None and e.bbox_pixels is not None for e in state.ui_elements)
        # The element list is exactly the upstream rule applied to the forest.
        assert representation_utils.nodes_to_ui_elements(state.forest) == state.ui_elements
    finally:
        env.close()
