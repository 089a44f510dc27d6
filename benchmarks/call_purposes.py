"""What each model call of a scripted-model run was for (issue 30: calls per step).

The usage ledger counts calls per role; a role is asked for different things (the planner for a
plan, a progress confirmation, an answer), and a cut has to know which. `PurposeTally` wraps the
scripted server's `answer` and files every request under one purpose, read off the request
(the role is the model name, the planner's question its opening words) and, for the executor,
off its reply: an action, or a "finished"/"infeasible"/answer that runs nothing. A vote is filed
by whether the prompt marks the action irreversible and by the type of the action voted on (the
executor's last proposal), with the label of a tapped element kept for the vote targets table.

Used by `verifier_value.py` (`--purposes`); nothing here changes what the model answers.
"""

from __future__ import annotations

import collections
import json
import re
import threading
from typing import Any

import scripted_model as sm

# The order purposes are printed in.
PURPOSES = (
    "executor: action",
    "executor: finished",
    "executor: answer",
    "executor: infeasible",
    "planner: plan",
    "planner: corrective plan",
    "planner: repair",
    "planner: sub-goal confirmation",
    "planner: goal confirmation",
    "planner: answer",
    "votes: irreversible",
    "votes: reversible",
)

_ACTION = re.compile(r"Action:\s*(\{.*\})", re.S)


def executor_purpose(reply: str) -> tuple[str, dict[str, Any]]:
    """(purpose, the proposed action as a dict) of a scripted executor reply."""
    match = _ACTION.search(reply)
    try:
        action = json.loads(match.group(1)) if match else {}
    except ValueError:
        action = {}
    kind = action.get("action_type") if isinstance(action, dict) else None
    if kind == "status":
        status = action.get("goal_status")
        return ("executor: infeasible" if status == "infeasible" else "executor: finished"), action
    if kind == "answer":
        return "executor: answer", action
    return "executor: action", action if isinstance(action, dict) else {}


def planner_purpose(prompt: str, goal: str) -> str:
    """The planner's question, by its prompt's opening words (celil_maestro's prompts)."""
    if "Your previous reply could not be used" in prompt:
        return "planner: repair"
    if "Judge whether a sub-goal" in prompt:
        asked = sm._field(prompt, "Sub-goal")
        whole = goal and sm._norm(asked) == sm._norm(goal)
        return "planner: goal confirmation" if whole else "planner: sub-goal confirmation"
    if "The user asked a question" in prompt:
        return "planner: answer"
    if "run into trouble" in prompt:
        return "planner: corrective plan"
    return "planner: plan"


class PurposeTally:
    """An `answer_fn` for `ScriptedServer`: answers as `scripted_model.answer` does and counts
    each call by purpose; `votes_by_action` splits the votes by the type (and tapped label) of
    the action they judged."""

    def __init__(self) -> None:
        self.counts: collections.Counter[str] = collections.Counter()
        self.votes_by_action: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()
        self._last_action = "(none)"

    def __call__(self, world: sm.ScriptedWorld, body: dict[str, Any]) -> str:
        reply = sm.answer(world, body)
        model, prompt = body.get("model", ""), sm._prompt_text(body)
        with self._lock:
            if model == sm.EXECUTOR_MODEL:
                purpose, action = executor_purpose(reply)
                self._last_action = _describe(world, action)
            elif model == sm.VERIFIER_MODEL:
                irreversible = sm.IRREVERSIBLE_NOTE in prompt
                purpose = "votes: irreversible" if irreversible else "votes: reversible"
                side = "irreversible" if irreversible else "reversible"
                self.votes_by_action[f"{side}: {self._last_action}"] += 1
            else:
                goal = world.task.goal if world.task is not None else ""
                purpose = planner_purpose(prompt, goal)
            self.counts[purpose] += 1
        return reply


def _describe(world: sm.ScriptedWorld, action: dict[str, Any]) -> str:
    """An action's type, with the label of the element a tap names ("click 'Save'")."""
    kind = str(action.get("action_type") or "(none)")
    index = action.get("index")
    if kind in ("click", "long_press") and isinstance(index, int):
        try:
            _, elements = sm._screen(world.env)
        except Exception:  # a screen that cannot be read leaves the type alone
            return kind
        if 0 <= index < len(elements):
            element = elements[index]
            label = element.text or element.content_description or ""
            return f"{kind} {' '.join(str(label).split())[:30]!r}"
    if kind == "scroll":
        return f"scroll {action.get('direction')}"
    return kind


def per_step_line(counts: collections.Counter[str] | dict[str, int], steps: int) -> str:
    """The purposes' calls per step, in `PURPOSES` order, then any others."""
    steps = max(steps, 1)
    names = [p for p in PURPOSES if counts.get(p)] + sorted(set(counts) - set(PURPOSES))
    return ", ".join(f"{name} {counts[name] / steps:.3f}" for name in names)
