"""The `celil-memory` commands that only read: list, show, search, stats and export (the store is
opened read only)."""

from __future__ import annotations

import argparse
from pathlib import Path

from android_world.agents.custom.memory.celil_episodic import (
    atomic_write_text,
    canonical_app,
    dump_json_memory,
    read_goal,
)
from android_world.harness.memory_locate import (
    AGENT_KEYS,
    DEFAULT_REUSE_SIMILARITY,
    DEFAULT_REUSE_SUCCESS_RATE,
    UsageError,
    dig,
    get_entry,
    open_memory,
    read_config,
)
from android_world.harness.memory_views import (
    emit,
    entry_json,
    explain,
    list_lines,
    screen_width,
    search_text,
    show_text,
)


def cmd_list(args: argparse.Namespace) -> int:
    memory = open_memory(args)
    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be 1 or more")
    entries = memory.entries(
        strict=True, app=args.app, status=args.status, sort=args.sort, limit=args.limit
    )
    wide = getattr(args, "wide", False)
    lines = list_lines(entries, wide=wide, width=screen_width()) if entries else ["(no entries)"]
    emit(args, [entry_json(e) for e in entries], "\n".join(lines))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    entry = get_entry(open_memory(args), args.id)
    emit(args, entry_json(entry), show_text(entry))
    return 0


def reuse_thresholds(args: argparse.Namespace) -> tuple[float | None, float]:
    """The agent's `memory_reuse_similarity` (None: never reused as is) and
    `memory_reuse_success_rate`, from the config or the agent's defaults."""
    agent = dig(read_config(args.config), AGENT_KEYS)
    agent = agent if isinstance(agent, dict) else {}
    similarity = agent.get("memory_reuse_similarity", DEFAULT_REUSE_SIMILARITY)
    rate = agent.get("memory_reuse_success_rate", DEFAULT_REUSE_SUCCESS_RATE)
    return (
        float(similarity) if isinstance(similarity, (int, float)) else None,
        float(rate) if isinstance(rate, (int, float)) else DEFAULT_REUSE_SUCCESS_RATE,
    )


def cmd_search(args: argparse.Namespace) -> int:
    memory = open_memory(args)
    reading = read_goal(args.text)
    wanted = {canonical_app(a) for a in args.app or ()} | set(reading.apps)
    matches = memory.rank(args.text, args.app or (), memory.review_pool(args.text))
    needle = args.text.lower()
    shown = [
        m
        for m in matches
        if m.similarity >= args.min_similarity
        or m.basis != "similar wording"
        or needle in " ".join([m.entry.goal_template, m.entry.example_goal, *m.entry.plan]).lower()
    ]
    reuse = reuse_thresholds(args)
    data = [
        {
            "id": m.entry.id,
            "similarity": m.similarity,
            "basis": m.basis,
            "would_retrieve": m.usable,
            "why_not": m.reason,
            "explanation": explain(m, wanted, reuse),
            "goal_template": m.entry.goal_template,
            "plan_for_this_goal": m.plan,
            "status": m.entry.status,
            "success_rate": round(m.entry.success_rate, 4),
        }
        for m in shown
    ]
    emit(args, data, search_text(args.text, reading, wanted, shown, reuse, args))
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    memory = open_memory(args)
    entries = memory.entries(strict=True)
    by_status = {s: sum(e.status == s for e in entries) for s in ("active", "pinned", "retired")}
    successes = sum(e.successes for e in entries)
    failures = sum(e.failures for e in entries)
    apps: dict[str, int] = {}
    for e in entries:
        for a in e.app_names or ["(none)"]:
            apps[a] = apps.get(a, 0) + 1
    with memory.store.read() as conn:
        check = str(conn.execute("PRAGMA quick_check").fetchone()[0]) if conn else "-"
    size = memory.path.stat().st_size if memory.path.exists() else 0
    data = {
        "path": str(memory.path),
        "bytes": size,
        "integrity": check,
        "entries": len(entries),
        "by_status": by_status,
        "successes": successes,
        "failures": failures,
        "success_rate": round(successes / (successes + failures), 4)
        if successes + failures
        else None,
        "retrievals": sum(e.uses for e in entries),
        "never_retrieved": sum(e.last_used_at is None for e in entries),
        "apps": dict(sorted(apps.items(), key=lambda kv: -kv[1])),
    }
    rate = f"{data['success_rate']:.0%}" if data["success_rate"] is not None else "-"
    text = "\n".join(
        [
            f"file:        {data['path']} ({size} bytes, integrity {check})",
            f"entries:     {len(entries)} ("
            + ", ".join(f"{k} {v}" for k, v in by_status.items())
            + ")",
            f"outcomes:    {successes} successes, {failures} failures, rate {rate}",
            f"retrievals:  {data['retrievals']} ({data['never_retrieved']} entries never retrieved)",
            "apps:        " + (", ".join(f"{a} {n}" for a, n in apps.items()) or "-"),
        ]
    )
    emit(args, data, text)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    entries = open_memory(args).entries(strict=True)
    out = Path(args.file)
    if (out.exists() or out.is_symlink()) and not args.force:
        raise UsageError(f"{out} exists; pass --force to overwrite it")
    atomic_write_text(out, dump_json_memory(entries))
    print(f"exported {len(entries)} entries to {out}")
    return 0
