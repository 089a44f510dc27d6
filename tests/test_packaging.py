"""Packaging: `pip install -e .` gives the tested versions, the data files and working scripts."""

from __future__ import annotations

import fnmatch
import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import android_world

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
TEST_TOOLS = {"pytest", "hypothesis", "ruff"}


def _requirement_pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[name.strip().lower()] = version.strip()
    return pins


def _pins(specs: list[str]) -> dict[str, str]:
    return {
        name.strip().lower(): version.strip()
        for name, _, version in (spec.partition("==") for spec in specs)
    }


def test_pyproject_dependencies_are_the_runtime_pins_of_requirements_txt():
    pins = _requirement_pins()
    runtime = {name: v for name, v in pins.items() if name not in TEST_TOOLS}
    assert _pins(PYPROJECT["project"]["dependencies"]) == runtime
    tools = {name: v for name, v in pins.items() if name in TEST_TOOLS}
    assert _pins(PYPROJECT["project"]["optional-dependencies"]["test"]) == tools


def test_every_data_file_of_the_package_is_declared_as_package_data():
    declared = PYPROJECT["tool"]["setuptools"]["package-data"]
    missing = []
    for path in (ROOT / "android_world").rglob("*"):
        if not path.is_file() or path.suffix in {".py", ".pyc"} or "__pycache__" in path.parts:
            continue
        rel_parts = path.relative_to(ROOT).parts
        covered = False
        for package, globs in declared.items():
            pkg_parts = tuple(package.split("."))
            if rel_parts[: len(pkg_parts)] != pkg_parts:
                continue
            inner = "/".join(rel_parts[len(pkg_parts) :])
            covered = covered or any(fnmatch.fnmatch(inner, g) for g in globs)
        if not covered:
            missing.append(str(path.relative_to(ROOT)))
    assert missing == []


@pytest.mark.parametrize("name", ["celil-run", "celil-memory", "celil-report"])
def test_console_scripts_point_at_callables(name):
    module, _, attr = PYPROJECT["project"]["scripts"][name].partition(":")
    assert callable(getattr(importlib.import_module(module), attr))


@pytest.mark.parametrize(
    "module", ["android_world.run", "android_world.report", "android_world.memory_review"]
)
def test_version_flag_prints_the_package_version(module):
    out = subprocess.run(
        [sys.executable, "-m", module, "--version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"celil {android_world.__version__}"


def test_default_config_is_found_from_another_directory(tmp_path):
    code = "from android_world import config; print(config.DEFAULT_CONFIG_PATH.is_file())"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.strip() == "True", out.stderr
