"""Shared pytest setup for tests/.

Imports: pyproject.toml's `pythonpath` puts the checkout, tests/ (the shared fakes, `*_support`
modules and the `support` package, whose `support.fake_adb` is the adb backend's test double), the
test folders (tests/agent, tests/harness, ...: one per package) and benchmarks/ on the import path,
so no test edits the import path by hand. A child Python process
a test starts does not inherit that: tests that run a driver script importing the fakes pass
tests/ in its `PYTHONPATH` themselves.

Speed: the slowest tests carry `@pytest.mark.slow` (about half the suite's time). `./run_tests.sh`
and CI run everything; `./run_tests.sh -m "not slow"` is the quick run while working.
"""

from __future__ import annotations

import pytest


def pytest_report_header(config: pytest.Config) -> str | None:
    if config.getoption("markexpr"):
        return None
    return 'quick run: -m "not slow" skips the slowest tests (all run by default)'
