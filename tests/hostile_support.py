"""Every parser of model answers, called as the agent calls it, and hostile answers to feed them.

Shared by tests/agent/test_hostile_answers.py (the 1 s bound) and benchmarks/hostile_answers.py (the
timing table). A parser here is an entry point that reads model text: the pure functions, and the
role objects with a wrapper that answers every call with one text. Holds no tests itself.
"""

from __future__ import annotations

import multiprocessing
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from android_world.agents import agent_utils
from android_world.agents.custom import celil_json
from android_world.agents.custom.celil_protocols import FailureContext, Observation, ProposedAction
from android_world.agents.custom.dialects import uitars
from android_world.agents.custom.model_clients.call_types import CallResult, ModelRequest
from android_world.agents.custom.roles import (
    celil_maestro,
    celil_quality_control,
    celil_section_leader,
)
from android_world.env import json_action, representation_utils

MEGABYTE = 1_000_000
# Blank space, newlines, braces, brackets and quotes: what issue 27 asks the parsers to survive.
HOSTILE_ALPHABET = " \t\n\r{}[]\"'`:,()<>/\\"


def hostile_inputs(chars: int = MEGABYTE, seed: int = 0) -> dict[str, str]:
    """Named hostile answers, each about `chars` long: one character repeated, the shapes issue 27
    measured (blank space after `Action:`, unbalanced braces), and seeded mixes."""
    rng = random.Random(seed)
    mix = "".join(rng.choice(HOSTILE_ALPHABET) for _ in range(chars))
    words = ["Action:", "Thought:", "Score:", "{", "}", '"', "'", "\n", " ", "(", "1.", "<think>"]
    word_mix = "".join(rng.choice(words) for _ in range(chars // 3))[:chars]
    return {
        "spaces": " " * chars,
        "newlines": "\n" * chars,
        "open_braces": "{" * chars,
        "close_braces": "}" * chars,
        "open_brackets": "[" * chars,
        "double_quotes": '"' * chars,
        "single_quotes": "'" * chars,
        "brace_quote": '{"' * (chars // 2),
        "key_no_value": '{"a": ' * (chars // 6),
        "action_then_newlines": "Action:" + "\n" * chars,
        "action_then_spaces": "Thought: x\nAction: " + " " * chars,
        "open_call": "Action: click(" + "'" * chars,
        "open_call_args": "Action: click(a=" + "b=" * (chars // 2),
        "score_then_spaces": "Score: " + " " * chars,
        "reason_then_blank_lines": "Reason: x" + "\n " * (chars // 2),
        "labels_only": "Action: " * (chars // 8),
        "tiny_spans": "{x}" * (chars // 3),
        "fenced_spans": "```json {x}" * (chars // 11),
        "think_unclosed": "<think>" * (chars // 7),
        "list_items": "1. " * (chars // 3),
        "random_mix": mix,
        "word_mix": word_mix,
    }


def observation() -> Observation:
    """A one-button screen (1080x2400) with a small screenshot."""
    element = representation_utils.UIElement(
        text="Save",
        class_name="android.widget.Button",
        bbox_pixels=representation_utils.BoundingBox(100, 300, 100, 200),
        is_clickable=True,
        is_enabled=True,
        is_visible=True,
    )
    return Observation(
        screenshot=np.zeros((240, 108, 3), dtype=np.uint8),
        ui_elements=[element],
        ocr_lines=[],
        ocr_summary="",
        ui_tree_summary='0: "Save" (Button)',
        screen_size=(1080, 2400),
        frame_hash="x",
        foreground_activity="com.example/.Main",
    )


class OneAnswer:
    """A model client that answers every call with `text`."""

    def __init__(self, text: str):
        self.text = text

    def call(self, request: ModelRequest) -> CallResult:
        del request
        return CallResult.answered(self.text, True)


def _executor(fmt: str) -> Callable[[str], Any]:
    def run(text: str) -> Any:
        generator = celil_section_leader.UITarsActionGenerator(OneAnswer(text), executor_format=fmt)
        return generator.generate_action("Save the note", observation(), "")

    return run


def _planner(method: str) -> Callable[[str], Any]:
    def run(text: str) -> Any:
        planner = celil_maestro.MaestroPlanner(OneAnswer(text), repair_retries=0)
        obs = observation()
        if method == "initial":
            return planner.generate_initial_plan("Save the note", obs, None)
        if method == "corrective":
            failure = FailureContext("Save the note", ["Save"], [], "Save", "", [], obs, "loop")
            return planner.generate_corrective_plan(failure)
        if method == "progress":
            return planner.check_sub_goal("Save the note", "Save", obs, "")
        return planner.answer_question("What is the note's title?", obs, "")

    return run


def _verifier(text: str) -> Any:
    ensemble = celil_quality_control.VerifierEnsemble(OneAnswer(text), mode="sequential")
    proposal = ProposedAction(json_action.JSONAction(action_type="click", index=0))
    try:
        return ensemble.verify_action("Save", proposal, observation(), "")
    finally:
        ensemble.close()


def _selector(text: str) -> Any:
    return celil_maestro.VisionElementSelector(OneAnswer(text)).select_element(
        "Save", observation()
    )


# Every reader of model text in the plugin (and agent_utils.extract_json, which upstream-style
# agents and --check_models use). check_models' probes call these same functions.
PARSERS: dict[str, Callable[[str], Any]] = {
    "uitars.parse_uitars_output": uitars.parse_uitars_output,
    "executor (uitars format)": _executor("uitars"),
    "executor (json format)": _executor("json"),
    "celil_json.extract_json": celil_json.extract_json,
    "celil_json.strip_think": celil_json.strip_think,
    "agent_utils.extract_json": agent_utils.extract_json,
    "maestro.parse_plan_text": celil_maestro.parse_plan_text,
    "planner initial plan": _planner("initial"),
    "planner corrective plan": _planner("corrective"),
    "planner progress check": _planner("progress"),
    "planner answer": _planner("answer"),
    "maestro.parse_bool_answer": celil_maestro.parse_bool_answer,
    "maestro.clean_answer": celil_maestro.clean_answer,
    "quality_control.parse_vote": lambda text: celil_quality_control.parse_vote("P", text),
    "verifier ensemble": _verifier,
    "vision selector": _selector,
}


def _child(name: str, text: str, queue: Any) -> None:
    cpu = time.process_time()
    wall = time.perf_counter()
    try:
        PARSERS[name](text)
        error = ""
    except Exception as exc:  # a raise is a finding too
        error = f"{type(exc).__name__}: {exc}"[:160]
    queue.put((time.process_time() - cpu, time.perf_counter() - wall, error))


def time_in_child(name: str, text: str, limit_s: float) -> tuple[float | None, float | None, str]:
    """(CPU seconds, wall seconds, exception text) of one parse in a forked child; both times are
    None when it ran past `limit_s` of wall time and was killed. CPU time is what a bound should
    assert on a shared machine: other processes' load does not count in it."""
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=_child, args=(name, text, queue))
    process.start()
    process.join(limit_s)
    if process.is_alive():
        process.kill()
        process.join()
        return None, None, ""
    try:
        return queue.get(timeout=5)
    except Exception:  # queue.Empty: the child died before reporting
        return None, None, f"the child died (exit code {process.exitcode})"
