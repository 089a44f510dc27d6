"""CPU of one offline suite run, whole and by thread, with the goal check's share.

Run: `python benchmarks/offline_cpu.py [--seed 0] [--tasks A,B] [--output_path DIR]`.

Runs `python -m android_world.harness.run --config config/default.yaml --nolive` in this
process, times `offline_goal.check_goal` (main thread) and `png_writer.encode_png` (the
background writer thread) with the calling thread's CPU clock, and prints wall time, process
CPU, the main thread's CPU, the goal check's and the PNG encoding's, and the wall time the main
thread spent waiting for the writer to land frames (`PngWriter.flush`, and since stop 41
`episode_landing.frame_failures`; the script runs on older trees too). On a shared machine the
CPU figures are steadier than wall time; the rest of the process CPU is mostly the writer's
frame hashing and file writes.
Sampling profiles (`py-spy record`) agree with these figures where cProfile inflates the
goal check's many small calls several times over.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install

from android_world.agents.custom.offline_roles import offline_goal
from android_world.harness import png_writer, run

try:  # since stop 41
    from android_world.harness import episode_landing
except ImportError:
    episode_landing = None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tasks", default=None, help="comma-separated task names (default all)")
    parser.add_argument("--output_path", default=None, help="run directory (default a temp dir)")
    args = parser.parse_args(argv)
    spent = {"seconds": 0.0, "calls": 0}
    check_goal = offline_goal.check_goal

    def timed(*a, **kw):
        began = time.thread_time()
        try:
            return check_goal(*a, **kw)
        finally:
            spent["seconds"] += time.thread_time() - began
            spent["calls"] += 1

    encoding = {"seconds": 0.0, "calls": 0}
    encode_png = png_writer.encode_png

    def timed_encode(*a, **kw):
        began = time.thread_time()
        try:
            return encode_png(*a, **kw)
        finally:
            encoding["seconds"] += time.thread_time() - began  # += on one thread: the writer's
            encoding["calls"] += 1

    waiting = {"seconds": 0.0}

    def waited(wait):
        def timed_wait(*a, **kw):
            began = time.perf_counter()
            try:
                return wait(*a, **kw)
            finally:  # flush calls its own module's frame_failures: not counted twice
                waiting["seconds"] += time.perf_counter() - began

        return timed_wait

    flush = png_writer.PngWriter.flush
    png_writer.PngWriter.flush = waited(flush)
    if episode_landing is not None:
        frame_failures = episode_landing.frame_failures
        episode_landing.frame_failures = waited(frame_failures)
    offline_goal.check_goal = timed  # the offline planner calls it through the module
    png_writer.encode_png = timed_encode  # the writer's cache calls it through the module
    with tempfile.TemporaryDirectory() as scratch:
        flags = ["run", "--config", "config/default.yaml", "--nolive"]
        flags += [
            "--task_random_seed",
            str(args.seed),
            "--output_path",
            args.output_path or scratch,
        ]
        if args.tasks:
            flags += ["--tasks", args.tasks]
        wall = time.perf_counter()
        try:
            run.run_cli(flags)
        except SystemExit as done:  # absl's app.run ends with sys.exit
            if done.code not in (0, None):
                raise
        finally:
            offline_goal.check_goal = check_goal
            png_writer.encode_png = encode_png
            png_writer.PngWriter.flush = flush
            if episode_landing is not None:
                episode_landing.frame_failures = frame_failures
        wall = time.perf_counter() - wall
        # Read before the temp directory is deleted: the run's CPU, not the clean-up's (rows
        # before stop 40 included ~0.8 s of deleting the run's files in the main thread).
        process_cpu, main_cpu = time.process_time(), time.thread_time()
    print(
        "| wall s | process CPU s | main thread CPU s | goal check CPU s (calls) "
        "| PNG encoding CPU s (frames) | main thread waiting for frames s |"
    )
    print("|---|---|---|---|---|---|")
    print(
        f"| {wall:.1f} | {process_cpu:.2f} | {main_cpu:.2f} "
        f"| {spent['seconds']:.2f} ({spent['calls']}) "
        f"| {encoding['seconds']:.2f} ({encoding['calls']}) | {waiting['seconds']:.2f} |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
