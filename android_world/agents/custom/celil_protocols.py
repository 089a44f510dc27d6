"""The seams between Celil's roles.

`CelilAgent` depends only on these protocols, so an LLM-backed role and its offline counterpart
(`offline.py`) are interchangeable, and tests can script any role. Each protocol declares every
capability the loop uses; a role class that subclasses its protocol inherits the default of each
optional capability (the behaviour of a role that lacks it), so the loop never probes a role.
Everything here is plain data: the plugin must run inside an upstream AndroidWorld checkout, so
nothing harness-only is imported.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from android_world.env import interface, json_action, representation_utils


@dataclasses.dataclass(frozen=True)
class OcrLine:
    """One line of OCR words, with its pixel box and mean word confidence (0..100)."""

    text: str
    box: representation_utils.BoundingBox
    confidence: float


@dataclasses.dataclass
class Observation:
    """What every role sees of one screen."""

    screenshot: np.ndarray
    ui_elements: list[representation_utils.UIElement]
    ocr_lines: list[OcrLine]
    ocr_summary: str
    ui_tree_summary: str
    screen_size: tuple[int, int]  # (width, height) in pixels
    frame_hash: str
    foreground_activity: str | None = None


@dataclasses.dataclass
class ProposedAction:
    """The executor's proposal for the current sub-goal.

    `action` is None when the proposal is unusable (`error` says why) or when the executor says the
    sub-goal is already finished (`sub_goal_finished`), which costs no env action.
    """

    action: json_action.JSONAction | None
    thought: str = ""
    raw_output: str = ""
    sub_goal_finished: bool = False
    finished_content: str | None = None
    error: str | None = None
    target_description: str = ""
    is_safe: bool | None = None
    dropped_actions: tuple[str, ...] = ()
    """Further actions the model wrote in the same answer; only the first is proposed."""
    notes: tuple[str, ...] = ()
    """How the answer was read when that matters to a reader of the record (a cut answer)."""

    @property
    def usable(self) -> bool:
        return self.action is not None or self.sub_goal_finished


@dataclasses.dataclass
class Plan:
    """Coarse sub-goals ("Open the Contacts app"), not taps. `source`: model, fallback, memory, offline."""

    sub_goals: list[str]
    rationale: str = ""
    source: str = "model"
    warnings: list[str] = dataclasses.field(default_factory=list)
    # Sub-goals that only recover from the failure at hand ("Go back", "Reopen the app"): they
    # run like any other, but a plan remembered in episodic memory leaves them out.
    recovery_sub_goals: list[str] = dataclasses.field(default_factory=list)
    # Set when the planner could not understand the goal (a clause it cannot turn into steps, a
    # value no step uses): acting anyway would claim a task it never read, so the episode ends
    # `infeasible` with this reason before any action.
    not_understood: str | None = None


# How a progress verdict was reached, strongest first. `screen`: code read the asked state off
# the UI tree/OCR (a switch's position, a field's text, a row in a list); `transition`: the
# screen responded to an action aimed at this very sub-goal (the tapped control was the one
# named); `reading`: the executor's finished(content) answer, found on screens seen this
# episode; `model`: a model's say-so, which counts only once its text is found on the screen;
# `action`: only that some action ran, which is never evidence; `none`: nothing.
EVIDENCE_KINDS = ("screen", "transition", "reading", "model", "action", "none")


@dataclasses.dataclass(frozen=True)
class Evidence:
    """A progress verdict for one sub-goal and what on the screen shows it (`text`)."""

    done: bool
    text: str = ""
    kind: str = "none"

    def as_dict(self) -> dict[str, object]:
        return {"done": self.done, "text": self.text, "kind": self.kind}


@dataclasses.dataclass(frozen=True)
class TrailStep:
    """One screen the agent acted on, and the action it ran there: the episode's record of what
    the screens showed, which the whole-goal check reads (`screen` carries no pixels)."""

    step: int
    screen: Observation
    action_type: str
    index: int | None = None  # the element acted on, in `screen.ui_elements`
    target: str = ""  # the label of the element acted on ("" when none)
    typed: str = ""  # the text an input_text typed
    ok: bool = True  # ran without error and passed its post-check
    changed: bool = True  # the screen changed


GOAL_DONE, GOAL_UNMET, GOAL_UNKNOWN = "done", "unmet", "unknown"


@dataclasses.dataclass(frozen=True)
class GoalCheck:
    """One clause or value of the goal checked against the screens seen."""

    what: str
    status: str  # GOAL_DONE | GOAL_UNMET | GOAL_UNKNOWN
    why: str

    def as_dict(self) -> dict[str, str]:
        return {"what": self.what, "status": self.status, "why": self.why}


@dataclasses.dataclass(frozen=True)
class GoalVerdict:
    """Is the whole goal done? `done`: the screens seen show every clause and value of it;
    `unmet`: they show one of them not done (a typo in a saved value, a switch in the other
    position, a forbidden button pressed); `unknown`: code cannot tell from the screens."""

    status: str
    checks: tuple[GoalCheck, ...] = ()

    @property
    def done(self) -> bool:
        return self.status == GOAL_DONE

    def reason(self) -> str:
        """The first check that keeps the goal from being done, in words."""
        for wanted in (GOAL_UNMET, GOAL_UNKNOWN):
            for check in self.checks:
                if check.status == wanted:
                    return f"{check.what}: {check.why}"
        return "; ".join(c.why for c in self.checks[:3]) or self.status

    def as_dict(self) -> dict[str, object]:
        return {"status": self.status, "checks": [c.as_dict() for c in self.checks]}


def without_pixels(observation: Observation) -> Observation:
    """The observation as the trail keeps it: elements, OCR and app, no screenshot."""
    return dataclasses.replace(observation, screenshot=_NO_PIXELS)


_NO_PIXELS = np.zeros((0, 0, 3), dtype=np.uint8)


@dataclasses.dataclass
class Vote:
    """One verifier persona's score (0..10) and reason.

    `parseable` False: the answer could not be read (`error` says why); such a vote is absent,
    left out of every score, and its `score` is only a display value.
    """

    persona: str
    score: float
    reasoning: str
    parseable: bool = True
    error: str | None = None
    notes: tuple[str, ...] = ()
    """How the answer was read when that matters (a cut answer)."""


@dataclasses.dataclass
class FailureContext:
    """Everything the planner needs to repair a plan. `kind`: rejected, post_check_failed, loop,
    execution_error, unusable_proposals."""

    goal: str
    plan: list[str]
    done_sub_goals: list[str]
    failed_sub_goal: str
    action: str
    reasons: list[str]
    observation: Observation
    kind: str
    history_summary: str = ""


def placeholder_observation() -> Observation:
    """A screen whose texts are `{placeholders}`, for rendering prompt templates (prompt hashes).

    Rendering a prompt builder with placeholders gives exactly the template text a role sends,
    so a hash of it changes if and only if the wording changes.
    """
    return Observation(
        screenshot=np.zeros((0, 0, 3), dtype=np.uint8),
        ui_elements=[],
        ocr_lines=[],
        ocr_summary="{ocr_text}",
        ui_tree_summary="{ui_elements}",
        screen_size=(0, 0),
        frame_hash="",
        foreground_activity="{foreground_app}",
    )


@dataclasses.dataclass
class VerificationDetails:
    """What the last `verify_action` did, for the agent's events.

    `absent`: personas whose answer could not be read (left out of the score). `unverified`:
    why the action has no verdict at all (no readable vote, or fewer readable votes than an
    irreversible action needs), else None. The agent's gate then runs a reversible action
    without a verdict, recorded as such, and never an irreversible one (`gate_verdict`).
    """

    mode: str
    threshold: float
    irreversible: str | None
    asked: list[str]
    skipped: list[str]
    absent: list[str] = dataclasses.field(default_factory=list)
    unverified: str | None = None


UnusableRecord = dict[str, Any]
"""An answer a role received but could not use (a prompt echo), as the step data records it."""


@runtime_checkable
class Perceiver(Protocol):
    """Perception: one screen in, an `Observation` out (screenshot, OCR, UI tree, summaries)."""

    def process_observation(
        self, state: interface.State, foreground_activity: str | None = None
    ) -> Observation: ...

    def ocr_seconds(self) -> float:
        """Seconds the last `process_observation` spent in OCR (0 when none ran)."""
        return 0.0

    def take_warnings(self) -> list[str]:
        """Warnings gathered since the last call (an OCR engine that failed), then cleared."""
        return []


@runtime_checkable
class Planner(Protocol):
    reads_screen: bool = False
    """True for a planner whose progress check reads the screen itself without a model (the
    offline one): it is its own screen check, and its own plans are its reading of the goal."""

    def generate_initial_plan(
        self, goal: str, observation: Observation, retrieved_plan: list[str] | None
    ) -> Plan: ...

    def generate_corrective_plan(self, failure_context: FailureContext) -> Plan: ...

    def is_sub_goal_done(
        self, goal: str, sub_goal: str, observation: Observation, context_summary: str
    ) -> bool:
        """The progress check: does the screen already show this sub-goal done?"""
        ...

    def check_sub_goal(
        self, goal: str, sub_goal: str, observation: Observation, context_summary: str
    ) -> Evidence:
        """The progress check with its evidence, which the agent asks. By default a bare
        `is_sub_goal_done`, which carries no evidence: the agent never counts it on its own."""
        done = self.is_sub_goal_done(goal, sub_goal, observation, context_summary)
        return Evidence(bool(done), "", "model")

    def answer_question(
        self, goal: str, observation: Observation, context_summary: str
    ) -> str | None:
        """For information-retrieval goals: the answer text, or None if not a question."""
        ...

    def take_unusable(self) -> list[UnusableRecord]:
        """Answers received but not used since the last call (prompt echoes), then cleared."""
        return []


NO_CHECKER = GoalVerdict(GOAL_UNKNOWN, (GoalCheck("goal", GOAL_UNKNOWN, "no screen checker"),))
"""The whole-goal verdict of a screen checker that cannot read whole goals."""


@runtime_checkable
class ScreenChecker(Protocol):
    """The model-free reader of progress off the screens (the offline planner's checks), which
    the factory injects beside the planner. The defaults are those of a checker that reads
    sub-goals only."""

    def check_sub_goal(
        self, goal: str, sub_goal: str, observation: Observation, context_summary: str
    ) -> Evidence: ...

    def check_goal(
        self, goal: str, trail: Sequence[TrailStep], observation: Observation
    ) -> GoalVerdict:
        """The whole goal against the episode's screens."""
        return NO_CHECKER

    def covers_goal(self, goal: str, sub_goal: str) -> bool:
        """Whether the sub-goal is the goal itself in other words (verbatim, restated)."""
        return False

    def values_missing(
        self, sub_goal: str, observation: Observation, seen: Sequence[str] = ()
    ) -> list[str]:
        """Values the sub-goal names that no screen of the episode showed."""
        return []

    def control_shown(self, sub_goal: str, observation: Observation) -> bool | None:
        """Whether the screen shows the control the step names; None when it names none."""
        return None


@runtime_checkable
class ActionGenerator(Protocol):
    def generate_action(
        self, sub_goal: str, observation: Observation, context_summary: str
    ) -> ProposedAction: ...

    def discard_last_turn(self) -> None:
        """The last proposal was rejected or its finish not confirmed: forget that turn."""
        return None

    def reset(self) -> None:
        """A new episode starts: forget the last one's turns."""
        return None


@runtime_checkable
class Verifier(Protocol):
    def verify_action(
        self,
        sub_goal: str,
        proposed_action: ProposedAction,
        observation: Observation,
        context_summary: str,
    ) -> tuple[float, list[Vote]]:
        """Weighted final score (0..10) and the individual votes."""
        ...

    def vote_unneeded(
        self,
        goal: str,
        sub_goal: str,
        proposed: ProposedAction,
        observation: Observation,
        cautious: bool = False,
    ) -> str | None:
        """Why this proposal needs no vote (adaptive mode), or None to ask for one."""
        return None

    def verification_details(self) -> VerificationDetails | None:
        """What the last `verify_action` did (its gate policy); None: the agent's thresholds."""
        return None

    def take_unusable(self) -> list[UnusableRecord]:
        """Votes received but not used since the last call (prompt echoes), then cleared."""
        return []


@runtime_checkable
class ElementSelector(Protocol):
    """Vision fallback: pick an element index for the sub-goal from the numbered list."""

    def select_element(self, sub_goal: str, observation: Observation) -> int | None: ...
