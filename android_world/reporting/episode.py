"""One episode read from its folder: why it ended, the plans it held, its steps and usage."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from android_world.reporting.events import events_by_step, role_seconds, usage_of
from android_world.reporting.formatting import as_number
from android_world.reporting.run_files import (
    EPISODE_GIF,
    EPISODES,
    read_json,
    read_jsonl,
    task_meta,
)
from android_world.reporting.steps import build_step


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
    score = as_number(row.get("score"))
    kind = "success" if score is not None and score >= 1.0 else "fail"
    if row.get("score") is None and not row.get("done"):
        kind = "running"
    if row.get("scored") is False:  # a free goal (--goal): the agent's claim, no task check
        reason, _ = end_reason(
            {**row, "scored": True, "score": 0.0}, steps, agent_summary, events, budget
        )
        why = f"; {row['end_reason']}" if row.get("end_reason") else ""
        return f"unscored (no task check): {reason}{why}", "unscored"
    n_steps = int(as_number(row.get("steps")) or len(steps))
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
