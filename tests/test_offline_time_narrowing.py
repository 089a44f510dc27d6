"""Day questions narrowed by time: "at" an instant, "after" a time, "between" two times."""

from __future__ import annotations

import pytest

from android_world.agents.custom import offline_text


@pytest.mark.parametrize(
    ("goal", "when", "times"),
    [
        ("What is on my schedule for October 28 2023 at 7:45am in the app?", "at", ((7, 45),)),
        ("What is on my schedule for today at 12am?", "at", ((0, 0),)),
        ("What is my first event after 16:15 this Tuesday?", "after", ((16, 15),)),
        ("Do I have any events between 4:15pm and 8pm October 20?", "between", ((16, 15), (20, 0))),
        ("What events do I have tomorrow in the app?", "", ()),
    ],
)
def test_parse(goal, when, times):
    question = offline_text.parse_question(goal)
    assert question.kind == "day" and question.when == when and question.times == times


def test_keeps():
    at = offline_text.parse_question("What is on for October 20 at 11:00am?")
    assert at.keeps((10, 30), (11, 0)) and not at.keeps((11, 5), (12, 0))
    assert at.keeps((23, 0), (0, 30)) is False  # past midnight counts as 24:00, not before 11
    after = offline_text.parse_question("My first event after 4pm October 20?")
    assert after.keeps((16, 0), (16, 30)) and not after.keeps((15, 0), (17, 0))
    window = offline_text.parse_question("Any events between 9:45am and 8pm October 20?")
    assert window.keeps((20, 0), (21, 0)) and not window.keeps((9, 30), (10, 30))
