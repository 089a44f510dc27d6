"""answer_check: upstream's information-retrieval answer rules, as pure functions."""

from __future__ import annotations

import datetime

import pytest

from android_world.task_evals import answer_check as ac
from android_world.task_evals.answer_check import MatchType


def test_split_strips_parts():
    assert ac.split_answer(" a ,b,  c d ") == ["a", "b", "c d"]


@pytest.mark.parametrize(
    ("a", "b", "ok"),
    [
        ("Team lunch", "team lunch", True),
        ("Team lunch", "Team lunc", True),  # ratio 0.95
        ("Team lunch", "Team", False),
        ("Bug Bash", "Bug Bash!", True),
        (None, "x", False),
    ],
)
def test_fuzzy_match(a, b, ok):
    assert ac.fuzzy_match(a, b) is ok


def test_fuzzy_match_case_sensitive_option():
    assert not ac.fuzzy_match("ABCDEFGHIJ", "abcdefghij", ignore_case=False)


def test_strings_any_order_same_count():
    expected = ["Team lunch", "Board meeting"]
    assert ac.check_answer("board meeting, Team Lunch", expected, MatchType.STRING)
    assert not ac.check_answer("Team lunch", expected, MatchType.STRING)
    assert not ac.check_answer("Team lunch, Board meeting, Concert", expected, MatchType.STRING)
    assert not ac.check_answer("Team lunch, Concert", expected, MatchType.STRING)


def test_numbers_exact_and_tolerance():
    assert ac.check_answer("12", [12], MatchType.NUMBER)
    assert ac.check_answer("12.0", ["12"], MatchType.NUMBER)
    assert not ac.check_answer("12.004", [12], MatchType.NUMBER)
    assert ac.check_answer("12.004", [12], MatchType.NUMBER, tolerance=0.01)
    assert not ac.check_answer("12.02", [12], MatchType.NUMBER, tolerance=0.01)
    with pytest.raises(ValueError):
        ac.check_answer("twelve", [12], MatchType.NUMBER)


def test_dates_and_times():
    assert ac.check_answer("October 16 2023", [datetime.date(2023, 10, 16)], MatchType.DATE)
    assert not ac.check_answer("October 17 2023", ["October 16 2023"], MatchType.DATE)
    with pytest.raises(ValueError):
        ac.check_answer("2023-10-16", ["October 16 2023"], MatchType.DATE)
    assert ac.check_answer("09:30", [datetime.time(9, 30)], MatchType.TIME)
    assert ac.check_answer("9:30", ["09:30"], MatchType.TIME)
    with pytest.raises(ValueError):
        ac.check_answer("9:30am", ["09:30"], MatchType.TIME)
    when = datetime.datetime(2023, 10, 16, 9, 30)
    assert ac.check_answer("October 16 2023 09:30", [when], MatchType.DATE_TIME)
    assert not ac.check_answer("October 16 2023 09:31", [when], MatchType.DATE_TIME)


def test_score_answer_empty_and_malformed_are_zero():
    assert ac.score_answer("", ["x"], MatchType.STRING) == 0.0
    assert ac.score_answer(None, ["x"], MatchType.STRING) == 0.0
    assert ac.score_answer("abc", [1.0], MatchType.NUMBER) == 0.0
    assert ac.score_answer("1", [1.0], MatchType.NUMBER) == 1.0
    assert ac.score_answer("Concert", ["Concert"], MatchType.STRING) == 1.0


def test_booleans_are_not_numbers():
    with pytest.raises(ValueError):
        ac.cast(MatchType.NUMBER, True)
