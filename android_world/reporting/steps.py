"""One step's panel on the episode page, built from its trajectory record and its events."""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from android_world.reporting.events import usage_of
from android_world.reporting.overlay import action_overlay, ocr_boxes

SCREEN_SIZE = (1080, 2400)  # Pixel 6; used when a screenshot's own size cannot be read


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
    screenshot, size = _screenshot(record, episode_dir)
    action = data.get("action") if isinstance(data.get("action"), Mapping) else None
    by_type: dict[str, list[Mapping[str, Any]]] = {}
    for event in step_events:
        by_type.setdefault(str(event.get("type")), []).append(event)
    votes = data.get("votes") if isinstance(data.get("votes"), list) else None
    if votes is None:
        votes = [dict(e) for e in by_type.get("vote", [])]
    gate = _gate(data, by_type)
    proposals = data.get("proposals") if isinstance(data.get("proposals"), list) else []
    if not proposals:
        proposals = [dict(e) for e in by_type.get("action_proposed", [])]
    rejected = gate is not None and not gate["passed"]
    post = data.get("post_check") if isinstance(data.get("post_check"), Mapping) else None
    if post is None and by_type.get("post_check"):
        post = dict(by_type["post_check"][-1])
    extra = {k: v for k, v in data.items() if k not in _STEP_KEYS_SHOWN}
    return {
        "number": record.get("step_number"),
        "screenshot": screenshot,
        "size": size,
        "overlay": _overlay(action, data, size, rejected),
        "ocr": ocr_boxes(data, step_events),
        "action": action,
        "description": data.get("action_description") or _describe(action),
        "sub_goal": data.get("sub_goal"),
        "outcome": data.get("outcome"),
        "thought": _thought(proposals, data),
        "votes": [v for v in votes if isinstance(v, Mapping)],
        "gate": gate,
        "rejected": rejected,
        "unused_proposals": [
            p for p in proposals if isinstance(p, Mapping) and p.get("action") != action
        ],
        **_event_panels(by_type),
        "post_check": post,
        "executed": data.get("executed"),
        "execution_error": data.get("execution_error"),
        "warnings": _warnings(data, by_type),
        "usage": usage_of(by_type.get("model_call", [])),
        "plan": data.get("plan") if isinstance(data.get("plan"), list) else None,
        "done_sub_goals": data.get("done_sub_goals") or [],
        "done": record.get("done"),
        "extra": json.dumps(extra, indent=1, ensure_ascii=False, default=str)[:4000]
        if extra
        else "",
    }


def _screenshot(record: Mapping[str, Any], episode_dir: Path) -> tuple[Any, tuple[int, int]]:
    """The step's screenshot file (None when it is gone) and its size in pixels."""
    screenshot = record.get("screenshot")
    size = SCREEN_SIZE
    if screenshot:
        size = png_size(episode_dir / str(screenshot)) or SCREEN_SIZE
        if not (episode_dir / str(screenshot)).exists():
            screenshot = None
    return screenshot, size


def _gate(
    data: Mapping[str, Any], by_type: Mapping[str, Sequence[Mapping[str, Any]]]
) -> dict[str, Any] | None:
    """The verifier gate's verdict, from the step data or else the step's last `gate` event."""
    if data.get("gate") is not None or data.get("verifier_score") is not None:
        return {
            "passed": data.get("gate") == "pass",
            "score": data.get("verifier_score"),
            "threshold": data.get("threshold"),
            "irreversible": data.get("irreversible"),
            # The adaptive verifier's rule for running this action unvoted (its threshold is 0).
            "skipped": data.get("vote_skipped"),
        }
    if by_type.get("gate"):
        event = by_type["gate"][-1]
        return {
            "passed": bool(event.get("passed")),
            "score": event.get("score"),
            "threshold": event.get("threshold"),
            "irreversible": event.get("irreversible"),
            "skipped": event.get("vote_skipped"),
        }
    return None


def _thought(proposals: Sequence[Any], data: Mapping[str, Any]) -> str:
    """The last proposal's thought, else the step data's own thought or reason."""
    for proposal in reversed(proposals):
        if isinstance(proposal, Mapping) and proposal.get("thought"):
            return str(proposal["thought"])
    return str(data.get("thought") or data.get("reason") or "")


def _overlay(
    action: Mapping[str, Any] | None,
    data: Mapping[str, Any],
    size: tuple[int, int],
    rejected: bool,
) -> dict[str, Any] | None:
    overlay = action_overlay(action, data, size)
    if overlay is not None and (rejected or data.get("executed") is False):
        # Drawn apart from executed actions: the screen after it is not its result.
        overlay["not_executed"] = True
        overlay["label"] = "not run: " + overlay["label"]
    return overlay


def _event_panels(
    by_type: Mapping[str, Sequence[Mapping[str, Any]]],
) -> dict[str, list[dict[str, Any]]]:
    """The step's events the panel lists as they are (in this key order)."""
    return {
        "rehearsals": [dict(e) for e in by_type.get("rehearsal", [])],
        "revised": [dict(e) for e in by_type.get("plan_revised", [])],
        "sub_goals_done": [dict(e) for e in by_type.get("sub_goal_done", [])],
        # Done verdicts the agent refused: no screen evidence (issue 14).
        "evidence_refused": [dict(e) for e in by_type.get("evidence", []) if not e.get("accepted")],
        "vision": [dict(e) for e in by_type.get("vision_select", [])],
        "answers": [dict(e) for e in by_type.get("answer", [])],
    }


def _warnings(
    data: Mapping[str, Any], by_type: Mapping[str, Sequence[Mapping[str, Any]]]
) -> list[str]:
    """A warning is both in the step data and a `warning` event: show it once."""
    return list(
        dict.fromkeys(
            [str(w) for w in data.get("warnings") or []]
            + [str(e.get("message")) for e in by_type.get("warning", []) if e.get("message")]
        )
    )


def _describe(action: Mapping[str, Any] | None) -> str:
    if not action:
        return "no action"
    rest = ", ".join(f"{k}={v!r}" for k, v in action.items() if k != "action_type")
    return f"{action.get('action_type')}({rest})"
