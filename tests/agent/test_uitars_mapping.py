"""smart_resize, client-side resizing, coordinate conventions, JSONAction mapping and prompts."""

from __future__ import annotations

import numpy as np
import pytest

from android_world.agents.custom.dialects import uitars
from android_world.agents.custom.model_clients.call_types import flatten_messages
from android_world.env import json_action

PORTRAIT = (1080, 2400)  # (width, height)
LANDSCAPE = (2400, 1080)


# -- smart_resize (values from research/models-and-uitars.md §1.4) ----------------------------


@pytest.mark.parametrize(
    ("max_pixels", "expected_hw"),
    [
        (uitars.MAX_PIXELS, (2408, 1092)),  # HF / ui_tars default
        (2 << 20, (2156, 952)),  # Ollama current
        (28 * 28 * 1280, (1484, 672)),  # Ollama earlier "1MP", our client default
        (2700 * 28 * 28, (2156, 952)),  # UI-TARS-desktop V1_0
    ],
)
def test_smart_resize_research_values(max_pixels: int, expected_hw: tuple[int, int]) -> None:
    assert uitars.smart_resize(2400, 1080, max_pixels=max_pixels) == expected_hw


def test_smart_resize_visual_token_counts_match_research() -> None:
    for max_pixels, tokens in ((uitars.MAX_PIXELS, 3354), (2 << 20, 2618), (1_003_520, 1272)):
        height, width = uitars.smart_resize(2400, 1080, max_pixels=max_pixels)
        assert (height // 28) * (width // 28) == tokens


def test_smart_resize_landscape_and_small_and_extreme() -> None:
    assert uitars.smart_resize(1080, 2400, max_pixels=1_003_520) == (672, 1484)
    height, width = uitars.smart_resize(20, 30)
    assert height % 28 == 0 and width % 28 == 0 and height * width >= uitars.MIN_PIXELS
    height, width = uitars.smart_resize(10, 9000)  # ratio > 200: no exception
    assert height >= 28 and width % 28 == 0


def test_resize_for_model_returns_sent_size_and_image() -> None:
    screenshot = np.zeros((2400, 1080, 3), dtype=np.uint8)
    screenshot[:1200] = 255
    sent, sent_size = uitars.resize_for_model(screenshot)
    assert sent_size == (672, 1484)
    assert sent.shape == (1484, 672, 3) and sent.dtype == np.uint8
    assert sent[10, 10, 0] == 255 and sent[-10, 10, 0] == 0
    # Already the right size: unchanged; an RGBA frame loses its alpha.
    same, size = uitars.resize_for_model(np.zeros((1484, 672, 4), dtype=np.uint8))
    assert size == (672, 1484) and same.shape == (1484, 672, 3)


# -- coordinates ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("point", "expected"),
    [
        ((336, 742), (540, 1200)),
        ((0, 0), (0, 0)),
        ((100, 200), (161, 323)),  # 160.71 -> 161, 323.45 -> 323
        ((672, 1484), (1079, 2399)),  # the far edge is clamped onto the screen
        ((-5, 5000), (0, 2399)),
    ],
)
def test_absolute_resized_portrait(point: tuple[int, int], expected: tuple[int, int]) -> None:
    assert uitars.to_screen(*point, uitars.ABSOLUTE_RESIZED, (672, 1484), PORTRAIT) == expected


@pytest.mark.parametrize(
    ("point", "expected"),
    [((742, 336), (1200, 540)), ((1484, 0), (2399, 0)), ((371, 168), (600, 270))],
)
def test_absolute_resized_landscape(point: tuple[int, int], expected: tuple[int, int]) -> None:
    assert uitars.to_screen(*point, uitars.ABSOLUTE_RESIZED, (1484, 672), LANDSCAPE) == expected


@pytest.mark.parametrize(
    ("screen", "point", "expected"),
    [
        (PORTRAIT, (500, 500), (540, 1200)),
        (PORTRAIT, (250, 100), (270, 240)),
        (PORTRAIT, (1000, 1000), (1079, 2399)),
        (LANDSCAPE, (500, 500), (1200, 540)),
        (LANDSCAPE, (100, 900), (240, 972)),
    ],
)
def test_relative_1000(
    screen: tuple[int, int], point: tuple[int, int], expected: tuple[int, int]
) -> None:
    # The sent size is irrelevant for relative coordinates.
    assert uitars.to_screen(*point, uitars.RELATIVE_1000, (999, 777), screen) == expected


def test_unknown_convention_is_a_config_error() -> None:
    with pytest.raises(ValueError, match="coordinate convention"):
        uitars.to_screen(1, 1, "pixels", (1, 1), (1, 1))


# -- mapping to JSONAction ---------------------------------------------------------------------

SENT = (672, 1484)


def _map(text: str, convention: str = uitars.ABSOLUTE_RESIZED, screen=PORTRAIT):
    return uitars.to_json_action(uitars.parse_uitars_output(text), screen, SENT, convention)


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ("click(start_box='(336,742)')", {"action_type": "click", "x": 540, "y": 1200}),
        ("long_press(start_box='(336,742)')", {"action_type": "long_press", "x": 540, "y": 1200}),
        ("left_double(start_box='(336,742)')", {"action_type": "double_tap", "x": 540, "y": 1200}),
        ("type(content='hello\\n')", {"action_type": "input_text", "text": "hello"}),
        ("type(content='a\\nb')", {"action_type": "input_text", "text": "a\nb"}),
        (
            "scroll(start_box='(336,742)', direction='down')",
            {"action_type": "scroll", "direction": "down"},
        ),
        ("scroll(direction='left')", {"action_type": "scroll", "direction": "left"}),
        # content moves with the finger: dragging upward = finger direction "up"
        (
            "drag(start_box='(336,1000)', end_box='(340,200)')",
            {"action_type": "swipe", "direction": "up"},
        ),
        (
            "drag(start_box='(100,700)', end_box='(600,720)')",
            {"action_type": "swipe", "direction": "right"},
        ),
        (
            "scroll(start_box='(336,200)', end_box='(336,1200)')",
            {"action_type": "swipe", "direction": "down"},
        ),
        ("open_app(app_name='Contacts')", {"action_type": "open_app", "app_name": "Contacts"}),
        ("press_home()", {"action_type": "navigate_home"}),
        ("press_back()", {"action_type": "navigate_back"}),
        ("hotkey(key='enter')", {"action_type": "keyboard_enter"}),
        ("hotkey(key='back')", {"action_type": "navigate_back"}),
        ("hotkey(key='HOME')", {"action_type": "navigate_home"}),
        ("wait()", {"action_type": "wait"}),
    ],
)
def test_mapping_table(action: str, expected: dict) -> None:
    result = _map(f"Thought: x\nAction: {action}")
    assert isinstance(result, json_action.JSONAction), result
    assert result.as_dict() == expected


def test_mapping_relative_convention() -> None:
    result = _map("Thought: x\nAction: click(point='<point>500 500</point>')", uitars.RELATIVE_1000)
    assert result == json_action.JSONAction(action_type="click", x=540, y=1200)


def test_finished_is_special() -> None:
    result = _map("Thought: x\nAction: finished(content='The answer is 42')")
    assert result == uitars.UiTarsFinished("The answer is 42")


@pytest.mark.parametrize(
    "action",
    [
        "call_user()",
        "hotkey(key='ctrl c')",
        "type(content='')",
        "type(content='\\n')",
        "drag(start_box='(5,5)', end_box='(5,5)')",
        "click(start_box='=')",
    ],
)
def test_mapping_failures(action: str) -> None:
    result = _map(f"Thought: x\nAction: {action}")
    assert isinstance(result, uitars.UiTarsMappingFailure)
    assert result.reason


def test_finger_direction() -> None:
    assert uitars.finger_direction((0, 0), (0, 10)) == "down"
    assert uitars.finger_direction((0, 0), (-10, 3)) == "left"
    assert uitars.finger_direction((0, 0), (0, 0)) is None


# -- prompt and messages ----------------------------------------------------------------------


def test_prompt_variants_carry_the_trained_action_space() -> None:
    start_box = uitars.mobile_prompt("Open Settings {literally}", "Chinese", "start_box")
    assert "click(start_box='<|box_start|>(x1,y1)<|box_end|>')" in start_box
    assert "drag(start_box='<|box_start|>(x1,y1)<|box_end|>', end_box=" in start_box
    assert "type(content='') #If you want to submit your input, use \"\\n\"" in start_box
    assert start_box.rstrip().endswith("Open Settings {literally}")
    assert "Chinese" in start_box and "{language}" not in start_box
    point = uitars.mobile_prompt("Open Settings", variant="point")
    assert "click(point='<point>x1 y1</point>')" in point
    assert "drag(start_point='<point>x1 y1</point>', end_point='<point>x2 y2</point>')" in point
    assert "<|box_start|>" not in point
    with pytest.raises(ValueError):
        uitars.mobile_prompt("x", variant="desktop")


def _image(value: int) -> np.ndarray:
    return np.full((28, 28, 3), value, dtype=np.uint8)


def test_build_messages_keeps_last_images_and_all_answers() -> None:
    history = [
        uitars.HistoryTurn(_image(i), f"Thought: t{i}\nAction: click(start_box='({i},{i})')")
        for i in range(7)
    ]
    messages = uitars.build_messages("Do it", _image(99), history, max_images=5)
    assert messages[0].role == "user" and "Do it" in messages[0].text
    assert [m.role for m in messages].count("assistant") == 7
    images = [m.images[0][0, 0, 0] for m in messages if m.images]
    assert images == [3, 4, 5, 6, 99]  # 4 history screenshots + the current one
    assert messages[-1].role == "user" and messages[-1].images[0][0, 0, 0] == 99
    # History answers go back with box tokens, as the model produced them in training.
    assert "start_box='<|box_start|>(0,0)<|box_end|>'" in messages[1].text
    # Each kept image precedes its own answer.
    assert messages[-3].images[0][0, 0, 0] == 6 and "t6" in messages[-2].text


def test_build_messages_point_variant_leaves_history_verbatim() -> None:
    answer = "Thought: a\nAction: click(point='<point>1 2</point>')"
    messages = uitars.build_messages(
        "x", _image(1), [uitars.HistoryTurn(None, answer)], variant="point"
    )
    assert messages[1].text == answer


def test_add_box_tokens_is_idempotent() -> None:
    bare = "Action: drag(start_box='(1,2)', end_box='(3, 4)')"
    wrapped = uitars.add_box_tokens(bare)
    assert wrapped == (
        "Action: drag(start_box='<|box_start|>(1,2)<|box_end|>', "
        "end_box='<|box_start|>(3, 4)<|box_end|>')"
    )
    assert uitars.add_box_tokens(wrapped) == wrapped


def test_flatten_messages_aligns_markers_and_images() -> None:
    history = [uitars.HistoryTurn(_image(1), "Thought: a\nAction: press_back()")]
    text, images = flatten_messages(uitars.build_messages("Go", _image(2), history))
    assert [int(i[0, 0, 0]) for i in images] == [1, 2]
    answer = text.index("Thought: a\nAction: press_back()")
    assert text.index("[Screenshot 1]") < answer < text.index("[Screenshot 2]")
    assert text.endswith("[Screenshot 2] (current screen)")
    assert text.startswith("You are a GUI agent")
