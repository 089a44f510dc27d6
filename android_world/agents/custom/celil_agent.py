"""CelilAgent: the Conductor loop of DESIGN §3.

The agent builds nothing: it receives perception, a planner, an action generator, a verifier and
the model-free screen checker (any objects meeting `celil_protocols`), plus optional episodic
memory and vision selector, so LLM-backed and offline roles are interchangeable and every role
can be scripted in a test. Each `step(goal)` observes, plans if needed, advances finished
sub-goals for free, asks the executor for one action, lets the verifiers gate it, executes it,
checks that it did something, and replans ("rehearses") when any of that fails. The parts live
in modules of their own: the gate (`celil_gate`), progress and evidence (`celil_progress`), loop
detection (`celil_loop_detection`), the plan (`celil_planning`), the step record
(`celil_step_data`) and the events (`celil_events`).

Nothing a model or the device does may crash an episode: errors become recorded failures, and a
bounded number of rehearsals ends a hopeless episode with `status infeasible` instead of looping.
"""

from __future__ import annotations

import dataclasses
import time
import traceback
from typing import Any

from android_world.agents import base_agent
from android_world.agents.custom import celil_proposals
from android_world.agents.custom.celil_events import EpisodeStats, EventLog, EventSink
from android_world.agents.custom.celil_gate import Gate, GateDecision
from android_world.agents.custom.celil_loop_detection import LoopDetector, screen_key
from android_world.agents.custom.celil_maestro import is_question
from android_world.agents.custom.celil_memory import StepRecord, WorkingMemory
from android_world.agents.custom.celil_planning import EpisodePlan, EpisodicStore
from android_world.agents.custom.celil_post_check import (
    is_device_failure,
    post_check,
    screen_notes,
    step_outcome,
)
from android_world.agents.custom.celil_progress import (
    OWN_PLANS,
    PROGRESS_CHECK_MODES,
    ProgressJudge,
    answer_from_facts,
)
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
from android_world.agents.custom.celil_quality_control import describe_action
from android_world.agents.custom.celil_step_data import (
    ExecutionRecord,
    StepData,
    target_box,
    vote_dict,
)
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


class CelilAgent(base_agent.EnvironmentInteractingAgent):
    """The Conductor. See the module docstring; parts arrive through the constructor."""

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
        threshold: float = 7.0,
        irreversible_threshold: float = 8.5,
        rejection_retries: bool = True,
        max_rehearsals: int = 6,
        loop_repeat_limit: int = 3,
        history_steps: int = 3,
        max_sub_goal_advances: int = 3,
        proposals_before_vision: int = 2,
        progress_check: str = "screen",
        require_evidence: bool = True,
        snap_coordinates: bool = True,
        app_names: tuple[str, ...] = (),
        provenance: dict[str, Any] | None = None,
        transition_pause: float | None = 1.0,
        memory_reuse_similarity: float | None = 0.95,
        memory_reuse_success_rate: float = 0.8,
    ):
        super().__init__(env, name=name, transition_pause=transition_pause)
        if progress_check not in PROGRESS_CHECK_MODES:
            raise ValueError(
                f"progress_check must be one of {PROGRESS_CHECK_MODES}, got {progress_check!r}"
            )
        self._perception = perception
        self._planner = planner
        self._executor = action_generator
        self._verifier = verifier
        self._screen_checker = screen_checker  # reads progress off the screen, no model call
        self._episodic = episodic_memory
        self._vision = vision_selector
        self._ledger = ledger
        self.threshold = float(threshold)
        self.irreversible_threshold = max(float(irreversible_threshold), self.threshold)
        self.rejection_retries = bool(rejection_retries)
        self.max_rehearsals = max(0, int(max_rehearsals))
        self.loop_repeat_limit = int(loop_repeat_limit)
        self.history_steps = max(0, int(history_steps))
        self.max_sub_goal_advances = max(1, int(max_sub_goal_advances))
        self.proposals_before_vision = max(1, int(proposals_before_vision))
        self.progress_check = progress_check
        self.require_evidence = bool(require_evidence)
        self.snap_coordinates = snap_coordinates
        self.app_names = tuple(app_names)
        self.provenance = dict(provenance or {})
        self.memory_reuse_similarity = memory_reuse_similarity
        self.memory_reuse_success_rate = float(memory_reuse_success_rate)
        self.manifest_info: dict[str, Any] = {}
        self._log = EventLog()
        if ledger is not None and hasattr(ledger, "add_listener"):
            ledger.add_listener(self._log.on_model_call)
        self._clear_episode()

    # --- episode state -------------------------------------------------------------------------

    def _clear_episode(self) -> None:
        self._goal: str | None = None
        self._memory: WorkingMemory | None = None
        self._cached_observation: Observation | None = None
        self._current_sub_goal: str | None = None
        self._finished_status: str | None = None
        self._answer: str | None = None
        self._infeasible_reason: str | None = None
        # A rejected proposal goes back to the executor with the verifiers' reasons; a second
        # rejection in a row on the same sub-goal costs a rehearsal (a replan).
        self._rejection_feedback: str | None = None
        self._feedback_given: set[str] = set()
        self._log.new_episode()
        self._plans = EpisodePlan(
            self._planner,
            self._episodic,
            self._log,
            app_names=self.app_names,
            reuse_similarity=self.memory_reuse_similarity,
            reuse_success_rate=self.memory_reuse_success_rate,
            max_rehearsals=self.max_rehearsals,
            history_steps=self.history_steps,
        )
        self._progress = ProgressJudge(
            self._planner,
            self._screen_checker,
            self._log,
            require_evidence=self.require_evidence,
            progress_check=self.progress_check,
        )
        self._loops = LoopDetector(self.loop_repeat_limit)
        self._gate = Gate(self._verifier, self.threshold, self.irreversible_threshold)
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
    def sink_errors(self) -> int:
        return self._log.sink_errors

    @property
    def _stats(self) -> EpisodeStats:
        return self._log.stats

    def run_manifest(self) -> dict[str, Any]:
        """What the runner records in manifest.json (resolved roles, config); set by the factory."""
        return dict(self.manifest_info)

    def set_event_sink(self, sink: EventSink | None) -> None:
        self._log.sink = sink

    def _warn(self, message: str, record: StepData | None = None) -> None:
        self._log.warn(message, record)

    def _cautious(self) -> bool:
        """Whether the next proposal is voted on with caution (spends one; see `celil_gate`)."""
        return self._gate.cautious(self._log)

    # --- observation -----------------------------------------------------------------------

    def _perceive(self, state: interface.State) -> Observation:
        try:
            activity = self._env.foreground_activity_name
        except Exception:
            activity = None
        observation = self._perception.process_observation(state, foreground_activity=activity)
        ocr_seconds = self._perception.ocr_seconds()
        if isinstance(ocr_seconds, int | float) and ocr_seconds > 0:
            self._log.add_timing("ocr", float(ocr_seconds))
        for warning in self._perception.take_warnings():
            self._warn(warning)
        if self._memory is not None:
            self._memory.note_screen(screen_key(observation), screen_notes(observation))
        self._progress.note_screen(observation)
        return observation

    def _observe(self) -> Observation:
        """The post-check already waited for the last action to settle and perceived the result;
        nothing acts between steps, so that observation is reused instead of pausing twice."""
        if self._cached_observation is not None:
            observation, self._cached_observation = self._cached_observation, None
            if self._memory is not None:
                self._memory.note_screen(screen_key(observation), screen_notes(observation))
            return observation
        return self._perceive(self.get_post_transition_state())

    # --- the step ----------------------------------------------------------------------------

    def step(self, goal: str) -> base_agent.AgentInteractionResult:
        if self._goal != goal or self._memory is None:
            self._clear_episode()
            self._goal = goal
            self._memory = WorkingMemory(goal)
        self._log.step += 1
        record = StepData(goal)
        if self._finished_status is not None:
            record.outcome = "already_finished"
            record.status = self._finished_status
            return base_agent.AgentInteractionResult(True, record.as_step_data())
        try:
            done = self._step(goal, self._memory, record)
        except Exception as error:
            if is_device_failure(error):
                raise
            record.outcome = "internal_error"
            record.internal_error = f"{type(error).__name__}: {error}"
            record.traceback = traceback.format_exc(limit=6)
            self._warn(f"internal error in step: {type(error).__name__}: {error}", record)
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

    def _take_unusable(self) -> list[dict[str, Any]]:
        """Answers the planner and verifiers received but did not use (prompt echoes)."""
        return [*self._planner.take_unusable(), *self._verifier.take_unusable()]

    def _step(self, goal: str, memory: WorkingMemory, record: StepData) -> bool:
        observation = self._observe()
        record.observed(observation)
        if not memory.has_plan():
            not_understood = self._plans.make(goal, observation, memory, record)
            if not_understood:
                self._infeasible_reason = f"could not understand the goal: {not_understood}"[:300]
                return self._end("infeasible", record)
        choice = self._choose_action(goal, observation, record)
        if choice.proposal is None:
            return choice.done
        proposal, action = choice.proposal, choice.proposal.action
        assert action is not None and record.sub_goal is not None
        if self.snap_coordinates:
            snapped = celil_proposals.snap(action, observation)
            record.snapped, record.kept_point = snapped.snapped, snapped.kept
            action = snapped.action
            proposal = dataclasses.replace(proposal, action=action)
        record.action = action.as_dict()
        record.action_description = describe_action(action, observation.ui_elements)
        record.target_box = target_box(action, observation)
        decision = self._vote(goal, record.sub_goal, proposal, observation, record)
        if not decision.passed:
            return self._rejected(goal, record.sub_goal, decision, observation, record)
        self._log.stats.passed += 1
        self._gate.guard.note_passed(proposal, observation)  # what is selected, what is open
        self._feedback_given.discard(record.sub_goal)  # the next rejection is a new problem
        return self._run(goal, record.sub_goal, action, decision.score, observation, record)

    def _vote(
        self,
        goal: str,
        sub_goal: str,
        proposal: ProposedAction,
        observation: Observation,
        record: StepData,
    ) -> GateDecision:
        memory = self._memory
        assert memory is not None
        context = memory.get_context_summary(self.history_steps)
        plan = memory.get_plan()
        log = self._log
        decision = self._gate.decide(
            goal, sub_goal, plan, proposal, observation, context, log, record
        )
        record.gate = decision.record()
        if decision.unverified:
            log.stats.unverified += 1
        for vote in decision.votes:
            log.emit("vote", **vote_dict(vote))
        log.emit("gate", **decision.event(record.action))
        if not decision.unverified:
            log.stats.scores.append(float(decision.score))
        if decision.irreversible:
            log.stats.irreversible += 1
        return decision

    def _rejected(
        self,
        goal: str,
        sub_goal: str,
        decision: GateDecision,
        observation: Observation,
        record: StepData,
    ) -> bool:
        self._log.stats.rejected += 1
        self._executor.discard_last_turn()
        reasons = decision.reasons()
        description = record.action_description or ""
        self._remember(sub_goal, description, "rejected", decision.score, None)
        record.outcome = "rejected"
        feedback = (
            f"The verifiers rejected your last proposal ({description}): "
            + "; ".join(reasons)[:600]
            + ". Propose a different action for the same sub-goal."
        )
        if self._give_feedback(sub_goal, feedback, reasons, "rejected_retry", record):
            return False  # feedback, not a replan: the executor tries again knowing why
        return self._rehearse("rejected", goal, sub_goal, description, reasons, observation, record)

    def _give_feedback(
        self, sub_goal: str, feedback: str, reasons: list[str], outcome: str, record: StepData
    ) -> bool:
        """Tell the executor why its proposal did not count, once per sub-goal between replans."""
        if not self.rejection_retries or sub_goal in self._feedback_given:
            return False
        self._feedback_given.add(sub_goal)
        self._rejection_feedback = feedback
        record.outcome = outcome
        self._log.emit("rejection_feedback", sub_goal=sub_goal, reasons=reasons)
        return True

    def _run(
        self,
        goal: str,
        sub_goal: str,
        action: json_action.JSONAction,
        score: float,
        observation: Observation,
        record: StepData,
    ) -> bool:
        """Execute the passed action, post-check it on the settled screen (kept for the next
        step's observation) and rehearse when it failed, looped or did nothing."""
        error_text = self._execute(action, record)
        self._progress.note_action(sub_goal)
        after = self._perceive(self.get_post_transition_state())
        self._cached_observation = after
        changed = screen_key(after) != screen_key(observation)
        ok, reason = post_check(action, observation, after, changed, error_text)
        record.screen_changed = changed
        record.post_check = {"ok": ok, "reason": reason}
        self._log.emit("post_check", ok=ok, screen_changed=changed, reason=reason)
        self._loops.record(action, observation, after)
        self._progress.goals.record(
            self._log.step, observation, action, ok=ok and error_text is None, changed=changed
        )
        description = record.action_description or ""
        self._remember(
            sub_goal, description, step_outcome(action, ok, changed, reason), score, changed
        )
        failure: tuple[str, str] | None = None
        if error_text is not None:
            self._log.stats.execution_errors += 1
            record.outcome = "execution_error"
            failure = ("execution_error", f"the device refused the action: {error_text}")
        elif (loop := self._loops.check()) is not None:
            record.outcome = f"loop ({loop})"
            failure = ("loop", self._loops.why(loop))
        elif not ok:
            self._log.stats.post_check_failures += 1
            record.outcome = "post_check_failed"
            failure = ("post_check_failed", reason)
        if failure is not None:
            kind, why = failure
            return self._rehearse(kind, goal, sub_goal, description, [why], after, record)
        record.outcome = "acted"
        # The action may have finished the goal: say so in this step, not one step later (a
        # step the budget may not have).
        return self._goal_shown_done(goal, after, record)

    def _execute(self, action: json_action.JSONAction, record: StepData) -> str | None:
        """Run the action; returns how it failed (a device that is gone ends the episode)."""
        error_text = None
        started = time.perf_counter()
        try:
            self._env.execute_action(action)
        except Exception as error:
            if is_device_failure(error):
                raise
            error_text = f"{type(error).__name__}: {error}"
        device_s = round(time.perf_counter() - started, 6)
        self._log.stats.executed += 1
        record.execution = ExecutionRecord(error_text is None, error_text, device_s)
        # Device time is not a `timing` event: the report measures it from gate to executed.
        self._log.emit(
            "executed",
            action=record.action,
            ok=error_text is None,
            error=error_text,
            duration_s=device_s,
        )
        return error_text

    def _rehearse(
        self,
        kind: str,
        goal: str,
        sub_goal: str | None,
        action_description: str,
        reasons: list[str],
        observation: Observation,
        record: StepData,
    ) -> bool:
        """Replan around a failure, or give up once the rehearsal budget is spent."""
        memory = self._memory
        assert memory is not None
        self._feedback_given.clear()
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
        self._infeasible_reason = gave_up
        return self._end("infeasible", record)

    # --- choosing an action ----------------------------------------------------------------

    def _choose_action(self, goal: str, observation: Observation, record: StepData) -> Choice:
        """Advance sub-goals the screen shows done (no env action) and return a usable proposal,
        or the step's end (finished, rehearsed, or the per-step advance bound hit)."""
        memory = self._memory
        assert memory is not None
        if self._goal_shown_done(goal, observation, record):
            return Choice(done=True)
        tries = _Tries()
        while True:
            sub_goal = memory.current_sub_goal()
            if sub_goal is None:
                return Choice(done=self._finish(goal, observation, record))
            if sub_goal != self._current_sub_goal:
                self._current_sub_goal = sub_goal
                self._progress.actions_on_sub_goal = 0
                tries.unusable = []
            record.sub_goal = sub_goal
            context = memory.get_context_summary(self.history_steps)
            choice = self._try_sub_goal(goal, sub_goal, observation, context, tries, record)
            if choice is not None:
                return choice

    def _try_sub_goal(
        self,
        goal: str,
        sub_goal: str,
        observation: Observation,
        context: str,
        tries: _Tries,
        record: StepData,
    ) -> Choice | None:
        """One round on the current sub-goal: a usable proposal, the step's end, or None when
        the sub-goal was found done (or the proposal unusable) and choosing goes on."""
        memory, progress = self._memory, self._progress
        assert memory is not None
        finished_by: str | None = None
        content: str | None = None
        evidence: dict[str, Any] | None = None
        if sub_goal not in tries.checked and progress.due():
            tries.checked.add(sub_goal)
            by, verdict, planners = progress.verdict(goal, sub_goal, observation, context, record)
            if planners:
                tries.verdicts[sub_goal] = verdict
            progress.actions_on_sub_goal = 0
            evidence = progress.judge(sub_goal, by, verdict, observation, record)
            finished_by = by if evidence is not None else None
        if finished_by is None:
            missing = progress.missing_control(sub_goal, observation)
            if missing is not None:
                record.outcome = "missing_control"
                return Choice(
                    done=self._rehearse(
                        "missing_control", goal, sub_goal, "(none)", [missing], observation, record
                    )
                )
            proposal = self._propose(sub_goal, observation, context, record)
            if not (proposal.sub_goal_finished and proposal.action is None):
                return self._usable(goal, sub_goal, proposal, observation, tries, record)
            evidence, why = progress.confirm_finish(
                goal,
                sub_goal,
                observation,
                context,
                proposal,
                tries.verdicts.get(sub_goal),
                record,
                memory.remaining_sub_goals(),
                self._plans.source in OWN_PLANS,
            )
            if evidence is None:
                return Choice(
                    done=self._unconfirmed_finish(goal, sub_goal, why, observation, record)
                )
            finished_by, content = "executor", proposal.finished_content
        progress.complete(memory, sub_goal, finished_by, record, content, evidence)
        tries.advances += 1
        if tries.advances >= self.max_sub_goal_advances:
            record.outcome = "advanced"
            return Choice()
        return None

    def _usable(
        self,
        goal: str,
        sub_goal: str,
        proposal: ProposedAction,
        observation: Observation,
        tries: _Tries,
        record: StepData,
    ) -> Choice | None:
        """The proposal to run; after unusable ones, the vision fallback's pick or a replan."""
        if proposal.action is not None:
            return Choice(proposal)
        tries.unusable.append(proposal)
        if len(tries.unusable) < self.proposals_before_vision:
            return None
        selected = self._vision_select(sub_goal, observation, record)
        if selected is not None:
            return Choice(selected)
        reasons = [p.error or "unusable executor output" for p in tries.unusable]
        self._remember(sub_goal, "(no usable action)", "unusable proposals", None, None)
        record.outcome = "unusable_proposals"
        return Choice(
            done=self._rehearse(
                "unusable_proposals", goal, sub_goal, "(none)", reasons, observation, record
            )
        )

    def _propose(
        self, sub_goal: str, observation: Observation, context: str, record: StepData
    ) -> ProposedAction:
        if self._rejection_feedback:
            context = f"{context}\n{self._rejection_feedback}"
            record.rejection_feedback = self._rejection_feedback
            self._rejection_feedback = None
        try:
            with self._log.timed("section_leader"):
                answer = self._executor.generate_action(sub_goal, observation, context)
        except Exception as error:
            answer = ProposedAction(None, error=f"executor raised {type(error).__name__}: {error}")
        proposal = celil_proposals.checked_proposal(answer)
        self._log.stats.proposals += 1
        if not proposal.usable:
            self._log.stats.unusable_proposals += 1
        self._log.emit("action_proposed", sub_goal=sub_goal, **record.add_proposal(proposal))
        return proposal

    def _vision_select(
        self, sub_goal: str, observation: Observation, record: StepData
    ) -> ProposedAction | None:
        if self._vision is None:
            return None
        try:
            with self._log.timed("vision_fallback"):
                index = self._vision.select_element(sub_goal, observation)
        except Exception as error:
            self._warn(f"vision selector raised {type(error).__name__}: {error}", record)
            index = None
        valid = isinstance(index, int) and 0 <= index < len(observation.ui_elements)
        self._log.emit("vision_select", sub_goal=sub_goal, index=index, valid=valid)
        if not valid:
            return None
        self._log.stats.vision_selects += 1
        record.vision_select = index
        return celil_proposals.vision_proposal(index, observation)

    def _unconfirmed_finish(
        self, goal: str, sub_goal: str, why: str, observation: Observation, record: StepData
    ) -> bool:
        """The executor said finished but the screen does not show it: not done; replan."""
        self._log.stats.unconfirmed_finishes += 1
        self._executor.discard_last_turn()
        self._remember(sub_goal, "(finished)", f"not confirmed: {why}", None, None)
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
        return self._rehearse(
            "unconfirmed_finish", goal, sub_goal, "(finished)", reasons, observation, record
        )

    def _remember(
        self,
        sub_goal: str | None,
        action_description: str,
        outcome: str,
        score: float | None,
        changed: bool | None,
    ) -> None:
        """The step in working memory, which every role's context summary shows."""
        if self._memory is None:
            return
        self._memory.add_step(
            StepRecord(
                step=self._log.step,
                sub_goal=sub_goal or "",
                action=action_description,
                outcome=outcome,
                score=score,
                screen_changed=changed,
            )
        )

    # --- finishing ------------------------------------------------------------------------------

    def _goal_shown_done(self, goal: str, observation: Observation, record: StepData) -> bool:
        """The screens show every clause of the goal done: the episode is complete, whatever
        plan steps remain (see `ProgressJudge.goal_shown_done`)."""
        memory = self._memory
        assert memory is not None
        remaining = memory.remaining_sub_goals()
        if not self._progress.goal_shown_done(goal, observation, record, remaining):
            return False
        return self._end("complete", record)

    def _finish(self, goal: str, observation: Observation, record: StepData) -> bool:
        """All sub-goals are done: answer a question first, then report `status complete`.

        Complete only when every sub-goal of the plan carries the evidence that marked it done,
        and the goal itself is not shown unmet.
        """
        memory = self._memory
        assert memory is not None
        unproven = self._progress.unproven(memory.get_plan())
        if self.require_evidence and unproven:
            self._infeasible_reason = f"unmet sub-goal {unproven[0]!r}: no screen evidence"
            return self._end("infeasible", record)
        context = memory.get_context_summary(self.history_steps)
        if self.require_evidence and not is_question(goal):
            own_plan = self._plans.source in OWN_PLANS
            unmet = self._progress.goal_not_shown(goal, observation, context, record, own_plan)
            if unmet is not None:
                return self._goal_unmet(goal, unmet, observation, record)
        scratch = memory.scratchpad_summary()
        if scratch:
            context = f"{context}\n{scratch}"
        try:
            with self._log.timed("maestro"):
                answer = self._planner.answer_question(goal, observation, context)
        except Exception as error:
            self._warn(f"answer extraction raised {type(error).__name__}: {error}", record)
            answer = "" if is_question(goal) else None
        if answer is not None and not answer.strip():
            answer = answer_from_facts(memory)
            if not answer:
                self._remember(None, "(answer)", "no answer found", None, None)
                record.outcome = "no_answer"
                last = memory.get_plan()[-1] if memory.get_plan() else goal
                why = ["every sub-goal is done but the screen does not show the answer"]
                return self._rehearse("no_answer", goal, last, "(answer)", why, observation, record)
        return self._end("complete", record, answer=answer)

    def _goal_unmet(
        self, goal: str, reason: str, observation: Observation, record: StepData
    ) -> bool:
        """Every plan step is done but the goal is not: an exhausted plan is no completion. The
        last step is reopened and the executor told what is missing; when that was tried
        already, the planner repairs the plan (bounded by the rehearsal budget, after which the
        episode ends `infeasible` with this reason)."""
        memory = self._memory
        assert memory is not None
        stats = self._log.stats
        stats.goal_unmet += 1
        last = memory.get_plan()[-1] if memory.get_plan() else goal
        self._progress.reopen(memory, last)
        self._remember(last, "(complete)", f"the task is not done: {reason}", None, None)
        self._log.emit("goal_unmet", sub_goal=last, reason=reason, count=stats.goal_unmet)
        record.outcome = "goal_unmet"
        record.sub_goal = last
        if stats.goal_unmet == 1 and self.rejection_retries:
            self._rejection_feedback = (
                f"The plan's steps are done but the task is not: {reason}"[:500]
                + ". Continue with what is still missing."
            )
            return False
        why = [f"every step of the plan is done but the task is not: {reason}"]
        return self._rehearse("goal_unmet", goal, last, "(complete)", why, observation, record)

    def _end(self, status: str, record: StepData, answer: str | None = None) -> bool:
        """Answer (for a question), claim `status` and end the episode; returns True (done)."""
        if answer:
            self._answer = answer
            answer_action = json_action.JSONAction(action_type=json_action.ANSWER, text=answer)
            try:
                self._env.execute_action(answer_action)
                error = None
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"
                self._warn(f"answer action failed: {error}", record)
            record.answer = answer
            self._log.emit("answer", text=answer, ok=error is None)
        status_action = json_action.JSONAction(action_type=json_action.STATUS, goal_status=status)
        try:
            self._env.execute_action(status_action)
        except Exception as exc:
            self._warn(f"status action failed: {type(exc).__name__}: {exc}", record)
        self._finished_status = record.status = status
        reason = self._infeasible_reason if status == "infeasible" else None
        if reason:
            record.infeasible_reason = reason
        if record.executed:
            # This step also ran an action (the one that finished the goal): it stays the
            # step's action; the claim is recorded beside it.
            record.claim_action = status_action.as_dict()
        else:
            record.action = status_action.as_dict()
            record.action_description = describe_action(status_action, [])
        if record.outcome in (None, "no_answer") or status == "complete":
            record.outcome = "finished" if status == "complete" else "infeasible"
        else:
            record.outcome = f"{record.outcome} -> infeasible"
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

    # --- after the episode -------------------------------------------------------------------

    def episode_summary(self) -> dict[str, Any]:
        memory, stats, plans = self._memory, self._log.stats, self._plans
        scores = stats.scores
        summary: dict[str, Any] = {
            "agent": "celil_agent",
            "goal": self._goal,
            "steps": self._log.step,
            "status": self._finished_status,
            "infeasible_reason": self._infeasible_reason,
            "answer": self._answer,
            # Why each done sub-goal counts as done (DESIGN §3 step 3), in the order it was done.
            "evidence": list(self._progress.evidence.values()),
            "plan_source": plans.source,
            "progress": memory.progress() if memory is not None else None,
            "rehearsals": {
                "count": plans.rehearsals,
                "limit": self.max_rehearsals,
                "by_kind": dict(stats.rehearsals),
            },
            "gate": {
                "passed": stats.passed,
                "rejected": stats.rejected,
                "unverified": stats.unverified,
                "irreversible": stats.irreversible,
                "mean_score": round(sum(scores) / len(scores), 3) if scores else None,
                "threshold": self.threshold,
                "irreversible_threshold": self.irreversible_threshold,
            },
            "proposals": {"total": stats.proposals, "unusable": stats.unusable_proposals},
            "executed": stats.executed,
            "execution_errors": stats.execution_errors,
            "post_check_failures": stats.post_check_failures,
            "sub_goals_advanced": stats.sub_goals_advanced,
            "evidence_rejected": stats.evidence_rejected,
            "unconfirmed_finishes": stats.unconfirmed_finishes,
            "unusable_answers": stats.unusable_answers,
            "vision_selects": stats.vision_selects,
            "warnings": stats.warnings,
            "memory": {
                "hit": plans.retrieved is not None,
                "entry_id": getattr(plans.retrieved, "entry_id", None),
                "similarity": getattr(plans.retrieved, "similarity", None),
                # True once episode_finished stored this episode's plan (a verified success).
                "stored": bool(plans.stored),
                "stored_entry_id": plans.stored,
            },
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
        self._plans.remember(goal, score, self._finished_status, self._memory, self.provenance)
