"""The profile matrix: success per task family x sim profile, for one agent.

Run: `./run_benchmark.sh --sim_profile all [--agent oracle_agent] [flags]` or
`python benchmarks/sim_profiles.py [--profiles all|"small;small,dialogs"] [--agent NAME]
[--models offline] [-- extra run flags]`. Each profile is one ordinary run of
`python -m android_world.harness.run` (same runner, scoring and run directory as any benchmark), with
`--sim_profile` set; the table reads each run's results.jsonl. A family is the task module
(system, clock, contacts, ...); a cell is the macro mean over the family's templates, as the
summary's success rate is. Columns are profiles; the last row is the whole suite.

Without `--agent` the config's agent runs with `--models offline` (no model, no network): the
offline baseline. `--agent oracle_agent` runs the reference solutions: every cell must be 1.0.
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout, no install

from android_world.env import sim_profile  # noqa: E402
from android_world.harness.checkpointer import create_run_directory  # noqa: E402
from android_world.task_evals.registry import TaskRegistry  # noqa: E402


def family_of(task_name: str, registry: Mapping[str, type]) -> str:
    """The task's module name (`android_world.task_evals.single.clock` -> `clock`)."""
    cls = registry.get(task_name)
    return cls.__module__.rsplit(".", 1)[-1] if cls is not None else "?"


def read_scores(run_dir: Path) -> dict[str, float]:
    """Template -> mean success over its instances, from a run's results.jsonl."""
    by_task: dict[str, list[float]] = collections.defaultdict(list)
    for line in (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            episode = json.loads(line)
            by_task[episode["task_template"]].append(float(episode.get("is_successful") or 0.0))
    return {name: sum(v) / len(v) for name, v in by_task.items()}


def family_means(scores: Mapping[str, float], registry: Mapping[str, type]) -> dict[str, float]:
    """Macro mean per family, plus `all` over every template."""
    groups: dict[str, list[float]] = collections.defaultdict(list)
    for name, score in scores.items():
        groups[family_of(name, registry)].append(score)
    means = {family: sum(v) / len(v) for family, v in sorted(groups.items())}
    if scores:
        means["all"] = sum(scores.values()) / len(scores)
    return means


def matrix_table(columns: Mapping[str, Mapping[str, float]], counts: Mapping[str, int]) -> str:
    """Families down, profiles across (numbered, with a legend, so the table fits 80 columns)."""
    names = list(columns)
    families = [*sorted({f for col in columns.values() for f in col if f != "all"}), "all"]
    head = f"{'family (tasks)':<18}" + "".join(f"{'P' + str(i + 1):>7}" for i in range(len(names)))
    lines = [head, "-" * len(head)]
    for family in families:
        short = family if len(family) <= 13 else family[:12] + "~"
        label = f"{short} ({counts.get(family, 0)})"
        cells = [columns[p].get(family) for p in names]
        lines.append(
            f"{label:<18}" + "".join(f"{c:>7.2f}" if c is not None else f"{'-':>7}" for c in cells)
        )
    lines.append("")
    lines += [f"P{i + 1} = {name}" for i, name in enumerate(names)]
    return "\n".join(lines)


def run_profile(
    profile: str,
    agent: str | None,
    models: str | None,
    out: Path,
    extra: Sequence[str],
    resume: bool = False,
) -> Path:
    """One ordinary benchmark run under `profile`; returns its run directory. A directory
    left by an earlier run is resumed only when asked: resuming keeps every finished episode,
    so a table from changed code would silently show the old results."""
    run_dir = out / profile.replace(",", "+")
    if run_dir.exists() and not resume:
        raise SystemExit(
            f"error: {run_dir} holds an earlier run; remove it, choose another --output, "
            "or pass --resume to finish it"
        )
    cmd = [sys.executable, "-m", "android_world.harness.run", "--config", "config/default.yaml"]
    cmd += ["--sim_profile", profile, "--checkpoint_dir", str(run_dir), "--new"]
    cmd += ["--set", "env.render=false", "--set", "benchmark.save_screenshots=false"]
    if agent:
        cmd += ["--agent", agent]
    if models:
        cmd += ["--models", models]
    cmd += list(extra)
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    if not (run_dir / "results.jsonl").is_file():
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise SystemExit(f"error: the run under profile {profile!r} failed: {tail[0]}")
    return run_dir


def output_dir(output: str | None, output_path: str | None, scratch: Path) -> Path:
    """Where the profile runs go: `--output` itself, a new run_<timestamp> under `--output_path`
    (what `./run_benchmark.sh --sim_profile all --output_path P` passes), else a scratch folder
    deleted at the end."""
    if output:
        out = Path(output)
        out.mkdir(parents=True, exist_ok=True)
        return out
    if output_path:
        return create_run_directory(output_path)
    return scratch


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profiles", default="all", help="all, or profiles separated by ';'")
    parser.add_argument("--agent", default=None, help="agent to run (default: the config's)")
    parser.add_argument(
        "--models", default=None, help="offline|auto (default: offline unless --agent is given)"
    )
    parser.add_argument("--output", default=None, help="keep the run directories here")
    parser.add_argument(
        "--output_path",
        default=None,
        help="as the run command's flag: keep the run directories in a new run_<timestamp> "
        "folder under this path",
    )
    parser.add_argument(
        "--resume", action="store_true", help="finish the runs an interrupted --output holds"
    )
    args, extra = parser.parse_known_args(argv)
    extra = [a for a in extra if a != "--"]
    try:
        profiles = [p.name for p in sim_profile.expand(args.profiles)]
    except sim_profile.ProfileError as exc:
        print(f"error: --profiles: {exc}", file=sys.stderr)
        return 2
    models = args.models or (None if args.agent else "offline")
    registry = TaskRegistry().get_registry()
    columns: dict[str, dict[str, float]] = {}
    counts: dict[str, int] = collections.Counter()
    with tempfile.TemporaryDirectory(prefix="sim_profiles_") as tmp:
        out = output_dir(args.output, args.output_path, Path(tmp))
        for profile in profiles:
            start = time.monotonic()
            scores = read_scores(run_profile(profile, args.agent, models, out, extra, args.resume))
            columns[profile] = family_means(scores, registry)
            if not counts:
                counts.update(family_of(name, registry) for name in scores)
                counts["all"] = len(scores)
            print(
                f"{profile}: {columns[profile].get('all', 0.0):.2f} "
                f"({len(scores)} tasks, {time.monotonic() - start:.0f} s)",
                file=sys.stderr,
            )
    if args.output or args.output_path:
        print(f"Run directories: {out}", file=sys.stderr)
    who = args.agent or "config agent"
    print(f"Success per task family x sim profile ({who}, models: {models or 'config'})")
    print(matrix_table(columns, counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
