"""What makes the offline suite fast without changing it: cached goal parsing that hands out
copies, and report.html rebuilt on a pace during a run (always at its end)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from android_world.agents.custom.offline_roles import offline_text
from android_world.harness.run_records import ReportPacer

ROOT = Path(__file__).resolve().parents[2]


def test_parse_goal_is_cached_but_every_caller_gets_its_own_copy():
    goal = "Delete the note called 'groceries' in Markor and open the Contacts app."
    expected = offline_text._parsed_goal.__wrapped__(goal, ())  # what parsing gives
    assert expected.apps and expected.verbs
    offline_text._parsed_goal.cache_clear()
    first = offline_text.parse_goal(goal)
    first.apps.append("Mutated")
    first.verbs.clear()
    second = offline_text.parse_goal(goal, ())
    assert offline_text._parsed_goal.cache_info().hits == 1
    assert second == expected


def test_launcher_labels_are_part_of_the_cache_key():
    goal = "Open Zorblax"
    plain = offline_text.parse_goal(goal)
    labelled = offline_text.parse_goal(goal, ["Zorblax"])
    assert labelled == offline_text._parsed_goal.__wrapped__(goal, ("Zorblax",))
    assert plain == offline_text._parsed_goal.__wrapped__(goal, ())


def test_report_pacer_rebuilds_first_then_at_most_every_interval():
    now = [100.0]
    pacer = ReportPacer(every_s=10.0, clock=lambda: now[0])
    due = []
    for t in (100.0, 101.0, 109.9, 110.0, 112.0, 125.0):
        now[0] = t
        due.append(pacer.due())
    assert due == [True, False, False, True, False, True]


def test_a_paced_run_still_ends_with_the_full_report(tmp_path):
    """A serial fake run of several episodes: report.html lists every episode at the end."""
    script = (
        "import sys, harness_fakes as f\n"
        "from android_world.harness import run\n"
        "run.task_registry = lambda family: dict(f.TASKS)\n"
        "run.make_env = lambda cfg, *a, **k: f.FakeEnv()\n"
        "run.run_cli(sys.argv)\n"
    )
    argv = [sys.executable, "-c", script, "--config", str(ROOT / "config" / "default.yaml")]
    argv += ["--agent", "oracle_agent", "--n_task_combinations", "3"]
    argv += ["--checkpoint_dir", str(tmp_path / "run"), "--new"]
    env = {"PYTHONPATH": f"{ROOT}:{ROOT / 'tests'}", "CELIL_NO_INSTALL": "1", "PATH": "/usr/bin"}
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [json.loads(x) for x in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    page = (tmp_path / "run" / "report.html").read_text()
    assert len(rows) >= 3
    assert all(row["name"] in page for row in rows)
