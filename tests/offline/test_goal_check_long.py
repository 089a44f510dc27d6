"""A goal too long to read model-free is left to the planner, at once (hostile input)."""

from __future__ import annotations

import celil_fakes
import pytest

from android_world.agents.custom.celil_protocols import GOAL_UNKNOWN, GOAL_UNMET
from android_world.agents.custom.offline_roles import offline_goal, offline_text


@pytest.mark.parametrize(
    "goal",
    ["delete " * 20_000, "Reply to the most recent text message " * 3_000, "x" * 4_001],
    ids=["a delete verb repeated", "a reply clause repeated", "one word over the cap"],
)
def test_a_goal_over_the_cap_is_unknown_and_says_why(goal):
    # Uncapped, the first two took ~30 s each in the readers' keyword scans.
    verdict = offline_goal.check_goal(goal, [], celil_fakes.screen_of())
    assert verdict.status == GOAL_UNKNOWN
    assert "read model-free" in verdict.reason()


def test_a_long_goal_under_the_cap_is_still_read():
    content = " ".join(f"line {i} of the note" for i in range(180))
    goal = f"Create a new note in Markor named long.md with the following text: {content}"
    assert len(goal) < offline_text.READ_GOAL_MAX_CHARS
    verdict = offline_goal.check_goal(goal, [], celil_fakes.screen_of())
    assert "read model-free" not in verdict.reason()
    assert verdict.status == GOAL_UNMET  # read: nothing was done, the note never showed


def test_the_gates_second_opinion_gives_none_on_a_goal_over_the_cap():
    from android_world.agents.custom.offline_roles.offline_second_opinion import (
        OfflineSecondOpinion,
    )

    goal = "Open the most recent " * 5_000  # ~1 s a proposal when it was read
    opinion = OfflineSecondOpinion().opinion(
        goal, "Do the whole task as asked", celil_fakes.screen_of(), ""
    )
    assert not opinion.confident and "too long" in opinion.why
