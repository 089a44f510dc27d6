"""Celil: an AndroidWorld-compatible harness, a simulated phone and the Celil Conductor agent."""

from pathlib import Path as _Path

from android_world import upstream_guard as _upstream_guard

# The one place the version lives: pyproject.toml reads it, and `--version` prints it.
__version__ = "0.2.0"

_upstream_guard.warn_if_mixed(_Path(__file__).resolve().parent)
