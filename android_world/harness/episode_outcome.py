"""How an episode ended, read from its record: the agent's claim ("complete", "infeasible" or
none), set against the task's check (false completions, work done but never claimed), and the
one-line console readings of a run's claims and outcomes."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any


def is_scored(task: Any) -> bool:
    """Whether the task has a check. A free goal (`--goal`) has none: its episodes carry the
    agent's claim and no score, and count neither as successes nor as failures."""
    return getattr(task, "scored", True) is not False


def is_unscored(episode: Mapping[str, Any]) -> bool:
    return episode.get("scored") is False


def _last_action(step_data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    actions = step_data.get("action") if isinstance(step_data, Mapping) else None
    if not isinstance(actions, list):
        return None
    for action in reversed(actions):
        if isinstance(action, str):
            try:
                action = json.loads(action)
            except ValueError:
                continue
        if isinstance(action, Mapping):
            return action
    return None


def claimed_outcome(
    done: Any, summary: Mapping[str, Any], step_data: Mapping[str, Any]
) -> str | None:
    """What the agent said at the end: "complete", "infeasible", or None when it never said it
    was done (it ran out of steps). An agent that only returns done=True claims completion."""
    if not done:
        return None
    status = summary.get("status") if isinstance(summary, Mapping) else None
    if status in ("complete", "infeasible"):
        return str(status)
    action = _last_action(step_data)
    if action is not None and action.get("action_type") == "status":
        goal_status = str(action.get("goal_status") or "complete")
        return "infeasible" if goal_status == "infeasible" else "complete"
    return "complete"


def infeasible_reason(claimed: str | None, summary: Mapping[str, Any]) -> str | None:
    """The agent's own reason for giving up (Celil's `infeasible_reason`), on one line."""
    if claimed != "infeasible" or not isinstance(summary, Mapping):
        return None
    reason = summary.get("infeasible_reason")
    if not isinstance(reason, str) or not reason.strip():
        return None
    text = " ".join(reason.split())
    return text if len(text) <= 200 else text[:199] + "…"


def false_claims(episode: Mapping[str, Any]) -> tuple[bool | None, bool | None]:
    """(said complete but the task's check failed, said infeasible but the task was done)."""
    claimed, raw = episode.get("claimed"), episode.get("raw_score")
    if claimed is None or raw is None or is_failed(episode):
        return None, None
    return claimed == "complete" and float(raw) < 1.0, claimed == "infeasible" and float(raw) >= 1.0


def done_unclaimed(episode: Mapping[str, Any]) -> bool:
    """The task's check passed but the agent never said complete (out of steps, or a wrong
    "infeasible"): work done and thrown away, the mirror of a false completion."""
    claimed, raw = episode.get("claimed"), episode.get("raw_score")
    if raw is None or is_failed(episode):
        return False
    return float(raw) >= 1.0 and claimed != "complete"


def claims_line(episodes: Iterable[Mapping[str, Any]]) -> str | None:
    """One console line reading the agent's claims against the task checks: false
    completions beside the completions, and the work done but never claimed."""
    complete = false_complete = infeasible = false_infeasible = unclaimed = 0
    for ep in episodes:
        unclaimed += done_unclaimed(ep)
        wrong_complete, wrong_infeasible = false_claims(ep)
        if wrong_complete is None:
            continue
        if ep.get("claimed") == "complete":
            complete += 1
            false_complete += bool(wrong_complete)
        elif ep.get("claimed") == "infeasible":
            infeasible += 1
            false_infeasible += bool(wrong_infeasible)
    if not complete and not infeasible and not unclaimed:
        return None
    return (
        f"Claims: {complete} said complete, {false_complete} of them falsely (the task's check "
        f"failed); {infeasible} said infeasible, {false_infeasible} of them had done the task; "
        f"{unclaimed} did the task but never said complete."
    )


def how_it_ended(episode: Mapping[str, Any]) -> str:
    """ "error", "complete", "infeasible" or "out_of_steps": why the episode stopped, from the
    agent's side (the task's check is another matter: see `false_claims`)."""
    if is_failed(episode):
        return "error"
    claimed = episode.get("claimed")
    if claimed in ("complete", "infeasible"):
        return str(claimed)
    return "complete" if episode.get("done") else "out_of_steps"


def outcome_line(episodes: Iterable[Mapping[str, Any]]) -> str | None:
    """One console line: how the episodes ended (the agent's side) and, for the scored ones,
    how many the task's check passed, so an error is never read as a failed task."""
    ended = {"complete": 0, "infeasible": 0, "out_of_steps": 0, "error": 0}
    succeeded = failed = unscored = 0
    for ep in episodes:
        how = how_it_ended(ep)
        ended[how] += 1
        if how == "error":
            continue
        if is_unscored(ep):
            unscored += 1
        elif ep.get("is_successful") is not None:
            score = float(ep["is_successful"])
            succeeded += score >= 1.0
            failed += score < 1.0
    total = sum(ended.values())
    if not total:
        return None
    parts = [
        f"{ended['complete']} complete",
        f"{ended['infeasible']} infeasible",
        f"{ended['out_of_steps']} out of steps",
        f"{ended['error']} error{'s' if ended['error'] != 1 else ''}",
    ]
    checks = [f"{succeeded} passed the task's check", f"{failed} failed it"]
    if unscored:
        checks.append(f"{unscored} unscored (no check)")
    return f"Episodes: {total} ended: {', '.join(parts)}; {', '.join(checks)}."


def is_failed(episode: Mapping[str, Any]) -> bool:
    return episode.get("exception_info") is not None or episode.get("error") is not None
