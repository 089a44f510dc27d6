"""Our parameter draws against upstream's, seed by seed: the differential behind `--task_random_seed`.

    python -m android_world.task_evals.upstream_draws     # the report, task by task

Upstream's draws are recorded facts (tests/fixtures/upstream_draws.json, written by
tests/upstream/record_upstream.py from upstream's own `create_suite`). Here our own `create_suite`
draws the same seeds and instances, and each instance is compared with upstream's on upstream's
parameter keys:

- a row object upstream keeps as a dataclass (`{"__type__": "Expense", ...}`, non-default fields
  only) matches a row of ours (a dict or dataclass) whose upstream fields all hold the same values,
  a missing field counting as upstream's default; fields only we have are not compared;
- keys only we have are listed (`extra_keys`) but do not break a match: they are schema
  differences, the fidelity table's business;
- a picture upstream keeps in its params (a receipt) is recorded by size, mode and a digest of
  its pixels, which depend on the recorder's fonts: it matches ours by size and mode, where our
  task keeps the picture's content as data and says how upstream's params read
  (`upstream_params()`);
- a draw upstream cannot reproduce itself (it reads the wall clock) is `unreproducible` and left
  out of the rate;
- a template the sim lacks is `missing`, never a mismatch.

Information-retrieval questions draw again when initialised (upstream seeds `random` with the
instance's seed, then picks the question's own rows and rewords the goal's date): the recorded
`init` (params and goal after those draws) is compared with ours after `prepare()` under the same
seeding, as a second rate.
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import hashlib
import json
import math
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from PIL import Image

from android_world.harness import suite_utils
from android_world.task_evals import task_eval

_PICTURE = "PIL.Image"  # the recorder's type name for a Pillow image
FIXTURE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "upstream_draws.json"
_TYPE = "__type__"
MISSING = "missing"


@dataclasses.dataclass(frozen=True)
class Recorded:
    """The fixture: upstream's draws by seed, task and instance, and its row classes' defaults."""

    source: Mapping[str, Any]
    seeds: tuple[int, ...]
    instances: int
    row_defaults: Mapping[str, Mapping[str, Any]]
    draws: Mapping[int, Mapping[str, list[Mapping[str, Any]]]]

    @property
    def templates(self) -> list[str]:
        names: set[str] = set()
        for tasks in self.draws.values():
            names.update(tasks)
        return sorted(names)


def load(path: Path = FIXTURE) -> Recorded:
    data = json.loads(path.read_text(encoding="utf-8"))
    return Recorded(
        source=data["source"],
        seeds=tuple(data["seeds"]),
        instances=int(data["instances"]),
        row_defaults=data["row_defaults"],
        draws={int(seed): tasks for seed, tasks in data["draws"].items()},
    )


def plain(value: Any) -> Any:
    """Our value in the recorder's JSON shapes (dataclasses as dicts, dates as ISO text)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((plain(v) for v in value), key=repr)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return {_TYPE: type(value).__name__, "iso": value.isoformat()}
    if isinstance(value, Image.Image):
        return {_TYPE: _PICTURE, "size": list(value.size), "mode": value.mode}
    return {_TYPE: type(value).__name__, "repr": repr(value)}


def _same_scalar(ours: Any, theirs: Any) -> bool:
    if isinstance(ours, bool) or isinstance(theirs, bool):
        return ours is theirs
    if isinstance(ours, int | float) and isinstance(theirs, int | float):
        return float(ours) == float(theirs)
    return ours == theirs


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 60 else text[:57] + "..."


def difference(
    ours: Any, theirs: Any, defaults: Mapping[str, Mapping[str, Any]], path: str = "params"
) -> str | None:
    """The first place our value differs from upstream's, or None when they match."""
    if isinstance(theirs, Mapping) and theirs.get(_TYPE) == _PICTURE:
        # A picture (a receipt) matches by size and mode: its pixels depend on the fonts of
        # the host that drew it, so the recorded digest cannot be reproduced anywhere else.
        if not isinstance(ours, Mapping) or ours.get(_TYPE) != _PICTURE:
            return f"{path}: ours {_short(ours)}, upstream a picture"
        for key in ("size", "mode"):
            if ours.get(key) != theirs.get(key):
                return f"{path}.{key}: ours {_short(ours.get(key))}, upstream {_short(theirs.get(key))}"
        return None
    if isinstance(theirs, Mapping) and theirs.get(_TYPE) in defaults:
        if not isinstance(ours, Mapping):
            return f"{path}: ours {_short(ours)}, upstream a {theirs[_TYPE]} row"
        row_defaults = defaults[theirs[_TYPE]]
        for key in sorted((set(theirs) | set(row_defaults)) - {_TYPE}):
            theirs_value = theirs.get(key, row_defaults.get(key))
            if key not in ours and key in row_defaults:
                ours_value = row_defaults[key]
            elif key not in ours:
                return f"{path}.{key}: missing in ours, upstream {_short(theirs_value)}"
            else:
                ours_value = ours[key]
            found = difference(ours_value, theirs_value, defaults, f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(theirs, Mapping):
        if not isinstance(ours, Mapping):
            return f"{path}: ours {_short(ours)}, upstream {_short(theirs)}"
        for key in theirs:
            if key not in ours:
                return f"{path}.{key}: missing in ours, upstream {_short(theirs[key])}"
            found = difference(ours[key], theirs[key], defaults, f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(theirs, list):
        if not isinstance(ours, list):
            return f"{path}: ours {_short(ours)}, upstream {_short(theirs)}"
        if len(ours) != len(theirs):
            return f"{path}: ours {len(ours)} items, upstream {len(theirs)}"
        for i, (mine, other) in enumerate(zip(ours, theirs, strict=True)):
            found = difference(mine, other, defaults, f"{path}[{i}]")
            if found:
                return found
        return None
    if not _same_scalar(ours, theirs):
        return f"{path}: ours {_short(ours)}, upstream {_short(theirs)}"
    return None


@dataclasses.dataclass(frozen=True)
class DrawResult:
    """One instance: upstream's params against ours."""

    task: str
    seed: int
    instance: int
    status: str  # match | mismatch | missing | unreproducible | error
    detail: str = ""
    goal_matches: bool | None = None
    extra_keys: tuple[str, ...] = ()
    init_status: str | None = None  # match | mismatch, for draws at initialisation
    init_detail: str = ""


@dataclasses.dataclass(frozen=True)
class TaskSummary:
    task: str
    matched: int
    compared: int
    missing: bool
    unreproducible: int
    goals_matched: int
    first_difference: str
    extra_keys: tuple[str, ...]
    init_matched: int = 0
    init_compared: int = 0
    init_difference: str = ""


@dataclasses.dataclass(frozen=True)
class Comparison:
    results: tuple[DrawResult, ...]

    def by_task(self) -> dict[str, TaskSummary]:
        grouped: dict[str, list[DrawResult]] = collections.defaultdict(list)
        for result in self.results:
            grouped[result.task].append(result)
        summaries = {}
        for task, results in sorted(grouped.items()):
            compared = [r for r in results if r.status in ("match", "mismatch", "error")]
            first = next((r.detail for r in compared if r.status != "match"), "")
            extra = sorted({k for r in results for k in r.extra_keys})
            inits = [r for r in results if r.init_status is not None]
            summaries[task] = TaskSummary(
                task=task,
                matched=sum(r.status == "match" for r in compared),
                compared=len(compared),
                missing=all(r.status == MISSING for r in results),
                unreproducible=sum(r.status == "unreproducible" for r in results),
                goals_matched=sum(bool(r.goal_matches) for r in compared),
                first_difference=first,
                extra_keys=tuple(extra),
                init_matched=sum(r.init_status == "match" for r in inits),
                init_compared=len(inits),
                init_difference=next((r.init_detail for r in inits if r.init_detail), ""),
            )
        return summaries

    @property
    def matched(self) -> int:
        return sum(r.status == "match" for r in self.results)

    @property
    def compared(self) -> int:
        return sum(r.status in ("match", "mismatch", "error") for r in self.results)

    @property
    def rate(self) -> float:
        return self.matched / self.compared if self.compared else 0.0

    @property
    def init_matched(self) -> int:
        return sum(r.init_status == "match" for r in self.results)

    @property
    def init_compared(self) -> int:
        return sum(r.init_status is not None for r in self.results)

    def missing_tasks(self) -> list[str]:
        return [s.task for s in self.by_task().values() if s.missing]

    def mismatched_tasks(self) -> list[TaskSummary]:
        return [s for s in self.by_task().values() if not s.missing and s.matched < s.compared]


def _our_instances(
    registry: Mapping[str, type[task_eval.TaskEval]], names: list[str], seed: int, n: int
) -> dict[str, list[task_eval.TaskEval] | Exception]:
    made: dict[str, list[task_eval.TaskEval] | Exception] = {}
    for name in names:
        try:
            suite = suite_utils.create_suite(
                registry, n_task_combinations=n, seed=seed, tasks=[name]
            )
            made[name] = suite[name]
        except Exception as exc:  # a task whose draw raises is a failed comparison, not a crash
            made[name] = exc
    return made


def _goal(task: task_eval.TaskEval) -> str | None:
    try:
        return task.goal
    except Exception:
        return None


def compare(
    registry: Mapping[str, type[task_eval.TaskEval]], recorded: Recorded | None = None
) -> Comparison:
    """Every recorded draw against ours for the same seed and instance."""
    recorded = recorded or load()
    results: list[DrawResult] = []
    for seed in recorded.seeds:
        tasks = recorded.draws[seed]
        present = [name for name in sorted(tasks) if name in registry]
        ours = _our_instances(registry, present, seed, recorded.instances)
        for name in sorted(tasks):
            for i, row in enumerate(tasks[name]):
                results.append(_compare_one(name, seed, i, row, ours.get(name), recorded))
    return Comparison(tuple(results))


def _compare_one(
    name: str,
    seed: int,
    i: int,
    row: Mapping[str, Any],
    ours: list[task_eval.TaskEval] | Exception | None,
    recorded: Recorded,
) -> DrawResult:
    if ours is None:
        return DrawResult(name, seed, i, MISSING)
    if not row.get("deterministic", True):
        return DrawResult(name, seed, i, "unreproducible", "upstream's draw reads the clock")
    if isinstance(ours, Exception):
        return DrawResult(name, seed, i, "error", f"{type(ours).__name__}: {ours}")
    task = ours[i]
    # A task that keeps as data what upstream keeps as an object (a receipt's picture) says
    # how upstream's params would read.
    as_upstream = getattr(task, "upstream_params", None)
    mine = plain(as_upstream() if callable(as_upstream) else task.params)
    theirs = row["params"]
    extra = tuple(sorted(set(mine) - set(theirs)))
    found = difference(mine, theirs, recorded.row_defaults)
    goal = row.get("goal")
    goal_matches = None if goal is None or goal.startswith("<no goal") else _goal(task) == goal
    status = "mismatch" if found else "match"
    init_status, init_detail = _compare_init(task, row.get("init"), recorded)
    return DrawResult(
        name, seed, i, status, found or "", goal_matches, extra, init_status, init_detail
    )


# Row fields upstream fills from outside `random` (the recorder leaves them out too).
UNSEEDED_FIELDS = ("remoteId", "uuid")


def canonical_rows(
    rows: list[Mapping[str, Any]], row_type: str, defaults: Mapping[str, Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Our rows as the recorder writes upstream's: typed, default-valued fields left out."""
    known = defaults.get(row_type, {})
    out = []
    for row in rows:
        shaped: dict[str, Any] = {_TYPE: row_type}
        for key, value in plain(dict(row)).items():
            if key in UNSEEDED_FIELDS or (key in known and known[key] == value):
                continue
            shaped[key] = value
        out.append(shaped)
    return out


def rows_digest(rows: list[Any]) -> dict[str, Any]:
    """The recorder's digest of a list of rows (count and sha256 of canonical JSON)."""
    canonical = json.dumps(rows, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return {"count": len(rows), "sha256": hashlib.sha256(canonical.encode()).hexdigest()[:16]}


def _rows_difference(
    twin: task_eval.TaskEval, recorded_rows: Any, recorded: Recorded
) -> str | None:
    row_type = getattr(twin, "row_type", None)
    if row_type is None or recorded_rows is None:
        return None
    ours = canonical_rows(twin.initial_rows(), row_type, recorded.row_defaults)  # type: ignore[attr-defined]
    if isinstance(recorded_rows, list):  # recorded with --rows
        return difference(ours, recorded_rows, recorded.row_defaults, "init.rows")
    digest = rows_digest(ours)
    if digest != dict(recorded_rows):
        return f"init.rows: ours {digest['count']} rows, digest {digest['sha256']}; upstream {recorded_rows.get('count')} rows, digest {recorded_rows.get('sha256')}"
    return None


def _compare_init(
    task: task_eval.TaskEval, init: Mapping[str, Any] | None, recorded: Recorded
) -> tuple[str | None, str]:
    """Upstream's params and goal after initialisation against ours after `prepare()` (the
    draws our `initialize_task` makes, under the same seeding); (None, "") when there is
    nothing to compare."""
    prepare = getattr(task, "prepare", None)
    if not isinstance(init, Mapping) or "error" in init or not callable(prepare):
        return None, ""
    twin = type(task)(json.loads(json.dumps(plain(task.params))))
    state = random.getstate()
    try:
        random.seed(twin.params.get("seed"))
        twin.prepare()  # type: ignore[attr-defined]
        found = difference(plain(twin.params), init["params"], recorded.row_defaults, "init.params")
        if found is None and init.get("goal") is not None and _goal(twin) != init["goal"]:
            found = f"init.goal: ours {_short(_goal(twin))}, upstream {_short(init['goal'])}"
        if found is None:
            found = _rows_difference(twin, init.get("rows"), recorded)
    except Exception as exc:  # a failing preparation is a mismatch to show, not a crash
        return "mismatch", f"init: {type(exc).__name__}: {exc}"
    finally:
        random.setstate(state)
    return ("mismatch", found) if found else ("match", "")


def report_lines(comparison: Comparison, recorded: Recorded) -> list[str]:
    """The rate, the missing templates and one line per task that draws other instances."""
    missing = comparison.missing_tasks()
    mismatched = comparison.mismatched_tasks()
    present = len(comparison.by_task()) - len(missing)
    lines = [
        f"upstream draws matched: {comparison.matched} of {comparison.compared} "
        f"({100 * comparison.rate:.1f}%) over {present} templates present "
        f"(seeds {', '.join(map(str, recorded.seeds))} x {recorded.instances} instances; "
        f"upstream {str(recorded.source.get('commit', '?'))[:12]})",
        f"templates drawing other instances: {len(mismatched)}",
    ]
    lines += [f"  {s.task}: {s.matched}/{s.compared}; {s.first_difference}" for s in mismatched]
    if comparison.init_compared:
        init_off = [s for s in comparison.by_task().values() if s.init_matched < s.init_compared]
        lines.append(
            f"initialisation draws matched (questions' date wording, own rows and noise rows): "
            f"{comparison.init_matched} of {comparison.init_compared}"
        )
        lines += [
            f"  {s.task}: {s.init_matched}/{s.init_compared}; {s.init_difference}" for s in init_off
        ]
    unreproducible = [s for s in comparison.by_task().values() if s.unreproducible]
    for s in unreproducible:
        lines.append(f"  {s.task}: {s.unreproducible} draws left out (upstream reads the clock)")
    lines.append(f"templates missing from the sim: {len(missing)}")
    if missing:
        lines.append("  " + ", ".join(missing))
    return lines


def main() -> int:
    """Print the comparison for every task the registry has (a developer's report)."""
    from android_world.task_evals import registry

    recorded = load()
    comparison = compare(registry.TaskRegistry().get_registry(), recorded)
    print("\n".join(report_lines(comparison, recorded)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
