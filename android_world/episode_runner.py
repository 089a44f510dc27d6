"""Upstream's path for `episode_runner`: an alias of android_world.harness.episode_runner, so upstream-style imports work."""

import sys

from android_world.harness import episode_runner as _implementation

sys.modules[__name__] = _implementation
