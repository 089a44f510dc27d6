"""Which episodic memory `celil-memory` opens: `--memory` (a file or a run directory), else the
shared memory the config names, else the newest run's own memory; and the one-line usage error
every command reports bad input with."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from android_world.agents.custom.memory.celil_episodic import (
    EpisodicMemory,
    MemoryEntry,
)
from android_world.agents.custom.memory.celil_memory_mode import FRESH_FILE_NAME, FRESH_JSON_NAME

DEFAULT_CONFIG = Path("config/default.yaml")


DEFAULT_MEMORY = Path("runs/celil_episodic_memory.db")


DEFAULT_OUTPUT = Path("runs")


AGENT_KEYS = ("agent", "configurations", "celil_agent")


CONFIG_KEY = (*AGENT_KEYS, "episodic_memory_path")


# The agent's defaults (factory.CelilAgentConfig), for a config that does not set them.
DEFAULT_REUSE_SIMILARITY = 0.95


DEFAULT_REUSE_SUCCESS_RATE = 0.8


class UsageError(Exception):
    """Bad input: printed as one line, exit code 2."""


def read_config(config: Path | None) -> dict[str, Any]:
    """`--config`, or config/default.yaml if present, as a dict ({} when there is none)."""
    path = config or DEFAULT_CONFIG
    if not path.exists():
        if config is not None:
            raise UsageError(f"config file {config} not found")
        return {}
    if not stat.S_ISREG(path.stat().st_mode):
        raise UsageError(f"config {path} is not a file")
    try:
        import yaml

        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except Exception as exc:
        raise UsageError(f"cannot read config {path}: {str(exc).splitlines()[0]}") from exc
    return data if isinstance(data, dict) else {}


def dig(data: Any, keys: Sequence[str]) -> Any:
    for key in keys:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def memory_path_from_config(config: Path | None) -> Path:
    """`--config` (or config/default.yaml if present) -> episodic_memory_path, else the default."""
    data = read_config(config)
    node = dig(data, CONFIG_KEY)
    if node is None:
        return DEFAULT_MEMORY
    if not isinstance(node, str) or not node.strip():
        raise UsageError(
            f"{config or DEFAULT_CONFIG}: {'.'.join(CONFIG_KEY)} must be a file path, got {node!r}"
        )
    return Path(node)


def run_memory(run_dir: Path) -> Path | None:
    """The `fresh` memory a run directory keeps (SQLite, or the JSON of an older Celil)."""
    for name in (FRESH_FILE_NAME, FRESH_JSON_NAME):
        if (run_dir / name).exists():
            return run_dir / name
    return None


def newest_run_memory(output: Path) -> Path | None:
    """The memory of the newest run under `output` that has one (run_<UTC timestamp> names
    sort by time)."""
    if not output.is_dir():
        return None
    runs = sorted((p for p in output.iterdir() if p.name.startswith("run_")), reverse=True)
    for run_dir in runs:
        found = run_memory(run_dir) if run_dir.is_dir() else None
        if found is not None:
            return found
    return None


def find_memory(args: argparse.Namespace) -> tuple[Path, str]:
    """The memory to review and why that one (said on stderr)."""
    if args.memory:
        path = Path(args.memory)
        with_dir = _is_dir(path)
        if with_dir:
            found = run_memory(path)
            if found is None:
                raise UsageError(
                    f"{path} is a directory with no {FRESH_FILE_NAME} (pass a memory file, or "
                    "the directory of a run that kept its memory)"
                )
            return found, f"the memory of run {path.name}"
        return path, "--memory"
    config = read_config(args.config)
    where = str(args.config or DEFAULT_CONFIG)
    mode = dig(config, (*AGENT_KEYS, "memory")) or "fresh"
    if mode in ("shared", "frozen"):
        return memory_path_from_config(args.config), f"memory: {mode} in {where}"
    output = Path(str(dig(config, ("benchmark", "output_path")) or DEFAULT_OUTPUT))
    found = newest_run_memory(output)
    if found is None:
        raise UsageError(
            f"no run under {output}/ has an episodic memory yet (memory: {mode} keeps one per "
            "run); run ./run_benchmark.sh first, or pass --memory PATH"
        )
    return found, f"the newest run's memory (memory: {mode} in {where})"


def _is_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return False


def open_memory(
    args: argparse.Namespace, *, must_exist: bool = True, write: bool = False
) -> EpisodicMemory:
    """The memory, read only unless `write`; its path goes to stderr (which file was opened)."""
    path, why = find_memory(args)
    memory = EpisodicMemory(path, read_only=not write)
    if must_exist and not memory.store.exists():
        raise UsageError(f"no episodic memory file at {path} (pass --memory PATH or --config FILE)")
    same = memory.path == Path(os.path.realpath(path))
    if why != "--memory" or not same:  # say which file, unless the user named it
        shown = str(path) if same else f"{path} (database {memory.path})"
        if not same and not memory.path.exists():
            shown = f"{path} (a JSON memory of an earlier version, read as it is)"
        print(f"memory: {shown} ({why})", file=sys.stderr)
    return memory


def get_entry(memory: EpisodicMemory, prefix: str) -> MemoryEntry:
    try:
        return memory.get(prefix)
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None
