"""How fast the simulated phone steps: execute_action + get_state with a rendered 1080x2400 frame.

Run: `python benchmarks/sim_speed.py [--seeds N] [--steps N]`. One row per scenario:

- `oracle_replay` (the headline): every registered task's reference solution, for a few seeds,
  across all apps; this is what an agent's episode does to the phone (open apps, tap through
  lists, type into forms, confirm dialogs). Caches help only as much as screens really recur.
- `typing`: every step types into a note, so every frame is new (the worst case).

Steps per second count only the timed calls (execute_action, then get_state); task set-up and
the oracle's own screen reading are outside the clock. Rows with render "no" are
SimEnv(render=False), as fast tests use it. "cpu/s" counts this process's CPU time instead of
the wall clock, a steadier figure on a busy machine. "cold render" draws the last frame again
with no caches (the reference renderer). Target: >= 100 steps per second for `oracle_replay`.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install

from android_world.env.json_action import JSONAction
from android_world.env.sim import SimEnv
from android_world.task_evals.registry import TaskRegistry

TARGET = 100.0


class Timer:
    """Times execute_action + get_state pairs, by the wall clock and by this process's CPU time
    (the second is what a busy shared machine cannot steal)."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.cpu: list[float] = []

    def step(self, env: SimEnv, action: JSONAction) -> None:
        c0, t0 = time.process_time(), time.perf_counter()
        env.execute_action(action)
        state = env.get_state()
        self.times.append(time.perf_counter() - t0)
        self.cpu.append(time.process_time() - c0)
        assert state.pixels.shape == (2400, 1080, 3)


def oracle_replay(env: SimEnv, timer: Timer, seeds: int, steps: int) -> None:
    """Every task's oracle, seeds 0..n-1, as the runner would set each episode up."""
    del steps
    tasks = TaskRegistry().get_registry()
    for seed in range(seeds):
        for cls in tasks.values():
            random.seed(seed)
            params = {**cls.generate_random_params(), "seed": seed}
            task = cls(params)
            env.reset(go_home=True)
            task.initialize_task(env)
            for action in task.oracle_actions(env):
                timer.step(env, action)
                if action.action_type == "status":
                    break
            task.tear_down(env)


def typing(env: SimEnv, timer: Timer, seeds: int, steps: int) -> None:
    """A Markor note whose text changes on every step, so no frame repeats."""
    del seeds
    env.execute_action(JSONAction(action_type="open_app", app_name="Markor"))
    env.execute_action(
        JSONAction(action_type="click", index=_index(env, "Create a new file or folder"))
    )
    env.execute_action(JSONAction(action_type="input_text", index=_index(env, "Name"), text="n"))
    env.execute_action(JSONAction(action_type="click", index=_index(env, "OK")))
    for n in range(steps):
        text = f"Note {n}: buy {n % 7 + 1} apples and {n % 5 + 2} pears"
        timer.step(env, JSONAction(action_type="input_text", text=text, clear_text=True))


def _index(env: SimEnv, label: str) -> int:
    for i, e in enumerate(env.get_state().ui_elements):
        if label in (e.text, e.content_description, e.hint_text):
            return i
    raise LookupError(label)


def run(scenario, render: bool, seeds: int, steps: int) -> dict[str, float]:
    env = SimEnv(seed=0, render=render)
    timer = Timer()
    try:
        scenario(env, timer, seeds, steps)
        hits, misses = env.renderer.hits, env.renderer.misses
        windows = env.phone.frame().windows
        cold = []
        for _ in range(10):
            t0 = time.perf_counter()
            env.renderer.draw(windows)
            cold.append(time.perf_counter() - t0)
    finally:
        env.close()
    times = sorted(timer.times)
    return {
        "steps": len(times),
        "steps_per_s": len(times) / sum(times),
        "cpu_steps_per_s": len(times) / max(1e-9, sum(timer.cpu)),
        "p50_ms": statistics.median(times) * 1000,
        "p95_ms": times[int(0.95 * (len(times) - 1))] * 1000,
        "cache_hit": hits / max(1, hits + misses),
        "cold_render_ms": statistics.median(cold) * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="seeds per task for oracle_replay")
    parser.add_argument("--steps", type=int, default=300, help="steps of the typing scenario")
    args = parser.parse_args()
    if args.seeds < 1 or args.steps < 1:
        print("error: --seeds and --steps must be at least 1", file=sys.stderr)
        sys.exit(2)
    header = (
        f"{'scenario':<15}{'render':>7}{'steps':>7}{'steps/s':>9}{'cpu/s':>8}{'p50 ms':>8}{'p95 ms':>8}"
        f"{'cache hit':>11}{'cold render ms':>16}"
    )
    print(header)
    print("-" * len(header))
    headline = 0.0
    for name, scenario, render in (
        ("oracle_replay", oracle_replay, True),
        ("typing", typing, True),
        ("oracle_replay", oracle_replay, False),
        ("typing", typing, False),
    ):
        r = run(scenario, render, args.seeds, args.steps)
        if name == "oracle_replay" and render:
            headline = r["steps_per_s"]
        print(
            f"{name:<15}{'yes' if render else 'no':>7}{r['steps']:>7}"
            f"{r['steps_per_s']:>9.1f}{r['cpu_steps_per_s']:>8.1f}{r['p50_ms']:>8.2f}{r['p95_ms']:>8.2f}"
            f"{r['cache_hit']:>10.0%}{r['cold_render_ms']:>16.2f}"
        )
    verdict = "meets" if headline >= TARGET else "MISSES"
    print(
        f"oracle_replay with rendering: {headline:.0f} steps/s, {verdict} the {TARGET:.0f}/s target"
    )


if __name__ == "__main__":
    main()
