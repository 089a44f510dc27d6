"""False completions are counted: said complete but the check failed, said infeasible but done."""

from __future__ import annotations

import json

import harness_fakes as fakes
import pytest

from android_world.agents import base_agent
from android_world.env import json_action
from android_world.harness import run_output, suite_utils


class SaysAtOnce(base_agent.EnvironmentInteractingAgent):
    """Ends the episode on its first step with `status` (complete or infeasible), doing nothing."""

    def __init__(self, env, status: str):
        super().__init__(env, name=f"says_{status}", transition_pause=0.0)
        self.status = status

    def step(self, goal: str) -> base_agent.AgentInteractionResult:
        action = json_action.JSONAction(action_type="status", goal_status=self.status)
        return base_agent.AgentInteractionResult(True, {"action": action.as_dict()})


def _episode(task: str, agent_status: str, wifi_on_already: bool) -> dict:
    env = fakes.FakeEnv()
    suite = suite_utils.create_suite(fakes.TASKS, tasks=[task], seed=0)
    [instance] = suite[task]
    if wifi_on_already:
        original = instance.initialize_task

        def initialize(env_):
            original(env_)
            env_.controller.put_setting("global", "wifi_on", "1")

        instance.initialize_task = initialize
    [episode] = suite_utils.run(suite, SaysAtOnce(env, agent_status), print_fn=lambda _m: None)
    return episode


def test_said_complete_without_doing_it_is_a_false_completion():
    episode = _episode("FakeWifiOn", "complete", wifi_on_already=False)
    row = run_output.result_row(episode)
    assert row["claimed"] == "complete" and row["raw_score"] == 0.0
    assert (row["false_complete"], row["false_infeasible"]) == (True, False)
    line = suite_utils.claims_line([episode])
    assert line.startswith("Claims: 1 said complete, 1 of them falsely")


def test_said_infeasible_when_the_task_was_done_is_counted_too():
    episode = _episode("FakeWifiOn", "infeasible", wifi_on_already=True)
    row = run_output.result_row(episode)
    assert row["claimed"] == "infeasible" and row["raw_score"] == 1.0
    assert (row["false_complete"], row["false_infeasible"]) == (False, True)
    assert "1 said infeasible, 1 of them had done the task" in suite_utils.claims_line([episode])


@pytest.mark.parametrize(
    ("done", "summary", "steps", "claimed"),
    [
        (False, {}, {}, None),  # ran out of steps: no claim
        (True, {"status": "infeasible"}, {}, "infeasible"),  # Celil's own summary
        (
            True,
            {},
            {"action": [json.dumps({"action_type": "status", "goal_status": "infeasible"})]},
            "infeasible",
        ),
        (True, {}, {"action": [{"action_type": "answer", "text": "42"}]}, "complete"),
        (True, {}, {}, "complete"),  # done=True with nothing else said: a completion claim
    ],
)
def test_claimed_outcome(done, summary, steps, claimed):
    assert suite_utils.claimed_outcome(done, summary, steps) == claimed


def test_failed_episodes_and_unclaimed_ones_count_nowhere():
    assert suite_utils.false_claims({"claimed": None, "raw_score": 0.0}) == (None, None)
    assert suite_utils.false_claims({"claimed": "complete", "error": "boom"}) == (None, None)
    assert suite_utils.claims_line([{"claimed": None, "raw_score": 0.0}]) is None


def test_unusable_answers_reach_the_results_row():
    episode = _episode("FakeWifiOn", "complete", wifi_on_already=False)
    assert run_output.result_row(episode)["unusable_answers"] is None  # agent does not count them
    episode["unusable_answers"] = 3
    assert run_output.result_row(episode)["unusable_answers"] == 3
