"""The gate's model-free second opinion (issue 30, `second_opinion`): the offline executor's
confident grounding skips the vote when it is the model's action, asks one a skip rule would
have saved when it is another; its closest-word fallback is no opinion; and the offline agent
itself never gets one."""

from __future__ import annotations

import pytest
from test_call_budget import _element, _obs, _proposal

from android_world.agents.custom import factory
from android_world.agents.custom.celil_protocols import VerificationDetails, Vote
from android_world.agents.custom.loop.celil_events import EventLog
from android_world.agents.custom.loop.celil_gate import Gate, SecondOpinionSettings
from android_world.agents.custom.loop.celil_loop_settings import LoopSettings
from android_world.agents.custom.loop.celil_second_opinion import (
    AGREES_REASON,
    Opinion,
    same_action,
    skip_reason,
)
from android_world.agents.custom.loop.celil_step_data import StepData
from android_world.agents.custom.offline_roles.offline_actor import OfflineActionGenerator
from android_world.agents.custom.offline_roles.offline_second_opinion import (
    OfflineOpinion,
    OfflineSecondOpinion,
)
from android_world.agents.custom.roles import celil_quality_control as qc
from android_world.env import json_action


class _Verifier:
    """Joint-mode skip rules, votes that all pass (`score`), and a count of the votes asked."""

    def __init__(self, score: float = 9.0) -> None:
        self.asked = 0
        self.score = score

    def verification_details(self) -> VerificationDetails:
        return VerificationDetails("joint", 7.0, None, [], [])

    def vote_unneeded(self, goal, sub_goal, proposed, observation, cautious=False):
        return qc.vote_unneeded(goal, sub_goal, proposed, observation, cautious)

    def verify_action(self, sub_goal, proposed, observation, context):
        self.asked += 1
        return self.score, [Vote(p, self.score, "ok") for p in ("Pragmatist", "Skeptic")]


class _Source:
    def __init__(self, *actions: json_action.JSONAction) -> None:
        self.actions = actions
        self.questions = 0

    def opinion(self, goal, sub_goal, observation, context_summary):
        self.questions += 1
        return OfflineOpinion(tuple(self.actions), "scripted")


def _decide(mode, source, proposal, screen, goal="Add a note", verifier=None):
    verifier = verifier or _Verifier()
    second = SecondOpinionSettings(mode=mode, source=source)
    gate = Gate(verifier, LoopSettings(), second)
    record = StepData(goal)
    decision = gate.decide(goal, "s", [], proposal, screen, "", EventLog(), record)
    return decision, verifier


def _click(index: int) -> json_action.JSONAction:
    return json_action.JSONAction(action_type="click", index=index)


def test_agreement_skips_the_vote():
    screen = _obs(_element("Save"), _element("Cancel", y=400))
    decision, verifier = _decide(
        "skip", _Source(_click(0)), _proposal(action_type="click", index=0), screen
    )
    assert verifier.asked == 0 and decision.passed
    assert decision.unneeded and decision.unneeded.startswith(AGREES_REASON)
    assert decision.second_opinion == "agrees"
    assert decision.record().second_opinion == "agrees"


def test_with_the_setting_off_the_source_is_never_asked():
    screen = _obs(_element("Save"))
    source = _Source(_click(0))
    decision, verifier = _decide("off", source, _proposal(action_type="click", index=0), screen)
    assert source.questions == 0 and verifier.asked == 1 and decision.second_opinion is None


def test_disagreement_votes_on_what_a_skip_rule_lets_run():
    screen = _obs(_element("More options", "android.widget.ImageButton"), _element("Save", y=400))
    menu = _proposal(action_type="click", index=0)
    # Without the second opinion's objection the menu button runs unvoted...
    decision, verifier = _decide("skip", _Source(_click(1)), menu, screen)
    assert verifier.asked == 0 and "menu" in (decision.unneeded or "")
    # ...with `vote` the disagreement asks the verifiers.
    decision, verifier = _decide("vote", _Source(_click(1)), menu, screen)
    assert verifier.asked == 1 and decision.unneeded is None
    assert decision.second_opinion == "disagrees"
    # Opening an app lets no wrong action run: its skip stays.
    opening = _proposal(action_type="open_app", app_name="Markor")
    decision, verifier = _decide("vote", _Source(_click(1)), opening, screen)
    assert verifier.asked == 0


def test_strict_wants_every_readable_vote_to_pass_on_a_disagreement():
    screen = _obs(_element("Save"), _element("Cancel", y=400))
    proposal = _proposal(action_type="click", index=1)
    split = _Verifier(score=7.5)
    decision, _ = _decide("vote", _Source(_click(0)), proposal, screen, verifier=split)
    assert decision.passed

    class _OneLow(_Verifier):
        def verify_action(self, sub_goal, proposed, observation, context):
            self.asked += 1
            votes = [
                Vote("Pragmatist", 9, "ok"),
                Vote("Skeptic", 9, "ok"),
                Vote("Efficiency", 5, "x"),
            ]
            return 9.0, votes

    decision, _ = _decide("strict", _Source(_click(0)), proposal, screen, verifier=_OneLow())
    assert not decision.passed
    decision, _ = _decide("vote", _Source(_click(0)), proposal, screen, verifier=_OneLow())
    assert decision.passed


def test_no_confident_action_is_no_opinion():
    screen = _obs(_element("Save"))
    decision, verifier = _decide("vote", _Source(), _proposal(action_type="click", index=0), screen)
    assert decision.second_opinion == "none" and verifier.asked == 1


def test_an_irreversible_act_is_skipped_only_when_allowed_and_its_target_is_named():
    agrees = Opinion("agrees", "{}")
    assert skip_reason(agrees, None, False, False)
    assert skip_reason(agrees, "delete", True, False) is None
    assert skip_reason(agrees, "delete", False, True) is None
    assert skip_reason(agrees, "delete", True, True)
    assert skip_reason(Opinion("disagrees"), None, True, True) is None


@pytest.mark.parametrize(
    ("model", "offline", "same"),
    [
        ({"action_type": "click", "index": 0}, {"action_type": "click", "index": 0}, True),
        ({"action_type": "click", "index": 0}, {"action_type": "click", "index": 1}, False),
        ({"action_type": "click", "x": 200, "y": 250}, {"action_type": "click", "index": 0}, True),
        ({"action_type": "long_press", "index": 0}, {"action_type": "click", "index": 0}, False),
        (
            {"action_type": "input_text", "text": "Milk  ", "index": 1},
            {"action_type": "input_text", "text": "milk", "index": 1},
            True,
        ),
        (
            {"action_type": "input_text", "text": "Mlik", "index": 1},
            {"action_type": "input_text", "text": "Milk", "index": 1},
            False,
        ),
        (
            {"action_type": "scroll", "direction": "up"},
            {"action_type": "scroll", "direction": "down"},
            False,
        ),
        (
            {"action_type": "open_app", "app_name": "markor"},
            {"action_type": "open_app", "app_name": "Markor"},
            True,
        ),
        ({"action_type": "navigate_back"}, {"action_type": "navigate_back"}, True),
    ],
)
def test_same_action_means_same_type_target_text_direction_and_app(model, offline, same):
    screen = _obs(_element("Save", y=200), _element("Name", "android.widget.EditText", y=600))
    a, b = json_action.JSONAction(**model), json_action.JSONAction(**offline)
    assert same_action(a, b, screen) is same


def test_the_offline_executors_closest_word_fallback_is_no_opinion():
    # "Look at ..." is no intent the offline families act on: the offline executor taps the
    # label that best matches the words (a non-clickable text, as a noisy model's stray tap).
    label = _element("Battery usage details", "android.widget.TextView", y=500)
    label.is_clickable = False
    screen = _obs(_element("Display", y=300), label)
    goal, sub_goal = "Check the battery usage details", "Look at the battery usage details"
    plain = OfflineActionGenerator(goal=goal).generate_action(sub_goal, screen, f"Goal: {goal}")
    assert plain.action is not None and plain.action.index == 1 and "closest match" in plain.thought
    assert OfflineSecondOpinion().opinion(goal, sub_goal, screen, f"Goal: {goal}").actions == ()
    # So the same stray tap by the model is judged as without a second opinion (here the
    # rule for a control the goal names), not waved through as an agreement.
    proposal = _proposal(action_type="click", index=1)
    decision, _ = _decide("vote", OfflineSecondOpinion(), proposal, screen, goal=goal)
    without, _ = _decide("off", None, proposal, screen, goal=goal)
    assert decision.second_opinion == "none" and decision.unneeded == without.unneeded
    assert not (decision.unneeded or "").startswith(AGREES_REASON)


def test_an_intent_family_grounding_agrees_and_each_question_starts_fresh():
    screen = _obs(_element("Display", y=300), activity="com.android.launcher3/.Launcher")
    goal = "Open the Markor app"
    source = OfflineSecondOpinion()
    first = source.opinion(goal, "Open Markor", screen, f"Goal: {goal}")
    assert [a.action_type for a in first.actions] == ["open_app"]
    # The offline executor remembers what it tried; the second opinion does not.
    assert source.opinion(goal, "Open Markor", screen, f"Goal: {goal}") == first
    opening = _proposal(action_type="open_app", app_name="Markor")
    decision, verifier = _decide("skip", source, opening, screen, goal=goal)
    assert decision.second_opinion == "agrees" and verifier.asked == 0


def test_the_offline_agent_gets_no_second_opinion():
    params = factory.CelilAgentConfig(second_opinion="vote")

    class _Res:
        wrapper = None

    ensemble = qc.VerifierEnsemble.__new__(qc.VerifierEnsemble)
    ensemble.mode = "joint"
    # An offline executor (no model) has nothing to compare with.
    assert factory._second_opinion(params, _Res(), ensemble) is None

    class _Model:
        wrapper = object()

    built = factory._second_opinion(params, _Model(), ensemble)
    assert built is not None and built.mode == "vote" and built.enabled
    # The default (issue 30, stop 43): vote, with agreement also skipping an irreversible vote.
    default = factory._second_opinion(factory.CelilAgentConfig(), _Model(), ensemble)
    assert default is not None and default.mode == "vote" and default.irreversible
    off = factory.CelilAgentConfig(second_opinion="off")
    assert factory._second_opinion(off, _Model(), ensemble) is None
    # verification: off, or a mode without skip rules: nothing to skip or extend.
    assert factory._second_opinion(params, _Model(), qc.NoVerification()) is None
    ensemble.mode = "parallel"
    assert factory._second_opinion(params, _Model(), ensemble) is None
