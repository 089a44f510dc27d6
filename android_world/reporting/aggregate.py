"""The run's numbers over its episodes: per task, per tag and difficulty (also as CSV), time per
role, claims and model failures, and the bar chart's geometry."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from android_world.reporting.episode import Episode
from android_world.reporting.formatting import ROLE_LABELS, as_number, mean_of

DIFFICULTIES = ("easy", "medium", "hard")
UNTAGGED = "untagged"


def task_rows(episodes: Sequence[Episode]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per task template and the macro average over templates (upstream's mean success rate).

    Episodes that raised count as failed trials and stay out of the means, as in summary.csv.
    """
    by_task: dict[str, list[Episode]] = {}
    for ep in episodes:
        by_task.setdefault(str(ep.row.get("task")), []).append(ep)
    rows = []
    for task in sorted(by_task):
        eps = by_task[task]
        complete = [
            e for e in eps if not e.row.get("error") and as_number(e.row.get("score")) is not None
        ]
        steps = sum(int(as_number(e.row.get("steps")) or 0) for e in complete)
        calls = [e.row.get("calls") for e in complete if as_number(e.row.get("calls")) is not None]
        tokens = [
            e.row.get("tokens") for e in complete if as_number(e.row.get("tokens")) is not None
        ]
        costs = [
            as_number(e.row.get("cost_usd"))
            for e in eps
            if as_number(e.row.get("cost_usd")) is not None
        ]
        unscored = [e for e in eps if e.row.get("scored") is False and not e.row.get("error")]
        rows.append(
            {
                "task": task,
                "difficulty": eps[0].meta["difficulty"],
                "tags": eps[0].meta["tags"],
                "episodes": len(eps),
                "complete": len(complete),
                "failed": len(eps) - len(complete) - len(unscored),
                "success": mean_of([float(as_number(e.row.get("score")) or 0) for e in complete]),
                "mean_steps": mean_of(
                    [float(as_number(e.row.get("steps")) or 0) for e in complete]
                ),
                "runtime": sum(as_number(e.row.get("runtime")) or 0.0 for e in eps),
                "calls_per_step": sum(calls) / steps if calls and steps else None,
                "tokens_per_step": sum(tokens) / steps if tokens and steps else None,
                "cost": sum(costs) if costs else None,  # type: ignore[arg-type]
                "first": eps[0].name,
            }
        )
    average: dict[str, Any] = {"task": "macro average", "episodes": len(episodes)}
    for key in ("success", "mean_steps", "calls_per_step", "tokens_per_step"):
        average[key] = mean_of([r[key] for r in rows if r[key] is not None])
    for key in ("complete", "failed"):
        average[key] = sum(r[key] for r in rows)
    average["runtime"] = sum(r["runtime"] for r in rows)
    costs = [r["cost"] for r in rows if r["cost"] is not None]
    average["cost"] = sum(costs) if costs else None
    return rows, average


def tag_pivot(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Mean template success per tag x difficulty (a task counts under each of its tags)."""
    cells: dict[str, dict[str, list[float]]] = {}
    by_difficulty: dict[str, list[float]] = {}
    for row in rows:
        if row["success"] is None:
            continue
        by_difficulty.setdefault(row["difficulty"], []).append(row["success"])
        for tag in row["tags"] or [UNTAGGED]:
            cells.setdefault(tag, {}).setdefault(row["difficulty"], []).append(row["success"])
    columns = [d for d in DIFFICULTIES if d in by_difficulty]
    columns += sorted(set(by_difficulty) - set(DIFFICULTIES))
    return {
        "columns": columns,
        "rows": [
            {"tag": tag, "cells": [mean_of(cells[tag].get(d, [])) for d in columns]}
            for tag in sorted(cells)
        ],
        "by_difficulty": [
            {"difficulty": d, "success": mean_of(by_difficulty[d]), "tasks": len(by_difficulty[d])}
            for d in columns
        ],
    }


GROUP_COLUMNS = (
    "by", "group", "tasks", "episodes", "errors", "success", "complete_claims",
    "false_completions", "steps", "mean_steps", "calls", "calls_per_step",
)  # fmt: skip


GROUPS_CSV = "summary_by_tag.csv"


def group_rows(episodes: Sequence[Episode]) -> list[dict[str, Any]]:
    """Per tag and per difficulty (a task counts under each of its tags): template success as
    the summary averages it, the agent's false completions beside it, steps and model calls.

    `success` is the macro mean over the group's templates (episodes that raised stay out of it,
    as in summary.csv); the counts cover every episode of the group.
    """
    per_task, _ = task_rows(episodes)
    success = {row["task"]: row["success"] for row in per_task}
    groups: dict[tuple[str, str], list[Episode]] = {}
    for ep in episodes:
        for tag in ep.meta["tags"] or [UNTAGGED]:
            groups.setdefault(("tag", str(tag)), []).append(ep)
        groups.setdefault(("difficulty", str(ep.meta["difficulty"])), []).append(ep)
    order = {d: i for i, d in enumerate(DIFFICULTIES)}
    keys = sorted(groups, key=lambda k: (k[0] != "tag", order.get(k[1], len(order)), k[1]))
    return [_group_row(by, name, groups[(by, name)], success) for by, name in keys]


def _group_row(
    by: str, name: str, eps: Sequence[Episode], success: Mapping[str, float | None]
) -> dict[str, Any]:
    tasks = sorted({str(e.row.get("task")) for e in eps})
    complete = [
        e for e in eps if not e.row.get("error") and as_number(e.row.get("score")) is not None
    ]
    steps = sum(int(as_number(e.row.get("steps")) or 0) for e in eps)
    known_calls = [
        as_number(e.row.get("calls")) for e in eps if as_number(e.row.get("calls")) is not None
    ]
    calls = int(sum(known_calls)) if known_calls else None  # type: ignore[arg-type]
    mean_steps = mean_of([float(as_number(e.row.get("steps")) or 0) for e in complete])
    mean = mean_of([v for t in tasks if (v := success.get(t)) is not None])
    return {
        "by": by,
        "group": name,
        "tasks": len(tasks),
        "episodes": len(eps),
        "errors": len(eps) - len(complete),
        "success": None if mean is None else round(mean, 4),
        "complete_claims": sum(e.row.get("claimed") == "complete" for e in eps),
        "false_completions": sum(bool(e.row.get("false_complete")) for e in eps),
        "steps": steps,
        "mean_steps": None if mean_steps is None else round(mean_steps, 2),
        "calls": calls,
        "calls_per_step": round(calls / steps, 4) if calls is not None and steps else None,
    }


def groups_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(GROUP_COLUMNS)
    for row in rows:
        writer.writerow(["" if row[c] is None else row[c] for c in GROUP_COLUMNS])
    return buffer.getvalue()


def time_breakdown(episodes: Sequence[Episode]) -> dict[str, Any]:
    """Seconds per role over the run, with the unexplained rest of the runtime as `other`."""
    seconds: dict[str, float] = {}
    for ep in episodes:
        for role, value in ep.seconds.items():
            seconds[role] = seconds.get(role, 0.0) + value
    runtime = sum(as_number(ep.row.get("runtime")) or 0.0 for ep in episodes)
    steps = sum(int(as_number(ep.row.get("steps")) or 0) for ep in episodes)
    # Verifier personas run in parallel, so model seconds can exceed wall time: no `other` then.
    measured = sum(seconds.values())
    if runtime > measured:
        seconds["other"] = runtime - measured
    total = sum(seconds.values())
    order = list(ROLE_LABELS)
    roles = sorted(seconds, key=lambda r: (order.index(r) if r in order else len(order), r))
    items = [
        {
            "role": role,
            "label": ROLE_LABELS.get(role, role),
            "seconds": seconds[role],
            "share": seconds[role] / total if total else 0.0,
            "per_step": seconds[role] / steps if steps else None,
        }
        for role in roles
        if seconds[role] > 0
    ]
    return {"items": items, "total": total, "runtime": runtime, "steps": steps}


def claim_counts(rows: Iterable[Mapping[str, Any]]) -> dict[str, int] | None:
    """How often the agent said complete / infeasible, and how often that was false."""
    counts = {
        "complete": 0,
        "false_complete": 0,
        "infeasible": 0,
        "false_infeasible": 0,
        "done_unclaimed": 0,
    }
    for row in rows:
        counts["done_unclaimed"] += bool(row.get("done_unclaimed"))
        claimed = row.get("claimed")
        if claimed in ("complete", "infeasible") and row.get(f"false_{claimed}") is not None:
            counts[claimed] += 1
            counts[f"false_{claimed}"] += bool(row.get(f"false_{claimed}"))
    return (
        counts if counts["complete"] or counts["infeasible"] or counts["done_unclaimed"] else None
    )


def model_failures(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Failed model calls over the run (count, calls, first reason), or None when none failed."""
    calls = errors = 0
    first = None
    for row in rows:
        calls += int(as_number(row.get("calls")) or 0)
        errors += int(as_number(row.get("model_errors")) or 0)
        first = first or row.get("model_error")
    if not errors:
        return None
    return {"errors": errors, "calls": calls, "first": first, "all": errors == calls}


def bar_chart(rows: Sequence[Mapping[str, Any]], width: int = 640) -> dict[str, Any]:
    bar_h, gap, label_w = 18, 6, 210
    bars = []
    for i, row in enumerate(rows):
        value = row["success"]
        bars.append(
            {
                "label": row["task"],
                "y": i * (bar_h + gap),
                "w": (width - label_w - 60) * (value or 0.0),
                "value": value,
                "href": f"#task-{row['task']}",
            }
        )
    return {
        "bars": bars,
        "height": max(len(rows) * (bar_h + gap), bar_h),
        "width": width,
        "bar_h": bar_h,
        "label_w": label_w,
        "plot_w": width - label_w - 60,
    }
