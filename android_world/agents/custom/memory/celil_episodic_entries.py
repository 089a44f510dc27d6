"""Episodic memory entries: what one remembered plan holds, and when it must not be reused.

An entry is one task shape (a goal template and its on/off-like values, for a set of apps) with
a plan written in the template's slots, its track record (successes, failures, failures in a row,
retrievals) and where it came from. The same model is the JSON import/export format and the
row of the SQLite store, so a file exported by one Celil imports into another.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import uuid
from collections.abc import Iterable
from typing import Any, Literal

import pydantic

from android_world.agents.custom.memory.celil_episodic_goals import (
    GoalTemplate,
    SlotValue,
    placeholders,
)
from android_world.agents.custom.memory.celil_episodic_meaning import state_value
from android_world.agents.custom.memory.celil_episodic_plan_checks import (
    stale_values,
    template_differences,
)

# The JSON format's version. Fields added since 1 are optional, so files stay readable both ways.
SCHEMA_VERSION = 1
Status = Literal["active", "pinned", "retired"]
# How a candidate was found: its template is the goal's, or its meaning, or its words in order
# once filler words are dropped (the pre-SQLite rule, kept with its similarity cut-off).
Basis = Literal["same template", "same meaning", "similar wording"]


class EpisodicMemoryError(Exception):
    """A memory problem the user has to resolve (a newer schema, a damaged or foreign file, a
    path that is not a file). Its message is one line."""


class CorruptMemoryError(EpisodicMemoryError):
    """The memory file cannot be parsed or validated."""


class MemoryPathError(EpisodicMemoryError):
    """The memory path is a directory, a FIFO, a device or a socket: never opened, never moved."""


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class MemoryEntry(pydantic.BaseModel):
    """One remembered task shape. `plan` uses the same `{type_n}` slots as `goal_template`."""

    model_config = pydantic.ConfigDict(extra="ignore", validate_assignment=True)

    id: str
    goal_template: str
    example_goal: str = ""
    slots: dict[str, SlotValue] = pydantic.Field(default_factory=dict)
    plan: list[str]
    app_names: list[str] = pydantic.Field(default_factory=list)
    created_at: dt.datetime
    updated_at: dt.datetime
    last_used_at: dt.datetime | None = None
    successes: int = pydantic.Field(default=0, ge=0)
    failures: int = pydantic.Field(default=0, ge=0)
    uses: int = pydantic.Field(default=0, ge=0)
    # Failures since the last success: `retire_after` of them in a row retire the entry.
    consecutive_failures: int = pydantic.Field(default=0, ge=0)
    status: Status = "active"
    notes: str = ""
    provenance: dict[str, Any] = pydantic.Field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION

    @property
    def trials(self) -> int:
        return self.successes + self.failures

    @property
    def success_rate(self) -> float:
        return self.successes / self.trials if self.trials else 0.0

    @property
    def states(self) -> tuple[str, ...]:
        """The on/off-like values (on, off, max, min, top, bottom) the plan was made for."""
        return tuple(state_value(v.value) for v in self.slots.values() if v.type == "toggle")

    @property
    def key(self) -> tuple[str, tuple[str, ...]]:
        return self.goal_template, tuple(sorted(self.app_names))


class MemoryFile(pydantic.BaseModel):
    """The JSON layout (import/export, and the store before SQLite)."""

    schema_version: int = SCHEMA_VERSION
    entries: list[MemoryEntry] = pydantic.Field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class RetrievedPlan:
    entry_id: str
    goal_template: str
    plan: list[str]
    similarity: float
    success_rate: float
    pinned: bool = False
    example_goal: str = ""
    basis: str = "same template"

    @property
    def same_meaning(self) -> bool:
        """Found as the same task in other words (see `celil_episodic_meaning`)."""
        return self.basis == "same meaning"


@dataclasses.dataclass(frozen=True)
class Match:
    """A ranked candidate (read-only view used by retrieval and the review CLI's search)."""

    entry: MemoryEntry
    similarity: float
    plan: list[str]
    usable: bool
    reason: str = ""
    basis: str = "similar wording"


def misfit_reason(
    entry: MemoryEntry,
    goal: GoalTemplate,
    goal_apps: Iterable[str] = (),
    *,
    same_meaning: bool = False,
) -> str:
    """Why a remembered plan must not be used for this goal, however similar ("" = it fits).

    These are the retrieval half of "help later goals, never poison them": another app, another
    task wording (unless the goal means the same, `same_meaning`), another on/off-like value, a
    value the plan needs but the goal lacks, or a value of the example goal that the plan spells
    out literally.
    """
    wanted, have = set(goal_apps), set(entry.app_names)
    if wanted and have and not wanted & have:
        return f"for another app ({', '.join(sorted(have))}, not {', '.join(sorted(wanted))})"
    if not same_meaning:
        differences = template_differences(entry.goal_template, goal.template)
        if differences:
            old, new = differences[0]
            return f"another task (remembered {old or '-'!r}, this goal {new or '-'!r})"
    for key, old_slot in entry.slots.items():
        new_slot = goal.slots.get(key)
        if (
            old_slot.type == "toggle"
            and new_slot is not None
            and state_value(new_slot.value) != state_value(old_slot.value)
        ):
            return f"it was made for {old_slot.value!r}, this goal says {new_slot.value!r}"
    used = set().union(*map(placeholders, entry.plan)) if entry.plan else set()
    missing = sorted(used - set(goal.slots))
    if missing:
        return "goal lacks slots " + ", ".join(missing)
    stale = stale_values(entry.slots, goal.slots, entry.plan)
    if stale:
        return "the plan repeats the example goal's " + ", ".join(repr(v) for v in stale[:3])
    return ""


def new_entry_id() -> str:
    return uuid.uuid4().hex[:12]


__all__ = [
    "SCHEMA_VERSION",
    "Basis",
    "CorruptMemoryError",
    "EpisodicMemoryError",
    "Match",
    "MemoryEntry",
    "MemoryFile",
    "MemoryPathError",
    "RetrievedPlan",
    "Status",
    "misfit_reason",
    "new_entry_id",
    "utcnow",
]
