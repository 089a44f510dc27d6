"""How long report.html takes for a run of many episodes (cold, warm and after one change).

Run: `python benchmarks/report_speed.py [--episodes 100 300]`. Uses the synthetic runs of the
report tests (tests/report_synth.py): Celil-style episodes with steps, votes and
screenshots. "warm" rewrites an unchanged run (pages are skipped when their inputs did not
change); "one new" adds nothing but touches one episode's results, as a running benchmark does
after every episode.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout, no install
sys.path.insert(0, str(ROOT / "tests"))

import report_synth as synth  # noqa: E402

from android_world.reporting import report  # noqa: E402


def _timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def measure(n_episodes: int) -> tuple[float, float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        run = synth.make_run(Path(tmp), n_episodes=n_episodes)
        cold = _timed(lambda: report.write_report(run))
        warm = _timed(lambda: report.write_report(run))
        results = run / "results.jsonl"
        os.utime(results)
        one = _timed(lambda: report.write_report(run))
    return cold, warm, one


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, nargs="+", default=[100, 300])
    args = parser.parse_args()
    print(
        f"{'episodes':>8}  {'cold s':>7}  {'warm s':>7}  {'one new s':>9}  {'ms/episode (cold)':>17}"
    )
    for n in args.episodes:
        cold, warm, one = measure(n)
        print(f"{n:>8}  {cold:>7.2f}  {warm:>7.2f}  {one:>9.2f}  {1000 * cold / n:>17.1f}")


if __name__ == "__main__":
    main()
