"""Scale-out: wall time and speed-up of one suite with 1, 2, 4, 8, 16 workers, locally and on Ray.

Run: `python benchmarks/scale_out.py [--workers 1 2 4 8 16] [--model_delay 2.0]
[--device_delay 0.5] [--tasks A B] [--instances 2] [--backends local ray] [--order suite]`.

What is measured: the real CelilAgent (OpenAI backend, JSON executor, gate, evidence checks) on the
simulated phone, driven by android_world.harness.parallel's scheduler and worker pools exactly as
`--workers N` / `--ray_address local` run them. The model is scripted (benchmarks/scripted_model.py,
always right) but slow like a real one: every call waits `model_delay` seconds in a front server
on 127.0.0.1 (threaded, so calls from different workers wait at the same time, as on a model
server with spare capacity); every device action waits `device_delay` seconds. Each row's workers
are started before its clock (start-up printed apart; `--cold` times it in). Episodes are handed
out longest expected first, as a harness run does (`--order suite` for suite order): the
expected time of a template is its mean in the rows before (the first row's order comes from
upstream's complexity alone). Each row also checks that every episode's score and step count
equal the 1-worker row's, and prints beside its speed-up what the first row's episode times
allow: a bound, the ideal schedule (best order and assignment) and the row's own order.
"""

from __future__ import annotations

import argparse
import heapq
import http.server
import logging
import os
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import scale_worker
import scripted_model as sm

from android_world.harness import config, parallel, scheduler, suite_utils
from android_world.harness.ray_pool import RAY_NICENESS_ENV
from android_world.harness.warm_pool import WarmPool
from android_world.task_evals.registry import TaskRegistry

# Short tasks of several apps: enough episodes to keep 16 workers busy in minutes, not hours.
DEFAULT_TASKS = (
    "SystemWifiTurnOn",
    "SystemBluetoothTurnOff",
    "SystemBrightnessMax",
    "OpenAppTaskEval",
    "ClockStopWatchRunning",
    "CameraTakePhoto",
    "SystemWifiTurnOffVerify",
    "SystemBluetoothTurnOnVerify",
)


class SlowModelFront:
    """Waits `delay` seconds per chat call, then forwards it to the calling worker's scripted
    model (named by the request's bearer key)."""

    def __init__(self, delay: float) -> None:
        self.calls = 0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _forward(self, method: str) -> None:
                target = self.headers.get("authorization", "").removeprefix("Bearer ").strip()
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else None
                if method == "POST":
                    threading.Event().wait(delay)
                    outer.calls += 1
                url = target.rstrip("/") + self.path.removeprefix("/v1")
                request = urllib.request.Request(url, data=body, method=method)
                request.add_header("content-type", "application/json")
                with urllib.request.urlopen(request, timeout=120) as reply:
                    data = reply.read()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                self._forward("POST")

            def do_GET(self) -> None:
                self._forward("GET")

            def log_message(self, *args: Any) -> None:
                return None

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def run_config(url: str, workers: int, ray: bool) -> config.CelilConfig:
    sets = ["env.render=false", f"benchmark.workers={workers}"]
    if ray:
        sets.append("benchmark.ray_address=local")
    for role, model in (
        ("maestro", sm.PLANNER_MODEL),
        ("section_leader", sm.EXECUTOR_MODEL),
        ("verifiers", sm.VERIFIER_MODEL),
    ):
        sets += [
            f"models.{role}.backend=openai",
            f"models.{role}.model={model}",
            f"models.{role}.base_url={url}",
            f"models.{role}.api_key_env={scale_worker.BACKEND_ENV}",
            f"models.{role}.max_retries=0",
            f"models.{role}.structured_output=none",
            f"models.{role}.timeout_s=120",
        ]
    cfg, _ = config.load_config(config.DEFAULT_CONFIG_PATH, sets)
    return cfg


def worker_spec(cfg: config.CelilConfig, run_dir: Path, label: str) -> parallel.WorkerSpec:
    return parallel.WorkerSpec(
        cfg=cfg,
        agent_registry_name=scale_worker.AGENT,
        agent_kwargs={"executor_format": "json", "memory": "off"},
        run_dir=str(run_dir),
        env_factory=scale_worker.make_env,
        save_screenshots=False,
        name_prefix=f"scale-{label}-{int(time.time() * 1000) % 10**6}",
    )


def run_once(
    pool: Any,
    suite: suite_utils.Suite,
    workers: int,
    durations: dict[str, float] | None = None,
    expected: scheduler.Estimate | None = None,
) -> tuple[float, dict[str, tuple[Any, Any]], parallel.Stats]:
    """The suite's episodes on `workers` workers of `pool` (longest `expected` first when
    given, else in suite order); the wall time of the episodes. `durations` receives each
    episode's own run time."""
    results: dict[str, tuple[Any, Any]] = {}

    def keep(outcome: parallel.Outcome) -> None:
        ep = outcome.episode
        results[ep["name"]] = (ep.get("is_successful"), ep.get("episode_length"), ep.get("error"))
        if durations is not None:
            durations[ep["name"]] = float(ep.get("run_time") or 0.0)

    started = time.perf_counter()
    driver = parallel.Scheduler(
        pool, workers, keep, log=lambda line: print(line, file=sys.stderr), expected=expected
    )
    stats = driver.run(parallel.jobs_for(suite, set()))
    return time.perf_counter() - started, results, stats


def list_makespan(durations: list[float], workers: int) -> float:
    """How long `durations`, handed out in this order to whichever worker is free first (what
    the scheduler does), take on `workers` workers."""
    free = [0.0] * max(workers, 1)
    for seconds in durations:
        heapq.heapreplace(free, free[0] + seconds)
    return max(free)


def best_makespan(durations: list[float], workers: int, budget: int = 200_000) -> float:
    """The shortest any order and assignment of these indivisible episodes can take on
    `workers` workers (branch and bound from the LPT schedule; after `budget` nodes the best
    found so far, which is then an upper bound)."""
    jobs = sorted(durations, reverse=True)
    if not jobs:
        return 0.0
    workers = max(workers, 1)
    best = list_makespan(jobs, workers)
    lower = max(jobs[0], sum(jobs) / workers)
    if len(jobs) > workers:
        lower = max(lower, jobs[workers - 1] + jobs[workers])  # two of the w+1 longest share one
    loads = [0.0] * workers
    remaining = [sum(jobs[i:]) for i in range(len(jobs) + 1)]
    nodes = 0

    def place(i: int) -> None:
        nonlocal best, nodes
        if best <= lower + 1e-9 or nodes > budget:
            return
        if i == len(jobs):
            best = max(loads)
            return
        if (sum(loads) + remaining[i]) / workers >= best:
            return
        nodes += 1
        tried: set[float] = set()
        for w in range(workers):
            if loads[w] in tried or loads[w] + jobs[i] >= best:
                continue
            tried.add(loads[w])
            loads[w] += jobs[i]
            place(i + 1)
            loads[w] -= jobs[i]

    place(0)
    return best


Row = tuple[str, int, int, float, float, float, str, int, float, float, float]


def best_speedup(durations: list[float], workers: int) -> float:
    """The most `workers` workers can gain on these episodes, whatever the order: the serial
    time over the longer of the longest episode and an even share (16 episodes on 8 workers
    are two rounds, and a round lasts as long as its longest episode)."""
    total = sum(durations)
    bound = max(max(durations, default=0.0), total / workers)
    return total / bound if bound else 1.0


def row_order(
    order: str, suite: suite_utils.Suite, serial: dict[str, float]
) -> scheduler.Estimate | None:
    """What the row's scheduler orders by: nothing (suite order), or each template's run time
    in the rows before it (the first row: upstream's complexity alone)."""
    if order == "suite":
        return None
    recorded = scheduler.recorded_seconds({"name": n, "run_time": t} for n, t in serial.items())
    return scheduler.expected_seconds(recorded, parallel.jobs_for(suite, set()))


def run_backend(
    backend: str,
    front: SlowModelFront,
    suite: suite_utils.Suite,
    worker_counts: list[int],
    cold: bool,
    order: str = "longest",
) -> list[Row]:
    """One fresh pool per row (each row's phones start as new, so its scores and steps can be
    compared with the 1-worker row's). Warm (default): the row's workers are started and ready
    before its clock starts, then reused for all its episodes; start-up is timed apart. Cold
    (the method before issue 30): the scheduler starts them, start-up inside the wall time."""
    rows: list[Row] = []
    base_time: float | None = None
    base: dict[str, tuple[Any, Any]] | None = None
    serial: dict[str, float] = {}  # each episode's run time in the first row
    with tempfile.TemporaryDirectory() as run_dir:
        for workers in worker_counts:
            cfg = run_config(front.url, workers, backend == "ray")
            spec = worker_spec(cfg, Path(run_dir), f"{backend}{workers}")
            calls_before = front.calls
            expected = row_order(order, suite, serial)
            with parallel.open_pool(spec, cfg) as inner:
                pool = inner if cold else WarmPool(inner)
                startup = 0.0 if cold else pool.warm_up(workers)
                wall, results, stats = run_once(
                    pool, suite, workers, serial if not serial else None, expected
                )
            if base is None:
                base, base_time = results, wall
            same = "yes" if results == base else "NO"
            if results != base:
                changed = sorted(k for k in base if base[k] != results.get(k))
                print(f"  differs from 1 worker: {changed}", file=sys.stderr)
                for name in changed:  # (score, steps, error): 1 worker -> this row
                    print(f"    {name}: {base[name]} -> {results.get(name)}", file=sys.stderr)
            speedup = base_time / wall if base_time else 1.0
            calls = front.calls - calls_before
            times = list(serial.values())
            best = best_speedup(times, workers)
            total = sum(times)
            ideal = total / (best_makespan(times, workers) or 1.0) if total else 1.0
            jobs = parallel.jobs_for(suite, set())
            ordered = scheduler.longest_first(jobs, expected) if expected else jobs
            planned = total / (list_makespan([serial[j.name] for j in ordered], workers) or 1.0)
            rows.append(
                (
                    backend,
                    workers,
                    workers,
                    startup,
                    wall,
                    speedup,
                    same,
                    calls,
                    best,
                    ideal,
                    planned,
                )
            )
            print(
                f"  {backend:5s} {workers:3d} workers (started in {startup:.1f}s) "
                f"{wall:7.1f}s  x{speedup:4.2f} (bound x{best:4.2f}, ideal schedule x{ideal:4.2f}, "
                f"this order x{planned:4.2f})  same={same} calls={calls} restarts={stats.restarts}",
                file=sys.stderr,
            )
            if len(serial) and workers == worker_counts[0]:
                longest = sorted(serial.items(), key=lambda kv: -kv[1])
                print(f"  episodes, longest first: {longest}", file=sys.stderr)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    parser.add_argument("--model_delay", type=float, default=2.0, help="seconds per model call")
    parser.add_argument("--device_delay", type=float, default=0.5, help="seconds per action")
    parser.add_argument("--tasks", nargs="+", default=list(DEFAULT_TASKS))
    parser.add_argument("--instances", type=int, default=2, help="parameter draws per task")
    parser.add_argument("--backends", nargs="+", default=["local", "ray"], choices=["local", "ray"])
    parser.add_argument(
        "--order",
        choices=["longest", "suite"],
        default="longest",
        help="longest: each row hands out the episodes longest expected first (their template's "
        "run time in the rows before; upstream's complexity in the first); suite: suite order "
        "(the method before stop 39)",
    )
    parser.add_argument(
        "--cold", action="store_true", help="a fresh pool per row, start-up timed in (old method)"
    )
    parser.add_argument(
        "--ray_low_priority",
        action="store_true",
        help="leave Ray's default worker niceness (+15): the method before the fix, to compare",
    )
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)
    os.environ[scale_worker.DEVICE_DELAY_ENV] = str(args.device_delay)
    suite = suite_utils.create_suite(
        TaskRegistry().get_registry("sim"), args.instances, seed=30, tasks=args.tasks
    )
    episodes = sum(len(v) for v in suite.values())
    front = SlowModelFront(args.model_delay)
    rows: list[Row] = []
    try:
        for backend in args.backends:
            if backend == "ray":
                try:
                    ray = parallel.import_ray()
                except parallel.ParallelError as exc:
                    print(f"skipping Ray: {exc}", file=sys.stderr)
                    continue
                started = time.perf_counter()
                if not args.ray_low_priority:
                    parallel.keep_worker_priority()
                ray.init(  # once, outside the timed rows (what `ray start --head` does)
                    num_cpus=max(os.cpu_count() or 1, *args.workers),
                    include_dashboard=False,
                    log_to_driver=False,
                    runtime_env={"env_vars": parallel.actor_env(dict(os.environ))},
                )
                print(
                    f"  Ray cluster started in {time.perf_counter() - started:.1f}s",
                    file=sys.stderr,
                )
            rows += run_backend(backend, front, suite, args.workers, args.cold, args.order)
            if backend == "ray":
                ray.shutdown()
    finally:
        front.close()
    print(
        f"{episodes} episodes ({len(suite)} tasks x {args.instances}), model {args.model_delay:g} s "
        f"per call, device {args.device_delay:g} s per action, cores {os.cpu_count()}"
    )
    mode = (
        "cold: a fresh pool per row, start-up inside wall"
        if args.cold
        else ("warm: each row's workers started before its clock, then reused for all its episodes")
    )
    print(f"Mode {mode}. Speed-up = the 1-worker row's wall / this row's wall.")
    if "ray" in args.backends:
        niceness = os.environ.get(RAY_NICENESS_ENV, "15 (Ray's default)")
        print(f"Ray workers' niceness over the driver's: {niceness}; driver's: {os.nice(0)}")
    order = (
        "longest expected first (each template's time in the rows before)"
        if args.order == "longest"
        else "suite order"
    )
    print(f"Episodes handed out in {order}.")
    print(
        "| backend | workers | cores | workers started (start-up s) | wall s | speed-up "
        "| best possible | ideal schedule | this order | same scores+steps | model calls |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for backend, workers, new, startup, wall, speedup, same, calls, best, ideal, planned in rows:
        started = f"{new} (in wall)" if args.cold else f"{new} ({startup:.1f})"
        print(
            f"| {backend} | {workers} | {os.cpu_count()} | {started} | {wall:.1f} "
            f"| {speedup:.2f}x | {best:.2f}x | {ideal:.2f}x | {planned:.2f}x | {same} | {calls} |"
        )
    print(
        "From the first row's episode times: best possible = their sum over the longer of the "
        "longest episode and an even share per worker (a bound); ideal schedule = their sum over "
        "the shortest any order and assignment of the indivisible episodes takes; this order = "
        "their sum over the time the row's order takes, each episode to the first free worker."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
