"""Table tests: planner, verifier and progress answers in the shapes real models produce.

Each shape names where it was seen. The answers below are written for these tests (no third-party
text is copied); only their shape follows the cited output.
"""

from __future__ import annotations

import pytest

from android_world.agents.custom import celil_json
from android_world.agents.custom.roles.celil_maestro import parse_bool_answer, parse_plan_text
from android_world.agents.custom.roles.celil_quality_control import parse_vote, scaled_score

# --------------------------------------------------------------------------------------------
# JSON extraction: the final value, outside think blocks.

JSON_CASES: list[tuple[str, str, dict | None]] = [
    (
        # DeepSeek-R1 / Qwen3 model cards: reasoning in <think>...</think> before the answer.
        "think block holds a draft",
        '<think>\nMaybe {"score": 0, "reasoning": "draft"}? No.\n</think>\n'
        '{"score": 8, "reasoning": "right button"}',
        {"score": 8, "reasoning": "right button"},
    ),
    (
        # waybarrios/vllm-mlx vllm_mlx/reasoning/deepseek_r1_parser.py: the chat template already
        # opened the block, so the reply holds only the closing tag.
        "closing think tag only",
        'draft {"score": 1}\n</think>\n\n{"score": 9, "reasoning": "ok"}',
        {"score": 9, "reasoning": "ok"},
    ),
    (
        # An answer cut by the token limit inside its reasoning has no final answer.
        "unclosed think block",
        '<think>I would say {"score": 10} but let me check',
        None,
    ),
    (
        # Issue 13: upstream extract_json misses pretty-printed, fenced JSON.
        "fenced and pretty-printed",
        'Here you go:\n```json\n{\n  "sub_goals": [\n    "Open Settings",\n    "Turn on Wi-Fi"\n'
        '  ],\n  "rationale": "two screens"\n}\n```\nLet me know if you need more.',
        {"sub_goals": ["Open Settings", "Turn on Wi-Fi"], "rationale": "two screens"},
    ),
    (
        "nested objects and trailing prose with braces",
        'Answer: {"a": {"b": [1, {"c": 2}]}} (values in {curly} braces are placeholders)',
        {"a": {"b": [1, {"c": 2}]}},
    ),
    (
        "python literal with single quotes",
        "{'done': True, 'evidence': 'Wi-Fi switch is on'}",
        {"done": True, "evidence": "Wi-Fi switch is on"},
    ),
    (
        "JSON words in a python-style dict",
        "{'done': true, 'evidence': null}",
        {"done": True, "evidence": None},
    ),
    (
        "the prompt's example restated before the real answer",
        'The format is {"score": <number 0-10>, ...}. My answer: {"score": 6, "reasoning": "x"}',
        {"score": 6, "reasoning": "x"},
    ),
    (
        # Kimi-VL / Kimi K2 chat templates (e.g. LLaMA-Factory's kimivl template) and reasoning
        # parsers in vLLM-style servers spell the block with non-ASCII markers.
        "kimi think markers",
        '\u25c1think\u25b7{"done": true}\u25c1/think\u25b7{"done": false}',
        {"done": False},
    ),
    (
        # Magistral (Mistral) reasoning checkpoints: [THINK]...[/THINK].
        "mistral think markers",
        '[THINK]score 2? {"score": 2}[/THINK]\n{"score": 7, "reasoning": "ok"}',
        {"score": 7, "reasoning": "ok"},
    ),
    (
        # Seed-OSS: <seed:think>...</seed:think>.
        "namespaced think tag",
        '<seed:think>{"score": 1}</seed:think>{"score": 6}',
        {"score": 6},
    ),
    (
        # Cohere Command A reasoning.
        "cohere thinking tokens",
        '<|START_THINKING|>{"done": true}<|END_THINKING|>{"done": false}',
        {"done": False},
    ),
    (
        # gpt-oss harmony output served without a reasoning parser: the final channel counts.
        "harmony channels",
        '<|channel|>analysis<|message|>{"score": 0}<|end|><|start|>assistant'
        '<|channel|>final<|message|>{"score": 8}<|return|>',
        {"score": 8},
    ),
    (
        "an answer followed by a second thought",
        '{"done": true, "evidence": "Saved"}\n<think>double-check</think>',
        {"done": True, "evidence": "Saved"},
    ),
    ("no JSON at all", "I cannot tell from the screen.", None),
    ("unbalanced brace in prose before the JSON", 'set {a, b\n{"done": false}', {"done": False}),
]


@pytest.mark.parametrize(("shape", "text", "expected"), JSON_CASES, ids=[c[0] for c in JSON_CASES])
def test_extract_json_takes_the_final_object(shape: str, text: str, expected: dict | None) -> None:
    del shape
    assert celil_json.extract_json(text) == expected


def test_extract_json_value_returns_arrays_and_skips_non_json_brackets() -> None:
    assert celil_json.extract_json_value('Plan: ["Open app", "Save"]') == ["Open app", "Save"]
    assert celil_json.extract_json_value("[Screenshot 1] shows nothing") is None
    assert celil_json.extract_json(None) is None and celil_json.json_values("") == []


def test_extraction_is_bounded_on_pathological_text() -> None:
    text = "{" * 20_000 + '{"ok": 1}'
    assert celil_json.extract_json(text) == {"ok": 1}
    assert celil_json.extract_json("</think>" * 20_000 + '{"ok": 2}') == {"ok": 2}
    assert celil_json.extract_json("<think>" * 20_000 + '{"ok": 3}') is None


def test_custom_parsers_do_not_use_upstreams_extract_json() -> None:
    """Upstream's agent_utils.extract_json only reads one-line JSON (issue 13)."""
    from pathlib import Path

    custom = Path(__file__).resolve().parents[2] / "android_world" / "agents" / "custom"
    users = [
        p.name for p in custom.rglob("*.py") if "agent_utils.extract_json(" in p.read_text("utf-8")
    ]
    assert users == []


# --------------------------------------------------------------------------------------------
# Scores: rescaled with their scale, never clamped into a perfect 10.

SCORE_CASES: list[tuple[str, str, float | None]] = [
    # lm-sys FastChat llm_judge prompts (also AwsamAgbarya/multiagent-alignment
    # src/hidden/judge.py) ask for "Rating: [[5]]".
    ("double-bracket rating", "The tap is right.\nRating: [[8]]", 8.0),
    # Issue 12 (collected from public runs): "Rating: 8/10" and "Score (0-10): 8" read as 0.
    ("rating with its scale", "Rating: 8/10 - the button matches", 8.0),
    ("scale in the label", "Score (0-10): 8\nThe Save button is visible.", 8.0),
    ("hundred scale in the label", "Score (0-100): 74", 7.4),
    # meta-llama/llama-stack tests/integration/eval/constants.py asks for "Total rating:" on 0-5;
    # IBM/unitxt#1933 and cvs-health/uqlm#36 map a 1-5 Likert scale linearly onto 0-1.
    ("likert label", "Total rating (1-5): 4", 7.5),
    ("markdown bold label", "**Score:** 9", 9.0),
    ("fraction of eight", "Score: 3/8", 3.75),
    ("out of", "I'd give it 7 out of 10.\nScore: 7 out of 10", 7.0),
    ("percentage", "Score: 74%", 7.4),
    ("bare answer", "8", 8.0),
    # pinchbench/skill#73: judges returned totals above their own scale ("5.0/1.0").
    ("above its own scale", "Score: 5/1", None),
    # Issue 26: a score above 10 answering a 0-10 question is on 0-100; above 100 it is none.
    ("bare number above 10", "Score: 74", 7.4),
    ("bare number above 100", "Score: 174", None),
    ("negative", "Score: -2", None),
    ("think block draft then final", "<think>Score: 2</think>\nScore: 9", 9.0),
    # Chat models that ignore the reply format and grade in running prose (issue 12's SmolLM2
    # runs; the same shape as free-form judge replies that FastChat's "[[rating]]" format exists
    # to avoid).
    ("score of N in prose", "I'd give it a score of 8.", 8.0),
    ("rate this N/10 in prose", "I would rate this 8/10.", 8.0),
    ("score dash N", "Score - 7", 7.0),
    ("prose out of five", "A score of 3 out of 5 at best.", 6.0),
    ("prose bare number above 10", "I rate it 74", 7.4),
    ("the word score without a number", "The tap has a low score.", None),
    ("no number", "Looks fine to me.", None),
]


@pytest.mark.parametrize(
    ("shape", "text", "expected"), SCORE_CASES, ids=[c[0] for c in SCORE_CASES]
)
def test_vote_scores_from_prose(shape: str, text: str, expected: float | None) -> None:
    del shape
    vote = parse_vote("Skeptic", text, unparseable_score=0.0)
    if expected is None:
        assert not vote.parseable and vote.score == 0.0 and vote.error
    else:
        assert vote.parseable and vote.score == pytest.approx(expected)


JSON_SCORE_CASES: list[tuple[str, str, float | None]] = [
    ("number", '{"score": 8, "reasoning": "ok"}', 8.0),
    ("string with scale", '{"score": "8/10", "reasoning": "ok"}', 8.0),
    ("string fraction", '{"score": "3/8", "reasoning": "ok"}', 3.75),
    ("string hundred", '{"score": "74/100", "reasoning": "ok"}', 7.4),
    ("string percent", '{"score": "74%", "reasoning": "ok"}', 7.4),
    ("rating key", '{"rating": 6, "reason": "ok"}', 6.0),
    # Issue 12: a 0-100 score was clamped to a perfect 10; issue 26: it is read on 0-100.
    ("bare 74 is 7.4, not a 10", '{"score": 74, "reasoning": "ok"}', 7.4),
    ("bare 740 is no score", '{"score": 740, "reasoning": "ok"}', None),
    ("boolean", '{"score": true, "reasoning": "ok"}', None),
    (
        "think draft",
        '<think>{"score": 0, "reasoning": "d"}</think>{"score": 8, "reasoning": "f"}',
        8.0,
    ),
]


@pytest.mark.parametrize(
    ("shape", "text", "expected"), JSON_SCORE_CASES, ids=[c[0] for c in JSON_SCORE_CASES]
)
def test_vote_scores_from_json(shape: str, text: str, expected: float | None) -> None:
    del shape
    vote = parse_vote("Pragmatist", text, unparseable_score=1.5)
    if expected is None:
        assert not vote.parseable and vote.score == 1.5
    else:
        assert vote.parseable and vote.score == pytest.approx(expected)


def test_scaled_score_reasons_name_the_problem() -> None:
    assert scaled_score("74") == (7.4, "")
    assert scaled_score("174") == (None, "score 174 is outside 0-10 and 0-100")
    assert scaled_score("12/10")[0] is None
    assert scaled_score("0/0")[0] is None
    assert scaled_score("74", (0, 100)) == (7.4, "")


# --------------------------------------------------------------------------------------------
# Plans in the shapes planners write.

PLAN_CASES: list[tuple[str, str, list[str] | None]] = [
    (
        # Issue 12: a plan as one JSON string holding a numbered list became one sub-goal.
        "numbered list inside one JSON string",
        '{"sub_goals": "1. Open Contacts\\n2. Tap Create contact\\n3. Save"}',
        ["Open Contacts", "Tap Create contact", "Save"],
    ),
    (
        "inline numbered list in a one-item array",
        '{"sub_goals": ["1. Open Contacts 2. Add Bob 3. Save"]}',
        ["Open Contacts", "Add Bob", "Save"],
    ),
    (
        # Issue 12: "Step 1:" lines gave no plan at all.
        "Step N: lines",
        "Step 1: Open the Contacts app\nStep 2: Create a contact named Bob\nStep 3: Save it",
        ["Open the Contacts app", "Create a contact named Bob", "Save it"],
    ),
    (
        "bold Step N: lines",
        "**Step 1:** Open Markor\n**Step 2:** Create the note",
        ["Open Markor", "Create the note"],
    ),
    (
        # Issue 12: nested lists were flattened with markdown kept; the outer level is the plan.
        "nested markdown list",
        "Here is my plan:\n1. **Open Markor**\n   - tap the icon\n2. **Create the note**:\n"
        "   - tap +\n   - type the name\n3. Save the note",
        ["Open Markor", "Create the note", "Save the note"],
    ),
    (
        "bullets",
        "- Open the Clock app\n- Start the stopwatch",
        ["Open the Clock app", "Start the stopwatch"],
    ),
    (
        "heading over sub-items",
        "Plan:\n1. To add the contact:\n   a) Open Contacts\n   b) Save Bob",
        ["Open Contacts", "Save Bob"],
    ),
    (
        # Issue 12: {"id": "1", "description": ...} gave "1". Planner prompts in public repos ask
        # for sub-goal objects with an id and a goal/description field.
        "sub-goal objects",
        '{"plan": [{"id": "1", "description": "Open Contacts"}, '
        '{"id": "2", "description": "Add Bob"}]}',
        ["Open Contacts", "Add Bob"],
    ),
    (
        "objects with goal and numeric id",
        '[{"id": 1, "goal": "Open Files"}, {"id": 2, "goal": "Delete the photo"}]',
        ["Open Files", "Delete the photo"],
    ),
    (
        # CoKn/Schroedingers-Agent goal_decomposition prompt: hierarchical sub-goals.
        "nested arrays",
        '{"sub_goals": [["Open app", "Find note"], "Save"]}',
        ["Open app", "Find note", "Save"],
    ),
    (
        "items keep their numbering and markdown",
        '{"sub_goals": ["1. **Open** `Settings`", "2. Turn on Wi-Fi"]}',
        ["Open Settings", "Turn on Wi-Fi"],
    ),
    (
        "think block draft and a fenced final plan",
        '<think>{"sub_goals": ["draft"]}</think>\n```json\n{\n  "sub_goals": [\n'
        '    "Open Settings",\n    "Turn on Wi-Fi"\n  ]\n}\n```',
        ["Open Settings", "Turn on Wi-Fi"],
    ),
    (
        "sub-goals as an object keyed by step number",
        '{"sub_goals": {"2": "Add Bob", "1": "Open Contacts", "step_3": "Save"}}',
        ["Open Contacts", "Add Bob", "Save"],
    ),
    (
        # A reply cut by the token limit before its closing brace still holds the list.
        "truncated object",
        '{"sub_goals": ["Open Contacts", "Add Bob"], "rationale": "two scr',
        ["Open Contacts", "Add Bob"],
    ),
    ("prose without a list", "You should open the settings app.", None),
    ("object without a plan", '{"rationale": "no idea"}', None),
]


@pytest.mark.parametrize(("shape", "text", "expected"), PLAN_CASES, ids=[c[0] for c in PLAN_CASES])
def test_plans_in_real_shapes(shape: str, text: str, expected: list[str] | None) -> None:
    del shape
    answer, reason = parse_plan_text(text)
    if expected is None:
        assert answer is None and reason
    else:
        assert answer is not None, reason
        assert answer.sub_goals == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('<think>{"done": true}</think>{"done": false, "evidence": "still on home"}', False),
        ('```json\n{\n  "done": "yes",\n  "evidence": "switch on"\n}\n```', True),
        ("No, the note list is empty.", False),
        ("maybe", None),
        # Verdicts in the shapes small chat models give without JSON, or with their own key.
        ("**Yes**, the Wi-Fi switch is on.", True),
        ("Done: true", True),
        ("Answer: no", False),
        ("Not yet, the home screen is still shown.", False),
        ('{"completed": true, "evidence": "Saved"}', True),
        ('{"done": "True."}', True),
        # The prompt's "true or false" copied back is no verdict; "Now"/"Notably" are not "no".
        ('{"done": "true or false", "evidence": "quoted on-screen text"}', None),
        ("Now the switch is on.", None),
        ("Notably, the list is empty.", None),
        ("<think>yes?</think>No", False),
    ],
)
def test_progress_answers(text: str, expected: bool | None) -> None:
    assert parse_bool_answer(text) is expected


# --------------------------------------------------------------------------------------------
# Placeholders: answers that repeat the prompt's example are unusable (issue 12 item 6). The
# echoes below are the ones issue 12 saw from SmolLM2-135M-Instruct behind llama.cpp's server.


def test_example_strings_come_from_the_prompt_text() -> None:
    from android_world.agents.custom.roles import celil_maestro, celil_quality_control

    assert "first milestone" in celil_maestro.PLAN_EXAMPLES
    assert "one or two sentences" in celil_quality_control.VOTE_EXAMPLES
    # Keys are not examples: a sub-goal may well be called "score" or "rationale".
    assert "sub goals" not in celil_maestro.PLAN_EXAMPLES
    assert "reasoning" not in celil_quality_control.VOTE_EXAMPLES


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("first milestone", True),
        ("1. First Milestone.", True),
        ("Step 2: second milestone", True),
        ("Open the first milestone app", False),
        ("", False),
        (None, False),
    ],
)
def test_is_placeholder(value: object, expected: bool) -> None:
    from android_world.agents.custom.roles.celil_maestro import PLAN_EXAMPLES

    assert celil_json.is_placeholder(value, PLAN_EXAMPLES) is expected


def test_echoed_plans_are_not_plans() -> None:
    from android_world.agents.custom.roles.celil_maestro import PLAN_EXAMPLES

    echo = '{"sub_goals": ["first milestone", "second milestone"], "rationale": "one sentence"}'
    answer, reason = parse_plan_text(echo, PLAN_EXAMPLES)
    assert answer is None and "prompt's example" in reason
    listed, _ = parse_plan_text("1. First milestone\n2. Second milestone", PLAN_EXAMPLES)
    assert listed is None
    mixed, _ = parse_plan_text(
        '{"sub_goals": ["Open Contacts", "second milestone"]}', PLAN_EXAMPLES
    )
    assert mixed is not None and mixed.sub_goals == ["Open Contacts"]


VOTE_ECHO_CASES = [
    ("reasoning copied", '{"score": 9, "reasoning": "one or two sentences"}'),
    ("reasoning copied, other case", '{"score": 7, "reasoning": "One or two sentences."}'),
    ("whole shape copied", '{"score": <number 0-10>, "reasoning": "one or two sentences"}'),
    (
        "copied after a think block",
        '<think>ok</think>{"score": 10, "reasoning": "one or two sentences"}',
    ),
]


@pytest.mark.parametrize(("shape", "text"), VOTE_ECHO_CASES, ids=[c[0] for c in VOTE_ECHO_CASES])
def test_votes_that_echo_the_prompt_are_unusable(shape: str, text: str) -> None:
    del shape
    vote = parse_vote("Skeptic", text, unparseable_score=0.0)
    assert not vote.parseable and vote.score == 0.0
    assert "prompt's example" in (vote.error or "")


def test_a_real_vote_mentioning_sentences_is_kept() -> None:
    vote = parse_vote("Skeptic", '{"score": 6, "reasoning": "Two sentences fit here."}', 0.0)
    assert vote.parseable and vote.score == 6.0
