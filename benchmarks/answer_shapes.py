"""How many real answer shapes the plan and vote parsers read right (issue 26 item 4).

Run: `python benchmarks/answer_shapes.py [--show tuned|heldout|all]`.

The shapes live in tests/fixtures/answer_shapes/ in two parts, split before the parsers were
tuned on them: `*_tuned.json` (the parsers were developed against these) and `*_heldout.json`
(never looked at case by case while tuning; only their hit rate is printed unless `--show`
asks). A plan is a hit when the parsed sub-goals equal the expected ones (or an accepted
alternative), or when an answer expected unusable is refused; a vote is a hit when its 0-10
score matches (to 0.01), or when an answer expected unreadable is unreadable.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout, no install

from android_world.agents.custom.roles import celil_maestro, celil_quality_control  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "answer_shapes"


def load(kind: str, part: str) -> list[dict[str, Any]]:
    return json.loads((FIXTURES / f"{kind}_{part}.json").read_text(encoding="utf-8"))


def plan_hit(record: dict[str, Any]) -> tuple[bool, Any]:
    answer, reason = celil_maestro.parse_plan_text(record["text"], celil_maestro.PLAN_EXAMPLES)
    got = answer.sub_goals if answer is not None else None
    wanted = [record["expected"], *record.get("also_accepted", [])]
    return got in wanted, got if got is not None else f"unusable: {reason}"


def vote_hit(record: dict[str, Any]) -> tuple[bool, Any]:
    vote = celil_quality_control.parse_vote("Skeptic", record["text"], 0.0)
    expected = record["expected"]
    if expected is None:
        return not vote.parseable, vote.score if vote.parseable else f"unreadable: {vote.error}"
    hit = vote.parseable and math.isclose(vote.score, expected, abs_tol=0.01)
    return hit, vote.score if vote.parseable else f"unreadable: {vote.error}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", choices=("none", "tuned", "heldout", "all"), default="none")
    args = parser.parse_args()
    print(f"{'fixtures':16} {'part':8} {'hits':>7}")
    for kind, judge in (("plans", plan_hit), ("votes", vote_hit)):
        for part in ("tuned", "heldout"):
            records = load(kind, part)
            results = [(record, *judge(record)) for record in records]
            hits = sum(1 for _, hit, _ in results if hit)
            print(f"{kind:16} {part:8} {hits:>3}/{len(records):<3}")
            if args.show in (part, "all"):
                for record, hit, got in results:
                    if not hit:
                        print(f"    miss {record['name']!r}: got {got!r}")


if __name__ == "__main__":
    main()
