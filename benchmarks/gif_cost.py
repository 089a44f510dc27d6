"""What an episode's GIF costs beside the episode itself (issue 31: make it by default if cheap).

Run: `python benchmarks/gif_cost.py RUN_DIR [--limit N]` on a finished run with screenshots
(e.g. `./run_benchmark.sh --task_random_seed 0` for the offline suite). For each episode it times
`report.write_gif` (into a scratch folder, the run is not changed) and sets it beside the
episode's own runtime from results.jsonl; prints mean and standard error per episode and per
step, and the GIF's share of the episode's time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout, no install

from android_world.reporting import report  # noqa: E402


def mean_se(values: Sequence[float]) -> str:
    if not values:
        return "-"
    se = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
    return f"{statistics.mean(values):.3f} ± {se:.3f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir")
    parser.add_argument("--limit", type=int, default=0, help="first N episodes only")
    args = parser.parse_args(argv)
    run = report.check_run_dir(Path(args.run_dir))
    rows = report.result_rows(run)[: args.limit or None]
    gif_s, run_s, gif_step, run_step, sizes = [], [], [], [], []
    with tempfile.TemporaryDirectory(prefix="gif_cost_") as tmp:
        for row in rows:
            steps = int(row.get("steps") or 0)
            start = time.perf_counter()
            gif = report.write_gif(run, str(row["name"]), Path(tmp) / f"{row['name']}.gif")
            seconds = time.perf_counter() - start
            if gif is None or not steps:
                continue
            sizes.append(gif.stat().st_size / 1024)
            gif_s.append(seconds)
            run_s.append(float(row.get("runtime") or 0.0))
            gif_step.append(seconds / steps)
            run_step.append(float(row.get("runtime") or 0.0) / steps)
    print(f"{len(gif_s)} episodes with screenshots in {run}")
    print(f"{'':24}{'GIF':>18}{'episode':>18}")
    print(f"{'seconds per episode':24}{mean_se(gif_s):>18}{mean_se(run_s):>18}")
    print(f"{'seconds per step':24}{mean_se(gif_step):>18}{mean_se(run_step):>18}")
    if gif_s and sum(run_s):
        print(f"GIF time / episode time: {sum(gif_s) / sum(run_s):.2f} (whole run)")
        print(f"GIF size: {mean_se(sizes)} KiB per episode")
    return 0


if __name__ == "__main__":
    sys.exit(main())
