"""Progress and evidence (DESIGN §3 step 3): when a sub-goal, or the whole goal, counts as done.

A sub-goal is done only when the current screen shows its end state. The model-free screen
checker reads it when it can; when it cannot decide, the planner is asked, and its "done" counts
only when the evidence it quotes is on the screen and every value the sub-goal names was seen.
"A step went through" is never evidence for a sub-goal that names values or an end state, and
placeholder or echoed answers are never evidence. One `ProgressJudge` serves one episode.
"""

from __future__ import annotations

import collections
import re
from typing import Any

from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNMET,
    Evidence,
    GoalVerdict,
    Observation,
    Planner,
    ProposedAction,
    ScreenChecker,
)
from android_world.agents.custom.loop import celil_evidence
from android_world.agents.custom.loop.celil_completion import GoalTracker
from android_world.agents.custom.loop.celil_events import EventLog
from android_world.agents.custom.loop.celil_step_data import StepData
from android_world.agents.custom.memory.celil_memory import WorkingMemory, normalize_sub_goal
from android_world.agents.custom.roles import celil_plan_answers
from android_world.agents.custom.roles.celil_maestro import is_question

# Plan sources a screen-reading (offline) planner wrote from the goal itself, or a verified
# success stored in episodic memory.
OWN_PLANS = ("offline", "memory")
# Actions spent on a step that names a control ("Tap the 'Save' button") which no screen has
# shown, before the planner is asked for another route instead of retrying until the budget.
MISSING_CONTROL_ACTIONS = 3
# Texts of earlier screens kept to ground a reading answer ("Trivia Night" seen two scrolls ago).
MAX_SEEN_TEXTS = 4000
EvidenceRecord = dict[str, Any]

# A sub-goal that is itself a reading ("Read today's date on the Clock", "Note the total"): what
# the executor read off the screen is its result, also when the goal is a task, not a question.
_READING_STEP = re.compile(r"^\s*(?:read|note(?:\s+down)?|look\s+up|write\s+down)\b", re.I)


# Where a step acts, not what it writes: the field it types into ("... in 'Name'") or the
# control it taps ("Tap 'OK'"). Such a label is no value the end state shows: a field's hint
# goes when it is filled, and a tapped control is checked as a control (`missing_control`).
_QUOTED_LABEL = re.compile(r"['\"“‘]([^'\"”’]{1,80})['\"”’]")
_ACTS_ON = re.compile(r"\b(?:in|into|tap|press|click|hit)(?:\s+on)?(?:\s+the)?\s*$", re.I)


def place_labels(sub_goal: str) -> set[str]:
    """The quoted labels a step names as the field or control it acts on."""
    text = sub_goal or ""
    return {
        celil_evidence.normalise(match.group(1))
        for match in _QUOTED_LABEL.finditer(text)
        if _ACTS_ON.search(text[max(0, match.start() - 24) : match.start()])
    }


def is_reading_step(sub_goal: str) -> bool:
    return bool(_READING_STEP.match(sub_goal or ""))


def answer_from_facts(memory: WorkingMemory) -> str:
    """The executor's `finished(content)` of the last sub-goal, as a last-resort answer."""
    if not memory.scratchpad.facts:
        return ""
    fact = memory.scratchpad.facts[-1].split(": ", 1)[-1].strip()
    # The executor's words are a model answer too: "N/A" or "{answer}" is no answer.
    return "" if celil_plan_answers.non_answer(fact) else fact


class ProgressJudge:
    """One episode's progress checks and the evidence that marked each sub-goal done."""

    def __init__(
        self,
        planner: Planner,
        screen_checker: ScreenChecker,
        log: EventLog,
        *,
        require_evidence: bool,
        progress_check: str,
    ):
        self._planner = planner
        self._checker = screen_checker
        self._log = log
        self.require_evidence = require_evidence
        self.progress_check = progress_check
        self.goals = GoalTracker()
        # normalised sub-goal -> the evidence that marked it done (what the report shows).
        self.evidence: dict[str, EvidenceRecord] = {}
        self.seen_texts: set[str] = set()
        self.actions_on_sub_goal = 0
        self.sub_goal_actions: collections.Counter[str] = collections.Counter()
        self._controls_seen: set[str] = set()
        self._controls_replanned: set[str] = set()
        self._goal = ""  # the episode's goal, once a check has named it

    # --- what the episode saw and did -----------------------------------------------------------

    def note_screen(self, observation: Observation) -> None:
        if len(self.seen_texts) < MAX_SEEN_TEXTS:
            self.seen_texts.update(celil_evidence.screen_texts(observation))

    def note_action(self, sub_goal: str) -> None:
        self.actions_on_sub_goal += 1
        self.sub_goal_actions[normalize_sub_goal(sub_goal)] += 1

    def complete(
        self,
        memory: WorkingMemory,
        sub_goal: str,
        by: str,
        record: StepData,
        content: str | None,
        evidence: EvidenceRecord | None = None,
    ) -> None:
        memory.mark_done(sub_goal)
        if content:
            memory.add_fact(f"{sub_goal}: {content}")
        self._log.stats.sub_goals_advanced += 1
        self.actions_on_sub_goal = 0
        done = {"sub_goal": sub_goal, "by": by, "step": self._log.step, **(evidence or {})}
        self.evidence[normalize_sub_goal(sub_goal)] = done
        record.sub_goals_completed.append(sub_goal)
        self._log.emit(
            "sub_goal_done", sub_goal=sub_goal, by=by, content=content, evidence=evidence
        )

    def reopen(self, memory: WorkingMemory, sub_goal: str) -> None:
        memory.reopen(sub_goal)
        self.evidence.pop(normalize_sub_goal(sub_goal), None)

    def unproven(self, plan: list[str]) -> list[str]:
        """The plan's sub-goals with no evidence on record."""
        return [s for s in plan if normalize_sub_goal(s) not in self.evidence]

    # --- checking a sub-goal -----------------------------------------------------------------

    def due(self) -> bool:
        if self.progress_check == "off":
            return False
        if self.progress_check == "always":
            return True
        return self.actions_on_sub_goal > 0

    def screen_reads_progress(self) -> bool:
        """`screen` mode with a model planner: the screen decides after each action, and the
        planner is asked only to confirm an executor's finish. A planner that reads the screen
        itself (the offline one) is its own screen check."""
        return self.progress_check == "screen" and not self._planner.reads_screen

    def verdict(
        self, goal: str, sub_goal: str, observation: Observation, context: str, record: StepData
    ) -> tuple[str, Evidence, bool]:
        """(who checked, the verdict, whether it is the planner's) for the current sub-goal."""
        self._goal = goal
        whole = self._goal_worded(goal, sub_goal, observation, record)
        if whole is not None:
            return "goal_check", whole, False
        if self.screen_reads_progress():
            # Not the planner's: a screen that cannot show it is not a "no".
            return (
                "screen_check",
                self._screen_verdict(goal, sub_goal, observation, context, record),
                False,
            )
        return (
            "progress_check",
            self.check_progress(goal, sub_goal, observation, context, record),
            True,
        )

    def _goal_worded(
        self, goal: str, sub_goal: str, observation: Observation, record: StepData
    ) -> Evidence | None:
        """For the goal in other words ("Create a timer with ..." verbatim, restated, "Verify
        ..."): done exactly when the goal is, whatever steps went through for it; a question's
        is done by its answer, which the executor reads. None for any other sub-goal."""
        if not self.require_evidence or not self.goals.covers_goal(goal, sub_goal):
            return None
        if is_question(goal):
            return Evidence(False, "the answer is read off the screen by the executor")
        shown = self.goal_verdict(goal, observation, record)
        return Evidence(shown.done, shown.reason(), "screen" if shown.done else "none")

    def _screen_verdict(
        self, goal: str, sub_goal: str, observation: Observation, context: str, record: StepData
    ) -> Evidence:
        try:
            verdict = self._checker.check_sub_goal(goal, sub_goal, observation, context)
        except Exception as error:
            self._log.warn(f"screen check raised {type(error).__name__}: {error}", record)
            return Evidence(False, f"screen check raised {type(error).__name__}")
        if not isinstance(verdict, Evidence) or verdict.kind == "model":
            return Evidence(False, "the screen check gave no screen evidence")
        return verdict

    def check_progress(
        self, goal: str, sub_goal: str, observation: Observation, context: str, record: StepData
    ) -> Evidence:
        """The planner's verdict as `Evidence`; a bare boolean is a model's say-so with no text."""
        try:
            with self._log.timed("maestro"):
                verdict = self._planner.check_sub_goal(goal, sub_goal, observation, context)
        except Exception as error:
            self._log.warn(f"progress check raised {type(error).__name__}: {error}", record)
            verdict = Evidence(False, f"progress check raised {type(error).__name__}")
        if not isinstance(verdict, Evidence):
            verdict = Evidence(bool(verdict), "", "model")
        return verdict

    def _reading(
        self, goal: str, sub_goal: str, content: str | None, observation: Observation
    ) -> Evidence | None:
        """For a question or a reading step ("Read today's date"), the executor's
        finished(content) as evidence when the screens seen this episode show it (or it is a
        number worked out from them); else None."""
        reads = is_question(goal) or is_reading_step(sub_goal)
        if not reads or celil_evidence.is_placeholder(content):
            return None
        grounded = celil_evidence.content_grounded(content, observation, self.seen_texts)
        how = "seen on screen"
        if not grounded:
            seen = [*self.seen_texts, *celil_evidence.screen_texts(observation)]
            worked_out, how = celil_evidence.number_worked_out(content, [sub_goal, goal], seen)
            if not worked_out:
                return None
        return Evidence(True, f"read {content!r} ({how})", "reading")

    def judge(
        self,
        sub_goal: str,
        by: str,
        verdict: Evidence,
        observation: Observation,
        record: StepData,
        asked: str | None = None,
    ) -> EvidenceRecord | None:
        """Accept or refuse a verdict against the screen; record it either way. `asked`: what
        the planner was asked about, when not the sub-goal (the whole goal).

        Returns the evidence record when the sub-goal counts as done.
        """
        if self.require_evidence:
            accepted, why = celil_evidence.accept(verdict, observation, self.seen_texts)
            if accepted and verdict.kind == "model":
                accepted, why = self._values_seen(asked or sub_goal, observation, why)
            if accepted and verdict.kind == "model":
                accepted, why = self._about_task(asked or sub_goal, verdict.text, why, observation)
        else:
            accepted, why = verdict.done, verdict.text or "evidence not required"
        judged = {**verdict.as_dict(), "accepted": accepted, "why": why}
        if verdict.done:
            record.evidence.append({"sub_goal": sub_goal, "by": by, **judged})
            self._log.emit("evidence", sub_goal=sub_goal, by=by, **judged)
        if verdict.done and not accepted:
            self._log.stats.evidence_rejected += 1
        return judged if accepted else None

    def _values_seen(self, sub_goal: str, observation: Observation, why: str) -> tuple[bool, str]:
        """A model's "done" also needs every value the sub-goal names (a name, a number, a
        text) shown on a screen of this episode: evidence for "Create a contact for Ann Lee"
        that never showed "Ann Lee" is about something else."""
        missing = self._checker.values_missing(sub_goal, observation, sorted(self.seen_texts))
        places = place_labels(sub_goal)
        missing = [v for v in missing if celil_evidence.normalise(v) not in places]
        if missing:
            return False, f"{missing[0]!r}, which the sub-goal names, was never on the screen"
        return True, why

    def _about_task(
        self, subject: str, text: str, why: str, observation: Observation
    ) -> tuple[bool, str]:
        """A model's "done" also needs evidence about the sub-goal or the goal: a text that is
        on the screen but names nothing either names (a model done too early quoting whatever
        it sees) shows where the agent is, not that the step is done. For a step that only
        opens an app, where the agent is is the evidence: the app it names in front counts,
        whatever the model quoted of that app's screen."""
        about, reason = celil_evidence.relevant(text, [subject, self._goal])
        if about:
            return True, why
        if celil_evidence.opened_app_in_front(subject, observation.foreground_activity):
            return True, f"{why}; the app the step opens is in front"
        return False, reason

    def missing_control(self, sub_goal: str, observation: Observation) -> str | None:
        """Why to replan a step whose named control never showed ("Tap 'Save'" where the app
        saves by itself, or calls it Done): once, after a few actions on it; else None."""
        key = normalize_sub_goal(sub_goal)
        if key in self._controls_seen or key in self._controls_replanned:
            return None
        shown = self._checker.control_shown(sub_goal, observation)
        if shown is None:
            return None
        if shown:
            self._controls_seen.add(key)
            return None
        spent = self.sub_goal_actions[key]
        if spent < MISSING_CONTROL_ACTIONS:
            return None
        self._controls_replanned.add(key)
        return f"no screen in {spent} actions showed the control the step names ({sub_goal!r})"

    # --- the executor's "finished" -------------------------------------------------------------

    def confirm_finish(
        self,
        goal: str,
        sub_goal: str,
        observation: Observation,
        context: str,
        proposal: ProposedAction,
        verdict: Evidence | None,
        record: StepData,
        remaining: list[str],
        own_plan: bool,
    ) -> tuple[EvidenceRecord | None, str]:
        """The executor says the sub-goal is finished: true only if the screen agrees.

        The planner's check confirms it; for a question, the executor's finished(content) read
        off the screens seen this episode (or a number worked out from them) is the reading.
        `remaining`: the plan's open sub-goals; `own_plan`: the plan is the offline planner's
        own reading of the goal, or a remembered success. Returns the evidence record, or None
        and why the finish is not confirmed.
        """
        self._goal = goal
        if not self.require_evidence:
            unchecked = Evidence(True, "", "none")
            return self.judge(sub_goal, "executor", unchecked, observation, record), ""
        reading = self._reading(goal, sub_goal, proposal.finished_content, observation)
        if reading is not None:
            # The answer read off the screens seen is the evidence: no planner call adds to it.
            judged = self.judge(sub_goal, "executor", reading, observation, record)
            if judged is not None:
                return judged, ""
        whole = self.goals.covers_goal(goal, sub_goal)
        last = remaining == [sub_goal]
        if verdict is None and (whole or last) and not is_question(goal):
            # Finishing the goal itself (or the plan's last step): the screens decide when they
            # can, at no model call.
            shown = self.goal_verdict(goal, observation, record)
            if shown.status == GOAL_DONE:
                verdict = Evidence(True, shown.reason(), "screen")
            elif shown.status == GOAL_UNMET:
                return None, shown.reason()
        # The plan's last step finishing is the goal finishing: the planner is asked about the
        # whole goal, once, so its "done" also stands for the goal at the end.
        model_planner = not self._planner.reads_screen
        subject = goal if (whole or last) and model_planner and not is_question(goal) else sub_goal
        if verdict is None:
            verdict = self.check_progress(goal, subject, observation, context, record)
            if whole and not own_plan and verdict.done and verdict.kind in ("transition", "action"):
                # "A step went through" shows nothing of a goal's end state, unless the plan
                # is the offline planner's own reading of the goal (its step is the goal's).
                verdict = Evidence(False, f"only a step went through ({verdict.text})", "none")
        return self._judge_finish(goal, sub_goal, subject, verdict, proposal, observation, record)

    def _judge_finish(
        self,
        goal: str,
        sub_goal: str,
        subject: str,
        verdict: Evidence,
        proposal: ProposedAction,
        observation: Observation,
        record: StepData,
    ) -> tuple[EvidenceRecord | None, str]:
        """The verdict on the executor's finish, judged against the screen; a verdict that is
        not "done" leaves the executor's claim on record as refused."""
        why = "no screen evidence"
        if verdict.done:
            judged = self.judge(sub_goal, "executor", verdict, observation, record, subject)
            if judged is not None:
                if subject == goal:
                    self.goals.planner_confirmed = True
                return judged, ""
            why = record.evidence[-1]["why"]
        elif verdict.text:
            why = verdict.text
        if not verdict.done:
            claim = Evidence(True, proposal.thought[:200], "none")
            self.judge(sub_goal, "executor", claim, observation, record)
        return None, why

    # --- the whole goal --------------------------------------------------------------------------

    def goal_verdict(self, goal: str, observation: Observation, record: StepData) -> GoalVerdict:
        """The screens seen against every clause of the goal (model-free); recorded when it
        says something new."""
        # Attached here, not before: until the first whole-goal verdict of the episode, the
        # tracker has no checker and no sub-goal covers the goal (what the loop always did).
        self.goals.checker = self._checker
        try:
            verdict = self.goals.verdict(goal, observation)
        except Exception as error:
            self._log.warn(f"goal check raised {type(error).__name__}: {error}", record)
            return GoalVerdict("unknown")
        if self.goals.changed(verdict):
            record.goal_check = verdict.as_dict()
            self._log.emit("goal_check", **verdict.as_dict())
        return verdict

    def goal_shown_done(
        self, goal: str, observation: Observation, record: StepData, remaining: list[str]
    ) -> bool:
        """Completion follows the goal: once the screens show every clause of it done, the
        episode is complete, whatever plan steps remain (a "Tap 'Save'" in an app that saved
        on its own). Questions end with their answer, so they are not checked here."""
        if not self.require_evidence or is_question(goal) or not self.goals.trail:
            return False
        verdict = self.goal_verdict(goal, observation, record)
        if not verdict.done:
            return False
        self.evidence[normalize_sub_goal(goal)] = {
            "sub_goal": goal,
            "by": "goal_check",
            "step": self._log.step,
            "kind": "screen",
            "text": "; ".join(c.why for c in verdict.checks)[:300],
            "skipped_sub_goals": remaining,
        }
        record.completed_by = "goal_check"
        self._log.emit("goal_done", skipped_sub_goals=remaining, **verdict.as_dict())
        return True

    def goal_not_shown(
        self, goal: str, observation: Observation, context: str, record: StepData, own_plan: bool
    ) -> str | None:
        """Why the finished plan has not done the goal, or None when it has. `unknown` goes to a
        model planner, shown the screen, whose "done" counts only with evidence on it; the
        offline planner's plan is its own reading of the goal, so its evidence stands."""
        self._goal = goal
        verdict = self.goal_verdict(goal, observation, record)
        if verdict.status == GOAL_DONE:
            return None
        if verdict.status == GOAL_UNMET:
            return verdict.reason()
        if self.goals.planner_confirmed or (self._planner.reads_screen and own_plan):
            # The offline planner's own plan is its reading of the goal, clause by clause, and
            # each step's evidence is on record; a plan worded by anyone else is not.
            return None
        answer = self.check_progress(goal, goal, observation, context, record)
        if answer.done and self.judge(goal, "goal_check", answer, observation, record) is not None:
            self.goals.planner_confirmed = True
            return None
        return answer.text if not answer.done and answer.text else verdict.reason()
