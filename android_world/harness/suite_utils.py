"""Builds a suite of task instances and runs an agent on it, with upstream AndroidWorld's rules.

Differences from upstream, on purpose: `tear_down` runs even when an episode raised (so one bad
episode does not poison the device for the next); a failed episode is recorded with its reason and
left out of the success means instead of turning them into NaN; a rerun of a failed instance
replaces its record rather than adding a second one.

How an episode ended lives in `episode_outcome`, the summary table in `suite_summary`; their
names are re-exported here, where the harness and upstream-style code look for them.
"""

from __future__ import annotations

import datetime
import difflib
import hashlib
import random
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from android_world.agents import base_agent
from android_world.env import interface
from android_world.harness import checkpointer as checkpointer_lib
from android_world.harness import episode_runner
from android_world.harness.episode_outcome import (
    claimed_outcome,
    claims_line,
    done_unclaimed,
    false_claims,
    how_it_ended,
    infeasible_reason,
    is_failed,
    is_scored,
    is_unscored,
    outcome_line,
)
from android_world.harness.suite_summary import (
    AVERAGE_ROW,
    DIFFICULTIES,
    SUMMARY_WIDTH,
    UNTAGGED,
    Summary,
    UsageTotals,
    all_model_calls_failed,
    distinct_clips,
    format_summary,
    model_error_lines,
    process_episodes,
    usage_totals,
)
from android_world.task_evals import task_eval

_FIXED_SEED = 123


class UnknownTaskError(ValueError):
    """A requested task name is not in the registry (the message has a did-you-mean)."""


class Suite(dict[str, list[task_eval.TaskEval]]):
    """Task name -> its instances, in alphabetical order of names."""

    _suite_family: str | None = None

    @property
    def suite_family(self) -> str:
        if self._suite_family is None:
            raise ValueError("Suite family is not set.")
        return self._suite_family

    @suite_family.setter
    def suite_family(self, value: str) -> None:
        self._suite_family = value


def instance_seed(seed: int | None, name: str, i: int) -> int:
    """Upstream's rule, so the same (seed, task, instance) draws the same params everywhere."""
    digest = hashlib.sha256(f"{seed}_{name}_{i}".encode()).hexdigest()
    return int(digest, 16) % 2**32


def unknown_task_message(name: str, known: Iterable[str], family: str | None = None) -> str:
    known = sorted(known)
    where = f" in suite family {family!r}" if family else ""
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    if not close:
        lowered = {k.lower(): k for k in known}
        close = [lowered[m] for m in difflib.get_close_matches(name.lower(), lowered, n=3)]
    if close:
        hint = "did you mean " + " or ".join(repr(c) for c in close) + "?"
    elif known:
        shown = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "")
        hint = f"known tasks: {shown}"
    else:
        hint = "the registry has no tasks"
    return f"Unknown task {name!r}{where}; {hint}"


def _instantiate_task(
    task_cls: type[task_eval.TaskEval], seed: int, env: interface.AsyncEnv | None
) -> task_eval.TaskEval:
    if env is not None:
        task_cls.set_device_time(env)
    random.seed(seed)
    params = task_cls.generate_random_params()
    params["seed"] = seed
    return task_cls(params)


def create_suite(
    task_registry: Mapping[str, type[task_eval.TaskEval]],
    n_task_combinations: int = 1,
    seed: int | None = None,
    tasks: list[str] | None = None,
    use_identical_params: bool = False,
    env: interface.AsyncEnv | None = None,
) -> Suite:
    """Instantiate `n_task_combinations` instances of each task (all tasks when `tasks` is empty).

    Raises UnknownTaskError for a name not in the registry.
    """
    if n_task_combinations < 1:
        raise ValueError(f"n_task_combinations must be >= 1, got {n_task_combinations}")
    names = list(tasks) if tasks else list(task_registry)
    for name in names:
        if name not in task_registry:
            raise UnknownTaskError(unknown_task_message(name, task_registry))
    suite = Suite()
    for name in sorted(set(names)):
        instances = []
        for i in range(n_task_combinations):
            if use_identical_params:
                instance = instance_seed(seed, name, 0) if seed is not None else _FIXED_SEED
            else:
                instance = instance_seed(seed, name, i)
            instances.append(_instantiate_task(task_registry[name], instance, env))
        suite[name] = instances
    return suite


class EpisodeObserver(Protocol):
    """What a run writer implements to persist an episode while it runs (see run_output)."""

    def start_episode(self, task: task_eval.TaskEval, instance_name: str) -> None: ...

    def on_step_start(self, step_n: int) -> None: ...

    def on_step_end(self, step_n: int, result: base_agent.AgentInteractionResult) -> None: ...

    def event_sink(self, event: dict[str, Any]) -> None: ...

    def finish_episode(self, episode: dict[str, Any], agent_summary: dict[str, Any]) -> None: ...


def _call_hook(agent: Any, name: str, *args: Any) -> Any:
    hook = getattr(agent, name, None)
    return hook(*args) if callable(hook) else None


def _one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _usage_from(summary: dict[str, Any]) -> dict[str, Any] | None:
    usage = summary.get("usage") if isinstance(summary, dict) else None
    return usage if isinstance(usage, dict) else None


def memory_hit_from(summary: Mapping[str, Any]) -> bool | None:
    """Whether the agent's plan came from episodic memory; None when the agent does not say.

    Accepts `memory: {hit: bool, ...}` (Celil) or a top-level `memory_hit`.
    """
    if not isinstance(summary, Mapping):
        return None
    memory = summary.get("memory")
    if isinstance(memory, Mapping) and isinstance(memory.get("hit"), bool):
        return memory["hit"]
    hit = summary.get("memory_hit")
    return hit if isinstance(hit, bool) else None


def step_budget(task: task_eval.TaskEval, env: Any) -> int:
    """Upstream's step budget, 10 steps per unit of complexity, or what the env makes of it:
    a sim profile that costs steps gives them back (`SimEnv.step_budget`: a shorter screen, a
    first-launch pop-up). An env's answer below upstream's budget, or not an int, is ignored."""
    base = int(10 * task.complexity)
    adjust = getattr(env, "step_budget", None)
    if not callable(adjust):
        return base
    try:
        budget = adjust(base, tuple(getattr(task, "app_names", ()) or ()))
    except Exception:
        return base
    if (
        isinstance(budget, bool)
        or not isinstance(budget, int)
        or not base <= budget < 100 * max(base, 1)
    ):
        return base
    return budget


def run_task(
    task: task_eval.TaskEval,
    agent: base_agent.EnvironmentInteractingAgent,
    instance_id: int = 0,
    observer: EpisodeObserver | None = None,
    print_fn: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Run one task instance to a result dict; never raises for a failing task or agent."""
    env = agent.env
    instance_name = f"{task.name}{checkpointer_lib.INSTANCE_SEPARATOR}{instance_id}"
    start = time.time()
    episode = _new_episode(task, agent, instance_id, instance_name)
    if observer is not None:
        observer.start_episode(task, instance_name)
        _call_hook(agent, "set_event_sink", observer.event_sink)
    _call_hook(agent, "set_task", task)
    try:
        _play(task, agent, episode, observer, print_fn)
    except Exception as exc:  # a broken task or agent is a failed episode, not a crashed run
        episode["exception_info"] = traceback.format_exc()
        episode["error"] = _one_line(exc)
    finally:
        # Events from here on (tear-down, scoring hooks) belong to no step.
        _call_hook(observer, "end_steps")
        try:
            task.tear_down(env)
        except Exception as exc:
            episode["teardown_error"] = _one_line(exc)
    if episode["goal"] is None:
        try:
            episode["goal"] = task.goal
        except Exception:
            episode["goal"] = task.template
    episode["run_time"] = round(time.time() - start, 3)
    episode["finish_dtime"] = datetime.datetime.now(datetime.UTC).isoformat()
    _learn(agent, episode)
    # After episode_finished, so the summary says whether the plan was stored.
    summary = _safe_summary(agent)
    _record_agent_summary(episode, summary)
    if observer is not None:
        observer.finish_episode(episode, summary)
    return episode


def _new_episode(
    task: task_eval.TaskEval,
    agent: base_agent.EnvironmentInteractingAgent,
    instance_id: int,
    instance_name: str,
) -> dict[str, Any]:
    """The episode record before the episode runs: every key a result carries, in its order."""
    return {
        "goal": None,
        "task_template": task.name,
        "instance_id": instance_id,
        "name": instance_name,
        "seed": task.params.get("seed"),
        "params": checkpointer_lib.to_jsonable(task.params),
        "agent_name": agent.name,
        "is_successful": None,
        "raw_score": None,
        "done": None,
        "episode_length": None,
        "exception_info": None,
        "error": None,
        "teardown_error": None,
        "step_budget": step_budget(task, agent.env),
        "episode_data": {},
        "aux_data": None,
        "memory_hit": None,
        "scored": is_scored(task),
        "end_reason": None,
    }


def _play(
    task: task_eval.TaskEval,
    agent: base_agent.EnvironmentInteractingAgent,
    episode: dict[str, Any],
    observer: EpisodeObserver | None,
    print_fn: Callable[[str], None],
) -> None:
    """Initialise the task, run the agent's steps and score them into `episode` (may raise)."""
    env = agent.env
    task.initialize_task(env)
    episode["goal"] = task.goal
    result = episode_runner.run_episode(
        goal=task.goal,
        agent=agent,
        max_n_steps=episode["step_budget"],
        start_on_home_screen=task.start_on_home_screen,
        termination_fn=None,
        print_fn=print_fn,
        on_step_start=observer.on_step_start if observer else None,
        on_step_end=observer.on_step_end if observer else None,
    )
    if episode["scored"]:
        raw_score: float | None = float(task.is_successful(env))
        episode["expected_answer"] = expected_answer(task)
    else:
        raw_score = None
    score = None if raw_score is None else raw_score if result.done else 0.0
    episode.update(
        raw_score=raw_score,
        is_successful=score,
        done=result.done,
        episode_length=len(result.step_data.get(episode_runner.STEP_NUMBER, [])),
        episode_data=result.step_data,
        aux_data=result.aux_data,
    )


def _learn(agent: base_agent.EnvironmentInteractingAgent, episode: dict[str, Any]) -> None:
    """Tell the agent its verified score (what memory learns from), then detach the event sink."""
    try:
        if episode["error"] is None and episode["scored"]:
            # An unscored episode has no verified score to learn from.
            # The sink stays attached so what the agent learns (memory_stored) is in feedback.jsonl.
            _call_hook(agent, "episode_finished", episode["goal"], episode["is_successful"])
    except Exception as exc:  # the score is final; a failing memory write must not lose it
        episode["teardown_error"] = episode["teardown_error"] or _one_line(exc)
    finally:
        _call_hook(agent, "set_event_sink", None)


def _record_agent_summary(episode: dict[str, Any], summary: dict[str, Any]) -> None:
    """What the agent's end-of-episode summary adds to the record: usage, memory, its claim."""
    episode["usage"] = _usage_from(summary)
    episode["memory_hit"] = memory_hit_from(summary)
    episode["claimed"] = claimed_outcome(
        episode.get("done"), summary, episode.get("episode_data") or {}
    )
    episode["end_reason"] = infeasible_reason(episode["claimed"], summary)
    if not episode["scored"]:
        answer = summary.get("answer") if isinstance(summary, Mapping) else None
        episode["agent_answer"] = answer if isinstance(answer, str) else None
    unusable = summary.get("unusable_answers") if isinstance(summary, Mapping) else None
    episode["unusable_answers"] = unusable if isinstance(unusable, int) else None


def expected_answer(task: Any) -> str | None:
    """The answer an information-retrieval task accepts, as text for the report; tasks without
    `expected()` (every task that checks the device instead) have none."""
    expected = getattr(task, "expected", None)
    if not callable(expected):
        return None
    try:
        values = expected()
    except Exception:
        return None
    if isinstance(values, (list, tuple)):
        return " | ".join(str(v) for v in values)
    return None if values is None else str(values)


def _safe_summary(agent: Any) -> dict[str, Any]:
    try:
        summary = _call_hook(agent, "episode_summary")
    except Exception as exc:
        return {"summary_error": _one_line(exc)}
    return checkpointer_lib.to_jsonable(summary) if isinstance(summary, dict) else {}


def run(
    suite: Suite,
    agent: base_agent.EnvironmentInteractingAgent,
    checkpointer: checkpointer_lib.Checkpointer | None = None,
    demo_mode: bool = False,
    return_full_episode_data: bool = False,
    process_episodes_fn: Callable[[list[dict[str, Any]], bool], Any] | None = None,
    check_episode_fn: Callable[[dict[str, Any]], bool] | None = None,
    *,
    observer: EpisodeObserver | None = None,
    checkpoint_episode_data: bool = True,
    on_episode_saved: Callable[[dict[str, Any]], None] | None = None,
    print_fn: Callable[[str], None] = print,
) -> list[dict[str, Any]]:
    """Run every instance not already completed in `checkpointer`; return all episodes' metadata.

    An instance whose saved episode failed is run again and its record replaced. `check_episode_fn`
    may reject an episode (it is then recorded as failed). `demo_mode` is accepted for upstream
    compatibility and ignored.
    """
    del demo_mode
    checkpointer = checkpointer or checkpointer_lib.NullCheckpointer()
    if return_full_episode_data and not isinstance(checkpointer, checkpointer_lib.NullCheckpointer):
        raise ValueError("return_full_episode_data=True cannot be combined with a checkpointer.")
    saved = {ep.get("name"): ep for ep in checkpointer.load() if "name" in ep}
    metadata: dict[str, dict[str, Any]] = {
        name: {k: v for k, v in ep.items() if k != "episode_data"} for name, ep in saved.items()
    }
    for instances in suite.values():
        for i, task in enumerate(instances):
            name = f"{task.name}{checkpointer_lib.INSTANCE_SEPARATOR}{i}"
            previous = saved.get(name)
            if previous is not None and not is_failed(previous):
                continue
            episode = run_task(task, agent, instance_id=i, observer=observer, print_fn=print_fn)
            rejected = (
                check_episode_fn is not None
                and episode["error"] is None
                and not check_episode_fn(episode)
            )
            if rejected:
                episode["error"] = "Episode rejected by check_episode_fn."
            stored = episode if checkpoint_episode_data else _without_steps(episode)
            checkpointer.save_episodes([stored], name)
            metadata[name] = episode if return_full_episode_data else _without_steps(episode)
            if on_episode_saved is not None:
                on_episode_saved(metadata[name])
            if process_episodes_fn is not None:
                process_episodes_fn(list(metadata.values()), True)
    return [metadata[n] for n in _suite_order(suite) if n in metadata]


def _without_steps(episode: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in episode.items() if k != "episode_data"}


def _suite_order(suite: Suite) -> list[str]:
    return [
        f"{task.name}{checkpointer_lib.INSTANCE_SEPARATOR}{i}"
        for instances in suite.values()
        for i, task in enumerate(instances)
    ]


# Upstream's names and the ones the harness reads from here (the outcome and summary parts live
# in episode_outcome and suite_summary).
__all__ = [
    "AVERAGE_ROW",
    "DIFFICULTIES",
    "SUMMARY_WIDTH",
    "UNTAGGED",
    "EpisodeObserver",
    "Suite",
    "Summary",
    "UnknownTaskError",
    "UsageTotals",
    "all_model_calls_failed",
    "claimed_outcome",
    "claims_line",
    "create_suite",
    "distinct_clips",
    "done_unclaimed",
    "expected_answer",
    "false_claims",
    "format_summary",
    "how_it_ended",
    "infeasible_reason",
    "instance_seed",
    "is_failed",
    "is_scored",
    "is_unscored",
    "memory_hit_from",
    "model_error_lines",
    "outcome_line",
    "process_episodes",
    "run",
    "run_task",
    "step_budget",
    "unknown_task_message",
    "usage_totals",
]
