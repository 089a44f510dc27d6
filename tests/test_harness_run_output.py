"""The run writer: screenshots of the acted-on state, feedback events, per-episode files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from android_world import checkpointer, run_output, suite_utils

sys.path.insert(0, str(Path(__file__).parent))
import test_harness_fakes as fakes

ROOT = Path(__file__).resolve().parent.parent


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
