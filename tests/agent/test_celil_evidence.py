"""Completion needs evidence (issue 14 item 1): pure grounding rules, the loop on the fake phone,
and weak or lying executors on the simulated phone, which must never end `complete` on a task
they did not do."""

from __future__ import annotations

import random
from typing import Any

import celil_fakes as fakes
import pytest

from android_world.agents.custom.celil_protocols import (
    ActionGenerator,
    Evidence,
    Observation,
    Plan,
    ProposedAction,
)
from android_world.agents.custom.loop import celil_agent, celil_evidence
from android_world.agents.custom.offline_roles import offline
from android_world.agents.custom.offline_roles.offline import OfflinePlanner
from android_world.agents.custom.roles.celil_perception import PerceptionModule
from android_world.env import json_action
from android_world.harness import suite_utils
from android_world.task_evals import registry

sim_env = pytest.importorskip("android_world.env.sim.sim_env")

GOAL = "Add a contact named Bob"
PLAN = ["Open the Contacts app", "Create a new contact named Bob", "Save the contact"]


def screen(*elements) -> Observation:
    return Observation(
        screenshot=fakes.np.zeros((4, 4, 3), dtype=fakes.np.uint8),
        ui_elements=list(elements),
        ocr_lines=[],
        ocr_summary="",
        ui_tree_summary="",
        screen_size=(1080, 2400),
        frame_hash="x",
    )


def switch(label: str, checked: bool):
    element = fakes.element(label, class_name="android.widget.Switch")
    element.is_checkable = True
    element.is_checked = checked
    return element


# --- pure rules ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["", "what on screen shows it", "quoted on-screen text", "<evidence>", "N/A", "yes"]
)
def test_placeholders_are_never_evidence(text):
    obs = screen(fakes.element("what on screen shows it"), fakes.element("yes"))
    assert celil_evidence.is_placeholder(text)
    assert celil_evidence.ground_text(text, obs)[0] is False


def test_quoted_values_must_be_on_screen():
    obs = screen(fakes.element("Bob Smith"), fakes.element("Contacts"))
    assert celil_evidence.ground_text("The list shows 'Bob Smith'", obs)[0]
    ok, why = celil_evidence.ground_text("The list shows 'Carol'", obs)
    assert not ok and "carol" in why


def test_a_switch_named_in_the_evidence_must_be_in_the_claimed_position():
    obs = screen(switch("Wi-Fi", checked=True))
    assert celil_evidence.ground_text("The Wi-Fi switch is on", obs)[0]
    ok, why = celil_evidence.ground_text("The Wi-Fi switch is off", obs)
    assert not ok and "shows on" in why


def test_unquoted_evidence_needs_most_of_its_naming_words_on_screen():
    obs = screen(fakes.element("Contacts"), fakes.element("Bob"))
    assert celil_evidence.ground_text("Bob is listed in contacts", obs)[0]
    assert not celil_evidence.ground_text("Carol Danvers was saved to favourites", obs)[0]


def test_accept_counts_screen_kinds_and_grounded_model_text_only():
    obs = screen(fakes.element("Bob"))
    assert celil_evidence.accept(Evidence(True, "a field holds 'Bob'", "screen"), obs)[0]
    assert not celil_evidence.accept(Evidence(True, "the step went through", "action"), obs)[0]
    assert not celil_evidence.accept(Evidence(True, "", "screen"), obs)[0]
    assert celil_evidence.accept(Evidence(True, "'Bob' is shown", "model"), obs)[0]
    assert not celil_evidence.accept(Evidence(True, "'Carol' is shown", "model"), obs)[0]
    assert not celil_evidence.accept(Evidence(False, "not yet", "screen"), obs)[0]


# --- the loop on the fake phone --------------------------------------------------------------


def make_agent(planner, executor, events, **kwargs):
    env = fakes.FakePhone()
    agent = celil_agent.CelilAgent(
        env,
        PerceptionModule(ocr="off"),
        planner,
        executor,
        fakes.ScriptedVerifier(),
        screen_checker=kwargs.pop("screen_checker", None) or OfflinePlanner(),
        transition_pause=0.0,
        progress_check="off",
        max_rehearsals=2,
        **kwargs,
    )
    agent.set_event_sink(events.append)
    return agent, env


def run(agent, max_steps=12):
    result = None
    for _ in range(max_steps):
        result = agent.step(GOAL)
        if result.done:
            break
    return result


def statuses(env):
    return [a.goal_status for a in env.actions if a.action_type == json_action.STATUS]


def test_an_executor_saying_finished_without_doing_anything_never_completes():
    events: list[dict] = []
    planner = fakes.ScriptedPlanner(initial=[Plan(list(PLAN))], confirm=False)
    executor = fakes.ScriptedExecutor(default=fakes.finished())
    agent, env = make_agent(planner, executor, events)
    result = run(agent)
    assert statuses(env) == ["infeasible"]
    assert env.saved == []
    assert result.data["infeasible_reason"].startswith("unmet sub-goal 'Open the Contacts app'")
    kinds = [e["type"] for e in events]
    assert "sub_goal_done" not in kinds
    claims = [e for e in events if e["type"] == "evidence"]
    assert claims and not any(e["accepted"] for e in claims)
    assert agent.episode_summary()["unconfirmed_finishes"] >= 1
    end = [e for e in events if e["type"] == "episode_end"][-1]
    assert end["status"] == "infeasible" and "Open the Contacts app" in end["reason"]


def test_the_old_loop_trusted_the_same_executor():
    # The same lie with require_evidence=False: what the issue reported (a false completion).
    events: list[dict] = []
    planner = fakes.ScriptedPlanner(initial=[Plan(list(PLAN))], confirm=False)
    executor = fakes.ScriptedExecutor(default=fakes.finished())
    agent, env = make_agent(planner, executor, events, require_evidence=False)
    run(agent)
    assert statuses(env) == ["complete"] and env.saved == []


def test_model_evidence_counts_only_when_found_on_screen():
    events: list[dict] = []
    grounded = Evidence(True, "the launcher shows 'Contacts'", "model")
    invented = Evidence(True, "'Bob' was saved", "model")
    planner = fakes.ScriptedPlanner(
        initial=[Plan(list(PLAN))], progress=[grounded, invented], confirm=False
    )
    executor = fakes.ScriptedExecutor(default=fakes.finished())
    agent, _ = make_agent(planner, executor, events)
    result = agent.step(GOAL)
    done = [e for e in events if e["type"] == "sub_goal_done"]
    assert [e["sub_goal"] for e in done] == ["Open the Contacts app"]
    assert done[0]["evidence"]["kind"] == "model" and done[0]["evidence"]["accepted"]
    refused = [e for e in events if e["type"] == "evidence" and not e["accepted"]]
    assert refused and "'bob'" in refused[0]["why"]
    assert result.data["evidence"][0]["accepted"] is True
    summary = agent.episode_summary()
    assert [e["sub_goal"] for e in summary["evidence"]] == ["Open the Contacts app"]


def test_complete_reports_the_evidence_of_every_sub_goal():
    events: list[dict] = []
    executor = fakes.ScriptedExecutor(
        [
            fakes.click(0),
            fakes.finished(),
            fakes.click(0),
            fakes.type_text(0, "Bob"),
            fakes.finished(),
            fakes.click(1),
            fakes.finished(),
        ]
    )
    agent, env = make_agent(fakes.ScriptedPlanner(initial=[Plan(list(PLAN))]), executor, events)
    run(agent)
    assert statuses(env) == ["complete"]
    end = [e for e in events if e["type"] == "episode_end"][-1]
    # Every step done has its evidence, and the goal check's own record names the steps it
    # made unneeded once the list showed "Bob". The executor's "finished" on "Create a new
    # contact named Bob" (the goal in other words) right after typing is refused: the form held
    # "Bob" unsaved, no contact existed yet; Save did that step and the last one together.
    assert [e["sub_goal"] for e in end["evidence"]] == [PLAN[0], GOAL]
    assert all(e["kind"] == "screen" for e in end["evidence"])
    assert end["evidence"][0]["accepted"]
    assert end["evidence"][-1]["by"] == "goal_check"
    assert end["evidence"][-1]["skipped_sub_goals"] == PLAN[1:]


# --- weak executors on the simulated phone ----------------------------------------------------


class LyingExecutor(ActionGenerator):
    """The offline executor, except that with probability `p_lie` (seeded) it says the current
    sub-goal is finished instead of acting: a weak or perturbed executor."""

    def __init__(self, p_lie: float, seed: int = 0) -> None:
        self._inner = offline.OfflineActionGenerator()
        self._p = p_lie
        self._rng = random.Random(seed)

    def reset(self) -> None:
        self._inner.reset()

    def discard_last_turn(self) -> None:
        self._inner.discard_last_turn()

    def generate_action(self, sub_goal: str, observation: Any, context: str) -> ProposedAction:
        if self._rng.random() < self._p:
            return ProposedAction(None, thought="done, trust me", sub_goal_finished=True)
        return self._inner.generate_action(sub_goal, observation, context)


WEAK_TASKS = (
    "ContactsAddContact",
    "SystemWifiTurnOff",
    "SimpleSmsSend",
    "MarkorCreateNote",
    "CameraTakePhoto",
    "ExpenseAddSingle",
)


def run_weak(task_name: str, p_lie: float, seed: int, require_evidence: bool) -> dict[str, Any]:
    task_cls = registry.TaskRegistry().get_registry()[task_name]
    env = sim_env.SimEnv(seed=seed, render=False)
    try:
        task = suite_utils.create_suite({task_name: task_cls}, seed=seed, env=env)[task_name][0]
        roles = offline.build_offline_roles()
        agent = celil_agent.CelilAgent(
            env,
            PerceptionModule(ocr="off"),
            roles.planner,
            LyingExecutor(p_lie, seed),
            roles.verifier,
            screen_checker=OfflinePlanner(),
            transition_pause=0.0,
            require_evidence=require_evidence,
        )
        episode = suite_utils.run_task(task, agent, print_fn=lambda _: None)
        return {"raw": episode["raw_score"], "status": agent.episode_summary()["status"]}
    finally:
        env.close()


def false_completions(require_evidence: bool, p_lie: float) -> int:
    count = 0
    for task_name in WEAK_TASKS:
        for seed in (0, 1):
            outcome = run_weak(task_name, p_lie, seed, require_evidence)
            count += outcome["status"] == "complete" and outcome["raw"] < 1.0
    return count


@pytest.mark.parametrize("p_lie", [1.0, 0.4])
def test_lying_executors_cause_no_false_completion(p_lie):
    assert false_completions(require_evidence=True, p_lie=p_lie) == 0


def test_without_evidence_the_same_liar_claims_tasks_it_did_not_do():
    assert false_completions(require_evidence=False, p_lie=1.0) > 0
