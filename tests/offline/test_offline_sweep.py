"""CelilAgent with the offline roles on the simulated phone, through the harness's run_task.

As a test: every System* task and OpenAppTaskEval succeed on seeds 0..2. As a script, it sweeps
every registered task over seeds 0..2 and prints a per-task table and the wall time:

    PYTHONPATH=. python tests/offline/test_offline_sweep.py [--seeds 0 1 2] [--tasks A B] [--verbose]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]

from android_world.agents.custom.loop import celil_agent  # noqa: E402
from android_world.agents.custom.offline_roles import offline  # noqa: E402
from android_world.agents.custom.offline_roles.offline import OfflinePlanner  # noqa: E402
from android_world.agents.custom.roles.celil_perception import PerceptionModule  # noqa: E402
from android_world.harness import suite_utils  # noqa: E402
from android_world.task_evals import registry  # noqa: E402

sim_env = pytest.importorskip("android_world.env.sim.sim_env")

SEEDS = (0, 1, 2)


def build_agent(env: Any, events: list[dict[str, Any]] | None = None) -> celil_agent.CelilAgent:
    roles = offline.build_offline_roles()
    agent = celil_agent.CelilAgent(
        env,
        PerceptionModule(ocr="off"),
        roles.planner,
        roles.action_generator,
        roles.verifier,
        vision_selector=roles.element_selector,
        screen_checker=OfflinePlanner(),
        transition_pause=0.0,
    )
    if events is not None:
        agent.set_event_sink(events.append)
    return agent


def run_offline(task_name: str, seed: int, verbose: bool = False) -> dict[str, Any]:
    """One episode of `task_name` (params drawn for `seed`) on a fresh SimEnv(seed)."""
    task_cls = registry.TaskRegistry().get_registry()[task_name]
    env = sim_env.SimEnv(seed=seed, render=False)
    try:
        suite = suite_utils.create_suite({task_name: task_cls}, seed=seed, env=env)
        task = suite[task_name][0]
        agent = build_agent(env)
        episode = suite_utils.run_task(task, agent, print_fn=lambda _: None)
        summary = agent.episode_summary()
        if verbose:
            print(f"--- {task_name} seed {seed}: {episode['goal']}")
            for step in suite_utils.episode_runner.transpose_dol_to_lod(episode["episode_data"]):
                print("   ", step.get("summary"), "| gate", step.get("verifier_score"))
            if episode.get("error"):
                print("    ERROR", episode["error"], episode.get("exception_info"))
        return {
            "task": task_name,
            "seed": seed,
            "goal": episode["goal"],
            "score": episode["is_successful"] or 0.0,
            "done": episode["done"],
            "steps": episode["episode_length"],
            "status": summary.get("status"),
            "plan_source": summary.get("plan_source"),
            "error": episode["error"],
        }
    finally:
        env.close()


TARGETS = sorted(
    name
    for name, cls in registry.TaskRegistry().get_registry().items()
    if (name.startswith("System") and "settings" in cls.app_names)
    or name in ("OpenAppTaskEval", "TurnOffWifiAndTurnOnBluetooth")
)


@pytest.mark.parametrize("task_name", TARGETS)
@pytest.mark.slow
def test_offline_agent_solves_settings_and_open_app_tasks(task_name):
    for seed in SEEDS:
        result = run_offline(task_name, seed)
        assert result["error"] is None, result
        assert result["plan_source"] == "offline"
        assert result["done"] and result["status"] == "complete", result
        assert result["score"] == 1.0, result


# Tasks on which the offline roles said "complete" with the task's check failing (task seeds
# 0-5 of the default run): a recorder's list tapped for its Record button, a priority label
# given as a title, a folder picker taken for the move, rows picked by their content guessed.
CLAIMED_FALSELY_BEFORE = (
    "AudioRecorderRecordAudio",
    "TasksHighPriorityTasks",
    "MarkorMoveNote",
    "RecipeDeleteMultipleRecipesWithConstraint",
)


@pytest.mark.parametrize("task_name", CLAIMED_FALSELY_BEFORE)
def test_offline_agent_never_claims_these_falsely(task_name):
    for seed in SEEDS:
        result = run_offline(task_name, seed)
        assert result["error"] is None, result
        if result["status"] == "complete":
            assert result["score"] == 1.0, result


def test_offline_events_are_labelled_offline():
    env = sim_env.SimEnv(seed=0, render=False)
    events: list[dict[str, Any]] = []
    try:
        agent = build_agent(env, events)
        agent.reset(go_home=True)
        for _ in range(10):
            if agent.step("Turn bluetooth off.").done:
                break
    finally:
        env.close()
    plans = [e for e in events if e["type"] == "plan_created"]
    assert plans and plans[0]["source"] == "offline"
    assert plans[0]["rationale"].startswith("[offline]")
    proposals = [e for e in events if e["type"] == "action_proposed"]
    assert proposals and all(p["thought"].startswith("[offline]") for p in proposals)
    votes = [e for e in events if e["type"] == "vote"]
    assert votes and all(v["reasoning"].startswith("[offline]") for v in votes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="*", default=list(SEEDS))
    parser.add_argument("--tasks", nargs="*", default=None)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    names = args.tasks or list(registry.TaskRegistry().get_registry())
    start = time.time()
    rows = []
    for name in names:
        results = [run_offline(name, seed, args.verbose) for seed in args.seeds]
        rows.append((name, results))
        cells = " ".join(f"{r['score']:.1f}/{r['steps']}" for r in results)
        mean = sum(r["score"] for r in results) / len(results)
        print(f"{name:42s} {mean:5.2f}  {cells}", flush=True)
    total = sum(sum(r["score"] for r in res) / len(res) for _, res in rows)
    print(
        f"{'macro mean':42s} {total / max(1, len(rows)):5.2f}  ({len(rows)} tasks, seeds {args.seeds})"
    )
    print(f"wall time {time.time() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
