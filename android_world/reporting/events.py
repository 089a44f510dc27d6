"""An episode's feedback events read back: grouped by step, model usage, and where time went."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from android_world.reporting.formatting import as_number


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
        tokens = int(as_number(call.get("prompt_tokens")) or 0) + int(
            as_number(call.get("completion_tokens")) or 0
        )
        seconds = as_number(call.get("latency_s")) or 0.0
        cost = as_number(call.get("cost_usd")) or 0.0
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
        if e.get("type") == "timing" and as_number(e.get("wall_s")) is not None
    }
    for event in events:
        if event.get("type") == "timing" and event.get("role") == "ocr":
            step = event.get("step")
            ocr_by_step[step] = ocr_by_step.get(step, 0.0) + (
                as_number(event.get("duration_s")) or 0.0
            )

    def add(role: str, value: float) -> None:
        seconds[role] = seconds.get(role, 0.0) + value

    last_gate: float | None = None
    last_exec: float | None = None
    for event in events:
        kind = event.get("type")
        ts = as_number(event.get("ts"))
        if kind == "model_call":
            if str(event.get("role") or "model") not in walled:
                add(str(event.get("role") or "model"), as_number(event.get("latency_s")) or 0.0)
        elif kind == "timing" and str(event.get("role")) in walled:
            add(str(event["role"]), as_number(event.get("wall_s")) or 0.0)
        elif kind == "gate":
            last_gate = ts
        elif kind == "executed":
            timed = as_number(event.get("duration_s"))
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
        elif event.get("role") and as_number(event.get("duration_s") or event.get("latency_s")):
            add(
                str(event["role"]),
                as_number(event.get("duration_s") or event.get("latency_s")) or 0.0,
            )
    return seconds
