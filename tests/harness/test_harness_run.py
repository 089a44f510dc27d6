"""The real CLI, in subprocesses: one-line errors, the run directory, and resume after SIGKILL.

A driver script swaps in the fake device and tasks of harness_fakes.py (through run.py's
`make_env` and `task_registry` seams) and then runs the ordinary command line.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTS = Path(__file__).resolve().parents[1]

DRIVER = """
import sys
import harness_fakes as fakes
from android_world.harness import run
run.task_registry = lambda family: dict(fakes.TASKS)
run.make_env = lambda cfg: fakes.FakeEnv()
run.run_cli(sys.argv)
"""


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    # The driver scripts import the fakes in tests/ (pytest's pythonpath does not reach a child).
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(TESTS), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def _cli(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "android_world.harness.run", *args],
        cwd=ROOT,
        env=_env(**env),
        capture_output=True,
        text=True,
        timeout=60,
    )


def _driver_cmd(tmp_path: Path, *args: str) -> list[str]:
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    return [sys.executable, str(script), "--config", str(ROOT / "config" / "default.yaml"), *args]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--agent", "nope"], "Unknown agent 'nope'."),
        (["--tasks", "NoSuchTask"], "Unknown task 'NoSuchTask'"),
        (["--set", "agent.bogus=1"], "--set agent.bogus=1: agent.bogus: unknown key"),
        (["--config", "no/such/config.yaml"], "config file not found: no/such/config.yaml"),
        (
            ["--env", "adb", "--set", "env.adb.adb_path=/no/such/adb"],
            "--env adb: adb not found at /no/such/adb",
        ),
        (["--set", "env.adb.serail=x"], "env.adb.serail: unknown key; did you mean 'serial'?"),
        (["--models", "gpt"], "flag --models=gpt: value should be one of <auto|offline>"),
        (["--no_such_flag"], "Unknown command line flag 'no_such_flag'"),
        (["--env", "ADB"], "--env: env.type: Input should be 'sim' or 'adb' (got 'ADB')"),
        (
            ["--checkpoint_dir", "runs/run_2025_no_such_run"],
            "--checkpoint_dir runs/run_2025_no_such_run: no such run directory "
            "(to start a new run there, add --new)",
        ),
        (
            ["--durations_from", "runs/run_2025_no_such_run"],
            "benchmark.durations_from runs/run_2025_no_such_run: no such run directory",
        ),
    ],
)
def test_bad_input_is_one_line_on_stderr_exit_2(args, expected):
    result = _cli(*args)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_unknown_task_via_driver_has_did_you_mean(tmp_path):
    result = subprocess.run(
        _driver_cmd(tmp_path, "--tasks", "FakeWifOn"),
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.strip() == "error: Unknown task 'FakeWifOn'; did you mean 'FakeWifiOn'?"


def test_full_run_writes_the_run_directory(tmp_path):
    secret = "sk-very-secret-value-123"
    result = subprocess.run(
        _driver_cmd(
            tmp_path,
            "--agent",
            "oracle_agent",
            "--n_task_combinations",
            "2",
            "--output_path",
            str(tmp_path / "runs"),
            "--set",
            "models.maestro.base_url=http://user:pw-hidden@host/v1",
        ),
        cwd=ROOT,
        env=_env(GOOGLE_API_KEY=secret),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    [run_dir] = (tmp_path / "runs").iterdir()
    assert f"Run directory: {run_dir}" in result.stdout
    assert "NOT AndroidWorld scores" in result.stdout and "macro average" in result.stdout

    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert [r["name"] for r in rows] == [
        "FakeAnswer_0",
        "FakeAnswer_1",
        "FakeWifiOn_0",
        "FakeWifiOn_1",
    ]
    assert all(r["score"] == 1.0 and r["done"] and r["error"] is None for r in rows)
    assert {"goal", "task", "instance", "steps", "runtime", "calls", "tokens"} <= set(rows[0])

    with open(run_dir / "summary.csv") as f:
        table = list(csv.DictReader(f))
    assert [r["task_template"] for r in table][-1].startswith("=========")
    assert float(table[-1]["mean_success_rate"]) == 1.0

    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["agent"]["registry_name"] == "oracle_agent"
    assert manifest["seeds"]["task_random_seed"] == 30 and manifest["finished_at"]
    assert manifest["packages"]["pydantic"] and manifest["python"]

    episode = run_dir / "episodes" / "FakeWifiOn_0"
    data = json.loads((episode / "episode.json").read_text())
    assert [s["screenshot"] for s in data["steps"]] == ["step_000.png", "step_001.png"]
    assert (episode / "step_000.png").read_bytes()[:4] == b"\x89PNG"
    summary = json.loads((episode / "summary.json").read_text())
    assert summary["result"]["score"] == 1.0
    assert (episode / "feedback.jsonl").exists()
    assert "FakeWifiOn_0" in (run_dir / "report.html").read_text()

    config_text = (run_dir / "config.yaml").read_text()
    assert "pw-hidden" not in config_text and "oracle_agent" in config_text
    for path in run_dir.rglob("*"):
        if path.name.endswith(".pkl.gz"):  # upstream's checkpoint format: gzip'd pickles
            assert secret.encode() not in gzip.decompress(path.read_bytes()), path
        elif path.is_file() and path.suffix != ".png":
            assert secret not in path.read_text(), path


@pytest.mark.slow
def test_sigkill_then_resume_runs_each_episode_exactly_once(tmp_path):
    run_dir = tmp_path / "run_resume"
    init_log = tmp_path / "inits.log"
    env = _env(FAKE_STEP_SLEEP="0.15", FAKE_INIT_LOG=str(init_log))
    cmd = _driver_cmd(
        tmp_path,
        "--agent",
        "oracle_agent",
        "--n_task_combinations",
        "4",
        "--checkpoint_dir",
        str(run_dir),
        "--new",
    )
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    checkpoints = run_dir / "checkpoints"
    deadline = time.monotonic() + 45
    while time.monotonic() < deadline:
        if checkpoints.is_dir() and len(list(checkpoints.glob("*.json"))) >= 3:
            break
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    finished_before = {p.stem for p in checkpoints.glob("*.json")}
    assert 3 <= len(finished_before) < 8, "the run must be killed mid-way"

    resumed = subprocess.run(
        [*cmd[:2], "--checkpoint_dir", str(run_dir)],  # the run's own config.yaml is reused
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert resumed.returncode == 0, resumed.stderr

    names = [
        json.loads(line)["name"] for line in (run_dir / "results.jsonl").read_text().splitlines()
    ]
    expected = [f"{t}_{i}" for t in ("FakeAnswer", "FakeWifiOn") for i in range(4)]
    assert names == expected
    inits = init_log.read_text().splitlines()
    seeds = json.loads((run_dir / "manifest.json").read_text())["seeds"]["instances"]
    for name in finished_before:  # finished episodes were not run again
        task = name.rsplit("_", 1)[0]
        assert inits.count(f"{task} {seeds[name]}") == 1
    assert len(json.loads((run_dir / "manifest.json").read_text())["resumed_at"]) == 1
    assert sorted(p.name for p in (run_dir / "episodes").iterdir()) == sorted(expected)


def test_resume_with_a_damaged_manifest_starts_it_afresh(tmp_path):
    run_dir = tmp_path / "run_damaged"
    run_dir.mkdir()
    (run_dir / "manifest.json").write_text("[1, 2]\n")  # valid JSON, not an object
    result = subprocess.run(
        _driver_cmd(
            tmp_path,
            *("--agent", "oracle_agent", "--tasks", "FakeAnswer", "--n_task_combinations", "1"),
            *("--checkpoint_dir", str(run_dir)),
        ),
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["resumed_at"] == [] and manifest["finished_at"]


def test_a_config_with_only_models_runs_the_conductor_and_names_it(tmp_path):
    config = tmp_path / "models_only.yaml"
    config.write_text("models:\n  maestro:\n    backend: offline\n")
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    result = subprocess.run(
        [
            *(sys.executable, str(script), "--config", str(config), "--tasks", "FakeWifiOn"),
            *("--n_task_combinations", "1", "--models", "offline"),
            *("--output_path", str(tmp_path / "runs")),
        ],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "Agent: celil_agent" in result.stderr.splitlines()
    [run_dir] = (tmp_path / "runs").iterdir()
    assert f"Report: {run_dir / 'report.html'}" in result.stdout
    # Piped stderr: the episode line, no progress-bar frames.
    assert "episodes:" not in result.stderr and "\r" not in result.stderr
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["agent"]["registry_name"] == "celil_agent"


def test_model_sdk_info_logs_are_silenced_but_warnings_kept(tmp_path):
    script = tmp_path / "chatty.py"
    script.write_text(
        "import logging, sys\n"
        "from absl import app\n"
        "from android_world.harness import run\n"
        "def main(argv):\n"
        "    run.quiet_third_party_logs()\n"
        "    logging.getLogger('httpx').info('HTTP Request: POST http://127.0.0.1/v1 200')\n"
        "    logging.getLogger('httpx2').info('HTTP Request: POST http://127.0.0.1/v2 500')\n"
        "    logging.getLogger('google_genai.models').info('AFC is enabled with max calls: 10.')\n"
        "    logging.getLogger('httpx').warning('a real problem')\n"
        "app.run(main)\n"
    )
    result = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, env=_env(), capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "HTTP Request" not in result.stderr and "AFC is enabled" not in result.stderr
    assert "a real problem" in result.stderr


PAUSE_DRIVER = """
import sys
import harness_fakes as fakes
from android_world.harness import run
from android_world.agents import base_agent, registry


class PauseProbe(base_agent.EnvironmentInteractingAgent):
    def step(self, goal):
        return base_agent.AgentInteractionResult(True, {"pause": self.transition_pause})


registry.register("pause_probe", lambda env, context=None, **kw: PauseProbe(env, "pause_probe", 1.0))
run.task_registry = lambda family: dict(fakes.TASKS)
run.make_env = lambda cfg: fakes.FakeEnv()
run.run_cli(sys.argv)
"""


@pytest.mark.parametrize(
    ("sets", "expected"), [((), 1.0), (("benchmark.transition_pause=0.25",), 0.25)]
)
def test_the_agents_own_transition_pause_is_kept_unless_the_run_sets_one(tmp_path, sets, expected):
    script = tmp_path / "pause_driver.py"
    script.write_text(PAUSE_DRIVER)
    args = [sys.executable, str(script), "--config", str(ROOT / "config" / "default.yaml")]
    args += ["--agent", "pause_probe", "--tasks", "FakeWifiOn", "--n_task_combinations", "1"]
    args += ["--output_path", str(tmp_path / "runs")]
    for item in sets:
        args += ["--set", item]
    done = subprocess.run(args, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    [run_dir] = (tmp_path / "runs").iterdir()
    episode = json.loads((run_dir / "episodes" / "FakeWifiOn_0" / "episode.json").read_text())
    assert episode["steps"][0]["data"]["pause"] == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["--suite_family", "android_world"],
            "'android_world' is upstream AndroidWorld's task family",
        ),
        (["--agent", "oracle_agent", "--agent_name", "random_agent"], "disagree"),
        (
            ["--env", "adb", "--set", "env.adb.adb_path=/no/such/adb", "--perform_emulator_setup"],
            "--perform_emulator_setup: this harness installs no apps",
        ),
    ],
)
def test_upstream_flags_give_one_clear_line(args, expected):
    result = _cli(*args)
    assert result.returncode == 2 and expected in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_upstream_flag_aliases_reach_the_config():
    result = _cli(
        "--agent_name", "oracle_agent", "--fixed_task_seed", "--adb_path", "/x/adb", "--dry_run"
    )
    assert result.returncode == 0, result.stderr
    assert "agent:    oracle_agent" in result.stdout
