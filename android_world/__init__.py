"""Celil: an AndroidWorld-compatible harness, a simulated phone and the Celil Conductor agent."""

# The one place the version lives: pyproject.toml reads it, and `--version` prints it.
__version__ = "0.2.0"
