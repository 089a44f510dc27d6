"""How a step ends when it does not simply act (DESIGN §3 steps 6, 10 and 11).

A proposal that does not count (rejected by the gate, an unconfirmed "finished") goes back to
the executor with the reasons once, then costs a rehearsal; a rehearsal replans, and past the
bound the episode ends `infeasible`. When every sub-goal is done with evidence, the whole goal
is checked, a question is answered, and the episode ends `complete`; an exhausted plan is not a
completion. One `EpisodeEnd` serves one episode and keeps how it ended.
"""

from __future__ import annotations

from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNKNOWN,
    ActionGenerator,
    Observation,
    Planner,
)
from android_world.agents.custom.loop.celil_events import EventLog
from android_world.agents.custom.loop.celil_gate import ExecutorFeedback, GateDecision
from android_world.agents.custom.loop.celil_loop_settings import LoopSettings
from android_world.agents.custom.loop.celil_planning import EpisodePlan
from android_world.agents.custom.loop.celil_progress import (
    OWN_PLANS,
    ProgressJudge,
    answer_from_facts,
)
from android_world.agents.custom.loop.celil_step_data import StepData
from android_world.agents.custom.memory.celil_memory import StepRecord, WorkingMemory
from android_world.agents.custom.roles.celil_maestro import is_question
from android_world.env import interface, json_action


def remember(
    memory: WorkingMemory,
    step: int,
    sub_goal: str | None,
    action: str,
    outcome: str,
    score: float | None = None,
    changed: bool | None = None,
) -> None:
    """The step in working memory, which every role's context summary shows."""
    memory.add_step(
        StepRecord(step, sub_goal or "", action, outcome, score=score, screen_changed=changed)
    )


class EpisodeEnd:
    """Feedback, rehearsal and the end of one episode: its status, answer and reason."""

    def __init__(
        self,
        env: interface.AsyncEnv,
        planner: Planner,
        executor: ActionGenerator,
        log: EventLog,
        plans: EpisodePlan,
        progress: ProgressJudge,
        settings: LoopSettings,
    ):
        self._env = env
        self._planner = planner
        self._executor = executor
        self._log = log
        self._plans = plans
        self._progress = progress
        self._settings = settings
        self.feedback = ExecutorFeedback(settings.rejection_retries)
        self.status: str | None = None
        self.answer: str | None = None
        self.infeasible_reason: str | None = None

    # --- proposals that do not count -----------------------------------------------------------

    def rejected(
        self,
        goal: str,
        sub_goal: str,
        decision: GateDecision,
        observation: Observation,
        memory: WorkingMemory,
        record: StepData,
    ) -> bool:
        self._executor.discard_last_turn()
        reasons, description = decision.reasons(), record.action_description or ""
        remember(memory, self._log.step, sub_goal, description, "rejected", decision.score)
        record.outcome = "rejected"
        feedback = (
            f"The verifiers rejected your last proposal ({description}): "
            + "; ".join(reasons)[:600]
            + ". Propose a different action for the same sub-goal."
        )
        if self._give_feedback(sub_goal, feedback, reasons, "rejected_retry", record):
            return False  # feedback, not a replan: the executor tries again knowing why
        return self.rehearse(
            "rejected", goal, sub_goal, description, reasons, observation, memory, record
        )

    def unconfirmed_finish(
        self,
        goal: str,
        sub_goal: str,
        why: str,
        observation: Observation,
        memory: WorkingMemory,
        record: StepData,
    ) -> bool:
        """The executor said finished but the screen does not show it: not done; replan."""
        self._log.stats.unconfirmed_finishes += 1
        self._executor.discard_last_turn()
        remember(memory, self._log.step, sub_goal, "(finished)", f"not confirmed: {why}")
        record.outcome = "unconfirmed_finish"
        feedback = (
            f"You said the sub-goal is finished, but the screen does not show it: {why}"[:600]
            + ". Continue with the next action for the same sub-goal."
        )
        if self._give_feedback(sub_goal, feedback, [why], "unconfirmed_retry", record):
            return False  # the plan is not wrong: the executor goes on, as after a rejection
        reasons = [
            f"the executor said the sub-goal is finished, but the screen does not show it: {why}"
        ]
        return self.rehearse(
            "unconfirmed_finish", goal, sub_goal, "(finished)", reasons, observation, memory, record
        )

    def _give_feedback(
        self, sub_goal: str, feedback: str, reasons: list[str], outcome: str, record: StepData
    ) -> bool:
        if not self.feedback.offer(sub_goal, feedback):
            return False
        record.outcome = outcome
        self._log.emit("rejection_feedback", sub_goal=sub_goal, reasons=reasons)
        return True

    def rehearse(
        self,
        kind: str,
        goal: str,
        sub_goal: str | None,
        action_description: str,
        reasons: list[str],
        observation: Observation,
        memory: WorkingMemory,
        record: StepData,
    ) -> bool:
        """Replan around a failure, or give up once the rehearsal budget is spent."""
        self.feedback.replanned()
        gave_up = self._plans.rehearse(
            kind,
            goal,
            sub_goal,
            action_description,
            reasons,
            observation,
            memory,
            self._progress,
            record,
        )
        if gave_up is None:
            return False
        return self.infeasible(gave_up, record)

    # --- the end -----------------------------------------------------------------------------

    def goal_shown_done(
        self, goal: str, observation: Observation, memory: WorkingMemory, record: StepData
    ) -> bool:
        """The screens show every clause of the goal done: the episode is complete, whatever
        plan steps remain (see `ProgressJudge.goal_shown_done`)."""
        remaining = memory.remaining_sub_goals()
        if not self._progress.goal_shown_done(goal, observation, record, remaining):
            return False
        return self.end("complete", record)

    def budget_end(
        self, goal: str, observation: Observation, memory: WorkingMemory, record: StepData
    ) -> bool:
        """The step budget's last step ended unclaimed: whether the work is done is asked once
        more, or a task finished on the last steps (the executor's "done" refused, a wrong
        action drawn after the finishing one) ends unclaimed. The goal decides, as in `finish`:
        the screens only. A planner is not asked on an `unknown` goal alone: when the budget
        runs out the work is mostly not done, so a judge wrong one time in five claims more
        false completions than it finds finished work (noise sweep, `verify` plans: 9 false of
        255 with the planner asked, against 4 without this check). It is asked, as at any plan
        end, only when the screen check shows every step of the plan done (the last action
        finished the last step). A question ends with its answer, so it is not checked here."""
        if not self._settings.require_evidence or is_question(goal) or self._planner.reads_screen:
            return False
        if not self._progress.goals.trail:
            return False  # nothing ran: nothing can have been done
        verdict = self._progress.goal_verdict(goal, observation, record)
        done = verdict.status == GOAL_DONE
        if verdict.status == GOAL_UNKNOWN and self._plan_shown_done(
            goal, observation, memory, record
        ):
            # The last action finished the plan's last step: the plan's end is judged as the
            # next step would judge it (`finish`: a model planner, shown the screen, asked once
            # about the whole goal, its "done" counting only with evidence on the screen).
            context = memory.get_context_summary(self._settings.history_steps)
            own_plan = self._plans.source in OWN_PLANS
            done = (
                self._progress.goal_not_shown(goal, observation, context, record, own_plan) is None
            )
        self._log.emit("budget_check", done=done, reason=None if done else verdict.reason())
        if not done:
            return False
        record.completed_by = record.completed_by or "budget_check"
        return self.end("complete", record)

    def _plan_shown_done(
        self, goal: str, observation: Observation, memory: WorkingMemory, record: StepData
    ) -> bool:
        """Whether every plan step now has evidence, the open ones read off this screen by the
        model-free check alone (what the next step's progress check would do before acting).
        A step the screen cannot show, the goal itself in other words among them (its evidence
        is the whole-goal check, `unknown` here), keeps the plan unfinished: only a plan whose
        every step was shown done reaches the planner, as at any other plan end."""
        progress = self._progress
        if not progress.screen_reads_progress():
            return False
        context = memory.get_context_summary(self._settings.history_steps)
        while (sub_goal := memory.current_sub_goal()) is not None:
            by, verdict, planners = progress.verdict(goal, sub_goal, observation, context, record)
            if planners or not verdict.done:
                return False
            evidence = progress.judge(sub_goal, by, verdict, observation, record)
            if evidence is None:
                return False
            progress.complete(memory, sub_goal, by, record, None, evidence)
        return not progress.unproven(memory.get_plan())

    def finish(
        self, goal: str, observation: Observation, memory: WorkingMemory, record: StepData
    ) -> bool:
        """All sub-goals are done: answer a question first, then report `status complete`.

        Complete only when every sub-goal of the plan carries the evidence that marked it done,
        and the goal itself is not shown unmet.
        """
        require_evidence = self._settings.require_evidence
        unproven = self._progress.unproven(memory.get_plan())
        if require_evidence and unproven:
            return self.infeasible(f"unmet sub-goal {unproven[0]!r}: no screen evidence", record)
        context = memory.get_context_summary(self._settings.history_steps)
        if require_evidence and not is_question(goal):
            own_plan = self._plans.source in OWN_PLANS
            unmet = self._progress.goal_not_shown(goal, observation, context, record, own_plan)
            if unmet is not None:
                return self._goal_unmet(goal, unmet, observation, memory, record)
        scratch = memory.scratchpad_summary()
        if scratch:
            context = f"{context}\n{scratch}"
        try:
            with self._log.timed("maestro"):
                answer = self._planner.answer_question(goal, observation, context)
        except Exception as error:
            self._log.warn(f"answer extraction raised {type(error).__name__}: {error}", record)
            answer = "" if is_question(goal) else None
        if answer is not None and not answer.strip():
            answer = answer_from_facts(memory)
            if not answer:
                remember(memory, self._log.step, None, "(answer)", "no answer found")
                record.outcome = "no_answer"
                last = memory.get_plan()[-1] if memory.get_plan() else goal
                why = ["every sub-goal is done but the screen does not show the answer"]
                return self.rehearse(
                    "no_answer", goal, last, "(answer)", why, observation, memory, record
                )
        return self.end("complete", record, answer=answer)

    def _goal_unmet(
        self,
        goal: str,
        reason: str,
        observation: Observation,
        memory: WorkingMemory,
        record: StepData,
    ) -> bool:
        """Every plan step is done but the goal is not: an exhausted plan is no completion. The
        last step is reopened and the executor told what is missing; when that was tried
        already, the planner repairs the plan (bounded by the rehearsal budget, after which the
        episode ends `infeasible` with this reason)."""
        stats = self._log.stats
        stats.goal_unmet += 1
        last = memory.get_plan()[-1] if memory.get_plan() else goal
        self._progress.reopen(memory, last)
        remember(memory, self._log.step, last, "(complete)", f"the task is not done: {reason}")
        self._log.emit("goal_unmet", sub_goal=last, reason=reason, count=stats.goal_unmet)
        record.outcome = "goal_unmet"
        record.sub_goal = last
        if stats.goal_unmet == 1 and self._settings.rejection_retries:
            self.feedback.pending = (
                f"The plan's steps are done but the task is not: {reason}"[:500]
                + ". Continue with what is still missing."
            )
            return False
        why = [f"every step of the plan is done but the task is not: {reason}"]
        return self.rehearse(
            "goal_unmet", goal, last, "(complete)", why, observation, memory, record
        )

    def infeasible(self, reason: str, record: StepData) -> bool:
        self.infeasible_reason = reason
        return self.end("infeasible", record)

    def end(self, status: str, record: StepData, answer: str | None = None) -> bool:
        """Answer (for a question), claim `status` and end the episode; returns True (done)."""
        if answer:
            self.answer = answer
            answer_action = json_action.JSONAction(action_type=json_action.ANSWER, text=answer)
            try:
                self._env.execute_action(answer_action)
                error = None
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"
                self._log.warn(f"answer action failed: {error}", record)
            record.answer = answer
            self._log.emit("answer", text=answer, ok=error is None)
        status_action = json_action.JSONAction(action_type=json_action.STATUS, goal_status=status)
        try:
            self._env.execute_action(status_action)
        except Exception as exc:
            self._log.warn(f"status action failed: {type(exc).__name__}: {exc}", record)
        self.status = status
        reason = self.infeasible_reason if status == "infeasible" else None
        record.claim(status, status_action, reason)
        self._log.emit_timings(record)  # before episode_end, which is the episode's last event
        self._log.emit(
            "episode_end",
            status=status,
            answer=answer,
            steps=self._log.step,
            rehearsals=self._plans.rehearsals,
            reason=reason,
            evidence=list(self._progress.evidence.values()),
        )
        return True
