"""`second_opinion: majority` (issue 30): when the offline executor grounds the sub-goal on
another action, one confident vote no longer passes a reversible action; the personas not yet
asked are asked until a majority of at least two readable votes decides. Each rule each way."""

from __future__ import annotations

import celil_fakes as fakes
import pytest
from test_call_budget import _element, _obs, _proposal

from android_world.agents.custom import factory
from android_world.agents.custom.celil_protocols import Vote
from android_world.agents.custom.loop.celil_events import EventLog
from android_world.agents.custom.loop.celil_gate import Gate, SecondOpinionSettings
from android_world.agents.custom.loop.celil_loop_settings import LoopSettings
from android_world.agents.custom.loop.celil_second_opinion import Opinion, wants_majority
from android_world.agents.custom.loop.celil_step_data import StepData
from android_world.agents.custom.offline_roles.offline_second_opinion import OfflineOpinion
from android_world.agents.custom.roles import celil_quality_control as qc
from android_world.env import json_action

YES = '{"score": 9, "reasoning": "the right control"}'
NO = '{"score": 3, "reasoning": "the target does not match the intent"}'
BAD = "I cannot tell."


def _votes(*scores: float | None) -> list[Vote]:
    """One vote per score; None: an answer that could not be read."""
    return [Vote(f"p{i}", s or 0.0, "r", parseable=s is not None) for i, s in enumerate(scores)]


@pytest.mark.parametrize(
    ("scores", "pending", "verdict", "open_"),
    [
        ((9,), 2, False, True),  # one confident vote: not yet a majority, ask on
        ((9, 9), 1, True, False),  # two for, none against: decided
        ((9, 3), 1, False, True),  # a split: the third decides
        ((9, 3, 9), 0, True, False),
        ((9, 3, 3), 0, False, False),
        ((3, 3), 1, False, False),  # two against: the third cannot make a majority
        ((3,), 2, False, True),
        ((9, None, None), 0, True, False),  # unreadable answers are absent, never a veto
        ((9, None), 1, False, True),
        ((None, None, None), 0, False, False),
    ],
)
def test_majority_verdict_and_when_more_votes_can_change_it(scores, pending, verdict, open_):
    votes = _votes(*scores)
    assert qc.majority_verdict(votes, 7.0, pending) is verdict
    assert qc.majority_open(votes, 7.0, pending) is open_


def _by_persona(answers: dict[str, str]):
    def answer(prompt: str) -> str:
        for persona, text in answers.items():
            if f"You are the {persona}" in prompt:
                return text
        return BAD

    return answer


def _screen():
    return _obs(_element("Save"), _element("Cancel", y=400))


def _ensemble(answers: dict[str, str]) -> tuple[qc.VerifierEnsemble, fakes.ScriptedWrapper]:
    wrapper = fakes.ScriptedWrapper(_by_persona(answers))
    return qc.VerifierEnsemble(wrapper, mode="adaptive", use_screenshot=False), wrapper


def _tap(index: int = 1):
    return _proposal(action_type="click", index=index)


def test_confirm_asks_the_others_after_one_confident_vote_and_the_majority_decides():
    ensemble, wrapper = _ensemble({"Skeptic": YES, "Pragmatist": NO, "Efficiency Expert": NO})
    score, votes = ensemble.verify_action("s", _tap(), _screen(), "")
    assert [v.persona for v in votes] == ["Skeptic"] and score >= 8  # adaptive: one is enough
    score, votes, passed = ensemble.confirm("s", _tap(), _screen(), "", votes)
    assert len(wrapper.prompts) == 3 and not passed and score < 7
    assert sorted(ensemble.last_details.asked) == sorted(ensemble.personas)
    assert ensemble.last_details.skipped == []


def test_confirm_stops_once_two_readable_votes_pass():
    ensemble, wrapper = _ensemble({"Skeptic": YES, "Pragmatist": YES, "Efficiency Expert": NO})
    _, votes = ensemble.verify_action("s", _tap(), _screen(), "")
    score, votes, passed = ensemble.confirm("s", _tap(), _screen(), "", votes)
    assert passed and score >= 7 and len(wrapper.prompts) == 2
    assert ensemble.last_details.skipped == ["Efficiency Expert"]


def test_confirm_with_unreadable_others_keeps_the_one_readable_vote():
    ensemble, _ = _ensemble({"Skeptic": YES})
    _, votes = ensemble.verify_action("s", _tap(), _screen(), "")
    _, votes, passed = ensemble.confirm("s", _tap(), _screen(), "", votes)
    assert passed and [v.parseable for v in votes].count(True) == 1


class _Source:
    def __init__(self, *actions: json_action.JSONAction) -> None:
        self.actions = actions

    def opinion(self, goal, sub_goal, observation, context_summary):
        return OfflineOpinion(tuple(self.actions), "scripted")


def _decide(mode: str, offline: int, answers: dict[str, str], proposal=None):
    ensemble, wrapper = _ensemble(answers)
    source = _Source(json_action.JSONAction(action_type="click", index=offline))
    gate = Gate(ensemble, LoopSettings(), SecondOpinionSettings(mode=mode, source=source))
    proposal = proposal or _tap()
    record = StepData("Add a note")
    decision = gate.decide("Add a note", "s", [], proposal, _screen(), "", EventLog(), record)
    return decision, wrapper


ONE_CONFIDENT = {"Skeptic": YES, "Pragmatist": NO, "Efficiency Expert": NO}


def test_majority_on_a_disagreement_stops_what_one_confident_vote_would_pass():
    decision, wrapper = _decide("majority", 0, ONE_CONFIDENT)
    assert decision.second_opinion == "disagrees" and not decision.passed
    assert len(decision.votes) == 3 and len(wrapper.prompts) == 3
    # `vote` keeps adaptive's rule: the one confident vote passes it.
    decision, wrapper = _decide("vote", 0, ONE_CONFIDENT)
    assert decision.passed and len(wrapper.prompts) == 1


def test_majority_leaves_an_agreed_or_unopinioned_proposal_alone():
    # Agreement: no vote at all (as `vote`).
    decision, wrapper = _decide("majority", 1, ONE_CONFIDENT)
    assert decision.second_opinion == "agrees" and decision.passed and not wrapper.prompts
    # No confident offline action: adaptive's own rule.
    ensemble, wrapper = _ensemble(ONE_CONFIDENT)
    gate = Gate(ensemble, LoopSettings(), SecondOpinionSettings(mode="majority", source=_Source()))
    record = StepData("Add a note")
    decision = gate.decide("Add a note", "s", [], _tap(), _screen(), "", EventLog(), record)
    assert decision.second_opinion == "none" and decision.passed and len(wrapper.prompts) == 1


def test_majority_passes_a_disagreed_action_two_votes_back():
    decision, wrapper = _decide("majority", 0, {"Skeptic": YES, "Pragmatist": YES})
    assert decision.passed and len(wrapper.prompts) == 2


def test_a_disagreed_action_without_any_readable_vote_runs_unverified_as_before():
    decision, _ = _decide("majority", 0, {})
    assert decision.unverified and decision.passed


def test_wants_majority_only_on_a_disagreement_in_majority_mode_and_not_irreversible():
    disagrees, agrees = Opinion("disagrees", "{}"), Opinion("agrees", "{}")
    assert wants_majority(disagrees, "majority", None)
    assert not wants_majority(disagrees, "vote", None)
    assert not wants_majority(disagrees, "majority", "delete")
    assert not wants_majority(agrees, "majority", None)
    assert not wants_majority(None, "majority", None)


def test_a_verifier_without_confirm_keeps_its_own_verdict():
    class _Plain:
        def verification_details(self):
            return None

        def vote_unneeded(self, *args, **kwargs):
            return None

        def verify_action(self, sub_goal, proposed, observation, context):
            return 9.0, [Vote("Skeptic", 9.0, "ok")]

    source = _Source(json_action.JSONAction(action_type="click", index=0))
    gate = Gate(_Plain(), LoopSettings(), SecondOpinionSettings(mode="majority", source=source))
    decision = gate.decide("g", "s", [], _tap(), _screen(), "", EventLog(), StepData("g"))
    assert decision.passed and decision.second_opinion == "disagrees"


def test_the_config_accepts_majority():
    assert factory.CelilAgentConfig(second_opinion="majority").second_opinion == "majority"
    with pytest.raises(ValueError):
        factory.CelilAgentConfig(second_opinion="most")
