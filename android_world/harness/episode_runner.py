"""Runs one agent on one goal for a bounded number of steps, with upstream AndroidWorld semantics.

The runner, not the agent, enforces the step budget and numbers the steps, so any
`EnvironmentInteractingAgent` behaves the same here as in upstream's runner. Two optional hooks
around each `agent.step` let a caller persist a step (its screenshot, its record) as soon as it
happens, so long runs need not hold every observation in memory.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from android_world.agents import base_agent
from android_world.env import interface

STEP_NUMBER = "step_number"

StepStartFn = Callable[[int], None]
StepEndFn = Callable[[int, base_agent.AgentInteractionResult], None]


@dataclasses.dataclass()
class EpisodeResult:
    """`step_data` is a dict of lists (one list per data key, one entry per step)."""

    done: bool
    step_data: dict[str, Any]
    env_reward: float | None = None
    aux_data: dict[str, Any] | None = None


def run_episode(
    goal: str,
    agent: base_agent.EnvironmentInteractingAgent,
    max_n_steps: int = 10,
    start_on_home_screen: bool = False,
    termination_fn: Callable[[interface.AsyncEnv], float] | None = None,
    print_fn: Callable[[str], None] = print,
    on_step_start: StepStartFn | None = None,
    on_step_end: StepEndFn | None = None,
) -> EpisodeResult:
    """Step `agent` toward `goal` until it says done, `termination_fn` fires, or the budget ends.

    `on_step_start(n)` runs just before step n's `agent.step`; `on_step_end(n, result)` right after
    it (n counts from 0, as `step_number` does).
    """
    if max_n_steps == 0:
        return EpisodeResult(done=False, step_data={})
    agent.reset(start_on_home_screen)
    agent.set_max_steps(max_n_steps)

    steps: list[dict[str, Any]] = []
    for step_n in range(max_n_steps):
        if on_step_start is not None:
            on_step_start(step_n)
        result = agent.step(goal)
        if STEP_NUMBER in result.data:
            raise AssertionError(
                f"Agent step data must not contain {STEP_NUMBER!r}; the runner adds it."
            )
        steps.append(result.data | {STEP_NUMBER: step_n})
        if on_step_end is not None:
            on_step_end(step_n, result)
        if termination_fn is not None and termination_fn(agent.env):
            print_fn("Environment ends episode.")
            return EpisodeResult(done=True, step_data=_transpose_lod_to_dol(steps))
        if result.done:
            print_fn("Agent indicates task is done.")
            return EpisodeResult(done=True, step_data=_transpose_lod_to_dol(steps))
    print_fn(f"Agent did not indicate task is done. Reached max number of steps ({max_n_steps}).")
    return EpisodeResult(done=False, step_data=_transpose_lod_to_dol(steps))


def _transpose_lod_to_dol(steps: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Keys missing from a step get None, so every list has one entry per step."""
    keys: list[str] = []
    for step in steps:
        for key in step:
            if key not in keys:
                keys.append(key)
    return {key: [step.get(key) for step in steps] for key in keys}


def transpose_dol_to_lod(data: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Inverse of the runner's transposition: one dict per step (upstream's parameter name)."""
    if not data:
        return []
    n_steps = max(len(values) for values in data.values())
    return [
        {key: values[i] if i < len(values) else None for key, values in data.items()}
        for i in range(n_steps)
    ]
