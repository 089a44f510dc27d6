"""The gate (DESIGN §3 steps 5-6): the verifiers score a proposal, and a passing score runs it.

An irreversible act is never waved through: its target must be one the goal names
(`celil_irreversible`, no model asked) and its score must reach the irreversible threshold
whatever the verifier mode (`verification: off` has no score). A text to type that copies the
goal's words with a slip is refused the same way (`celil_typos`), unless nothing is verified. A verifier that applies its own
gate policy (adaptive, off) says so in its `verification_details`; a vote it deems unneeded is
skipped, except for the next few proposals after something went wrong (`Caution`). A rejected
proposal goes back to the executor with the reasons once per sub-goal (`ExecutorFeedback`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from android_world.agents.custom.celil_protocols import (
    Observation,
    ProposedAction,
    Verifier,
    Vote,
)
from android_world.agents.custom.loop.celil_events import EventLog
from android_world.agents.custom.loop.celil_irreversible import IrreversibleGuard, Verdict
from android_world.agents.custom.loop.celil_loop_settings import LoopSettings
from android_world.agents.custom.loop.celil_second_opinion import (
    Opinion,
    OpinionSource,
    judge,
    overrides_skip,
    skip_reason,
    strict_pass,
)
from android_world.agents.custom.loop.celil_step_data import GateRecord, StepData, vote_dict
from android_world.agents.custom.loop.celil_typos import typo_refusal
from android_world.agents.custom.roles.celil_quality_control import (
    gate_verdict,
    irreversible_reason,
)

# After something went wrong, this many proposals are voted on as if no step were cheap.
CAUTIOUS_PROPOSALS = 2


class Caution:
    """For the next `CAUTIOUS_PROPOSALS` proposals after a rejection, a failed or refused step,
    an unconfirmed finish or a replan: the executor just erred here, so its next moves on this
    screen are not the cheap bets unvoted steps assume."""

    def __init__(self) -> None:
        self._troubles_seen = 0
        self._left = 0

    def spend(self, troubles: int) -> bool:
        """Whether this proposal is voted on with caution (`troubles`: the episode's so far)."""
        if troubles > self._troubles_seen:
            self._troubles_seen = troubles
            self._left = CAUTIOUS_PROPOSALS
        if self._left <= 0:
            return False
        self._left -= 1
        return True


@dataclasses.dataclass
class GateDecision:
    score: float
    votes: list[Vote]
    threshold: float
    irreversible: str | None
    passed: bool
    unverified: str | None = None
    unneeded: str | None = None  # why no vote was needed
    target_rule: Verdict | None = None  # the irreversible-target rule's verdict
    second_opinion: str | None = None  # the model-free executor's verdict (agrees, ...)

    @property
    def refused(self) -> bool:
        return self.target_rule is not None and not self.target_rule.allowed

    def record(self) -> GateRecord:
        return GateRecord(
            votes=[vote_dict(v) for v in self.votes],
            verifier_score=None if self.unverified else float(self.score),
            threshold=self.threshold,
            irreversible=self.irreversible,
            passed=self.passed,
            unverified=self.unverified,
            vote_skipped=self.unneeded,
            irreversible_target=self.target_rule.as_dict() if self.target_rule else None,
            second_opinion=self.second_opinion,
        )

    def event(self, action: dict[str, Any] | None) -> dict[str, Any]:
        return {
            "score": None if self.unverified else float(self.score),
            "threshold": self.threshold,
            "irreversible": self.irreversible,
            "passed": self.passed,
            "action": action,
            **({"vote_skipped": self.unneeded} if self.unneeded is not None else {}),
            **({"irreversible_target": self.target_rule.as_dict()} if self.target_rule else {}),
            **({"unverified": self.unverified} if self.unverified else {}),
            **({"second_opinion": self.second_opinion} if self.second_opinion else {}),
        }

    def reasons(self) -> list[str]:
        """Why the action may not run: the gate's rule first, then each vote's reason."""
        refusal = f"refused to {self.irreversible}" if self.irreversible else "refused"
        first = (
            f"{refusal}: {self.target_rule.reason}"
            if self.refused and self.target_rule is not None
            else f"verifier score {self.score:.2f} below the {self.threshold:.1f} gate"
            + (f" (irreversible: {self.irreversible})" if self.irreversible else "")
        )
        votes = [f"{v.persona} ({v.score:.1f}): {v.reasoning or v.error or ''}" for v in self.votes]
        return [first, *votes]


class ExecutorFeedback:
    """Why the executor's last proposal did not count, for its next one. A rejection (or an
    unconfirmed "finished") goes back once per sub-goal; a second one in a row costs a replan."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.pending: str | None = None
        self._given: set[str] = set()

    def offer(self, sub_goal: str, text: str) -> bool:
        """Queue `text` for the executor unless this sub-goal had its feedback already."""
        if not self.enabled or sub_goal in self._given:
            return False
        self._given.add(sub_goal)
        self.pending = text
        return True

    def take(self) -> str | None:
        text, self.pending = self.pending, None
        return text

    def passed(self, sub_goal: str) -> None:
        self._given.discard(sub_goal)  # the next rejection is a new problem

    def replanned(self) -> None:
        self._given.clear()


@dataclasses.dataclass(frozen=True)
class SecondOpinionSettings:
    """`second_opinion` (off, skip, vote, strict) with its offline executor, and whether agreement also
    skips the vote on an irreversible act whose target the goal names."""

    mode: str = "off"
    source: OpinionSource | None = None
    irreversible: bool = False

    @property
    def enabled(self) -> bool:
        return self.mode != "off" and self.source is not None


class Gate:
    """One episode's gate: the verifier, the thresholds, the irreversible guard, the caution."""

    def __init__(
        self,
        verifier: Verifier,
        settings: LoopSettings,
        second_opinion: SecondOpinionSettings | None = None,
    ):
        self.verifier = verifier
        self.threshold = settings.threshold
        self.irreversible_threshold = settings.irreversible_threshold
        self.guard = IrreversibleGuard()
        self.caution = Caution()
        self.second = second_opinion or SecondOpinionSettings()

    def decide(
        self,
        goal: str,
        sub_goal: str,
        plan: list[str],
        proposal: ProposedAction,
        observation: Observation,
        context: str,
        log: EventLog,
        record: StepData,
    ) -> GateDecision:
        irreversible = irreversible_reason(proposal, observation)
        target_rule = self.guard.review(goal, plan, proposal, observation)
        refused = target_rule is not None and not target_rule.allowed
        typo = None if refused or not self._verifying() else typo_refusal(goal, proposal)
        if typo is not None:  # a near-copy of the goal's words: refused, as a wrong target is
            target_rule, refused = Verdict(False, "type", "typo", (), typo), True
        unneeded = (
            None
            if irreversible
            else self._vote_unneeded(goal, sub_goal, proposal, observation, log)
        )
        opinion = self._opinion(goal, sub_goal, proposal, observation, context, refused)
        if opinion is not None:
            allowed = target_rule is not None and target_rule.allowed
            agreed = skip_reason(opinion, irreversible, allowed, self.second.irreversible)
            if agreed is not None:
                unneeded = agreed
            elif unneeded is not None and overrides_skip(opinion, self.second.mode, proposal):
                unneeded = None
        try:
            with log.timed("verifiers"):
                if refused:
                    score, votes = 0.0, []
                elif unneeded is not None:
                    score, votes = 10.0, []
                else:
                    score, votes = self.verifier.verify_action(
                        sub_goal, proposal, observation, context
                    )
        except Exception as error:
            score, votes = 0.0, []
            log.warn(f"verifier raised {type(error).__name__}: {error}", record)
        threshold, unverified = self._policy(irreversible, unneeded, refused)
        passed = gate_verdict(score, threshold, irreversible, unverified) and not refused
        if opinion is not None and opinion.disagrees and self.second.mode == "strict" and votes:
            passed = passed and strict_pass(votes, threshold)
        decision = GateDecision(
            score, votes, threshold, irreversible, passed, unverified, unneeded, target_rule
        )
        decision.second_opinion = opinion.verdict if opinion is not None else None
        self._account(decision, log, record)
        if passed:
            self.guard.note_passed(proposal, observation)  # what is selected, what is open
        return decision

    def _opinion(
        self,
        goal: str,
        sub_goal: str,
        proposal: ProposedAction,
        observation: Observation,
        context: str,
        refused: bool,
    ) -> Opinion | None:
        """The model-free executor's word on this proposal (`second_opinion`; the factory gives
        it only to a model verifier with skip rules), unless the action is refused already."""
        if not self.second.enabled or refused:
            return None
        assert self.second.source is not None
        return judge(self.second.source, goal, sub_goal, proposal, observation, context)

    @staticmethod
    def _account(decision: GateDecision, log: EventLog, record: StepData) -> None:
        """The decision in the step record, the events and the episode's counts."""
        record.gate = decision.record()
        stats = log.stats
        if decision.unverified:
            stats.unverified += 1
        for vote in decision.votes:
            log.emit("vote", **vote_dict(vote))
        log.emit("gate", **decision.event(record.action))
        if not decision.unverified:
            stats.scores.append(float(decision.score))
        if decision.irreversible:
            stats.irreversible += 1
        if decision.passed:
            stats.passed += 1
        else:
            stats.rejected += 1

    def _vote_unneeded(
        self,
        goal: str,
        sub_goal: str,
        proposal: ProposedAction,
        observation: Observation,
        log: EventLog,
    ) -> str | None:
        """The verifier's own word on whether this proposal needs a vote (adaptive mode); once
        the episode has seen something go wrong, it is asked to be cautious."""
        try:
            return self.verifier.vote_unneeded(
                goal, sub_goal, proposal, observation, cautious=self.cautious(log)
            )
        except Exception:
            return None

    def _verifying(self) -> bool:
        """Whether proposals are verified at all (`verification: off` gates nothing but the
        irreversible acts)."""
        details = self.verifier.verification_details()
        return details is None or details.mode != "off"

    def cautious(self, log: EventLog) -> bool:
        return self.caution.spend(log.stats.troubles())

    def _policy(
        self, irreversible: str | None, unneeded: str | None, refused: bool
    ) -> tuple[float, str | None]:
        """The threshold the score must reach, and why there is no verdict (no readable vote)."""
        threshold = self.irreversible_threshold if irreversible else self.threshold
        details = self.verifier.verification_details()
        mode = details.mode if details is not None else None
        if unneeded is not None:
            threshold = 0.0
        elif details is not None and mode in ("adaptive", "joint", "off"):
            # These verifiers apply their own gate policy (off: nothing is gated).
            threshold = float(details.threshold)
        if irreversible and mode != "off":
            threshold = max(threshold, self.irreversible_threshold)
        # No readable vote: a reversible action runs unverified (said so), an irreversible one
        # never runs (celil_quality_control.gate_verdict). A refused target asked no one.
        asked = unneeded is None and not refused
        unverified = details.unverified if asked and details is not None else None
        return threshold, unverified
