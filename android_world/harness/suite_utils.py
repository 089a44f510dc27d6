"""Builds a suite of task instances and runs an agent on it, with upstream AndroidWorld's rules.

Differences from upstream, on purpose: `tear_down` runs even when an episode raised (so one bad
episode does not poison the device for the next); a failed episode is recorded with its reason and
left out of the success means instead of turning them into NaN; a rerun of a failed instance
replaces its record rather than adding a second one.
"""

from __future__ import annotations

import dataclasses
import datetime
import difflib
import hashlib
import json
import random
import statistics
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from android_world.agents import base_agent
from android_world.env import interface
from android_world.harness import checkpointer as checkpointer_lib
from android_world.harness import episode_runner
from android_world.task_evals import task_eval

_FIXED_SEED = 123
AVERAGE_ROW = "========= Average ========="
UNTAGGED = "untagged"
DIFFICULTIES = ("easy", "medium", "hard")


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

    # Optional: `end_steps()`, called when the episode's steps are over (before tear-down).


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


def is_scored(task: Any) -> bool:
    """Whether the task has a check. A free goal (`--goal`) has none: its episodes carry the
    agent's claim and no score, and count neither as successes nor as failures."""
    return getattr(task, "scored", True) is not False


def is_unscored(episode: Mapping[str, Any]) -> bool:
    return episode.get("scored") is False


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
    episode: dict[str, Any] = {
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
        "step_budget": step_budget(task, env),
        "episode_data": {},
        "aux_data": None,
        "memory_hit": None,
        "scored": is_scored(task),
        "end_reason": None,
    }
    if observer is not None:
        observer.start_episode(task, instance_name)
        _call_hook(agent, "set_event_sink", observer.event_sink)
    _call_hook(agent, "set_task", task)
    try:
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
    try:
        if episode["error"] is None and episode["scored"]:
            # An unscored episode has no verified score to learn from.
            # The sink stays attached so what the agent learns (memory_stored) is in feedback.jsonl.
            _call_hook(agent, "episode_finished", episode["goal"], episode["is_successful"])
    except Exception as exc:  # the score is final; a failing memory write must not lose it
        episode["teardown_error"] = episode["teardown_error"] or _one_line(exc)
    finally:
        _call_hook(agent, "set_event_sink", None)
    # After episode_finished, so the summary says whether the plan was stored.
    summary = _safe_summary(agent)
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
    if observer is not None:
        observer.finish_episode(episode, summary)
    return episode


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


def is_failed(episode: Mapping[str, Any]) -> bool:
    return episode.get("exception_info") is not None or episode.get("error") is not None


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


# --------------------------------------------------------------------------------------------
# Summary


@dataclasses.dataclass
class Summary:
    """Per-template rows, the macro-average row, and success by tag x difficulty."""

    rows: list[dict[str, Any]]
    average: dict[str, Any]
    pivot: dict[str, dict[str, float | None]]
    columns: list[str]


_BASE_COLUMNS = [
    "task_template",
    "num_complete_trials",
    "mean_success_rate",
    "mean_episode_length",
    "total_runtime_s",
    "num_fail_trials",
]
_USAGE_COLUMNS = [
    "model_calls_per_step",
    "tokens_per_step",
    "model_seconds_per_step",
    "cost_usd",
    "model_errors",
]
_MEMORY_COLUMNS = ["memory_hits"]
# Columns whose average row is a total over templates. Upstream's own columns (trials, failures,
# run time) are averaged over templates in its Average row, so they are averaged here too; only
# the columns upstream does not have are totals.
_TOTAL_COLUMNS = (
    "cost_usd",
    "memory_hits",
    "model_errors",
)


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


@dataclasses.dataclass
class UsageTotals:
    """Model usage summed over episodes, with the agent steps it was spent on."""

    calls: float = 0.0
    tokens: float = 0.0
    seconds: float = 0.0
    cost: float = 0.0
    errors: int = 0
    steps: int = 0
    present: bool = False

    def per_step(self, value: float) -> float | None:
        return value / self.steps if self.present and self.steps else None


def usage_totals(episodes: Iterable[Mapping[str, Any]]) -> UsageTotals:
    totals = UsageTotals()
    for ep in episodes:
        usage = ep.get("usage")
        if not isinstance(usage, dict):
            continue
        totals.present = True
        totals.calls += float(usage.get("model_calls") or 0)
        totals.tokens += float(usage.get("prompt_tokens") or 0) + float(
            usage.get("completion_tokens") or 0
        )
        totals.seconds += float(usage.get("model_seconds") or 0)
        totals.cost += float(usage.get("cost_usd") or 0)
        totals.errors += int(usage.get("errors") or 0)
        totals.steps += int(ep.get("episode_length") or 0)
    return totals


def process_episodes(
    episodes: list[Mapping[str, Any]],
    print_summary: bool = False,
    task_classes: Mapping[str, type[task_eval.TaskEval]] | None = None,
    print_fn: Callable[[str], None] = print,
) -> Summary:
    """Summarise episodes per task template; the average row is a macro mean over templates.

    Failed episodes count only in `num_fail_trials`. Counts and runtime in the average row are
    totals; rates and lengths are means of the per-template values.
    """
    by_template: dict[str, list[Mapping[str, Any]]] = {}
    for ep in episodes:
        by_template.setdefault(str(ep.get("task_template")), []).append(ep)
    any_usage = any(isinstance(ep.get("usage"), dict) for ep in episodes)
    any_memory = any(isinstance(ep.get("memory_hit"), bool) for ep in episodes)
    columns = (
        _BASE_COLUMNS
        + (_USAGE_COLUMNS if any_usage else [])
        + (_MEMORY_COLUMNS if any_memory else [])
    )
    rows: list[dict[str, Any]] = []
    for template in sorted(by_template):
        eps = by_template[template]
        complete = [ep for ep in eps if not is_failed(ep) and ep.get("is_successful") is not None]
        # Unscored episodes (a free goal) ran to an end but have no score: not failures either.
        unscored = [ep for ep in eps if is_unscored(ep) and not is_failed(ep)]
        ran = complete + unscored
        row: dict[str, Any] = {
            "task_template": template,
            "num_complete_trials": len(complete),
            "mean_success_rate": _mean([float(ep["is_successful"]) for ep in complete]),
            "mean_episode_length": _mean([float(ep.get("episode_length") or 0) for ep in ran]),
            "total_runtime_s": round(sum(float(ep.get("run_time") or 0) for ep in eps), 1),
            "num_fail_trials": len(eps) - len(ran),
        }
        if any_usage:
            usage = usage_totals(ran)
            row["model_calls_per_step"] = usage.per_step(usage.calls)
            row["tokens_per_step"] = usage.per_step(usage.tokens)
            row["model_seconds_per_step"] = usage.per_step(usage.seconds)
            row["cost_usd"] = round(usage.cost, 6) if usage.present else None
            row["model_errors"] = usage.errors if usage.present else None
        if any_memory:
            row["memory_hits"] = sum(1 for ep in complete if ep.get("memory_hit") is True)
        rows.append(row)

    average: dict[str, Any] = {"task_template": AVERAGE_ROW}
    for col in columns[1:]:
        values = [r[col] for r in rows if r[col] is not None]
        if col in _TOTAL_COLUMNS:
            total = sum(values)
            average[col] = round(total, 6) if isinstance(total, float) else total
        else:
            average[col] = _mean(values)

    pivot = _tag_difficulty_pivot(rows, task_classes or {})
    summary = Summary(rows=rows, average=average, pivot=pivot, columns=columns)
    if print_summary:
        print_fn(format_summary(summary))
    return summary


def _tag_difficulty_pivot(
    rows: list[dict[str, Any]], task_classes: Mapping[str, type[task_eval.TaskEval]]
) -> dict[str, dict[str, float | None]]:
    """Mean of template success rates per (tag, difficulty); a task counts under each of its tags."""
    cells: dict[str, dict[str, list[float]]] = {}
    for row in rows:
        if row["mean_success_rate"] is None:
            continue
        cls = task_classes.get(row["task_template"])
        tags = tuple(getattr(cls, "tags", ()) or ()) or (UNTAGGED,)
        difficulty = str(getattr(cls, "difficulty", "") or "unknown")
        for tag in tags:
            cells.setdefault(tag, {}).setdefault(difficulty, []).append(row["mean_success_rate"])
    pivot: dict[str, dict[str, float | None]] = {}
    for tag in sorted(cells):
        diffs = list(DIFFICULTIES) + sorted(set(cells[tag]) - set(DIFFICULTIES))
        pivot[tag] = {d: _mean(cells[tag].get(d, [])) for d in diffs}
    return pivot


def _wide_table(summary: Summary) -> list[str]:
    headers = {
        "task_template": "task",
        "num_complete_trials": "trials",
        "mean_success_rate": "success",
        "mean_episode_length": "steps",
        "total_runtime_s": "runtime_s",
        "num_fail_trials": "errors",
        "model_calls_per_step": "calls/step",
        "tokens_per_step": "tokens/step",
        "model_seconds_per_step": "model_s/step",
        "cost_usd": "cost_usd",
        "memory_hits": "mem_hits",
        "model_errors": "calls_failed",
    }
    all_rows = [*summary.rows, summary.average]
    name_w = max([len("task")] + [len(str(r["task_template"])) for r in all_rows])
    header = "task".ljust(name_w) + "".join(
        headers.get(c, c).rjust(_width(c)) for c in summary.columns[1:]
    )
    lines = [header, "-" * len(header)]
    for r in all_rows:
        if r is summary.average:
            lines.append("-" * len(header))
        lines.append(
            str(r["task_template"]).ljust(name_w)
            + "".join(_fmt(r[c], _width(c), c) for c in summary.columns[1:])
        )
    return lines


def _width(column: str) -> int:
    if column in ("num_complete_trials", "num_fail_trials", "memory_hits", "model_errors"):
        return 9
    return 13 if column == "model_seconds_per_step" else 12


def _fmt(value: Any, width: int, column: str = "") -> str:
    if value is None:
        text = "-"
    elif isinstance(value, float):
        text = f"{value:.4f}" if column == "cost_usd" else f"{value:.3f}"
    else:
        text = str(value)
    return text.rjust(width)


# Compact table (the console default): short headers and widths so it fits 80 columns; the
# run-time and model-seconds columns stay in summary.csv and `--wide`.
_COMPACT: dict[str, tuple[str, int, str]] = {
    "num_complete_trials": ("n", 4, "int"),
    "mean_success_rate": ("success", 8, ".3f"),
    "mean_episode_length": ("steps", 6, ".1f"),
    "num_fail_trials": ("errors", 7, "int"),
    "model_calls_per_step": ("call/st", 8, ".2f"),
    "tokens_per_step": ("tok/st", 7, "k"),
    "cost_usd": ("cost$", 7, ".4f"),
    "model_errors": ("callerr", 8, "int"),
    "memory_hits": ("mem", 4, "int"),
}
_WIDE_ONLY = ("total_runtime_s", "model_seconds_per_step")
SUMMARY_WIDTH = 80


def _compact_cell(value: Any, kind: str, width: int) -> str:
    if value is None:
        text = "-"
    elif kind == "int" and isinstance(value, (int, float)):
        text = str(int(value)) if float(value).is_integer() else f"{value:.1f}"
    elif kind == "k" and isinstance(value, (int, float)):
        text = f"{value / 1000:.1f}k" if value >= 10_000 else f"{value:.0f}"
    elif isinstance(value, float):
        text = format(value, kind)
    else:
        text = str(value)
    return text.rjust(width)


def distinct_clips(names: Iterable[str], width: int) -> dict[str, str]:
    """Each name as shown in `width` columns, no two alike: a long name keeps its head and as
    much of its tail as tells it from every other name (`RecipeDeleteDu…Recipes`,
    `RecipeDeleteDu…Pages`); a name that no cut keeps distinct is shown whole."""
    names = list(dict.fromkeys(names))
    shown = {}
    for name in names:
        if len(name) <= width:
            shown[name] = name
            continue
        shown[name] = name
        for tail in range(0, max(width - 2, 0)):
            head = width - 1 - tail
            if head < 1:
                break
            start, end = name[:head], name[len(name) - tail :] if tail else ""
            twins = [
                other
                for other in names
                if other != name and other.startswith(start) and other.endswith(end)
            ]
            if not twins:
                shown[name] = f"{start}…{end}"
                break
    return shown


def _compact_table(summary: Summary) -> list[str]:
    columns = [c for c in summary.columns[1:] if c not in _WIDE_ONLY]
    specs = {c: _COMPACT.get(c, (c[:9], max(len(c[:9]) + 1, 7), ".3f")) for c in columns}
    all_rows = [*summary.rows, summary.average]
    room = SUMMARY_WIDTH - sum(width for _, width, _ in specs.values())
    name_w = min(max([len("task")] + [len(str(r["task_template"])) for r in all_rows]), room)
    name_w = max(name_w, 12)
    # The average row's upstream label is for summary.csv; here it must not eat the name column.
    labels = {id(r): str(r["task_template"]) for r in summary.rows}
    labels[id(summary.average)] = "macro average"
    clips = distinct_clips(labels.values(), name_w)
    name_w = max(name_w, *(len(text) for text in clips.values()))
    header = "task".ljust(name_w) + "".join(h.rjust(w) for h, w, _ in specs.values())
    lines = [header, "-" * len(header)]
    for r in all_rows:
        if r is summary.average:
            lines.append("-" * len(header))
        lines.append(
            clips[labels[id(r)]].ljust(name_w)
            + "".join(_compact_cell(r[c], kind, w) for c, (_, w, kind) in specs.items())
        )
    return lines


def model_error_lines(episodes: Iterable[Mapping[str, Any]]) -> list[str]:
    """Console lines when model calls failed: how many, and the first reason, so a run whose
    every call failed never looks like a normal one."""
    calls = errors = 0
    first = None
    for ep in episodes:
        usage = ep.get("usage")
        if not isinstance(usage, Mapping):
            continue
        calls += int(usage.get("model_calls") or 0)
        errors += int(usage.get("errors") or 0)
        first = first or usage.get("first_error")
    if not errors:
        return []
    lines = [f"WARNING: {errors} of {calls} model calls failed."]
    if first:
        lines.append(f"  first failure: {first}")
    return lines


def all_model_calls_failed(episodes: Iterable[Mapping[str, Any]]) -> bool:
    calls = errors = 0
    for ep in episodes:
        usage = ep.get("usage")
        if isinstance(usage, Mapping):
            calls += int(usage.get("model_calls") or 0)
            errors += int(usage.get("errors") or 0)
    return calls > 0 and errors == calls


def format_summary(summary: Summary, title: str = "", wide: bool = False) -> str:
    """The per-template table, the macro-average row, and the pivot. Compact (80 columns, long
    task names clipped) unless `wide`, which shows every column at full width."""
    lines = [title] if title else []
    if not wide:
        lines += _compact_table(summary)
    else:
        lines += _wide_table(summary)
    if summary.pivot:
        diffs: list[str] = []
        for cells in summary.pivot.values():
            diffs += [d for d in cells if d not in diffs]
        tag_w = max(len("tag"), *(len(t) for t in summary.pivot))
        lines += ["", "mean success by tag x difficulty:"]
        lines.append("tag".ljust(tag_w) + "".join(d.rjust(10) for d in diffs))
        for tag, cells in summary.pivot.items():
            lines.append(tag.ljust(tag_w) + "".join(_fmt(cells.get(d), 10) for d in diffs))
    return "\n".join(lines)
