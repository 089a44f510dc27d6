"""Does episodic memory help? Success with `memory: fresh` against `memory: off`, on the suite and
on reworded goals, and what a poisoned plan costs before it retires.

Run: `nice python benchmarks/memory_value.py [--seeds 0] [--reworded-seeds 0] [--poison-seeds 0]
[--instances 2] [--parts suite reworded poison] [--tasks A B ...] [--poison-every 3] [--off-all]`.

- suite: every sim task, `--instances` parameter draws each, in suite order, once with one fresh
  memory per seed (what a default run does) and once with memory off. Instance i of a task can
  reuse what instance i-1 stored.
- reworded: every task of tests/fixtures/paraphrase_goals.json in its own wording, then in each
  paraphrase, with one fresh memory per seed and with memory off: a paraphrase can find the plan
  its original stored by meaning (`celil_episodic_meaning`).
- poison: every task's memory is seeded with a wrong plan (the task's own plan without its last
  sub-goal) that has a perfect record of 5 successes, as a plan stored from an episode that
  passed for the wrong reason would; then `--instances` + 2 draws run. Counted: the episodes
  that reused it, their success, when it retired, and whether it ever came back.

Episodes run with CelilAgent's offline roles on SimEnv (render off, OCR off), as in
benchmarks/memory_reuse.py. The offline planner is rules, so a remembered plan changes what is
done, not what a model costs. Success rates come with their binomial standard error and the
paired difference (fresh - off, same episodes) with its standard error.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install
sys.path.insert(0, str(Path(__file__).resolve().parent))

import paraphrase

from android_world.agents.custom.loop import celil_agent
from android_world.agents.custom.memory.celil_episodic import EpisodicMemory
from android_world.agents.custom.offline_roles import offline, offline_text
from android_world.agents.custom.offline_roles.offline import OfflinePlanner
from android_world.agents.custom.roles.celil_perception import PerceptionModule
from android_world.env.sim.sim_env import SimEnv
from android_world.harness import suite_utils
from android_world.task_evals import registry

PARTS = ("suite", "reworded", "poison")


@dataclasses.dataclass
class Outcome:
    part: str
    mode: str  # fresh | off | poisoned
    task: str
    seed: int
    instance: int
    split: str  # original | dev | heldout
    goal: str
    success: bool
    status: str | None
    hit: str | None  # the basis of a memory hit ("same template", "same meaning", ...)
    plan_source: str | None
    error: str | None = None
    hit_plan: tuple[str, ...] = ()  # the remembered plan as stored (slots unfilled)

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.part, self.task, self.seed, self.instance, self.split, self.goal)

    @property
    def false_completion(self) -> bool:
        return self.status == "complete" and not self.success


class BasisRecorder:
    """Forwards to an EpisodicMemory and keeps the basis of the last retrieval."""

    def __init__(self, memory: EpisodicMemory) -> None:
        self.memory = memory
        self.last: Any = None
        self.stored_plan: tuple[str, ...] = ()

    def find_similar_task(self, goal: str, app_names: Any = ()) -> Any:
        self.last = self.memory.find_similar_task(goal, app_names)
        self.stored_plan = tuple(self.memory.get(self.last.entry_id).plan) if self.last else ()
        return self.last

    def __getattr__(self, name: str) -> Any:
        return getattr(self.memory, name)


def run_episode(
    part: str,
    mode: str,
    task_name: str,
    seed: int,
    instance: int,
    wording: paraphrase.Wording | None,
    memory: EpisodicMemory | None,
) -> Outcome | None:
    """One episode; None when the wording does not apply to the drawn parameters."""
    task_cls = registry.TaskRegistry().get_registry()[task_name]
    env = SimEnv(seed=seed, render=False)
    try:
        suite = suite_utils.create_suite(
            {task_name: task_cls}, n_task_combinations=instance + 1, seed=seed, env=env
        )
        task = suite[task_name][instance]
        split = "original"
        if wording is not None:
            if not paraphrase.applies(wording, task.params):
                return None
            task.params.update(dict(wording.params))
            text = wording.text.format(**paraphrase.derived_fields(task.params))
            task.__class__ = type(task_name, (task_cls,), {"goal": property(lambda _: text)})
            split = wording.split
        roles = offline.build_offline_roles()
        recorder = BasisRecorder(memory) if memory is not None else None
        agent = celil_agent.CelilAgent(
            env,
            PerceptionModule(ocr="off"),
            roles.planner,
            roles.action_generator,
            roles.verifier,
            episodic_memory=recorder,
            vision_selector=roles.element_selector,
            screen_checker=OfflinePlanner(),
            transition_pause=0.0,
        )
        episode = suite_utils.run_task(task, agent, print_fn=lambda _: None)
        summary = agent.episode_summary()
        hit = recorder.last if recorder is not None else None
        return Outcome(
            part=part,
            mode=mode,
            task=task_name,
            seed=seed,
            instance=instance,
            split=split,
            goal=str(episode["goal"]),
            success=bool(episode["is_successful"]),
            status=summary.get("status"),
            hit=getattr(hit, "basis", None) if hit is not None else None,
            plan_source=summary.get("plan_source"),
            error=episode.get("error"),
            hit_plan=recorder.stored_plan if recorder is not None else (),
        )
    finally:
        env.close()


def suite_part(
    tasks: Sequence[str], seeds: Sequence[int], instances: int, tmp: Path
) -> list[Outcome]:
    out: list[Outcome] = []
    for seed in seeds:
        memory = EpisodicMemory(tmp / f"suite-{seed}.db")
        for mode, mem in (("fresh", memory), ("off", None)):
            for task in tasks:
                for i in range(instances):
                    result = run_episode("suite", mode, task, seed, i, None, mem)
                    if result is not None:
                        out.append(result)
                _progress(f"suite seed {seed} {mode}: {task}")
        memory.close()
    return out


def reworded_part(
    tasks: Sequence[str], seeds: Sequence[int], tmp: Path, *, off_all: bool = False
) -> list[Outcome]:
    """Each task's own wording, then its paraphrases, with one fresh memory per seed; then with
    memory off. Off runs only the episodes whose fresh run retrieved a plan (unless `off_all`):
    without a retrieval the agent never reads its memory, so the episode is the same episode
    (the suite part runs every episode both ways and checks that)."""
    wordings = paraphrase.load_wordings()
    out: list[Outcome] = []
    for seed in seeds:
        memory = EpisodicMemory(tmp / f"reworded-{seed}.db")
        fresh = []
        for task in tasks:
            for wording in [None, *wordings.get(task, [])]:
                result = run_episode("reworded", "fresh", task, seed, 0, wording, memory)
                if result is not None:
                    fresh.append((wording, result))
            _progress(f"reworded seed {seed}: {task}")
        memory.close()
        for wording, result in fresh:
            out.append(result)
            if off_all or result.hit:
                off = run_episode("reworded", "off", result.task, seed, 0, wording, None)
                assert off is not None
            else:
                off = dataclasses.replace(result, mode="off")
            out.append(off)
    return out


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def poison_part(
    tasks: Sequence[str], seeds: Sequence[int], instances: int, tmp: Path
) -> tuple[list[Outcome], list[str]]:
    """Runs with a wrong plan seeded per task; returns the outcomes and one line per task."""
    out: list[Outcome] = []
    lines: list[str] = []
    for seed in seeds:
        memory = EpisodicMemory(tmp / f"poison-{seed}.db", retire_after=3)
        for task in tasks:
            first = _first_goal(task, seed)
            plan, _ = offline.build_plan(offline_text.parse_goal(first))
            if len(plan) < 2:
                continue
            for _ in range(5):
                entry = memory.add_successful_plan(first, plan[:-1])
            if not entry:
                continue
            poisoned = tuple(memory.get(entry).plan)
            used = []
            for i in range(1, instances + 3):
                result = run_episode("poison", "poisoned", task, seed, i, None, memory)
                if result is None:
                    continue
                out.append(result)
                used.append(result)
            _progress(f"poison seed {seed}: {task}")
            stored = memory.get(entry)
            reused = [o for o in used if o.hit_plan == poisoned]
            for o in used:
                o.split = "poisoned plan" if o.hit_plan == poisoned else "other"
            retired_at = _retired_at(used, poisoned)
            back = [o for o in used[retired_at:] if o.hit_plan == poisoned] if retired_at else []
            now = stored.status
            if now == "active" and tuple(stored.plan) != poisoned:
                now = "replaced by a newly verified plan"
            lines.append(
                f"{task} seed {seed}: reused {len(reused)}/{len(used)} "
                f"(succeeded {sum(o.success for o in reused)}); "
                + (f"retired after episode {retired_at}; " if retired_at else "never retired; ")
                + f"now {now}"
                + (f"; CAME BACK {len(back)} times" if back else "")
            )
        memory.close()
    return out, lines


def _retired_at(used: Sequence[Outcome], poisoned: tuple[str, ...]) -> int | None:
    """After which episode the poisoned plan had failed 3 uses in a row (None: never)."""
    streak = 0
    for n, o in enumerate(used, 1):
        if o.hit_plan == poisoned:
            streak = 0 if o.success else streak + 1
            if streak == 3:
                return n
    return None


def _first_goal(task: str, seed: int) -> str:
    cls = registry.TaskRegistry().get_registry()[task]
    return suite_utils.create_suite({task: cls}, n_task_combinations=1, seed=seed)[task][0].goal


# ---------------------------------------------------------------------------------------------
# Statistics and tables
# ---------------------------------------------------------------------------------------------


def rate(values: Sequence[bool]) -> str:
    """A success rate with its binomial standard error."""
    n = len(values)
    if not n:
        return "-"
    p = sum(values) / n
    return f"{p:.3f} ± {math.sqrt(p * (1 - p) / n):.3f}"


def paired(fresh: Sequence[Outcome], off: Sequence[Outcome]) -> tuple[str, int, list[str]]:
    """Mean difference fresh - off over the same episodes, its standard error, the number of
    episodes that differ, and a line for each."""
    by_key = {o.key: o for o in off}
    diffs, changed = [], []
    for o in fresh:
        other = by_key.get(o.key)
        if other is None:
            continue
        d = int(o.success) - int(other.success)
        diffs.append(d)
        if d:
            changed.append(
                f"{'+' if d > 0 else '-'} {o.task} seed {o.seed} #{o.instance} [{o.split}] "
                f"hit={o.hit or 'none'} plan={o.plan_source}: {o.goal[:70]!r}"
            )
    if len(diffs) < 2:
        return "-", 0, changed
    se = statistics.stdev(diffs) / math.sqrt(len(diffs))
    return f"{statistics.fmean(diffs):+.3f} ± {se:.3f}", len(changed), changed


def report(outcomes: Sequence[Outcome], part: str) -> list[str]:
    rows = [o for o in outcomes if o.part == part]
    if not rows:
        return []
    splits = sorted({o.split for o in rows}, key=("original", "dev", "heldout").index)
    lines = [
        f"## {part}",
        f"{'split':<10}{'eps':>5}{'fresh':>16}{'off':>16}{'fresh - off':>18}{'changed':>9}"
        f"{'hits':>6}{'by meaning':>12}{'false compl. f/o':>18}",
    ]
    for split in [*splits, "all"]:
        chosen = [o for o in rows if split in ("all", o.split)]
        fresh = [o for o in chosen if o.mode == "fresh"]
        off = [o for o in chosen if o.mode == "off"]
        diff, changed, _ = paired(fresh, off)
        hits = [o for o in fresh if o.hit]
        lines.append(
            f"{split:<10}{len(fresh):>5}{rate([o.success for o in fresh]):>16}"
            f"{rate([o.success for o in off]):>16}{diff:>18}{changed:>9}{len(hits):>6}"
            f"{sum(o.hit == 'same meaning' for o in hits):>12}"
            f"{sum(o.false_completion for o in fresh):>9}/{sum(o.false_completion for o in off)}"
        )
    _, _, changed = paired(
        [o for o in rows if o.mode == "fresh"], [o for o in rows if o.mode == "off"]
    )
    if part == "suite":
        by_key = {o.key: o for o in rows if o.mode == "off"}
        quiet = [o for o in rows if o.mode == "fresh" and not o.hit and o.key in by_key]
        same = sum(
            (o.success, o.status, o.plan_source)
            == (by_key[o.key].success, by_key[o.key].status, by_key[o.key].plan_source)
            for o in quiet
        )
        lines.append(f"episodes with no retrieval, the same with memory off: {same}/{len(quiet)}")
    lines += ["episodes whose success differs (+ fresh better, - off better):"]
    lines += [f"  {line}" for line in changed] or ["  none"]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="suite seeds")
    parser.add_argument("--reworded-seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--poison-seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--instances", type=int, default=2, help="draws per task (suite, poison)")
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    parser.add_argument("--tasks", nargs="*", default=None, help="task names (default: all)")
    parser.add_argument(
        "--poison-every", type=int, default=3, help="poison every Nth task (all: 1)"
    )
    parser.add_argument(
        "--off-all", action="store_true", help="reworded: run every episode with memory off too"
    )
    args = parser.parse_args(argv)
    known = registry.TaskRegistry().get_registry("sim")
    tasks = args.tasks or sorted(known)
    unknown = [t for t in tasks if t not in known]
    if unknown or args.instances < 1:
        print(
            f"error: unknown task {unknown[0]!r}" if unknown else "error: --instances >= 1",
            file=sys.stderr,
        )
        return 2
    start = time.perf_counter()
    outcomes: list[Outcome] = []
    poison_lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        if "suite" in args.parts:
            outcomes += suite_part(tasks, args.seeds, args.instances, Path(tmp))
        if "reworded" in args.parts:
            outcomes += reworded_part(tasks, args.reworded_seeds, Path(tmp), off_all=args.off_all)
        if "poison" in args.parts:
            chosen = tasks[:: max(1, args.poison_every)]
            more, poison_lines = poison_part(chosen, args.poison_seeds, args.instances, Path(tmp))
            outcomes += more
    print(
        f"suite seeds {args.seeds} ({args.instances} draws per task), reworded seeds "
        f"{args.reworded_seeds}, poison seeds {args.poison_seeds}; {len(tasks)} tasks; "
        f"wall {time.perf_counter() - start:.0f} s"
    )
    for part in ("suite", "reworded"):
        lines = report(outcomes, part)
        if lines:
            print("\n" + "\n".join(lines))
    if "poison" in args.parts:
        poisoned = [o for o in outcomes if o.part == "poison"]
        reused = [o for o in poisoned if o.split == "poisoned plan"]
        print("\n## poison (a wrong plan with 5 successes seeded per task; retire_after 3)")
        print(
            f"episodes {len(poisoned)}; reused the poisoned plan {len(reused)}, of which "
            f"succeeded {sum(o.success for o in reused)} (rate {rate([o.success for o in reused])}); "
            f"episodes without it {rate([o.success for o in poisoned if o.split != 'poisoned plan'])}"
        )
        retired = sum("retired after" in line for line in poison_lines)
        back = sum("CAME BACK" in line for line in poison_lines)
        print(f"tasks whose poisoned plan came back after retiring: {back}")
        print(f"tasks whose poisoned plan retired: {retired}/{len(poison_lines)}")
        for line in poison_lines:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
