"""`--goal "..."` (issue 31 item 1): one free-form goal, run like a task, checked by nothing.

The episode goes through the same runner as a task; its row has no score on the success scale,
the agent's claim is the outcome, and no summary counts it as a success or a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from android_world.agents import base_agent
from android_world.env import json_action
from android_world.env.sim.sim_env import SimEnv
from android_world.harness import suite_utils
from android_world.task_evals import free_goal

ROOT = Path(__file__).resolve().parents[2]


class ScriptedAgent(base_agent.EnvironmentInteractingAgent):
    """Plays `actions` one per step and records the app in front before each."""

    def __init__(self, env: Any, actions: list[json_action.JSONAction]):
        super().__init__(env, "scripted", transition_pause=0.0)
        self.actions = list(actions)
        self.seen: list[str] = []
        self.finished: list[tuple[str, Any]] = []

    def step(self, goal: str) -> base_agent.AgentInteractionResult:
        self.seen.append(self.env.foreground_activity_name)
        action = self.actions.pop(0)
        self.env.execute_action(action)
        return base_agent.AgentInteractionResult(
            action.action_type == json_action.STATUS, {"action": action.json_str()}
        )

    def episode_finished(self, goal: str, score: Any) -> None:
        self.finished.append((goal, score))


def test_the_task_resolves_the_app_and_refuses_what_cannot_run():
    task = free_goal.free_goal("  Turn on\nWi-Fi ", app="camera", max_steps=12)
    assert task.goal == "Turn on Wi-Fi" and task.app_names == ("Camera",)
    assert int(10 * task.complexity) == 12 and not task.start_on_home_screen
    assert (
        free_goal.free_goal("x").start_on_home_screen and free_goal.free_goal("x").app_names == ()
    )
    with pytest.raises(ValueError, match=r"unknown app 'Camra'; known apps: .*Camera"):
        free_goal.free_goal("x", app="Camra")
    with pytest.raises(ValueError, match="the goal is empty"):
        free_goal.free_goal("   ")
    with pytest.raises(free_goal.UnscoredTaskError):
        task.is_successful(None)  # type: ignore[arg-type]


def test_an_episode_starts_in_the_app_and_is_recorded_unscored():
    env = SimEnv(seed=0, render=False)
    try:
        task = free_goal.free_goal("Turn on Wi-Fi", app="Settings", max_steps=5)
        wifi = json_action.JSONAction(action_type=json_action.OPEN_APP, app_name="Clock")
        done = json_action.JSONAction(action_type=json_action.STATUS, goal_status="complete")
        agent = ScriptedAgent(env, [wifi, done])
        episode = suite_utils.run_task(task, agent)
    finally:
        env.close()
    assert agent.seen[0].startswith("com.android.settings")  # the app asked for, not home
    assert episode["error"] is None and episode["scored"] is False
    assert episode["is_successful"] is None and episode["raw_score"] is None
    assert episode["claimed"] == "complete" and episode["episode_length"] == 2
    assert episode["step_budget"] == 5
    assert agent.finished == []  # no verified score: nothing for the memory to learn


def _episode(**fields: Any) -> dict[str, Any]:
    base = {"task_template": "T", "name": "T_0", "error": None, "exception_info": None}
    return base | {"episode_length": 3, "step_budget": 10, "run_time": 1.0} | fields


def test_summaries_count_an_unscored_episode_as_neither_success_nor_failure():
    unscored = _episode(
        task_template="FreeGoal", scored=False, is_successful=None, done=True, claimed="complete"
    )
    failed = _episode(scored=True, is_successful=0.0, raw_score=0.0, done=False, claimed=None)
    summary = suite_utils.process_episodes([unscored, failed])
    rows = {r["task_template"]: r for r in summary.rows}
    assert rows["FreeGoal"]["num_complete_trials"] == 0
    assert rows["FreeGoal"]["num_fail_trials"] == 0
    assert rows["FreeGoal"]["mean_success_rate"] is None
    assert summary.average["mean_success_rate"] == 0.0  # only the scored task counts
    line = suite_utils.outcome_line([unscored, failed])
    assert "1 complete" in line and "1 out of steps" in line and "0 errors" in line
    assert "0 passed the task's check, 1 failed it, 1 unscored" in line
    assert suite_utils.claims_line([unscored]) is None  # no check to hold a claim against


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = str(ROOT)
    command = [sys.executable, "-m", "android_world.harness.run", "--models", "offline"]
    command += ["--output_path", str(tmp_path / "runs"), *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_goal_on_the_sim_end_to_end(tmp_path):
    done = _cli(tmp_path, "--goal", "Turn on Wi-Fi and open Camera")
    assert done.returncode == 0, done.stderr[-2000:]
    [run_dir] = (tmp_path / "runs").iterdir()
    [row] = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    assert row["goal"] == "Turn on Wi-Fi and open Camera" and row["task"] == "FreeGoal"
    assert row["scored"] is False and row["score"] is None and row["claimed"] in (
        "complete", "infeasible", None
    )  # fmt: skip
    assert row["false_complete"] is None and row["done_unclaimed"] is False
    assert "FreeGoal_0: unscored, " in done.stderr
    assert "Goal: Turn on Wi-Fi and open Camera" in done.stdout
    assert "Outcome: unscored (no task check)" in done.stdout
    assert "success" not in done.stdout  # no summary table for one unchecked goal
    steps = list((run_dir / "episodes" / "FreeGoal_0").glob("step_*.png"))
    assert len(steps) == row["steps"] > 0  # the trajectory is recorded
    page = (run_dir / "episodes" / "FreeGoal_0" / "index.html").read_text()
    assert "unscored (no task check)" in page
    assert "unscored" in (run_dir / "report.html").read_text()
    summary = (run_dir / "summary.csv").read_text().splitlines()
    assert summary[1].startswith("FreeGoal,0,,")  # no trials on the success scale


def test_app_and_sim_profile_flags_shape_the_episode(tmp_path):
    done = _cli(
        tmp_path, "--goal", "Open the alarms", "--app", "clock", "--sim_profile", "dialogs",
        "--max_steps", "4", "--set", "env.render=false",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    [run_dir] = (tmp_path / "runs").iterdir()
    [row] = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    assert row["step_budget"] == 5  # 4 asked, +1 for the Clock's first-launch pop-up
    episode = json.loads((run_dir / "episodes" / "FreeGoal_0" / "episode.json").read_text())
    assert episode["params"]["app"] == "Clock"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--goal", "x", "--tasks", "SystemWifiTurnOn"], "error: --goal runs one goal"),
        (["--goal", "x", "--app", "Camra"], "error: --app: unknown app 'Camra'; known apps:"),
        (["--goal", " "], "error: --goal: the goal is empty"),
        (["--app", "Camera"], "error: --app and --max_steps go with --goal"),
        (["--goal", "x", "--n_task_combinations", "3"], "error: --goal runs one goal"),
    ],
)
def test_bad_goal_input_is_one_line_and_no_run(tmp_path, args, expected):
    done = _cli(tmp_path, *args)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(expected), done.stderr
    assert not (tmp_path / "runs").exists()


def test_a_dry_run_names_the_goal_its_app_and_budget(tmp_path):
    done = _cli(tmp_path, "--goal", "Open Camera", "--app", "camera", "--dry_run")
    assert done.returncode == 0, done.stderr
    assert "tasks:    FreeGoal: 'Open Camera' in Camera, 30 steps, unscored" in done.stdout
    assert "episodes: 1 (1 tasks x 1" in done.stdout and not (tmp_path / "runs").exists()


def test_a_goal_run_resumes_as_the_same_goal_not_the_task_suite(tmp_path):
    run_dir = tmp_path / "runs" / "goal_run"
    args = ["--checkpoint_dir", str(run_dir), "--set", "env.render=false"]
    first = _cli(tmp_path, "--goal", "Open the alarms", "--app", "clock", "--max_steps", "3",
                 "--new", *args)  # fmt: skip
    assert first.returncode == 0, first.stderr[-2000:]
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["free_goal"] == {"goal": "Open the alarms", "app": "clock", "max_steps": 3}

    again = _cli(tmp_path, "--dry_run", *args)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "tasks:    FreeGoal: 'Open the alarms' in Clock, 3 steps, unscored" in again.stdout

    other = _cli(tmp_path, "--goal", "Turn on Wi-Fi", *args)
    assert other.returncode == 2
    assert "ran --goal 'Open the alarms'; resume it without --goal" in other.stderr
