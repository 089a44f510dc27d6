"""Hostile model answers (issue 27 items 3 and 4): linear time, a recorded cap, echoes of the
prompt's example, coordinates off the screen, and planner answers that are no answer.

Time bounds are asserted on the CPU time of a forked child (tests/hostile_support.py), so load
from other processes does not make them flaky and a catastrophic parser fails instead of hanging.
"""

from __future__ import annotations

import celil_fakes as fakes
import hostile_support as hs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from android_world.agents.custom import celil_json
from android_world.agents.custom.dialects import uitars
from android_world.agents.custom.roles import celil_maestro
from android_world.agents.custom.roles.celil_quality_control import VerifierEnsemble, parse_vote
from android_world.agents.custom.roles.celil_section_leader import UITarsActionGenerator

BOUND_S = 1.0
KILL_S = 20.0


def _assert_bounded(parser: str, text: str) -> None:
    cpu, wall, error = hs.time_in_child(parser, text, KILL_S)
    assert error == "", f"{parser} raised on a hostile answer: {error}"
    assert cpu is not None, f"{parser} ran past {KILL_S} s of wall time"
    assert cpu < BOUND_S, f"{parser} took {cpu:.2f} s of CPU (wall {wall:.2f} s)"


# --------------------------------------------------------------------------------------------
# Linear time


@pytest.mark.parametrize("newlines", [3_000, 30_000])
def test_uitars_parser_is_linear_on_blank_space_after_action(newlines: int) -> None:
    """Issue 27: 3,000 newlines after `Action:` took 40 s."""
    _assert_bounded("uitars.parse_uitars_output", "Action:" + "\n" * newlines)
    _assert_bounded("uitars.parse_uitars_output", "Thought: t\nAction: " + " \n" * newlines)


def test_json_extractor_is_linear_on_unbalanced_braces() -> None:
    """Issue 27: 10k characters of unbalanced braces took 4.7 s."""
    for text in ('{"a": ' * 2_000, '{"' * 5_000, "{[" * 5_000, "[" * 100_000):
        _assert_bounded("celil_json.extract_json", text)


MEGABYTE_CASES = list(hs.hostile_inputs(hs.MEGABYTE))


@pytest.fixture(scope="module")
def megabyte_inputs() -> dict[str, str]:
    return hs.hostile_inputs(hs.MEGABYTE)


@pytest.mark.parametrize("parser", list(hs.PARSERS))
def test_every_parser_reads_a_megabyte_of_hostile_text_within_a_second(
    parser: str, megabyte_inputs: dict[str, str]
) -> None:
    for name in (
        "newlines",
        "open_braces",
        "key_no_value",
        "action_then_spaces",
        "reason_then_blank_lines",
        "random_mix",
    ):
        _assert_bounded(parser, megabyte_inputs[name])


@settings(max_examples=24, deadline=None, derandomize=True)
@given(
    parser=st.sampled_from(sorted(hs.PARSERS)),
    motif=st.text(alphabet=hs.HOSTILE_ALPHABET, min_size=1, max_size=12),
    prefix=st.sampled_from(
        ["", "Action: ", "Thought: x\nAction: click(", '{"sub_goals": ', "Score: "]
    ),
)
def test_fuzz_every_parser_on_a_megabyte_of_repeated_hostile_motifs(
    parser: str, motif: str, prefix: str
) -> None:
    text = prefix + motif * (hs.MEGABYTE // len(motif))
    _assert_bounded(parser, text)


# --------------------------------------------------------------------------------------------
# The cap on the answer read, recorded where the answer is recorded

LONG = celil_json.MAX_ANSWER_CHARS * 3


def test_the_answer_cap_is_recorded_on_the_proposal() -> None:
    answer = "Thought: " + "x" * LONG + "\nAction: press_back()"
    generator = UITarsActionGenerator(hs.OneAnswer(answer))
    proposal = generator.generate_action("Go back", hs.observation(), "")
    assert any("cut" in note for note in proposal.notes), proposal.notes


def test_the_answer_cap_is_recorded_on_the_vote() -> None:
    vote = parse_vote("Skeptic", "x" * LONG + '\n{"score": 8, "reasoning": "ok"}')
    assert vote.parseable and vote.score == 8.0
    assert any("cut" in note for note in vote.notes), vote.notes


def test_the_answer_cap_is_recorded_on_the_plan() -> None:
    answer = "x" * LONG + '\n{"sub_goals": ["Open Clock", "Start the stopwatch"]}'
    planner = celil_maestro.MaestroPlanner(hs.OneAnswer(answer), repair_retries=0)
    plan = planner.generate_initial_plan("Start the stopwatch", hs.observation(), None)
    assert plan.sub_goals == ["Open Clock", "Start the stopwatch"]
    assert any("cut" in warning for warning in plan.warnings), plan.warnings


def test_the_cap_reaches_feedback_events() -> None:
    from test_celil_agent import GOAL, make_agent

    events: list[dict] = []
    answer = "Thought: " + "x" * LONG + "\nAction: press_back()"
    executor = UITarsActionGenerator(hs.OneAnswer(answer))
    agent, _ = make_agent(executor=executor, events=events)
    agent.step(GOAL)
    proposed = next(e for e in events if e["type"] == "action_proposed")
    assert any("cut" in note for note in proposed["notes"])


# --------------------------------------------------------------------------------------------
# An answer that repeats the prompt's own example action is unusable

_START_BOX_ECHOES = [
    "Thought: I will click.\nAction: click(start_box='<|box_start|>(x1,y1)<|box_end|>')",
    "Action: click(start_box='(x1,y1)')",
    "Action: long_press(start_box='<|box_start|>(x1,y1)<|box_end|>')",
    "Action: drag(start_box='<|box_start|>(x1,y1)<|box_end|>', end_box='<|box_start|>(x3,y3)"
    "<|box_end|>')",
    "Action: finished(content='xxx')",
    "Action: scroll(start_box='<|box_start|>(x1,y1)<|box_end|>', direction='down or up or right "
    "or left')",
]


@pytest.mark.parametrize("answer", _START_BOX_ECHOES)
def test_a_uitars_answer_echoing_the_prompts_example_is_unusable(answer: str) -> None:
    generator = UITarsActionGenerator(hs.OneAnswer(answer))
    proposal = generator.generate_action("Open the note", hs.observation(), "")
    assert proposal.action is None and not proposal.sub_goal_finished
    assert "example" in (proposal.error or ""), proposal.error


def test_the_point_dialect_echo_is_unusable_too() -> None:
    answer = "Action: click(point='<point>x1 y1</point>')"
    generator = UITarsActionGenerator(hs.OneAnswer(answer), prompt_variant="point")
    proposal = generator.generate_action("Open the note", hs.observation(), "")
    assert proposal.action is None and "example" in (proposal.error or "")


def test_the_echo_that_was_executed_twenty_times_never_reaches_the_device() -> None:
    """Issue 27: the echoed example became click(2,2) on the screen, 20 times in one run."""
    from test_celil_agent import GOAL, make_agent

    answer = "Action: click(start_box='<|box_start|>(x1,y1)<|box_end|>')"
    executor = UITarsActionGenerator(hs.OneAnswer(answer))
    agent, env = make_agent(executor=executor)
    for _ in range(6):
        agent.step(GOAL)
    assert env.actions == [] or all(a.action_type == "status" for a in env.actions)


@pytest.mark.parametrize(
    "answer",
    [
        'Reason: <one or two sentences>\nAction: {"action_type": "navigate_home"}',
        'Reason: ok\nAction: {"action_type": "click", "index": "<element index>"}',
        'Reason: ok\nAction: {"action_type": "input_text", "text": "<text>", "index": 0}',
        'Reason: ok\nAction: {"action_type": "open_app", "app_name": "<app name>"}',
    ],
)
def test_a_json_answer_echoing_the_prompts_example_is_unusable(answer: str) -> None:
    generator = UITarsActionGenerator(hs.OneAnswer(answer), executor_format="json")
    proposal = generator.generate_action("Open the note", hs.observation(), "")
    assert proposal.action is None
    assert "example" in (proposal.error or "") or "placeholder" in (proposal.error or "")


def test_a_real_small_tap_is_not_an_echo() -> None:
    parsed = uitars.parse_uitars_output("Action: click(start_box='(12,30)')")
    assert isinstance(parsed, uitars.UiTarsAction) and parsed.start == (12.0, 30.0)


# --------------------------------------------------------------------------------------------
# Coordinates outside the screen are rejected, not clamped


@pytest.mark.parametrize(
    ("variant", "convention", "answer"),
    [
        ("start_box", uitars.ABSOLUTE_RESIZED, "Action: click(start_box='(5000,300)')"),
        ("start_box", uitars.ABSOLUTE_RESIZED, "Action: click(start_box='(40,-12)')"),
        ("start_box", uitars.ABSOLUTE_RESIZED, "Action: long_press(start_box='(10,99999)')"),
        ("point", uitars.RELATIVE_1000, "Action: click(point='<point>1500 200</point>')"),
        ("point", uitars.RELATIVE_1000, "Action: click(point='<point>500 1001.5</point>')"),
        (
            "start_box",
            uitars.ABSOLUTE_RESIZED,
            "Action: drag(start_box='(10,10)', end_box='(10,90000)')",
        ),
        ("start_box", uitars.ABSOLUTE_RESIZED, "Action: type(content='hi', start_box='(9000,9)')"),
    ],
)
def test_uitars_coordinates_outside_the_screen_are_rejected(
    variant: str, convention: str, answer: str
) -> None:
    generator = UITarsActionGenerator(
        hs.OneAnswer(answer), prompt_variant=variant, coordinate_convention=convention
    )
    proposal = generator.generate_action("Tap Save", hs.observation(), "")
    assert proposal.action is None
    assert "outside" in (proposal.error or ""), proposal.error


@pytest.mark.parametrize(
    ("convention", "answer"),
    [
        (uitars.ABSOLUTE_RESIZED, "Action: click(start_box='(0,0)')"),
        (uitars.RELATIVE_1000, "Action: click(point='<point>1000 1000</point>')"),
        (uitars.RELATIVE_1000, "Action: click(point='<point>0 0</point>')"),
    ],
)
def test_coordinates_on_the_edge_are_kept(convention: str, answer: str) -> None:
    generator = UITarsActionGenerator(hs.OneAnswer(answer), coordinate_convention=convention)
    proposal = generator.generate_action("Tap Save", hs.observation(), "")
    assert proposal.action is not None, proposal.error


def test_the_absolute_edge_is_the_size_sent() -> None:
    generator = UITarsActionGenerator(hs.OneAnswer(""))
    generator.generate_action("Tap Save", hs.observation(), "")
    width, height = generator.last_sent_size
    inside = UITarsActionGenerator(hs.OneAnswer(f"Action: click(start_box='({width},{height})')"))
    assert inside.generate_action("Tap Save", hs.observation(), "").action is not None
    beyond = UITarsActionGenerator(
        hs.OneAnswer(f"Action: click(start_box='({width + 2},{height})')")
    )
    assert "outside" in (beyond.generate_action("Tap Save", hs.observation(), "").error or "")


def test_json_coordinates_outside_the_screen_are_rejected() -> None:
    answer = 'Reason: tap it\nAction: {"action_type": "click", "x": 5000, "y": 100}'
    generator = UITarsActionGenerator(hs.OneAnswer(answer), executor_format="json")
    proposal = generator.generate_action("Tap Save", hs.observation(), "")
    assert proposal.action is None and "outside" in (proposal.error or "")


# --------------------------------------------------------------------------------------------
# A planner answer that is no answer is never a final answer


@pytest.mark.parametrize(
    "answer",
    [
        "[1, 2, 3]",
        "null",
        "None",
        "{}",
        '{"answer": "...", "evidence": "where you read it"}',
        '{"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}',
        '{"answer": null}',
        '{"answer": "null"}',
        "N/A",
    ],
)
def test_a_planner_non_answer_is_never_a_final_answer(answer: str) -> None:
    planner = celil_maestro.MaestroPlanner(hs.OneAnswer(answer))
    got = planner.answer_question("How many tasks are due today?", hs.observation(), "")
    assert got == ""


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"answer": "3", "evidence": "three rows"}', "3"),
        ('{"answer": ["Bob", "Alice"]}', "Bob, Alice"),
        ("Groceries, Dentist", "Groceries, Dentist"),
        ('{"answer": 0}', "0"),
    ],
)
def test_real_answers_are_kept(answer: str, expected: str) -> None:
    planner = celil_maestro.MaestroPlanner(hs.OneAnswer(answer))
    got = planner.answer_question("Which notes do I have?", hs.observation(), "")
    assert got == expected


def test_a_non_answer_does_not_complete_a_question_task() -> None:
    """Issue 27: `[1, 2, 3]` from the planner was the final answer with status complete."""
    from test_celil_agent import make_agent

    planner = fakes.ScriptedPlanner(initial=[celil_maestro.Plan(["Open Notes"])])
    model_planner = celil_maestro.MaestroPlanner(hs.OneAnswer("[1, 2, 3]"))
    planner.answer_question = model_planner.answer_question  # the model's answer, as parsed
    executor = fakes.ScriptedExecutor([fakes.click(2), fakes.finished()])
    agent, env = make_agent(planner=planner, executor=executor, progress_check="off")
    for _ in range(4):
        result = agent.step("How many notes do I have?")
        if result.done:
            break
    answers = [a.text for a in env.actions if a.action_type == "answer"]
    assert "[1, 2, 3]" not in answers


@pytest.mark.parametrize("content", ["N/A", "{answer}", "null", "..."])
def test_an_executor_non_answer_is_never_the_fallback_answer(content: str) -> None:
    """With the planner silent, the executor's `finished(content)` is the last resort: not when
    it is a placeholder."""
    from test_celil_agent import make_agent

    planner = fakes.ScriptedPlanner(initial=[celil_maestro.Plan(["Open Notes"])])
    planner.answer_question = lambda goal, observation, context: ""
    executor = fakes.ScriptedExecutor([fakes.click(2), fakes.finished(content)])
    agent, env = make_agent(planner=planner, executor=executor, progress_check="off")
    for _ in range(6):
        if agent.step("How many notes do I have?").done:
            break
    answers = [a.text for a in env.actions if a.action_type == "answer"]
    assert content not in answers


def test_an_executor_answer_is_the_fallback_when_the_planner_is_silent() -> None:
    from test_celil_agent import make_agent

    planner = fakes.ScriptedPlanner(initial=[celil_maestro.Plan(["Open Notes"])])
    planner.answer_question = lambda goal, observation, context: ""
    executor = fakes.ScriptedExecutor([fakes.click(2), fakes.finished("3")])
    agent, env = make_agent(planner=planner, executor=executor, progress_check="off")
    for _ in range(6):
        if agent.step("How many notes do I have?").done:
            break
    assert [a.text for a in env.actions if a.action_type == "answer"] == ["3"]


def test_verifier_votes_that_are_unreadable_record_their_reason() -> None:
    ensemble = VerifierEnsemble(hs.OneAnswer("{" * 50_000), mode="parallel")
    _, votes = ensemble.verify_action("Tap Save", fakes.click(0), hs.observation(), "")
    assert votes and all(not v.parseable and v.error for v in votes)
