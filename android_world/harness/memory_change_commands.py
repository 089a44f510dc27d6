"""The `celil-memory` commands that change the store: pin/retire/restore, edit (plan file or
$EDITOR), delete, prune and import; each change is one SQLite transaction."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from android_world.agents.custom.memory.celil_episodic import (
    EpisodicMemoryError,
    GoalTemplate,
    MemoryEntry,
    placeholders,
    plan_leaks,
    read_json_memory,
)
from android_world.harness.memory_locate import UsageError, get_entry, open_memory
from android_world.harness.memory_views import emit, shorten


def _change(
    args: argparse.Namespace, change: Callable[[MemoryEntry], tuple[MemoryEntry, str]]
) -> int:
    memory = open_memory(args, write=True)
    entry, message = change(get_entry(memory, args.id))
    memory.save(entry)
    print(message)
    return 0


def set_status_command(status: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        def change(entry: MemoryEntry) -> tuple[MemoryEntry, str]:
            old = entry.status
            update: dict[str, Any] = {}
            if old != status:
                update = {"status": status, "updated_at": dt.datetime.now(dt.UTC)}
                if status != "retired":
                    update["consecutive_failures"] = 0  # a fresh start after a review
            return entry.model_copy(update=update), f"{entry.id}: {old} -> {status}"

        return _change(args, change)

    return run


def read_plan_file(path: Path) -> list[str]:
    """A JSON list of sub-goals, or plain text with one sub-goal per line (# lines ignored)."""
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read plan file {path}: {exc}") from exc
    if raw.lstrip().startswith("["):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise UsageError(f"plan file {path} is not valid JSON: {exc}") from exc
        if not isinstance(data, list) or not all(isinstance(s, str) for s in data):
            raise UsageError(f"plan file {path} must be a JSON list of strings")
        steps = [s.strip() for s in data if s.strip()]
    else:
        steps = [ln.strip() for ln in raw.splitlines() if ln.strip() and not ln.startswith("#")]
    if not steps:
        raise UsageError(f"plan file {path} has no sub-goals")
    return steps


def edit_in_editor(entry: MemoryEntry) -> list[str]:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        raise UsageError("no $EDITOR set; pass --plan-file FILE (or --notes TEXT)")
    slots = ", ".join(f"{{{k}}} = {v.value!r}" for k, v in entry.slots.items()) or "none"
    header = (
        f"# Plan for: {entry.goal_template}\n# One sub-goal per line; lines starting with # are "
        f"ignored.\n# Slots (example values): {slots}\n"
    )
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
        f.write(header + "\n".join(entry.plan) + "\n")
        name = f.name
    try:
        result = subprocess.run([*shlex.split(editor), name], check=False)
        if result.returncode != 0:
            raise UsageError(f"editor {editor!r} exited with {result.returncode}; plan unchanged")
        return read_plan_file(Path(name))
    finally:
        Path(name).unlink(missing_ok=True)


def check_plan(current: MemoryEntry, new_plan: list[str]) -> None:
    """Refuse slots the template lacks; warn about values spelled out (allowed, but then the
    plan serves only goals with those values)."""
    allowed = placeholders(current.goal_template)
    unknown = sorted(set().union(*map(placeholders, new_plan)) - allowed)
    if unknown:
        raise UsageError(
            f"plan uses slots the template does not have: {', '.join(unknown)} "
            f"(template slots: {', '.join(sorted(allowed)) or 'none'})"
        )
    leaks = plan_leaks(GoalTemplate(current.goal_template, dict(current.slots)), new_plan)
    if leaks:
        print(
            "warning: the plan spells out "
            + ", ".join(repr(v) for v in leaks[:3])
            + " literally; use the template's slots ("
            + (", ".join("{" + k + "}" for k in sorted(allowed)) or "none")
            + ") or it will only be reused for goals with these values",
            file=sys.stderr,
        )


def cmd_edit(args: argparse.Namespace) -> int:
    memory = open_memory(args, write=True)
    current = get_entry(memory, args.id)
    new_plan: list[str] | None = None
    if args.plan_file:
        new_plan = read_plan_file(Path(args.plan_file))
    elif args.notes is None:
        new_plan = edit_in_editor(current)
    if new_plan is not None:
        check_plan(current, new_plan)
    update: dict[str, Any] = {"updated_at": dt.datetime.now(dt.UTC)}
    if new_plan is not None:
        update["plan"] = new_plan
    if args.notes is not None:
        update["notes"] = args.notes
    entry = current.model_copy(update=update)
    memory.save(entry)
    print(f"{entry.id}: updated ({len(entry.plan)} sub-goals)")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    memory = open_memory(args, write=True)
    entry = get_entry(memory, args.id)
    memory.delete([entry.id])
    print(f"deleted {entry.id}: {shorten(entry.goal_template, 70)}")
    return 0


def prune_reasons(e: MemoryEntry, args: argparse.Namespace, now: dt.datetime) -> list[str] | None:
    """Why `e` would be pruned, or None. Every given criterion must hold; pinned entries stay."""
    if e.status == "pinned" and not args.include_pinned:
        return None
    reasons = []
    if args.min_success_rate is not None:
        if not (e.trials and e.success_rate < args.min_success_rate):
            return None
        reasons.append(f"success rate {e.success_rate:.0%} < {args.min_success_rate:.0%}")
    if args.older_than_days is not None:
        if now - e.created_at < dt.timedelta(days=args.older_than_days):
            return None
        reasons.append(f"created {(now - e.created_at).days} days ago")
    if args.unused_days is not None:
        last = e.last_used_at or e.created_at
        if now - last < dt.timedelta(days=args.unused_days):
            return None
        reasons.append(f"unused for {(now - last).days} days")
    if args.retired:
        if e.status != "retired":
            return None
        reasons.append("retired")
    return reasons


def cmd_prune(args: argparse.Namespace) -> int:
    if (
        args.min_success_rate is None
        and args.older_than_days is None
        and args.unused_days is None
        and not args.retired
    ):
        raise UsageError(
            "prune needs a criterion: --min-success-rate, --older-than-days, --unused-days or --retired"
        )
    if args.min_success_rate is not None and not 0 <= args.min_success_rate <= 1:
        raise UsageError("--min-success-rate must be between 0 and 1")
    now = dt.datetime.now(dt.UTC)
    memory = open_memory(args, write=not args.dry_run)
    pruned = [
        (e, r)
        for e in memory.entries(strict=True)
        if (r := prune_reasons(e, args, now)) is not None
    ]
    if not args.dry_run and pruned:
        memory.delete(e.id for e, _ in pruned)
    verb = "would delete" if args.dry_run else "deleted"
    data = {
        "dry_run": args.dry_run,
        "deleted": [{"id": e.id, "goal_template": e.goal_template, "why": r} for e, r in pruned],
    }
    lines = [f"{verb} {len(pruned)} entries"]
    lines += [f"  {e.id}  {shorten(e.goal_template, 60)}  ({'; '.join(r)})" for e, r in pruned]
    emit(args, data, "\n".join(lines))
    return 0


def read_import_file(path: Path) -> list[MemoryEntry]:
    if not path.exists() and not path.is_symlink():
        raise UsageError(f"import file {path} not found")
    try:
        return read_json_memory(path).entries
    except EpisodicMemoryError as exc:
        raise UsageError(f"cannot read {exc}") from None


def cmd_import(args: argparse.Namespace) -> int:
    incoming = read_import_file(Path(args.file))
    memory = open_memory(args, must_exist=False, write=True)
    counts = memory.import_entries(incoming)
    print(
        f"imported {len(incoming)} entries into {memory.path}: {counts['added']} added, "
        f"{counts['updated']} updated, {counts['unchanged']} unchanged"
    )
    return 0
