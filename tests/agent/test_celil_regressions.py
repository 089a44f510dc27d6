"""Regression tests for the phase-2 review fixes in the Celil plugin and its benchmarks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import test_section_leader_generator as leader_tests

from android_world.agents.custom.celil_protocols import OcrLine
from android_world.agents.custom.roles import celil_perception, celil_quality_control
from android_world.env import interface, representation_utils

REPO = Path(__file__).resolve().parents[2]


def test_failed_ocr_is_not_cached_so_the_frame_is_read_next_time() -> None:
    calls: list[int] = []

    def flaky(pixels: np.ndarray) -> list[OcrLine]:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("tesseract timed out")
        return [OcrLine("Save", representation_utils.BoundingBox(0, 10, 0, 5), 90.0)]

    module = celil_perception.PerceptionModule(ocr="always", ocr_fn=flaky)
    state = interface.State(
        pixels=np.full((40, 20, 3), 3, dtype=np.uint8), forest=None, ui_elements=[]
    )
    first = module.process_observation(state)
    assert first.ocr_lines == [] and "timed out" in module.take_warnings()[0]
    second = module.process_observation(state)
    assert [line.text for line in second.ocr_lines] == ["Save"]
    third = module.process_observation(state)
    assert len(calls) == 2 and module.cache_hits == 1 and third.ocr_lines == second.ocr_lines


def test_json_click_with_half_a_point_is_a_failed_proposal() -> None:
    answer = 'Reason: x\nAction: {"action_type": "click", "x": 5}'
    generator, _ = leader_tests._json_generator(answer)
    proposal = generator.generate_action("Do it", leader_tests._observation(), "")
    assert proposal.action is None and not proposal.usable
    assert "needs an element" in (proposal.error or "")


def test_agent_overhead_benchmark_rejects_empty_samples_with_exit_2(capsys) -> None:
    import agent_overhead  # benchmarks/ is on pytest's pythonpath (pyproject.toml)

    assert agent_overhead.main(["--steps", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --steps") and err.count("\n") == 1


@pytest.mark.parametrize("raw", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_vote_score_is_unparseable_not_a_perfect_ten(raw: str) -> None:
    vote = celil_quality_control.parse_vote(
        "Skeptic", f'{{"score": {raw}, "reasoning": "ok"}}', 0.0
    )
    assert vote.score == 0.0 and not vote.parseable
