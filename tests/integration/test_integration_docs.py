"""docs/ stays a complete reference: every config key, flag and sim task is documented.

The config schemas and the task registry are the truth; a key or task added without a docs line
fails here instead of going unnoticed (docs/CONFIG.md and docs/TASKS.md are generated from them,
tests/project/test_docs_generated.py keeps them current; docs/RUNNING.md lists the flags by hand).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from android_world.agents.celil_factory import CelilAgentConfig
from android_world.harness import config as config_lib
from android_world.harness.model_config import ModelsConfig, RoleModelConfig
from android_world.task_evals import registry

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
CONFIG_DOC = (DOCS / "CONFIG.md").read_text(encoding="utf-8")
TASKS_DOC = (DOCS / "TASKS.md").read_text(encoding="utf-8")
RUNNING_DOC = (DOCS / "RUNNING.md").read_text(encoding="utf-8")
CONTRACTS = (ROOT / "docs" / "CONTRACTS.md").read_text(encoding="utf-8")


def _table_keys(text: str) -> set[str]:
    """The first cell of every table row of `text`, without backticks."""
    keys = set()
    for line in text.splitlines():
        match = re.match(r"\|\s*`([^`]+)`", line)
        if match:
            keys.add(match.group(1))
    return keys


KEYS = _table_keys(CONFIG_DOC)
TASK_ROWS = _table_keys(TASKS_DOC)


@pytest.mark.parametrize(
    ("prefix", "model"),
    [
        ("env.", config_lib.EnvConfig),
        ("env.adb.", config_lib.AdbSection),
        ("env.adb.emulator.", config_lib.EmulatorSection),
        ("benchmark.", config_lib.BenchmarkConfig),
        ("models.", ModelsConfig),
        ("", RoleModelConfig),
        ("", CelilAgentConfig),
    ],
    ids=lambda v: v if isinstance(v, str) else v.__name__,
)
def test_every_config_key_has_a_docs_row(prefix, model):
    sections = {"adb", "emulator"}
    missing = []
    for name in model.model_fields:
        if name in sections:
            continue
        key = f"{prefix}{name}"
        if key not in KEYS and not any(k.startswith(key + ".") for k in KEYS):
            missing.append(key)
    assert not missing, f"docs/CONFIG.md lacks: {missing}"


def test_every_sim_task_is_listed():
    tasks = registry.TaskRegistry().get_registry("sim")
    missing = [name for name in tasks if name not in TASK_ROWS]
    assert not missing, f"docs/TASKS.md lacks: {missing}"


def test_every_run_flag_is_documented():
    from android_world.harness import run

    names = [flag.name for flag in run.FLAGS.get_flags_for_module(run)]
    assert "check_models" in names
    missing = [name for name in names if f"`--{name}" not in RUNNING_DOC]
    assert not missing, f"docs/RUNNING.md lacks flags: {missing}"


def test_contracts_name_the_new_seams():
    for phrase in (
        "run_manifest()",
        "checkpoints/",
        "agent_step",
        "read-only",
        "predict_json",
        "RoleSettings",
        "memory_hit",
        "uiautomator",
    ):
        assert phrase in CONTRACTS, phrase
