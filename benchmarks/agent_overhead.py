"""What Celil itself costs per step, apart from model and device time.

Run: `python benchmarks/agent_overhead.py [--steps N] [--frames N]`. Three measurements:

1. Agent overhead per step: CelilAgent on the simulated phone (real 1080x2400 frames) with
   instant scripted roles; the time spent inside env calls is subtracted, so what remains is
   perception (hashing, summaries, OCR cache lookups), bookkeeping, events and step data.
   Targets: median <= 20 ms/step.
2. OCR: tesseract on new 1080x2400 sim frames (cache empty) and the same frames again (cache hit).
   Targets: <= 1.2 s per new frame, < 5 ms per cache hit.
3. Verification wall time with a fake model that sleeps 200 ms per call, per verifier mode.
   Target: parallel <= 1.3x one model call.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install

from android_world.agents.custom.celil_protocols import (
    ActionGenerator,
    Observation,
    Plan,
    Planner,
    ProposedAction,
    Verifier,
    Vote,
)
from android_world.agents.custom.loop import celil_agent
from android_world.agents.custom.model_clients.call_types import CallResult, ModelRequest
from android_world.agents.custom.offline_roles.offline import OfflinePlanner
from android_world.agents.custom.roles import celil_perception
from android_world.agents.custom.roles.celil_quality_control import VerifierEnsemble
from android_world.env import interface, json_action
from android_world.env.sim.sim_env import SimEnv

_CPU_FIELDS = ("user", "system", "children_user", "children_system")
APPS = ("Contacts", "Clock", "Settings", "Markor", "Files", "Pro Expense", "Simple Calendar Pro")


class TimedEnv:
    """Forwards to a real env and adds up the seconds spent inside the calls an agent makes.

    A plain proxy rather than an AsyncEnv subclass: everything not timed is looked up on the
    wrapped env, so no interface boilerplate is repeated here.
    """

    def __init__(self, env: SimEnv) -> None:
        self._env = env
        self.seconds = 0.0

    def _timed(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start

    def reset(self, go_home: bool = False) -> interface.State:
        return self._timed(self._env.reset, go_home)

    def get_state(self, wait_to_stabilize: bool = False) -> interface.State:
        return self._timed(self._env.get_state, wait_to_stabilize)

    def execute_action(self, action: json_action.JSONAction) -> None:
        self._timed(self._env.execute_action, action)

    @property
    def foreground_activity_name(self) -> str:
        return self._timed(lambda: self._env.foreground_activity_name)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)


class InstantPlanner(Planner):
    def generate_initial_plan(self, goal: str, observation: Observation, retrieved_plan: Any):
        return Plan(["Tour the apps"])

    def generate_corrective_plan(self, failure_context: Any) -> Plan:
        return Plan(["Tour the apps"])

    def is_sub_goal_done(self, *args: Any) -> bool:
        return False

    def answer_question(self, *args: Any) -> str | None:
        return None


class CyclingExecutor(ActionGenerator):
    """Opens apps in turn (no two-action oscillation), going home in between."""

    def __init__(self) -> None:
        self.n = 0

    def generate_action(self, sub_goal: str, observation: Observation, context: str):
        self.n += 1
        if self.n % 2:
            app = APPS[(self.n // 2) % len(APPS)]
            return ProposedAction(json_action.JSONAction(action_type="open_app", app_name=app))
        return ProposedAction(json_action.JSONAction(action_type="navigate_home"))


class InstantVerifier(Verifier):
    def verify_action(self, *args: Any) -> tuple[float, list[Vote]]:
        votes = [Vote(p, 9.0, "ok") for p in ("Pragmatist", "Skeptic", "Efficiency Expert")]
        return 9.0, votes


def agent_overhead(steps: int, ocr: str) -> dict[str, float]:
    env = TimedEnv(SimEnv(seed=0, render=True))
    perception = celil_perception.PerceptionModule(ocr=ocr)
    agent = celil_agent.CelilAgent(
        env,
        perception,
        InstantPlanner(),
        CyclingExecutor(),
        InstantVerifier(),
        screen_checker=OfflinePlanner(),
        transition_pause=0.0,
        progress_check="off",
        max_rehearsals=10**6,
    )
    events: list[dict] = []
    agent.set_event_sink(events.append)
    agent.reset(go_home=True)
    warmup = 2 * len(APPS) + 2  # every screen seen once, so OCR (if on) is cached
    for _ in range(warmup):
        agent.step("benchmark")
    overheads, totals = [], []
    for _ in range(steps):
        env.seconds = 0.0
        start = time.perf_counter()
        agent.step("benchmark")
        total = time.perf_counter() - start
        totals.append(total)
        overheads.append(total - env.seconds)
    return {
        "overhead_ms": statistics.median(overheads) * 1000,
        "step_ms": statistics.median(totals) * 1000,
        "ocr_calls": perception.ocr_calls,
    }


def ocr_timings(frames: int) -> dict[str, float]:
    env = SimEnv(seed=0, render=True)
    states = []
    for app in APPS[:frames]:
        env.execute_action(json_action.JSONAction(action_type="open_app", app_name=app))
        states.append(env.get_state())
    module = celil_perception.PerceptionModule(ocr="always")
    new, cpu, hit, lines = [], [], [], []
    for state in states:
        start, before = time.perf_counter(), os.times()
        result = module.ocr_lines(state.pixels)
        new.append(time.perf_counter() - start)
        after = os.times()
        # CPU seconds (ours + tesseract's): what a frame costs regardless of other load.
        cpu.append(sum(getattr(after, f) - getattr(before, f) for f in _CPU_FIELDS))
        lines.append(len(result))
    for state in states:
        start = time.perf_counter()
        module.ocr_lines(state.pixels)
        hit.append(time.perf_counter() - start)
    return {
        "new_frame_s": statistics.median(new),
        "new_frame_cpu_s": statistics.median(cpu),
        "cache_hit_ms": statistics.median(hit) * 1000,
        "lines": statistics.median(lines),
    }


class SleepyWrapper:
    def __init__(self, sleep_s: float, score: float) -> None:
        self.sleep_s = sleep_s
        self.score = score

    def call(self, request: ModelRequest) -> CallResult:
        del request
        time.sleep(self.sleep_s)
        return CallResult.answered(f'{{"score": {self.score}, "reasoning": "fine"}}', True)


def verification_timings(sleep_s: float, repeats: int) -> dict[str, float]:
    env = SimEnv(seed=0, render=True)
    observation = celil_perception.PerceptionModule(ocr="off").process_observation(env.get_state())
    proposal = ProposedAction(json_action.JSONAction(action_type="click", index=5))
    out: dict[str, float] = {}
    cases = [
        ("parallel", 9.0),
        ("lazy (decided)", 9.0),
        ("lazy (undecided)", 7.0),
        ("sequential", 9.0),
    ]
    for label, score in cases:
        mode = label.split(" ")[0]
        ensemble = VerifierEnsemble(SleepyWrapper(sleep_s, score), mode=mode)  # type: ignore[arg-type]
        times = []
        for _ in range(repeats):
            # A new frame object each time, so the screenshot downscale is paid as in a real step.
            fresh = dataclasses.replace(observation, screenshot=observation.screenshot.copy())
            start = time.perf_counter()
            ensemble.verify_action("Open Contacts", proposal, fresh, "ctx")
            times.append(time.perf_counter() - start)
        ensemble.close()
        out[label] = statistics.median(times)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--frames", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    # Every measurement is a median, which needs at least one sample.
    if min(args.steps, args.frames, args.repeats) < 1:
        print("error: --steps, --frames and --repeats must be at least 1", file=sys.stderr)
        return 2
    try:
        celil_perception.TesseractOcr()
    except (celil_perception.PerceptionError, ImportError) as error:
        print(f"error: the OCR measurement needs tesseract: {error}", file=sys.stderr)
        return 2

    rows: list[tuple[str, str, str]] = []
    auto = agent_overhead(args.steps, "auto")
    rows.append(
        (
            "agent overhead/step, ocr=auto (median)",
            f"{auto['overhead_ms']:.1f} ms (step incl. sim {auto['step_ms']:.1f} ms)",
            "<= 20 ms",
        )
    )
    cached = agent_overhead(args.steps, "always")
    rows.append(
        (
            "agent overhead/step, ocr=always, cached (median)",
            f"{cached['overhead_ms']:.1f} ms (step incl. sim {cached['step_ms']:.1f} ms)",
            "<= 20 ms",
        )
    )
    ocr = ocr_timings(args.frames)
    rows.append(
        (
            "OCR per new 1080x2400 frame (median)",
            f"{ocr['new_frame_s']:.2f} s, cpu {ocr['new_frame_cpu_s']:.2f} s ({ocr['lines']:.0f} lines)",
            "<= 1.2 s",
        )
    )
    rows.append(("OCR cache hit (median)", f"{ocr['cache_hit_ms']:.2f} ms", "< 5 ms"))
    sleep_s = 0.2
    verification = verification_timings(sleep_s, args.repeats)
    for label, seconds in verification.items():
        target = "<= 1.3x" if label == "parallel" else ""
        rows.append(
            (
                f"3-persona verification, {label}",
                f"{seconds * 1000:.0f} ms ({seconds / sleep_s:.2f}x one call)",
                target,
            )
        )
    width = max(len(r[0]) for r in rows)
    value_width = max(len(r[1]) for r in rows)
    print(f"{'measurement':<{width}}  {'result':<{value_width}}  target")
    print("-" * (width + value_width + 10))
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:<{value_width}}  {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
