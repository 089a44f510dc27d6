"""Offline review of Celil's episodic memory: `python -m android_world.memory_review --help`.

A person can see what the agent has learned, pin good plans, retire or delete bad ones, fix a plan
by hand, prune stale entries and move memories between machines. Every change goes through the
same lock + atomic write as the agent, so reviewing while runs are going is safe. Read commands
never modify the file, and a damaged file is reported, not moved (the agent does that).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import filelock

import android_world
from android_world import discover
from android_world.agents.custom.celil_episodic import (
    CorruptMemoryError,
    EpisodicMemory,
    EpisodicMemoryError,
    GoalTemplate,
    MemoryEntry,
    MemoryFile,
    atomic_write_text,
    instantiate,
    migrate,
    new_entry_id,
    placeholders,
    plan_leaks,
)

DEFAULT_CONFIG = Path("config/default.yaml")
DEFAULT_MEMORY = Path("runs/episodic_memory.json")
CONFIG_KEY = ("agent", "configurations", "celil_agent", "episodic_memory_path")


class UsageError(Exception):
    """Bad input: printed as one line, exit code 2."""


# ---------------------------------------------------------------------------------------------
# Locating the memory file
# ---------------------------------------------------------------------------------------------


def memory_path_from_config(config: Path | None) -> Path:
    """`--config` (or config/default.yaml if present) -> episodic_memory_path, else the default."""
    path = config or DEFAULT_CONFIG
    if not path.exists():
        if config is not None:
            raise UsageError(f"config file {config} not found")
        return DEFAULT_MEMORY
    try:
        import yaml

        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except Exception as exc:
        raise UsageError(f"cannot read config {path}: {str(exc).splitlines()[0]}") from exc
    node: Any = data
    for key in CONFIG_KEY:
        if not isinstance(node, dict) or key not in node:
            return DEFAULT_MEMORY
        node = node[key]
    if not isinstance(node, str) or not node.strip():
        raise UsageError(f"{path}: {'.'.join(CONFIG_KEY)} must be a file path, got {node!r}")
    return Path(node)


def open_memory(args: argparse.Namespace, *, must_exist: bool = True) -> EpisodicMemory:
    path = Path(args.memory) if args.memory else memory_path_from_config(args.config)
    if must_exist and not path.exists():
        raise UsageError(f"no episodic memory file at {path} (pass --memory PATH or --config FILE)")
    if path.is_dir():
        # A run directory: review the memory a `memory: fresh` run kept there.
        if not (path / "episodic_memory.json").is_file():
            raise UsageError(f"{path} is a directory with no episodic_memory.json")
        path = path / "episodic_memory.json"
    return EpisodicMemory(path)


def resolve_id(entries: Sequence[MemoryEntry], prefix: str) -> MemoryEntry:
    """Git-style: a full id or any unique prefix of one."""
    prefix = prefix.strip()
    if not prefix:
        raise UsageError("empty entry id")
    exact = [e for e in entries if e.id == prefix]
    if exact:
        return exact[0]
    hits = [e for e in entries if e.id.startswith(prefix)]
    if not hits:
        raise UsageError(f"no entry with id {prefix!r} (see `list`)")
    if len(hits) > 1:
        ids = ", ".join(e.id for e in hits[:5])
        raise UsageError(f"id prefix {prefix!r} is ambiguous: {ids}")
    return hits[0]


# ---------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------


def _when(t: dt.datetime | None) -> str:
    return t.strftime("%Y-%m-%d %H:%M") if t else "never"


def _rate(e: MemoryEntry) -> str:
    return f"{e.success_rate:.0%}" if e.trials else "-"


def _short(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def entry_json(e: MemoryEntry) -> dict[str, Any]:
    return {**e.model_dump(mode="json"), "success_rate": round(e.success_rate, 4)}


def table(rows: list[list[str]], header: list[str], wide: bool = False) -> str:
    """80 columns with the last column wrapped (`--wide`: one line per row, any width)."""
    if not wide:
        return discover.format_table(header, rows)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def short_ids(ids: Sequence[str], minimum: int = 8) -> dict[str, str]:
    """The shortest prefix (at least `minimum`) that still tells every id apart; commands
    accept prefixes, so the table need not spend 80 columns on full ids."""
    length = minimum
    while length < max((len(i) for i in ids), default=0) and len({i[:length] for i in ids}) < len(
        set(ids)
    ):
        length += 1
    return {i: i[:length] for i in ids}


def entry_rows(entries: Sequence[MemoryEntry], wide: bool = False) -> list[list[str]]:
    ids = {e.id: e.id for e in entries} if wide else short_ids([e.id for e in entries])
    return [
        [
            ids[e.id],
            str(e.uses),
            f"{e.successes}/{e.trials}",
            _rate(e),
            e.status,
            _when(e.last_used_at) if wide else _when(e.last_used_at)[:10],
            " ".join(e.goal_template.split()),
        ]
        for e in entries
    ]


LIST_HEADER = ["id", "used", "ok/tries", "rate", "status", "last used", "template"]


def show_text(e: MemoryEntry) -> str:
    example_slots = {k: v.value for k, v in e.slots.items()}
    lines = [
        f"id:          {e.id}",
        f"status:      {e.status}",
        f"template:    {e.goal_template}",
        f"example:     {e.example_goal}",
        f"apps:        {', '.join(e.app_names) or '-'}",
        f"successes:   {e.successes}   failures: {e.failures}   rate: {_rate(e)}   retrieved: {e.uses}",
        f"created:     {_when(e.created_at)}   updated: {_when(e.updated_at)}   last used: {_when(e.last_used_at)}",
        "plan:",
        *(f"  {i}. {step}" for i, step in enumerate(e.plan, 1)),
        "plan for the example goal:",
        *(f"  {i}. {instantiate(step, e.slots)}" for i, step in enumerate(e.plan, 1)),
    ]
    if example_slots:
        lines.append("slots:       " + ", ".join(f"{k}={v!r}" for k, v in example_slots.items()))
    if e.notes:
        lines.append(f"notes:       {e.notes}")
    if e.provenance:
        lines.append(f"provenance:  {json.dumps(e.provenance, sort_keys=True)}")
    return "\n".join(lines)


def emit(args: argparse.Namespace, data: Any, text: str) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False) if args.json else text)


# ---------------------------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------------------------


def cmd_list(args: argparse.Namespace) -> int:
    entries = open_memory(args).entries(strict=True)
    if args.status:
        entries = [e for e in entries if e.status == args.status]
    entries.sort(key=lambda e: (e.status == "retired", e.goal_template))
    wide = getattr(args, "wide", False)
    text = table(entry_rows(entries, wide), LIST_HEADER, wide) if entries else "(no entries)"
    emit(args, [entry_json(e) for e in entries], text)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    entry = resolve_id(open_memory(args).entries(strict=True), args.id)
    emit(args, entry_json(entry), show_text(entry))
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    memory = open_memory(args)
    entries = memory.entries(strict=True)
    matches = memory.rank(args.text, args.app or (), entries, include_retired=True)
    needle = args.text.lower()
    shown = [m for m in matches if m.similarity >= args.min_similarity]
    seen = {m.entry.id for m in shown}
    for m in matches:  # plain substring hits too, e.g. searching for one word of a plan
        text = " ".join([m.entry.goal_template, m.entry.example_goal, *m.entry.plan]).lower()
        if m.entry.id not in seen and needle in text:
            shown.append(m)
    data = [
        {
            "id": m.entry.id,
            "similarity": m.similarity,
            "would_retrieve": m.usable,
            "why_not": m.reason,
            "goal_template": m.entry.goal_template,
            "plan_for_this_goal": m.plan,
            "status": m.entry.status,
            "success_rate": round(m.entry.success_rate, 4),
        }
        for m in shown
    ]
    wide = getattr(args, "wide", False)
    ids = short_ids([m.entry.id for m in shown]) if not wide else {}
    rows = [
        [
            ids.get(m.entry.id, m.entry.id),
            f"{m.similarity:.2f}",
            m.entry.status,
            ("yes: " if m.usable else f"no ({m.reason}): ")
            + " ".join(m.entry.goal_template.split()),
        ]
        for m in shown
    ]
    header = ["id", "sim", "status", "retrieved: template"]
    text = table(rows, header, wide) if rows else "(no match)"
    emit(args, data, text)
    return 0


def _mutate(
    args: argparse.Namespace, change: Callable[[list[MemoryEntry], MemoryEntry], str]
) -> int:
    memory = open_memory(args)
    with memory.transaction(strict=True) as entries:
        entry = resolve_id(entries, args.id)
        message = change(entries, entry)
    print(message)
    return 0


def _set_status(status: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        def change(_entries: list[MemoryEntry], entry: MemoryEntry) -> str:
            old = entry.status
            if old != status:
                entry.status = status  # type: ignore[assignment]
                entry.updated_at = dt.datetime.now(dt.UTC)
            return f"{entry.id}: {old} -> {status}"

        return _mutate(args, change)

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
            raise UsageError(f"{path} looks like JSON but is not valid: {exc}") from exc
        if not all(isinstance(s, str) for s in data):
            raise UsageError(f"{path}: a JSON plan must be a list of strings")
        steps = [s.strip() for s in data]
    else:
        steps = [line.strip() for line in raw.splitlines() if not line.lstrip().startswith("#")]
    steps = [s for s in steps if s]
    if not steps:
        raise UsageError(f"{path}: the plan is empty")
    return steps


def edit_in_editor(entry: MemoryEntry) -> list[str]:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        raise UsageError("no plan given: pass --plan-file FILE or set $EDITOR")
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


def cmd_edit(args: argparse.Namespace) -> int:
    memory = open_memory(args)
    current = resolve_id(memory.entries(strict=True), args.id)
    new_plan: list[str] | None = None
    if args.plan_file:
        new_plan = read_plan_file(Path(args.plan_file))
    elif args.notes is None:
        new_plan = edit_in_editor(current)
    if new_plan is not None:
        allowed = placeholders(current.goal_template)
        unknown = sorted(set().union(*map(placeholders, new_plan)) - allowed)
        if unknown:
            raise UsageError(
                f"plan uses slots the template does not have: {', '.join(unknown)} "
                f"(template slots: {', '.join(sorted(allowed)) or 'none'})"
            )
        leaks = plan_leaks(GoalTemplate(current.goal_template, dict(current.slots)), new_plan)
        if leaks:
            # Allowed (a curator may mean it), but retrieval will then skip this entry for any
            # goal whose values differ, so say so.
            print(
                "warning: the plan spells out "
                + ", ".join(repr(v) for v in leaks[:3])
                + " literally; use the template's slots ("
                + (", ".join("{" + k + "}" for k in sorted(allowed)) or "none")
                + ") or it will only be reused for goals with these values",
                file=sys.stderr,
            )

    def change(_entries: list[MemoryEntry], entry: MemoryEntry) -> str:
        if new_plan is not None:
            entry.plan = new_plan
        if args.notes is not None:
            entry.notes = args.notes
        entry.updated_at = dt.datetime.now(dt.UTC)
        return f"{entry.id}: updated ({len(entry.plan)} sub-goals)"

    return _mutate(args, change)


def cmd_delete(args: argparse.Namespace) -> int:
    def change(entries: list[MemoryEntry], entry: MemoryEntry) -> str:
        entries.remove(entry)
        return f"deleted {entry.id}: {_short(entry.goal_template, 70)}"

    return _mutate(args, change)


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
    memory = open_memory(args)
    pruned: list[tuple[MemoryEntry, list[str]]] = []
    if args.dry_run:
        entries = memory.entries(strict=True)
        pruned = [(e, r) for e in entries if (r := prune_reasons(e, args, now)) is not None]
    else:
        with memory.transaction(strict=True) as entries:
            pruned = [(e, r) for e in entries if (r := prune_reasons(e, args, now)) is not None]
            gone = {e.id for e, _ in pruned}
            entries[:] = [e for e in entries if e.id not in gone]
    verb = "would delete" if args.dry_run else "deleted"
    data = {
        "dry_run": args.dry_run,
        "deleted": [{"id": e.id, "goal_template": e.goal_template, "why": r} for e, r in pruned],
    }
    lines = [f"{verb} {len(pruned)} entries"]
    lines += [f"  {e.id}  {_short(e.goal_template, 60)}  ({'; '.join(r)})" for e, r in pruned]
    emit(args, data, "\n".join(lines))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    entries = open_memory(args).entries(strict=True)
    out = Path(args.file)
    if out.exists() and not args.force:
        raise UsageError(f"{out} exists; pass --force to overwrite it")
    body = MemoryFile(entries=entries).model_dump(mode="json")
    try:
        atomic_write_text(out, json.dumps(body, indent=1, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc}") from exc
    print(f"exported {len(entries)} entries to {out}")
    return 0


def read_import_file(path: Path) -> list[MemoryEntry]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise UsageError(f"import file {path} not found") from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {str(exc).splitlines()[0]}") from exc
    try:
        contents, _notes = migrate(data)
    except EpisodicMemoryError as exc:
        raise UsageError(f"{path}: {exc}") from exc
    except Exception as exc:
        raise UsageError(
            f"{path} is not an episodic memory file: {str(exc).splitlines()[0]}"
        ) from exc
    return contents.entries


def merge_entries(entries: list[MemoryEntry], incoming: Sequence[MemoryEntry]) -> dict[str, int]:
    """Merge by template (+apps), else by id. Counts take the max, so importing twice is harmless;
    the newer `updated_at` supplies plan, status and notes."""
    counts = {"added": 0, "updated": 0, "unchanged": 0}
    for new in incoming:
        old = next((e for e in entries if e.key == new.key), None) or next(
            (e for e in entries if e.id == new.id), None
        )
        if old is None:
            if any(e.id == new.id for e in entries):
                new = new.model_copy(update={"id": new_entry_id()})
            entries.append(new)
            counts["added"] += 1
            continue
        before = old.model_dump(mode="json")
        old.successes = max(old.successes, new.successes)
        old.failures = max(old.failures, new.failures)
        old.uses = max(old.uses, new.uses)
        if new.last_used_at and (old.last_used_at is None or new.last_used_at > old.last_used_at):
            old.last_used_at = new.last_used_at
        old.created_at = min(old.created_at, new.created_at)
        if new.updated_at > old.updated_at:
            old.plan, old.status, old.notes = new.plan, new.status, new.notes
            old.example_goal, old.slots = new.example_goal, new.slots
            old.updated_at = new.updated_at
        counts["updated" if old.model_dump(mode="json") != before else "unchanged"] += 1
    return counts


def cmd_import(args: argparse.Namespace) -> int:
    incoming = read_import_file(Path(args.file))
    memory = open_memory(args, must_exist=False)
    with memory.transaction(strict=True) as entries:
        counts = merge_entries(entries, incoming)
    print(
        f"imported {len(incoming)} entries into {memory.path}: {counts['added']} added, "
        f"{counts['updated']} updated, {counts['unchanged']} unchanged"
    )
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
    data = {
        "path": str(memory.path),
        "bytes": memory.path.stat().st_size,
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
            f"file:        {data['path']} ({data['bytes']} bytes)",
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


# ---------------------------------------------------------------------------------------------
# Parser
# ---------------------------------------------------------------------------------------------


def _common(parser: argparse.ArgumentParser, *, sub: bool) -> None:
    # Same options before or after the subcommand; the subcommand copy must not reset the value.
    default: Any = argparse.SUPPRESS if sub else None
    parser.add_argument(
        "--memory",
        metavar="PATH",
        default=default,
        help="memory file (default: episodic_memory_path from the config, else runs/episodic_memory.json)",
    )
    parser.add_argument(
        "--config", metavar="FILE", type=Path, default=default, help="config (config/default.yaml)"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS if sub else False,
        help="machine-readable output",
    )
    parser.add_argument(
        "--wide",
        action="store_true",
        default=argparse.SUPPRESS if sub else False,
        help="tables at full width (full ids, one line per entry) instead of 80 columns",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m android_world.memory_review",
        description="Review Celil's episodic memory. Entry ids may be abbreviated to a unique prefix.",
    )
    parser.add_argument("--version", action="version", version=f"celil {android_world.__version__}")
    _common(parser, sub=False)
    subs = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def add(
        name: str, func: Callable[[argparse.Namespace], int], help_: str
    ) -> argparse.ArgumentParser:
        p = subs.add_parser(name, help=help_, description=help_)
        _common(p, sub=True)
        p.set_defaults(func=func)
        return p

    p = add(
        "list", cmd_list, "table of entries: id, template, uses, success rate, status, last used"
    )
    p.add_argument("--status", choices=("active", "pinned", "retired"))
    p = add("show", cmd_show, "one entry in full")
    p.add_argument("id")
    p = add("search", cmd_search, "entries similar to a goal (or containing the text)")
    p.add_argument("text")
    p.add_argument("--app", action="append", help="app name the goal involves (repeatable)")
    p.add_argument("--min-similarity", type=float, default=0.5, metavar="X")
    for name, status, help_ in (
        ("pin", "pinned", "prefer this entry whenever it matches"),
        ("retire", "retired", "never retrieve this entry again (kept for review)"),
        ("restore", "active", "make a pinned or retired entry ordinary again"),
    ):
        p = add(name, _set_status(status), help_)
        p.add_argument("id")
    p = add("edit", cmd_edit, "replace an entry's plan (from --plan-file or $EDITOR) or notes")
    p.add_argument("id")
    p.add_argument("--plan-file", metavar="FILE", help="JSON list or one sub-goal per line")
    p.add_argument("--notes", help="replace the entry's notes")
    p = add("delete", cmd_delete, "remove an entry")
    p.add_argument("id")
    p = add("prune", cmd_prune, "delete entries matching ALL given criteria (pinned entries kept)")
    p.add_argument("--min-success-rate", type=float, metavar="R", help="tried and rate below R")
    p.add_argument("--older-than-days", type=float, metavar="N", help="created N+ days ago")
    p.add_argument("--unused-days", type=float, metavar="N", help="not retrieved for N+ days")
    p.add_argument("--retired", action="store_true", help="only retired entries")
    p.add_argument("--include-pinned", action="store_true")
    p.add_argument("--dry-run", action="store_true", help="show what would be deleted")
    p = add("export", cmd_export, "write all entries to FILE (current schema)")
    p.add_argument("file")
    p.add_argument("--force", action="store_true", help="overwrite FILE")
    p = add("import", cmd_import, "merge entries from FILE (any schema) by template")
    p.add_argument("file")
    add("stats", cmd_stats, "totals")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
    except CorruptMemoryError as exc:
        print(
            f"error: {exc}. Fix or remove it; the agent would move it aside as <name>.corrupt-<time>",
            file=sys.stderr,
        )
    except EpisodicMemoryError as exc:
        print(f"error: {exc}", file=sys.stderr)
    except filelock.Timeout:
        print("error: the memory file stayed locked by another process; try again", file=sys.stderr)
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
