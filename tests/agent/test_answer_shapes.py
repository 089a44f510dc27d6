"""Plans and votes in the shapes real models write (issue 26 item 4).

The answers are written for these tests; their shapes follow the outputs named in
tests/fixtures/answer_shapes/ and in issue 26. Only the fixtures' tuned part is asserted case by
case here; `benchmarks/answer_shapes.py` prints the hit rate of both parts.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import celil_fakes as fakes
import pytest

from android_world.agents.custom.celil_protocols import ProposedAction
from android_world.agents.custom.roles import celil_maestro
from android_world.agents.custom.roles.celil_maestro import (
    PLAN_EXAMPLES,
    MaestroPlanner,
    parse_plan_text,
    plan_problem,
)
from android_world.agents.custom.roles.celil_quality_control import (
    VerifierEnsemble,
    parse_vote,
)
from android_world.env import json_action

FIXTURES = Path(__file__).parents[1] / "fixtures" / "answer_shapes"


def _plan(text: str) -> list[str] | None:
    answer, _ = parse_plan_text(text, PLAN_EXAMPLES)
    return None if answer is None else answer.sub_goals


# --------------------------------------------------------------------------------------------
# Plans


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "- Open the Clock app and go to the\n  Timer tab\n- Type 0:16:35 but leave the timer\n"
            "  stopped",
            [
                "Open the Clock app and go to the Timer tab",
                "Type 0:16:35 but leave the timer stopped",
            ],
        ),
        (
            # A lazy continuation (no indent) joins the item it continues.
            "1. Open the Contacts app and tap the button\nlabelled Create contact\n2. Save it",
            ["Open the Contacts app and tap the button labelled Create contact", "Save it"],
        ),
        (
            # A sign-off after a blank line is not part of the last item.
            "Plan:\n1. Open Clock.\n2. Tap Timer and enter\n   16 minutes.\n\nGood luck!",
            ["Open Clock.", "Tap Timer and enter 16 minutes."],
        ),
        (
            # A heading's paragraph is its explanation, not a continuation of the step.
            "### Step 1: Open Settings\nOpen it from the home screen.\n\n### Step 2: Enable "
            "Bluetooth\nTap the switch.",
            ["Open Settings", "Enable Bluetooth"],
        ),
    ],
)
def test_a_list_item_that_wraps_is_kept_whole(text: str, expected: list[str]) -> None:
    assert _plan(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        '{"plan": "Set the timer in Clock", "todo": ["Open the Clock app", "Set 0 h 16 min 35 s"]}',
        '{"summary": "Set the timer in Clock", "steps": ["Open the Clock app", "Set 0 h 16 min 35 s"]}',
        '{"plan": "Set the timer in Clock", "actions": ["Open the Clock app", "Set 0 h 16 min 35 s"]}',
        '{"goal": "Set the timer", "plan": "Clock", "next_steps": ["Open the Clock app", '
        '"Set 0 h 16 min 35 s"]}',
    ],
)
def test_a_summary_beside_a_list_of_steps_uses_the_steps(text: str) -> None:
    assert _plan(text) == ["Open the Clock app", "Set 0 h 16 min 35 s"]


@pytest.mark.parametrize(
    "text",
    [
        # The string holds raw newlines (invalid JSON), its first line shares the opening quote.
        '{"sub_goals": "1. Open Contacts\n2. Create a contact named Bob\n3. Save the contact"}',
        '{\n  "sub_goals": "1. Open Contacts\n2. Create a contact named Bob\n3. Save the contact",\n}',
        '"1. Open Contacts\n2. Create a contact named Bob\n3. Save the contact",',
        '{"plan": "1. Open Contacts\n2. Create a contact named Bob\n3. Save the contact"]',
    ],
)
def test_a_json_string_of_numbered_lines_is_split_cleanly(text: str) -> None:
    assert _plan(text) == ["Open Contacts", "Create a contact named Bob", "Save the contact"]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('["34", "36"]', "34"),
        ('{"sub_goals": ["notes.md", "recipes.txt"]}', "notes.md"),
        ('{"sub_goals": ["Open the Contacts app", "Contacts app", "and"]}', "Contacts app"),
        ('{"sub_goals": ["the", "of the"]}', "the"),
        ("1. 12:30\n2. 555-0100", "12:30"),
        ('{"sub_goals": ["!!!", "..."]}', "!!!"),
    ],
)
def test_sub_goals_without_an_action_make_the_plan_unusable(text: str, why: str) -> None:
    answer, reason = parse_plan_text(text, PLAN_EXAMPLES)
    assert answer is None
    assert why in reason


def test_an_unusable_plan_makes_the_planner_use_its_fallback() -> None:
    wrapper = fakes.ScriptedWrapper(['["34", "36"]', '{"sub_goals": ["notes.md"]}'])
    planner = MaestroPlanner(wrapper, repair_retries=1)
    plan = planner.generate_initial_plan("Add a contact named Bob", _observation(), None)
    assert plan.source == "fallback"
    assert plan.sub_goals == ["Add a contact named Bob"]
    assert any("34" in warning for warning in plan.warnings)


def _observation():
    """The fake phone's home screen (Contacts, Clock, Notes), as perception gives it."""
    from android_world.agents.custom.roles.celil_perception import PerceptionModule

    return PerceptionModule(ocr="off").process_observation(fakes.FakePhone().get_state())


@pytest.mark.parametrize(
    "sub_goal",
    [
        "Do the whole task as asked",
        "Open the Contacts app",
        "Wi-Fi on",
        "Contacts app is open",
        "How many tasks are due today?",
        "Verify the contact Bob was saved",
        "Navigate to Settings > Network",
        "Timer set to 16:35",
        "Enter 'Groceries' as the title",
    ],
)
def test_real_sub_goals_are_usable(sub_goal: str) -> None:
    assert plan_problem([sub_goal]) is None


def test_every_sim_goal_verbatim_is_a_usable_plan() -> None:
    """A model that plans the goal verbatim, or as people word it
    (tests/fixtures/paraphrase_goals.json), is never refused."""
    from sim_task_support import REGISTRY, make_task

    goals = [make_task(name, seed).goal for name in sorted(REGISTRY) for seed in (0, 1)]
    paraphrases = json.loads(
        (Path(__file__).parents[1] / "fixtures" / "paraphrase_goals.json").read_text("utf-8")
    )
    # Only the paraphrases' dev split: their held-out split is read as a number, never tuned on.
    goals += [
        entry["text"]
        for entries in paraphrases["tasks"].values()
        for entry in entries
        if entry.get("split") == "dev"
    ]
    refused = [(g, plan_problem([g])) for g in goals if plan_problem([g]) is not None]
    assert refused == []


def _fixtures(kind: str, part: str) -> list[dict]:
    return json.loads((FIXTURES / f"{kind}_{part}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("record", _fixtures("plans", "tuned"), ids=lambda r: r["name"])
def test_plan_fixtures_tuned(record: dict) -> None:
    wanted = [record["expected"], *record.get("also_accepted", [])]
    assert _plan(record["text"]) in wanted


# --------------------------------------------------------------------------------------------
# Votes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"score": 82, "reasoning": "right button"}', 8.2),
        ("Score: 74\nThe tap hits the field.", 7.4),
        ("<think>\nThe target matches.\n</think>\nScore: 90", 9.0),
        ('<think>maybe 3</think>{"score": 65, "reasoning": "ok"}', 6.5),
        ("I rate it 74", 7.4),
        ('{"score": "74", "reasoning": "ok"}', 7.4),
        ("Score: 10", 10.0),
        ("Score: 100", 10.0),
    ],
)
def test_a_score_above_ten_is_read_on_a_hundred(text: str, expected: float) -> None:
    vote = parse_vote("Skeptic", text)
    assert vote.parseable, vote.error
    assert vote.score == pytest.approx(expected)


@pytest.mark.parametrize("text", ['{"score": 150}', "Score: 101", '{"score": -3}'])
def test_a_score_beyond_a_hundred_or_negative_is_unreadable(text: str) -> None:
    assert not parse_vote("Skeptic", text).parseable


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '{"task_completion": {"score": 8, "reason": "a"}, "tool_usage": {"score": 9, '
            '"reason": "b"}, "efficiency": {"score": 7, "reason": "c"}}',
            8.0,
        ),
        ('{"scores": {"correctness": 8, "safety": 10}, "reasoning": "fine"}', 9.0),
        ('{"criteria": [{"name": "progress", "score": 6}, {"name": "risk", "score": 8}]}', 7.0),
        ('{"relevance": 8, "correctness": 6, "reasoning": "half right"}', 7.0),
        # An overall score the judge gave wins over its own parts.
        ('{"overall_score": 7.5, "criterion_scores": {"accuracy": 9, "relevance": 6}}', 7.5),
        # Parts on 0-100 are each read on their scale before averaging.
        ('{"accuracy": {"score": 80}, "safety": {"score": 6}}', 7.0),
    ],
)
def test_a_multi_criterion_vote_is_averaged(text: str, expected: float) -> None:
    vote = parse_vote("Skeptic", text)
    assert vote.parseable, vote.error
    assert vote.score == pytest.approx(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("이 동작은 올바른 버튼을 누릅니다. 점수는 8점입니다.", 8.0),
        ("점수: 9/10", 9.0),
        ('{"score": "8점", "reasoning": "맞습니다"}', 8.0),
        ("该操作点击了正确的按钮。\n评分：8分", 8.0),
        ("得分：7/10", 7.0),
        ("La acción es correcta.\npuntuación: 8", 8.0),
        ("Puntuación: 6 de 10", 6.0),
        ("正しいボタンです。\nスコア：7", 7.0),
        ("評価：6点", 6.0),
        ("L'action est correcte.\nNote : 8/10", 8.0),
        ("Bewertung: 6 von 10", 6.0),
        ("Pontuação: 7", 7.0),
    ],
)
def test_a_score_in_another_language_is_read(text: str, expected: float) -> None:
    vote = parse_vote("Skeptic", text)
    assert vote.parseable, vote.error
    assert vote.score == pytest.approx(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"score":0} {"score":10}', None),
        (
            '<think>hmm</think>{"score": 2, "reasoning": "no"}\n{"score": 9, "reasoning": "yes"}',
            None,
        ),
        ('{"score": 8, "reasoning": "ok"}\nFinal answer: {"score": 8, "reasoning": "ok"}', 8.0),
        ('<think>{"score": 0}</think>{"score": 9, "reasoning": "final"}', 9.0),
        ('{"score": 3, "reasoning": "draft"}\n<think>no</think>', 3.0),
    ],
)
def test_the_final_answer_counts_and_conflicting_objects_are_unreadable(
    text: str, expected: float | None
) -> None:
    vote = parse_vote("Skeptic", text)
    if expected is None:
        assert not vote.parseable
        assert "conflicting" in (vote.error or "")
    else:
        assert vote.parseable and vote.score == pytest.approx(expected)


@pytest.mark.parametrize("record", _fixtures("votes", "tuned"), ids=lambda r: r["name"])
def test_vote_fixtures_tuned(record: dict) -> None:
    vote = parse_vote("Skeptic", record["text"])
    if record["expected"] is None:
        assert not vote.parseable
    else:
        assert vote.parseable, vote.error
        assert math.isclose(vote.score, record["expected"], abs_tol=0.01)


# --------------------------------------------------------------------------------------------
# An unreadable vote is absent, never a 0 that vetoes.


def _by_persona(answers: dict[str, str]):
    def answer(prompt: str) -> str:
        for persona, text in answers.items():
            if f"You are the {persona}" in prompt:
                return text
        return "no idea"

    return answer


def _tap(index: int = 0) -> ProposedAction:
    return ProposedAction(json_action.JSONAction(action_type="click", index=index))


GOOD = '{"score": 9, "reasoning": "the right control"}'
BAD = "I cannot tell."


@pytest.mark.parametrize("mode", ["parallel", "sequential", "lazy"])
def test_an_unreadable_vote_is_left_out_of_the_weighted_mean(mode: str) -> None:
    wrapper = fakes.ScriptedWrapper(
        _by_persona({"Skeptic": BAD, "Pragmatist": GOOD, "Efficiency Expert": GOOD})
    )
    ensemble = VerifierEnsemble(wrapper, mode=mode)
    score, votes = ensemble.verify_action("Save the contact", _tap(), _observation(), "")
    assert score == pytest.approx(9.0)
    skeptic = next(v for v in votes if v.persona == "Skeptic")
    assert not skeptic.parseable and skeptic.error
    assert ensemble.last_details.absent == ["Skeptic"]


def test_adaptive_asks_the_next_persona_when_a_vote_is_unreadable() -> None:
    wrapper = fakes.ScriptedWrapper(
        _by_persona({"Skeptic": BAD, "Pragmatist": GOOD, "Efficiency Expert": GOOD})
    )
    ensemble = VerifierEnsemble(wrapper, mode="adaptive")
    score, votes = ensemble.verify_action("Save the contact", _tap(), _observation(), "")
    # The Skeptic (heaviest) could not be read; the Pragmatist, next by weight, is confidently
    # for the action, which settles a reversible action alone.
    assert [(v.persona, v.parseable) for v in votes] == [("Pragmatist", True), ("Skeptic", False)]
    assert score == pytest.approx(9.0)
    assert ensemble.last_details.unverified is None


def test_no_readable_vote_is_recorded_as_unverified() -> None:
    ensemble = VerifierEnsemble(fakes.ScriptedWrapper(default=BAD), mode="adaptive")
    _, votes = ensemble.verify_action("Save the contact", _tap(), _observation(), "")
    assert votes and not any(v.parseable for v in votes)
    assert ensemble.last_details.unverified
    assert sorted(ensemble.last_details.absent) == sorted(ensemble.personas)


def test_the_gate_without_a_readable_vote_runs_a_reversible_action_and_says_so() -> None:
    from test_celil_agent import GOAL, make_agent

    events: list[dict] = []
    verifier = VerifierEnsemble(fakes.ScriptedWrapper(default=BAD), mode="adaptive")
    executor = fakes.ScriptedExecutor([fakes.click(1)])  # home: "Clock", reversible
    agent, env = make_agent(executor=executor, verifier=verifier, events=events)
    result = agent.step(GOAL)
    assert result.data["gate"] == "pass"
    assert result.data["gate_unverified"]
    gate = next(e for e in events if e["type"] == "gate")
    assert gate["passed"] and gate["unverified"]
    assert len(env.actions) == 1


def test_the_gate_without_a_readable_vote_never_runs_an_irreversible_action(monkeypatch) -> None:
    from test_celil_agent import make_agent

    events: list[dict] = []
    verifier = VerifierEnsemble(fakes.ScriptedWrapper(default=BAD), mode="adaptive")
    phone = fakes.FakePhone()
    phone.screen = "contacts"
    executor = fakes.ScriptedExecutor([fakes.click(2)])  # contacts: "Delete all"
    agent, env = make_agent(env=phone, executor=executor, verifier=verifier, events=events)
    # The votes are what this is about: the target rule (celil_irreversible, tested on its own)
    # is told to let the delete through to them.
    from android_world.agents.custom.loop import celil_irreversible

    monkeypatch.setattr(celil_irreversible.IrreversibleGuard, "review", lambda *a, **k: None)
    result = agent.step("Delete all contacts")
    assert result.data["irreversible"]
    assert result.data["gate"] == "reject"
    assert result.data["gate_unverified"]
    gate = next(e for e in events if e["type"] == "gate")
    assert not gate["passed"] and gate["unverified"]
    assert env.actions == []


def test_check_models_and_the_planner_share_the_plan_rules() -> None:
    """`--check_models` judges a planner answer with the same parser the run uses."""
    assert celil_maestro.parse_plan_text('["34", "36"]', PLAN_EXAMPLES)[0] is None


def test_a_set_unparseable_vote_score_is_noted_and_changes_nothing() -> None:
    from android_world.agents import registry
    from android_world.harness.model_config import ModelsConfig, RoleModelConfig

    lines: list[str] = []
    models = ModelsConfig(
        **{
            r: RoleModelConfig(backend="offline")
            for r in ("maestro", "section_leader", "verifiers")
        }
    )
    context = registry.RunContext(models=models, log=lines.append)
    registry.get_agent(
        "celil_agent",
        fakes.FakePhone(),
        context=context,
        ocr="off",
        episodic_memory_path=None,
        unparseable_vote_score=3.0,
    )
    assert any("unparseable_vote_score no longer applies" in line for line in lines)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"index": 2, "reasoning": "Notes"}', 2),
        ('{"index": "1"}', 1),
        ('{"index": 0.0}', 0),
        ('{"index": true}', None),
        ('{"index": 1.5}', None),
        ('{"index": -1}', None),
        ('{"index": 3}', None),
        ("[2]", None),
    ],
)
def test_the_vision_selector_reads_only_an_index_on_the_list(answer: str, expected) -> None:
    selector = celil_maestro.VisionElementSelector(fakes.ScriptedWrapper([answer]))
    assert selector.select_element("Open Notes", _observation()) == expected


def _delete_screen():
    from android_world.agents.custom.roles.celil_perception import PerceptionModule

    phone = fakes.FakePhone()
    phone.screen = "contacts"  # element 2 is "Delete all"
    return PerceptionModule(ocr="off").process_observation(phone.get_state())


def test_an_irreversible_action_asks_the_next_persona_for_an_unreadable_vote() -> None:
    wrapper = fakes.ScriptedWrapper(
        _by_persona({"Skeptic": GOOD, "Pragmatist": BAD, "Efficiency Expert": GOOD})
    )
    ensemble = VerifierEnsemble(wrapper, mode="adaptive")
    score, votes = ensemble.verify_action("Delete all contacts", _tap(2), _delete_screen(), "")
    assert ensemble.last_details.irreversible == "delete"
    assert sorted(v.persona for v in votes if v.parseable) == ["Efficiency Expert", "Skeptic"]
    assert score == pytest.approx(9.0) and ensemble.last_details.unverified is None


def test_an_irreversible_action_with_one_readable_vote_has_no_verdict() -> None:
    wrapper = fakes.ScriptedWrapper(
        _by_persona({"Skeptic": GOOD, "Pragmatist": BAD, "Efficiency Expert": BAD})
    )
    ensemble = VerifierEnsemble(wrapper, mode="adaptive")
    _, votes = ensemble.verify_action("Delete all contacts", _tap(2), _delete_screen(), "")
    assert len(votes) == 3
    assert "1 readable vote(s), 2 needed" in (ensemble.last_details.unverified or "")
    # ... while one readable "no" is a verdict: rejected, not unverified.
    against = fakes.ScriptedWrapper(_by_persona({"Skeptic": '{"score": 2, "reasoning": "no"}'}))
    ensemble = VerifierEnsemble(against, mode="adaptive")
    score, votes = ensemble.verify_action("Delete all contacts", _tap(2), _delete_screen(), "")
    assert (score, len(votes), ensemble.last_details.unverified) == (2.0, 1, None)
