"""HTML rendering with jinja2: `report.html` and one page per episode, written atomically."""

from __future__ import annotations

import dataclasses
import datetime
import functools
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2

from android_world.harness.checkpointer import write_text_atomic
from android_world.reporting.aggregate import (
    GROUPS_CSV,
    bar_chart,
    claim_counts,
    group_rows,
    groups_csv,
    model_failures,
    tag_pivot,
    task_rows,
    time_breakdown,
)
from android_world.reporting.episode import Episode, load_episode
from android_world.reporting.formatting import (
    ROLE_LABELS,
    as_number,
    fmt_cost,
    fmt_num,
    fmt_pct,
    fmt_seconds,
)
from android_world.reporting.run_files import (
    EPISODE_GIF,
    EPISODE_PAGE,
    EPISODES,
    check_run_dir,
    read_json,
    result_rows,
    run_header,
)

TEMPLATES = Path(__file__).parent / "templates"


@functools.cache
def template_environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=jinja2.select_autoescape(["html", "j2"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.ChainableUndefined,
    )
    env.filters.update(num=fmt_num, cost=fmt_cost, pct=fmt_pct, secs=fmt_seconds)
    env.filters["tojson_compact"] = lambda v: json.dumps(v, ensure_ascii=False, default=str)
    env.globals["role_label"] = lambda role: ROLE_LABELS.get(role, role)
    return env


@functools.cache
def _asset(name: str) -> str:
    return (TEMPLATES / name).read_text(encoding="utf-8")


def page_assets() -> dict[str, jinja2.utils.markupsafe.Markup]:
    markup = jinja2.utils.markupsafe.Markup
    return {"css": markup(_asset("report.css")), "js": markup(_asset("report.js"))}


def render_episode(
    header: Mapping[str, Any],
    episode: Episode,
    prev: str | None,
    nxt: str | None,
    standalone: bool = False,
) -> str:
    """The episode's page; `standalone` (an exported single file) leaves out what only makes
    sense inside the run directory (the GIF beside it)."""
    return (
        template_environment()
        .get_template("episode.html.j2")
        .render(run=header, ep=episode, prev=prev, next=nxt, standalone=standalone, **page_assets())
    )


# The runner rewrites the report after every episode; within one process, an episode whose files
# have not changed is neither re-read nor re-rendered, so a long run does not pay O(n^2).
_CACHE: dict[str, tuple[tuple[Any, ...], Episode]] = {}


_CACHE_LIMIT = 20_000


def _episode_key(directory: Path, row: Mapping[str, Any]) -> tuple[Any, ...]:
    stats = []
    for name in ("episode.json", "feedback.jsonl", "summary.json", EPISODE_GIF):
        try:
            st = (directory / name).stat()
            stats.append((st.st_mtime_ns, st.st_size))
        except OSError:
            stats.append(None)
    return (*stats, json.dumps(row, sort_keys=True, default=str))


def _slim(episode: Episode) -> Episode:
    """What the summary page needs; the per-step detail is already in the episode's page."""
    return dataclasses.replace(episode, steps=[], plan_history=[])


def write_report(run_dir: Path | str) -> Path:
    """Write report.html and episodes/<name>/index.html for every episode; returns report.html."""
    run_dir = check_run_dir(Path(run_dir))
    started = time.perf_counter()
    manifest = read_json(run_dir / "manifest.json") or {}
    rows = result_rows(run_dir)
    header = run_header(run_dir, manifest, rows)
    names = [str(row.get("name")) for row in rows]
    episodes = []
    for i, row in enumerate(rows):
        directory = run_dir / EPISODES / names[i]
        prev = names[i - 1] if i > 0 else None
        nxt = names[i + 1] if i + 1 < len(names) else None
        key = (*_episode_key(directory, row), prev, nxt, header["name"], header["agent"])
        cached = _CACHE.get(str(directory.resolve()))
        if cached is not None and cached[0] == key and (directory / EPISODE_PAGE).exists():
            episodes.append(cached[1])
            continue
        episode = load_episode(run_dir, row)
        if directory.is_dir():
            page = render_episode(header, episode, prev, nxt)
            write_text_atomic(directory / EPISODE_PAGE, page, durable=False)  # rebuilt from files
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        _CACHE[str(directory.resolve())] = (key, _slim(episode))
        episodes.append(episode)
    per_task, average = task_rows(episodes)
    page = (
        template_environment()
        .get_template("summary.html.j2")
        .render(
            run=header,
            tasks=per_task,
            average=average,
            pivot=tag_pivot(per_task),
            chart=bar_chart(per_task),
            times=time_breakdown(episodes),
            episodes=episodes,
            has_pages={ep.name for ep in episodes if (run_dir / EPISODES / ep.name).is_dir()},
            usage_known=any(as_number(ep.row.get("calls")) is not None for ep in episodes),
            model_failures=model_failures(ep.row for ep in episodes),
            claims=claim_counts(ep.row for ep in episodes),
            generated=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            elapsed=time.perf_counter() - started,
            **page_assets(),
        )
    )
    write_text_atomic(run_dir / GROUPS_CSV, groups_csv(group_rows(episodes)), durable=False)
    out = run_dir / "report.html"
    write_text_atomic(out, page, durable=False)
    return out
