"""Comparing two runs: per task success, steps and cost in each, as compare.html and a text table."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from android_world.harness.checkpointer import write_text_atomic
from android_world.reporting.formatting import as_number, fmt_cost, mean_of
from android_world.reporting.render import page_assets, template_environment
from android_world.reporting.run_files import (
    EPISODE_PAGE,
    EPISODES,
    check_run_dir,
    read_json,
    result_rows,
    run_header,
)


def compare_rows(run_a: Path, run_b: Path) -> list[dict[str, Any]]:
    """Per task: success, mean steps and cost in each run and the difference (B - A)."""

    def per_task(run_dir: Path) -> dict[str, dict[str, Any]]:
        tasks: dict[str, dict[str, Any]] = {}
        for row in result_rows(run_dir):
            entry = tasks.setdefault(
                str(row.get("task")), {"scores": [], "steps": [], "cost": [], "episodes": []}
            )
            entry["episodes"].append(
                {"name": row.get("name"), "score": row.get("score"), "error": row.get("error")}
            )
            if not row.get("error") and as_number(row.get("score")) is not None:
                entry["scores"].append(float(row["score"]))
                entry["steps"].append(float(as_number(row.get("steps")) or 0))
            if as_number(row.get("cost_usd")) is not None:
                entry["cost"].append(float(row["cost_usd"]))
        return {
            task: {
                "success": mean_of(e["scores"]),
                "steps": mean_of(e["steps"]),
                "cost": sum(e["cost"]) if e["cost"] else None,
                "episodes": e["episodes"],
            }
            for task, e in tasks.items()
        }

    a, b = per_task(run_a), per_task(run_b)
    rows = []
    for task in sorted(set(a) | set(b)):
        ta, tb = a.get(task), b.get(task)
        row: dict[str, Any] = {"task": task, "a": ta, "b": tb}
        for key in ("success", "steps", "cost"):
            va = ta.get(key) if ta else None
            vb = tb.get(key) if tb else None
            row[f"d_{key}"] = vb - va if va is not None and vb is not None else None
        d = row["d_success"]
        row["change"] = (
            "only in A" if tb is None else "only in B" if ta is None
            else "better" if d is not None and d > 1e-9 else "worse" if d is not None and d < -1e-9
            else "same"
        )  # fmt: skip
        rows.append(row)
    return rows


def _macro(rows: Sequence[Mapping[str, Any]], side: str, key: str) -> float | None:
    return mean_of([r[side][key] for r in rows if r[side] and r[side][key] is not None])


def common_rows(rows: Sequence[Mapping[str, Any]], key: str = "success") -> list[Mapping[str, Any]]:
    """Tasks with a `key` value in both runs: a headline over different task sets compares
    different things (one task going 100% -> 0% once read as 100% -> 50%)."""
    return [r for r in rows if r["a"] and r["b"] and None not in (r["a"][key], r["b"][key])]


def format_compare(rows: Sequence[Mapping[str, Any]], name_a: str, name_b: str) -> str:
    def cell(value: Any, pct: bool = False, signed: bool = False) -> str:
        if value is None:
            return "-"
        if pct:
            return f"{100 * value:+.0f}%" if signed else f"{100 * value:.0f}%"
        return f"{value:+.2f}" if signed else f"{value:.2f}"

    width = max([len("task"), len("macro average")] + [len(r["task"]) for r in rows])
    head = (
        f"{'task':<{width}}  {'succ A':>7} {'succ B':>7} {'Δsucc':>7}  {'steps A':>7} {'steps B':>7}"
        f" {'Δsteps':>7}  {'cost A':>8} {'cost B':>8}  change"
    )
    lines = [f"A = {name_a}", f"B = {name_b}", head, "-" * len(head)]
    for r in rows:
        a, b = r["a"] or {}, r["b"] or {}
        lines.append(
            f"{r['task']:<{width}}  {cell(a.get('success'), True):>7} {cell(b.get('success'), True):>7}"
            f" {cell(r['d_success'], True, True):>7}  {cell(a.get('steps')):>7} {cell(b.get('steps')):>7}"
            f" {cell(r['d_steps'], signed=True):>7}  {fmt_cost(a.get('cost')) if a else '-':>8}"
            f" {fmt_cost(b.get('cost')) if b else '-':>8}  {r['change']}"
        )
    common = common_rows(rows)
    sa, sb = _macro(common, "a", "success"), _macro(common, "b", "success")
    delta = sb - sa if sa is not None and sb is not None else None
    lines.append("-" * len(head))
    lines.append(
        f"{'macro average':<{width}}  {cell(sa, True):>7} {cell(sb, True):>7} {cell(delta, True, True):>7}"
        f"  over the {len(common)} tasks in both runs"
    )
    only = len(rows) - len(common)
    if only:
        lines.append(f"{only} task(s) not in both runs are left out of the average")
    return "\n".join(lines)


def write_compare(run_a: Path, run_b: Path, out: Path) -> tuple[Path, str]:
    """compare.html with links into both runs' episode pages (relative to where it is written)."""
    run_a, run_b = check_run_dir(run_a), check_run_dir(run_b)
    rows = compare_rows(run_a, run_b)
    out = out.resolve()
    base = out.parent

    def link(run_dir: Path, name: Any) -> str:
        page = run_dir / EPISODES / str(name) / EPISODE_PAGE
        target = page if page.exists() else run_dir / EPISODES / str(name) / "episode.json"
        return Path(os.path.relpath(target.resolve(), base)).as_posix()

    for row in rows:
        for side, run_dir in (("a", run_a), ("b", run_b)):
            for ep in (row[side] or {}).get("episodes", []):
                ep["href"] = link(run_dir, ep["name"])
    common = common_rows(rows)
    summary = {
        "a": _macro(common, "a", "success"),
        "b": _macro(common, "b", "success"),
        "common": len(common),
        "cost_a": sum(r["a"]["cost"] for r in rows if r["a"] and r["a"]["cost"] is not None),
        "cost_b": sum(r["b"]["cost"] for r in rows if r["b"] and r["b"]["cost"] is not None),
        "counts": {
            k: sum(1 for r in rows if r["change"] == k)
            for k in ("better", "worse", "same", "only in A", "only in B")
        },
    }
    reports = {}
    for side, run_dir in (("a", run_a), ("b", run_b)):
        target = run_dir / "report.html"
        target = target if target.exists() else run_dir
        reports[side] = Path(os.path.relpath(target.resolve(), base)).as_posix()
    page = (
        template_environment()
        .get_template("compare.html.j2")
        .render(
            a=run_header(run_a, read_json(run_a / "manifest.json") or {}, result_rows(run_a)),
            b=run_header(run_b, read_json(run_b / "manifest.json") or {}, result_rows(run_b)),
            rows=rows,
            summary=summary,
            reports=reports,
            **page_assets(),
        )
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out, page)
    return out, format_compare(rows, str(run_a), str(run_b))
