"""UI-TARS answers in the shapes real models wrote (sources in each case's comment).

The answers are written here in our own words and values; only their shape follows what was
reported.
"""

from __future__ import annotations

import pytest

from android_world.agents.custom.dialects import uitars
from android_world.env import json_action

SCREEN, SENT = (1080, 2400), (1080, 2400)


@pytest.mark.parametrize(
    ("answer", "kind", "start", "content", "dropped"),
    [
        # A full-width colon after "Action" (doubao-1.5-ui-tars, web-infra-dev/midscene#843).
        (
            "Thought: open it\nAction\uff1aclick(start_box='(120,340)')",
            "click",
            (120, 340),
            None,
            (),
        ),
        # `text=` for the typed string, as some fine-tunes spell it.
        ("Thought: type\nAction: type(text='milk and eggs')", "type", None, "milk and eggs", ()),
        # content plus the field's point (UI-TARS type with start_box; OSWorld#296 discusses
        # type(content=...) handling): the point is kept so the field is tapped first.
        (
            "Thought: fill the name\nAction: type(content='Ada', start_box='(500,900)')",
            "type",
            (500, 900),
            "Ada",
            (),
        ),
        # No `Action:` label, only the call on the last line (quantised GGUF builds drift from the
        # format; bytedance/UI-TARS-desktop#37 comments).
        ("I will open the settings.\nclick(start_box='(40,60)')", "click", (40, 60), None, ()),
        # Two actions on one line: the first runs, the second is reported as dropped.
        (
            "Thought: x\nAction: click(start_box='(1,2)') click(start_box='(3,4)')",
            "click",
            (1, 2),
            None,
            ("click(start_box='(3,4)')",),
        ),
        (
            "Thought: x\nAction: click(start_box='(5,6)'); type(content='hi')",
            "click",
            (5, 6),
            None,
            ("type(content='hi')",),
        ),
    ],
)
def test_real_shapes_parse(answer, kind, start, content, dropped):
    parsed = uitars.parse_uitars_output(answer)
    assert isinstance(parsed, uitars.UiTarsAction), parsed
    assert parsed.action_type == kind
    assert parsed.start == (None if start is None else tuple(float(v) for v in start))
    if content is not None:
        assert parsed.content == content
    assert parsed.dropped == dropped


def test_type_with_a_point_taps_that_field_before_typing():
    parsed = uitars.parse_uitars_output("Action: type(content='Ada', start_box='(500,900)')")
    action = uitars.to_json_action(parsed, SCREEN, SENT)
    assert isinstance(action, json_action.JSONAction)
    assert (action.action_type, action.text, action.x, action.y) == ("input_text", "Ada", 500, 900)


def test_prose_without_any_call_is_still_no_action():
    parsed = uitars.parse_uitars_output("I think the Settings app is the right place.")
    assert isinstance(parsed, uitars.UiTarsParseFailure) and parsed.kind == "no_action"
