"""One episode's plan (DESIGN §3 steps 2, 11 and 12): made once, repaired by rehearsals,
remembered after a verified success.

The first plan comes from episodic memory when a remembered plan is trusted as it is, else from
the planner (which still sees the remembered plan). A rehearsal replaces the unfinished part of
the plan; done sub-goals stay done. Rehearsals are bounded: past the bound the episode ends
`infeasible` rather than looping.
"""

from __future__ import annotations

from typing import Any, Protocol

from android_world.agents.custom.celil_protocols import (
    FailureContext,
    Observation,
    Plan,
    Planner,
)
from android_world.agents.custom.loop.celil_events import EpisodeStats, EventLog
from android_world.agents.custom.loop.celil_loop_settings import LoopSettings
from android_world.agents.custom.loop.celil_progress import ProgressJudge
from android_world.agents.custom.loop.celil_step_data import StepData
from android_world.agents.custom.memory.celil_episodic import abstract_goal
from android_world.agents.custom.memory.celil_memory import WorkingMemory, normalize_sub_goal


class EpisodicStore(Protocol):
    """The three calls the agent makes on `celil_episodic.EpisodicMemory`."""

    def find_similar_task(self, goal: str, app_names: Any = ()) -> Any: ...

    def add_successful_plan(
        self, goal: str, plan: list[str], app_names: Any = (), provenance: Any = None
    ) -> str: ...

    def record_outcome(self, entry_id: str, success: bool) -> None: ...


def trusts(
    retrieved: Any, goal: str, min_similarity: float | None, min_success_rate: float
) -> bool:
    """Reuse a remembered plan as it is, without the planner, only when its goal template
    is near-identical and it has kept succeeding (`min_similarity` None: never).

    Near-identical is not enough when the goal abstracts to another template: "this Sunday"
    and "October 22" differ by one word, yet only the first needs today's date read first,
    so such a goal goes to the planner (which still gets the remembered plan)."""
    if min_similarity is None:
        return False
    template = getattr(retrieved, "goal_template", None)
    # The same task in other words (`celil_episodic_meaning`) is as good as the same template.
    same_meaning = getattr(retrieved, "same_meaning", False) is True
    if (
        goal
        and isinstance(template, str)
        and not same_meaning
        and abstract_goal(goal).template != template
    ):
        return False
    similarity = getattr(retrieved, "similarity", None)
    success_rate = getattr(retrieved, "success_rate", None)
    return (
        isinstance(similarity, (int, float))
        and isinstance(success_rate, (int, float))
        and similarity >= min_similarity
        and success_rate >= min_success_rate
    )


class EpisodePlan:
    """The plan's history in one episode: where it came from, its repairs, its recovery steps."""

    def __init__(
        self,
        planner: Planner,
        episodic: EpisodicStore | None,
        log: EventLog,
        settings: LoopSettings,
    ):
        self._planner = planner
        self._episodic = episodic
        self._log = log
        self._app_names = settings.app_names
        self._reuse = (settings.memory_reuse_similarity, settings.memory_reuse_success_rate)
        self.max_rehearsals = settings.max_rehearsals
        self._history_steps = settings.history_steps
        self.retrieved: Any = None
        self.source = ""
        self.rehearsals = 0
        self.recovery: set[str] = set()
        self.stored: str | None = None  # the entry id once this episode's plan was remembered

    def _recall(self, goal: str, record: StepData) -> list[str] | None:
        """The remembered plan for a similar goal, if any (announced as a memory hit)."""
        retrieved = None
        if self._episodic is not None:
            try:
                retrieved = self._episodic.find_similar_task(goal, self._app_names)
            except Exception as error:
                self._log.warn(
                    f"episodic memory lookup failed: {type(error).__name__}: {error}", record
                )
        if retrieved is not None and getattr(retrieved, "plan", None):
            self.retrieved = retrieved
            self._log.emit(
                "memory_hit",
                entry_id=getattr(retrieved, "entry_id", None),
                goal_template=getattr(retrieved, "goal_template", None),
                similarity=getattr(retrieved, "similarity", None),
                success_rate=getattr(retrieved, "success_rate", None),
                plan=list(retrieved.plan),
            )
            record.memory_hit = True
            record.memory_entry_id = getattr(retrieved, "entry_id", None)
        return list(retrieved.plan) if self.retrieved is not None else None

    def make(
        self, goal: str, observation: Observation, memory: WorkingMemory, record: StepData
    ) -> str | None:
        """Plans the episode; returns why the planner could not understand the goal, if so."""
        retrieved_plan = self._recall(goal, record)
        if retrieved_plan and trusts(self.retrieved, goal, *self._reuse):
            # A near-identical goal whose plan keeps succeeding: planning again would spend a
            # model call to rewrite the same sub-goals. Rehearsal still repairs it if it fails.
            plan = Plan(retrieved_plan, source="memory", rationale="reused from episodic memory")
        else:
            try:
                with self._log.timed("maestro"):
                    plan = self._planner.generate_initial_plan(goal, observation, retrieved_plan)
            except Exception as error:
                self._log.warn(f"planner raised {type(error).__name__}: {error}", record)
                plan = Plan(retrieved_plan or [goal], source="fallback")
        if not plan.sub_goals:
            self._log.warn(
                "planner returned an empty plan; using the goal as the only sub-goal", record
            )
            plan = Plan([goal], source="fallback", rationale=plan.rationale)
        memory.set_plan(plan.sub_goals)
        self.source = plan.source
        for warning in plan.warnings:
            self._log.warn(f"planner: {warning}", record)
        self._log.emit(
            "plan_created",
            sub_goals=memory.get_plan(),
            source=plan.source,
            rationale=plan.rationale,
            warnings=list(plan.warnings),
        )
        record.plan_created = memory.get_plan()
        return plan.not_understood

    def rehearse(
        self,
        kind: str,
        goal: str,
        sub_goal: str | None,
        action_description: str,
        reasons: list[str],
        observation: Observation,
        memory: WorkingMemory,
        progress: ProgressJudge,
        record: StepData,
    ) -> str | None:
        """Replan around a failure of `kind`; returns why the episode is infeasible once the
        rehearsal budget is spent, else None."""
        self.rehearsals += 1
        self._log.stats.rehearsals[kind] += 1
        record.rehearsal = kind
        gave_up = self.rehearsals > self.max_rehearsals
        self._log.emit(
            "rehearsal",
            kind=kind,
            count=self.rehearsals,
            limit=self.max_rehearsals,
            reasons=reasons,
            gave_up=gave_up,
        )
        if gave_up:
            return (
                f"unmet sub-goal {sub_goal!r}: {reasons[0] if reasons else kind}"
                if sub_goal
                else f"gave up after {kind}"
            )[:300]
        failure = FailureContext(
            goal=goal,
            plan=memory.get_plan(),
            done_sub_goals=memory.done_sub_goals(),
            failed_sub_goal=sub_goal or "",
            action=action_description,
            reasons=reasons,
            observation=observation,
            kind=kind,
            history_summary=memory.history_summary(max(self._history_steps, 3)),
        )
        try:
            with self._log.timed("maestro"):
                plan = self._planner.generate_corrective_plan(failure)
        except Exception as error:
            self._log.warn(f"corrective planner raised {type(error).__name__}: {error}", record)
            return None
        for warning in plan.warnings:
            self._log.warn(f"planner: {warning}", record)
        self.recovery.update(plan.recovery_sub_goals)
        if plan.sub_goals or kind == "missing_control":
            self._revise(plan, kind, sub_goal or "", memory, progress, record)
        return None

    def _revise(
        self,
        plan: Plan,
        kind: str,
        sub_goal: str,
        memory: WorkingMemory,
        progress: ProgressJudge,
        record: StepData,
    ) -> None:
        # A step naming a control the app does not have may leave nothing to do: the goal
        # check then decides whether the task is done.
        memory.revise_plan(plan.sub_goals)
        if sub_goal and kind != "missing_control" and not memory.remaining_sub_goals():
            # A repair that only repeats steps marked done would end the plan again at
            # once: the step that failed is open until the screens show it.
            progress.reopen(memory, sub_goal)
        progress.actions_on_sub_goal = 0
        self._log.emit(
            "plan_revised",
            kind=kind,
            sub_goals=memory.get_plan(),
            new_sub_goals=list(plan.sub_goals),
            done_sub_goals=memory.done_sub_goals(),
            source=plan.source,
            rationale=plan.rationale,
            recovery_sub_goals=list(plan.recovery_sub_goals),
        )
        record.plan_revised = memory.get_plan()

    def summary(self, stats: EpisodeStats) -> dict[str, Any]:
        """The plan's part of `episode_summary`: its rehearsals and what memory gave and kept."""
        return {
            "rehearsals": {
                "count": self.rehearsals,
                "limit": self.max_rehearsals,
                "by_kind": dict(stats.rehearsals),
            },
            "memory": {
                "hit": self.retrieved is not None,
                "entry_id": getattr(self.retrieved, "entry_id", None),
                "similarity": getattr(self.retrieved, "similarity", None),
                # True once episode_finished stored this episode's plan (a verified success).
                "stored": bool(self.stored),
                "stored_entry_id": self.stored,
            },
        }

    def reusable(self, memory: WorkingMemory | None) -> list[str]:
        """The plan worth remembering: every sub-goal except the planner's recovery steps
        ("Go back", "Reopen the app"), which fixed this episode's detours, not the task."""
        if memory is None:
            return []
        recovery = {normalize_sub_goal(s) for s in self.recovery}
        return [s for s in memory.get_plan() if normalize_sub_goal(s) not in recovery]

    def remember(
        self,
        goal: str,
        score: float,
        finished_status: str | None,
        memory: WorkingMemory | None,
        provenance: dict[str, Any],
    ) -> None:
        """Store the plan only for a verified full success that the agent itself claimed; tell
        memory how a reused plan fared.

        The claim must agree with the score: an episode the check passed although the agent
        gave up (or never finished) succeeded for some other reason than its plan, and a plan
        stored from it could come back as a poisoned memory."""
        if self._episodic is None:
            return
        success = score >= 1.0 and finished_status == "complete"
        if score >= 1.0 and not success:
            self._log.warn(
                f"plan not stored: the task's check passed, but the agent ended "
                f"{finished_status or 'without a status'}"
            )
        if self.retrieved is not None:
            try:
                self._episodic.record_outcome(self.retrieved.entry_id, success)
            except Exception as error:
                self._log.warn(f"episodic record_outcome failed: {error}")
        if not success or memory is None or not memory.has_plan() or memory.task_goal != goal:
            return
        plan = self.reusable(memory)
        if not plan:
            return
        provenance = {
            **provenance,
            "score": score,
            "steps": self._log.step,
            "rehearsals": self.rehearsals,
            "plan_source": self.source,
        }
        try:
            entry_id = self._episodic.add_successful_plan(goal, plan, self._app_names, provenance)
            self.stored = entry_id or None
            self._log.emit("memory_stored", entry_id=entry_id, plan=plan)
        except Exception as error:
            self._log.warn(f"episodic add_successful_plan failed: {error}")
