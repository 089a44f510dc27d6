"""Which episodic memory a Celil run uses, and what it held when the run started.

Evaluation results must not depend on what earlier runs stored, so the default is a memory that
starts empty in the run's own directory (`fresh`). `shared` is the learning set-up (one file that
every run reads and extends); `frozen` reuses a file without changing it, for reproducible
evaluation with a curated memory. The manifest records the mode, path, entry count and content
hash, so two runs can be compared knowing what each one could retrieve.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

MemoryMode = Literal["fresh", "shared", "frozen", "off"]
FRESH_FILE_NAME = "episodic_memory.db"
# What a run directory of a Celil before the SQLite store holds (a resumed run migrates it).
FRESH_JSON_NAME = "episodic_memory.json"


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
        path = run_dir / FRESH_FILE_NAME
        if not path.exists() and (run_dir / FRESH_JSON_NAME).exists():
            path = run_dir / FRESH_JSON_NAME  # migrated into episodic_memory.db on first use
        return MemoryPlan("fresh", path, False)
    if not shared_path:
        return MemoryPlan("off", None, False, "episodic_memory_path is empty")
    path = Path(shared_path)
    # A JSON memory lives on as `<name>.db` once migrated (celil_episodic_store.locate).
    migrated = path.suffix.lower() == ".json" and path.with_suffix(".db").exists()
    if mode == "frozen" and not (path.exists() or path.is_symlink() or migrated):
        raise MemorySetupError(
            f"memory: frozen needs an existing episodic_memory_path, and {path} does not exist "
            "(use memory: shared to build one)"
        )
    return MemoryPlan(mode, path, mode == "frozen")


def memory_state(plan: MemoryPlan) -> dict[str, object]:
    """Mode, path, entry count and content sha256 of the memory as it is now (manifest.json).

    The count and digest come from the store read only (`celil_episodic.describe`): the
    digest is of the entries, not of the file's bytes, which SQLite rearranges freely. A path
    that is not a usable memory gives `error` (one line) instead; nothing here ever opens a
    FIFO or changes a file."""
    state: dict[str, object] = {"mode": plan.mode, "path": str(plan.path) if plan.path else None}
    if plan.path is None:
        state["reason"] = plan.why_off
        return state
    from android_world.agents.custom.memory import celil_episodic

    try:
        described = celil_episodic.describe(plan.path)
    except celil_episodic.EpisodicMemoryError as exc:
        state.update(entries=None, sha256=None, error=str(exc))
        return state
    state.update(entries=described["entries"], sha256=described["sha256"])
    if described["database"] != os.path.realpath(plan.path):
        # A JSON memory's database beside it (`<name>.db`).
        state["database"] = described["database"]
    return state


def memory_line(state: dict[str, object]) -> str:
    """One console line saying how memory is used in this run."""
    mode, path = state.get("mode"), state.get("path")
    if path is None:
        return f"Memory: off ({state.get('reason', '')})"
    if state.get("database"):
        path = f"{path} (database {state['database']})"
    entries = state.get("entries")
    held = "empty" if not entries else f"{entries} plans, sha256 {str(state.get('sha256'))[:12]}"
    if mode == "fresh":
        return f"Memory: fresh ({held}; only this run's verified plans are reused): {path}"
    if mode == "frozen":
        return f"Memory: frozen ({held}; read only): {path}"
    return f"Memory: shared ({held}; read and extended by this run): {path}"
