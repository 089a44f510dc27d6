"""Joint votes (issue 30): several personas in one request, read persona by persona.

A persona whose part cannot be read is absent (never a veto); an answer nothing can be read
from leaves every asked persona absent; the verdicts match the one-by-one modes'.
"""

from __future__ import annotations

import json
import time

import celil_fakes as fakes
import numpy as np
import pytest

from android_world.agents.custom.celil_protocols import Observation, ProposedAction
from android_world.agents.custom.roles import celil_quality_control as qc
from android_world.agents.custom.roles.celil_joint_votes import (
    JOINT_SCHEMA,
    joint_format,
    joint_prompt,
    parse_joint_votes,
)
from android_world.env import json_action, representation_utils

ASKED = ["Skeptic", "Pragmatist", "Efficiency Expert"]


def make_observation(labels, classes=None):
    elements = [
        representation_utils.UIElement(
            text=label,
            class_name=(classes or {}).get(label, "android.widget.Button"),
            is_clickable=True,
            is_checkable="Switch" in (classes or {}).get(label, ""),
            bbox_pixels=representation_utils.BoundingBox(0, 100, 200 + 100 * i, 280 + 100 * i),
        )
        for i, label in enumerate(labels)
    ]
    return Observation(
        screenshot=np.zeros((40, 20, 3), dtype=np.uint8),
        ui_elements=elements,
        ocr_lines=[],
        ocr_summary="",
        ui_tree_summary="",
        screen_size=(1080, 2400),
        frame_hash="h",
    )


def scores(votes):
    return {v.persona: (v.score if v.parseable else None) for v in votes}


@pytest.mark.parametrize(
    "answer",
    [
        json.dumps(
            {
                "votes": [
                    {"persona": "Skeptic", "score": 8, "reasoning": "fine"},
                    {"persona": "Pragmatist", "score": 9, "reasoning": "moves on"},
                    {"persona": "Efficiency Expert", "score": 7, "reasoning": "direct"},
                ]
            }
        ),
        '{"skeptic": {"score": 8, "reasoning": "a"}, "pragmatist": 9, "efficiency_expert": '
        '{"rating": "7/10"}}',
        '[{"name": "Skeptic", "rating": 8}, {"role": "pragmatist", "score": 9}, '
        '{"reviewer": "EfficiencyExpert", "score": "70%"}]',
        'Sure.\n```json\n{"reviews": [{"persona": "Skeptic", "score": 8}, '
        '{"persona": "Pragmatist", "score": 9}, {"persona": "Efficiency Expert", "score": 7}]}\n```',
        '{"persona": "Skeptic", "score": 8}\n{"persona": "Pragmatist", "score": 9}\n'
        '{"persona": "Efficiency Expert", "score": 7}',
        "**Skeptic**: 8/10 - no problem\n- Pragmatist: 9 - progress\nEfficiency Expert: 7/10",
        '<think>Skeptic: 1</think>{"votes": [{"persona": "Skeptic", "score": 8}, '
        '{"persona": "Pragmatist", "score": 9}, {"persona": "Efficiency Expert", "score": 7}]}',
        # no names, one entry per persona asked: the order asked
        '{"votes": [{"score": 8}, {"score": 9}, {"score": 7}]}',
    ],
)
def test_the_shapes_models_write_are_read_persona_by_persona(answer):
    assert scores(parse_joint_votes(ASKED, answer)) == {
        "Skeptic": 8.0,
        "Pragmatist": 9.0,
        "Efficiency Expert": 7.0,
    }


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("", {p: None for p in ASKED}),
        ("I think it is fine.", {p: None for p in ASKED}),
        ('{"votes": [{"persona": "Skeptic", "sco', {p: None for p in ASKED}),  # cut off
        ('{"votes": "all good"}', {p: None for p in ASKED}),
        ('{"votes": [8, 9]}', {p: None for p in ASKED}),  # unnamed, wrong number
        ('{"votes": [8, 9, 7, 5]}', {p: None for p in ASKED}),
        # a persona missing, one never asked, one given twice with different scores
        (
            '{"votes": [{"persona": "Skeptic", "score": 8}, {"persona": "Skeptic", "score": 2},'
            ' {"persona": "Intern", "score": 0}, {"persona": "Pragmatist", "score": 9}]}',
            {"Skeptic": None, "Pragmatist": 9.0, "Efficiency Expert": None},
        ),
        # the same vote written twice is one vote
        (
            '{"persona": "Skeptic", "score": 8}{"persona": "Skeptic", "score": 8}',
            {"Skeptic": 8.0, "Pragmatist": None, "Efficiency Expert": None},
        ),
        # out of every scale, not a number, NaN, a boolean: absent, never a 0 that vetoes
        (
            '{"Skeptic": 150, "Pragmatist": "great", "Efficiency Expert": true}',
            {p: None for p in ASKED},
        ),
        ('{"Skeptic": NaN, "Pragmatist": -3}', {p: None for p in ASKED}),
        # the prompt's example copied back
        (
            '{"votes": [{"persona": "Skeptic", "score": 8, "reasoning": "one or two sentences"}]}',
            {p: None for p in ASKED},
        ),
        ('{"votes": [{"persona": "Skeptic", "score": "<number 0-10>"}]}', {p: None for p in ASKED}),
    ],
)
def test_hostile_and_malformed_answers_leave_personas_absent(answer, expected):
    votes = parse_joint_votes(ASKED, answer)
    assert [v.persona for v in votes] == ASKED
    assert scores(votes) == expected
    for vote in votes:
        assert vote.parseable or vote.error


def test_reading_is_linear_on_long_and_nested_answers():
    for answer in (
        "[" * 50_000,
        '{"votes": [' + '{"persona": "Skeptic",' * 20_000,
        "Skeptic:" * 30_000,
    ):
        started = time.perf_counter()
        votes = parse_joint_votes(ASKED, answer)
        assert time.perf_counter() - started < 2.0
        assert len(votes) == 3


def test_a_cut_answer_says_so_on_every_vote():
    answer = json.dumps({"votes": [{"persona": "Skeptic", "score": 8}]}) + " " * 50_000
    votes = parse_joint_votes(ASKED, answer)
    assert all(v.notes for v in votes)


def test_the_prompt_names_each_persona_once_and_the_screen_once():
    prompts = {p: qc.DEFAULT_PERSONA_PROMPTS[p] for p in ASKED}
    prompt = joint_prompt(prompts, "BODY-OF-THE-REVIEW")
    assert prompt.count("BODY-OF-THE-REVIEW") == 1
    for persona in ASKED:
        assert f"You are the {persona}" in prompt
        assert f'"persona": "{persona}"' in joint_format(ASKED)
    assert JOINT_SCHEMA["required"] == ["votes"]


def _ensemble(answers, mode="joint"):
    wrapper = fakes.ScriptedWrapper(answers)
    return qc.VerifierEnsemble(
        wrapper, mode=mode, threshold=7.0, irreversible_threshold=8.5
    ), wrapper


def _joint_answer(skeptic, pragmatist, expert):
    return json.dumps(
        {
            "votes": [
                {"persona": "Skeptic", "score": skeptic, "reasoning": "s"},
                {"persona": "Pragmatist", "score": pragmatist, "reasoning": "p"},
                {"persona": "Efficiency Expert", "score": expert, "reasoning": "e"},
            ]
        }
    )


def _tap(label="Continue"):
    observation = make_observation([label])
    action = json_action.JSONAction(action_type=json_action.CLICK, index=0)
    return ProposedAction(action, thought="tap it"), observation


def test_joint_mode_asks_every_persona_in_one_call_and_takes_the_median():
    ensemble, wrapper = _ensemble([_joint_answer(3, 9, 8)])
    proposal, observation = _tap()
    score, votes = ensemble.verify_action("Go on", proposal, observation, "ctx")
    assert len(wrapper.prompts) == 1
    assert "Answer as each of these 3 reviewers" in wrapper.prompts[0]
    assert score == 8.0 and len(votes) == 3
    details = ensemble.verification_details()
    assert details.mode == "joint" and details.unverified is None


def test_an_unreadable_joint_vote_is_absent_not_a_veto():
    # nothing readable, neither jointly nor from the personas asked one by one after it
    ensemble, wrapper = _ensemble(["I cannot decide.", "no", "no", "no"])
    proposal, observation = _tap()
    _, votes = ensemble.verify_action("Go on", proposal, observation, "ctx")
    assert len(wrapper.prompts) == 4
    assert not any(v.parseable for v in votes)
    details = ensemble.verification_details()
    assert details.unverified and "no verifier vote could be read" in details.unverified
    # the gate runs a reversible action without a verdict and never an irreversible one
    assert qc.gate_verdict(0.0, 7.0, None, details.unverified)
    assert not qc.gate_verdict(0.0, 8.5, "delete", details.unverified)


def test_an_unreadable_joint_answer_is_followed_by_votes_one_by_one():
    """Left unverified, a wrong reversible tap ran (issue 30: with 5% of joint answers
    unreadable, 23 of 226 wrong actions passed a vote or an unreadable one; 17 of 220 after).
    Asked one by one, the two heaviest personas' "no" stops it."""
    single = '{"score": 2, "reasoning": "the target does not match the intent"}'
    ensemble, wrapper = _ensemble(['{"votes": "cut off', single, single])
    proposal, observation = _tap()
    score, votes = ensemble.verify_action("Go on", proposal, observation, "ctx")
    assert len(wrapper.prompts) == 3 and "Answer as each of these" not in wrapper.prompts[1]
    details = ensemble.verification_details()
    assert details.unverified is None and {v.persona for v in votes} == {"Skeptic", "Pragmatist"}
    assert not qc.gate_verdict(score, details.threshold, None, details.unverified)


def test_a_failed_joint_call_is_not_asked_again_one_by_one():
    """A server that failed the call (down, timing out) would fail three more: no verdict,
    and the reversible action runs unverified as before."""
    ensemble, wrapper = _ensemble([ConnectionError("refused"), "unused"])
    proposal, observation = _tap()
    ensemble.verify_action("Go on", proposal, observation, "ctx")
    assert len(wrapper.prompts) == 1
    assert "no verifier vote could be read" in ensemble.verification_details().unverified


@pytest.mark.parametrize(
    ("answer", "runs", "unverified"),
    [
        (
            _joint_answer(9, 9, 2),
            True,
            False,
        ),  # the two heaviest decide; the lightest does not veto
        (_joint_answer(9, 6, 9), False, False),  # one "no" from the two heaviest rejects
        (_joint_answer(8, 8, 9), False, False),  # under the irreversible threshold
        ('{"votes": [{"persona": "Skeptic", "score": 9}]}', False, True),  # one readable vote
        (
            '{"votes": [{"persona": "Skeptic", "score": 9}, {"persona": "Efficiency Expert",'
            ' "score": 9}]}',
            True,
            False,
        ),  # an absent persona's place goes to the next by weight
    ],
)
def test_an_irreversible_action_needs_two_readable_votes_at_its_threshold(answer, runs, unverified):
    ensemble, _ = _ensemble([answer])
    observation = make_observation(["Delete"])
    action = json_action.JSONAction(action_type=json_action.CLICK, index=0)
    score, _ = ensemble.verify_action("Delete it", ProposedAction(action), observation, "ctx")
    details = ensemble.verification_details()
    assert details.irreversible and details.threshold == 8.5
    assert bool(details.unverified) is unverified
    assert (
        qc.gate_verdict(score, details.threshold, details.irreversible, details.unverified) is runs
    )


def test_joint_mode_skips_votes_as_adaptive_does():
    ensemble, _ = _ensemble([])
    observation = make_observation(["Settings"])
    action = json_action.JSONAction(action_type=json_action.NAVIGATE_BACK)
    assert ensemble.vote_unneeded("goal", "sub", ProposedAction(action), observation)


def test_the_scripted_judges_joint_shapes_read_and_their_malformed_ones_do_not():
    """benchmarks/scripted_model.py writes joint votes the way models do; every readable shape
    gives each persona its own judgement, every malformed one leaves them all absent."""
    import random

    import scripted_model as sm

    votes = [
        ("Skeptic", {"score": 8, "reasoning": "fits the sub-goal"}),
        ("Pragmatist", {"score": 3, "reasoning": "the target does not match the intent"}),
        ("Efficiency Expert", {"score": 9, "reasoning": "fits the sub-goal"}),
    ]
    readable, malformed = set(), set()
    for seed in range(60):
        text = sm._joint_shape(random.Random(seed), votes)
        readable.add(text[:12])
        assert scores(parse_joint_votes(ASKED, text)) == {
            "Skeptic": 8.0,
            "Pragmatist": 3.0,
            "Efficiency Expert": 9.0,
        }, text
        text = sm._malformed_joint(random.Random(seed), votes)
        malformed.add(text[:12])
        assert scores(parse_joint_votes(ASKED, text)) == {p: None for p in ASKED}, text
    assert len(readable) >= 4 and len(malformed) >= 2  # several shapes were drawn


def test_the_joint_prompt_is_among_the_hashed_templates():
    ensemble, _ = _ensemble([])
    templates = ensemble.prompt_templates()
    assert "Answer as each of these 3 reviewers" in templates["joint"]
    assert "{sub_goal}" in templates["joint"]
    assert "joint" not in _ensemble([], mode="adaptive")[0].prompt_templates()


class _Recording(fakes.ScriptedWrapper):
    def __init__(self, answers):
        super().__init__(answers)
        self.requests = []

    def call(self, request):
        self.requests.append(request)
        return super().call(request)


def test_votes_state_their_reply_shape_once():
    """Each vote's prompt ends with its reply shape, and says so: a server with no JSON mode is
    not sent the schema too (~100 tokens a joint vote, ~65 a single one; issue 30)."""
    single = '{"score": 2, "reasoning": "the target does not match the intent"}'
    wrapper = _Recording(['{"votes": "cut off', single, single])
    ensemble = qc.VerifierEnsemble(wrapper, mode="joint", threshold=7.0)
    proposal, observation = _tap()
    ensemble.verify_action("Go on", proposal, observation, "ctx")
    joint, *singles = wrapper.requests
    assert joint.schema == JOINT_SCHEMA and joint.shape_in_prompt
    assert joint.prompt.endswith(joint_format(["Skeptic", "Pragmatist", "Efficiency Expert"]))
    assert singles and all(r.shape_in_prompt and r.prompt.endswith(qc.VOTE_FORMAT) for r in singles)


def test_the_benchmark_prices_the_reply_shape_stated_once_below_twice():
    import prompt_tokens

    rows = {name: (twice, once) for name, twice, once in prompt_tokens.shape_rows()}
    twice, once = rows["joint vote"]
    assert 60 <= once <= 80 and twice - once >= 90  # the schema was ~100 tokens more
    assert all(twice > once for twice, once in rows.values())
