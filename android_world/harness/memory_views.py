"""What `celil-memory` prints: entry lines and full entries, short unique ids, the search
explanation (how a score came about and what the agent would do with the entry), plain or JSON."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import textwrap
from collections.abc import Sequence
from typing import Any

from android_world.agents.custom.memory.celil_episodic import (
    DEFAULT_SIMILARITY_THRESHOLD,
    GoalReading,
    Match,
    MemoryEntry,
    entry_keys,
    instantiate,
    read_goal,
)


def _when(t: dt.datetime | None) -> str:
    return t.strftime("%Y-%m-%d %H:%M") if t else "never"


def _rate(e: MemoryEntry) -> str:
    return f"{e.success_rate:.0%}" if e.trials else "-"


def shorten(text: str, width: int) -> str:
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
        cells = [shorten(c, w).ljust(w) for c, w in zip(row[:-1], widths, strict=True)]
        head = "  ".join(cells) + "  "
        tail = row[-1] if wide else shorten(row[-1], width - len(head))
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
            + (m.entry.goal_template if wide else shorten(m.entry.goal_template, width - len(head)))
        )
        lines.append(" " * 4 + explain(m, wanted, reuse))
    return "\n".join(lines)
