"""Build hook only; everything else is in pyproject.toml.

The default run config lives at config/default.yaml in the checkout (the scripts, the docs and
the tests name it there). An installed `celil-run` has no checkout, so the wheel carries a copy as
package data, android_world/data/default.yaml, which `android_world.harness.config` falls back to.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DEFAULT_CONFIG = Path("config") / "default.yaml"


class BuildPyWithDefaultConfig(build_py):
    """build_py, plus the default config copied into the package (not in editable mode, where
    the checkout's own file is found)."""

    def run(self) -> None:
        super().run()
        if self.dry_run or getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "android_world" / "data"
        target.mkdir(parents=True, exist_ok=True)
        self.copy_file(str(DEFAULT_CONFIG), str(target / "default.yaml"))


setup(cmdclass={"build_py": BuildPyWithDefaultConfig})
