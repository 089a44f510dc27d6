"""Writes docs/TASK_FIDELITY.md: how each sim task compares with upstream AndroidWorld's.

    python -m android_world.task_evals.fidelity            # (re)write the table
    python -m android_world.task_evals.fidelity --check    # exit 1 if the table is stale

It reads whatever task classes the registry finds (so tasks added later show up by themselves)
and the upstream record in `upstream_tasks.py`. Templates are compared by the goals our classes
actually produce: a few seeded parameter draws must each read as one of upstream's templates with
its `{placeholders}` filled. Complexity, apps and seeded noise rows are compared as numbers and
names. Success rules cannot be compared by a script: the "ours" column is what the class declares
(`success_rule`, or upstream's when it declares none), and every difference kept on purpose is
a line in the class's `fidelity_notes`.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import re
import sys
import tempfile
from pathlib import Path

from android_world.task_evals import registry, task_eval
from android_world.task_evals.upstream_tasks import (
    UPSTREAM_BY_NAME,
    UPSTREAM_COMMIT,
    UPSTREAM_REPO,
    UPSTREAM_TASKS,
    UpstreamTask,
)

DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "TASK_FIDELITY.md"
OWN_PREFIX = "Sim"
SAMPLE_SEEDS = (0, 1, 2, 3, 4)
_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


@dataclasses.dataclass(frozen=True)
class Row:
    """One task's line in the table."""

    name: str
    upstream: UpstreamTask | None
    template: str  # "same", "different", "own", "unknown: ..."
    complexity: float
    notes: tuple[str, ...]
    rule: str

    @property
    def is_own(self) -> bool:
        return self.upstream is None


def template_pattern(template: str) -> re.Pattern[str]:
    """A template as a regex: literal text, each `{name}` any non-empty text."""
    parts = _PLACEHOLDER.split(template)
    return re.compile("(?:.+?)".join(re.escape(p) for p in parts), re.DOTALL)


def sample_goals(cls: type[task_eval.TaskEval]) -> list[str]:
    """Goals of a few seeded parameter draws, leaving the global random state as it was."""
    state = random.getstate()
    try:
        goals = []
        for seed in SAMPLE_SEEDS:
            random.seed(seed)
            goals.append(cls(cls.generate_random_params()).goal)
        return goals
    finally:
        random.setstate(state)


def compare_template(cls: type[task_eval.TaskEval], upstream: UpstreamTask) -> str:
    try:
        goals = sample_goals(cls)
    except Exception as exc:  # a goal that needs a device cannot be sampled here
        return f"unknown ({type(exc).__name__} while drawing goals)"
    patterns = [template_pattern(t) for t in upstream.templates]
    if all(any(p.fullmatch(g) for p in patterns) for g in goals):
        return "same"
    return "different"


def _noise_note(cls: type[task_eval.TaskEval], upstream: UpstreamTask) -> list[str]:
    ours = getattr(cls, "n_rows_noise", None)
    theirs = upstream.n_rows_noise
    if isinstance(ours, int) and theirs is not None and ours != theirs:
        return [f"noise rows: ours {ours}, upstream {theirs}"]
    return []


def _apps_note(cls: type[task_eval.TaskEval], upstream: UpstreamTask) -> list[str]:
    ours = cls.app_names
    if isinstance(ours, tuple | list) and set(ours) != set(upstream.app_names):
        return [f"apps: ours {', '.join(ours) or '-'}; upstream {', '.join(upstream.app_names)}"]
    return []


def build_row(name: str, cls: type[task_eval.TaskEval]) -> Row:
    upstream = UPSTREAM_BY_NAME.get(name)
    declared = tuple(getattr(cls, "fidelity_notes", ()))
    rule = getattr(cls, "success_rule", "") or ""
    if upstream is None:
        return Row(name, None, "own", float(cls.complexity), declared, rule or "(not declared)")
    auto = _noise_note(cls, upstream) + _apps_note(cls, upstream)
    return Row(
        name,
        upstream,
        compare_template(cls, upstream),
        float(cls.complexity),
        tuple(auto) + declared,
        rule or "upstream's",
    )


def build_rows() -> list[Row]:
    tasks = registry.TaskRegistry().get_registry(registry.SIM_FAMILY)
    return [build_row(name, cls) for name, cls in sorted(tasks.items())]


def problems(rows: list[Row]) -> list[str]:
    """Breaks of the naming and fidelity contract (the tests fail on any)."""
    found = []
    for row in rows:
        if row.is_own and not row.name.startswith(OWN_PREFIX):
            found.append(
                f"{row.name}: not an upstream task, so its name must start with {OWN_PREFIX!r}"
            )
        if row.upstream is None:
            continue
        notes = " ".join(row.notes).lower()
        if row.template == "different" and "template" not in notes:
            found.append(f"{row.name}: template {row.template} with no 'template' fidelity note")
        if row.complexity != row.upstream.complexity and "complexity" not in notes:
            found.append(
                f"{row.name}: complexity {row.complexity:g} vs upstream's "
                f"{row.upstream.complexity:g} with no 'complexity' fidelity note"
            )
    return found


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(rows: list[Row]) -> str:
    covered = sorted(r.name for r in rows if not r.is_own)
    own = [r for r in rows if r.is_own]
    exact = [
        r
        for r in rows
        if not r.is_own
        and r.template == "same"
        and not r.notes
        and r.complexity == r.upstream.complexity
    ]  # type: ignore[union-attr]
    lines = [
        "# Task fidelity: the sim suite against upstream AndroidWorld",
        "",
        "Generated by `python -m android_world.task_evals.fidelity` from the task classes and",
        f"`android_world/task_evals/upstream_tasks.py` (facts read from {UPSTREAM_REPO} at",
        f"`{UPSTREAM_COMMIT[:12]}`). Do not edit by hand; `--check` (run by the tests) fails when it is",
        "stale.",
        "",
        f"**Coverage: {len(covered)} of {len(UPSTREAM_TASKS)} upstream templates**; "
        f"{len(own)} own task(s) (marked *own*, names start with `{OWN_PREFIX}`); "
        f"{len(exact)} upstream-named task(s) with no recorded difference.",
        "",
        "- *template*: `same` when every sampled goal (seeds "
        f"{SAMPLE_SEEDS[0]}-{SAMPLE_SEEDS[-1]}) reads as upstream's template with its placeholders",
        "  filled (for goals upstream builds in code, as the shape recorded in `upstream_tasks.py`).",
        "- *success rule*: upstream's is our summary of its `is_successful`; ours is `upstream's` unless",
        "  the class declares its own (`success_rule`). Differences kept on purpose are *notes*, declared",
        "  by the class (`fidelity_notes`) or found by the script (seeded noise rows, apps).",
        "",
        "| task | template | complexity (ours / upstream) | success rule (ours) | success rule (upstream) | notes |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        if row.is_own:
            name = f"`{row.name}` *own*"
            complexity = f"{row.complexity:g} / -"
            theirs = "- (not an upstream task)"
        else:
            assert row.upstream is not None
            name = f"`{row.name}`"
            complexity = f"{row.complexity:g} / {row.upstream.complexity:g}"
            theirs = row.upstream.success_rule
        notes = "; ".join(row.notes) or "-"
        lines.append(
            f"| {name} | {row.template} | {complexity} | {_cell(row.rule)} | {_cell(theirs)} "
            f"| {_cell(notes)} |"
        )
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
    return "\n".join(lines) + "\n"


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the doc is stale")
    parser.add_argument("--output", type=Path, default=DOC_PATH, help="where the table lives")
    args = parser.parse_args(argv)
    rows = build_rows()
    text = render(rows)
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
    print(f"Wrote {args.output}: {covered} of {len(UPSTREAM_TASKS)} upstream templates.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
