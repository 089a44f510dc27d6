"""The results.jsonl row of an episode (DESIGN §7), shared by the run writer and the report (which
also builds rows for an upstream run directory from its checkpoints)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from android_world.harness import suite_utils


def _per_step(value: Any, steps: Any) -> float | None:
    if not isinstance(value, int | float) or not isinstance(steps, int) or steps <= 0:
        return None
    return round(value / steps, 4)


def result_row(episode: Mapping[str, Any]) -> dict[str, Any]:
    """The results.jsonl line for one episode (names as in DESIGN §7)."""
    usage = episode.get("usage") or {}
    prompt = usage.get("prompt_tokens")
    completion = usage.get("completion_tokens")
    tokens = None if prompt is None and completion is None else (prompt or 0) + (completion or 0)
    calls, seconds = usage.get("model_calls"), usage.get("model_seconds")
    steps = episode.get("episode_length")
    false_complete, false_infeasible = suite_utils.false_claims(episode)
    return {
        "name": episode.get("name"),
        "task": episode.get("task_template"),
        "instance": episode.get("instance_id"),
        "goal": episode.get("goal"),
        "score": episode.get("is_successful"),
        "raw_score": episode.get("raw_score"),
        "done": episode.get("done"),
        "claimed": episode.get("claimed"),
        # False for a free goal (`--goal`): no task check, so `score` is None and the claim is
        # the outcome; it is neither a success nor a failure.
        "scored": not suite_utils.is_unscored(episode),
        "end_reason": episode.get("end_reason"),
        "agent_answer": episode.get("agent_answer"),
        "false_complete": false_complete,
        "false_infeasible": false_infeasible,
        "done_unclaimed": suite_utils.done_unclaimed(episode),
        "steps": episode.get("episode_length"),
        "step_budget": episode.get("step_budget"),
        "runtime": episode.get("run_time"),
        "calls": calls,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "tokens": tokens,
        "model_seconds": seconds,
        "cost_usd": usage.get("cost_usd"),
        "model_errors": usage.get("errors"),
        "unusable_answers": episode.get("unusable_answers"),
        "model_error": usage.get("first_error"),
        "calls_per_step": _per_step(calls, steps),
        "tokens_per_step": _per_step(tokens, steps),
        "model_seconds_per_step": _per_step(seconds, steps),
        "memory_hit": episode.get("memory_hit"),
        "error": episode.get("error"),
        "teardown_error": episode.get("teardown_error"),
        "seed": episode.get("seed"),
        "agent": episode.get("agent_name"),
        "finished_at": episode.get("finish_dtime"),
        # The same facts under upstream AndroidWorld's episode keys, so its tooling (e.g.
        # suite_utils.process_episodes over these rows) reads our runs unchanged.
        **upstream_keys(episode),
    }


def upstream_keys(episode: Mapping[str, Any]) -> dict[str, Any]:
    exception = episode.get("exception_info")
    return {
        "task_template": episode.get("task_template"),
        "instance_id": episode.get("instance_id"),
        "is_successful": episode.get("is_successful"),
        "episode_length": episode.get("episode_length"),
        "run_time": episode.get("run_time"),
        "finish_dtime": episode.get("finish_dtime"),
        "agent_name": episode.get("agent_name"),
        "exception_info": None if exception is None else str(exception),
    }
