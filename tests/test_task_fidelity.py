"""The fidelity table: upstream's record, the comparison with our classes, and a doc that cannot go stale."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from android_world.task_evals import fidelity, upstream_pools
from android_world.task_evals.single import expense, files, markor, system
from android_world.task_evals.upstream_tasks import UPSTREAM_BY_NAME, UPSTREAM_TASKS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def rows() -> list[fidelity.Row]:
    return fidelity.build_rows()


def test_upstream_record_holds_all_116_templates():
    assert len(UPSTREAM_TASKS) == len(UPSTREAM_BY_NAME) == 116
    ir = [t for t in UPSTREAM_TASKS if t.module.endswith("tasks.textproto")]
    assert len(ir) == 25
    for task in UPSTREAM_TASKS:
        assert task.complexity > 0 and task.templates and all(task.templates), task.name
        assert task.success_rule and task.pools, task.name
    assert len(UPSTREAM_BY_NAME["MarkorEditNote"].templates) == 3
    assert UPSTREAM_BY_NAME["ExpenseDeleteSingle"].n_rows_noise == 0
    assert UPSTREAM_BY_NAME["MarkorMergeNotes"].complexity == 7.8


def test_doc_is_current():
    """If this fails: python -m android_world.task_evals.fidelity (and commit the doc)."""
    assert fidelity.main(["--check"]) == 0


def test_check_reports_a_stale_or_missing_doc(tmp_path, capsys):
    doc = tmp_path / "FIDELITY.md"
    assert fidelity.main(["--check", "--output", str(doc)]) == 1
    assert fidelity.main(["--output", str(doc)]) == 0
    assert fidelity.main(["--check", "--output", str(doc)]) == 0
    doc.write_text(doc.read_text(encoding="utf-8").replace("| same |", "| different |", 1))
    assert fidelity.main(["--check", "--output", str(doc)]) == 1
    assert "is stale" in capsys.readouterr().err


def test_cli_check_runs_as_a_module():
    result = subprocess.run(
        [sys.executable, "-m", "android_world.task_evals.fidelity", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "android_world.task_evals.fidelity", "--bogus"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2


def test_every_task_keeps_the_naming_and_fidelity_contract(rows):
    assert fidelity.problems(rows) == []
    own = [r.name for r in rows if r.is_own]
    assert "SimExpenseTotalForCategory" in own
    assert "ExpenseTotalForCategory" not in {r.name for r in rows}


def test_the_doc_states_coverage_and_marks_own_tasks(rows):
    text = fidelity.render(rows)
    covered = sum(not r.is_own for r in rows)
    assert f"**Coverage: {covered} of 116 upstream templates**" in text
    assert "`SimExpenseTotalForCategory` *own*" in text


def test_a_changed_template_is_found_and_needs_a_note():
    class SystemWifiTurnOn(system.SystemWifiTurnOn):
        template = "Switch the wifi {on_or_off}."

    row = fidelity.build_row("SystemWifiTurnOn", SystemWifiTurnOn)
    assert row.template == "different"
    assert any("template different" in p for p in fidelity.problems([row]))

    class Noted(SystemWifiTurnOn):
        fidelity_notes = ("template: worded for a test",)

    assert fidelity.problems([fidelity.build_row("SystemWifiTurnOn", Noted)]) == []


def test_goals_built_in_code_compare_by_shape():
    assert fidelity.compare_template(markor.MarkorEditNote, UPSTREAM_BY_NAME["MarkorEditNote"]) == (
        "same"
    )
    assert fidelity.compare_template(
        expense.ExpenseAddSingle, UPSTREAM_BY_NAME["ExpenseAddSingle"]
    ) == ("same")


def test_noise_rows_and_complexity_differences_are_reported():
    class ExpenseDeleteSingle(expense.ExpenseDeleteSingle):
        n_rows_noise = 14
        complexity = 1.4

    row = fidelity.build_row("ExpenseDeleteSingle", ExpenseDeleteSingle)
    assert "noise rows: ours 14, upstream 0" in row.notes
    assert any("complexity 1.4" in p for p in fidelity.problems([row]))


def test_an_own_task_needs_the_sim_prefix():
    class FooCount(system.SystemWifiTurnOn):
        pass

    problems = fidelity.problems([fidelity.build_row("FooCount", FooCount)])
    assert problems and "must start with 'Sim'" in problems[0]


def test_files_and_markor_draw_from_upstream_pools():
    noise_counts = set()
    for seed in range(12):
        random.seed(seed)
        params = files.FilesDeleteFile.generate_random_params()
        assert params["subfolder"] in upstream_pools.EMULATOR_DIRECTORIES
        assert (
            tuple(params["noise_candidates"])
            == upstream_pools.EMULATOR_DIRECTORIES[params["subfolder"]]
        )
        stem = params["file_name"].rsplit(".", 1)[0]
        assert any(a in stem for a in upstream_pools.FILE_NAME_ADJECTIVES)
        names = files.noise_names(
            params["file_name"], params["noise_candidates"], files.NOISE_MIN, files.NOISE_MAX
        )
        noise_counts.add(len(names))
        random.seed(seed)
        note = markor.MarkorCreateNote.generate_random_params()
        assert note["text"] in upstream_pools.RANDOM_SENTENCES
    assert min(noise_counts) >= 1 and max(noise_counts) <= 20 and len(noise_counts) > 3
