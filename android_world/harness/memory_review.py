"""Offline review of Celil's episodic memory: `celil-memory --help` (or, from a checkout,
`python -m android_world.harness.memory_review --help`).

A person can see what the agent has learned, pin good plans, retire or delete bad ones, fix a plan
by hand, prune stale entries and move memories between machines (JSON export/import). Every change
is one SQLite transaction, so reviewing while runs are going is safe. Read commands open the store
read only and never change it; a damaged file is reported, never moved.

Which memory: `--memory PATH` (a memory file, or a run directory); else the shared memory when the
config says `memory: shared` or `frozen`; else the newest run's own memory (`memory: fresh`, the
default). The file opened is always named on stderr.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import android_world
from android_world.agents.custom.memory.celil_episodic import (
    DEFAULT_SIMILARITY_THRESHOLD,
    SORT_COLUMNS,
    EpisodicMemory,
    EpisodicMemoryError,
    GoalReading,
    GoalTemplate,
    Match,
    MemoryEntry,
    atomic_write_text,
    canonical_app,
    dump_json_memory,
    entry_keys,
    instantiate,
    placeholders,
    plan_leaks,
    read_goal,
    read_json_memory,
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


# ---------------------------------------------------------------------------------------------
# Locating the memory
# ---------------------------------------------------------------------------------------------


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


def _dig(data: Any, keys: Sequence[str]) -> Any:
    for key in keys:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def memory_path_from_config(config: Path | None) -> Path:
    """`--config` (or config/default.yaml if present) -> episodic_memory_path, else the default."""
    data = read_config(config)
    node = _dig(data, CONFIG_KEY)
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
    mode = _dig(config, (*AGENT_KEYS, "memory")) or "fresh"
    if mode in ("shared", "frozen"):
        return memory_path_from_config(args.config), f"memory: {mode} in {where}"
    output = Path(str(_dig(config, ("benchmark", "output_path")) or DEFAULT_OUTPUT))
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


def _get(memory: EpisodicMemory, prefix: str) -> MemoryEntry:
    try:
        return memory.get(prefix)
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None


# ---------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------


def _when(t: dt.datetime | None) -> str:
    return t.strftime("%Y-%m-%d %H:%M") if t else "never"


def _rate(e: MemoryEntry) -> str:
    return f"{e.success_rate:.0%}" if e.trials else "-"


def _short(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: max(width - 1, 0)] + "…"


def entry_json(e: MemoryEntry) -> dict[str, Any]:
    return {**e.model_dump(mode="json"), "success_rate": round(e.success_rate, 4)}


def short_ids(ids: Sequence[str], minimum: int = 8) -> dict[str, str]:
    """The shortest prefix (at least `minimum`) that still tells every id apart; commands
    accept prefixes, so the table need not spend 80 columns on full ids."""
    length = minimum
    while length < max((len(i) for i in ids), default=0) and len({i[:length] for i in ids}) < len(
        set(ids)
    ):
        length += 1
    return {i: i[:length] for i in ids}


def screen_width() -> int:
    return max(shutil.get_terminal_size((80, 24)).columns, 60)


LIST_HEADER = ["id", "uses", "ok/n", "rate", "status", "app", "template"]


def list_lines(entries: Sequence[MemoryEntry], *, wide: bool, width: int = 80) -> list[str]:
    """One line per entry; the template is cut to the width (`--wide`: never cut, full ids)."""
    ids = {e.id: e.id for e in entries} if wide else short_ids([e.id for e in entries])
    rows = [
        [
            ids[e.id],
            str(e.uses),
            f"{e.successes}/{e.trials}",
            _rate(e),
            e.status,
            ",".join(e.app_names) or "-",
            " ".join(e.goal_template.split()),
        ]
        for e in entries
    ]
    widths = [max(len(r[i]) for r in [LIST_HEADER, *rows]) for i in range(len(LIST_HEADER) - 1)]
    if not wide:
        widths[5] = min(widths[5], 12)  # the app column: a long list is cut, never wrapped
    lines = []
    for row in [LIST_HEADER, ["-" * w for w in widths] + ["-" * 8], *rows]:
        cells = [_short(c, w).ljust(w) for c, w in zip(row[:-1], widths, strict=True)]
        head = "  ".join(cells) + "  "
        tail = row[-1] if wide else _short(row[-1], width - len(head))
        lines.append((head + tail).rstrip())
    return lines


def _plain(value: Any, indent: int = 0) -> list[str]:
    """A JSON value as indented `key: value` lines (provenance is nested, and one long JSON
    line is unreadable)."""
    pad = "  " * indent
    if isinstance(value, dict):
        out: list[str] = []
        for key in sorted(value):
            item = value[key]
            if isinstance(item, (dict, list)) and item:
                out.append(f"{pad}{key}:")
                out += _plain(item, indent + 1)
            else:
                out.append(f"{pad}{key}: {_scalar(item)}")
        return out
    if isinstance(value, list):
        return [f"{pad}- {_scalar(v)}" for v in value]
    return [f"{pad}{_scalar(value)}"]


def _scalar(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False) if value else "-"
    return str(value)


def show_text(e: MemoryEntry) -> str:
    example_slots = {k: v.value for k, v in e.slots.items()}
    keys = entry_keys(e)
    meaning = (
        read_goal(e.example_goal).meaning.describe()
        if keys.meaning_key
        else "- (found by its wording only)"
    )
    lines = [
        f"id:          {e.id}",
        f"status:      {e.status}",
        f"template:    {e.goal_template}",
        f"meaning:     {meaning}",
        f"example:     {e.example_goal}",
        f"apps:        {', '.join(e.app_names) or '-'}",
        f"successes:   {e.successes}   failures: {e.failures} ({e.consecutive_failures} in a row)"
        f"   rate: {_rate(e)}   retrieved: {e.uses}",
        f"created:     {_when(e.created_at)}   updated: {_when(e.updated_at)}   "
        f"last used: {_when(e.last_used_at)}",
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
        lines.append("provenance:")
        lines += _plain(e.provenance, 1)
    return "\n".join(lines)


def emit(args: argparse.Namespace, data: Any, text: str) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False) if args.json else text)


# ---------------------------------------------------------------------------------------------
# Read commands
# ---------------------------------------------------------------------------------------------


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
    entry = _get(open_memory(args), args.id)
    emit(args, entry_json(entry), show_text(entry))
    return 0


def reuse_thresholds(args: argparse.Namespace) -> tuple[float | None, float]:
    """The agent's `memory_reuse_similarity` (None: never reused as is) and
    `memory_reuse_success_rate`, from the config or the agent's defaults."""
    agent = _dig(read_config(args.config), AGENT_KEYS)
    agent = agent if isinstance(agent, dict) else {}
    similarity = agent.get("memory_reuse_similarity", DEFAULT_REUSE_SIMILARITY)
    rate = agent.get("memory_reuse_success_rate", DEFAULT_REUSE_SUCCESS_RATE)
    return (
        float(similarity) if isinstance(similarity, (int, float)) else None,
        float(rate) if isinstance(rate, (int, float)) else DEFAULT_REUSE_SUCCESS_RATE,
    )


def explain(match: Match, wanted: set[str], reuse: tuple[float | None, float]) -> str:
    """How a score came about, and what the agent would do with the entry."""
    have = set(match.entry.app_names)
    apps = len(wanted & have) / len(wanted | have) if wanted and have else 1.0
    factor = 0.5 + 0.5 * apps if wanted and have else 1.0
    base = match.similarity / factor if factor else match.similarity
    if match.basis == "similar wording":
        why = f"template words {base:.2f}"
    else:
        why = match.basis
    if factor != 1.0:
        why += f" x app overlap {factor:.2f}"
    if not match.usable:
        return f"{why}; not retrieved: {match.reason}"
    reuse_similarity, reuse_rate = reuse
    trusted = (
        reuse_similarity is not None
        and match.basis != "similar wording"
        and match.similarity >= reuse_similarity
        and match.entry.success_rate >= reuse_rate
    )
    if trusted:
        return f"{why}; retrieved and reused as it is (no planner call)"
    return f"{why}; retrieved, given to the planner as a remembered plan"


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


def search_text(
    text: str,
    reading: GoalReading,
    wanted: set[str],
    shown: Sequence[Match],
    reuse: tuple[float | None, float],
    args: argparse.Namespace,
) -> str:
    reuse_similarity, reuse_rate = reuse
    reuse_line = (
        f"reused without a planner call at >= {reuse_similarity:.2f} with success rate >= "
        f"{reuse_rate:.2f} (config memory_reuse_similarity / memory_reuse_success_rate; same "
        "template or same meaning only)"
        if reuse_similarity is not None
        else "never reused without the planner (config memory_reuse_similarity: null)"
    )
    lines = [
        f"goal:     {text}",
        f"template: {reading.template.template}",
        f"meaning:  {reading.meaning.describe() if reading.meaning.key else '- (unreadable)'}",
        f"apps:     {', '.join(sorted(wanted)) or '-'}",
        "score:    1.00 for the same template or the same meaning, else the templates' word "
        "similarity; times 0.5 + 0.5 x the share of apps in common",
        f"cut-off:  retrieved at >= {DEFAULT_SIMILARITY_THRESHOLD:.2f} unless a rule below "
        f"says no; {reuse_line}",
    ]
    width = screen_width()
    lines = [
        textwrap.fill(line, width, subsequent_indent=" " * 10, break_on_hyphens=False)
        for line in lines
    ] + [""]
    if not shown:
        return "\n".join([*lines, "(no match)"])
    wide = getattr(args, "wide", False)
    ids = (
        {m.entry.id: m.entry.id for m in shown} if wide else short_ids([m.entry.id for m in shown])
    )
    width = screen_width()
    for m in shown:
        head = f"{ids[m.entry.id]}  {m.similarity:.2f}  {m.entry.status:<7}  "
        lines.append(
            head
            + (m.entry.goal_template if wide else _short(m.entry.goal_template, width - len(head)))
        )
        lines.append(" " * 4 + explain(m, wanted, reuse))
    return "\n".join(lines)


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


# ---------------------------------------------------------------------------------------------
# Changing commands
# ---------------------------------------------------------------------------------------------


def _change(
    args: argparse.Namespace, change: Callable[[MemoryEntry], tuple[MemoryEntry, str]]
) -> int:
    memory = open_memory(args, write=True)
    entry, message = change(_get(memory, args.id))
    memory.save(entry)
    print(message)
    return 0


def _set_status(status: str) -> Callable[[argparse.Namespace], int]:
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
    current = _get(memory, args.id)
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
    entry = _get(memory, args.id)
    memory.delete([entry.id])
    print(f"deleted {entry.id}: {_short(entry.goal_template, 70)}")
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
    lines += [f"  {e.id}  {_short(e.goal_template, 60)}  ({'; '.join(r)})" for e, r in pruned]
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
        help="memory file or run directory (default: the shared memory if the config uses one, "
        "else the newest run's)",
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
        help="full ids and templates, lines as long as they need (default: the terminal width)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="celil-memory",
        description="Review Celil's episodic memory. Entry ids may be abbreviated to a unique "
        "prefix. (From a checkout without installing: python -m android_world.harness.memory_review.)",
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
        "list",
        cmd_list,
        "one line per entry: id, uses, successes/tries, rate, status, app, template",
    )
    p.add_argument("--status", choices=("active", "pinned", "retired"))
    p.add_argument("--app", metavar="APP", help="only entries for this app (e.g. settings)")
    p.add_argument("--sort", choices=sorted(SORT_COLUMNS), default="template")
    p.add_argument("--limit", type=int, metavar="N", help="only the first N (in --sort order)")
    p = add("show", cmd_show, "one entry in full, provenance included")
    p.add_argument("id")
    p = add("search", cmd_search, "entries a goal would retrieve, each score explained")
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
    p = add("export", cmd_export, "write all entries to FILE as JSON (current schema)")
    p.add_argument("file")
    p.add_argument("--force", action="store_true", help="overwrite FILE")
    p = add("import", cmd_import, "merge entries from a JSON FILE (any schema) by task")
    p.add_argument("file")
    add("stats", cmd_stats, "totals, apps and an integrity check")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
    except EpisodicMemoryError as exc:
        print(f"error: {exc}", file=sys.stderr)
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
