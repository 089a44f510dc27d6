"""What the live view shows, read from what agents already record, and its plain-text form.

Pure functions only: a step's `AgentInteractionResult.data` becomes a `StepView`, and a
`StepView` with the run's totals becomes one line of text. Celil's step data carries the
sub-goal, the action's description, the votes and the gate; upstream's agents and the oracle
record only an action, so their views have a step and an action and nothing else. Every field
is read defensively: step data comes from any agent, and its text from models and screens, so
it is cut to one bounded line with control characters (terminal escapes among them) removed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from android_world.harness import suite_utils

TEXT_LIMIT = 80
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]+")
_ACTION_TAIL = re.compile(r"Action:", re.IGNORECASE)


@dataclasses.dataclass(frozen=True)
class EpisodeStart:
    """An episode began on `worker` ("" in a serial run)."""

    worker: str
    episode: str
    goal: str
    budget: int | None


@dataclasses.dataclass(frozen=True)
class Vote:
    persona: str
    score: float | None  # None: the answer could not be read


@dataclasses.dataclass(frozen=True)
class StepView:
    """One finished step. `step` counts from 1; fields an agent does not record are None."""

    worker: str
    episode: str
    step: int
    budget: int | None
    action: str | None = None
    sub_goal: str | None = None
    votes: tuple[Vote, ...] = ()
    gate: str | None = None
    outcome: str | None = None
    done: bool = False
    goal: str | None = None
    model_s: float = 0.0  # model seconds spent in this step (the agent's model_call events)
    cost_usd: float = 0.0
    model_calls: int = 0


@dataclasses.dataclass
class Totals:
    """The run so far: episodes finished (resumed ones included), model time and cost."""

    total: int = 0
    done: int = 0
    successes: int = 0
    errors: int = 0
    model_s: float = 0.0
    cost_usd: float = 0.0
    model_seen: bool = False  # no agent reported a model call: say nothing rather than "0 s"
    elapsed_s: float = 0.0


def clean(value: Any, limit: int = TEXT_LIMIT) -> str:
    """One line of at most `limit` characters; control and bidi-override characters dropped."""
    text = value if isinstance(value, str) else str(value)
    text = _CONTROL.sub(" ", text[: limit * 4])
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _text(value: Any, limit: int = TEXT_LIMIT) -> str | None:
    if value is None or isinstance(value, bool):
        return None
    text = clean(value, limit)
    return text or None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if value == value else None  # NaN is no number to show


# --------------------------------------------------------------------------------------------
# Step data → StepView


def action_from_dict(action: Mapping[str, Any]) -> str:
    """`click index=3`, `input_text "hello" index=5`, `open_app Settings`, `status complete`."""
    kind = _text(action.get("action_type"), 24) or "action"
    parts = [kind]
    if action.get("text") is not None:
        parts.append(json.dumps(clean(action["text"], 40), ensure_ascii=False))
    for key in ("app_name", "goal_status", "direction"):
        if action.get(key) is not None:
            parts.append(clean(action[key], 30))
    if action.get("index") is not None:
        parts.append(f"index={clean(action['index'], 8)}")
    if action.get("x") is not None and action.get("y") is not None:
        parts.append(f"({clean(action['x'], 8)}, {clean(action['y'], 8)})")
    return " ".join(parts)


def action_text(data: Mapping[str, Any]) -> str | None:
    """The step's action as a person reads it, from whichever key the agent records it under."""
    described = _text(data.get("action_description"))
    if described:
        return described
    for key in ("action", "action_output_json"):  # ours and the oracle's; upstream's M3A
        value = data.get(key)
        as_dict = getattr(value, "as_dict", None)
        if callable(as_dict):
            try:
                value = as_dict()
            except Exception:
                value = None
        if isinstance(value, str) and value.lstrip().startswith("{"):
            with contextlib.suppress(ValueError):
                value = json.loads(value[:4000])
        if isinstance(value, Mapping):
            return clean(action_from_dict(value))
        if value is not None:
            return _text(value)
    output = data.get("action_output")  # upstream's T3A/M3A: "Reason: ... Action: {...}"
    if isinstance(output, str):
        parts = _ACTION_TAIL.split(output[-2000:])
        return _text(parts[-1])
    return None


def votes_of(data: Mapping[str, Any]) -> tuple[Vote, ...]:
    votes = data.get("votes")
    if not isinstance(votes, list):
        return ()
    found = []
    for vote in votes[:8]:
        if isinstance(vote, Mapping):
            persona = _text(vote.get("persona"), 24) or "?"
            found.append(Vote(persona, _number(vote.get("score"))))
    return tuple(found)


def gate_text(data: Mapping[str, Any]) -> str | None:
    """`pass 8.3 >= 7.0`, `reject 4.0 < 7.0`, `vote skipped: <rule>`, or None (no gate)."""
    skipped = data.get("vote_skipped")
    gate = data.get("gate")
    if skipped and gate == "pass":
        return clean(f"vote skipped: {skipped}", 60)
    if gate not in ("pass", "reject"):
        return None
    score, threshold = _number(data.get("verifier_score")), _number(data.get("threshold"))
    text = str(gate)
    if data.get("gate_unverified"):
        text += " (unverified)"
    elif score is not None and threshold is not None:
        text += f" {score:.1f} {'>=' if score >= threshold else '<'} {threshold:.1f}"
    if data.get("irreversible"):
        text += " irreversible"
    return text


def step_view(
    worker: str,
    episode: str,
    step_n: int,
    budget: int | None,
    data: Any,
    done: bool,
    model: tuple[float, float, int] = (0.0, 0.0, 0),
) -> StepView:
    """`step_n` as the runner counts it (from 0); `model` = (seconds, USD, calls) this step."""
    data = data if isinstance(data, Mapping) else {}
    seconds, cost, calls = model
    return StepView(
        worker=worker,
        episode=episode,
        step=step_n + 1,
        budget=budget,
        action=action_text(data),
        sub_goal=_text(data.get("sub_goal")),
        votes=votes_of(data),
        gate=gate_text(data),
        outcome=_text(data.get("outcome"), 40),
        done=bool(done),
        goal=_text(data.get("goal"), 200),
        model_s=seconds,
        cost_usd=cost,
        model_calls=calls,
    )


# --------------------------------------------------------------------------------------------
# Totals from finished episodes


def is_success(episode: Mapping[str, Any]) -> bool:
    score = _number(episode.get("is_successful"))
    return score is not None and score >= 1.0


def usage_of(episode: Mapping[str, Any]) -> tuple[float, float] | None:
    """(model seconds, USD) of a finished episode whose agent reported model calls (an agent on
    the no-model roles reports none: its view shows no model figures rather than "0 s")."""
    usage = episode.get("usage")
    if not isinstance(usage, Mapping) or not _number(usage.get("model_calls")):
        return None
    seconds, cost = _number(usage.get("model_seconds")), _number(usage.get("cost_usd"))
    if seconds is None and cost is None:
        return None
    return seconds or 0.0, cost or 0.0


def finished_totals(episodes: Iterable[Mapping[str, Any]], total: int) -> Totals:
    """The totals a resumed run starts from: its finished, non-failed episodes."""
    totals = Totals(total=total)
    for episode in episodes:
        if suite_utils.is_failed(episode):
            continue
        totals.done += 1
        totals.successes += is_success(episode)
        usage = usage_of(episode)
        if usage is not None:
            totals.model_s += usage[0]
            totals.cost_usd += usage[1]
            totals.model_seen = True
    return totals


# --------------------------------------------------------------------------------------------
# Text


def votes_text(votes: Iterable[Vote], names: bool = True) -> str:
    """`Pragmatist 9.5, Skeptic ?` (? = unreadable answer), or `9.5 ?` without the names."""
    scores = [(v.persona, "?" if v.score is None else f"{v.score:.1f}") for v in votes]
    if not names:
        return " ".join(score for _, score in scores)
    return ", ".join(f"{persona} {score}" for persona, score in scores)


def step_label(step: int, budget: int | None) -> str:
    return f"{step}/{budget}" if budget else str(step)


def money(usd: float) -> str:
    return f"${usd:.4f}" if usd < 10 else f"${usd:.2f}"


def totals_text(totals: Totals) -> str:
    """`done 3/85, ok 2, model 12.4 s, $0.0031` (model figures only once any were reported)."""
    text = f"done {totals.done}/{totals.total}, ok {totals.successes}"
    if totals.errors:
        text += f", errors {totals.errors}"
    if totals.model_seen:
        text += f", model {totals.model_s:.1f} s, {money(totals.cost_usd)}"
    return text


def plain_line(view: StepView, totals: Totals) -> str:
    """The piped form: one line per step, the fields the agent recorded, then the run's totals."""
    head = f"[{view.worker}] " if view.worker else ""
    parts = [f"{head}{view.episode} step {step_label(view.step, view.budget)}"]
    if view.sub_goal:
        parts.append(f"sub-goal: {view.sub_goal}")
    parts.append(f"action: {view.action or '-'}")
    if view.votes:
        parts.append(f"votes: {votes_text(view.votes)}")
    if view.gate:
        parts.append(f"gate: {view.gate}")
    if view.outcome:
        parts.append(f"-> {view.outcome}")
    if view.done:
        parts.append("agent done")
    parts.append(totals_text(totals))
    return " | ".join(parts)
