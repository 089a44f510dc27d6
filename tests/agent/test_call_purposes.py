"""Calls per step by purpose (issue 30): what each scripted-model call was for, and the model
calls the loop no longer makes for nothing."""

from __future__ import annotations

import celil_fakes as fakes
from test_celil_agent import make_agent

from android_world.agents.custom.celil_protocols import GOAL_UNKNOWN, Evidence, GoalVerdict, Plan
from android_world.agents.custom.loop.celil_agent import is_the_question, question_read
from android_world.agents.custom.loop.celil_events import EventLog
from android_world.agents.custom.loop.celil_progress import ProgressJudge

QUESTION = "What is the name of the first app on the home screen?"


class TransitionChecker:
    """A screen check that calls any step done once something ran ("a step went through")."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def check_sub_goal(self, goal, sub_goal, observation, context):
        self.asked.append(sub_goal)
        return Evidence(True, "the step for it went through", "transition")

    def check_goal(self, goal, trail, observation):
        return GoalVerdict(GOAL_UNKNOWN)

    def covers_goal(self, goal, sub_goal):
        return goal == sub_goal

    def values_missing(self, sub_goal, observation, seen=()):
        return []

    def control_shown(self, sub_goal, observation):
        return None


def _question_run(
    plan: list[str], executor_script: list
) -> tuple[list, fakes.ScriptedPlanner, TransitionChecker]:
    planner = fakes.ScriptedPlanner(initial=[Plan(plan)], answer="Contacts")
    checker = TransitionChecker()
    agent, _env = make_agent(
        planner=planner,
        executor=fakes.ScriptedExecutor(list(executor_script)),
        progress_check="screen",
        screen_checker=checker,
    )
    results = []
    for _ in range(4):
        results.append(agent.step(QUESTION))
        if results[-1].done:
            break
    return results, planner, checker


def test_the_question_itself_is_done_by_the_executors_reading_not_by_a_step_that_went_through():
    results, planner, checker = _question_run(
        [QUESTION], [fakes.click(0), fakes.finished("Contacts")]
    )
    # No screen check of the question: its answer, not the tap, finishes it; one answer call.
    assert checker.asked == []
    assert [kind for kind, _ in planner.calls] == ["initial", "answer"]
    assert results[-1].done and results[-1].data["status"] == "complete"
    assert results[-1].data["answer"] == "Contacts"
    assert [e["kind"] for e in results[-1].data["evidence"]] == ["reading"]


def test_a_step_of_a_question_that_is_not_the_question_is_still_read_off_the_screen():
    results, _planner, checker = _question_run(
        ["Open the home screen", QUESTION], [fakes.click(0), fakes.finished("Contacts")]
    )
    assert checker.asked[0] == "Open the home screen"
    assert results[1].data["sub_goals_completed"][0] == "Open the home screen"
    assert results[-1].done and results[-1].data["answer"] == "Contacts"


def _judge(reads_screen: bool = False) -> ProgressJudge:
    planner = fakes.ScriptedPlanner()
    planner.reads_screen = reads_screen
    return ProgressJudge(
        planner, TransitionChecker(), EventLog(), require_evidence=True, progress_check="screen"
    )


def test_the_rule_is_for_questions_read_by_the_screen_check_only():
    checker = TransitionChecker()
    assert is_the_question(_judge(), checker, QUESTION, QUESTION)
    assert not is_the_question(_judge(), checker, QUESTION, "Open the home screen")
    task = "Turn wifi on."
    assert not is_the_question(_judge(), checker, task, task)
    # A planner that reads the screen (the offline one) is its own check: left alone.
    assert not is_the_question(_judge(reads_screen=True), checker, QUESTION, QUESTION)


def test_a_checker_that_raises_leaves_the_check_as_it_was():
    class Broken(TransitionChecker):
        def covers_goal(self, goal, sub_goal):
            raise RuntimeError("boom")

    assert not is_the_question(_judge(), Broken(), QUESTION, QUESTION)


# --- the benchmark's purposes ------------------------------------------------------------------


def test_executor_replies_are_filed_by_what_they_ask_for():
    import call_purposes as cp

    action = 'Reason: r\nAction: {"action_type": "click", "index": 3}'
    assert cp.executor_purpose(action) == ("executor: action", {"action_type": "click", "index": 3})
    done = 'Reason: r\nAction: {"action_type": "status", "goal_status": "complete"}'
    assert cp.executor_purpose(done)[0] == "executor: finished"
    gave_up = 'Action: {"action_type": "status", "goal_status": "infeasible"}'
    assert cp.executor_purpose(gave_up)[0] == "executor: infeasible"
    assert cp.executor_purpose('Action: {"action_type": "answer", "text": "x"}')[0] == (
        "executor: answer"
    )
    assert cp.executor_purpose("no action at all")[0] == "executor: action"


def test_planner_questions_are_filed_by_their_prompt():
    import call_purposes as cp

    goal = "Turn wifi on."
    judge = "Judge whether a sub-goal of a phone task is already achieved\nSub-goal: {}\n"
    assert cp.planner_purpose(judge.format("Turn wifi on"), goal) == "planner: goal confirmation"
    assert cp.planner_purpose(judge.format("Open Settings"), goal) == (
        "planner: sub-goal confirmation"
    )
    assert cp.planner_purpose("The user asked a question about", goal) == "planner: answer"
    assert cp.planner_purpose("its plan has run into trouble", goal) == "planner: corrective plan"
    assert cp.planner_purpose("x\n\nYour previous reply could not be used (y)", goal) == (
        "planner: repair"
    )
    assert cp.planner_purpose("You plan for a phone-automation agent.", goal) == "planner: plan"


def test_per_step_line_orders_purposes_and_keeps_unknown_ones():
    import call_purposes as cp

    line = cp.per_step_line({"votes: reversible": 2, "executor: action": 10, "other": 1}, 10)
    assert line == "executor: action 1.000, votes: reversible 0.200, other 0.100"


def test_a_verify_step_of_the_question_reuses_the_reading_without_a_second_executor_call():
    verify = f"Verify that it is done: {QUESTION}"

    class Checker(TransitionChecker):
        def covers_goal(self, goal, sub_goal):
            return sub_goal in (goal, verify)

    planner = fakes.ScriptedPlanner(initial=[Plan([QUESTION, verify])], answer="Contacts")
    executor = fakes.ScriptedExecutor([fakes.click(0), fakes.finished("Contacts")])
    agent, _env = make_agent(
        planner=planner, executor=executor, progress_check="screen", screen_checker=Checker()
    )
    results = [agent.step(QUESTION) for _ in range(2)]
    assert executor.calls == [QUESTION, QUESTION]  # the verify step asked no executor
    last = results[-1]
    assert last.done and last.data["status"] == "complete" and last.data["answer"] == "Contacts"
    assert last.data["sub_goals_completed"] == [QUESTION, verify]
    assert [kind for kind, _ in planner.calls] == ["initial", "answer"]


def test_only_a_reading_of_the_question_itself_is_reused():
    def covers(sub_goal):
        return sub_goal == QUESTION

    reading = {"sub_goal": QUESTION, "kind": "reading", "text": "read 'x'"}
    step = {"sub_goal": "Read the first name", "kind": "reading", "text": "read 'y'"}
    screen = {"sub_goal": QUESTION, "kind": "screen", "text": "shown"}
    assert question_read([step, reading], covers) == reading
    # A reading of another step, or a screen verdict, is not the question's answer.
    assert question_read([step], covers) is None
    assert question_read([screen], covers) is None
    assert question_read([], covers) is None
