"""Episodic memory modes: the code lives in the plugin (`agents/custom/celil_memory_mode`) so the
plugin's own factory applies the same modes inside upstream; the harness keeps this name."""

from android_world.agents.custom.memory.celil_memory_mode import (
    FRESH_FILE_NAME,
    MemoryMode,
    MemoryPlan,
    MemorySetupError,
    memory_line,
    memory_state,
    plan_memory,
)

__all__ = [
    "FRESH_FILE_NAME",
    "MemoryMode",
    "MemoryPlan",
    "MemorySetupError",
    "memory_line",
    "memory_state",
    "plan_memory",
]
