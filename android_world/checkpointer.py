"""Upstream's path for `checkpointer`: an alias of android_world.harness.checkpointer, so upstream-style imports work."""

import sys

from android_world.harness import checkpointer as _implementation

sys.modules[__name__] = _implementation
