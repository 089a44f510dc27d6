"""What episodic memory saves: the same tasks twice, the second time with new parameters.

Run: `python benchmarks/memory_reuse.py [--tasks A B ...] [--seeds-a 0 1 2] [--seeds-b 3 4 5]`.

Pass 1 runs CelilAgent with the offline roles (SimEnv render=False, OCR off) over the tasks with
seeds A and an empty episodic memory; every verified success stores its plan. Pass 2 runs the
same tasks with NEW seeds (so new names, numbers and texts in the goals) and the memory of pass
1. The table compares, per task: memory hits in pass 2, success, mean steps, plans written by the
planner (initial + corrective), all planner invocations, model calls from the usage ledger, and
"foreign": of all plans retrieved in either pass, how many (filled in for the new goal) still
carry a slot value of the stored example goal that the new goal does not have, which is memory
poisoning and should be 0. A last line counts the plans episodic memory refused to store
because they still spelled out their goal's values (its "plan not stored" warnings).

With the offline roles the planner is rules, not a model: planner invocations are counted, but
they cost no model calls, and the ledger's model-call count is 0 in both passes. With model
roles, every plan written is a model call, so the "plans written" column is what memory saves.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install

from android_world.agents.custom.celil_protocols import FailureContext, Observation, Plan, Planner
from android_world.agents.custom.loop import celil_agent
from android_world.agents.custom.memory import celil_episodic
from android_world.agents.custom.model_clients.ledger import UsageLedger
from android_world.agents.custom.offline_roles import offline
from android_world.agents.custom.offline_roles.offline import OfflinePlanner
from android_world.agents.custom.roles.celil_perception import PerceptionModule
from android_world.env.sim.sim_env import SimEnv
from android_world.harness import suite_utils
from android_world.task_evals import registry

DEFAULT_SEEDS_A = (0, 1, 2)
DEFAULT_SEEDS_B = (3, 4, 5)


class CountingPlanner(Planner):
    """Forwards to a planner and counts its invocations by kind."""

    def __init__(self, planner: Any) -> None:
        self._planner = planner
        self.calls: collections.Counter[str] = collections.Counter()

    def generate_initial_plan(
        self, goal: str, observation: Observation, retrieved_plan: list[str] | None
    ) -> Plan:
        self.calls["initial_plan"] += 1
        return self._planner.generate_initial_plan(goal, observation, retrieved_plan)

    def generate_corrective_plan(self, failure_context: FailureContext) -> Plan:
        self.calls["corrective_plan"] += 1
        return self._planner.generate_corrective_plan(failure_context)

    def is_sub_goal_done(self, *args: Any) -> bool:
        self.calls["progress_check"] += 1
        return self._planner.is_sub_goal_done(*args)

    def check_sub_goal(self, *args: Any) -> Any:
        """The evidence-giving progress check: without it the agent sees a bare yes, which is no
        evidence, and never counts a sub-goal done."""
        self.calls["progress_check"] += 1
        return self._planner.check_sub_goal(*args)

    def answer_question(self, *args: Any) -> str | None:
        self.calls["answer"] += 1
        return self._planner.answer_question(*args)

    @property
    def plans_written(self) -> int:
        return self.calls["initial_plan"] + self.calls["corrective_plan"]

    @property
    def total(self) -> int:
        return sum(self.calls.values())


class RecordingMemory:
    """Forwards to an EpisodicMemory and keeps every plan retrieval returned (with the stored
    example goal, which the agent's memory_hit event does not carry)."""

    def __init__(self, memory: celil_episodic.EpisodicMemory) -> None:
        self._memory = memory
        self.retrieved: list[celil_episodic.RetrievedPlan] = []

    def find_similar_task(
        self, goal: str, app_names: Any = ()
    ) -> celil_episodic.RetrievedPlan | None:
        found = self._memory.find_similar_task(goal, app_names)
        if found is not None:
            self.retrieved.append(found)
        return found

    def __getattr__(self, name: str) -> Any:
        return getattr(self._memory, name)


REFUSED_PREFIX = "plan not stored: after abstraction"


def foreign_values(example_goal: str, goal: str, plan: Sequence[str]) -> list[str]:
    """Slot values of the stored example goal that a plan retrieved for `goal` still carries,
    though `goal` has no such value: the old goal's data leaking into the new one.

    On/off slots are left out: "on" is also a preposition ("Tap on Save").
    """
    old = celil_episodic.abstract_goal(example_goal).slots.values()
    new = {slot.value for slot in celil_episodic.abstract_goal(goal).slots.values()}
    text = "\n".join(plan)
    out: list[str] = []
    for slot in old:
        value = slot.value.strip()
        if slot.type == "toggle" or not value or value in new or value in out:
            continue
        if _whole_word(value, goal):
            continue
        if _whole_word(value, text):
            out.append(value)
    return out


def _whole_word(value: str, text: str) -> bool:
    left = r"(?<!\w)" if value[:1].isalnum() else ""
    right = r"(?!\w)" if value[-1:].isalnum() else ""
    return re.search(left + re.escape(value) + right, text) is not None


@dataclasses.dataclass
class EpisodeResult:
    task: str
    seed: int
    goal: str
    score: float
    steps: int
    memory_hit: bool
    memory_entry: str | None
    stored: bool
    plan: list[str]
    plans_written: int
    planner_calls: int
    model_calls: int
    events: list[dict[str, Any]]
    error: str | None = None
    retrieved_example: str | None = None
    retrieved_plan: list[str] = dataclasses.field(default_factory=list)
    foreign: list[str] = dataclasses.field(default_factory=list)
    memory_warnings: list[str] = dataclasses.field(default_factory=list)

    @property
    def refused(self) -> list[str]:
        """The memory's warnings about plans it would not store (they named goal values)."""
        return [w for w in self.memory_warnings if w.startswith(REFUSED_PREFIX)]


def run_episode(task_name: str, seed: int, memory_path: Path) -> EpisodeResult:
    """One episode of `task_name` (params drawn for `seed`) with the offline roles and memory."""
    task_cls = registry.TaskRegistry().get_registry()[task_name]
    env = SimEnv(seed=seed, render=False)
    try:
        suite = suite_utils.create_suite({task_name: task_cls}, seed=seed, env=env)
        task = suite[task_name][0]
        roles = offline.build_offline_roles()
        planner = CountingPlanner(roles.planner)
        ledger = UsageLedger()
        memory = RecordingMemory(celil_episodic.EpisodicMemory(memory_path))
        agent = celil_agent.CelilAgent(
            env,
            PerceptionModule(ocr="off"),
            planner,
            roles.action_generator,
            roles.verifier,
            episodic_memory=memory,
            vision_selector=roles.element_selector,
            ledger=ledger,
            screen_checker=OfflinePlanner(),
            transition_pause=0.0,
        )
        events: list[dict[str, Any]] = []
        agent.set_event_sink(events.append)
        episode = suite_utils.run_task(task, agent, print_fn=lambda _: None)
        summary = agent.episode_summary()  # again: `stored` is settled after episode_finished
        outcome = summary.get("memory") or {}
        plan_events = [e for e in events if e.get("type") == "plan_created"]
        goal = str(episode["goal"])
        retrieved = memory.retrieved[0] if memory.retrieved else None
        return EpisodeResult(
            task=task_name,
            seed=seed,
            goal=goal,
            score=float(episode["is_successful"] or 0.0),
            steps=int(episode["episode_length"] or 0),
            memory_hit=bool(outcome.get("hit")),
            memory_entry=outcome.get("entry_id"),
            stored=bool(outcome.get("stored")),
            plan=list(plan_events[0]["sub_goals"]) if plan_events else [],
            plans_written=planner.plans_written,
            planner_calls=planner.total,
            model_calls=int(ledger.totals().get("model_calls", 0)),
            events=events,
            error=episode.get("error"),
            retrieved_example=retrieved.example_goal if retrieved else None,
            retrieved_plan=list(retrieved.plan) if retrieved else [],
            foreign=(
                foreign_values(retrieved.example_goal, goal, retrieved.plan) if retrieved else []
            ),
            memory_warnings=list(memory.warnings),
        )
    finally:
        env.close()


def run_pass(tasks: Sequence[str], seeds: Sequence[int], memory_path: Path) -> list[EpisodeResult]:
    return [run_episode(task, seed, memory_path) for task in tasks for seed in seeds]


@dataclasses.dataclass
class TaskRow:
    task: str
    hits: int
    episodes: int
    success_1: float
    success_2: float
    steps_1: float
    steps_2: float
    plans_1: float
    plans_2: float
    planner_1: float
    planner_2: float
    model_calls_1: int
    model_calls_2: int
    retrieved: int = 0
    foreign: int = 0


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def compare(first: Sequence[EpisodeResult], second: Sequence[EpisodeResult]) -> list[TaskRow]:
    by_task: dict[str, tuple[list[EpisodeResult], list[EpisodeResult]]] = {}
    for result in first:
        by_task.setdefault(result.task, ([], []))[0].append(result)
    for result in second:
        by_task.setdefault(result.task, ([], []))[1].append(result)
    rows = []
    for task, (one, two) in by_task.items():
        rows.append(
            TaskRow(
                task=task,
                hits=sum(r.memory_hit for r in two),
                episodes=len(two),
                success_1=_mean([r.score for r in one]),
                success_2=_mean([r.score for r in two]),
                steps_1=_mean([r.steps for r in one]),
                steps_2=_mean([r.steps for r in two]),
                plans_1=_mean([r.plans_written for r in one]),
                plans_2=_mean([r.plans_written for r in two]),
                planner_1=_mean([r.planner_calls for r in one]),
                planner_2=_mean([r.planner_calls for r in two]),
                model_calls_1=sum(r.model_calls for r in one),
                model_calls_2=sum(r.model_calls for r in two),
                retrieved=sum(r.retrieved_example is not None for r in (*one, *two)),
                foreign=sum(bool(r.foreign) for r in (*one, *two)),
            )
        )
    return rows


def format_table(rows: Sequence[TaskRow]) -> str:
    header = (
        f"{'task':34s} {'hits':>5s} {'success 1->2':>13s} {'steps 1->2':>12s} "
        f"{'plans 1->2':>11s} {'planner 1->2':>13s} {'model calls':>11s} {'foreign':>7s}"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        lines.append(
            f"{r.task:34s} {r.hits:>2d}/{r.episodes:<2d} "
            f"{r.success_1:>5.2f}->{r.success_2:<5.2f} "
            f"{r.steps_1:>5.1f}->{r.steps_2:<5.1f} "
            f"{r.plans_1:>4.1f}->{r.plans_2:<4.1f} "
            f"{r.planner_1:>5.1f}->{r.planner_2:<5.1f} "
            f"{r.model_calls_1:>4d}->{r.model_calls_2:<4d} "
            f"{r.foreign:>3d}/{r.retrieved:<3d}"
        )
    if rows:
        hit_rows = [r for r in rows if r.hits]
        lines.append("-" * len(header))
        lines.append(
            f"{'all tasks':34s} {sum(r.hits for r in rows):>2d}/{sum(r.episodes for r in rows):<2d} "
            f"{_mean([r.success_1 for r in rows]):>5.2f}->{_mean([r.success_2 for r in rows]):<5.2f} "
            f"{_mean([r.steps_1 for r in rows]):>5.1f}->{_mean([r.steps_2 for r in rows]):<5.1f} "
            f"{_mean([r.plans_1 for r in rows]):>4.1f}->{_mean([r.plans_2 for r in rows]):<4.1f} "
            f"{_mean([r.planner_1 for r in rows]):>5.1f}->{_mean([r.planner_2 for r in rows]):<5.1f} "
            f"{sum(r.model_calls_1 for r in rows):>4d}->{sum(r.model_calls_2 for r in rows):<4d} "
            f"{sum(r.foreign for r in rows):>3d}/{sum(r.retrieved for r in rows):<3d}"
        )
        if hit_rows:
            saved_steps = sum((r.steps_1 - r.steps_2) * r.episodes for r in hit_rows)
            saved_plans = sum((r.plans_1 - r.plans_2) * r.episodes for r in hit_rows)
            lines.append(
                f"tasks with hits: {len(hit_rows)}; steps saved in pass 2: {saved_steps:.0f}; "
                f"plans written saved: {saved_plans:.0f} (offline planner: rules, 0 model calls)"
            )
    return "\n".join(lines)


def format_refusals(results: Sequence[EpisodeResult]) -> str:
    """One line: how many verified plans memory refused to store, and for which tasks."""
    refused = [(r.task, w) for r in results for w in r.refused]
    line = f"plans refused at storage: {len(refused)}"
    if refused:
        tasks = collections.Counter(task for task, _ in refused)
        line += " (" + ", ".join(f"{t} {n}" for t, n in sorted(tasks.items())) + ")"
    return line


def format_foreign(results: Sequence[EpisodeResult]) -> list[str]:
    """One line per retrieved plan that carried another goal's values (none is the goal)."""
    return [
        f"foreign values in {r.task} seed {r.seed}: {', '.join(repr(v) for v in r.foreign)}"
        for r in results
        if r.foreign
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="*", default=None, help="task names (default: all)")
    parser.add_argument("--seeds-a", type=int, nargs="+", default=list(DEFAULT_SEEDS_A))
    parser.add_argument("--seeds-b", type=int, nargs="+", default=list(DEFAULT_SEEDS_B))
    parser.add_argument("--memory", type=Path, default=None, help="memory file (default: temp)")
    args = parser.parse_args(argv)
    known = registry.TaskRegistry().get_registry()
    tasks = args.tasks or sorted(known)
    unknown = [t for t in tasks if t not in known]
    if unknown:
        print(
            f"error: unknown task {unknown[0]!r}; run with no --tasks to use all", file=sys.stderr
        )
        return 2
    if set(args.seeds_a) & set(args.seeds_b):
        print("error: --seeds-b must be new seeds, not any of --seeds-a", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        memory = args.memory or Path(tmp) / "memory.db"
        if memory.exists():
            print(f"error: {memory} exists; pass 1 needs an empty memory", file=sys.stderr)
            return 2
        start = time.perf_counter()
        first = run_pass(tasks, args.seeds_a, memory)
        second = run_pass(tasks, args.seeds_b, memory)
        wall = time.perf_counter() - start
    print(f"pass 1 seeds {args.seeds_a} (empty memory) -> pass 2 seeds {args.seeds_b}")
    print(format_table(compare(first, second)))
    print(format_refusals([*first, *second]))
    for line in format_foreign([*first, *second]):
        print(line)
    print(f"wall time {wall:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
