"""Packaging: `pip install .` (or -e) gives the tested versions, the data files and working
scripts from any directory, and Celil warns when it shares its import name with upstream's."""

from __future__ import annotations

import fnmatch
import importlib
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import android_world

ROOT = Path(__file__).resolve().parents[2]
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
    "module",
    [
        "android_world.harness.run",
        "android_world.reporting.report",
        "android_world.harness.memory_review",
    ],
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
    code = "from android_world.harness import config; print(config.DEFAULT_CONFIG_PATH.is_file())"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.strip() == "True", out.stderr


# --------------------------------------------------------------------------------------------
# `pip install .` (not -e): a wheel that carries its runtime data and runs from any directory

SOURCE_FILES = (
    "pyproject.toml",
    "setup.py",
    "MANIFEST.in",
    "README.md",
    "LICENSE",
    "requirements.txt",
)


def _local_setuptools_wheels() -> Path | None:
    """A folder holding a setuptools wheel new enough for pyproject's build requirement, so the
    build needs no index (virtualenv ships such wheels); None when this machine has none."""
    try:
        from virtualenv.seed.wheels.embed import BUNDLE_FOLDER
    except ImportError:
        return None
    for wheel in Path(BUNDLE_FOLDER).glob("setuptools-*.whl"):
        major = wheel.name.split("-")[1].split(".")[0]
        if major.isdigit() and int(major) >= 77:
            return Path(BUNDLE_FOLDER)
    return None


@pytest.fixture(scope="module")
def installed_wheel(tmp_path_factory) -> tuple[Path, Path]:
    """(the wheel, a venv with it installed): built from a copy of the sources, offline."""
    wheels = _local_setuptools_wheels()
    if wheels is None:
        pytest.skip("no local setuptools>=77 wheel to build with offline (virtualenv's bundle)")
    work = tmp_path_factory.mktemp("wheel")
    source = work / "src"
    source.mkdir()
    for name in SOURCE_FILES:
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "config", source / "config")
    shutil.copytree(
        ROOT / "android_world",
        source / "android_world",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels)}
    env.pop("PYTHONPATH", None)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-w", str(work / "dist")],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = (work / "dist").glob("celil-*.whl")
    venv = work / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=300
    )
    installed = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stderr[-2000:]
    return wheel, venv


def test_the_wheel_carries_the_default_config_and_every_data_file(installed_wheel):
    wheel, _ = installed_wheel
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "android_world/data/default.yaml" in names
    packaged = zipfile.ZipFile(wheel).read("android_world/data/default.yaml")
    assert packaged == (ROOT / "config" / "default.yaml").read_bytes()
    for data in (
        "android_world/reporting/templates/report.css",
        "android_world/env/sim/fonts/LICENSE",
    ):
        assert data in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    scripts = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert all(name in scripts for name in PYPROJECT["project"]["scripts"])


def test_installed_console_scripts_run_from_another_directory(installed_wheel, tmp_path):
    _, venv = installed_wheel
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)}
    version = subprocess.run(
        [str(venv / "bin" / "celil-run"), "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert version.stdout.strip() == f"celil {android_world.__version__}", version.stderr
    listed = subprocess.run(
        [str(venv / "bin" / "celil-run"), "--list", "agents"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert "celil_agent" in listed.stdout
    where = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import android_world.harness.config as c; print(c.DEFAULT_CONFIG_PATH)",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert where.stdout.strip().endswith("site-packages/android_world/data/default.yaml"), (
        where.stderr
    )
    for script in ("celil-report", "celil-memory"):
        helped = subprocess.run(
            [str(venv / "bin" / script), "--help"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert helped.stdout.startswith(f"usage: {script}"), helped.stderr


# --------------------------------------------------------------------------------------------
# Celil beside upstream's android_world


def _import_warnings(extra_path: Path) -> str:
    code = "import android_world"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": f"{ROOT}:{extra_path}", "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    return out.stderr


def test_importing_beside_an_installed_upstream_android_world_warns(tmp_path):
    clean = tmp_path / "clean"
    clean.mkdir()
    assert _import_warnings(clean) == ""
    beside = tmp_path / "site"
    (beside / "android_world-1.0.dist-info").mkdir(parents=True)
    (beside / "android_world-1.0.dist-info" / "METADATA").write_text("Name: android_world\n")
    (beside / "celil-0.2.0.dist-info").mkdir()  # Celil's own metadata is no reason to warn
    stderr = _import_warnings(beside)
    assert stderr.count("MixedWithUpstreamWarning") == 1
    assert "install.py" in stderr and "android_world-1.0.dist-info" in stderr


def test_upstream_files_inside_the_package_are_a_problem(tmp_path):
    from android_world import upstream_guard

    assert upstream_guard.problems(ROOT / "android_world", paths=[]) == []
    (tmp_path / "registry.py").write_text("")
    (problem,) = upstream_guard.problems(tmp_path, paths=[str(tmp_path)])
    assert "registry.py" in problem
    egg = tmp_path / "site"
    (egg / "android_world-1.0-py3.11.egg").mkdir(parents=True)
    assert upstream_guard.installed_markers([str(egg), str(tmp_path / "missing")]) == [
        egg / "android_world-1.0-py3.11.egg"
    ]
