"""How long every parser of model answers takes on hostile answers of 1 MB (issue 27 item 3).

Run: `python benchmarks/hostile_answers.py [--chars 1000000] [--limit 10] [--parsers A ...]
[--verbose]`.

The parsers and inputs are tests/hostile_support.py's: every entry point that reads model text,
called as the agent calls it, on answers made of blank space, newlines, braces and quotes, alone
and mixed, and on the shapes issue 27 measured (blank space after `Action:`, unbalanced braces).
Each case runs in a forked child killed after `--limit` seconds of wall time (printed `>limit`).
Printed per parser: its slowest case (CPU seconds of the child, so other load does not count),
how many cases passed 1 s, and how many raised.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout, no install
sys.path.insert(0, str(ROOT / "tests"))

from hostile_support import PARSERS, hostile_inputs, time_in_child  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=1_000_000)
    parser.add_argument("--limit", type=float, default=10.0, help="wall seconds before a cut")
    parser.add_argument("--parsers", nargs="*", default=list(PARSERS))
    parser.add_argument("--cases", nargs="*", default=None)
    parser.add_argument("--verbose", action="store_true", help="print every case")
    args = parser.parse_args()
    inputs = hostile_inputs(args.chars)
    cases = args.cases or list(inputs)
    print(f"{len(cases)} hostile answers of about {args.chars:,} characters each")
    print(f"{'parser':30} {'slowest (CPU)':>14}  {'slowest case':22} {'>1 s':>5} {'raised':>6}")
    for name in args.parsers:
        worst, worst_case, over, errors = 0.0, "", 0, []
        for case in cases:
            cpu, _, error = time_in_child(name, inputs[case], args.limit)
            if error:
                errors.append(f"{case}: {error}")
            value = float("inf") if cpu is None else cpu
            over += value > 1.0
            if args.verbose:
                shown = f">{args.limit:g} wall" if cpu is None else f"{cpu:.3f}"
                print(f"  {name:28} {case:22} {shown:>12}", flush=True)
            if value >= worst:
                worst, worst_case = value, case
        shown = f">{args.limit:g} s" if worst == float("inf") else f"{worst:.3f} s"
        print(f"{name:30} {shown:>14}  {worst_case:22} {over:>5} {len(errors):>6}", flush=True)
        for error in errors[:3]:
            print(f"    raised: {error}")


if __name__ == "__main__":
    main()
