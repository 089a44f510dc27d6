"""Offline review of Celil's episodic memory: `celil-memory --help` (or, from a checkout,
`python -m android_world.harness.memory_review --help`).

A person can see what the agent has learned, pin good plans, retire or delete bad ones, fix a plan
by hand, prune stale entries and move memories between machines (JSON export/import). Every change
is one SQLite transaction, so reviewing while runs are going is safe. Read commands open the store
read only and never change it; a damaged file is reported, never moved.

Which memory: `--memory PATH` (a memory file, or a run directory); else the shared memory when the
config says `memory: shared` or `frozen`; else the newest run's own memory (`memory: fresh`, the
default). The file opened is always named on stderr.

This module is the command line (the parser and `main`); the parts are `memory_locate` (which
memory), `memory_views` (what is printed), `memory_read_commands` and `memory_change_commands`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import android_world
from android_world.agents.custom.memory.celil_episodic import (
    SORT_COLUMNS,
    EpisodicMemoryError,
)
from android_world.harness.memory_change_commands import (
    cmd_delete,
    cmd_edit,
    cmd_import,
    cmd_prune,
    set_status_command,
)
from android_world.harness.memory_locate import UsageError, memory_path_from_config
from android_world.harness.memory_read_commands import (
    cmd_export,
    cmd_list,
    cmd_search,
    cmd_show,
    cmd_stats,
)
from android_world.harness.memory_views import short_ids


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
        p = add(name, set_status_command(status), help_)
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


# The names tests and scripts use from here (the parts live in the modules above).
__all__ = ["UsageError", "build_parser", "main", "memory_path_from_config", "short_ids"]


if __name__ == "__main__":
    sys.exit(main())
