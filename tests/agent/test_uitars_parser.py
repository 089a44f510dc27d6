"""The UI-TARS output parser against realistic model answers, including the known crash cases."""

from __future__ import annotations

import pytest

from android_world.agents.custom.dialects.uitars import (
    UiTarsAction,
    UiTarsParseFailure,
    parse_point,
    parse_uitars_output,
)

BS, BE = "<|box_start|>", "<|box_end|>"

# (model text, expected action fields) — `None` as the expected value means a failure whose `kind`
# is given in the third column.
ACTION_CASES: list[tuple[str, dict]] = [
    (  # 1.5 dialect with box tokens
        f"Thought: The Settings icon is on the home screen.\nAction: click(start_box='{BS}(235,512){BE}')",
        {
            "action_type": "click",
            "start": (235.0, 512.0),
            "thought": "The Settings icon is on the home screen.",
        },
    ),
    (
        "Thought: tap it\nAction: click(start_box='(235,512)')",
        {"action_type": "click", "start": (235.0, 512.0)},
    ),
    (
        "Thought: tap it\nAction: click(start_box='(235, 512)')",
        {"action_type": "click", "start": (235.0, 512.0)},
    ),
    (  # box form -> centre
        "Thought: tap it\nAction: click(start_box='[235,512,300,600]')",
        {"action_type": "click", "start": (267.5, 556.0)},
    ),
    (  # Doubao point tag
        "Thought: tap it\nAction: click(point='<point>235 512</point>')",
        {"action_type": "click", "start": (235.0, 512.0)},
    ),
    (  # no space after Action:
        "Thought: tap it\nAction:click(start_box='(10,20)')",
        {"action_type": "click", "start": (10.0, 20.0)},
    ),
    (  # box tokens wrapping a 4-number box
        f"Thought: x\nAction: click(start_box='{BS}(100,200,300,400){BE}')",
        {"action_type": "click", "start": (200.0, 300.0)},
    ),
    (  # unquoted tuple argument
        "Thought: x\nAction: click(start_box=(640, 1180))",
        {"action_type": "click", "start": (640.0, 1180.0)},
    ),
    (  # desktop alias
        "Thought: x\nAction: left_single(start_box='(5,6)')",
        {"action_type": "click", "start": (5.0, 6.0)},
    ),
    (
        f"Thought: hold the message\nAction: long_press(start_box='{BS}(540,1300){BE}')",
        {"action_type": "long_press", "start": (540.0, 1300.0)},
    ),
    (
        "Thought: hold\nAction: long_press(point='<point>100 900</point>')",
        {"action_type": "long_press", "start": (100.0, 900.0)},
    ),
    (
        "Thought: zoom\nAction: left_double(start_box='(300,400)')",
        {"action_type": "left_double", "start": (300.0, 400.0)},
    ),
    (
        "Thought: type the name\nAction: type(content='Alice Smith')",
        {"action_type": "type", "content": "Alice Smith"},
    ),
    (  # escaped newline = submit
        "Thought: search\nAction: type(content='weather today\\n')",
        {"action_type": "type", "content": "weather today\n"},
    ),
    (  # a real newline inside the string (reference parser fails)
        "Thought: note\nAction: type(content='first line\nsecond line')",
        {"action_type": "type", "content": "first line\nsecond line"},
    ),
    (  # escaped quotes
        "Thought: t\nAction: type(content='It\\'s \\\"fine\\\"')",
        {"action_type": "type", "content": 'It\'s "fine"'},
    ),
    (  # unescaped quote inside: tolerant reader
        "Thought: t\nAction: type(content='I'm here\\n')",
        {"action_type": "type", "content": "I'm here\n"},
    ),
    ("Thought: t\nAction: type(content='')", {"action_type": "type", "content": ""}),
    (  # double-quoted content
        'Thought: t\nAction: type(content="say \\"hi\\"")',
        {"action_type": "type", "content": 'say "hi"'},
    ),
    (
        f"Thought: more below\nAction: scroll(start_box='{BS}(540,1200){BE}', direction='down')",
        {"action_type": "scroll", "start": (540.0, 1200.0), "direction": "down", "end": None},
    ),
    (  # scroll with no point
        "Thought: more\nAction: scroll(direction='up')",
        {"action_type": "scroll", "start": None, "direction": "up"},
    ),
    (
        "Thought: more\nAction: scroll(point='<point>500 500</point>', direction='LEFT')",
        {"action_type": "scroll", "start": (500.0, 500.0), "direction": "left"},
    ),
    (  # scroll with an end box instead of a direction
        f"Thought: x\nAction: scroll(start_box='{BS}(540,1800){BE}', end_box='{BS}(540,600){BE}')",
        {
            "action_type": "scroll",
            "start": (540.0, 1800.0),
            "end": (540.0, 600.0),
            "direction": None,
        },
    ),
    (
        f"Thought: move\nAction: drag(start_box='{BS}(100,200){BE}', end_box='{BS}(900,210){BE}')",
        {"action_type": "drag", "start": (100.0, 200.0), "end": (900.0, 210.0)},
    ),
    (
        "Thought: move\nAction: drag(start_point='<point>10 20</point>', end_point='<point>30 40</point>')",
        {"action_type": "drag", "start": (10.0, 20.0), "end": (30.0, 40.0)},
    ),
    (
        "Thought: open it\nAction: open_app(app_name='Simple Calendar Pro')",
        {"action_type": "open_app", "app_name": "Simple Calendar Pro"},
    ),
    ("Thought: home\nAction: press_home()", {"action_type": "press_home"}),
    ("Thought: back\nAction: press_back()", {"action_type": "press_back"}),
    ("Thought: back\nAction: press_back", {"action_type": "press_back"}),  # no parentheses
    ("Thought: loading\nAction: wait()", {"action_type": "wait"}),
    (
        "Thought: done\nAction: finished(content='Done. It\\'s set')",
        {"action_type": "finished", "content": "Done. It's set"},
    ),
    (
        "Thought: done\nAction: finished(content='Line one\\nLine two')",
        {"action_type": "finished", "content": "Line one\nLine two"},
    ),
    ("Thought: done\nAction: finished()", {"action_type": "finished", "content": ""}),
    ("Thought: enter\nAction: hotkey(key='Enter')", {"action_type": "hotkey", "key": "enter"}),
    ("Thought: stuck\nAction: call_user()", {"action_type": "call_user"}),
    (  # Reflection and Action_Summary sections
        "Reflection: The last tap missed.\nAction_Summary: Tap the Wi-Fi row.\n"
        "Thought: Try the row text.\nAction: click(start_box='(300,700)')",
        {
            "action_type": "click",
            "reflection": "The last tap missed.",
            "summary": "Tap the Wi-Fi row.",
            "thought": "Try the row text.",
        },
    ),
    (  # several actions: the first wins
        "Thought: two steps\nAction: click(start_box='(1,2)')\n\nclick(start_box='(3,4)')",
        {"action_type": "click", "start": (1.0, 2.0)},
    ),
    (  # the thought mentions "Action:" inline; the line-start label is the real one
        "Thought: The next Action: tap Save.\nAction: click(start_box='(9,9)')",
        {"action_type": "click", "start": (9.0, 9.0), "thought": "The next Action: tap Save."},
    ),
    (  # multi-line thought, trailing end token
        "Thought: The list shows contacts.\nI need Bob.\nAction: click(start_box='(50,60)')<|im_end|>",
        {"action_type": "click", "thought": "The list shows contacts.\nI need Bob."},
    ),
    (  # no Thought label: the text before Action: is the thought
        "I should go back.\nAction: press_back()",
        {"action_type": "press_back", "thought": "I should go back."},
    ),
    (  # Windows line endings
        "Thought: x\r\nAction: click(start_box='(7,8)')\r\n",
        {"action_type": "click", "start": (7.0, 8.0)},
    ),
    (  # content containing "Action:" is kept intact
        "Thought: x\nAction: type(content='Action: buy milk')",
        {"action_type": "type", "content": "Action: buy milk"},
    ),
    (  # positional argument instead of keyword
        "Thought: x\nAction: open_app('Contacts')",
        {"action_type": "open_app", "app_name": "Contacts"},
    ),
    (  # everything on one line
        "Thought: tap OK Action: click(start_box='(3,4)')",
        {"action_type": "click", "start": (3.0, 4.0), "thought": "tap OK"},
    ),
    (  # markdown-ish bold labels
        "**Thought:** go home\n**Action:** press_home()",
        {"action_type": "press_home", "thought": "go home"},
    ),
    (  # decimals
        "Thought: x\nAction: click(start_box='(12.5,40.25)')",
        {"action_type": "click", "start": (12.5, 40.25)},
    ),
]

FAILURE_CASES: list[tuple[str | None, str]] = [
    ("Thought: I am not sure what to do.", "no_action"),
    ("", "no_text"),
    (None, "no_text"),
    ("Thought: x\nAction: click(start_box='=')", "bad_argument"),  # known v1 glitch
    ("Thought: x\nAction: click()", "bad_argument"),
    ("Thought: x\nAction: click(start_box='(1,2,3)')", "bad_argument"),
    ("Thought: x\nAction: right_single(start_box='(1,2)')", "unknown_action"),
    ("Thought: x\nAction: teleport(to='moon')", "unknown_action"),
    ("Thought: x\nAction: scroll(start_box='(1,2)')", "bad_argument"),
    ("Thought: x\nAction: scroll(start_box='(1,2)', direction='sideways')", "bad_argument"),
    ("Thought: x\nAction: drag(start_box='(1,2)')", "bad_argument"),
    ("Thought: x\nAction: open_app(app_name='')", "bad_argument"),
    ("Thought: x\nAction: hotkey()", "bad_argument"),
    ("Thought: x\nAction: I will tap the button", "no_call"),
    ("Thought: x\nAction:", "no_call"),
]


def test_table_is_large_enough() -> None:
    assert len(ACTION_CASES) + len(FAILURE_CASES) >= 30


@pytest.mark.parametrize(("text", "expected"), ACTION_CASES)
def test_parses_action(text: str, expected: dict) -> None:
    result = parse_uitars_output(text)
    assert isinstance(result, UiTarsAction), result
    for field, value in expected.items():
        assert getattr(result, field) == value, (field, result)


@pytest.mark.parametrize(("text", "kind"), FAILURE_CASES)
def test_parse_failure(text: str | None, kind: str) -> None:
    result = parse_uitars_output(text)
    assert isinstance(result, UiTarsParseFailure), result
    assert result.kind == kind
    assert result.reason


def test_failure_keeps_thought_and_action_name() -> None:
    result = parse_uitars_output("Thought: weird\nAction: teleport(to='moon')")
    assert isinstance(result, UiTarsParseFailure)
    assert result.thought == "weird"
    assert result.action_name == "teleport"


def test_call_text_is_first_call_only() -> None:
    result = parse_uitars_output("Thought: x\nAction: press_home()\n\npress_back()")
    assert isinstance(result, UiTarsAction)
    assert result.action_type == "press_home"
    assert result.call_text == "press_home()"


@pytest.mark.parametrize(
    "text",
    [
        "Action: click(start_box='(((')",
        "Action: type(content='unterminated",
        "Action: click(start_box=" + "(" * 500,
        "Thought: \x00\x01\nAction: \x00(",
        "Action: " + "a(" * 2000,
        "Action: click(start_box='(1e999,5)')",
    ],
)
def test_never_raises_on_garbage(text: str) -> None:
    result = parse_uitars_output(text)
    assert isinstance(result, (UiTarsAction, UiTarsParseFailure))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("(1,2)", (1.0, 2.0)),
        (f"{BS}(3, 4){BE}", (3.0, 4.0)),
        ("[0,0,10,20]", (5.0, 10.0)),
        ("<point>7 8</point>", (7.0, 8.0)),
        ((1, 2), (1.0, 2.0)),
        ([[0, 0], [4, 4]], (2.0, 2.0)),
        ("=", None),
        ("", None),
        (None, None),
        (5, None),
    ],
)
def test_parse_point(value: object, expected: tuple[float, float] | None) -> None:
    assert parse_point(value) == expected
