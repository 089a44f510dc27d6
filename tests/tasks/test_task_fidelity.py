"""The fidelity table: upstream's recorded facts, the differential with our classes, and a doc
that cannot go stale."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from android_world.task_evals import fidelity, fidelity_diff, upstream_draws
from android_world.task_evals.single import expense, markor, open_app, recipe_data, system
from android_world.task_evals.upstream_tasks import UPSTREAM_BY_NAME, UPSTREAM_TASKS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rows() -> list[fidelity.Row]:
    return fidelity.build_rows()


@pytest.fixture(scope="module")
def facts() -> fidelity_diff.UpstreamFacts:
    return fidelity_diff.load()


def test_upstream_record_holds_all_116_templates(facts):
    assert len(UPSTREAM_TASKS) == len(UPSTREAM_BY_NAME) == 116
    assert set(facts.templates) == set(UPSTREAM_BY_NAME)
    ir = [n for n, t in facts.templates.items() if t["module"].endswith("tasks.textproto")]
    assert len(ir) == 25 and all(facts.templates[n].get("param_pools") for n in ir)
    for task in UPSTREAM_TASKS:
        assert task.success_rule and task.pools, task.name
        assert float(facts.templates[task.name]["complexity"]) == task.complexity, task.name
    assert facts.templates["MarkorMergeNotes"]["complexity"] == 7.8
    # An instance takes the textproto's complexity; the registry's override stays on the class.
    assert facts.templates["TasksDueNextWeek"]["complexity"] == 1
    assert facts.templates["TasksDueNextWeek"]["class_complexity"] == 1.2


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


def test_cli_check_runs_as_a_module_and_rejects_what_is_not_a_checkout(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "android_world.task_evals.fidelity", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "android_world.task_evals.fidelity", "--upstream", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "not an upstream AndroidWorld checkout" in bad.stderr


def test_every_task_records_what_the_differential_finds(rows):
    assert fidelity.problems(rows) == []
    own = [r.name for r in rows if r.is_own]
    assert "SimExpenseTotalForCategory" in own
    assert "ExpenseTotalForCategory" not in {r.name for r in rows}


def test_the_doc_states_coverage_draws_and_marks_own_tasks(rows):
    comparison = upstream_draws.compare({r.name: _cls(r.name) for r in rows})
    text = fidelity.render(rows, comparison)
    covered = sum(not r.is_own for r in rows)
    assert f"**Coverage: {covered} of 116 upstream templates**" in text
    assert f"**Draws: {comparison.matched} of {comparison.compared} (" in text
    assert "`SimExpenseTotalForCategory` *own*" in text
    assert "## Parameter pools" in text


def _cls(name: str):
    from android_world.task_evals import registry

    return registry.TaskRegistry().get_registry()[name]


def test_a_changed_template_is_found_and_needs_a_note():
    class SystemWifiTurnOn(system.SystemWifiTurnOn):
        template = "Switch the wifi {on_or_off}."

    row = fidelity.build_row("SystemWifiTurnOn", SystemWifiTurnOn)
    assert row.template == "different"
    assert any("template" in p for p in fidelity.problems([row]))

    class Noted(SystemWifiTurnOn):
        fidelity_notes = ("template: worded for a test",)

    assert fidelity.problems([fidelity.build_row("SystemWifiTurnOn", Noted)]) == []


def test_schema_metadata_complexity_and_noise_differences_are_found():
    class ExpenseDeleteSingle(expense.ExpenseDeleteSingle):
        n_rows_noise = 14
        complexity = 1.4
        optimal_steps = 99
        tags = ("made_up",)
        schema = {"type": "object", "properties": {"extra": {}}, "required": ["extra"]}

    row = fidelity.build_row("ExpenseDeleteSingle", ExpenseDeleteSingle)
    found = " | ".join(row.found)
    assert "noise rows: ours 14, upstream 0" in found
    assert "complexity: ours 1.4, upstream 1" in found
    assert "metadata optimal steps: ours 99" in found and "metadata tags" in found
    assert "schema adds extra" in found and "schema requires extra" in found
    problems = " | ".join(fidelity.problems([row]))
    for keyword in ("noise", "complexity", "metadata", "schema"):
        assert f"no {keyword!r} fidelity note" in problems


def test_a_class_that_draws_otherwise_is_found_and_needs_a_draw_note():
    class OpenAppTaskEval(open_app.OpenAppTaskEval):
        fidelity_notes = ("apps: the dialer",)

        @classmethod
        def generate_random_params(cls):
            return {"app_name": "camera"}

    row = fidelity.build_row("OpenAppTaskEval", OpenAppTaskEval)
    assert row.draws.endswith("/9") and not row.draws.startswith("9/")
    assert any("no 'draw' fidelity note" in p for p in fidelity.problems([row]))


def test_the_listed_differences_are_fixed(rows, facts):
    """Issue 32's eleven: upstream's ingredient pool, draws at initialisation, no day_of_week
    key, MarkorDeleteNote's subfolder, OpenAppTaskEval's metadata."""
    by_name = {r.name: r for r in rows}
    for name in (
        "RecipeDeleteMultipleRecipesWithConstraint",
        "SimpleCalendarEventsOnDate",
        "TasksDueOnDate",
        "TasksHighPriorityTasksDueOnDate",
        "TasksCompletedTasksForDate",
        "TasksIncompleteTasksOnDate",
        "TasksHighPriorityTasks",
        "TasksDueNextWeek",
        "SimpleCalendarAddOneEventRelativeDay",
        "SimpleCalendarDeleteEvents",
        "MarkorDeleteNote",
    ):
        assert by_name[name].found == (), (name, by_name[name].found)
        assert by_name[name].draws.startswith("9/9"), (name, by_name[name].draws)
    assert not [n for n in by_name["OpenAppTaskEval"].found if n.startswith("metadata")]
    pool = recipe_data.COMMON_INGREDIENTS  # upstream's, duplicates kept: they weight the draw
    assert len(set(pool)) < len(pool) and "Parmesan" in pool and "ghee" in pool
    assert "subfolder" in markor.MarkorDeleteNote.schema["properties"]


def test_pools_are_matched_by_content():
    ours = {"a:NAMES": ("x", "y", "z", "w"), "a:OWN": ("p", "q", "r")}
    theirs = {"u:NAMES": ["x", "y", "w", "z"], "u:OTHER": ["k", "l", "m"]}
    matches = fidelity_diff.match_pools(ours, theirs)
    assert [(m.ours, m.upstream, m.verdict) for m in matches] == [
        ("a:NAMES", "u:NAMES", "same values, another order")
    ]
    assert fidelity_diff.pool_difference(["a", "b"], ["a", "c", "d"]) == (
        "2 values vs upstream's 3; lacks 'c', 'd'; adds 'b'"
    )


def test_every_matched_pool_is_upstreams(facts):
    matches = fidelity_diff.match_pools(fidelity_diff.our_pools(), facts.pools)
    assert len(matches) >= 15
    assert [m for m in matches if m.verdict != "same"] == []
