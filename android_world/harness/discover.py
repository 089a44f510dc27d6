"""What a newcomer asks before a run: which tasks and agents exist, and what a command would do.

`--list tasks|agents` and `--dry_run` print from here; every function returns text so the console
stays the runner's business and the tables stay testable. Tables fit 80 columns: a long last cell
wraps onto continuation lines rather than widening the whole table.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

LIST_KINDS = ("tasks", "agents", "profiles")
DIFFICULTIES = ("easy", "medium", "hard")
WIDTH = 80


@dataclass(frozen=True)
class TaskInfo:
    """One task class as the listing and the filters see it."""

    name: str
    apps: tuple[str, ...]
    difficulty: str
    complexity: float
    tags: tuple[str, ...]


def format_table(headers: Sequence[str], rows: Iterable[Sequence[str]], width: int = WIDTH) -> str:
    """Left-aligned columns; the last column takes what is left of `width` and wraps onto
    continuation lines, so nothing is lost and nothing runs past the terminal. A first cell
    too long to leave the last column room (a 49-letter task name) gets a line of its own."""
    rows = [list(map(str, r)) for r in rows]
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]
    if len(headers) > 1:
        others = sum(widths[1:-1]) + 2 * (len(headers) - 1)
        widths[0] = min(widths[0], max(len(headers[0]), width - others - max(len(headers[-1]), 10)))
    indent = sum(widths[:-1]) + 2 * (len(headers) - 1)
    widths[-1] = max(min(widths[-1], width - indent), len(headers[-1]), 10)

    def lines(cells: Sequence[str]) -> list[str]:
        if len(cells) > 1 and len(cells[0]) > widths[0]:
            return [cells[0], *lines(["", *cells[1:]])]
        head = "  ".join(c.ljust(w) for c, w in zip(cells[:-1], widths, strict=False))
        tail = textwrap.wrap(cells[-1], widths[-1], break_on_hyphens=False) or [""]
        prefix = head + "  " if len(cells) > 1 else ""
        return [(prefix if i == 0 else " " * len(prefix)) + t for i, t in enumerate(tail)]

    out = lines(headers) + lines(["-" * w for w in widths])
    for row in rows:
        out += lines(row)
    return "\n".join(line.rstrip() for line in out)


def wrap_line(text: str, width: int = WIDTH) -> str:
    """A long console line folded to `width`, continuation lines indented."""
    return textwrap.fill(
        text, width=width, subsequent_indent="    ", break_on_hyphens=False, break_long_words=False
    )


def task_info(name: str, task_class: type, instance: Any | None = None) -> TaskInfo:
    """Class attributes where they are static; `complexity` and `app_names` may be properties,
    so they are read from an instance when one is given."""
    source = instance if instance is not None else task_class
    apps = getattr(source, "app_names", ())
    complexity = getattr(source, "complexity", 0.0)
    return TaskInfo(
        name=name,
        apps=tuple(apps) if isinstance(apps, (list, tuple)) else (),
        difficulty=str(getattr(task_class, "difficulty", "")),
        complexity=float(complexity) if isinstance(complexity, (int, float)) else 0.0,
        tags=tuple(getattr(task_class, "tags", ()) or ()),
    )


def filter_tasks(
    infos: Sequence[TaskInfo], tags: Sequence[str] = (), difficulty: Sequence[str] = ()
) -> list[TaskInfo]:
    """Tasks carrying any of `tags` and of any of `difficulty`; an unknown value is an error
    naming the known ones, since an empty selection would otherwise run nothing silently."""
    known_tags = sorted({t for info in infos for t in info.tags})
    for tag in tags:
        if tag not in known_tags:
            raise ValueError(f"unknown tag {tag!r}; known tags: {', '.join(known_tags)}")
    for level in difficulty:
        if level not in DIFFICULTIES:
            raise ValueError(f"unknown difficulty {level!r}; use {', '.join(DIFFICULTIES)}")
    return [
        info
        for info in infos
        if (not tags or set(tags) & set(info.tags))
        and (not difficulty or info.difficulty in difficulty)
    ]


def tasks_table(infos: Sequence[TaskInfo]) -> str:
    """One line per task, whatever the terminal: name, difficulty, step budget, apps, tags
    (lists comma-joined). Folding the last column broke tags mid-word and turned 85 tasks
    into 329 lines; a line per task is what grep, sort and a reader want."""
    headers = ("task", "difficulty", "steps", "apps", "tags")
    rows = [
        (
            info.name,
            info.difficulty,
            str(int(10 * info.complexity)),
            ",".join(info.apps) or "-",
            ",".join(info.tags) or "-",
        )
        for info in infos
    ]
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]
    right = {2}  # numbers line up on the right

    def line(cells: Sequence[str]) -> str:
        padded = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(padded).rstrip()

    out = [line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)]
    out.append(f"{len(rows)} tasks (steps = the step budget, 10 x complexity)")
    return "\n".join(out)


def agents_table(
    configurations: Mapping[str, str], registered: Sequence[str], active: str, width: int = WIDTH
) -> str:
    """Configured agents (config key -> registry name) and registered agents with no config."""
    rows = []
    for key, registry_name in sorted(configurations.items()):
        mark = "*" if key == active else ""
        rows.append((f"{key}{mark}", registry_name, "agent.configurations"))
    for name in sorted(set(registered) - set(configurations)):
        mark = "*" if name == active else ""
        rows.append((f"{name}{mark}", name, "registered (no config keys)"))
    table = format_table(("agent", "registry name", "defined in"), rows, width)
    return f"{table}\n* = active agent (--agent NAME picks another)"


def dry_run_text(
    *,
    config_label: str,
    agent: str,
    env: str,
    suite_family: str,
    n_task_combinations: int,
    task_names: Sequence[str],
    models: Mapping[str, str],
    run_dir: str,
    width: int = WIDTH,
) -> str:
    """What a run would do, from validated input only: no device, model or file is touched."""
    episodes = len(task_names) * n_task_combinations
    lines = [
        "Dry run: the config, agent and task selection are valid; nothing was run.",
        f"config:   {config_label}",
        f"agent:    {agent}",
        f"env:      {env}",
        f"models:   {', '.join(f'{k}={v}' for k, v in models.items()) or '(none)'}",
        f"episodes: {episodes} ({len(task_names)} tasks x {n_task_combinations} "
        f"in {suite_family!r})",
        f"output:   {run_dir}",
    ]
    names = textwrap.wrap(", ".join(task_names), width=width - 10)
    lines += [("tasks:    " if i == 0 else " " * 10) + chunk for i, chunk in enumerate(names)]
    return "\n".join(lines)
