"""The installer (`python -m android_world.agents.custom.install`) on a synthetic directory shaped
like an upstream AndroidWorld checkout: a run.py choosing agents with if/elif on --agent_name, and
a requirements.txt with upstream's pins. Written here from those facts; no upstream code."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from android_world.agents.custom import install

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "android_world" / "agents" / "custom"

SYNTHETIC_RUN_PY = textwrap.dedent(
    """\
    # A stand-in for upstream's run.py: same flag name, same selection shape.
    import os

    from absl import flags

    _AGENT_NAME = flags.DEFINE_string('agent_name', 'm3a_gpt4v', help='Agent name.')
    _TASKS = flags.DEFINE_list('tasks', None, 'Tasks to run.')


    def _get_agent(env, family=None):
      print('Initializing agent...')
      agent = None
      if _AGENT_NAME.value == 'human_agent':
        agent = 'human'
      elif _AGENT_NAME.value == 'random_agent':
        agent = 'random'

      if not agent:
        raise ValueError(f'Unknown agent: {_AGENT_NAME.value}')
      agent.name = _AGENT_NAME.value
      return agent
    """
)
# Pins as upstream's requirements.txt has them (facts: names and versions).
UPSTREAM_PINS = "absl-py==2.1.0\nnumpy==1.26.3\nprotobuf==5.29.5\nrequests\nopencv-python\n"


def _checkout(root: Path, run_py: str = SYNTHETIC_RUN_PY, pins: str = UPSTREAM_PINS) -> Path:
    agents = root / "android_world" / "agents"
    agents.mkdir(parents=True)
    (agents / "base_agent.py").write_text("# upstream's base agent lives here\n")
    (root / "run.py").write_text(run_py)
    (root / "requirements.txt").write_text(pins)
    return root


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_install_is_idempotent_and_uninstall_restores_run_py(tmp_path):
    root = _checkout(tmp_path / "aw")
    done = _run("-m", "android_world.agents.custom.install", str(root))
    assert done.returncode == 0, done.stderr
    patched = (root / "run.py").read_text()
    tree = ast.parse(patched)
    assert "elif _AGENT_NAME.value == 'celil_agent':" in patched
    assert "create_agent_or_exit(env, _CELIL_CONFIG.value or None)" in patched
    assert any(
        isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "_CELIL_CONFIG"
        for n in tree.body
    )
    target = root / "android_world" / "agents" / "custom"
    assert _files(target) == _files(PLUGIN)
    extra = (root / "requirements-celil.txt").read_text()

    again = _run("-m", "android_world.agents.custom.install", str(root))
    assert again.returncode == 0, again.stderr
    assert (root / "run.py").read_text() == patched
    assert (root / "requirements-celil.txt").read_text() == extra

    removed = _run("-m", "android_world.agents.custom.install", str(root), "--uninstall")
    assert removed.returncode == 0, removed.stderr
    assert (root / "run.py").read_text() == SYNTHETIC_RUN_PY
    assert not target.exists() and not (root / "requirements-celil.txt").exists()


def test_the_branch_follows_the_chains_indentation():
    four = SYNTHETIC_RUN_PY.replace("\n  ", "\n    ").replace("\n      ", "\n        ")
    patched = install.patch_run_py(four)
    assert "\n    elif _AGENT_NAME.value == 'celil_agent':\n        from " in patched
    assert install._unpatch(patched) == four  # what --uninstall writes back
    compile(patched, "run.py", "exec")


def test_the_copied_installer_runs_from_inside_the_checkout(tmp_path):
    root = _checkout(tmp_path / "aw")
    assert _run("-m", "android_world.agents.custom.install", str(root)).returncode == 0
    patched = (root / "run.py").read_text()
    # From the copy, as a plain script with no package importable: same result.
    done = subprocess.run(
        [sys.executable, "android_world/agents/custom/install.py", "."],
        cwd=root,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert (root / "run.py").read_text() == patched
    assert (root / "android_world" / "agents" / "custom" / "factory.py").is_file()


def test_requirements_leave_upstreams_pins_to_upstream():
    text = install.requirements_text(install.upstream_pins(UPSTREAM_PINS))
    lines = [line.split("#")[0].strip() for line in text.splitlines()]
    active = [line for line in lines if line]
    assert "pydantic>=2.7,<3" in active and "PyYAML>=6.0,<7" in active
    assert not any(line.startswith(("numpy", "absl-py")) for line in active)
    assert "numpy==1.26.3" in text  # named as upstream's, in a comment
    assert "# pytesseract>=0.3.10" in text  # optional


def test_a_pin_the_plugin_cannot_use_stops_the_install_and_changes_nothing(tmp_path):
    root = _checkout(tmp_path / "aw", pins="numpy==1.20.0\npydantic==1.10.2\n")
    done = _run("-m", "android_world.agents.custom.install", str(root))
    assert done.returncode == 2
    assert done.stderr.strip().startswith("celil install: upstream pins ")
    assert len(done.stderr.strip().splitlines()) == 1
    assert (root / "run.py").read_text() == SYNTHETIC_RUN_PY
    assert not (root / "android_world" / "agents" / "custom").exists()


@pytest.mark.parametrize(
    ("run_py", "message"),
    [
        ("import os\n\ndef _get_agent(env):\n  return None\n", "defines no _AGENT_NAME flag"),
        (
            "import os\n_AGENT_NAME = 1\n\ndef _get_agent(env):\n  agent = AGENTS[_AGENT_NAME]\n"
            "  return agent\n",
            "has no if/elif agent chain",
        ),
        ("def broken(:\n", "does not parse"),
    ],
)
def test_an_unfamiliar_run_py_is_left_alone_with_one_line(tmp_path, run_py, message):
    root = _checkout(tmp_path / "aw", run_py=run_py)
    done = _run("-m", "android_world.agents.custom.install", str(root))
    assert done.returncode == 2 and message in done.stderr
    assert (root / "run.py").read_text() == run_py


def test_not_a_checkout_and_a_foreign_custom_folder_are_refused(tmp_path):
    done = _run("-m", "android_world.agents.custom.install", str(tmp_path))
    assert done.returncode == 2 and "is not an AndroidWorld checkout" in done.stderr
    root = _checkout(tmp_path / "aw")
    mine = root / "android_world" / "agents" / "custom"
    mine.mkdir()
    (mine / "my_agent.py").write_text("# someone else's\n")
    done = _run("-m", "android_world.agents.custom.install", str(root))
    assert done.returncode == 2 and "is not the Celil plugin" in done.stderr
    assert (mine / "my_agent.py").is_file() and (root / "run.py").read_text() == SYNTHETIC_RUN_PY


SELECT_AND_STEP = textwrap.dedent(
    """\
    import importlib.util, json, sys
    from absl import flags
    from android_world.env.sim import sim_env
    spec = importlib.util.spec_from_file_location('upstream_run', sys.argv[1])
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    flags.FLAGS(['run.py', '--agent_name=celil_agent', '--celil_config=' + sys.argv[2]])
    env = sim_env.SimEnv(seed=0, render=False)
    agent = run._get_agent(env)
    result = agent.step('Open the Settings app')
    print(json.dumps({'type': type(agent).__name__, 'name': agent.name,
                      'action': result.data.get('action')}))
    """
)


def test_the_patched_run_py_builds_celil_from_the_yaml_flag(tmp_path):
    pytest.importorskip("android_world.env.sim.sim_env", reason="no simulated phone")
    root = _checkout(tmp_path / "aw")
    assert _run("-m", "android_world.agents.custom.install", str(root)).returncode == 0
    config = tmp_path / "celil.yaml"
    config.write_text(
        "models: {maestro: {backend: offline}, section_leader: {backend: offline}, "
        "verifiers: {backend: offline}}\n"
        "celil_agent: {ocr: 'off', memory: 'off', transition_pause: 0}\n"
    )
    script = tmp_path / "choose_agent.py"
    script.write_text(SELECT_AND_STEP)
    done = _run(str(script), str(root / "run.py"), str(config), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["type"] == "CelilAgent" and seen["name"] == "celil_agent"
    assert seen["action"], "the first step chose no action"

    bad = tmp_path / "bad.yaml"
    bad.write_text("celil_agent: {threshold: 12}\n")
    done = _run(str(script), str(root / "run.py"), str(bad), cwd=tmp_path)
    assert done.returncode == 1
    assert (
        done.stderr.strip()
        .splitlines()[-1]
        .startswith("celil_agent: celil_agent.threshold: Input should be less than or equal to 10")
    )
