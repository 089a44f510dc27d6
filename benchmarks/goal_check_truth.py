"""How often the model-free whole-goal check (offline_goal.check_goal) is right, against the
task's own check, on every step of every reference solution.

Run: `python benchmarks/goal_check_truth.py [--seeds 0 1 2] [--tasks A B] [--split dev|heldout|all]
[--profile default]`.

Each task's reference solution runs on the simulated phone. Before each action, and at the
end, the check reads the goal against the trail of screens and actions so far, as the agent
would see them (accessibility tree, no OCR), and its verdict is compared with the task's
`is_successful` at that moment:

- a `done` while the task's check fails is a false done: the agent would claim complete;
- an `unmet` at the end of a solution that passed is a false unmet: the agent would not claim
  a success it reached (done but unclaimed);
- `unknown` is neither: the agent then asks the planner (or, with the offline roles, the plan's
  own evidence).

Tasks are split into dev and held-out by a hash of their name (one in five held out); tune on
dev, read held-out last.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import logging
import random
import sys
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install

from android_world.agents.custom import celil_geometry
from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNMET,
    TrailStep,
    without_pixels,
)
from android_world.agents.custom.offline_roles import offline_goal
from android_world.agents.custom.roles.celil_perception import PerceptionModule
from android_world.env import json_action
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals.registry import TaskRegistry


def split_of(task_name: str) -> str:
    return "heldout" if zlib.crc32(task_name.encode()) % 5 == 0 else "dev"


@dataclasses.dataclass
class Tally:
    checks: int = 0
    false_done: int = 0
    end_done: int = 0
    end_unknown: int = 0
    end_unmet: int = 0  # false unmet: the solution passed
    episodes: int = 0
    errors: int = 0
    last_unknown: str = ""
    examples: list[str] = dataclasses.field(default_factory=list)


def _screen_key(observation) -> tuple:
    return tuple((e.text, e.content_description, e.is_checked) for e in observation.ui_elements)


def run_task(
    name: str, cls: type, seed: int, profile: str | None, tally: Tally, skip: int | None = None
) -> None:
    """One reference run; with `skip`, that action (1-based) is left out, as an agent that
    missed a step would (the solution reads the live screen, so it goes on from there)."""
    random.seed(seed)
    task = cls(cls.generate_random_params())
    env = SimEnv(seed=seed, render=False, profile=profile)
    perception = PerceptionModule(ocr="off")
    trail: list[TrailStep] = []

    def perceive():
        state = env.get_state()
        return perception.process_observation(
            state, foreground_activity=env.foreground_activity_name
        )

    try:
        task.initialize_task(env)
    except Exception as error:  # a task that cannot start here is counted, not fatal
        tally.errors += 1
        tally.examples.append(f"error {name}#{seed}: {type(error).__name__}: {error}")
        env.close()
        return
    goal = task.goal
    observation = perceive()
    stuck = ""
    try:
        for step, action in enumerate(task.oracle_actions(env), start=1):
            verdict = offline_goal.check_goal(goal, trail, observation)
            tally.checks += 1
            if verdict.status == GOAL_DONE and task.is_successful(env) < 1.0:
                tally.false_done += 1
                tally.examples.append(f"false done {name}#{seed} step {step}: {verdict.reason()}")
            if action.action_type in (json_action.STATUS, json_action.ANSWER):
                break
            if step == skip:
                continue
            target = ""
            if action.index is not None and int(action.index) < len(observation.ui_elements):
                target = celil_geometry.element_label(observation.ui_elements[int(action.index)])
            env.execute_action(action)
            after = perceive()
            trail.append(
                TrailStep(
                    step=step,
                    screen=without_pixels(observation),
                    action_type=action.action_type,
                    index=None if action.index is None else int(action.index),
                    target=target,
                    typed=action.text or "" if action.action_type == "input_text" else "",
                    ok=True,
                    changed=_screen_key(after) != _screen_key(observation),
                )
            )
            observation = after
    except Exception as error:
        # The solution cannot go on from here (a step was left out): an agent stuck where it
        # stands; the check must still not call it done.
        stuck = f" (stuck: {type(error).__name__})"
        tally.errors += 1
    try:
        _score_end(
            name, seed, goal, trail, observation, task.is_successful(env) >= 1.0, tally, stuck
        )
    finally:
        env.close()


def _score_end(name, seed, goal, trail, observation, passed, tally, stuck) -> None:
    verdict = offline_goal.check_goal(goal, trail, observation)
    tally.episodes += 1
    if verdict.status == GOAL_DONE:
        tally.end_done += 1
        if not passed:
            tally.false_done += 1
            tally.examples.insert(0, f"false done {name}#{seed} end{stuck}: {verdict.reason()}")
    elif verdict.status == GOAL_UNMET:
        if passed:
            tally.end_unmet += 1
            tally.examples.insert(0, f"false unmet {name}#{seed}{stuck}: {verdict.reason()}")
    else:
        tally.end_unknown += 1
        tally.last_unknown = verdict.reason()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--tasks", nargs="*", default=None)
    parser.add_argument("--split", choices=("dev", "heldout", "all"), default="dev")
    parser.add_argument("--profile", default=None)
    parser.add_argument("--examples", type=int, default=30)
    parser.add_argument("--by_task", action="store_true", help="the end verdicts of each task")
    parser.add_argument(
        "--skip_one",
        type=int,
        default=0,
        help="also run N variants per episode that leave one action out (a missed step)",
    )
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)
    registry = TaskRegistry().get_registry("sim")
    names = args.tasks or sorted(registry)
    if args.split != "all":
        names = [n for n in names if split_of(n) == args.split]
    tallies: dict[str, Tally] = collections.defaultdict(Tally)
    for name in names:
        for seed in args.seeds:
            run_task(name, registry[name], seed, args.profile, tallies[name])
            for skip in range(1, args.skip_one + 1):
                run_task(name, registry[name], seed, args.profile, tallies[name], skip=skip * 2)
    total = Tally()
    for tally in tallies.values():
        for field in ("checks", "false_done", "end_done", "end_unknown", "end_unmet"):
            setattr(total, field, getattr(total, field) + getattr(tally, field))
        total.episodes += tally.episodes
        total.errors += tally.errors
        total.examples += tally.examples
    print(f"split={args.split} tasks={len(names)} seeds={args.seeds} profile={args.profile}")
    print(
        "| episodes | checks | false done | end done | end unknown | end unmet (false) | stuck or errors |"
    )
    print("|---|---|---|---|---|---|---|")
    print(
        f"| {total.episodes} | {total.checks} | {total.false_done} | {total.end_done} | "
        f"{total.end_unknown} | {total.end_unmet} | {total.errors} |"
    )
    if args.by_task:
        for name, tally in sorted(tallies.items()):
            print(
                f"  {name}: done {tally.end_done} unknown {tally.end_unknown} "
                f"false-unmet {tally.end_unmet} false-done {tally.false_done}"
                + (f"  [{tally.last_unknown[:90]}]" if tally.end_unknown else "")
            )
    for line in total.examples[: args.examples]:
        print(" ", line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
