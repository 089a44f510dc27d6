"""Reading a run directory (DESIGN §7): its result rows, manifest header and task facts.

Every reader is tolerant: a missing or half-written file reads as less detail, never an error, so
a run in progress, a killed run and a copied run are all reportable.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from android_world.harness import episode_rows, run_facts, upstream_checkpoints
from android_world.reporting.formatting import parse_time

EPISODES = "episodes"
EPISODE_PAGE = "index.html"
EPISODE_GIF = "episode.gif"
SIM_DISCLAIMER = "Suite family 'sim' runs on the simulated phone: NOT AndroidWorld scores."


class ReportError(Exception):
    """Bad input (not a run directory): one line, exit code 2."""


def read_json(path: Path) -> Any:
    """A missing or half-written file reads as None: a run in progress is still reportable."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Lines that are not JSON objects (a line cut by a kill) are skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return []
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            rows.append(value)
    return rows


def check_run_dir(path: Path) -> Path:
    """A run directory has a results.jsonl, a manifest.json or an episodes/ folder, or is an
    upstream AndroidWorld run (its `<Task>_<i>.pkl.gz` checkpoints)."""
    if not path.exists():
        raise ReportError(f"run directory not found: {path}")
    if not path.is_dir():
        raise ReportError(f"not a directory: {path} (pass a run directory such as runs/run_<ts>)")
    markers = ("results.jsonl", "manifest.json", EPISODES)
    if not any((path / m).exists() for m in markers) and not upstream_checkpoints.has_checkpoints(
        path
    ):
        raise ReportError(
            f"not a run directory: {path} has no results.jsonl, manifest.json, episodes/ or "
            "upstream checkpoints (*.pkl.gz) (pass a directory made by python -m "
            "android_world.harness.run, e.g. runs/run_<ts>, or an upstream AndroidWorld run directory)"
        )
    return path


def upstream_rows(run_dir: Path) -> list[dict[str, Any]]:
    """The result rows of an upstream run directory, read from its checkpoints (the user named
    the directory; `upstream_checkpoints.SafeUnpickler` builds plain data only)."""
    episodes = [
        upstream_checkpoints.to_ours(ep) for ep in upstream_checkpoints.read_episodes(run_dir)
    ]
    return [episode_rows.result_row(ep) for ep in episodes]


def result_rows(run_dir: Path) -> list[dict[str, Any]]:
    """results.jsonl, or (before the first one is written) each episode's summary.json row, or
    an upstream run's checkpoints."""
    rows = read_jsonl(run_dir / "results.jsonl")
    if rows:
        return [r for r in rows if r.get("name")]
    if not (run_dir / EPISODES).is_dir() and upstream_checkpoints.has_checkpoints(run_dir):
        return upstream_rows(run_dir)
    found = []
    for summary in sorted((run_dir / EPISODES).glob("*/summary.json")):
        row = (read_json(summary) or {}).get("result")
        if isinstance(row, dict) and row.get("name"):
            found.append(row)
    return found


@functools.cache
def _task_classes() -> Mapping[str, Any]:
    """Imported only when needed (and only once): a report of a copied run needs no tasks."""
    try:
        from android_world.task_evals import registry

        return dict(registry.TaskRegistry().get_registry("sim"))
    except Exception:
        return {}


def task_meta(task: str, override: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Difficulty, tags and step budget of a task: from the row if it has them, else the registry."""
    override = override or {}
    cls = _task_classes().get(task)
    complexity = override.get("complexity", getattr(cls, "complexity", None))
    tags = override.get("tags", getattr(cls, "tags", None)) or ()
    budget = override.get("step_budget")  # the run's own (a sim profile may scale it)
    if not isinstance(budget, int) and isinstance(complexity, (int, float)):
        budget = int(10 * complexity)
    return {
        "difficulty": str(
            override.get("difficulty") or getattr(cls, "difficulty", "") or "unknown"
        ),
        "tags": [str(t) for t in tags] if isinstance(tags, (list, tuple)) else [str(tags)],
        "budget": budget,
        "known": cls is not None or bool(override),
    }


def run_header(run_dir: Path, manifest: Mapping[str, Any], rows: Sequence[Mapping]) -> dict:
    """Agent, models per role, env, seeds, commit and duration, from manifest.json."""
    agent = manifest.get("agent") if isinstance(manifest.get("agent"), Mapping) else {}
    info = manifest.get("agent_info") if isinstance(manifest.get("agent_info"), Mapping) else {}
    roles_raw = manifest.get("models") or info.get("roles") or info.get("models") or {}
    roles = []
    if isinstance(roles_raw, Mapping):
        for role, value in roles_raw.items():
            if isinstance(value, Mapping):
                model = ":".join(str(value[k]) for k in ("backend", "model") if value.get(k))
                roles.append({"role": role, "model": model, "reason": value.get("reason") or ""})
            else:
                roles.append({"role": role, "model": str(value), "reason": ""})
    agents = sorted({str(r.get("agent")) for r in rows if r.get("agent")})
    started = parse_time(manifest.get("started_at"))
    finished = parse_time(manifest.get("finished_at"))
    duration = (finished - started).total_seconds() if started and finished else None
    seeds = manifest.get("seeds") if isinstance(manifest.get("seeds"), Mapping) else {}
    instances = seeds.get("instances") if isinstance(seeds.get("instances"), Mapping) else {}
    env = manifest.get("env") if isinstance(manifest.get("env"), Mapping) else {}
    family = manifest.get("suite_family")
    return {
        "name": run_dir.name,
        "agent": agent.get("configuration") or (agents[0] if agents else "unknown"),
        "registry_name": agent.get("registry_name") or "",
        "agent_kwargs": json.dumps(agent.get("kwargs"), default=str) if agent.get("kwargs") else "",
        "roles": roles,
        "env": ", ".join(f"{k}={v}" for k, v in env.items()) or "–",
        "seed_env": seeds.get("env"),
        "seed_tasks": seeds.get("task_random_seed"),
        "instances": len(instances),
        "commit": str(manifest.get("git_commit") or "–"),
        "python": manifest.get("python"),
        "started": manifest.get("started_at"),
        "finished": manifest.get("finished_at"),
        "resumed": manifest.get("resumed_at") or [],
        "duration": duration,
        "in_progress": bool(started and not finished),
        "family": family,
        "note": manifest.get("note") or (SIM_DISCLAIMER if family == "sim" else None),
        "reproducibility": _reproducibility_lines(manifest.get("reproducibility"), rows),
    }


def _reproducibility_lines(facts: Any, rows: Sequence[Mapping]) -> list[dict[str, str]]:
    """The header rows for manifest.json's `reproducibility` (none for older runs); a block this
    reader does not understand is one row saying so, not a failed report."""
    seen = {
        str(r.get("task")): int(budget)
        for r in rows
        if isinstance(budget := r.get("step_budget"), int) and not isinstance(budget, bool)
    }
    try:
        return run_facts.header_lines(facts, seen)
    except (AttributeError, KeyError, TypeError, ValueError):
        return [{"key": "reproducibility", "value": "unreadable block in manifest.json"}]
