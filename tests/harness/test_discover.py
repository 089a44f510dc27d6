"""--list, --tags/--difficulty and --dry_run: what a newcomer runs before a benchmark."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from android_world.harness import discover

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "android_world.harness.run", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


INFOS = [
    discover.TaskInfo("A", ("clock",), "easy", 1.0, ("data_entry",)),
    discover.TaskInfo("B", ("files",), "hard", 3.0, ("search", "data_entry")),
    discover.TaskInfo("C", ("sms",), "medium", 2.0, ()),
]


def test_filters_combine_tags_with_any_and_difficulty():
    assert [i.name for i in discover.filter_tasks(INFOS, ["data_entry"])] == ["A", "B"]
    assert [i.name for i in discover.filter_tasks(INFOS, ["search"], ["hard"])] == ["B"]
    assert [i.name for i in discover.filter_tasks(INFOS, [], ["medium", "easy"])] == ["A", "C"]
    with pytest.raises(ValueError, match="unknown tag 'serch'; known tags: data_entry, search"):
        discover.filter_tasks(INFOS, ["serch"])
    with pytest.raises(ValueError, match="unknown difficulty 'Hard'"):
        discover.filter_tasks(INFOS, [], ["Hard"])


def test_one_line_per_task_with_whole_comma_joined_tags_and_a_step_budget():
    long = discover.TaskInfo(
        "T" * 30, ("a" * 20, "b"), "easy", 1.5, tuple(f"information_retrieval{i}" for i in range(9))
    )
    lines = discover.tasks_table([*INFOS, long]).splitlines()
    assert len(lines) == 2 + 4 + 1  # header, rule, a line per task, the count
    assert lines[0].split() == ["task", "difficulty", "steps", "apps", "tags"]
    row = next(line for line in lines if line.startswith("T" * 30))
    assert row.split() == [
        "T" * 30, "easy", "15", f"{'a' * 20},b", ",".join(long.tags)
    ]  # fmt: skip
    assert lines[lines.index(next(x for x in lines if x.startswith("C ")))].split()[-1] == "-"
    agents = discover.agents_table({"mine": "celil_agent"}, ["celil_agent", "human_agent"], "mine")
    assert "mine*" in agents and "human_agent" in agents and "registered" in agents


def test_list_tasks_shows_every_sim_task_with_apps_difficulty_and_tags():
    result = _cli("--list", "tasks")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("SystemWifiTurnOn ") and "settings" in line for line in lines)
    count = int(lines[-1].split()[0])
    assert len(lines) == count + 3 and not any(line.startswith(" ") for line in lines)
    tags = {t for line in lines[2:-1] for t in line.split()[-1].split(",")}
    assert "information_retrieval" in tags and not any(t.startswith("infor") and t != (
        "information_retrieval") for t in tags)  # fmt: skip
    assert count >= 39
    hard = _cli("--list", "tasks", "--difficulty", "hard")
    assert hard.returncode == 0 and int(hard.stdout.splitlines()[-1].split()[0]) < count


def test_list_agents_marks_the_active_one():
    result = _cli("--list", "agents", "--agent", "oracle_agent")
    assert result.returncode == 0, result.stderr
    assert "oracle_agent*" in result.stdout and "celil_agent " in result.stdout


def test_dry_run_validates_and_prints_without_running(tmp_path):
    result = _cli(
        *("--dry_run", "--tags", "screen_reading", "--difficulty", "easy"),
        *("--n_task_combinations", "2", "--output_path", str(tmp_path / "runs")),
    )
    assert result.returncode == 0, result.stderr
    assert "nothing was run" in result.stdout and "SystemWifiTurnOn" in result.stdout
    assert "SimExpenseTotalForCategory" not in result.stdout  # medium
    assert "agent:    celil_agent" in result.stdout
    assert not (tmp_path / "runs").exists()
    bad = _cli("--dry_run", "--tasks", "NoSuchTask")
    assert bad.returncode == 2 and "Unknown task 'NoSuchTask'" in bad.stderr
    # No upstream template is a hard verification task (BrowserMaze is an easy multi_app one).
    none = _cli("--dry_run", "--tags", "verification", "--difficulty", "hard")
    assert none.returncode == 2 and "no task has tags ['verification']" in none.stderr

    short = _cli("--dry_run", "--sim_profile", "landscape,dialogs", "--tasks", "CameraTakePhoto")
    label = "sim (profile landscape,dialogs; step budgets x2.2, +1 per app for its pop-up)"
    assert f"env:      {label}" in short.stdout
    strict = _cli(
        *("--dry_run", "--sim_profile", "landscape", "--tasks", "CameraTakePhoto"),
        *("--set", "env.sim.adjust_step_budget=false"),
    )
    assert "env:      sim (profile landscape)\n" in strict.stdout


def test_docs_python_api_example_runs_as_written(tmp_path):
    doc = (ROOT / "docs" / "INSTALL.md").read_text(encoding="utf-8")
    section = doc.split("## Using Celil from Python", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    script = tmp_path / "api_example.py"
    script.write_text(code)
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == (
        "{'ContactsAddContact_0': 1.0, 'SystemWifiTurnOn_0': 1.0}"
    )


def test_a_long_name_stays_on_its_task_line():
    name = "SportsTrackerTotalDistanceForCategoryOverInterval"
    info = discover.TaskInfo(name, ("open tracks sports tracker",), "hard", 2.0, ("search",))
    lines = discover.tasks_table([*INFOS, info]).splitlines()
    [row] = [line for line in lines if line.startswith(name)]
    assert row.split()[1:3] == ["hard", "20"] and row.endswith("search")
