"""The suite's summary table, upstream's `process_episodes` shape: per-template rows, the
macro-average row and success by tag x difficulty, plus the model-usage columns and the console
warnings about failed model calls."""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from android_world.harness.episode_outcome import is_failed, is_unscored
from android_world.task_evals import task_eval

AVERAGE_ROW = "========= Average ========="


UNTAGGED = "untagged"


DIFFICULTIES = ("easy", "medium", "hard")


@dataclasses.dataclass
class Summary:
    """Per-template rows, the macro-average row, and success by tag x difficulty."""

    rows: list[dict[str, Any]]
    average: dict[str, Any]
    pivot: dict[str, dict[str, float | None]]
    columns: list[str]


_BASE_COLUMNS = [
    "task_template",
    "num_complete_trials",
    "mean_success_rate",
    "mean_episode_length",
    "total_runtime_s",
    "num_fail_trials",
]


_USAGE_COLUMNS = [
    "model_calls_per_step",
    "tokens_per_step",
    "model_seconds_per_step",
    "cost_usd",
    "model_errors",
]


_MEMORY_COLUMNS = ["memory_hits"]


# Columns whose average row is a total over templates. Upstream's own columns (trials, failures,
# run time) are averaged over templates in its Average row, so they are averaged here too; only
# the columns upstream does not have are totals.
_TOTAL_COLUMNS = (
    "cost_usd",
    "memory_hits",
    "model_errors",
)


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


@dataclasses.dataclass
class UsageTotals:
    """Model usage summed over episodes, with the agent steps it was spent on."""

    calls: float = 0.0
    tokens: float = 0.0
    seconds: float = 0.0
    cost: float = 0.0
    errors: int = 0
    steps: int = 0
    present: bool = False

    def per_step(self, value: float) -> float | None:
        return value / self.steps if self.present and self.steps else None


def usage_totals(episodes: Iterable[Mapping[str, Any]]) -> UsageTotals:
    totals = UsageTotals()
    for ep in episodes:
        usage = ep.get("usage")
        if not isinstance(usage, dict):
            continue
        totals.present = True
        totals.calls += float(usage.get("model_calls") or 0)
        totals.tokens += float(usage.get("prompt_tokens") or 0) + float(
            usage.get("completion_tokens") or 0
        )
        totals.seconds += float(usage.get("model_seconds") or 0)
        totals.cost += float(usage.get("cost_usd") or 0)
        totals.errors += int(usage.get("errors") or 0)
        totals.steps += int(ep.get("episode_length") or 0)
    return totals


def process_episodes(
    episodes: list[Mapping[str, Any]],
    print_summary: bool = False,
    task_classes: Mapping[str, type[task_eval.TaskEval]] | None = None,
    print_fn: Callable[[str], None] = print,
) -> Summary:
    """Summarise episodes per task template; the average row is a macro mean over templates.

    Failed episodes count only in `num_fail_trials`. Counts and runtime in the average row are
    totals; rates and lengths are means of the per-template values.
    """
    by_template: dict[str, list[Mapping[str, Any]]] = {}
    for ep in episodes:
        by_template.setdefault(str(ep.get("task_template")), []).append(ep)
    any_usage = any(isinstance(ep.get("usage"), dict) for ep in episodes)
    any_memory = any(isinstance(ep.get("memory_hit"), bool) for ep in episodes)
    columns = (
        _BASE_COLUMNS
        + (_USAGE_COLUMNS if any_usage else [])
        + (_MEMORY_COLUMNS if any_memory else [])
    )
    rows = [
        _template_row(template, by_template[template], any_usage, any_memory)
        for template in sorted(by_template)
    ]
    average = _average_row(rows, columns)
    pivot = _tag_difficulty_pivot(rows, task_classes or {})
    summary = Summary(rows=rows, average=average, pivot=pivot, columns=columns)
    if print_summary:
        print_fn(format_summary(summary))
    return summary


def _template_row(
    template: str, eps: list[Mapping[str, Any]], any_usage: bool, any_memory: bool
) -> dict[str, Any]:
    """One task template's row: complete and unscored episodes count as run, the rest failed."""
    complete = [ep for ep in eps if not is_failed(ep) and ep.get("is_successful") is not None]
    # Unscored episodes (a free goal) ran to an end but have no score: not failures either.
    unscored = [ep for ep in eps if is_unscored(ep) and not is_failed(ep)]
    ran = complete + unscored
    row: dict[str, Any] = {
        "task_template": template,
        "num_complete_trials": len(complete),
        "mean_success_rate": _mean([float(ep["is_successful"]) for ep in complete]),
        "mean_episode_length": _mean([float(ep.get("episode_length") or 0) for ep in ran]),
        "total_runtime_s": round(sum(float(ep.get("run_time") or 0) for ep in eps), 1),
        "num_fail_trials": len(eps) - len(ran),
    }
    if any_usage:
        usage = usage_totals(ran)
        row["model_calls_per_step"] = usage.per_step(usage.calls)
        row["tokens_per_step"] = usage.per_step(usage.tokens)
        row["model_seconds_per_step"] = usage.per_step(usage.seconds)
        row["cost_usd"] = round(usage.cost, 6) if usage.present else None
        row["model_errors"] = usage.errors if usage.present else None
    if any_memory:
        row["memory_hits"] = sum(1 for ep in complete if ep.get("memory_hit") is True)
    return row


def _average_row(rows: list[dict[str, Any]], columns: list[str]) -> dict[str, Any]:
    """Totals for count and runtime columns, means of the per-template values for the rest."""
    average: dict[str, Any] = {"task_template": AVERAGE_ROW}
    for col in columns[1:]:
        values = [r[col] for r in rows if r[col] is not None]
        if col in _TOTAL_COLUMNS:
            total = sum(values)
            average[col] = round(total, 6) if isinstance(total, float) else total
        else:
            average[col] = _mean(values)
    return average


def _tag_difficulty_pivot(
    rows: list[dict[str, Any]], task_classes: Mapping[str, type[task_eval.TaskEval]]
) -> dict[str, dict[str, float | None]]:
    """Mean of template success rates per (tag, difficulty); a task counts under each of its tags."""
    cells: dict[str, dict[str, list[float]]] = {}
    for row in rows:
        if row["mean_success_rate"] is None:
            continue
        cls = task_classes.get(row["task_template"])
        tags = tuple(getattr(cls, "tags", ()) or ()) or (UNTAGGED,)
        difficulty = str(getattr(cls, "difficulty", "") or "unknown")
        for tag in tags:
            cells.setdefault(tag, {}).setdefault(difficulty, []).append(row["mean_success_rate"])
    pivot: dict[str, dict[str, float | None]] = {}
    for tag in sorted(cells):
        diffs = list(DIFFICULTIES) + sorted(set(cells[tag]) - set(DIFFICULTIES))
        pivot[tag] = {d: _mean(cells[tag].get(d, [])) for d in diffs}
    return pivot


def _wide_table(summary: Summary) -> list[str]:
    headers = {
        "task_template": "task",
        "num_complete_trials": "trials",
        "mean_success_rate": "success",
        "mean_episode_length": "steps",
        "total_runtime_s": "runtime_s",
        "num_fail_trials": "errors",
        "model_calls_per_step": "calls/step",
        "tokens_per_step": "tokens/step",
        "model_seconds_per_step": "model_s/step",
        "cost_usd": "cost_usd",
        "memory_hits": "mem_hits",
        "model_errors": "calls_failed",
    }
    all_rows = [*summary.rows, summary.average]
    name_w = max([len("task")] + [len(str(r["task_template"])) for r in all_rows])
    header = "task".ljust(name_w) + "".join(
        headers.get(c, c).rjust(_width(c)) for c in summary.columns[1:]
    )
    lines = [header, "-" * len(header)]
    for r in all_rows:
        if r is summary.average:
            lines.append("-" * len(header))
        lines.append(
            str(r["task_template"]).ljust(name_w)
            + "".join(_fmt(r[c], _width(c), c) for c in summary.columns[1:])
        )
    return lines


def _width(column: str) -> int:
    if column in ("num_complete_trials", "num_fail_trials", "memory_hits", "model_errors"):
        return 9
    return 13 if column == "model_seconds_per_step" else 12


def _fmt(value: Any, width: int, column: str = "") -> str:
    if value is None:
        text = "-"
    elif isinstance(value, float):
        text = f"{value:.4f}" if column == "cost_usd" else f"{value:.3f}"
    else:
        text = str(value)
    return text.rjust(width)


# Compact table (the console default): short headers and widths so it fits 80 columns; the
# run-time and model-seconds columns stay in summary.csv and `--wide`.
_COMPACT: dict[str, tuple[str, int, str]] = {
    "num_complete_trials": ("n", 4, "int"),
    "mean_success_rate": ("success", 8, ".3f"),
    "mean_episode_length": ("steps", 6, ".1f"),
    "num_fail_trials": ("errors", 7, "int"),
    "model_calls_per_step": ("call/st", 8, ".2f"),
    "tokens_per_step": ("tok/st", 7, "k"),
    "cost_usd": ("cost$", 7, ".4f"),
    "model_errors": ("callerr", 8, "int"),
    "memory_hits": ("mem", 4, "int"),
}


_WIDE_ONLY = ("total_runtime_s", "model_seconds_per_step")


SUMMARY_WIDTH = 80


def _compact_cell(value: Any, kind: str, width: int) -> str:
    if value is None:
        text = "-"
    elif kind == "int" and isinstance(value, (int, float)):
        text = str(int(value)) if float(value).is_integer() else f"{value:.1f}"
    elif kind == "k" and isinstance(value, (int, float)):
        text = f"{value / 1000:.1f}k" if value >= 10_000 else f"{value:.0f}"
    elif isinstance(value, float):
        text = format(value, kind)
    else:
        text = str(value)
    return text.rjust(width)


def distinct_clips(names: Iterable[str], width: int) -> dict[str, str]:
    """Each name as shown in `width` columns, no two alike: a long name keeps its head and as
    much of its tail as tells it from every other name (`RecipeDeleteDu…Recipes`,
    `RecipeDeleteDu…Pages`); a name that no cut keeps distinct is shown whole."""
    names = list(dict.fromkeys(names))
    shown = {}
    for name in names:
        if len(name) <= width:
            shown[name] = name
            continue
        shown[name] = name
        for tail in range(0, max(width - 2, 0)):
            head = width - 1 - tail
            if head < 1:
                break
            start, end = name[:head], name[len(name) - tail :] if tail else ""
            twins = [
                other
                for other in names
                if other != name and other.startswith(start) and other.endswith(end)
            ]
            if not twins:
                shown[name] = f"{start}…{end}"
                break
    return shown


def _compact_table(summary: Summary) -> list[str]:
    columns = [c for c in summary.columns[1:] if c not in _WIDE_ONLY]
    specs = {c: _COMPACT.get(c, (c[:9], max(len(c[:9]) + 1, 7), ".3f")) for c in columns}
    all_rows = [*summary.rows, summary.average]
    room = SUMMARY_WIDTH - sum(width for _, width, _ in specs.values())
    name_w = min(max([len("task")] + [len(str(r["task_template"])) for r in all_rows]), room)
    name_w = max(name_w, 12)
    # The average row's upstream label is for summary.csv; here it must not eat the name column.
    labels = {id(r): str(r["task_template"]) for r in summary.rows}
    labels[id(summary.average)] = "macro average"
    clips = distinct_clips(labels.values(), name_w)
    name_w = max(name_w, *(len(text) for text in clips.values()))
    header = "task".ljust(name_w) + "".join(h.rjust(w) for h, w, _ in specs.values())
    lines = [header, "-" * len(header)]
    for r in all_rows:
        if r is summary.average:
            lines.append("-" * len(header))
        lines.append(
            clips[labels[id(r)]].ljust(name_w)
            + "".join(_compact_cell(r[c], kind, w) for c, (_, w, kind) in specs.items())
        )
    return lines


def model_error_lines(episodes: Iterable[Mapping[str, Any]]) -> list[str]:
    """Console lines when model calls failed: how many, and the first reason, so a run whose
    every call failed never looks like a normal one."""
    calls = errors = 0
    first = None
    for ep in episodes:
        usage = ep.get("usage")
        if not isinstance(usage, Mapping):
            continue
        calls += int(usage.get("model_calls") or 0)
        errors += int(usage.get("errors") or 0)
        first = first or usage.get("first_error")
    if not errors:
        return []
    lines = [f"WARNING: {errors} of {calls} model calls failed."]
    if first:
        lines.append(f"  first failure: {first}")
    return lines


def all_model_calls_failed(episodes: Iterable[Mapping[str, Any]]) -> bool:
    calls = errors = 0
    for ep in episodes:
        usage = ep.get("usage")
        if isinstance(usage, Mapping):
            calls += int(usage.get("model_calls") or 0)
            errors += int(usage.get("errors") or 0)
    return calls > 0 and errors == calls


def format_summary(summary: Summary, title: str = "", wide: bool = False) -> str:
    """The per-template table, the macro-average row, and the pivot. Compact (80 columns, long
    task names clipped) unless `wide`, which shows every column at full width."""
    lines = [title] if title else []
    if not wide:
        lines += _compact_table(summary)
    else:
        lines += _wide_table(summary)
    if summary.pivot:
        diffs: list[str] = []
        for cells in summary.pivot.values():
            diffs += [d for d in cells if d not in diffs]
        tag_w = max(len("tag"), *(len(t) for t in summary.pivot))
        lines += ["", "mean success by tag x difficulty:"]
        lines.append("tag".ljust(tag_w) + "".join(d.rjust(10) for d in diffs))
        for tag, cells in summary.pivot.items():
            lines.append(tag.ljust(tag_w) + "".join(_fmt(cells.get(d), 10) for d in diffs))
    return "\n".join(lines)
