"""The console explains (issue 31 item 3): why each episode ended, an error column named for what
it counts, names cut so that they stay distinct."""

from __future__ import annotations

from typing import Any

import pytest

from android_world.harness import run_output, suite_utils


def _ep(**fields: Any) -> dict[str, Any]:
    base = {
        "name": "ContactsAddContact_0",
        "task_template": "ContactsAddContact",
        "error": None,
        "exception_info": None,
        "episode_length": 7,
        "step_budget": 10,
        "run_time": 2.44,
        "is_successful": 0.0,
        "raw_score": 0.0,
        "done": True,
        "claimed": "complete",
    }
    return base | fields


@pytest.mark.parametrize(
    ("fields", "line"),
    [
        (
            {"is_successful": 1.0, "raw_score": 1.0},
            "ContactsAddContact_0: score 1.0, said complete (7/10 steps, 2.4 s)",
        ),
        (
            {"claimed": "infeasible", "end_reason": "unmet sub-goal 'Save': no screen evidence"},
            "ContactsAddContact_0: score 0.0, said infeasible: unmet sub-goal 'Save': no screen "
            "evidence (7/10 steps, 2.4 s)",
        ),
        (
            {"claimed": "infeasible"},
            "ContactsAddContact_0: score 0.0, said infeasible: no reason given (7/10 steps, 2.4 s)",
        ),
        (
            {"done": False, "claimed": None, "episode_length": 10},
            "ContactsAddContact_0: score 0.0, out of steps (10/10 steps, 2.4 s)",
        ),
        (
            {"error": "RuntimeError: adb went away\nmore", "exception_info": "Traceback ..."},
            "ContactsAddContact_0: ERROR (RuntimeError: adb went away more)",
        ),
        (
            {"scored": False, "is_successful": None, "raw_score": None},
            "ContactsAddContact_0: unscored, said complete (7/10 steps, 2.4 s)",
        ),
    ],
)
def test_each_episode_line_says_why_it_ended(fields, line):
    assert run_output.episode_line(_ep(**fields)) == line


def test_an_episode_line_never_shows_a_secret():
    ep = _ep(
        error="ConnectError: http://user:hunter2@127.0.0.1:8000/v1 refused", exception_info="x"
    )
    assert "hunter2" not in run_output.episode_line(ep)


def test_the_agents_reason_is_kept_on_one_line():
    summary = {"infeasible_reason": "could not\n understand   the goal"}
    assert suite_utils.infeasible_reason("infeasible", summary) == "could not understand the goal"
    assert suite_utils.infeasible_reason("complete", summary) is None
    assert suite_utils.infeasible_reason("infeasible", {"infeasible_reason": 3}) is None


def test_cut_names_stay_distinct():
    names = [
        "RecipeDeleteDuplicateRecipes",
        "RecipeDeleteDuplicateRecipes2",
        "RecipeDeleteDuplicateRecipes3",
        "RecipeDeleteMultipleRecipesWithNoise",
        "SystemWifiTurnOn",
    ]
    shown = suite_utils.distinct_clips(names, 21)
    assert len(set(shown.values())) == len(names)
    assert shown["SystemWifiTurnOn"] == "SystemWifiTurnOn"
    assert all(len(text) <= 21 for text in shown.values())
    assert shown["RecipeDeleteDuplicateRecipes2"].endswith("2")
    # A cut that cannot tell names apart leaves them whole rather than alike.
    twins = suite_utils.distinct_clips(["AAAAAAAAxAAAAAAAA", "AAAAAAAAyAAAAAAAA"], 4)
    assert twins == {n: n for n in twins}


def _summary(names: list[str], error_names: tuple[str, ...] = ()) -> suite_utils.Summary:
    episodes = []
    for name in names:
        failed = name in error_names
        episodes.append(
            _ep(
                name=f"{name}_0",
                task_template=name,
                error="boom" if failed else None,
                exception_info="tb" if failed else None,
                usage={"model_calls": 4, "errors": 1, "prompt_tokens": 10},
            )
        )
    return suite_utils.process_episodes(episodes)


def test_the_compact_table_names_its_error_columns_and_never_collides():
    names = [
        "RecipeDeleteDuplicateRecipes",
        "RecipeDeleteDuplicateRecipes2",
        "RecipeDeleteDuplicateRecipes3",
        "RecipeDeleteMultipleRecipesWithNoise",
    ]
    text = suite_utils.format_summary(_summary(names, error_names=(names[0],)))
    lines = text.splitlines()
    header = lines[0].split()
    assert "errors" in header and "callerr" in header and "fail" not in header
    firsts = [line.split()[0] for line in lines[2:6]]
    assert len(set(firsts)) == 4, firsts
    errors_at = header.index("errors")
    assert [line.split()[errors_at] for line in lines[2:6]] == ["1", "0", "0", "0"]
    assert "macro average" in text and max(len(line) for line in lines) <= 80
    wide = suite_utils.format_summary(_summary(names), wide=True)
    assert "errors" in wide.splitlines()[0] and "calls_failed" in wide.splitlines()[0]
