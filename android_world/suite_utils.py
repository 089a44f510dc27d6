"""Upstream's path for `suite_utils`: an alias of android_world.harness.suite_utils, so upstream-style imports work."""

import sys

from android_world.harness import suite_utils as _implementation

sys.modules[__name__] = _implementation
