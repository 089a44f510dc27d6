"""The run writer: screenshots of the acted-on state, feedback events, per-episode files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import harness_fakes as fakes

from android_world.harness import checkpointer, run_output, suite_utils

ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path, save_screenshots=True):
    env = fakes.FakeEnv()
    recorder = run_output.RecordingEnv(env)
    agent = fakes.ScriptedAgent(recorder, done_after=2)
    writer = run_output.RunWriter(tmp_path, recorder, save_screenshots, clock=lambda: 123.0)
    suite = suite_utils.create_suite(fakes.TASKS, tasks=["FakeWifiOn"], seed=0)
    ckpt = checkpointer.IncrementalCheckpointer(tmp_path / "checkpoints")
    episodes = suite_utils.run(
        suite, agent, ckpt, observer=writer, checkpoint_episode_data=False, print_fn=lambda m: m
    )
    return env, episodes, tmp_path / "episodes" / "FakeWifiOn_0"


def test_episode_folder_contents(tmp_path):
    env, [episode], folder = _run(tmp_path)
    feedback = [json.loads(x) for x in (folder / "feedback.jsonl").read_text().splitlines()]
    assert feedback == [
        {"ts": 123.0, "step": 0, "type": "action_proposed", "goal": episode["goal"]},
        {"ts": 123.0, "step": 1, "type": "action_proposed", "goal": episode["goal"]},
    ]
    data = json.loads((folder / "episode.json").read_text())
    assert [s["data"] for s in data["steps"]] == [{"n": 1}, {"n": 2}]
    assert data["steps"][1]["done"] is True
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["agent"]["usage"]["model_calls"] == 4
    assert summary["result"]["calls"] == 4 and summary["result"]["tokens"] == 44
    # The first screenshot shows wifi off (the screen acted on), the second wifi on.
    from PIL import Image

    first = Image.open(folder / "step_000.png").getpixel((0, 0))
    second = Image.open(folder / "step_001.png").getpixel((0, 0))
    assert first == (0, 0, 0) and second == (255, 255, 255)
    # No extra renders: one get_state per step (the agent's) plus nothing from the writer.
    assert env.get_state_calls == 1 + 2  # reset + two steps
    assert (
        "episode_data"
        not in checkpointer.IncrementalCheckpointer(tmp_path / "checkpoints").load()[0]
    )


def test_screenshots_can_be_turned_off(tmp_path):
    _, _, folder = _run(tmp_path, save_screenshots=False)
    assert not list(folder.glob("*.png"))


def test_rerun_starts_from_an_empty_folder(tmp_path):
    folder = tmp_path / "episodes" / "FakeWifiOn_0"
    folder.mkdir(parents=True)
    (folder / "step_009.png").write_bytes(b"stale")
    _run(tmp_path)
    assert not (folder / "step_009.png").exists()


def test_recording_env_forwards_attributes():
    env = fakes.FakeEnv()
    recorder = run_output.RecordingEnv(env)
    recorder.interaction_cache = "x"
    assert env.interaction_cache == "x" and recorder.sleep == env.sleep
    recorder.clear(recording=True)
    state = recorder.get_state()
    recorder.get_state()
    assert recorder.captured is state


def test_results_and_summary_files(tmp_path):
    rows = [
        {
            "name": "A_0",
            "task_template": "A",
            "is_successful": 1.0,
            "episode_length": 2,
            "run_time": 1.5,
            "error": None,
            "exception_info": None,
        },
        {
            "name": "A_1",
            "task_template": "A",
            "is_successful": None,
            "episode_length": None,
            "run_time": 0.5,
            "error": "RuntimeError: x",
            "exception_info": "tb",
        },
    ]
    run_output.write_results_jsonl(tmp_path / "results.jsonl", rows)
    lines = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [x["score"] for x in lines] == [1.0, None] and lines[1]["error"] == "RuntimeError: x"
    summary = suite_utils.process_episodes(rows)
    run_output.write_summary_csv(tmp_path / "summary.csv", summary)
    text = (tmp_path / "summary.csv").read_text().splitlines()
    assert text[0].startswith("task_template,num_complete_trials,mean_success_rate")
    assert text[1] == "A,1,1.0,2.0,2.0,1" and text[2].startswith(suite_utils.AVERAGE_ROW)


def _check(tmp_path, requirements: str) -> int:
    (tmp_path / "requirements.txt").write_text(requirements)
    script = f"source {ROOT}/run_tests.sh; CELIL_ROOT={tmp_path}; PYTHON={sys.executable}; _check_requirements"
    return subprocess.run(["bash", "-c", script], capture_output=True, timeout=30).returncode


def test_requirement_check_of_the_scripts(tmp_path):
    import importlib.metadata

    have = importlib.metadata.version("pytest")
    assert _check(tmp_path, f"pytest=={have}  # comment\n\n") == 0
    assert _check(tmp_path, "pytest==0.0.1\n") == 1
    assert _check(tmp_path, "no-such-package-celil==1.0\npytest==0.0.1\n") == 3


class ReusingAgent(fakes.ScriptedAgent):
    """Acts like Celil: keeps its post-check observation and reuses it in the next step, so
    some steps fetch no state before acting; stamps events with its own 1-based step."""

    def __init__(self, env):
        super().__init__(env, done_after=None)
        self._cached = None

    def _emit(self, kind: str) -> None:
        if self.sink is not None:
            self.sink({"type": kind, "step": self._steps})

    def step(self, goal):
        self._steps += 1
        click = fakes.json_action.JSONAction(action_type="click", index=0)
        if self._steps == 1:  # observe, act, post-check (kept for the next step)
            self.env.get_state()
            self.env.execute_action(click)
            self._cached = self.env.get_state()
        elif self._steps == 2:  # reuse the kept observation; rejected, nothing done
            self._cached = None
        else:  # acts on the screen of the step before, then looks
            self.env.execute_action(click)
            self.env.get_state()
        self._emit("gate")
        return fakes.base_agent.AgentInteractionResult(self._steps == 3, {"n": self._steps})

    def episode_summary(self):
        return {
            "memory": {"hit": True, "entry_id": "m1"},
            "usage": {
                "model_calls": 6,
                "prompt_tokens": 50,
                "completion_tokens": 10,
                "model_seconds": 1.5,
                "cost_usd": 0.003,
            },
        }

    def episode_finished(self, goal, score):
        self._emit("memory_stored")


def test_every_step_has_the_screen_it_acted_on_even_when_reused(tmp_path):
    from PIL import Image

    env = fakes.FakeEnv()
    recorder = run_output.RecordingEnv(env)
    agent = ReusingAgent(recorder)
    writer = run_output.RunWriter(tmp_path, recorder, True, clock=lambda: 5.0)
    suite = suite_utils.create_suite(fakes.TASKS, tasks=["FakeWifiOn"], seed=0)
    [episode] = suite_utils.run(suite, agent, observer=writer, print_fn=lambda m: m)
    folder = tmp_path / "episodes" / "FakeWifiOn_0"
    pixels = [Image.open(folder / f"step_{i:03d}.png").getpixel((0, 0)) for i in range(3)]
    # wifi off when step 0 chose; steps 1 and 2 acted on step 0's post-check frame (wifi on),
    # not on step 2's own after-action frame (wifi off again).
    assert pixels == [(0, 0, 0), (255, 255, 255), (255, 255, 255)]
    assert env.get_state_calls == 1 + 2 + 1  # reset + the agent's own; the writer adds none
    data = json.loads((folder / "episode.json").read_text())
    assert [s["screenshot"] for s in data["steps"]] == [f"step_{i:03d}.png" for i in range(3)]

    feedback = [json.loads(x) for x in (folder / "feedback.jsonl").read_text().splitlines()]
    assert [(e["type"], e["step"], e.get("agent_step")) for e in feedback] == [
        ("gate", 0, 1),
        ("gate", 1, 2),
        ("gate", 2, 3),
        ("memory_stored", None, 3),  # after the steps: no runner step
    ]
    assert episode["memory_hit"] is True


def test_recorder_starts_each_episode_without_the_last_screen():
    env = fakes.FakeEnv()
    recorder = run_output.RecordingEnv(env)
    recorder.get_state()
    recorder.forget()
    recorder.clear(recording=True)
    assert recorder.acted_on() is None


def test_result_row_has_per_step_usage_and_memory_hit():
    row = run_output.result_row(
        {
            "name": "A_0",
            "episode_length": 4,
            "step_budget": 27,
            "memory_hit": False,
            "usage": {
                "model_calls": 10,
                "prompt_tokens": 300,
                "completion_tokens": 100,
                "model_seconds": 2.0,
                "cost_usd": 0.01,
            },
        }
    )
    assert row["calls"] == 10 and row["tokens"] == 400 and row["model_seconds"] == 2.0
    assert row["calls_per_step"] == 2.5 and row["tokens_per_step"] == 100.0
    assert row["model_seconds_per_step"] == 0.5 and row["cost_usd"] == 0.01
    assert row["memory_hit"] is False and row["step_budget"] == 27
    bare = run_output.result_row({"name": "B_0", "episode_length": 0})
    assert bare["calls_per_step"] is None and bare["memory_hit"] is None


def test_summary_table_has_usage_cost_and_memory_columns():
    def ep(task, hit, calls, steps, cost):
        usage = {
            "model_calls": calls,
            "prompt_tokens": 10 * calls,
            "completion_tokens": calls,
            "model_seconds": 0.5 * calls,
            "cost_usd": cost,
        }
        return {
            "task_template": task,
            "is_successful": 1.0,
            "episode_length": steps,
            "run_time": 1.0,
            "usage": usage,
            "memory_hit": hit,
        }

    rows = [ep("A", True, 4, 2, 0.25), ep("A", False, 2, 2, 0.25), ep("B", None, 3, 3, 0.5)]
    summary = suite_utils.process_episodes(rows)
    assert summary.columns[-6:] == [
        "model_calls_per_step",
        "tokens_per_step",
        "model_seconds_per_step",
        "cost_usd",
        "model_errors",
        "memory_hits",
    ]
    a, b = summary.rows
    assert a["model_calls_per_step"] == 1.5 and a["tokens_per_step"] == 16.5
    assert a["model_seconds_per_step"] == 0.75 and a["cost_usd"] == 0.5 and a["memory_hits"] == 1
    assert b["memory_hits"] == 0
    assert summary.average["cost_usd"] == 1.0 and summary.average["memory_hits"] == 1
    assert summary.average["model_calls_per_step"] == 1.25  # macro mean of 1.5 and 1.0
    text = suite_utils.format_summary(summary, wide=True)
    assert "model_s/step" in text and "cost_usd" in text and "mem_hits" in text
    compact = suite_utils.format_summary(summary)
    assert "cost$" in compact and "mem" in compact and "model_s/step" not in compact


def _ensure_chromium(tmp_path, with_apt: bool) -> tuple[str, str]:
    """Run run_tests.sh's `_ensure_chromium` as root with a PATH holding nothing but a logging
    `apt-get` (when `with_apt`), so nothing real is installed."""
    import shutil

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "apt.log"
    if with_apt:
        apt = bin_dir / "apt-get"
        apt.write_text(f'#!/bin/bash\necho "$*" >> {log}\n')
        apt.chmod(0o755)
    bash = shutil.which("bash")
    script = f"source {ROOT}/run_tests.sh; PATH={bin_dir}; id() {{ echo 0; }}; _ensure_chromium"
    done = subprocess.run([bash, "-c", script], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stderr, log.read_text() if log.exists() else ""


def test_run_tests_installs_chromium_with_apt_when_it_can(tmp_path):
    stderr, apt_calls = _ensure_chromium(tmp_path, with_apt=True)
    assert apt_calls.splitlines() == ["update -qq", "install -y -qq chromium"]
    assert "installing chromium" in stderr


def test_run_tests_says_why_when_it_cannot_install_chromium(tmp_path):
    stderr, apt_calls = _ensure_chromium(tmp_path, with_apt=False)
    assert apt_calls == ""
    assert "browser test will be skipped (install: sudo apt-get install -y chromium)" in stderr


def test_kept_result_lines_give_the_same_file_and_a_rerun_gets_its_own_line(tmp_path, monkeypatch):
    first = {"name": "A_0", "task_template": "A", "is_successful": 0.0, "error": None}
    second = {"name": "B_0", "task_template": "B", "is_successful": 1.0, "error": None}
    built = []
    real = run_output.result_line
    monkeypatch.setattr(
        run_output, "result_line", lambda ep: (built.append(ep["name"]), real(ep))[1]
    )
    lines = run_output.ResultLines()
    kept, fresh = tmp_path / "kept.jsonl", tmp_path / "fresh.jsonl"
    run_output.write_results_jsonl(kept, [first], lines)
    run_output.write_results_jsonl(kept, [first, second], lines)
    assert built == ["A_0", "B_0"]  # A_0's line was built once for the two rewrites
    rerun = dict(first, is_successful=1.0)  # a rerun of A_0: a new episode object
    run_output.write_results_jsonl(kept, [rerun, second], lines)
    assert built[-1] == "A_0"
    run_output.write_results_jsonl(fresh, [rerun, second])
    assert kept.read_bytes() == fresh.read_bytes()
    assert json.loads(kept.read_text().splitlines()[0])["score"] == 1.0
