"""Writes docs/TASK_FIDELITY.md from a differential with upstream AndroidWorld's task suite.

    python -m android_world.task_evals.fidelity                       # (re)write the table
    python -m android_world.task_evals.fidelity --check               # exit 1 if it is stale
    python -m android_world.task_evals.fidelity --upstream CHECKOUT   # record upstream's facts
                                                                      # again, then write

Upstream's side is recorded facts (tests/fixtures/upstream_facts.json and upstream_draws.json,
written by tests/upstream/record_upstream.py in a checkout with upstream's own Python; see
`--upstream`), so the table is rebuilt and checked without a checkout. Our side is whatever task
classes the registry finds. Per template the table compares: the goals our classes produce for
upstream's recorded seeds (identical text), the parameter draws (`upstream_draws`), complexity,
apps, the params' schema, task_metadata.json's difficulty, tags and optimal steps, and a
question's parameter pools; the module-level pools are matched with upstream's by content.
Success rules cannot be compared by a script: "ours" is what the class declares (`success_rule`,
or upstream's when it declares none), and "upstream" is our summary in `upstream_tasks.py`.
Every difference found must be recorded by the class (`fidelity_notes`, naming the aspect);
`problems()` lists those that are not, and the tests fail on any.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from android_world.task_evals import fidelity_diff, registry, task_eval, upstream_draws
from android_world.task_evals.upstream_tasks import (
    UPSTREAM_BY_NAME,
    UPSTREAM_REPO,
    UPSTREAM_TASKS,
    UpstreamTask,
)

ROOT = Path(__file__).resolve().parents[2]
DOC_PATH = ROOT / "docs" / "TASK_FIDELITY.md"
RECORDER = ROOT / "tests" / "upstream" / "record_upstream.py"
OWN_PREFIX = "Sim"

# What a note must name to record each kind of difference the differential finds.
ASPECTS = {
    "template": "template",
    "goals": "template",
    "complexity": "complexity",
    "apps": "app",
    "schema": "schema",
    "metadata": "metadata",
    "pools": "pool",
    "params": "param",
    "draws": "draw",
    "noise rows": "noise",
}


@dataclasses.dataclass(frozen=True)
class Row:
    """One task's line in the table."""

    name: str
    upstream: UpstreamTask | None
    template: str  # "same", "different", "own", "no draws"
    complexity: float
    found: tuple[str, ...]  # differences the differential found
    declared: tuple[str, ...]  # the class's fidelity_notes
    rule: str
    draws: str = "-"  # "9/9", "9/9; initialised 9/9"

    @property
    def is_own(self) -> bool:
        return self.upstream is None

    @property
    def notes(self) -> tuple[str, ...]:
        return self.found + self.declared


def _noise_note(cls: type[task_eval.TaskEval], upstream: UpstreamTask) -> list[str]:
    ours = getattr(cls, "n_rows_noise", None)
    theirs = upstream.n_rows_noise
    if isinstance(ours, int) and theirs is not None and ours != theirs:
        return [f"noise rows: ours {ours}, upstream {theirs}"]
    return []


def _draw_notes(summary: upstream_draws.TaskSummary | None) -> tuple[str, str, list[str]]:
    """(template verdict, draws cell, notes) from the task's draw comparison."""
    if summary is None or summary.missing or not summary.compared:
        return "no draws", "-", []
    notes = []
    cell = f"{summary.matched}/{summary.compared}"
    if summary.matched < summary.compared:
        notes.append(f"draws: {cell} are upstream's ({summary.first_difference})")
    if summary.init_compared:
        cell += f"; initialised {summary.init_matched}/{summary.init_compared}"
        if summary.init_matched < summary.init_compared:
            notes.append(f"draws at initialisation differ ({summary.init_difference})")
    extra = [k for k in summary.extra_keys if k != "seed"]
    if extra:
        notes.append(f"params: ours add {', '.join(extra)}")
    goals_same = summary.goals_matched == summary.compared
    template = "same" if goals_same else "different"
    if not goals_same and summary.matched == summary.compared:
        notes.append(f"goals: {summary.goals_matched}/{summary.compared} identical to upstream's")
    return template, cell, notes


def build_row(
    name: str,
    cls: type[task_eval.TaskEval],
    summary: upstream_draws.TaskSummary | None = None,
    facts: fidelity_diff.UpstreamFacts | None = None,
) -> Row:
    upstream = UPSTREAM_BY_NAME.get(name)
    declared = tuple(getattr(cls, "fidelity_notes", ()))
    rule = getattr(cls, "success_rule", "") or ""
    if upstream is None:
        return Row(name, None, "own", float(cls.complexity), (), declared, rule or "(not declared)")
    facts = facts or fidelity_diff.load()
    if summary is None:
        comparison = upstream_draws.compare({name: cls})
        summary = comparison.by_task().get(name)
    template, cell, draw_notes = _draw_notes(summary)
    found = fidelity_diff.notes_for(cls, facts.templates.get(name, {}))
    found += _noise_note(cls, upstream) + draw_notes
    if any(n.startswith("template:") for n in found):
        template = "different"
    return Row(
        name,
        upstream,
        template,
        float(cls.complexity),
        tuple(found),
        declared,
        rule or "upstream's",
        cell,
    )


def build_rows(
    tasks: Mapping[str, type[task_eval.TaskEval]] | None = None,
) -> list[Row]:
    tasks = tasks if tasks is not None else registry.TaskRegistry().get_registry()
    summaries = upstream_draws.compare(tasks).by_task()
    facts = fidelity_diff.load()
    return [build_row(name, cls, summaries.get(name), facts) for name, cls in sorted(tasks.items())]


def _aspect(note: str) -> str | None:
    for prefix, _ in sorted(ASPECTS.items(), key=lambda kv: -len(kv[0])):
        if note.startswith(prefix):
            return prefix
    return None


def problems(rows: list[Row]) -> list[str]:
    """Breaks of the naming and fidelity contract (the tests fail on any): an own task without
    the prefix, or a difference the differential found that the class does not record."""
    found = []
    for row in rows:
        if row.is_own and not row.name.startswith(OWN_PREFIX):
            found.append(
                f"{row.name}: not an upstream task, so its name must start with {OWN_PREFIX!r}"
            )
        if row.upstream is None:
            continue
        declared = " ".join(row.declared).lower()
        for note in row.found:
            aspect = _aspect(note)
            keyword = ASPECTS.get(aspect or "", "")
            if keyword and keyword not in declared:
                found.append(f"{row.name}: {note} -- with no {keyword!r} fidelity note")
    return found


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _summary_lines(rows: list[Row], comparison: upstream_draws.Comparison) -> list[str]:
    covered = [r for r in rows if not r.is_own]
    own = [r for r in rows if r.is_own]
    exact = [r for r in covered if not r.notes]
    goals = [r for r in covered if r.template == "same"]
    rate = f"{100 * comparison.rate:.1f}%" if comparison.compared else "-"
    return [
        f"**Coverage: {len(covered)} of {len(UPSTREAM_TASKS)} upstream templates**; "
        f"{len(own)} own task(s) (marked *own*, names start with `{OWN_PREFIX}`); "
        f"{len(exact)} upstream-named task(s) with no recorded difference.",
        "",
        f"**Draws: {comparison.matched} of {comparison.compared} ({rate}) of upstream's recorded "
        f"parameter draws are drawn here for the same seed**; at initialisation "
        f"{comparison.init_matched} of {comparison.init_compared}; goals identical for "
        f"{len(goals)} of {len(covered)} templates.",
    ]


def render(rows: list[Row], comparison: upstream_draws.Comparison | None = None) -> str:
    facts = fidelity_diff.load()
    recorded = upstream_draws.load()
    comparison = comparison or upstream_draws.Comparison(())
    covered = {r.name for r in rows if not r.is_own}
    commit = str(facts.source.get("commit", "?"))
    lines = [
        "# Task fidelity: the sim suite against upstream AndroidWorld",
        "",
        "Generated by `python -m android_world.task_evals.fidelity` from the task classes and",
        f"upstream's recorded facts ({UPSTREAM_REPO} at `{commit[:12]}`: tests/fixtures/",
        "upstream_facts.json and upstream_draws.json; `--upstream CHECKOUT` records them again).",
        "Do not edit by hand; `--check` (run by the tests) fails when it is stale.",
        "",
        *_summary_lines(rows, comparison),
        "",
        f"- *goals*: `same` when the goal our class builds equals upstream's, word for word, for "
        f"every recorded draw (seeds {', '.join(map(str, recorded.seeds))} x "
        f"{recorded.instances} instances; a question's goal after initialisation).",
        "- *draws*: recorded draws whose params are upstream's (and, for questions, the draws",
        "  at initialisation: the goal's date wording, the question's rows and the noise rows).",
        "- *success rule*: upstream's is our summary of its `is_successful`; ours is `upstream's`",
        "  unless the class declares its own (`success_rule`).",
        "- *notes*: differences the differential found (complexity, apps, schema, metadata, pools,",
        "  params, draws), then the class's own `fidelity_notes`, which must record each found one.",
        "",
        "| task | goals | draws | complexity (ours / upstream) | success rule (ours) "
        "| success rule (upstream) | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [_table_line(row, facts) for row in rows]
    missing = [t for t in UPSTREAM_TASKS if t.name not in covered]
    lines += [
        "",
        f"## Upstream templates not in the sim suite ({len(missing)})",
        "",
        "| task | apps | complexity | upstream module |",
        "|---|---|---|---|",
    ]
    for t in missing:
        lines.append(f"| `{t.name}` | {', '.join(t.app_names)} | {t.complexity:g} | {t.module} |")
    lines += _pool_lines(facts)
    return "\n".join(lines) + "\n"


def _table_line(row: Row, facts: fidelity_diff.UpstreamFacts) -> str:
    if row.is_own:
        name = f"`{row.name}` *own*"
        complexity = f"{row.complexity:g} / -"
        theirs = "- (not an upstream task)"
    else:
        assert row.upstream is not None
        name = f"`{row.name}`"
        upstream_complexity = facts.templates.get(row.name, {}).get("complexity")
        if upstream_complexity is None:
            upstream_complexity = row.upstream.complexity
        complexity = f"{row.complexity:g} / {float(upstream_complexity):g}"
        theirs = row.upstream.success_rule
    notes = "; ".join(row.notes) or "-"
    return (
        f"| {name} | {row.template} | {row.draws} | {complexity} | {_cell(row.rule)} "
        f"| {_cell(theirs)} | {_cell(notes)} |"
    )


def _pool_lines(facts: fidelity_diff.UpstreamFacts) -> list[str]:
    matches = fidelity_diff.match_pools(fidelity_diff.our_pools(), facts.pools)
    same = sum(m.verdict == "same" for m in matches)
    lines = [
        "",
        f"## Parameter pools ({same} of {len(matches)} identical to upstream's, in order)",
        "",
        "Each module-level pool of our task modules, against the upstream pool that shares the",
        "most values with it (pools sharing too little with any are our own and left out). Order",
        "matters: it fixes what `random.choice` draws for a seed.",
        "",
        "| ours | upstream | comparison |",
        "|---|---|---|",
    ]
    for match in matches:
        lines.append(f"| `{match.ours}` | `{match.upstream}` | {_cell(match.verdict)} |")
    return lines


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def upstream_python(checkout: Path, given: str | None) -> str:
    """The Python with upstream's requirements: given, else fetch_upstream.sh's venv beside the
    checkout, else this one."""
    if given:
        return given
    venv = checkout.parent / "venv" / "bin" / "python"
    return str(venv) if venv.is_file() else sys.executable


def record(checkout: Path, python: str) -> subprocess.CompletedProcess[str]:
    """Run the recorder inside the checkout; it rewrites the two fixtures."""
    return subprocess.run(
        [
            python,
            str(RECORDER),
            "--draws",
            str(upstream_draws.FIXTURE),
            "--facts",
            str(fidelity_diff.FACTS),
        ],
        cwd=checkout,
        capture_output=True,
        text=True,
        timeout=1800,
        # The checkout's own android_world, never this harness's.
        env={
            **{k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
            "PYTHONPATH": str(checkout),
        },
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the doc is stale")
    parser.add_argument("--output", type=Path, default=DOC_PATH, help="where the table lives")
    parser.add_argument(
        "--upstream", type=Path, help="an upstream checkout: record its facts first"
    )
    parser.add_argument("--upstream-python", help="Python with upstream's requirements")
    args = parser.parse_args(argv)
    if args.upstream is not None:
        if not (args.upstream / "android_world" / "registry.py").is_file():
            print(f"{args.upstream} is not an upstream AndroidWorld checkout", file=sys.stderr)
            return 2
        done = record(args.upstream, upstream_python(args.upstream, args.upstream_python))
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["?"])[-1]
            print(f"recording upstream's facts failed: {last}", file=sys.stderr)
            return 2
        print(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "recorded")
    tasks = registry.TaskRegistry().get_registry()
    comparison = upstream_draws.compare(tasks)
    summaries = comparison.by_task()
    facts = fidelity_diff.load()
    rows = [build_row(n, c, summaries.get(n), facts) for n, c in sorted(tasks.items())]
    text = render(rows, comparison)
    for problem in problems(rows):
        print(f"warning: {problem}", file=sys.stderr)
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else None
        if current != text:
            print(
                f"{args.output} is stale; run: python -m android_world.task_evals.fidelity",
                file=sys.stderr,
            )
            return 1
        print(f"{args.output} is up to date.")
        return 0
    write_atomically(args.output, text)
    covered = sum(not r.is_own for r in rows)
    print(
        f"Wrote {args.output}: {covered} of {len(UPSTREAM_TASKS)} upstream templates; "
        f"draws {comparison.matched}/{comparison.compared}."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
