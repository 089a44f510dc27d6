"""Which episodic memory a Celil run uses, and what it held when the run started.

Evaluation results must not depend on what earlier runs stored, so the default is a memory that
starts empty in the run's own directory (`fresh`). `shared` is the learning set-up (one file that
every run reads and extends); `frozen` reuses a file without changing it, for reproducible
evaluation with a curated memory. The manifest records the mode, path, entry count and content
hash, so two runs can be compared knowing what each one could retrieve.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

MemoryMode = Literal["fresh", "shared", "frozen", "off"]
FRESH_FILE_NAME = "episodic_memory.json"


class MemorySetupError(ValueError):
    """The memory settings cannot work (e.g. a frozen memory whose file does not exist)."""


@dataclass(frozen=True)
class MemoryPlan:
    """Where the memory lives and whether the run may write it; `path` None means no memory."""

    mode: MemoryMode
    path: Path | None
    read_only: bool
    why_off: str = ""


def plan_memory(mode: MemoryMode, shared_path: str | None, run_dir: Path | None) -> MemoryPlan:
    """Pure: the config (mode, `episodic_memory_path`) and the run directory -> the memory."""
    if mode == "off":
        return MemoryPlan("off", None, False, "memory: off")
    if mode == "fresh":
        if run_dir is None:
            return MemoryPlan("off", None, False, "memory: fresh needs a run directory")
        return MemoryPlan("fresh", run_dir / FRESH_FILE_NAME, False)
    if not shared_path:
        return MemoryPlan("off", None, False, "episodic_memory_path is empty")
    path = Path(shared_path)
    if mode == "frozen" and not path.is_file():
        raise MemorySetupError(
            f"memory: frozen needs an existing episodic_memory_path, and {path} does not exist "
            "(use memory: shared to build one)"
        )
    return MemoryPlan(mode, path, mode == "frozen")


def memory_state(plan: MemoryPlan) -> dict[str, object]:
    """Mode, path, entry count and sha256 of the file as it is now (for manifest.json)."""
    state: dict[str, object] = {"mode": plan.mode, "path": str(plan.path) if plan.path else None}
    if plan.path is None:
        state["reason"] = plan.why_off
        return state
    try:
        data = plan.path.read_bytes()
    except FileNotFoundError:
        state.update(entries=0, sha256=None)
        return state
    except OSError as exc:
        state.update(entries=None, sha256=None, error=exc.strerror or str(exc))
        return state
    state["sha256"] = hashlib.sha256(data).hexdigest()
    try:
        entries = json.loads(data.decode("utf-8")).get("entries")
        state["entries"] = len(entries) if isinstance(entries, list) else None
    except (ValueError, UnicodeDecodeError, AttributeError):
        state["entries"] = None
    return state


def memory_line(state: dict[str, object]) -> str:
    """One console line saying how memory is used in this run."""
    mode, path = state.get("mode"), state.get("path")
    if path is None:
        return f"Memory: off ({state.get('reason', '')})"
    entries = state.get("entries")
    held = "empty" if not entries else f"{entries} plans, sha256 {str(state.get('sha256'))[:12]}"
    if mode == "fresh":
        return f"Memory: fresh ({held}; only this run's verified plans are reused): {path}"
    if mode == "frozen":
        return f"Memory: frozen ({held}; read only): {path}"
    return f"Memory: shared ({held}; read and extended by this run): {path}"
