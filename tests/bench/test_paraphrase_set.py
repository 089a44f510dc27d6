"""The paraphrase development set (issue 14.4): the fixture covers the suite, every wording
fills in from drawn params, and the benchmark runs a wording through the offline agent."""

from __future__ import annotations

import importlib.util
import string
import sys
from pathlib import Path

import pytest

from android_world.harness import suite_utils
from android_world.task_evals import registry

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "paraphrase.py"
_SPEC = importlib.util.spec_from_file_location("paraphrase_bench", _PATH)
assert _SPEC and _SPEC.loader
paraphrase = importlib.util.module_from_spec(_SPEC)
sys.modules["paraphrase_bench"] = paraphrase
_SPEC.loader.exec_module(paraphrase)

WORDINGS = paraphrase.load_wordings()
TASKS = registry.TaskRegistry().get_registry()


def _params(task: str, seed: int) -> dict:
    return dict(suite_utils.create_suite({task: TASKS[task]}, seed=seed)[task][0].params)


def test_every_sim_task_has_wordings_and_splits() -> None:
    assert set(WORDINGS) == set(TASKS)
    for task, wordings in WORDINGS.items():
        assert {w.split for w in wordings} == {"dev", "heldout"}, task
        assert len({(w.text, w.params) for w in wordings}) == len(wordings), (
            f"{task}: duplicate wording"
        )


def test_upstream_alternative_templates_are_included() -> None:
    upstream = {w.task for ws in WORDINGS.values() for w in ws if w.source == "upstream"}
    assert {"MarkorCreateNote", "SimpleCalendarDeleteOneEvent"} <= upstream
    assert {"SimpleSmsReplyMostRecent", "TurnOnWifiAndOpenApp"} <= upstream


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_drawn_task_gets_five_wordings_that_fill_in(seed: int) -> None:
    for task, wordings in WORDINGS.items():
        params = _params(task, seed)
        usable = [w for w in wordings if paraphrase.applies(w, params)]
        assert len(usable) >= 5, f"{task} seed {seed}: {len(usable)} wordings"
        for w in usable:
            fields = paraphrase.derived_fields({**params, **dict(w.params)})
            names = {n for _, n, _, _ in string.Formatter().parse(w.text) if n}
            assert names <= set(fields), f"{task}: {sorted(names - set(fields))}"


def test_benchmark_runs_a_paraphrase_through_the_offline_agent() -> None:
    wording = WORDINGS["SystemWifiTurnOn"][0]
    outcome = paraphrase.run_episode("SystemWifiTurnOn", 0, wording)
    assert outcome.goal == wording.text
    assert outcome.error is None
    assert outcome.status in ("complete", "infeasible", None)
    original = paraphrase.run_episode("SystemWifiTurnOn", 0, None)
    assert original.wording.split == "original" and original.success


def test_false_completion_is_complete_without_success() -> None:
    w = WORDINGS["CameraTakePhoto"][0]
    assert paraphrase.Outcome(w, 0, "g", success=False, status="complete").false_completion
    assert not paraphrase.Outcome(w, 0, "g", success=True, status="complete").false_completion
    assert not paraphrase.Outcome(w, 0, "g", success=False, status="infeasible").false_completion


def test_table_groups_by_family_and_split() -> None:
    w = WORDINGS["SimpleSmsSend"][0]
    rows = paraphrase.table([paraphrase.Outcome(w, 0, "g", success=True, status="complete")])
    assert any(r.startswith("SimpleSms") and "dev" in r and "1.00" in r for r in rows)
