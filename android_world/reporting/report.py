"""The run report: `report.html` plus one page per episode, and a comparison of two runs.

    python -m android_world.reporting.report RUN_DIR                 # (re)write RUN_DIR/report.html
    python -m android_world.reporting.report --compare RUN_A RUN_B   # compare.html (or --out) + a text table
    python -m android_world.reporting.report RUN_DIR --gif [NAME...]  # episodes' GIFs, linked from their pages
    python -m android_world.reporting.report RUN_DIR --bundle        # RUN.tar.gz to share, secrets removed

It reads only the run directory's files (DESIGN §7), so it works on a finished run, a run still in
progress, a killed run and a copy of a run from another machine. Pages are static HTML with inline
CSS/JS and relative links, so they open from the file system with no server and no network.
Every reader is tolerant: an agent without events (or a file that is missing or half-written)
gives a page with less detail, never an error.

This module is the command line and the one-episode exports; the work is done by the package's
other modules (run_files reads, episode/steps/overlay/events build an episode, aggregate sums the
run, render and compare write pages). Their public names are re-exported here, because callers
and tests know them as `report.<name>`.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import android_world
from android_world.reporting import episode_export, run_bundle
from android_world.reporting.aggregate import (
    DIFFICULTIES,
    GROUP_COLUMNS,
    GROUPS_CSV,
    UNTAGGED,
    bar_chart,
    claim_counts,
    group_rows,
    groups_csv,
    model_failures,
    tag_pivot,
    task_rows,
    time_breakdown,
)
from android_world.reporting.compare import (
    common_rows,
    compare_rows,
    format_compare,
    write_compare,
)
from android_world.reporting.episode import (
    Episode,
    end_reason,
    load_episode,
    plan_history,
    task_params,
)
from android_world.reporting.events import events_by_step, role_seconds, usage_of
from android_world.reporting.formatting import (
    ROLE_LABELS,
    fmt_cost,
    fmt_num,
    fmt_pct,
    fmt_seconds,
)
from android_world.reporting.overlay import action_overlay, ocr_boxes
from android_world.reporting.render import TEMPLATES, render_episode, write_report
from android_world.reporting.run_files import (
    EPISODE_GIF,
    EPISODE_PAGE,
    EPISODES,
    SIM_DISCLAIMER,
    ReportError,
    check_run_dir,
    read_json,
    read_jsonl,
    result_rows,
    run_header,
    task_meta,
    upstream_rows,
)
from android_world.reporting.steps import SCREEN_SIZE, build_step, png_size

__all__ = [
    "DIFFICULTIES",
    "EPISODES",
    "EPISODE_GIF",
    "EPISODE_PAGE",
    "GROUPS_CSV",
    "GROUP_COLUMNS",
    "ROLE_LABELS",
    "SCREEN_SIZE",
    "SIM_DISCLAIMER",
    "TEMPLATES",
    "UNTAGGED",
    "Episode",
    "ReportError",
    "action_overlay",
    "bar_chart",
    "build_step",
    "check_run_dir",
    "claim_counts",
    "common_rows",
    "compare_rows",
    "end_reason",
    "episode_row",
    "events_by_step",
    "export_episode",
    "fmt_cost",
    "fmt_num",
    "fmt_pct",
    "fmt_seconds",
    "format_compare",
    "group_rows",
    "groups_csv",
    "load_episode",
    "main",
    "model_failures",
    "ocr_boxes",
    "plan_history",
    "png_size",
    "read_json",
    "read_jsonl",
    "render_episode",
    "result_rows",
    "role_seconds",
    "run_header",
    "tag_pivot",
    "task_meta",
    "task_params",
    "task_rows",
    "time_breakdown",
    "upstream_rows",
    "usage_of",
    "write_compare",
    "write_gif",
    "write_report",
]


# One episode out of the run: a GIF, a self-contained page (drawn by episode_export)


def episode_row(run_dir: Path, name: str) -> Mapping[str, Any]:
    rows = result_rows(run_dir)
    for row in rows:
        if str(row.get("name")) == name:
            return row
    known = ", ".join(str(r.get("name")) for r in rows[:8]) or "none"
    more = ", …" if len(rows) > 8 else ""
    raise ReportError(f"no episode {name!r} in {run_dir} (episodes: {known}{more})")


def write_gif(
    run_dir: Path, name: str, out: Path | None = None, width: int = episode_export.GIF_WIDTH
) -> Path | None:
    """episodes/<name>/episode.gif (or `out`); None when the episode saved no screenshots."""
    run_dir = check_run_dir(run_dir)
    episode = load_episode(run_dir, episode_row(run_dir, name))
    episode_dir = run_dir / EPISODES / name
    data = episode_export.gif_bytes(episode_dir, episode.steps, width)
    if data is None:
        return None
    target = out or episode_dir / EPISODE_GIF
    episode_export.write_bytes_atomic(target, data)
    return target


def export_episode(run_dir: Path, name: str, out: Path | None = None) -> Path:
    """One HTML file holding the episode page and its screenshots (default ./<name>.html)."""
    run_dir = check_run_dir(run_dir)
    manifest = read_json(run_dir / "manifest.json") or {}
    header = run_header(run_dir, manifest, result_rows(run_dir))
    episode = load_episode(run_dir, episode_row(run_dir, name))
    page = render_episode(header, episode, None, None, standalone=True)
    page = episode_export.shareable_page(page, run_dir / EPISODES / name)
    target = out or Path(f"{name}.html")
    episode_export.write_bytes_atomic(target, page.encode("utf-8"))
    return target


# --------------------------------------------------------------------------------------------
# CLI


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="celil-report",
        description="Write RUN_DIR/report.html (and a page per episode), or compare two runs. "
        "(From a checkout without installing: python -m android_world.reporting.report.)",
    )
    parser.add_argument("--version", action="version", version=f"celil {android_world.__version__}")
    parser.add_argument("run_dir", nargs="?", help="run directory (runs/run_<timestamp>)")
    parser.add_argument("--compare", nargs=2, metavar=("RUN_A", "RUN_B"), help="compare two runs")
    parser.add_argument(
        "--out",
        help="where --compare, --export or --bundle writes "
        "(default ./compare.html, ./NAME.html, ./RUN.tar.gz)",
    )
    parser.add_argument(
        "--gif",
        nargs="*",
        metavar="EPISODE",
        help="write episodes/<name>/episode.gif for these episodes (none named: every episode)",
    )
    parser.add_argument(
        "--export", metavar="EPISODE", help="write one episode as a single self-contained HTML file"
    )
    parser.add_argument(
        "--bundle",
        action="store_true",
        help="write one shareable RUN.tar.gz (or --out): config, manifest, results and "
        "trajectories, secrets removed",
    )
    args = parser.parse_args(argv)
    try:
        if args.run_dir and args.bundle:
            return _bundle(check_run_dir(Path(args.run_dir)), args.out)
        if args.run_dir and (args.gif is not None or args.export):
            return _export_files(Path(args.run_dir), args)
        if args.compare:
            out, table = write_compare(
                Path(args.compare[0]), Path(args.compare[1]), Path(args.out or "compare.html")
            )
            print(table)
            print(f"Comparison: {out}")
            return 0
        if not args.run_dir:
            raise ReportError("give a run directory, or --compare RUN_A RUN_B (see --help)")
        started = time.perf_counter()
        out = write_report(Path(args.run_dir))
        print(f"Report: {out} ({time.perf_counter() - started:.2f} s)")
        return 0
    except ReportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # e.g. --out under a file, or a read-only run directory
        print(f"error: cannot write the report: {exc}", file=sys.stderr)
        return 2


def _bundle(run_dir: Path, out: str | None) -> int:
    target, count = run_bundle.write_bundle(run_dir, Path(out) if out else None)
    print(
        f"Bundle: {target} ({count} files, {target.stat().st_size / 1024:.0f} KiB, secrets removed)"
    )
    return 0


def _export_files(run_dir: Path, args: argparse.Namespace) -> int:
    run_dir = check_run_dir(run_dir)
    if args.export:
        out = export_episode(run_dir, args.export, Path(args.out) if args.out else None)
        print(f"Episode: {out}")
    if args.gif is not None:
        names = args.gif or [str(row.get("name")) for row in result_rows(run_dir)]
        for name in names:
            gif = write_gif(run_dir, name)
            print(f"GIF: {gif}" if gif else f"GIF: {name} has no screenshots, none written")
        write_report(run_dir)  # the episode pages now link their GIFs
    return 0


if __name__ == "__main__":
    sys.exit(main())
