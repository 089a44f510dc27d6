"""Warns when Celil shares the import name `android_world` with upstream AndroidWorld's package.

Both projects install a top-level `android_world`; in one environment whichever was installed
last replaces the other's files, and imports then mix the two. The supported way to use Celil
with upstream is the plugin installer (android_world/agents/custom/install.py), which copies the
plugin into an upstream checkout. The checks are cheap (a listing of each sys.path directory,
without importing importlib.metadata, and two stat calls) and run once, at import.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from collections.abc import Iterable
from pathlib import Path

UPSTREAM_DISTRIBUTION = "android_world"
# Installed-distribution markers: name-version.dist-info, .egg-info, .egg, an editable .pth.
_MARKER = re.compile(
    r"^(?:__editable__\.)?android_world[-.][^/]*?(?:\.dist-info|\.egg-info|\.egg|\.pth)$",
    re.IGNORECASE,
)
# Top-level files of upstream's package that Celil's package does not have.
UPSTREAM_ONLY_FILES = ("registry.py", "constants.py")
ADVICE = (
    "Keep Celil in its own environment; to run Celil inside upstream AndroidWorld, install the "
    "plugin into upstream's checkout with android_world/agents/custom/install.py (docs/UPSTREAM.md)."
)


class MixedWithUpstreamWarning(UserWarning):
    """Celil and upstream AndroidWorld are installed under the same import name."""


def installed_markers(paths: Iterable[str]) -> list[Path]:
    """Metadata of an installed `android_world` distribution in the import path directories.
    Celil's own distribution is named `celil`, so every match is someone else's."""
    found = []
    for entry in paths:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        found += [Path(entry, name) for name in names if _MARKER.match(name)]
    return found


def problems(package_dir: Path, paths: Iterable[str] | None = None) -> list[str]:
    """What shows that upstream's `android_world` is installed beside (or over) this package."""
    found = []
    markers = installed_markers(sys.path if paths is None else paths)
    if markers:
        found.append(
            f"upstream AndroidWorld is installed in this environment ({markers[0]}), under the "
            "same import name as Celil"
        )
    mixed = [name for name in UPSTREAM_ONLY_FILES if (package_dir / name).is_file()]
    if mixed:
        found.append(f"{package_dir} holds upstream AndroidWorld's files ({', '.join(mixed)})")
    return found


def warn_if_mixed(package_dir: Path) -> None:
    for problem in problems(package_dir):
        warnings.warn(f"{problem}. {ADVICE}", MixedWithUpstreamWarning, stacklevel=3)
