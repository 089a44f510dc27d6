"""The Conductor loop (DESIGN §3) with scripted roles on a tiny fake phone."""

from __future__ import annotations

import json

import celil_fakes as fakes
import pytest

from android_world.agents.custom.celil_protocols import Plan, ProposedAction
from android_world.agents.custom.loop import celil_agent, celil_loop_detection
from android_world.agents.custom.offline_roles.offline import OfflinePlanner
from android_world.agents.custom.roles.celil_maestro import MaestroPlanner
from android_world.agents.custom.roles.celil_perception import PerceptionModule
from android_world.agents.custom.roles.celil_quality_control import VerifierEnsemble
from android_world.env import json_action

GOAL = "Add a contact named Bob"
PLAN = ["Open the Contacts app", "Create a new contact named Bob", "Save the contact"]


def make_agent(env=None, planner=None, executor=None, verifier=None, events=None, **kwargs):
    env = env or fakes.FakePhone()
    agent = celil_agent.CelilAgent(
        env,
        PerceptionModule(ocr="off"),
        planner or fakes.ScriptedPlanner(initial=[Plan(list(PLAN))]),
        executor or fakes.ScriptedExecutor(),
        verifier or fakes.ScriptedVerifier(),
        screen_checker=kwargs.pop("screen_checker", None) or OfflinePlanner(),
        transition_pause=0.0,
        progress_check=kwargs.pop("progress_check", "off"),
        **kwargs,
    )
    if events is not None:
        agent.set_event_sink(events.append)
    return agent, env


def run(agent, goal=GOAL, max_steps=15):
    results = []
    for _ in range(max_steps):
        result = agent.step(goal)
        json.dumps(result.data)  # step data must be JSON-serialisable
        assert "step_number" not in result.data
        assert "internal_error" not in result.data, result.data.get("traceback")
        results.append(result)
        if result.done:
            break
    return results


def types(events):
    return [e["type"] for e in events]


def statuses(env):
    return [a.goal_status for a in env.actions if a.action_type == json_action.STATUS]


def happy_script():
    return [
        fakes.click(0),  # home: Contacts
        fakes.finished(),
        fakes.click(0),  # contacts: Add contact
        fakes.type_text(0, "Bob"),
        fakes.finished(),
        fakes.click(1),  # editor: Save
        fakes.finished(),
    ]


def test_happy_path_reaches_done_with_status_complete():
    events: list[dict] = []
    executor = fakes.ScriptedExecutor(happy_script())
    agent, env = make_agent(executor=executor, events=events)
    results = run(agent)
    assert results[-1].done
    assert env.saved == ["Bob"]
    assert statuses(env) == ["complete"]
    # 4 acting steps, and one refused "finished": "Create a new contact named Bob" is the goal
    # in other words, and right after typing the name the contact did not exist yet (the form
    # held "Bob" unsaved, the goal check's `unmet`), so the executor's finish was refused and
    # the Save came next; a step counted done before Save would have been a false "done".
    assert len(results) == 5
    assert "-> unconfirmed_retry" in results[3].data["summary"]
    assert "unsaved" in results[4].data["rejection_feedback"]
    kinds = types(events)
    for kind in ("plan_created", "action_proposed", "vote", "gate", "executed", "post_check"):
        assert kind in kinds
    assert kinds[-1] == "episode_end"
    assert all(isinstance(e["step"], int) for e in events)
    assert results[0].data["plan"] == PLAN
    summary = agent.episode_summary()
    json.dumps(summary)
    # "Bob" showed in the contact list after Save: the goal was done, so the plan's last two
    # steps were not needed (the creating step is done by that Save, not before it).
    assert summary["progress"]["done_count"] == 1
    assert summary["evidence"][-1]["by"] == "goal_check"
    assert summary["evidence"][-1]["skipped_sub_goals"] == PLAN[1:]
    assert "goal_done" in kinds
    assert summary["rehearsals"]["count"] == 0
    assert summary["gate"]["passed"] == 4
    assert summary["status"] == "complete"


def test_rejected_action_leads_to_corrective_plan_that_keeps_done_sub_goals():
    events: list[dict] = []
    planner = fakes.ScriptedPlanner(
        initial=[Plan(list(PLAN))],
        corrective=[Plan(["Open the Contacts app", "Tap Add contact", "Type Bob", "Save it"])],
    )
    executor = fakes.ScriptedExecutor([fakes.click(0), fakes.finished(), fakes.click(1)])
    verifier = fakes.ScriptedVerifier(scores=[9.0, 3.0])
    agent, env = make_agent(
        planner=planner,
        executor=executor,
        verifier=verifier,
        events=events,
        rejection_retries=False,
    )
    first = agent.step(GOAL)
    second = agent.step(GOAL)
    assert not first.done and not second.done
    assert second.data["gate"] == "reject"
    assert second.data["rehearsal"] == "rejected"
    # Rejected means not executed: the env saw only the first click.
    assert len(env.actions) == 1
    assert executor.discarded == 1
    memory = agent.working_memory
    assert memory.get_plan() == ["Open the Contacts app", "Tap Add contact", "Type Bob", "Save it"]
    assert memory.done_sub_goals() == ["Open the Contacts app"]
    assert memory.current_sub_goal() == "Tap Add contact"
    ctx = next(c for kind, c in planner.calls if kind == "corrective")
    assert ctx.kind == "rejected"
    assert ctx.done_sub_goals == ["Open the Contacts app"]
    assert any("below the 7.0 gate" in r for r in ctx.reasons)
    assert "plan_revised" in types(events) and "rehearsal" in types(events)


def test_failed_post_check_triggers_rehearsal():
    events: list[dict] = []
    # Tapping "Clock" on the fake home screen does nothing.
    executor = fakes.ScriptedExecutor([fakes.click(1)])
    planner = fakes.ScriptedPlanner(initial=[Plan(list(PLAN))])
    agent, _env = make_agent(planner=planner, executor=executor, events=events)
    result = agent.step(GOAL)
    assert result.data["executed"] is True
    assert result.data["screen_changed"] is False
    assert result.data["post_check"]["ok"] is False
    assert result.data["rehearsal"] == "post_check_failed"
    assert [k for k, _ in planner.calls].count("corrective") == 1
    assert "post_check" in types(events) and "rehearsal" in types(events)


def test_input_text_post_check_requires_the_text_in_the_field():
    env = fakes.FakePhone()
    env.screen = "editor"
    # Typing into the Save button (index 1) does not fill the name field.
    executor = fakes.ScriptedExecutor([fakes.type_text(1, "Bob")])
    agent, _ = make_agent(env=env, executor=executor)
    result = agent.step(GOAL)
    assert result.data["post_check"]["ok"] is False
    assert "does not appear" in result.data["post_check"]["reason"]


def test_malformed_planner_output_falls_back_to_goal_plan():
    events: list[dict] = []
    wrapper = fakes.ScriptedWrapper(["I think you should do stuff", "still not json"])
    planner = MaestroPlanner(wrapper)
    executor = fakes.ScriptedExecutor([fakes.click(0)])
    agent, _ = make_agent(planner=planner, executor=executor, events=events)
    result = agent.step(GOAL)
    assert agent.working_memory.get_plan() == [GOAL]
    assert len(wrapper.prompts) == 2  # one repair retry
    assert any("planner" in w for w in result.data["warnings"])
    created = next(e for e in events if e["type"] == "plan_created")
    assert created["source"] == "fallback"


def test_malformed_executor_output_is_recorded_and_rehearsed():
    events: list[dict] = []
    executor = fakes.ScriptedExecutor([fakes.unusable(), RuntimeError("boom")])
    agent, env = make_agent(executor=executor, events=events)
    result = agent.step(GOAL)
    assert not result.done
    assert env.actions == []
    assert [p["error"] for p in result.data["proposals"]][1].startswith("executor raised")
    assert result.data["rehearsal"] == "unusable_proposals"


def test_vision_fallback_after_two_unusable_proposals():
    events: list[dict] = []

    class Selector:
        def select_element(self, sub_goal, observation):
            return 0

    executor = fakes.ScriptedExecutor([fakes.unusable(), fakes.unusable()])
    agent, env = make_agent(executor=executor, events=events, vision_selector=Selector())
    result = agent.step(GOAL)
    assert result.data["vision_select"] == 0
    assert env.screen == "contacts"
    assert "vision_select" in types(events)


def test_malformed_verifier_output_is_absent_not_a_veto():
    """Issue 26: an unreadable vote is absent. With none readable, a reversible tap runs
    unverified and the step says so (an irreversible one never runs: test_answer_shapes)."""
    wrapper = fakes.ScriptedWrapper(default="no idea, looks fine")
    verifier = VerifierEnsemble(wrapper, mode="sequential")
    executor = fakes.ScriptedExecutor([fakes.click(0)])
    agent, env = make_agent(executor=executor, verifier=verifier)
    result = agent.step(GOAL)
    assert result.data["gate"] == "pass"
    assert "no verifier vote could be read" in result.data["gate_unverified"]
    assert result.data["verifier_score"] is None
    assert all(not v["parseable"] and v["score"] is None for v in result.data["votes"])
    assert len(env.actions) == 1
    assert agent.episode_summary()["gate"]["unverified"] == 1


def test_safety_blocked_and_error_responses_are_recorded_not_fatal():
    blocked = ProposedAction(
        json_action.JSONAction(action_type="click", index=0), is_safe=False, raw_output="x"
    )
    executor = fakes.ScriptedExecutor([blocked, fakes.click(0)])
    # The verifier model errors on every call: no vote can be read, so the (reversible) tap
    # runs unverified, and the step records why.
    verifier = VerifierEnsemble(
        fakes.ScriptedWrapper(default=("Error calling LLM", None, None)), mode="parallel"
    )
    agent, env = make_agent(executor=executor, verifier=verifier)
    result = agent.step(GOAL)
    assert result.data["proposals"][0]["error"] == "blocked by safety filter"
    assert result.data["proposals"][0]["action"] is None
    assert result.data["gate"] == "pass"
    assert "model backend reported an error" in result.data["gate_unverified"]
    assert {v["error"] for v in result.data["votes"]} == {"model backend reported an error"}
    assert len(env.actions) == 1


def test_execution_error_is_a_failed_action_not_a_crash():
    env = fakes.FakePhone()
    env.fail_next = "element gone"
    executor = fakes.ScriptedExecutor([fakes.click(0)])
    agent, _ = make_agent(env=env, executor=executor)
    result = agent.step(GOAL)
    assert result.data["executed"] is False
    assert "element gone" in result.data["execution_error"]
    assert result.data["rehearsal"] == "execution_error"


class DeviceError(RuntimeError):
    """Named like env.device.DeviceError, which the plugin recognises by name only."""


class AdbLost(DeviceError):
    pass


class UntypeableText(DeviceError, ValueError):
    pass


def test_device_failures_end_the_episode_but_bad_actions_do_not():
    env = fakes.FakePhone()
    agent, _ = make_agent(env=env, executor=fakes.ScriptedExecutor([fakes.click(0)] * 3))

    def lost(action):
        raise AdbLost("device emulator-5554 not found: run `adb devices`")

    env.execute_action = lost
    with pytest.raises(AdbLost):
        agent.step(GOAL)

    env = fakes.FakePhone()
    agent, _ = make_agent(env=env, executor=fakes.ScriptedExecutor([fakes.click(0)] * 3))

    def untypeable(action):
        raise UntypeableText("cannot type 'é' without ADBKeyboard")

    env.execute_action = untypeable
    result = agent.step(GOAL)
    assert result.data["executed"] is False and "ADBKeyboard" in result.data["execution_error"]

    env = fakes.FakePhone()
    agent, _ = make_agent(env=env)

    def no_screen(wait_to_stabilize=False):
        raise AdbLost("screencap failed on emulator-5554")

    env.get_state = no_screen
    with pytest.raises(AdbLost):
        agent.step(GOAL)


def test_repeated_identical_actions_without_change_trigger_loop_rehearsal():
    wait = ProposedAction(json_action.JSONAction(action_type="wait"))
    executor = fakes.ScriptedExecutor(default=wait)
    agent, _ = make_agent(executor=executor, loop_repeat_limit=3)
    results = [agent.step(GOAL) for _ in range(3)]
    assert [r.data.get("rehearsal") for r in results] == [None, None, "loop"]
    assert results[-1].data["outcome"] == "loop (repeat)"


def test_oscillation_is_detected():
    env = fakes.FakePhone()
    back = ProposedAction(json_action.JSONAction(action_type="navigate_back"))
    executor = fakes.ScriptedExecutor([fakes.click(0), back, fakes.click(0), back])
    agent, _ = make_agent(env=env, executor=executor, loop_repeat_limit=3)
    results = [agent.step(GOAL) for _ in range(4)]
    assert [r.data.get("rehearsal") for r in results] == [None, None, None, "loop"]
    assert results[-1].data["outcome"] == "loop (oscillation)"


def test_changing_repeats_are_not_a_loop():
    assert (
        celil_loop_detection.detect_loop(
            [("scroll", "a", "b"), ("scroll", "b", "c"), ("scroll", "c", "d")], 3
        )
        is None
    )
    assert celil_loop_detection.detect_loop([("tap", "a", "a")] * 3, 3) == "repeat"


def test_rehearsals_are_bounded_and_end_infeasible():
    events: list[dict] = []
    executor = fakes.ScriptedExecutor(default=fakes.click(2))
    verifier = fakes.ScriptedVerifier(default=1.0)
    agent, env = make_agent(
        executor=executor,
        verifier=verifier,
        events=events,
        max_rehearsals=2,
        rejection_retries=False,
    )
    results = run(agent)
    assert len(results) == 3
    assert results[-1].done
    assert statuses(env) == ["infeasible"]
    assert [a.action_type for a in env.actions] == ["status"]
    end = [e for e in events if e["type"] == "episode_end"]
    assert end and end[0]["status"] == "infeasible"
    assert agent.episode_summary()["rehearsals"]["count"] == 3


def test_question_is_answered_then_status_complete():
    events: list[dict] = []
    goal = "What notes do I have? Answer with the titles, comma separated."
    planner = fakes.ScriptedPlanner(
        initial=[Plan(["Open the Notes app"])], answer="Dentist at 10:00, Groceries"
    )
    executor = fakes.ScriptedExecutor([fakes.click(2), fakes.finished()])
    agent, env = make_agent(planner=planner, executor=executor, events=events)
    results = run(agent, goal)
    assert results[-1].done
    assert [a.action_type for a in env.actions] == ["click", "answer", "status"]
    assert env.interaction_cache == "Dentist at 10:00, Groceries"
    assert statuses(env) == ["complete"]
    assert "answer" in types(events)
    # The answer prompt context carries the scratchpad (screens seen).
    answer_context = next(c for k, c in planner.calls if k == "answer")
    assert "Groceries" in answer_context


def test_question_without_answer_falls_back_to_executor_finished_content():
    goal = "How many notes do I have?"
    planner = fakes.ScriptedPlanner(initial=[Plan(["Count the notes"])], answer="")
    executor = fakes.ScriptedExecutor([fakes.finished("2")])
    agent, env = make_agent(planner=planner, executor=executor)
    results = run(agent, goal)
    assert results[-1].done
    assert env.interaction_cache == "2"


def test_memory_hit_seeds_the_plan_and_outcomes_are_recorded():
    events: list[dict] = []
    # Similar but not near-identical: the plan is offered to the planner, which still plans.
    hit = fakes.FakeRetrievedPlan("e1", "Add a contact named {name}", list(PLAN), 0.9, 1.0)
    memory = fakes.FakeEpisodicMemory(hit)
    planner = fakes.ScriptedPlanner(initial=[lambda goal: Plan(list(PLAN), source="model+memory")])
    executor = fakes.ScriptedExecutor(happy_script())
    agent, _ = make_agent(
        planner=planner,
        executor=executor,
        events=events,
        episodic_memory=memory,
        provenance={"run": "run_x"},
    )
    run(agent)
    assert planner.calls[0] == ("initial", PLAN)
    hit_event = next(e for e in events if e["type"] == "memory_hit")
    assert hit_event["entry_id"] == "e1" and hit_event["step"] == 1
    agent.episode_finished(GOAL, 1.0)
    assert memory.outcomes == [("e1", True)]
    assert memory.added[0][0] == GOAL and memory.added[0][1] == PLAN
    assert memory.added[0][2]["run"] == "run_x"
    assert agent.episode_summary()["memory"]["hit"] is True


@pytest.mark.parametrize(
    ("similarity", "success_rate", "reuse_similarity", "planner_asked"),
    [
        (0.97, 1.0, 0.95, False),  # trusted: used as it is, no planner call
        (0.97, 0.5, 0.95, True),  # keeps failing: the planner decides
        (0.90, 1.0, 0.95, True),  # only similar: offered to the planner
        (0.99, 1.0, None, True),  # direct reuse switched off
    ],
)
def test_trusted_memory_plan_skips_the_planner(
    similarity, success_rate, reuse_similarity, planner_asked
):
    events: list[dict] = []
    hit = fakes.FakeRetrievedPlan(
        "e1", "Add a contact named {name_1}", list(PLAN), similarity, success_rate
    )
    planner = fakes.ScriptedPlanner(initial=[Plan(list(PLAN))])
    agent, _ = make_agent(
        planner=planner,
        executor=fakes.ScriptedExecutor(happy_script()),
        events=events,
        episodic_memory=fakes.FakeEpisodicMemory(hit),
        memory_reuse_similarity=reuse_similarity,
    )
    results = run(agent)
    assert results[-1].done
    assert (("initial", PLAN) in planner.calls) is planner_asked
    created = next(e for e in events if e["type"] == "plan_created")
    assert created["sub_goals"] == PLAN
    assert (created["source"] == "memory") is not planner_asked


def test_a_near_identical_goal_of_another_template_still_asks_the_planner():
    """ "this Sunday" vs "October 22": one word apart, but only one needs today's date first."""
    hit = fakes.FakeRetrievedPlan("e1", "Add a contact named {name_1} today", list(PLAN), 0.99, 1.0)
    planner = fakes.ScriptedPlanner(initial=[Plan(list(PLAN))])
    agent, _ = make_agent(
        planner=planner,
        executor=fakes.ScriptedExecutor(happy_script()),
        episodic_memory=fakes.FakeEpisodicMemory(hit),
        memory_reuse_similarity=0.95,
    )
    assert run(agent)[-1].done
    assert ("initial", PLAN) in planner.calls


def test_plan_stored_only_at_full_score():
    memory = fakes.FakeEpisodicMemory(None)
    agent, _ = make_agent(executor=fakes.ScriptedExecutor(happy_script()), episodic_memory=memory)
    run(agent)
    agent.episode_finished(GOAL, 0.5)
    assert memory.added == []
    agent.episode_finished(GOAL, 1.0)
    assert len(memory.added) == 1


def test_progress_check_advances_sub_goal_without_env_action():
    planner = fakes.ScriptedPlanner(initial=[Plan(list(PLAN))], progress=[True])
    executor = fakes.ScriptedExecutor([fakes.click(0), fakes.click(0)])
    agent, env = make_agent(planner=planner, executor=executor, progress_check="after_action")
    agent.step(GOAL)
    second = agent.step(GOAL)
    assert second.data["sub_goals_completed"] == ["Open the Contacts app"]
    assert executor.calls == ["Open the Contacts app", "Create a new contact named Bob"]
    assert len(env.actions) == 2


def test_sub_goal_advances_are_bounded_per_step():
    executor = fakes.ScriptedExecutor(default=fakes.finished())
    planner = fakes.ScriptedPlanner(initial=[Plan(["a", "b", "c", "d", "e"])])
    agent, env = make_agent(planner=planner, executor=executor, max_sub_goal_advances=2)
    first = agent.step(GOAL)
    assert first.data["outcome"] == "advanced" and not first.done
    assert first.data["sub_goals_completed"] == ["a", "b"]
    assert env.actions == []


def test_coordinates_are_snapped_to_the_smallest_actionable_element():
    action = ProposedAction(json_action.JSONAction(action_type="click", x=50, y=50))
    executor = fakes.ScriptedExecutor([action])
    agent, env = make_agent(executor=executor)
    result = agent.step(GOAL)
    assert result.data["snapped"] == {"x": 50, "y": 50, "index": 0}
    assert env.actions[0].index == 0 and env.screen == "contacts"


def test_irreversible_action_needs_the_higher_threshold():
    env = fakes.FakePhone()
    env.screen = "contacts"
    executor = fakes.ScriptedExecutor([fakes.click(2)])  # "Delete all"
    agent, _ = make_agent(env=env, executor=executor, verifier=fakes.ScriptedVerifier(default=8.0))
    result = agent.step(GOAL)
    assert result.data["irreversible"] == "delete"
    assert result.data["threshold"] == 8.5
    assert result.data["gate"] == "reject"


def test_reset_clears_episode_state():
    executor = fakes.ScriptedExecutor(happy_script())
    agent, _ = make_agent(executor=executor)
    run(agent)
    agent.reset(go_home=True)
    assert agent.working_memory is None
    assert executor.resets == 1
    assert agent.episode_summary()["steps"] == 0


def test_model_call_events_come_from_the_ledger():
    from android_world.agents.custom.model_clients.call_types import CallRecord
    from android_world.agents.custom.model_clients.ledger import UsageLedger

    ledger = UsageLedger()
    events: list[dict] = []
    agent, _ = make_agent(
        executor=fakes.ScriptedExecutor([fakes.click(0)]), ledger=ledger, events=events
    )
    agent.step(GOAL)
    ledger.record(CallRecord(role="verifiers", backend="replay", model="m", prompt_tokens=5))
    call = [e for e in events if e["type"] == "model_call"]
    assert call and call[0]["role"] == "verifiers" and call[0]["step"] == 1
    assert agent.episode_summary()["usage"]["model_calls"] == 1


def test_a_rejection_goes_back_to_the_executor_with_reasons_before_any_replan():
    executor = fakes.ScriptedExecutor([fakes.click(0), fakes.click(1)])
    verifier = fakes.ScriptedVerifier(scores=[2.0, 9.0])
    events = []
    agent, _env = make_agent(executor=executor, verifier=verifier, events=events)
    agent.reset()
    first = agent.step("goal")
    assert first.data["outcome"] == "rejected_retry"
    second = agent.step("goal")
    assert "verifiers rejected your last proposal" in second.data["rejection_feedback"]
    assert "rejected" not in agent.episode_summary()["rehearsals"]["by_kind"]
    assert [e["type"] for e in events].count("rejection_feedback") == 1
