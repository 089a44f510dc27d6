"""Where an upstream AndroidWorld checkout and a Python with its requirements are, for tests
that use them (none is fetched here: tests/upstream/fetch_upstream.sh puts both in
.cache/upstream/, CELIL_UPSTREAM_CHECKOUT and CELIL_UPSTREAM_PYTHON point elsewhere)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache" / "upstream"
HOW = (
    "run tests/upstream/fetch_upstream.sh (CELIL_UPSTREAM_URL=<a local mirror> when GitHub is "
    "out of reach) or set CELIL_UPSTREAM_CHECKOUT and CELIL_UPSTREAM_PYTHON"
)


def checkout() -> Path:
    return Path(os.environ.get("CELIL_UPSTREAM_CHECKOUT") or CACHE / "android_world")


def python() -> Path:
    return Path(os.environ.get("CELIL_UPSTREAM_PYTHON") or CACHE / "venv" / "bin" / "python")


def missing(*modules: str) -> str | None:
    """Why upstream cannot be used here (None when it can): no checkout, no Python, or a
    Python that cannot import upstream's modules (or `modules`)."""
    where, py = checkout(), python()
    if not (where / "android_world" / "registry.py").is_file():
        return f"no upstream AndroidWorld checkout at {where}: {HOW}"
    if not py.is_file():
        return f"no Python with upstream's requirements at {py}: {HOW}"
    probe = subprocess.run(
        [str(py), "-c", "; ".join(f"import {m}" for m in ("android_env", "absl", *modules))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["?"])[-1]
        return f"{py} lacks upstream's requirements ({last})"
    return None


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without our package on the path and without API keys."""
    drop = ("PYTHONPATH", "GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", "CELIL_CONFIG")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(extra)
    return env


def run_in_upstream(code: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    """Python `code` run by upstream's Python with the checkout first on its path."""
    where = checkout()
    return subprocess.run(
        [str(python()), "-c", code],
        cwd=where,
        env=clean_env(PYTHONPATH=str(where)),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
