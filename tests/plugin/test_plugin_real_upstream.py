"""The plugin in a real upstream AndroidWorld checkout: installed by the installer, built by
upstream's run.py, then: one episode through upstream's episode_runner on upstream's own fake
env (`utils.test_utils.FakeAsyncEnv`, given a Wi-Fi screen), one through upstream's
suite_utils.run and checkpointer, and three steps on that fake env unmodified; the roles on a
fake server on 127.0.0.1 speaking the Gemini, OpenAI-compatible and Ollama APIs.

Needs a checkout and a Python with upstream's requirements; neither is fetched here (tests never
touch the network). `tests/upstream/fetch_upstream.sh` puts both into .cache/upstream/ when
GitHub is reachable (`CELIL_UPSTREAM=1 ./run_tests.sh` runs it first); CELIL_UPSTREAM_CHECKOUT
and CELIL_UPSTREAM_PYTHON point elsewhere. Without them the test is skipped, saying which.
The checkout is copied, never changed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "upstream"
EPISODE_SCRIPT = ROOT / "tests" / "upstream" / "episode_in_checkout.py"
PROTO_DIR = Path("android_world/task_evals/information_retrieval/proto")
HOW = "run tests/upstream/fetch_upstream.sh (needs GitHub) or set {}"


def _upstream() -> tuple[Path, Path]:
    checkout = Path(os.environ.get("CELIL_UPSTREAM_CHECKOUT") or CACHE / "android_world")
    python = Path(os.environ.get("CELIL_UPSTREAM_PYTHON") or CACHE / "venv" / "bin" / "python")
    if not (checkout / "run.py").is_file():
        pytest.skip(
            f"no upstream AndroidWorld checkout at {checkout}: "
            + HOW.format("CELIL_UPSTREAM_CHECKOUT")
        )
    if not python.is_file():
        pytest.skip(
            f"no Python with upstream's requirements at {python}: "
            + HOW.format("CELIL_UPSTREAM_PYTHON")
        )
    probe = subprocess.run(
        [str(python), "-c", "import android_env, dm_env, absl, yaml, pydantic, grpc_tools"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["?"])[-1]
        pytest.skip(f"{python} lacks upstream's or the plugin's requirements ({last})")
    return checkout, python


def _clean_env() -> dict[str, str]:
    drop = ("PYTHONPATH", "GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", "CELIL_CONFIG")
    return {k: v for k, v in os.environ.items() if k not in drop}


def _copy(checkout: Path, python: Path, destination: Path) -> Path:
    shutil.copytree(checkout, destination, ignore=shutil.ignore_patterns(".git", "__pycache__"))
    if not (destination / PROTO_DIR / "state_pb2.py").is_file():
        for name in ("state", "task"):
            subprocess.run(
                [str(python), "-m", "grpc_tools.protoc", "--proto_path=.", "--python_out=.",
                 str(PROTO_DIR / f"{name}.proto")],
                cwd=destination, check=True, capture_output=True, timeout=120,
            )  # fmt: skip
    return destination


def _installer(root: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "android_world.agents.custom.install", str(root), *flags],
        cwd=ROOT,
        env={**_clean_env(), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_celil_runs_an_episode_inside_real_upstream(tmp_path):
    checkout, python = _upstream()
    root = _copy(checkout, python, tmp_path / "android_world")
    original_run_py = (root / "run.py").read_bytes()
    installed = _installer(root)
    assert installed.returncode == 0, installed.stderr

    done = subprocess.run(
        [str(python), str(EPISODE_SCRIPT)],
        cwd=root,
        env={**_clean_env(), "PYTHONPATH": str(root)},  # upstream's android_world, from the copy
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode in (0, 1), done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["agent"] == "CelilAgent" and seen["agent_name"] == "celil_agent"
    # The UI-TARS coordinate click landed on the switch (the box test upstream lacks a method for).
    assert seen["wifi_on"], seen["actions"]
    assert seen["actions"][0]["action_type"] == "click"
    # Screenshots reached the model server as PNGs (the encoder upstream lacks): planner on
    # Gemini's API, executor on an OpenAI-compatible one. With the defaults (verifier_mode
    # adaptive) a tap on the control the goal names runs without a vote, so the verifiers
    # (Ollama's API) are not asked here; had they been, their request would carry the image.
    assert seen["png_images"] > 0
    assert {"gemini", "openai"} <= set(seen["png_apis"])
    assert {"planner", "executor"} <= set(seen["roles"])
    assert "verifier" not in seen["roles"] or "ollama" in seen["png_apis"]
    # Every proposal voted on (verifier_mode: parallel, built by the plugin's factory): the
    # verifiers' requests carry screenshots too, on each of the three APIs.
    voted = seen["voted"]
    assert voted["wifi_on"] and "verifier" in voted["roles"], voted
    assert voted["png_apis"] == ["gemini", "ollama", "openai"], voted
    # Upstream's runner (suite_utils.run with its checkpointer, as run.py's main uses it) scores
    # a Celil episode on a TaskEval-form task of the fake phone.
    runner = seen["upstream_runner"]
    assert runner["is_successful"] == 1.0 and runner["exception_info"] is None, runner
    assert runner["checkpoint_files"] >= 1
    # Upstream's own FakeAsyncEnv, unmodified (random 10x10 frames, no elements): three steps of
    # clicks far outside the screen, and nothing raises.
    assert seen["plain_fake_env"] == {"steps": 3, "done": False, "error": None}
    assert seen["done"] and seen["ok"], seen

    removed = _installer(root, "--uninstall")
    assert removed.returncode == 0, removed.stderr
    assert (root / "run.py").read_bytes() == original_run_py


def test_the_plugins_requirements_sit_beside_upstreams():
    _checkout, python = _upstream()
    if os.environ.get("CELIL_UPSTREAM_PYTHON"):
        pytest.skip("CELIL_UPSTREAM_PYTHON is an environment this suite did not build")
    # fetch_upstream.sh installed upstream's requirements.txt and the installer's
    # requirements-celil.txt in one pip call; pip finds no conflict between them.
    done = subprocess.run(
        [str(python), "-m", "pip", "check"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-2000:]
    assert "No broken requirements found" in done.stdout
