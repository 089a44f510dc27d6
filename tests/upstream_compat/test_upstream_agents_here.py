"""Agents written in upstream AndroidWorld's style run unmodified in this harness.

The agent (tests/fixtures/upstream_style_agent.py, our own code) imports only upstream's module
names: `env.adb_utils` and `env.actuation` on `env.controller`, and an `infer.LlmWrapper` passed as
`llm`. It runs through `--agent_module` on the simulated phone and through the fake adb device,
with its model on a fake OpenAI-compatible server.

Upstream's own T3A, M3A and SeeAct run too, loaded from an upstream checkout at test time (never
committed here; their helper modules come from beside them), with an oracle model
(tests/upstream/agents_here.py): each must score 1.0 on SystemWifiTurnOn and ContactsAddContact.
They need the checkout and a Python with this harness's packages plus the agents' imports
(tests/upstream/fetch_upstream.sh builds .cache/upstream/agents-venv; CELIL_UPSTREAM_AGENTS_PYTHON
points elsewhere); without them those tests are skipped, saying why.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import models_fakes as fakes
import numpy as np
import pytest
import upstream_support
from models_fakes import openai_ok
from support.fake_adb import FakeAdbServer, FakeDevice
from support.fake_adb.sim_phone import SimPhone

from android_world.agents import infer, infer_clients
from android_world.env import adb_utils, interface, representation_utils
from android_world.env.sim.sim_env import SimEnv
from android_world.harness import episode_runner

ROOT = Path(__file__).resolve().parents[2]
AGENT = f"{ROOT / 'tests' / 'fixtures' / 'upstream_style_agent.py'}:ElementPickerAgent"
server = fakes.fake_server


def picker(request):
    """Taps the element named in the goal ("Open the X app."), then says complete."""
    prompt = request["body"]["messages"][-1]["content"]
    if isinstance(prompt, list):
        prompt = " ".join(p.get("text", "") for p in prompt)
    app = re.search(r"Goal: Open the (.+?) app", prompt, re.IGNORECASE).group(1)
    listed = re.search(rf"^(\d+): {re.escape(app)}$", prompt, re.MULTILINE | re.IGNORECASE)
    if listed and picker.calls.get(app, 0) == 0:
        picker.calls[app] = 1
        return openai_ok(json.dumps({"action_type": "click", "index": int(listed.group(1))}))
    return openai_ok('{"action_type": "status", "goal_status": "complete"}')


picker.calls = {}


def _run(url: str, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(PYTHONPATH=str(ROOT), OLLAMA_HOST="http://127.0.0.1:9")
    args = [sys.executable, "-m", "android_world.harness.run", "--agent_module", AGENT]
    args += ["--tasks", "OpenAppTaskEval", "--output_path", str(tmp_path / "runs")]
    sets = [
        f"models.openai_base_url={url}/v1",
        "models.maestro.backend=openai",
        "models.maestro.openai_model=m",
        "models.maestro.max_retries=0",
    ]
    for item in sets:
        args += ["--set", item]
    return subprocess.run(
        [*args, *extra], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def _result(tmp_path: Path) -> dict:
    [run_dir] = (tmp_path / "runs").iterdir()
    [row] = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    episode = json.loads((run_dir / "episodes" / row["name"] / "episode.json").read_text())
    return {"row": row, "steps": episode["steps"]}


def test_an_upstream_style_agent_runs_on_the_sim(server, tmp_path):
    picker.calls.clear()
    server.route("POST", "/chat/completions", picker)
    done = _run(server.url, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    result = _result(tmp_path)
    assert result["row"]["agent"] == "picker" and result["row"]["score"] == 1.0
    first = result["steps"][0]["data"]
    assert first["orientation"] == 0 and first["frame"] == [0, 0, 1080, 2400]


def test_an_upstream_style_agent_runs_through_the_fake_adb_device(server, tmp_path):
    picker.calls.clear()
    server.route("POST", "/chat/completions", picker)
    fake = FakeDevice(SimPhone(SimEnv(seed=0, render=False)))
    with FakeAdbServer(fake.handle) as adb:
        done = _run(
            server.url, tmp_path, "--env", "adb", "--set", f"env.adb.adb_path={adb.adb_path}"
        )
    assert done.returncode == 0, done.stderr[-2000:]
    assert _result(tmp_path)["row"]["score"] == 1.0


def test_an_agent_that_needs_a_model_without_one_is_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(PYTHONPATH=str(ROOT), OLLAMA_HOST="http://127.0.0.1:9")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "android_world.harness.run",
            "--agent_module",
            AGENT,
            "--models",
            "offline",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "needs a model" in done.stderr, done.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "android_world.harness.run", "--agent_module", "nope.py:X"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "no such file nope.py" in bad.stderr


def test_upstream_wrapper_names_send_through_our_backends(server, monkeypatch):
    infer_clients.plug()
    server.route("POST", "/chat/completions", [openai_ok("hello")])
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
    wrapper = infer.Gpt4Wrapper("gpt-4o", max_retry=0)
    assert wrapper.predict("hi")[0] == "hello"
    image = np.zeros((8, 8, 3), dtype=np.uint8)
    assert wrapper.predict_mm("look", [image])[0] == "hello"
    body = server.calls("/chat/completions")[-1]["body"]
    assert body["model"] == "gpt-4o" and body["max_tokens"] == 1000
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(RuntimeError, match="OpenAI API key not set"):
        infer.Gpt4Wrapper("gpt-4o")
    monkeypatch.delenv("GCP_API_KEY", raising=False)
    with pytest.raises(RuntimeError, match="GCP API key not set"):
        infer.GeminiGcpWrapper("gemini-2.5-flash")


def test_upstream_names_exist_with_upstream_meaning():
    env = SimEnv(seed=0, render=False)
    try:
        state = env.get_state()
        rebuilt = interface.State.create_and_infer_elements(
            state.pixels, state.forest, (1080, 2400)
        )
        assert [e.text for e in rebuilt.ui_elements] == [
            e.text for e in state.ui_elements if e.is_visible is not False
        ]
        assert representation_utils.forest_to_ui_elements(state.forest)
        assert adb_utils.get_logical_screen_size(env.controller) == (1080, 2400)
        assert interface.AsyncAndroidEnv is interface.AsyncEnv
        assert episode_runner.transpose_dol_to_lod(data={"a": [1, 2]}) == [{"a": 1}, {"a": 2}]
    finally:
        env.close()
    with pytest.raises(TypeError, match="neither an AsyncEnv nor the controller"):
        adb_utils.get_orientation(object())


AGENTS_SCRIPT = ROOT / "tests" / "upstream" / "agents_here.py"
AGENTS_IMPORTS = ("cv2", "matplotlib", "IPython", "requests")


def _agents_python() -> Path | None:
    given = os.environ.get("CELIL_UPSTREAM_AGENTS_PYTHON")
    path = Path(given) if given else upstream_support.CACHE / "agents-venv" / "bin" / "python"
    return path if path.is_file() else None


def _agents_setup() -> tuple[Path, Path]:
    checkout = upstream_support.checkout()
    if not (checkout / "android_world" / "agents" / "seeact.py").is_file():
        pytest.skip(f"no upstream AndroidWorld checkout at {checkout}: {upstream_support.HOW}")
    python = _agents_python()
    if python is None:
        pytest.skip(
            "no Python with the agents' imports (.cache/upstream/agents-venv): run "
            "tests/upstream/fetch_upstream.sh or set CELIL_UPSTREAM_AGENTS_PYTHON"
        )
    probe = subprocess.run(
        [str(python), "-c", "import " + ", ".join(AGENTS_IMPORTS) + ", android_world.harness.run"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["?"])[-1]
        pytest.skip(f"{python} cannot import what the agents need ({last})")
    return checkout, python


@pytest.mark.parametrize("agent", ["seeact", "t3a", "m3a"])
@pytest.mark.slow
def test_upstreams_own_agents_score_with_an_oracle_model(agent):
    checkout, python = _agents_setup()
    env = upstream_support.clean_env(PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    done = subprocess.run(
        [str(python), str(AGENTS_SCRIPT), "--checkout", str(checkout), "--agent", agent],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    results = seen["results"]
    assert set(results) == {"SystemWifiTurnOn", "ContactsAddContact"}, seen
    for task, result in results.items():
        assert result["score"] == 1.0 and result["error"] is None, (agent, task, result)
        # Every step the agent took was the oracle's action (no step of its own invention).
        assert result["steps"] == result["oracle_actions"], (agent, task, result)


def test_helper_modules_come_from_beside_the_agent(tmp_path):
    """An agent file importing a helper this harness lacks gets it from its own folder; the
    harness's own modules are never replaced."""
    from android_world.agents import module_loader

    (tmp_path / "zz_helper_for_test.py").write_text("VALUE = 7\n", encoding="utf-8")
    (tmp_path / "infer.py").write_text("raise RuntimeError('not ours')\n", encoding="utf-8")
    (tmp_path / "agent.py").write_text(
        "from android_world.agents import base_agent, infer, zz_helper_for_test\n"
        "class Agent(base_agent.EnvironmentInteractingAgent):\n"
        "    def step(self, goal):\n"
        "        return base_agent.AgentInteractionResult(True, {'v': zz_helper_for_test.VALUE})\n",
        encoding="utf-8",
    )
    cls = module_loader.load_class(f"{tmp_path / 'agent.py'}:Agent")
    import android_world.agents.zz_helper_for_test as helper

    assert helper.VALUE == 7 and cls.__name__ == "Agent"
    assert hasattr(infer, "Gpt4Wrapper")  # ours, not the file beside the agent
    (tmp_path / "broken.py").write_text(
        "from android_world.agents import zz_missing_dep_for_test\n", encoding="utf-8"
    )
    (tmp_path / "zz_missing_dep_for_test.py").write_text(
        "import a_module_that_does_not_exist\n", encoding="utf-8"
    )
    with pytest.raises(module_loader.AgentModuleError, match="zz_missing_dep_for_test"):
        module_loader.load_class(f"{tmp_path / 'broken.py'}:Agent")
