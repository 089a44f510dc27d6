"""The Section Leader end to end with scripted model wrappers: UI-TARS and JSON executor formats."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from android_world.agents import infer
from android_world.agents.custom import celil_geometry
from android_world.agents.custom.celil_protocols import (
    ActionGenerator,
    Observation,
    OcrLine,
    ProposedAction,
)
from android_world.agents.custom.model_clients.call_types import (
    CallResult,
    ChatMessage,
    ModelRequest,
)
from android_world.agents.custom.roles import celil_section_leader as sl
from android_world.env import json_action
from android_world.env.representation_utils import BoundingBox, UIElement

SCREEN = (1080, 2400)


def _element(box: tuple[int, int, int, int], **fields: Any) -> UIElement:
    return UIElement(bbox_pixels=BoundingBox(*box), is_visible=True, **fields)


def _elements(focused_field: bool = False) -> list[UIElement]:
    return [
        _element((0, 1080, 0, 80), text="15:34", class_name="android.widget.TextView"),
        _element((0, 1080, 300, 2200), is_scrollable=True, class_name="android.widget.ListView"),
        _element((0, 1080, 1100, 1300), text="Wi-Fi", is_clickable=True, class_name="LinearLayout"),
        _element(
            (900, 1050, 1150, 1250),
            content_description="Wi-Fi toggle",
            is_clickable=True,
            class_name="android.widget.Switch",
        ),
        _element(
            (0, 1080, 200, 300),
            hint_text="Search settings",
            is_editable=True,
            is_focused=focused_field,
            class_name="android.widget.EditText",
        ),
        _element((0, 500, 1150, 1250), text="Wi-Fi", class_name="android.widget.TextView"),
        UIElement(bbox_pixels=BoundingBox(0, 1080, 0, 2400), is_clickable=True, is_visible=False),
    ]


def _observation(focused_field: bool = False) -> Observation:
    return Observation(
        screenshot=np.zeros((2400, 1080, 3), dtype=np.uint8),
        ui_elements=_elements(focused_field),
        ocr_lines=[OcrLine("Bluetooth", BoundingBox(100, 600, 1400, 1460), 95.0)],
        ocr_summary="Wi-Fi\nBluetooth",
        ui_tree_summary="0: TextView 15:34\n1: ListView [scrollable]\n2: Wi-Fi [clickable]",
        screen_size=SCREEN,
        frame_hash="abc",
    )


class ScriptedWrapper:
    """Answers from a script and records what it was sent (the chat flattened)."""

    def __init__(self, *answers: Any, is_safe: bool | None = True):
        self.answers = list(answers)
        self.is_safe = is_safe
        self.calls: list[tuple[str, list[np.ndarray]]] = []

    def call(self, request: ModelRequest) -> CallResult:
        self.calls.append(request.flattened())
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return CallResult.answered(answer, self.is_safe, {"raw": True})


def _generator(*answers: Any, **kwargs: Any) -> tuple[sl.UITarsActionGenerator, ScriptedWrapper]:
    wrapper = ScriptedWrapper(*answers, is_safe=kwargs.pop("is_safe", True))
    return sl.UITarsActionGenerator(wrapper, **kwargs), wrapper


# -- snapping ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("point", "expected"),
    [
        ((540, 1200), 2),  # the row, not the list around it, not the invisible overlay
        ((950, 1200), 3),  # the switch inside the row
        ((540, 250), 4),  # the text field
        ((540, 2000), None),  # only the scroll-only list contains it: a tap never snaps there
        ((540, 2300), None),  # nothing actionable and visible
        ((540, 40), None),  # a plain label is not actionable
    ],
)
def test_snap_to_smallest_actionable(point: tuple[int, int], expected: int | None) -> None:
    assert sl.snap_to_element(*point, _elements()) == expected


def test_snap_gestures_and_normalised_boxes_and_ties() -> None:
    assert sl.snap_to_element(540, 1200, _elements(), gesture=sl.SCROLL) == 1
    assert sl.snap_to_element(540, 2000, _elements(), gesture=sl.TAP) is None
    assert sl.snap_to_element is celil_geometry.snap_to_element  # one rule for all of Celil
    disabled = [_element((0, 100, 0, 100), is_clickable=True, is_enabled=False)]
    assert sl.snap_to_element(50, 50, disabled) is None
    hidden_list = [
        UIElement(bbox_pixels=BoundingBox(0, 100, 0, 100), is_scrollable=True, is_visible=False)
    ]
    assert sl.snap_to_element(50, 50, hidden_list, gesture=sl.SCROLL) is None
    with pytest.raises(ValueError, match="gesture"):
        sl.snap_to_element(50, 50, disabled, gesture="pinch")  # type: ignore[arg-type]
    normalised = [UIElement(bbox=BoundingBox(0.5, 1.0, 0.5, 1.0), is_clickable=True)]
    assert sl.snap_to_element(800, 1800, normalised, SCREEN) == 0
    assert sl.snap_to_element(800, 1800, normalised) is None  # no pixels, no screen size
    twins = [
        _element((0, 10, 0, 10), is_clickable=True),
        _element((0, 10, 0, 10), is_clickable=True),
    ]
    assert sl.snap_to_element(5, 5, twins) == 1


def test_describe_element() -> None:
    assert sl.describe_element(_elements()[3]) == '"Wi-Fi toggle" (Switch)'
    assert sl.describe_element(_elements()[4]) == '"Search settings" (EditText)'
    assert sl.describe_element(UIElement(resource_name="com.x:id/save_btn")) == '"save_btn"'


# -- UI-TARS format ---------------------------------------------------------------------------


def test_is_an_action_generator() -> None:
    generator, _ = _generator()
    assert isinstance(generator, ActionGenerator)


def test_click_snaps_to_element_index() -> None:
    generator, wrapper = _generator(
        "Thought: Open the Wi-Fi settings.\nAction: click(start_box='<|box_start|>(336,742)<|box_end|>')"
    )
    proposal = generator.generate_action("Open Wi-Fi settings", _observation(), "Opened Settings.")
    assert proposal.action == json_action.JSONAction(action_type="click", index=2)
    assert proposal.target_description == '"Wi-Fi" (LinearLayout)'
    assert proposal.thought == "Open the Wi-Fi settings."
    assert proposal.error is None and proposal.is_safe is True and proposal.usable
    prompt, images = wrapper.calls[0]
    assert images[0].shape == (1484, 672, 3)
    assert generator.last_sent_size == (672, 1484)
    assert "Open Wi-Fi settings" in prompt and "Opened Settings." in prompt
    assert "click(start_box='<|box_start|>(x1,y1)<|box_end|>')" in prompt


def test_click_without_element_keeps_point_and_names_ocr_text() -> None:
    # (336, 1424) in the sent image -> (540, 2303) on screen: below the list.
    generator, _ = _generator("Thought: x\nAction: click(start_box='(336,1424)')")
    proposal = generator.generate_action("Tap", _observation(), "")
    assert proposal.action == json_action.JSONAction(action_type="click", x=540, y=2303)
    assert proposal.target_description == "point (540, 2303)"
    # On a row that only the scroll list contains: keep the point, name the OCR text.
    generator, _ = _generator("Thought: x\nAction: click(start_box='(224,886)')")
    proposal = generator.generate_action("Tap Bluetooth", _observation(), "")
    assert proposal.action == json_action.JSONAction(action_type="click", x=360, y=1433)
    assert proposal.target_description == 'point (360, 1433) on "Bluetooth"'


def test_long_press_relative_convention() -> None:
    generator, _ = _generator(
        "Thought: x\nAction: long_press(point='<point>880 500</point>')",
        coordinate_convention="relative_1000",
        prompt_variant="point",
    )
    proposal = generator.generate_action("Hold the toggle", _observation(), "")
    assert proposal.action == json_action.JSONAction(action_type="long_press", index=3)


def test_type_targets_focused_field_or_focused_input() -> None:
    generator, _ = _generator("Thought: x\nAction: type(content='wifi\\n')")
    proposal = generator.generate_action("Search wifi", _observation(focused_field=True), "")
    assert proposal.action == json_action.JSONAction(action_type="input_text", text="wifi", index=4)
    assert proposal.target_description == '"Search settings" (EditText)'
    generator, _ = _generator("Thought: x\nAction: type(content='wifi')")
    proposal = generator.generate_action("Search wifi", _observation(focused_field=False), "")
    assert proposal.action == json_action.JSONAction(action_type="input_text", text="wifi")
    assert proposal.action.index is None


def test_scroll_uses_scrollable_element_or_whole_screen() -> None:
    generator, _ = _generator(
        "Thought: x\nAction: scroll(start_box='(336,742)', direction='down')",
        "Thought: x\nAction: scroll(direction='up')",
    )
    proposal = generator.generate_action("Find Battery", _observation(), "")
    assert proposal.action == json_action.JSONAction(
        action_type="scroll", direction="down", index=1
    )
    proposal = generator.generate_action("Find Battery", _observation(), "")
    assert proposal.action == json_action.JSONAction(action_type="scroll", direction="up")
    assert proposal.target_description == "the whole screen"


def test_open_app_and_navigation() -> None:
    generator, _ = _generator(
        "Thought: x\nAction: open_app(app_name='Settings')", "Thought: x\nAction: press_back()"
    )
    proposal = generator.generate_action("Open Settings", _observation(), "")
    assert proposal.action == json_action.JSONAction(action_type="open_app", app_name="Settings")
    assert proposal.target_description == "Settings"
    proposal = generator.generate_action("Open Settings", _observation(), "")
    assert proposal.action == json_action.JSONAction(action_type="navigate_back")


def test_finished_ends_sub_goal_without_action() -> None:
    generator, _ = _generator("Thought: It is on.\nAction: finished(content='Wi-Fi is on')")
    proposal = generator.generate_action("Turn Wi-Fi on", _observation(), "")
    assert proposal.action is None and proposal.sub_goal_finished
    assert proposal.finished_content == "Wi-Fi is on" and proposal.usable
    assert proposal.error is None


@pytest.mark.parametrize(
    ("answer", "is_safe", "error_part"),
    [
        (infer.ERROR_CALLING_LLM, None, "error calling the model"),
        ("Thought: fine\nAction: click(start_box='(1,1)')", False, "safety"),
        ("I cannot help with that ¯\\_(ツ)_/¯", True, "unparseable"),
        ("Thought: x\nAction: click(start_box='=')", True, "unparseable"),
        ("Thought: x\nAction: call_user()", True, "call_user"),
        ("", True, "empty"),
        (RuntimeError("connection refused"), None, "connection refused"),
        (None, None, "error calling the model"),
    ],
)
def test_failures_are_proposals_not_exceptions(answer: Any, is_safe: Any, error_part: str) -> None:
    generator, _ = _generator(answer, is_safe=is_safe)
    proposal = generator.generate_action("Do it", _observation(), "")
    assert isinstance(proposal, ProposedAction)
    assert proposal.action is None and not proposal.sub_goal_finished and not proposal.usable
    assert error_part in (proposal.error or "")
    if is_safe is False:
        assert proposal.is_safe is False
    if isinstance(answer, str) and answer:
        assert proposal.raw_output == answer
    assert generator.history == ()


def test_history_is_sent_back_per_sub_goal_and_reset_clears_it() -> None:
    first = "Thought: one\nAction: click(start_box='(336,742)')"
    generator, wrapper = _generator(
        first, "Thought: two\nAction: wait()", "Thought: 3\nAction: wait()"
    )
    generator.generate_action("Open Wi-Fi", _observation(), "")
    generator.generate_action("Open Wi-Fi", _observation(), "")
    prompt, images = wrapper.calls[1]
    assert "Thought: one\nAction: click(start_box='<|box_start|>(336,742)<|box_end|>')" in prompt
    assert len(images) == 2
    assert len(generator.history) == 2
    generator.generate_action("Another sub-goal", _observation(), "")
    prompt, images = wrapper.calls[2]
    assert "Thought: one" not in prompt and len(images) == 1
    generator.reset()
    assert generator.history == () and generator.last_sent_size is None


def test_history_image_cap() -> None:
    answers = [f"Thought: {i}\nAction: wait()" for i in range(8)]
    generator, wrapper = _generator(*answers, history_images=3)
    for _ in range(8):
        generator.generate_action("Wait for it", _observation(), "")
    prompt, images = wrapper.calls[-1]
    assert len(images) == 3
    assert "Thought: 0" in prompt  # answers outlive their screenshots
    assert sum(turn.screenshot is not None for turn in generator.history) == 3


def test_discard_last_turn() -> None:
    generator, _ = _generator("Thought: x\nAction: wait()")
    generator.generate_action("Wait", _observation(), "")
    generator.discard_last_turn()
    assert generator.history == ()


def test_the_executor_sends_a_real_chat() -> None:
    class ChatWrapper(ScriptedWrapper):
        def __init__(self, *answers: Any):
            super().__init__(*answers)
            self.messages: list[tuple[ChatMessage, ...]] = []

        def call(self, request: ModelRequest) -> CallResult:
            self.messages.append(request.messages)
            return CallResult.answered(self.answers.pop(0), True)

    wrapper = ChatWrapper("Thought: x\nAction: press_home()")
    generator = sl.UITarsActionGenerator(wrapper)
    proposal = generator.generate_action("Go home", _observation(), "")
    assert proposal.action == json_action.JSONAction(action_type="navigate_home")
    assert wrapper.calls == [] and len(wrapper.messages) == 1
    assert [m.role for m in wrapper.messages[0]] == ["user", "user"]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"coordinate_convention": "pixels"},
        {"prompt_variant": "desktop"},
        {"executor_format": "xml"},
        {"history_scope": "forever"},
        {"max_image_pixels": 10},
    ],
)
def test_bad_configuration_raises(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        sl.UITarsActionGenerator(ScriptedWrapper(), **kwargs)


# -- JSON executor format ---------------------------------------------------------------------


def _json_generator(*answers: Any) -> tuple[sl.UITarsActionGenerator, ScriptedWrapper]:
    return _generator(*answers, executor_format="json")


def test_json_click_by_index() -> None:
    generator, wrapper = _json_generator(
        'Reason: The Wi-Fi row opens the page.\nAction: {"action_type": "click", "index": 2}'
    )
    proposal = generator.generate_action("Open Wi-Fi", _observation(), "Opened Settings.")
    assert proposal.action == json_action.JSONAction(action_type="click", index=2)
    assert proposal.thought == "The Wi-Fi row opens the page."
    assert proposal.target_description == '"Wi-Fi" (LinearLayout)'
    prompt, images = wrapper.calls[0]
    assert "1: ListView [scrollable]" in prompt and "Open Wi-Fi" in prompt
    assert images[0].shape == (1484, 672, 3)


def test_json_fenced_multiline_and_history() -> None:
    generator, wrapper = _json_generator(
        'Reason: type it\nAction: ```json\n{\n  "action_type": "input_text",\n  "text": "wifi",\n'
        '  "index": 4\n}\n```',
        'Reason: wait\nAction: {"action_type": "wait"}',
    )
    proposal = generator.generate_action("Search", _observation(), "")
    assert proposal.action == json_action.JSONAction(action_type="input_text", text="wifi", index=4)
    generator.generate_action("Search", _observation(), "")
    assert '"input_text"' in wrapper.calls[1][0] and "type it" in wrapper.calls[1][0]


def test_json_status_and_answer_finish_the_sub_goal() -> None:
    generator, _ = _json_generator(
        'Reason: done\nAction: {"action_type": "status", "goal_status": "complete"}',
        'Reason: read it\nAction: {"action_type": "answer", "text": "3 alarms"}',
        'Reason: no\nAction: {"action_type": "status", "goal_status": "infeasible"}',
    )
    proposal = generator.generate_action("Check", _observation(), "")
    assert proposal.sub_goal_finished and proposal.action is None
    proposal = generator.generate_action("Count alarms", _observation(), "")
    assert proposal.sub_goal_finished and proposal.finished_content == "3 alarms"
    proposal = generator.generate_action("Fly", _observation(), "")
    assert not proposal.usable and "infeasible" in (proposal.error or "")


JSON_SHAPES = [
    # Small chat models (issue 12's SmolLM2 runs as a JSON executor) add a reason key, wrap the
    # action, use everyday verbs or call the index "element"; upstream's T3A/M3A prompt shape is
    # the plain {"action_type": ..., "index": ...} object.
    ('Action: {"action_type": "click", "index": 2, "reason": "the Wi-Fi row"}', "click", 2),
    ('Action: {"action": {"action_type": "click", "index": 2}}', "click", 2),
    ('Action: {"action": "tap", "index": "2"}', "click", 2),
    ('Action: {"type": "Long press", "element": 2}', "long_press", 2),
    ('Action: {"action_type": "go_back"}', "navigate_back", None),
    (
        '<think>{"action_type": "wait"}</think>\nAction: {"action_type": "click", "idx": 2}',
        "click",
        2,
    ),
]


@pytest.mark.parametrize(("answer", "kind", "index"), JSON_SHAPES)
def test_json_actions_in_real_shapes(answer: str, kind: str, index: int | None) -> None:
    generator, _ = _json_generator("Reason: r\n" + answer if "Reason" not in answer else answer)
    proposal = generator.generate_action("Open Wi-Fi", _observation(), "")
    assert proposal.usable, proposal.error
    assert proposal.action is not None and proposal.action.action_type == kind
    assert proposal.action.index == index


def test_normalise_json_action_reports_dropped_keys() -> None:
    payload, dropped = sl.normalise_json_action({"action_type": "Click", "index": 1, "why": "x"})
    assert payload == {"action_type": "click", "index": 1} and dropped == ["why"]


@pytest.mark.parametrize(
    ("answer", "error_part"),
    [
        ("Reason: hmm\nAction: click the second one", "no JSON"),
        ('Reason: x\nAction: {"action_type": "click", "index": 7}', "out of range"),
        ('Reason: x\nAction: {"action_type": "click", "index": -1}', "out of range"),
        ('Reason: x\nAction: {"action_type": "fly", "index": 1}', "invalid JSON action"),
        ('Reason: x\nAction: {"action_type": "click", "target": 1}', "needs an element"),
        ('Reason: x\nAction: {"action_type": "open_app", "app_name": "<app name>"}', "placeholder"),
        (
            'Reason: x\nAction: {"action_type": "input_text", "text": "<text>", "index": 4}',
            "placeholder",
        ),
        ('Reason: x\nAction: {"action_type": "click", "index": "two"}', "invalid JSON action"),
        ('Reason: x\nAction: {"action_type": "click", "index": 1, "x": 5}', "invalid JSON action"),
        ('Reason: x\nAction: {"action_type": "click"}', "needs an element"),
        ('Reason: x\nAction: {"action_type": "scroll", "direction": "sideways"}', "invalid"),
        ('Reason: x\nAction: {"action_type": "input_text", "index": 4}', "needs a text"),
        ("Reason: x\nAction: {'action_type': 'open_app'}", "needs an app_name"),
    ],
)
def test_json_bad_answers_are_failed_proposals(answer: str, error_part: str) -> None:
    generator, _ = _json_generator(answer)
    proposal = generator.generate_action("Do it", _observation(), "")
    assert proposal.action is None and not proposal.usable
    assert error_part in (proposal.error or ""), proposal.error
    assert proposal.raw_output == answer
    assert generator.history == ()


def test_json_prompt_falls_back_to_element_list() -> None:
    observation = _observation()
    observation.ui_tree_summary = ""
    generator, wrapper = _json_generator('Reason: x\nAction: {"action_type": "navigate_home"}')
    proposal = generator.generate_action("Go home", observation, "")
    assert proposal.action == json_action.JSONAction(action_type="navigate_home")
    assert '3: "Wi-Fi toggle" (Switch) [clickable]' in wrapper.calls[0][0]
