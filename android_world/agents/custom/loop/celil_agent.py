"""CelilAgent: the Conductor loop of DESIGN §3.

The agent builds nothing: it receives perception, a planner, an action generator, a verifier and
the model-free screen checker (any objects meeting `celil_protocols`), plus optional episodic
memory and vision selector, so LLM-backed and offline roles are interchangeable and every role
can be scripted in a test. Each `step(goal)` observes, plans if needed, advances finished
sub-goals for free, asks the executor for one action, lets the verifiers gate it, executes it,
checks that it did something, and replans ("rehearses") when any of that fails.

This module is the loop on one screen; each part lives in a module of its own: observing
(`celil_observation`), the plan (`celil_planning`), progress and evidence (`celil_progress`),
proposals (`celil_proposals`), the gate (`celil_gate`), the post-check (`celil_post_check`),
loop detection (`celil_loop_detection`), feedback, rehearsal and the episode's end
(`celil_episode_end`), the step record (`celil_step_data`) and the events (`celil_events`).

Nothing a model or the device does may crash an episode: errors become recorded failures, and a
bounded number of rehearsals ends a hopeless episode with `status infeasible` instead of looping.
"""

from __future__ import annotations

import dataclasses
import functools
import traceback
from collections.abc import Callable, Iterable
from typing import Any

from android_world.agents import base_agent
from android_world.agents.custom.celil_protocols import (
    ActionGenerator,
    ElementSelector,
    Evidence,
    Observation,
    Perceiver,
    Planner,
    ProposedAction,
    ScreenChecker,
    Verifier,
)
from android_world.agents.custom.loop import celil_proposals
from android_world.agents.custom.loop.celil_episode_end import EpisodeEnd, remember
from android_world.agents.custom.loop.celil_events import EpisodeStats, EventLog, EventSink
from android_world.agents.custom.loop.celil_gate import Gate, SecondOpinionSettings
from android_world.agents.custom.loop.celil_loop_detection import LoopDetector, screen_key
from android_world.agents.custom.loop.celil_loop_settings import LoopSettings
from android_world.agents.custom.loop.celil_observation import Observer
from android_world.agents.custom.loop.celil_planning import EpisodePlan, EpisodicStore
from android_world.agents.custom.loop.celil_post_check import (
    execute,
    is_device_failure,
    post_check,
    step_outcome,
)
from android_world.agents.custom.loop.celil_progress import OWN_PLANS, ProgressJudge
from android_world.agents.custom.loop.celil_step_data import StepData, target_box
from android_world.agents.custom.memory.celil_memory import WorkingMemory
from android_world.agents.custom.roles.celil_maestro import is_question
from android_world.agents.custom.roles.celil_quality_control import describe_action
from android_world.env import interface, json_action


@dataclasses.dataclass(frozen=True)
class Choice:
    """What choosing an action came to: a usable proposal to gate and run, or (`proposal`
    None) the step's end without one; `done`: the episode ended with it."""

    proposal: ProposedAction | None = None
    done: bool = False


@dataclasses.dataclass
class _Tries:
    """One step's rounds of choosing: sub-goals advanced, checked, and unusable proposals."""

    advances: int = 0
    checked: set[str] = dataclasses.field(default_factory=set)
    verdicts: dict[str, Evidence] = dataclasses.field(default_factory=dict)  # the planner's
    unusable: list[ProposedAction] = dataclasses.field(default_factory=list)
    # The whole goal confirmed on this step's screen (a sub-goal that is the goal in other
    # words finished with evidence): a later one of that kind ("Verify that it is done: ...")
    # is the same question about the same screen, asked of no model again (issue 30).
    goal_confirmed: dict[str, Any] | None = None


def is_the_question(
    progress: ProgressJudge, checker: ScreenChecker, goal: str, sub_goal: str
) -> bool:
    """Whether `sub_goal` is the question `goal` itself (verbatim or restated), read by the
    screen check: done by its answer, which the executor reads (`ProgressJudge.confirm_finish`),
    never by "a step went through". Its tracker meets the checker only at the first whole-goal
    verdict, which a question never asks, so without this the screen check called such a step
    done after any action, and each time the planner was asked for an answer not yet on the
    screen and the plan repaired: two calls and a step for nothing (verbatim and restated
    plans, issue 30)."""
    if not (progress.screen_reads_progress() and is_question(goal)):
        return False
    try:
        return bool(checker.covers_goal(goal, sub_goal))
    except Exception:  # a checker that cannot tell leaves the check as it was
        return False


def question_read(
    done: Iterable[dict[str, Any]], is_question_step: Callable[[str], bool]
) -> dict[str, Any] | None:
    """The reading that answered an earlier step that was the question itself: a later one
    ("Verify that it is done: <the question>") asks the same, so it is done by the same reading,
    not by a second executor answer (issue 30). None when no such reading is on record."""
    for record in done:
        if record.get("kind") == "reading" and is_question_step(str(record.get("sub_goal"))):
            return dict(record)
    return None


class CelilAgent(base_agent.EnvironmentInteractingAgent):
    """The Conductor. See the module docstring; parts arrive through the constructor, and the
    loop's thresholds and bounds as `LoopSettings` fields (`threshold=`, `max_rehearsals=`...)."""

    def __init__(
        self,
        env: interface.AsyncEnv,
        perception: Perceiver,
        planner: Planner,
        action_generator: ActionGenerator,
        verifier: Verifier,
        *,
        screen_checker: ScreenChecker,
        episodic_memory: EpisodicStore | None = None,
        vision_selector: ElementSelector | None = None,
        ledger: Any = None,
        name: str = "celil_agent",
        provenance: dict[str, Any] | None = None,
        transition_pause: float | None = 1.0,
        second_opinion: SecondOpinionSettings | None = None,
        **settings: Any,
    ):
        super().__init__(env, name=name, transition_pause=transition_pause)
        self.settings = LoopSettings(**settings).normalised()
        self._second_opinion = second_opinion  # the gate's model-free executor (issue 30)
        self._perception = perception
        self._planner = planner
        self._executor = action_generator
        self._verifier = verifier
        self._screen_checker = screen_checker  # reads progress off the screen, no model call
        self._episodic = episodic_memory
        self._vision = vision_selector
        self._ledger = ledger
        self.provenance = dict(provenance or {})
        self.manifest_info: dict[str, Any] = {}
        self._log = EventLog()
        if ledger is not None and hasattr(ledger, "add_listener"):
            ledger.add_listener(self._log.on_model_call)
        self._clear_episode()

    def _clear_episode(self) -> None:
        settings, log = self.settings, self._log
        self._goal: str | None = None
        self._memory: WorkingMemory | None = None
        self._current_sub_goal: str | None = None
        log.new_episode()
        self._plans = EpisodePlan(self._planner, self._episodic, log, settings)
        self._progress = ProgressJudge(
            self._planner,
            self._screen_checker,
            log,
            require_evidence=settings.require_evidence,
            progress_check=settings.progress_check,
        )
        self._observer = Observer(self._env, self._perception, log, self._progress)
        self._loops = LoopDetector(settings.loop_repeat_limit)
        self._gate = Gate(self._verifier, settings, self._second_opinion)
        self._ending = EpisodeEnd(
            self._env, self._planner, self._executor, log, self._plans, self._progress, settings
        )
        self._proposer = celil_proposals.Proposer(
            self._executor, self._vision, log, self._ending.feedback
        )
        self._take_unusable()  # a previous episode's leftovers are not this one's

    def reset(self, go_home: bool = False) -> None:
        super().reset(go_home)
        self._clear_episode()
        self._executor.reset()
        if self._ledger is not None and hasattr(self._ledger, "reset_episode"):
            self._ledger.reset_episode()

    @property
    def working_memory(self) -> WorkingMemory | None:
        return self._memory

    @property
    def _stats(self) -> EpisodeStats:
        return self._log.stats

    def run_manifest(self) -> dict[str, Any]:
        """What the runner records in manifest.json (resolved roles, config); set by the factory."""
        return dict(self.manifest_info)

    def set_event_sink(self, sink: EventSink | None) -> None:
        self._log.sink = sink

    def _cautious(self) -> bool:
        """Whether the next proposal is voted on with caution (spends one; see `celil_gate`)."""
        return self._gate.cautious(self._log)

    def _take_unusable(self) -> list[dict[str, Any]]:
        """Answers the planner and verifiers received but did not use (prompt echoes)."""
        return [*self._planner.take_unusable(), *self._verifier.take_unusable()]

    # --- the step ----------------------------------------------------------------------------

    def step(self, goal: str) -> base_agent.AgentInteractionResult:
        if self._goal != goal or self._memory is None:
            self._clear_episode()
            self._goal = goal
            self._memory = WorkingMemory(goal)
        self._log.step += 1
        record = StepData(goal)
        if self._ending.status is not None:
            record.outcome = "already_finished"
            record.status = self._ending.status
            return base_agent.AgentInteractionResult(True, record.as_step_data())
        try:
            done = self._step(goal, self._memory, record)
            if not done and self._budget_spent():
                observation = self._observer.observe(self.get_post_transition_state, self._memory)
                done = self._ending.budget_end(goal, observation, self._memory, record)
        except Exception as error:
            if is_device_failure(error):
                raise
            record.outcome = "internal_error"
            record.internal_error = f"{type(error).__name__}: {error}"
            record.traceback = traceback.format_exc(limit=6)
            self._log.warn(f"internal error in step: {type(error).__name__}: {error}", record)
            done = False
        self._log.emit_timings(record)
        unusable = self._take_unusable()
        if unusable:
            record.unusable_answers = unusable
            self._log.stats.unusable_answers += len(unusable)
            for answer in unusable:
                self._log.emit("unusable_answer", **answer)
        memory = self._memory
        record.finalised(self._plans.rehearsals, memory.get_plan(), memory.done_sub_goals())
        return base_agent.AgentInteractionResult(done, record.as_step_data())

    def _budget_spent(self) -> bool:
        """This step is the last the runner's step budget allows (`set_max_steps`)."""
        return self._max_steps is not None and self._log.step >= self._max_steps

    def _step(self, goal: str, memory: WorkingMemory, record: StepData) -> bool:
        observation = self._observer.observe(self.get_post_transition_state, memory)
        record.observed(observation)
        if not memory.has_plan():
            not_understood = self._plans.make(goal, observation, memory, record)
            if not_understood:
                why = f"could not understand the goal: {not_understood}"[:300]
                return self._ending.infeasible(why, record)
        choice = self._choose_action(goal, memory, observation, record)
        if choice.proposal is None:
            return choice.done
        proposal, action, sub_goal = choice.proposal, choice.proposal.action, record.sub_goal
        assert action is not None and sub_goal is not None
        if self.settings.snap_coordinates:
            snapped = celil_proposals.snap(action, observation)
            record.snapped, record.kept_point = snapped.snapped, snapped.kept
            action = snapped.action
            proposal = dataclasses.replace(proposal, action=action)
        record.action = action.as_dict()
        record.action_description = describe_action(action, observation.ui_elements)
        record.target_box = target_box(action, observation)
        context = memory.get_context_summary(self.settings.history_steps)
        decision = self._gate.decide(
            goal, sub_goal, memory.get_plan(), proposal, observation, context, self._log, record
        )
        if not decision.passed:
            return self._ending.rejected(goal, sub_goal, decision, observation, memory, record)
        self._ending.feedback.passed(sub_goal)
        return self._run(goal, sub_goal, action, decision.score, observation, memory, record)

    def _run(
        self,
        goal: str,
        sub_goal: str,
        action: json_action.JSONAction,
        score: float,
        before: Observation,
        memory: WorkingMemory,
        record: StepData,
    ) -> bool:
        """Execute the passed action, post-check it on the settled screen (kept for the next
        step's observation) and rehearse when it failed, looped or did nothing."""
        error_text = execute(self._env, action, self._log, record)
        self._progress.note_action(sub_goal)
        after = self._observer.after_action(self.get_post_transition_state(), memory)
        changed = screen_key(after) != screen_key(before)
        ok, reason = post_check(action, before, after, changed, error_text)
        record.screen_changed, record.post_check = changed, {"ok": ok, "reason": reason}
        self._log.emit("post_check", ok=ok, screen_changed=changed, reason=reason)
        self._loops.record(action, before, after)
        step, passed = self._log.step, ok and error_text is None
        self._progress.goals.record(step, before, action, ok=passed, changed=changed)
        description = record.action_description or ""
        outcome = step_outcome(action, ok, changed, reason)
        remember(memory, step, sub_goal, description, outcome, score, changed)
        failure: tuple[str, str, str] | None = None  # (kind, outcome, why)
        if error_text is not None:
            self._log.stats.execution_errors += 1
            why = f"the device refused the action: {error_text}"
            failure = ("execution_error", "execution_error", why)
        elif (loop := self._loops.check()) is not None:
            failure = ("loop", f"loop ({loop})", self._loops.why(loop))
        elif not ok:
            self._log.stats.post_check_failures += 1
            failure = ("post_check_failed", "post_check_failed", reason)
        if failure is not None:
            kind, record.outcome, why = failure
            return self._ending.rehearse(
                kind, goal, sub_goal, description, [why], after, memory, record
            )
        record.outcome = "acted"
        # The action may have finished the goal: say so in this step, not one step later (a
        # step the budget may not have).
        return self._ending.goal_shown_done(goal, after, memory, record)

    # --- choosing an action ----------------------------------------------------------------

    def _choose_action(
        self, goal: str, memory: WorkingMemory, observation: Observation, record: StepData
    ) -> Choice:
        """Advance sub-goals the screen shows done (no env action) and return a usable proposal,
        or the step's end (finished, rehearsed, or the per-step advance bound hit)."""
        if self._ending.goal_shown_done(goal, observation, memory, record):
            return Choice(done=True)
        tries = _Tries()
        while True:
            sub_goal = memory.current_sub_goal()
            if sub_goal is None:
                return Choice(done=self._ending.finish(goal, observation, memory, record))
            if sub_goal != self._current_sub_goal:
                self._current_sub_goal = sub_goal
                self._progress.actions_on_sub_goal = 0
                tries.unusable = []
            record.sub_goal = sub_goal
            context = memory.get_context_summary(self.settings.history_steps)
            choice = self._try(goal, sub_goal, memory, observation, context, tries, record)
            if choice is not None:
                return choice

    def _try(
        self,
        goal: str,
        sub_goal: str,
        memory: WorkingMemory,
        observation: Observation,
        context: str,
        tries: _Tries,
        record: StepData,
    ) -> Choice | None:
        """One round on the current sub-goal: a usable proposal, the step's end, or None when
        the sub-goal was found done (or the proposal unusable) and choosing goes on."""
        progress, ending = self._progress, self._ending
        content: str | None = None
        finished_by, evidence = self._checked(goal, sub_goal, observation, context, tries, record)
        if finished_by is None and self._goal_confirmed(goal, sub_goal, tries):
            finished_by, evidence = "goal_confirmed", tries.goal_confirmed
        if finished_by is None:
            missing = progress.missing_control(sub_goal, observation)
            if missing is not None:
                record.outcome = "missing_control"
                done = ending.rehearse(
                    "missing_control",
                    goal,
                    sub_goal,
                    "(none)",
                    [missing],
                    observation,
                    memory,
                    record,
                )
                return Choice(done=done)
            proposal = self._proposer.propose(sub_goal, observation, context, record)
            if not (proposal.sub_goal_finished and proposal.action is None):
                return self._usable(goal, sub_goal, proposal, memory, observation, tries, record)
            own_plan, remaining = self._plans.source in OWN_PLANS, memory.remaining_sub_goals()
            evidence, why = progress.confirm_finish(
                goal,
                sub_goal,
                observation,
                context,
                proposal,
                tries.verdicts.get(sub_goal),
                record,
                remaining,
                own_plan,
            )
            if evidence is None:
                done = ending.unconfirmed_finish(goal, sub_goal, why, observation, memory, record)
                return Choice(done=done)
            finished_by, content = "executor", proposal.finished_content
            if self._goal_confirmed(goal, sub_goal, None):
                tries.goal_confirmed = evidence
        progress.complete(memory, sub_goal, finished_by, record, content, evidence)
        tries.advances += 1
        if tries.advances >= self.settings.max_sub_goal_advances:
            record.outcome = "advanced"
            return Choice()
        return None

    def _goal_confirmed(self, goal: str, sub_goal: str, tries: _Tries | None) -> bool:
        """Whether `sub_goal` is the goal in other words, with evidence required (with `tries`:
        and the goal was already confirmed on this step's screen)."""
        progress = self._progress
        if tries is not None and tries.goal_confirmed is None:
            return False
        whole = progress.goals.covers_goal(goal, sub_goal) and not is_question(goal)
        return whole and progress.require_evidence

    def _checked(
        self,
        goal: str,
        sub_goal: str,
        observation: Observation,
        context: str,
        tries: _Tries,
        record: StepData,
    ) -> tuple[str | None, dict[str, Any] | None]:
        """The progress check, once per sub-goal and step when due: who found the sub-goal done
        and the evidence, or (None, None)."""
        progress = self._progress
        if is_the_question(progress, self._screen_checker, goal, sub_goal):
            # Done by the executor's reading, or by the one an earlier such step had.
            covers = functools.partial(is_the_question, progress, self._screen_checker, goal)
            read = question_read(progress.evidence.values(), covers)
            return ("question_read", read) if read is not None else (None, None)
        if sub_goal in tries.checked or not progress.due():
            return None, None
        tries.checked.add(sub_goal)
        by, verdict, planners = progress.verdict(goal, sub_goal, observation, context, record)
        if planners:
            tries.verdicts[sub_goal] = verdict
        progress.actions_on_sub_goal = 0
        evidence = progress.judge(sub_goal, by, verdict, observation, record)
        return (by if evidence is not None else None), evidence

    def _usable(
        self,
        goal: str,
        sub_goal: str,
        proposal: ProposedAction,
        memory: WorkingMemory,
        observation: Observation,
        tries: _Tries,
        record: StepData,
    ) -> Choice | None:
        """The proposal to run; after unusable ones, the vision fallback's pick or a replan."""
        if proposal.action is not None:
            return Choice(proposal)
        tries.unusable.append(proposal)
        if len(tries.unusable) < self.settings.proposals_before_vision:
            return None
        selected = self._proposer.vision_select(sub_goal, observation, record)
        if selected is not None:
            return Choice(selected)
        reasons = [p.error or "unusable executor output" for p in tries.unusable]
        remember(memory, self._log.step, sub_goal, "(no usable action)", "unusable proposals")
        record.outcome = "unusable_proposals"
        done = self._ending.rehearse(
            "unusable_proposals", goal, sub_goal, "(none)", reasons, observation, memory, record
        )
        return Choice(done=done)

    # --- after the episode -------------------------------------------------------------------

    def episode_summary(self) -> dict[str, Any]:
        memory, stats, plans, ending = self._memory, self._log.stats, self._plans, self._ending
        plan_summary = plans.summary(stats)
        summary: dict[str, Any] = {
            "agent": "celil_agent",
            "goal": self._goal,
            "steps": self._log.step,
            "status": ending.status,
            "infeasible_reason": ending.infeasible_reason,
            "answer": ending.answer,
            # Why each done sub-goal counts as done (DESIGN §3 step 3), in the order it was done.
            "evidence": list(self._progress.evidence.values()),
            "plan_source": plans.source,
            "progress": memory.progress() if memory is not None else None,
            "rehearsals": plan_summary["rehearsals"],
            **stats.summary(self.settings.threshold, self.settings.irreversible_threshold),
            "memory": plan_summary["memory"],
        }
        if self._ledger is not None and hasattr(self._ledger, "episode_totals"):
            try:
                summary["usage"] = self._ledger.episode_totals()
            except Exception as error:
                summary["usage_error"] = str(error)
        return summary

    def reusable_plan(self) -> list[str]:
        """The plan worth remembering: the sub-goals without this episode's recovery steps."""
        return self._plans.reusable(self._memory)

    def episode_finished(self, goal: str, score: float) -> None:
        """The runner's verified score: remember the plan of a success the agent claimed, and
        tell memory how a reused plan fared (see `EpisodePlan.remember`)."""
        self._plans.remember(goal, score, self._ending.status, self._memory, self.provenance)
