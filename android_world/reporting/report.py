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
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import datetime
import functools
import io
import json
import math
import os
import struct
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2

import android_world
from android_world.harness import episode_rows, run_facts, upstream_checkpoints
from android_world.harness.checkpointer import write_text_atomic
from android_world.reporting import episode_export, run_bundle

EPISODES = "episodes"
EPISODE_PAGE = "index.html"
EPISODE_GIF = "episode.gif"
SCREEN_SIZE = (1080, 2400)  # Pixel 6; used when a screenshot's own size cannot be read
SIM_DISCLAIMER = "Suite family 'sim' runs on the simulated phone: NOT AndroidWorld scores."
TEMPLATES = Path(__file__).parent / "templates"
DIFFICULTIES = ("easy", "medium", "hard")
UNTAGGED = "untagged"
# Role names as the ledger writes them, and how the report labels them.
ROLE_LABELS = {
    "maestro": "planner (maestro)",
    "section_leader": "executor (section leader)",
    "verifiers": "verifiers",
    "vision_fallback": "vision fallback",
    "ocr": "OCR",
    "device": "device (execute)",
    "post_check": "settle + observe (post-check)",
    "other": "other (agent, harness)",
}


class ReportError(Exception):
    """Bad input (not a run directory): one line, exit code 2."""


# --------------------------------------------------------------------------------------------
# Reading the run directory


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


# --------------------------------------------------------------------------------------------
# Small formatting helpers (also used as template filters)


def _defined(value: Any) -> Any:
    """Template lookups of absent fields give jinja2's Undefined; the filters treat it as None."""
    return None if isinstance(value, jinja2.Undefined) else value


def fmt_num(value: Any, digits: int = 2) -> str:
    value = _defined(value)
    if value is None or value == "":
        return "–"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        if value.is_integer() and abs(value) >= 100:
            return f"{int(value):,}"
        return f"{value:,.{digits}f}"
    return str(value)


def fmt_cost(value: Any) -> str:
    value = _defined(value)
    if value is None:
        return "–"
    value = float(value)
    return f"${value:.4f}" if value < 1 else f"${value:,.2f}"


def fmt_pct(value: Any) -> str:
    value = _defined(value)
    return "–" if value is None else f"{100 * float(value):.0f}%"


def fmt_seconds(value: Any) -> str:
    value = _defined(value)
    if value is None:
        return "–"
    seconds = float(value)
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, sec = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {sec:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _parse_time(text: Any) -> datetime.datetime | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.datetime.fromisoformat(text)
    except ValueError:
        return None


def png_size(path: Path) -> tuple[int, int] | None:
    """Width and height from the PNG header (24 bytes), without decoding the image."""
    try:
        with open(path, "rb") as f:
            head = f.read(24)
    except OSError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    width, height = struct.unpack(">II", head[16:24])
    return (int(width), int(height)) if width and height else None


# --------------------------------------------------------------------------------------------
# Events


def events_by_step(
    events: Sequence[Mapping[str, Any]],
) -> dict[int | None, list[Mapping[str, Any]]]:
    """Events keyed by the runner's 0-based step (the writer stamps `step`; an agent's own
    counter is in `agent_step`); None holds events outside any step."""
    grouped: dict[int | None, list[Mapping[str, Any]]] = {}
    for event in events:
        step = event.get("step")
        grouped.setdefault(step if isinstance(step, int) else None, []).append(event)
    return grouped


def usage_of(calls: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Totals of model_call events, overall and by role."""
    total = {"calls": 0, "tokens": 0, "seconds": 0.0, "cost": 0.0, "errors": 0, "by_role": {}}
    for call in calls:
        role = str(call.get("role") or "model")
        bucket = total["by_role"].setdefault(
            role, {"calls": 0, "tokens": 0, "seconds": 0.0, "cost": 0.0, "errors": 0, "model": ""}
        )
        tokens = int(_num(call.get("prompt_tokens")) or 0) + int(
            _num(call.get("completion_tokens")) or 0
        )
        seconds = _num(call.get("latency_s")) or 0.0
        cost = _num(call.get("cost_usd")) or 0.0
        for target in (total, bucket):
            target["calls"] += 1
            target["tokens"] += tokens
            target["seconds"] += seconds
            target["cost"] += cost
            target["errors"] += 1 if call.get("error") else 0
        if call.get("model"):
            bucket["model"] = f"{call.get('backend') or ''}:{call.get('model')}".lstrip(":")
    return total


def role_seconds(events: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Where an episode's time went, from what the events show.

    Model time per role is the ledger's latency. Device time is the `executed` event's
    `duration_s` (or gate -> executed for agents that do not time it). Post-check is executed ->
    post_check (settling and observing the new screen) minus the OCR the same step reports in
    its `timing` events, because that OCR runs inside the window and is counted under `ocr`.
    Other events carrying `role` and `duration_s`/`latency_s` count under their role.

    A role whose `timing` events carry `wall_s` (Celil's) is counted by that wall time, model
    calls included: three verifier calls made at once take the time of the slowest, not the sum.
    """
    seconds: dict[str, float] = {}
    ocr_by_step: dict[Any, float] = {}
    walled = {
        str(e.get("role"))
        for e in events
        if e.get("type") == "timing" and _num(e.get("wall_s")) is not None
    }
    for event in events:
        if event.get("type") == "timing" and event.get("role") == "ocr":
            step = event.get("step")
            ocr_by_step[step] = ocr_by_step.get(step, 0.0) + (_num(event.get("duration_s")) or 0.0)

    def add(role: str, value: float) -> None:
        seconds[role] = seconds.get(role, 0.0) + value

    last_gate: float | None = None
    last_exec: float | None = None
    for event in events:
        kind = event.get("type")
        ts = _num(event.get("ts"))
        if kind == "model_call":
            if str(event.get("role") or "model") not in walled:
                add(str(event.get("role") or "model"), _num(event.get("latency_s")) or 0.0)
        elif kind == "timing" and str(event.get("role")) in walled:
            add(str(event["role"]), _num(event.get("wall_s")) or 0.0)
        elif kind == "gate":
            last_gate = ts
        elif kind == "executed":
            timed = _num(event.get("duration_s"))
            if timed is not None:
                add("device", timed)
            elif ts is not None and last_gate is not None and ts >= last_gate:
                add("device", ts - last_gate)
            last_gate, last_exec = None, ts
        elif kind == "post_check":
            if ts is not None and last_exec is not None and ts >= last_exec:
                window = ts - last_exec - ocr_by_step.get(event.get("step"), 0.0)
                add("post_check", max(0.0, window))
            last_exec = None
        elif event.get("role") and _num(event.get("duration_s") or event.get("latency_s")):
            add(str(event["role"]), _num(event.get("duration_s") or event.get("latency_s")) or 0.0)
    return seconds


# --------------------------------------------------------------------------------------------
# The action drawn on the screenshot


def _box(value: Any) -> list[float] | None:
    """[x0, y0, x1, y1] from a list or a BoundingBox-like dict (x_min, x_max, y_min, y_max)."""
    if isinstance(value, Mapping):
        keys = ("x_min", "y_min", "x_max", "y_max")
        if all(_num(value.get(k)) is not None for k in keys):
            return [float(value[k]) for k in keys]
        keys = ("left", "top", "right", "bottom")
        if all(_num(value.get(k)) is not None for k in keys):
            return [float(value[k]) for k in keys]
        return None
    if (
        isinstance(value, (list, tuple))
        and len(value) == 4
        and all(_num(v) is not None for v in value)
    ):
        x0, y0, x1, y1 = (float(v) for v in value)
        return [min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)]
    return None


_BOX_KEYS = ("target_box", "target_bbox", "element_box", "element_bbox", "bbox_pixels", "bbox")


def action_overlay(
    action: Mapping[str, Any] | None, data: Mapping[str, Any], size: tuple[int, int]
) -> dict[str, Any] | None:
    """What to draw for an action in screenshot pixels: a tap point, an element box, an arrow
    (scroll/swipe, finger direction) and a label. Scroll is content direction, so the finger
    moves the other way (DESIGN §2)."""
    if not isinstance(action, Mapping):
        return None
    kind = str(action.get("action_type") or "")
    width, height = size
    box = None
    for source in (action, data):
        for key in _BOX_KEYS:
            box = box or _box(source.get(key))
    x, y = _num(action.get("x")), _num(action.get("y"))
    snapped = data.get("snapped")
    if (x is None or y is None) and isinstance(snapped, Mapping):
        x, y = _num(snapped.get("x")), _num(snapped.get("y"))
    if (x is None or y is None) and box is not None:
        x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    index = action.get("index")
    label_bits = [kind or "action"]
    if index is not None:
        label_bits.append(f"#{index}")
    overlay: dict[str, Any] = {"kind": kind, "box": box, "point": None, "arrow": None}
    if (
        kind in ("click", "long_press", "double_tap", "input_text")
        and x is not None
        and y is not None
    ):
        overlay["point"] = [x, y]
    if kind in ("scroll", "swipe"):
        direction = str(action.get("direction") or "")
        cx, cy = (x, y) if x is not None and y is not None else (width / 2, height / 2)
        span_x, span_y = width * 0.25, height * 0.15
        if box is not None:
            span_x = min(span_x, max((box[2] - box[0]) / 2.5, 60))
            span_y = min(span_y, max((box[3] - box[1]) / 2.5, 60))
        moves = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
        dx, dy = moves.get(direction, (0, 0))
        if kind == "scroll":
            dx, dy = -dx, -dy
        if dx or dy:
            overlay["arrow"] = [
                cx - dx * span_x,
                cy - dy * span_y,
                cx + dx * span_x,
                cy + dy * span_y,
            ]
        label_bits.append(direction)
    if kind == "input_text":
        label_bits.append(repr(str(action.get("text") or ""))[:60])
    elif kind == "open_app":
        label_bits.append(str(action.get("app_name") or ""))
    elif kind == "status":
        label_bits.append(str(action.get("goal_status") or ""))
    elif kind == "answer":
        label_bits.append(repr(str(action.get("text") or ""))[:60])
    overlay["label"] = " ".join(b for b in label_bits if b)
    anchor_y = overlay["point"][1] if overlay["point"] else (box[3] if box else height * 0.8)
    overlay["label_y"] = min(max(anchor_y + 90, 90), height - 40)
    overlay["label_x"] = width / 2
    overlay["r"] = max(width, height) / 60
    overlay["stroke"] = max(width, height) / 300
    overlay["font"] = max(width, height) / 50
    return overlay


def ocr_boxes(data: Mapping[str, Any], step_events: Sequence[Mapping[str, Any]]) -> list[dict]:
    """OCR lines with boxes, from step data (`ocr_lines`) or an event that carries them."""
    sources: list[Any] = [data.get("ocr_lines"), data.get("ocr")]
    sources += [
        e.get("ocr_lines") or e.get("lines") for e in step_events if "ocr" in str(e.get("type"))
    ]
    sources += [e.get("ocr_lines") for e in step_events]
    for source in sources:
        if not isinstance(source, list):
            continue
        lines = []
        for line in source:
            if not isinstance(line, Mapping):
                continue
            box = _box(line.get("box") or line.get("bbox"))
            if box is not None:
                lines.append({"text": str(line.get("text") or ""), "box": box})
        if lines:
            return lines
    return []


# --------------------------------------------------------------------------------------------
# One episode


@dataclasses.dataclass
class Episode:
    """What the summary page needs of an episode, plus what its own page shows."""

    name: str
    row: dict[str, Any]
    meta: dict[str, Any]
    end_reason: str
    end_kind: str  # success | fail | error | running | unscored
    usage: dict[str, Any]
    seconds: dict[str, float]
    steps: list[dict[str, Any]]
    plan_history: list[dict[str, Any]]
    events: int
    answer: str | None
    warnings: list[str]
    agent_summary: dict[str, Any]
    exception: str | None
    params: dict[str, Any] = dataclasses.field(default_factory=dict)
    expected_answer: str | None = None
    gif: bool = False  # episodes/<name>/episode.gif exists: the page links it


def end_reason(
    row: Mapping[str, Any],
    steps: Sequence[Mapping[str, Any]],
    agent_summary: Mapping[str, Any],
    events: Sequence[Mapping[str, Any]],
    budget: int | None,
) -> tuple[str, str]:
    """Why the episode ended, in words, and a kind for colouring."""
    if row.get("error"):
        return f"error: {row['error']}", "error"
    status = agent_summary.get("status")
    for event in reversed(events):
        if event.get("type") == "episode_end" and event.get("status"):
            status = status or event.get("status")
            break
    last_action = {}
    if steps:
        data = steps[-1].get("data") or {}
        status = status or data.get("status")
        last_action = data.get("action") if isinstance(data.get("action"), Mapping) else {}
    if not status and last_action.get("action_type") == "status":
        status = last_action.get("goal_status")
    score = _num(row.get("score"))
    kind = "success" if score is not None and score >= 1.0 else "fail"
    if row.get("score") is None and not row.get("done"):
        kind = "running"
    if row.get("scored") is False:  # a free goal (--goal): the agent's claim, no task check
        reason, _ = end_reason(
            {**row, "scored": True, "score": 0.0}, steps, agent_summary, events, budget
        )
        why = f"; {row['end_reason']}" if row.get("end_reason") else ""
        return f"unscored (no task check): {reason}{why}", "unscored"
    n_steps = int(_num(row.get("steps")) or len(steps))
    if row.get("done"):
        if status == "infeasible":
            return "agent gave up: status infeasible", kind
        if status:
            return f"agent signalled done: status {status}", kind
        return "agent signalled done", kind
    if budget is not None and n_steps >= budget:
        return f"step budget reached ({n_steps}/{budget} steps), not done", kind
    if row.get("score") is None:
        return "not finished", kind
    return f"stopped after {n_steps} steps, not done", kind


def plan_history(
    events: Sequence[Mapping[str, Any]], steps: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Each plan the agent held, when it was made and why (events first; step data otherwise)."""
    history: list[dict[str, Any]] = []
    for event in events:
        kind = event.get("type")
        if kind not in ("plan_created", "plan_revised", "memory_hit"):
            continue
        sub_goals = event.get("sub_goals") or event.get("plan") or []
        if not isinstance(sub_goals, list):
            continue
        step = event.get("step")
        history.append(
            {
                "kind": kind,
                "step": step if isinstance(step, int) else None,
                "sub_goals": [str(s) for s in sub_goals],
                "done": [str(s) for s in event.get("done_sub_goals") or []],
                "why": event.get("kind") or event.get("rationale") or event.get("source") or "",
                "rationale": event.get("rationale") or "",
                "similarity": event.get("similarity"),
            }
        )
    if history:
        return history
    previous: list[str] | None = None
    for step in steps:
        data = step.get("data") or {}
        plan = data.get("plan")
        if isinstance(plan, list) and plan != previous:
            history.append(
                {
                    "kind": "plan_created" if previous is None else "plan_revised",
                    "step": step.get("step_number"),
                    "sub_goals": [str(s) for s in plan],
                    "done": [str(s) for s in data.get("done_sub_goals") or []],
                    "why": data.get("rehearsal") or "",
                    "rationale": "",
                    "similarity": None,
                }
            )
            previous = plan
    return history


_STEP_KEYS_SHOWN = {
    "goal", "sub_goal", "action", "outcome", "warnings", "frame_hash", "activity", "plan_created",
    "proposals", "action_description", "votes", "verifier_score", "threshold", "irreversible",
    "gate", "executed", "execution_error", "screen_changed", "post_check", "plan", "done_sub_goals",
    "rehearsals_so_far", "summary", "rehearsal", "plan_revised", "snapped", "status", "answer",
    "sub_goals_completed", "memory_hit", "vision_select", "evidence", "infeasible_reason",
    "vote_skipped",
}  # fmt: skip


def build_step(
    record: Mapping[str, Any],
    step_events: Sequence[Mapping[str, Any]],
    episode_dir: Path,
) -> dict[str, Any]:
    """Everything one step's panel shows; missing pieces are simply absent."""
    data = record.get("data") if isinstance(record.get("data"), Mapping) else {}
    number = record.get("step_number")
    screenshot = record.get("screenshot")
    size = SCREEN_SIZE
    if screenshot:
        size = png_size(episode_dir / str(screenshot)) or SCREEN_SIZE
        if not (episode_dir / str(screenshot)).exists():
            screenshot = None
    action = data.get("action") if isinstance(data.get("action"), Mapping) else None
    by_type: dict[str, list[Mapping[str, Any]]] = {}
    for event in step_events:
        by_type.setdefault(str(event.get("type")), []).append(event)
    votes = data.get("votes") if isinstance(data.get("votes"), list) else None
    if votes is None:
        votes = [dict(e) for e in by_type.get("vote", [])]
    gate = None
    if data.get("gate") is not None or data.get("verifier_score") is not None:
        gate = {
            "passed": data.get("gate") == "pass",
            "score": data.get("verifier_score"),
            "threshold": data.get("threshold"),
            "irreversible": data.get("irreversible"),
            # The adaptive verifier's rule for running this action unvoted (its threshold is 0).
            "skipped": data.get("vote_skipped"),
        }
    elif by_type.get("gate"):
        event = by_type["gate"][-1]
        gate = {
            "passed": bool(event.get("passed")),
            "score": event.get("score"),
            "threshold": event.get("threshold"),
            "irreversible": event.get("irreversible"),
            "skipped": event.get("vote_skipped"),
        }
    proposals = data.get("proposals") if isinstance(data.get("proposals"), list) else []
    if not proposals:
        proposals = [dict(e) for e in by_type.get("action_proposed", [])]
    rejected = gate is not None and not gate["passed"]
    unused = [p for p in proposals if isinstance(p, Mapping) and p.get("action") != action]
    post = data.get("post_check") if isinstance(data.get("post_check"), Mapping) else None
    if post is None and by_type.get("post_check"):
        post = dict(by_type["post_check"][-1])
    thought = ""
    for proposal in reversed(proposals):
        if isinstance(proposal, Mapping) and proposal.get("thought"):
            thought = str(proposal["thought"])
            break
    thought = thought or str(data.get("thought") or data.get("reason") or "")
    extra = {k: v for k, v in data.items() if k not in _STEP_KEYS_SHOWN}
    overlay = action_overlay(action, data, size)
    if overlay is not None and (rejected or data.get("executed") is False):
        # Drawn apart from executed actions: the screen after it is not its result.
        overlay["not_executed"] = True
        overlay["label"] = "not run: " + overlay["label"]
    return {
        "number": number,
        "screenshot": screenshot,
        "size": size,
        "overlay": overlay,
        "ocr": ocr_boxes(data, step_events),
        "action": action,
        "description": data.get("action_description") or _describe(action),
        "sub_goal": data.get("sub_goal"),
        "outcome": data.get("outcome"),
        "thought": thought,
        "votes": [v for v in votes if isinstance(v, Mapping)],
        "gate": gate,
        "rejected": rejected,
        "unused_proposals": unused,
        "rehearsals": [dict(e) for e in by_type.get("rehearsal", [])],
        "revised": [dict(e) for e in by_type.get("plan_revised", [])],
        "sub_goals_done": [dict(e) for e in by_type.get("sub_goal_done", [])],
        # Done verdicts the agent refused: no screen evidence (issue 14).
        "evidence_refused": [dict(e) for e in by_type.get("evidence", []) if not e.get("accepted")],
        "vision": [dict(e) for e in by_type.get("vision_select", [])],
        "answers": [dict(e) for e in by_type.get("answer", [])],
        "post_check": post,
        "executed": data.get("executed"),
        "execution_error": data.get("execution_error"),
        # A warning is both in the step data and a `warning` event: show it once.
        "warnings": list(
            dict.fromkeys(
                [str(w) for w in data.get("warnings") or []]
                + [str(e.get("message")) for e in by_type.get("warning", []) if e.get("message")]
            )
        ),
        "usage": usage_of(by_type.get("model_call", [])),
        "plan": data.get("plan") if isinstance(data.get("plan"), list) else None,
        "done_sub_goals": data.get("done_sub_goals") or [],
        "done": record.get("done"),
        "extra": json.dumps(extra, indent=1, ensure_ascii=False, default=str)[:4000]
        if extra
        else "",
    }


def _describe(action: Mapping[str, Any] | None) -> str:
    if not action:
        return "no action"
    rest = ", ".join(f"{k}={v!r}" for k, v in action.items() if k != "action_type")
    return f"{action.get('action_type')}({rest})"


def load_episode(run_dir: Path, row: Mapping[str, Any]) -> Episode:
    name = str(row.get("name"))
    directory = run_dir / EPISODES / name
    episode = read_json(directory / "episode.json") or {}
    summary = read_json(directory / "summary.json") or {}
    agent_summary = summary.get("agent") if isinstance(summary.get("agent"), dict) else {}
    events = read_jsonl(directory / "feedback.jsonl")
    steps_raw = [s for s in episode.get("steps") or [] if isinstance(s, Mapping)]
    grouped = events_by_step(events)
    steps = [
        build_step(record, grouped.get(record.get("step_number"), []), directory)
        for record in steps_raw
    ]
    meta = task_meta(str(row.get("task")), row)
    reason, kind = end_reason(row, steps_raw, agent_summary, events, meta["budget"])
    answer = agent_summary.get("answer")
    for event in events:
        if event.get("type") == "answer" and event.get("text"):
            answer = answer or event.get("text")
    warnings = [str(e.get("message")) for e in events if e.get("type") == "warning"]
    exception = episode.get("exception_info")
    return Episode(
        name=name,
        row=dict(row),
        meta=meta,
        end_reason=reason,
        end_kind=kind,
        usage=usage_of(e for e in events if e.get("type") == "model_call"),
        seconds=role_seconds(events),
        steps=steps,
        plan_history=plan_history(events, steps_raw),
        events=len(events),
        answer=str(answer) if answer else None,
        warnings=warnings,
        agent_summary=agent_summary,
        exception=json.dumps(exception, indent=1, default=str)[:6000] if exception else None,
        params=task_params(episode.get("params")),
        expected_answer=(
            str(episode["expected_answer"]) if episode.get("expected_answer") is not None else None
        ),
        gif=(directory / EPISODE_GIF).is_file(),
    )


def task_params(params: Any) -> dict[str, Any]:
    """The task's drawn parameters without the seed (shown beside it already), as short text."""
    if not isinstance(params, Mapping):
        return {}
    shown = {}
    for key, value in params.items():
        if key == "seed":
            continue
        text = value if isinstance(value, str) else json.dumps(value, default=str)
        shown[str(key)] = text if len(text) <= 300 else text[:299] + "…"
    return shown


# --------------------------------------------------------------------------------------------
# The run


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
            e for e in eps if not e.row.get("error") and _num(e.row.get("score")) is not None
        ]
        steps = sum(int(_num(e.row.get("steps")) or 0) for e in complete)
        calls = [e.row.get("calls") for e in complete if _num(e.row.get("calls")) is not None]
        tokens = [e.row.get("tokens") for e in complete if _num(e.row.get("tokens")) is not None]
        costs = [
            _num(e.row.get("cost_usd")) for e in eps if _num(e.row.get("cost_usd")) is not None
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
                "success": _mean([float(_num(e.row.get("score")) or 0) for e in complete]),
                "mean_steps": _mean([float(_num(e.row.get("steps")) or 0) for e in complete]),
                "runtime": sum(_num(e.row.get("runtime")) or 0.0 for e in eps),
                "calls_per_step": sum(calls) / steps if calls and steps else None,
                "tokens_per_step": sum(tokens) / steps if tokens and steps else None,
                "cost": sum(costs) if costs else None,  # type: ignore[arg-type]
                "first": eps[0].name,
            }
        )
    average: dict[str, Any] = {"task": "macro average", "episodes": len(episodes)}
    for key in ("success", "mean_steps", "calls_per_step", "tokens_per_step"):
        average[key] = _mean([r[key] for r in rows if r[key] is not None])
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
            {"tag": tag, "cells": [_mean(cells[tag].get(d, [])) for d in columns]}
            for tag in sorted(cells)
        ],
        "by_difficulty": [
            {"difficulty": d, "success": _mean(by_difficulty[d]), "tasks": len(by_difficulty[d])}
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
    complete = [e for e in eps if not e.row.get("error") and _num(e.row.get("score")) is not None]
    steps = sum(int(_num(e.row.get("steps")) or 0) for e in eps)
    known_calls = [_num(e.row.get("calls")) for e in eps if _num(e.row.get("calls")) is not None]
    calls = int(sum(known_calls)) if known_calls else None  # type: ignore[arg-type]
    mean_steps = _mean([float(_num(e.row.get("steps")) or 0) for e in complete])
    mean = _mean([v for t in tasks if (v := success.get(t)) is not None])
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
    runtime = sum(_num(ep.row.get("runtime")) or 0.0 for ep in episodes)
    steps = sum(int(_num(ep.row.get("steps")) or 0) for ep in episodes)
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
    started = _parse_time(manifest.get("started_at"))
    finished = _parse_time(manifest.get("finished_at"))
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


# --------------------------------------------------------------------------------------------
# SVG chart data (drawn by the template; numbers computed here)


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


# --------------------------------------------------------------------------------------------
# Rendering


@functools.cache
def _environment() -> jinja2.Environment:
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


def _assets() -> dict[str, jinja2.utils.markupsafe.Markup]:
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
        _environment()
        .get_template("episode.html.j2")
        .render(run=header, ep=episode, prev=prev, next=nxt, standalone=standalone, **_assets())
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
        calls += int(_num(row.get("calls")) or 0)
        errors += int(_num(row.get("model_errors")) or 0)
        first = first or row.get("model_error")
    if not errors:
        return None
    return {"errors": errors, "calls": calls, "first": first, "all": errors == calls}


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
            write_text_atomic(directory / EPISODE_PAGE, render_episode(header, episode, prev, nxt))
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        _CACHE[str(directory.resolve())] = (key, _slim(episode))
        episodes.append(episode)
    per_task, average = task_rows(episodes)
    page = (
        _environment()
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
            usage_known=any(_num(ep.row.get("calls")) is not None for ep in episodes),
            model_failures=model_failures(ep.row for ep in episodes),
            claims=claim_counts(ep.row for ep in episodes),
            generated=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            elapsed=time.perf_counter() - started,
            **_assets(),
        )
    )
    write_text_atomic(run_dir / GROUPS_CSV, groups_csv(group_rows(episodes)))
    out = run_dir / "report.html"
    write_text_atomic(out, page)
    return out


# --------------------------------------------------------------------------------------------
# Comparing two runs


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
            if not row.get("error") and _num(row.get("score")) is not None:
                entry["scores"].append(float(row["score"]))
                entry["steps"].append(float(_num(row.get("steps")) or 0))
            if _num(row.get("cost_usd")) is not None:
                entry["cost"].append(float(row["cost_usd"]))
        return {
            task: {
                "success": _mean(e["scores"]),
                "steps": _mean(e["steps"]),
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
    return _mean([r[side][key] for r in rows if r[side] and r[side][key] is not None])


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
        _environment()
        .get_template("compare.html.j2")
        .render(
            a=run_header(run_a, read_json(run_a / "manifest.json") or {}, result_rows(run_a)),
            b=run_header(run_b, read_json(run_b / "manifest.json") or {}, result_rows(run_b)),
            rows=rows,
            summary=summary,
            reports=reports,
            **_assets(),
        )
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out, page)
    return out, format_compare(rows, str(run_a), str(run_b))


# --------------------------------------------------------------------------------------------
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
