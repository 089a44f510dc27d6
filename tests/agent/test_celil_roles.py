"""Perception, working memory, the Maestro planner and the verifier ensemble, with scripted models."""

from __future__ import annotations

import ast
import json
import time
from pathlib import Path

import celil_fakes as fakes
import numpy as np
import pytest

from android_world.agents.custom import celil_geometry
from android_world.agents.custom.celil_protocols import (
    FailureContext,
    OcrLine,
    ProposedAction,
)
from android_world.agents.custom.memory import celil_memory
from android_world.agents.custom.roles import (
    celil_goal_questions,
    celil_maestro,
    celil_perception,
    celil_quality_control,
)
from android_world.env import interface, json_action, representation_utils

REPO = Path(__file__).resolve().parents[2]
CUSTOM = REPO / "android_world" / "agents" / "custom"


def observation(env=None):
    env = env or fakes.FakePhone()
    return celil_perception.PerceptionModule(ocr="off").process_observation(
        env.get_state(), foreground_activity=env.foreground_activity_name
    )


# --- plugin boundary ---------------------------------------------------------------------------

ALLOWED_INTERNAL = {
    "android_world.env.interface",
    "android_world.env.json_action",
    "android_world.env.representation_utils",
    "android_world.agents.base_agent",
    "android_world.agents.infer",
    "android_world.agents.agent_utils",
}


def _imported_modules(tree: ast.AST) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            names.append("." * node.level + (node.module or ""))
    return names


def test_plugin_imports_only_the_upstream_compatible_surface():
    files = sorted(CUSTOM.rglob("*.py"))
    assert len(files) >= 5
    violations = []
    for path in files:
        for name in _imported_modules(ast.parse(path.read_text(), str(path))):
            if name.startswith("."):
                violations.append(f"{path.relative_to(CUSTOM)}: relative import {name}")
                continue
            if not name.startswith("android_world"):
                continue  # stdlib / third-party
            if name.startswith("android_world.agents.custom"):
                continue
            parts = name.split(".")
            # `from android_world.env import json_action` yields env and env.json_action.
            if name in ALLOWED_INTERNAL or any(
                name == allowed.rsplit(".", 1)[0] for allowed in ALLOWED_INTERNAL
            ):
                continue
            if len(parts) > 3 and ".".join(parts[:3]) in ALLOWED_INTERNAL:
                continue  # from android_world.env.json_action import JSONAction
            violations.append(f"{path.relative_to(CUSTOM)}: imports {name}")
    assert violations == []


def test_boundary_check_catches_a_forbidden_import():
    tree = ast.parse("from android_world.env import sim\nimport android_world.harness.config")
    names = _imported_modules(tree)
    assert "android_world.env.sim" in names and "android_world.harness.config" in names
    assert not any(
        n in ALLOWED_INTERNAL for n in ("android_world.env.sim", "android_world.harness.config")
    )


# --- geometry ----------------------------------------------------------------------------------


def test_snap_picks_smallest_actionable_element_containing_point():
    elements = [
        fakes.element("row", box=(0, 1000, 0, 1000)),
        fakes.element("label", box=(0, 100, 0, 100), clickable=False),
        fakes.element("button", box=(0, 200, 0, 200)),
    ]
    assert celil_geometry.snap_to_element(50, 50, elements) == 2
    assert celil_geometry.snap_to_element(500, 500, elements) == 0
    assert celil_geometry.snap_to_element(5000, 5000, elements) is None
    normalised = representation_utils.UIElement(
        bbox=representation_utils.BoundingBox(0.0, 0.5, 0.0, 0.5), is_clickable=True
    )
    assert celil_geometry.snap_to_element(100, 100, [normalised], (1080, 2400)) == 0
    assert celil_geometry.snap_to_element(100, 100, [normalised]) is None


# --- perception --------------------------------------------------------------------------------


def _state(elements, pixels=None):
    pixels = pixels if pixels is not None else np.zeros((40, 20, 3), dtype=np.uint8)
    return interface.State(pixels=pixels, forest=None, ui_elements=elements)


def test_ui_summary_is_numbered_and_bounded():
    elements = [fakes.element(f"Item {i}", box=(0, 10, i, i + 1)) for i in range(200)]
    elements[3] = fakes.element("Save")
    obs = celil_perception.PerceptionModule(
        ocr="off", max_ui_summary_chars=400
    ).process_observation(_state(elements))
    assert '[3] Button "Save" (clickable)' in obs.ui_tree_summary
    assert len(obs.ui_tree_summary) <= 460
    assert "more elements not shown" in obs.ui_tree_summary
    field = fakes.element("", editable=True, class_name="android.widget.EditText", hint="Name")
    line = celil_perception.describe_element(0, field)
    assert line == '[0] EditText hint "Name" (editable)'


def test_auto_ocr_runs_only_when_tree_has_little_text_and_is_cached():
    calls = []

    def fake_ocr(pixels):
        calls.append(pixels.shape)
        return [OcrLine("Hello world", representation_utils.BoundingBox(0, 10, 0, 5), 90.0)]

    module = celil_perception.PerceptionModule(ocr="auto", ocr_fn=fake_ocr)
    rich = [fakes.element("A long label with plenty of descriptive text in it for the tree")]
    obs = module.process_observation(_state(rich))
    assert calls == [] and obs.ocr_lines == []
    sparse = [fakes.element("")]
    pixels = np.full((40, 20, 3), 7, dtype=np.uint8)
    obs = module.process_observation(_state(sparse, pixels))
    assert len(calls) == 1 and obs.ocr_summary == '"Hello world"'
    module.process_observation(_state(sparse, pixels.copy()))
    assert len(calls) == 1 and module.cache_hits == 1
    always = celil_perception.PerceptionModule(ocr="always", ocr_fn=fake_ocr)
    always.process_observation(_state(rich))
    assert len(calls) == 2


def test_ocr_failure_degrades_to_a_warning():
    def broken(pixels):
        raise RuntimeError("tesseract crashed")

    module = celil_perception.PerceptionModule(ocr="always", ocr_fn=broken)
    obs = module.process_observation(_state([]))
    assert obs.ocr_lines == []
    assert "tesseract crashed" in module.take_warnings()[0]


def test_missing_tesseract_is_a_clear_startup_error_when_ocr_is_required():
    with pytest.raises(celil_perception.PerceptionError, match="apt-get install tesseract-ocr"):
        celil_perception.PerceptionModule(ocr="always", tesseract_cmd="/nonexistent/tesseract")
    celil_perception.PerceptionModule(ocr="off", tesseract_cmd="/nonexistent/tesseract")


def test_tesseract_words_are_grouped_into_lines():
    data = {
        "text": ["Save", "contact", "", "Cancel"],
        "conf": ["90", "80", "-1", "10"],
        "left": [10, 60, 0, 10],
        "top": [100, 102, 0, 200],
        "width": [40, 70, 0, 50],
        "height": [20, 20, 0, 20],
        "block_num": [1, 1, 1, 2],
        "par_num": [1, 1, 1, 1],
        "line_num": [1, 1, 1, 1],
    }
    lines = celil_perception.parse_tesseract_data(data, min_confidence=30)
    assert [line.text for line in lines] == ["Save contact"]
    assert lines[0].box.x_min == 10 and lines[0].box.x_max == 130 and lines[0].confidence == 85.0


# --- working memory ----------------------------------------------------------------------------


def test_working_memory_progress_survives_plan_revision():
    memory = celil_memory.WorkingMemory("goal")
    memory.set_plan(["Open app", "Fill form", "Save"])
    assert memory.pop_sub_goal() == "Open app"
    memory.revise_plan(["open app.", "Find the form", "Fill form", "Save"])
    assert memory.get_plan() == ["Open app", "Find the form", "Fill form", "Save"]
    assert memory.current_sub_goal() == "Find the form"
    memory.add_step(celil_memory.StepRecord(1, "Open app", "click [0]", "ok", score=9.0))
    memory.add_fact("Total: 42")
    memory.note_screen("k1", "Expenses | Total 42")
    summary = memory.get_context_summary(max_steps=3)
    assert "[done] Open app" in summary and "[current] Find the form" in summary
    assert "click [0]" in summary and "Total: 42" in summary
    assert "Expenses | Total 42" in memory.scratchpad_summary()
    memory.clear()
    assert memory.get_plan() == [] and memory.current_sub_goal() is None


def test_episodic_memory_is_reexported_lazily():
    from android_world.agents.custom.memory import celil_episodic

    assert celil_memory.EpisodicMemory is celil_episodic.EpisodicMemory


# --- maestro -----------------------------------------------------------------------------------


def test_planner_parses_json_and_caps_length():
    steps = ["Open Contacts", "Tap Add", "Type Bob", "Save it"]
    answer = f'```json\n{{"sub_goals": {json.dumps(steps)}, "rationale": "r"}}\n```'
    planner = celil_maestro.MaestroPlanner(fakes.ScriptedWrapper([answer]), max_sub_goals=3)
    plan = planner.generate_initial_plan("goal", observation(), None)
    assert plan.sub_goals == steps[:3] and plan.source == "model"
    assert any("kept the first 3" in w for w in plan.warnings)


def test_planner_accepts_numbered_list_and_repairs_once():
    planner = celil_maestro.MaestroPlanner(
        fakes.ScriptedWrapper(["Plan:\n1. Open Contacts\n2) Add Bob"])
    )
    assert planner.generate_initial_plan("g", observation(), None).sub_goals == [
        "Open Contacts",
        "Add Bob",
    ]
    wrapper = fakes.ScriptedWrapper(["nonsense", '{"sub_goals": ["Save Bob"]}'])
    plan = celil_maestro.MaestroPlanner(wrapper).generate_initial_plan("g", observation(), None)
    assert plan.sub_goals == ["Save Bob"]
    assert "could not be used" in wrapper.prompts[1]


def test_planner_prompt_has_goal_screen_and_retrieved_plan():
    wrapper = fakes.ScriptedWrapper(['{"sub_goals": ["Add Bob"]}'])
    celil_maestro.MaestroPlanner(wrapper).generate_initial_plan(
        "Add Bob", observation(), ["Open Contacts", "Add {name}"]
    )
    prompt = wrapper.prompts[0]
    assert "Task: Add Bob" in prompt and '[0] Button "Contacts"' in prompt
    assert "1. Open Contacts" in prompt
    assert wrapper.image_counts == [1]


def test_corrective_plan_prompt_and_fallback():
    obs = observation()
    ctx = FailureContext(
        goal="Add Bob",
        plan=["Open Contacts", "Add Bob", "Save"],
        done_sub_goals=["Open Contacts"],
        failed_sub_goal="Add Bob",
        action="click on element [1]",
        reasons=["Skeptic (2.0): wrong button"],
        observation=obs,
        kind="rejected",
    )
    wrapper = fakes.ScriptedWrapper(['{"sub_goals": ["Tap Add", "Type Bob"]}'])
    plan = celil_maestro.MaestroPlanner(wrapper).generate_corrective_plan(ctx)
    assert plan.sub_goals == ["Tap Add", "Type Bob"]
    assert "wrong button" in wrapper.prompts[0] and "- Open Contacts" in wrapper.prompts[0]
    failing = celil_maestro.MaestroPlanner(fakes.ScriptedWrapper(default=("", False, None)))
    fallback = failing.generate_corrective_plan(ctx)
    assert fallback.sub_goals == ["Add Bob", "Save"] and fallback.source == "fallback"


def test_progress_check_and_question_answering():
    planner = celil_maestro.MaestroPlanner(
        fakes.ScriptedWrapper(['{"done": true, "evidence": "x"}', "garbage"])
    )
    assert planner.is_sub_goal_done("g", "s", observation(), "") is True
    assert planner.is_sub_goal_done("g", "s", observation(), "") is False
    answering = celil_maestro.MaestroPlanner(
        fakes.ScriptedWrapper(['{"answer": ["Dentist", "Groceries"]}', "Answer: 42."])
    )
    assert answering.answer_question("Open the app", observation(), "") is None
    assert answering.answer_question("What notes do I have?", observation(), "") == (
        "Dentist, Groceries"
    )
    assert answering.answer_question("How many notes are there", observation(), "") == "42"


@pytest.mark.parametrize(
    ("goal", "expected"),
    [
        ("What is my schedule for October 15? Answer with titles only.", True),
        ("How many expenses did I add in March", True),
        ("Which contact has the number 555-0100?", True),
        ("In Simple Calendar, what events do I have? Reply as a list", True),
        ("Add a contact named Bob", False),
        ("Delete the note 'What to buy'", False),
    ],
)
def test_is_question(goal, expected):
    assert celil_goal_questions.is_question(goal) is expected


# --- quality control ---------------------------------------------------------------------------


def _proposal(index=0):
    return ProposedAction(json_action.JSONAction(action_type="click", index=index), thought="t")


def _persona_answers(scores):
    def answer(prompt):
        for persona, score in scores.items():
            if f"You are the {persona}." in prompt:
                return (
                    score if isinstance(score, str) else f'{{"score": {score}, "reasoning": "r"}}'
                )
        return "?"

    return answer


def test_ensemble_weights_votes_and_unparseable_scores():
    wrapper = fakes.ScriptedWrapper(
        _persona_answers({"Pragmatist": 10, "Skeptic": 6, "Efficiency Expert": "no score here"})
    )
    ensemble = celil_quality_control.VerifierEnsemble(
        wrapper, unparseable_vote_score=2.0, mode="parallel"
    )
    score, votes = ensemble.verify_action("s", _proposal(), observation(), "ctx")
    assert [v.persona for v in votes] == ["Pragmatist", "Skeptic", "Efficiency Expert"]
    assert votes[2].parseable is False and votes[2].score == 2.0  # displayed, never counted
    # Issue 26: an unreadable vote is absent from the weighted mean, not a low score in it.
    assert score == pytest.approx((0.4 * 10 + 0.5 * 6) / 0.9, abs=0.001)
    assert ensemble.last_details.absent == ["Efficiency Expert"]


def test_persona_prompts_are_overridable():
    wrapper = fakes.ScriptedWrapper(default='{"score": 5, "reasoning": "ok"}')
    ensemble = celil_quality_control.VerifierEnsemble(
        wrapper, persona_prompts={"Skeptic": "You are a very grumpy reviewer."}, mode="sequential"
    )
    ensemble.verify_action("s", _proposal(), observation(), "ctx")
    assert any("very grumpy" in p for p in wrapper.prompts)
    with pytest.raises(ValueError, match="one weight per persona"):
        celil_quality_control.VerifierEnsemble(wrapper, weights=(1.0,))


def test_lazy_mode_skips_the_efficiency_expert_when_decided():
    decided = fakes.ScriptedWrapper(_persona_answers({"Pragmatist": 9, "Skeptic": 9}))
    ensemble = celil_quality_control.VerifierEnsemble(decided, mode="lazy")
    score, votes = ensemble.verify_action("s", _proposal(), observation(), "ctx")
    assert len(decided.prompts) == 2 and ensemble.last_details.skipped == ["Efficiency Expert"]
    assert [v.persona for v in votes] == ["Pragmatist", "Skeptic"]
    assert score >= 7.0
    close = fakes.ScriptedWrapper(
        _persona_answers({"Pragmatist": 7, "Skeptic": 6.5, "Efficiency Expert": 10})
    )
    ensemble = celil_quality_control.VerifierEnsemble(close, mode="lazy")
    score, _votes = ensemble.verify_action("s", _proposal(), observation(), "ctx")
    assert len(close.prompts) == 3 and score == pytest.approx(0.4 * 7 + 0.5 * 6.5 + 1.0)


def test_parallel_personas_take_about_one_call_of_wall_time():
    wrapper = fakes.ScriptedWrapper(default='{"score": 8, "reasoning": "ok"}', sleep_s=0.15)
    ensemble = celil_quality_control.VerifierEnsemble(wrapper, mode="parallel")
    start = time.perf_counter()
    ensemble.verify_action("s", _proposal(), observation(), "ctx")
    elapsed = time.perf_counter() - start
    ensemble.close()
    assert len(wrapper.prompts) == 3
    assert elapsed < 0.15 * 2.2


def test_verifier_model_exception_is_an_unparseable_vote():
    wrapper = fakes.ScriptedWrapper(default=RuntimeError("server down"))
    ensemble = celil_quality_control.VerifierEnsemble(wrapper, mode="sequential")
    score, votes = ensemble.verify_action("s", _proposal(), observation(), "ctx")
    assert score == 0.0 and all("server down" in (v.error or "") for v in votes)


def test_irreversibility_is_decided_from_the_target():
    env = fakes.FakePhone()
    env.screen = "contacts"
    obs = observation(env)
    assert celil_quality_control.irreversible_reason(_proposal(2), obs) == "delete"
    assert celil_quality_control.irreversible_reason(_proposal(0), obs) is None
    typed = ProposedAction(json_action.JSONAction(action_type="input_text", index=0, text="delete"))
    assert celil_quality_control.irreversible_reason(typed, obs) is None
    by_id = fakes.element("", description=None)
    by_id.resource_name = "com.app:id/btnSendMessage"
    obs.ui_elements.append(by_id)
    assert (
        celil_quality_control.irreversible_reason(_proposal(len(obs.ui_elements) - 1), obs)
        == "send"
    )
    at_point = ProposedAction(json_action.JSONAction(action_type="click", x=5000, y=5000))
    obs.ocr_lines.append(
        OcrLine("Uninstall", representation_utils.BoundingBox(4900, 5100, 4900, 5100), 90.0)
    )
    assert celil_quality_control.irreversible_reason(at_point, obs) == "uninstall"


def test_parse_vote_variants():
    parse = celil_quality_control.parse_vote
    assert parse("P", '{"score": "8/10", "reasoning": "fine"}', 0.0).score == 8.0
    # Issue 26: a bare score above 10 answers on 0-100; above 100 it is no score, never
    # clamped to a perfect 10.
    assert parse("P", "Score: 11", 0.0).score == pytest.approx(1.1)
    big = parse("P", "Score: 111", 0.0)
    assert big.score == 0.0 and not big.parseable and "outside 0-10" in (big.error or "")
    assert parse("P", "looks good", 1.5).parseable is False


def test_frame_digest_sees_small_changes_and_scrolls():
    rng = np.random.default_rng(0)
    frame = rng.integers(0, 255, size=(240, 108, 3), dtype=np.uint8)
    digest = celil_perception.pixels_digest(frame)
    assert celil_perception.pixels_digest(frame.copy()) == digest
    touched = frame.copy()
    touched[100, 50, 1] ^= 1
    assert celil_perception.pixels_digest(touched) != digest
    assert celil_perception.pixels_digest(np.roll(frame, 12, axis=0)) != digest
    odd = rng.integers(0, 255, size=(5, 7, 3), dtype=np.uint8)  # rows not a multiple of 8 bytes
    changed = odd.copy()
    changed[0, 0, 0] ^= 1
    assert celil_perception.pixels_digest(odd) != celil_perception.pixels_digest(changed)


def test_adaptive_mode_settles_a_confident_first_vote_with_one_call():
    wrapper = fakes.ScriptedWrapper(_persona_answers({"Skeptic": 9}))
    ensemble = celil_quality_control.VerifierEnsemble(wrapper)  # adaptive is the default
    score, votes = ensemble.verify_action("s", _proposal(), observation(), "ctx")
    assert len(wrapper.prompts) == 1 and [v.persona for v in votes] == ["Skeptic"]
    assert score == 9.0 and ensemble.last_details.skipped == ["Pragmatist", "Efficiency Expert"]


def test_adaptive_mode_one_noisy_vote_cannot_veto_but_a_confident_objection_can():
    noisy = fakes.ScriptedWrapper(
        _persona_answers({"Skeptic": 3, "Pragmatist": 9, "Efficiency Expert": 8})
    )
    ensemble = celil_quality_control.VerifierEnsemble(noisy)
    score, votes = ensemble.verify_action("s", _proposal(), observation(), "ctx")
    assert len(noisy.prompts) == 3 and len(votes) == 3
    assert score == 8.0  # the median; the weighted mean would be 5.9, a veto
    objection = fakes.ScriptedWrapper(
        _persona_answers(
            {
                "Skeptic": '{"score": 1, "reasoning": "this taps Cancel, the form is lost"}',
                "Pragmatist": 9,
                "Efficiency Expert": 9,
            }
        )
    )
    score, _votes = celil_quality_control.VerifierEnsemble(objection).verify_action(
        "s", _proposal(), observation(), "ctx"
    )
    assert score == 1.0
    two_low = fakes.ScriptedWrapper(
        _persona_answers({"Skeptic": 4, "Pragmatist": 5, "Efficiency Expert": 10})
    )
    score, votes = celil_quality_control.VerifierEnsemble(two_low).verify_action(
        "s", _proposal(), observation(), "ctx"
    )
    # Two agreeing votes settle it: the third persona is asked only to break a split.
    assert score == 4.5 and [v.persona for v in votes] == ["Pragmatist", "Skeptic"]
    assert len(two_low.prompts) == 2


def test_adaptive_mode_needs_both_heavy_personas_for_an_irreversible_action():
    env = fakes.FakePhone()
    env.screen = "contacts"
    obs = observation(env)
    proposal = _proposal(2)
    assert celil_quality_control.irreversible_reason(proposal, obs) == "delete"
    all_for = fakes.ScriptedWrapper(
        _persona_answers({"Skeptic": 9, "Pragmatist": 8, "Efficiency Expert": 2})
    )
    ensemble = celil_quality_control.VerifierEnsemble(all_for, irreversible_threshold=8.5)
    score, votes = ensemble.verify_action("s", proposal, obs, "ctx")
    # The Skeptic and the Pragmatist judge intent and risk; the Efficiency Expert is not asked.
    # Their weighted score meets the irreversible threshold, as in every other mode.
    assert [v.persona for v in votes] == ["Pragmatist", "Skeptic"]
    assert score == pytest.approx((0.4 * 8 + 0.5 * 9) / 0.9, abs=1e-3)
    assert ensemble.last_details.threshold == 8.5
    assert ensemble.last_details.skipped == ["Efficiency Expert"]
    two_eights = fakes.ScriptedWrapper(
        _persona_answers({"Skeptic": 8, "Pragmatist": 8, "Efficiency Expert": 10})
    )
    score, _votes = celil_quality_control.VerifierEnsemble(
        two_eights, irreversible_threshold=8.5
    ).verify_action("s", proposal, obs, "ctx")
    assert score == 8.0  # passes the normal gate, not the irreversible one
    lukewarm = fakes.ScriptedWrapper(
        _persona_answers({"Skeptic": 7.2, "Pragmatist": 10, "Efficiency Expert": 10})
    )
    score, votes = celil_quality_control.VerifierEnsemble(
        lukewarm, irreversible_threshold=8.5
    ).verify_action("s", proposal, obs, "ctx")
    assert len(votes) == 1 and score == 7.2  # even a 10 could not lift it to 8.5
    one_against = fakes.ScriptedWrapper(
        _persona_answers({"Skeptic": 9, "Pragmatist": 6, "Efficiency Expert": 9})
    )
    score, _votes = celil_quality_control.VerifierEnsemble(one_against).verify_action(
        "s", proposal, obs, "ctx"
    )
    assert score == 6.0
    skeptic_against = fakes.ScriptedWrapper(
        _persona_answers({"Skeptic": 5, "Pragmatist": 9, "Efficiency Expert": 9})
    )
    score, votes = celil_quality_control.VerifierEnsemble(skeptic_against).verify_action(
        "s", proposal, obs, "ctx"
    )
    assert score == 5.0 and len(votes) == 1  # unanimity: one "no" ends it


def test_verification_off_runs_every_proposal_without_a_call():
    verifier = celil_quality_control.NoVerification()
    score, votes = verifier.verify_action("s", _proposal(), observation(), "ctx")
    assert (score, votes, verifier.last_details.threshold) == (10.0, [], 0.0)


def test_verification_off_is_a_config_key_of_the_agent():
    from android_world.agents.custom import factory

    params = factory.CelilAgentConfig(verification="off")
    assert isinstance(factory._verifier(params, None), celil_quality_control.NoVerification)
    assert factory.CelilAgentConfig().verifier_mode == "joint"
    with pytest.raises(ValueError):
        factory.CelilAgentConfig(verification="maybe")
