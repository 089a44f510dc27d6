"""Episodic memory at scale: load, lookup (hit and miss), add and record_outcome times.

Run: `nice python benchmarks/memory_scale.py [--sizes 1000 10000 100000] [--legacy-sizes 1000 10000]
[--ops 20] [--legacy-ops 5] [--workdir DIR]`.

Stores of 1k/10k/100k plans are built from the sim suite's own goals: every task's goal drawn for
several seeds (varied slots) with the offline planner's plan for it. A store of N plans needs N
tasks, and the suite has under a hundred templates, so each plan's goal is put in one of many
contexts first ("Working on the garden lamp group. <goal>"): every stored goal is a template of
its own, as in a memory grown over many runs, apps and tasks. Then, on each store:

- load: open the store as a new process would (SQLite: connect, schema check, count; JSON: read,
  parse and validate the file);
- hit: `find_similar_task` for a goal of a stored template with other values (another seed);
- miss: `find_similar_task` for a goal in a context no entry has;
- add: `add_successful_plan` of a new plan;
- record: `record_outcome` of a stored entry.

The JSON column is the store before SQLite, rebuilt from its steps (`LegacyJsonMemory`: lock the
file, read and validate all of it, rank every entry, write all of it back atomically). Its sizes are
separate (`--legacy-sizes`) because at 100k one operation takes tens of seconds. Times are the
median and the 90th percentile over `--ops` operations (a goal is analysed once per lookup, as the
agent does; nothing is cached between probes), with the machine's load shown, since other
processes on a shared machine slow both columns alike.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import fcntl
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install

from android_world.agents.custom.memory import celil_episodic_rows as rows
from android_world.agents.custom.memory.celil_episodic import (
    DEFAULT_SIMILARITY_THRESHOLD,
    EpisodicMemory,
    Match,
    MemoryEntry,
    MemoryFile,
    atomic_write_text,
    dump_json_memory,
    instantiate,
    misfit_reason,
    read_goal,
    template_similarity,
)
from android_world.agents.custom.memory.celil_episodic_meaning import clear_caches, states_of
from android_world.agents.custom.offline_roles import offline, offline_text
from android_world.task_evals.registry import TaskRegistry

SEEDS = range(8)
# Context words: ordinary lowercase nouns that are no slot, no app and no app's keyword.
_WORD_TEXT = """
garden kitchen river forest window harbor meadow lantern pebble canyon orchard violin
marble copper velvet saddle anchor beacon bramble cedar dune ember fjord glacier hazel
island juniper kettle lagoon maple nectar oasis prairie quarry rapids summit thicket
tundra valley willow yarrow zephyr acorn birch cobble delta estuary fern grove heath inlet
jetty knoll ledge moss nook outcrop pine quill reef shoal tarn upland vale wharf basin
cliff creek dale field gorge hollow lake marsh peak pond ridge spring stream bay cove crag
isle mesa plain rock shore slope spruce brook dell glen moor loch fen bluff barrow cairn
spinney copse lamp chair table shelf drawer bench stool cushion blanket pillow basket
bucket ladder
"""
WORDS = tuple(_WORD_TEXT.split())
_MISS_TEXT = "quartz obsidian basalt granite feldspar gneiss schist shale slate pumice"
MISS_WORDS = tuple(_MISS_TEXT.split())


# ---------------------------------------------------------------------------------------------
# The workload
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Base:
    task: str
    goals: tuple[str, ...]  # one per seed
    plan: tuple[str, ...]


def suite_bases() -> list[Base]:
    """Every sim task with its goals for SEEDS and the offline planner's plan for the first."""
    state = random.getstate()
    out: list[Base] = []
    try:
        for name, cls in sorted(TaskRegistry().get_registry("sim").items()):
            goals = []
            for seed in SEEDS:
                random.seed(seed)
                goals.append(cls(cls.generate_random_params()).goal)
            plan, _ = offline.build_plan(offline_text.parse_goal(goals[0]))
            out.append(Base(name, tuple(goals), tuple(plan)))
    finally:
        random.setstate(state)
    return out


def in_context(goal: str, i: int, words: Sequence[str] = WORDS) -> str:
    """The goal in the i-th context: a sentence of two context words before it."""
    a, b = words[i % len(words)], words[(i // len(words)) % len(words)]
    return f"Working on the {a} {b} group. {goal}"


def contexts(bases: Sequence[Base]) -> Iterator[tuple[Base, int]]:
    """(base, context index) pairs, each context once per task: up to len(WORDS)**2 per task."""
    for i in range(len(WORDS) ** 2):
        for base in bases:
            yield base, i


# ---------------------------------------------------------------------------------------------
# The JSON store before SQLite (its steps, for comparison)
# ---------------------------------------------------------------------------------------------


class LegacyJsonMemory:
    """What the JSON store did per operation: lock, read + parse + validate the whole file, rank
    every entry, write the whole file back atomically (on a hit, an add and an outcome)."""

    def __init__(self, path: Path, similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD):
        self.path = path
        self.similarity_threshold = similarity_threshold

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with open(f"{self.path}.lock", "a+b") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def load(self) -> list[MemoryEntry]:
        if not self.path.exists():
            return []
        return MemoryFile.model_validate(json.loads(self.path.read_text("utf-8"))).entries

    def _save(self, entries: list[MemoryEntry]) -> None:
        atomic_write_text(self.path, dump_json_memory(entries))

    def rank(self, goal: str, entries: Sequence[MemoryEntry]) -> list[Match]:
        reading = read_goal(goal)
        wanted = set(reading.apps)
        out = []
        for entry in entries:
            sim = template_similarity(reading.template.template, entry.goal_template)
            have = set(entry.app_names)
            if wanted and have:
                sim *= 0.5 + 0.5 * len(wanted & have) / len(wanted | have)
            reason = ""
            if sim < self.similarity_threshold:
                reason = "similarity"
            else:
                reason = misfit_reason(entry, reading.template, wanted)
            plan = (
                [instantiate(s, reading.template.slots) for s in entry.plan] if not reason else []
            )
            out.append(Match(entry, sim, plan, not reason, reason))
        out.sort(key=lambda m: (m.usable, m.similarity), reverse=True)
        return out

    def find_similar_task(self, goal: str) -> str | None:
        with self._locked():
            entries = self.load()
            best = next((m for m in self.rank(goal, entries) if m.usable), None)
            if best is None:
                return None
            best.entry.uses += 1
            self._save(entries)
            return best.entry.id

    def add(self, entry: MemoryEntry) -> None:
        with self._locked():
            entries = self.load()
            if not any(e.key == entry.key for e in entries):
                entries.append(entry)
            self._save(entries)

    def record_outcome(self, entry_id: str, success: bool) -> None:
        with self._locked():
            entries = self.load()
            entry = next(e for e in entries if e.id == entry_id)
            if success:
                entry.successes += 1
            else:
                entry.failures += 1
            self._save(entries)


# ---------------------------------------------------------------------------------------------
# Measuring
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Timing:
    """Wall and CPU seconds of each timed operation. On a busy machine the wall time also holds
    the waits for a CPU; the CPU time is this process's own work (SQLite's included)."""

    samples: list[float] = dataclasses.field(default_factory=list)
    cpu: list[float] = dataclasses.field(default_factory=list)

    def add(self, seconds: float, cpu: float = float("nan")) -> None:
        self.samples.append(seconds)
        self.cpu.append(cpu)

    def text(self) -> str:
        if not self.samples:
            return "-"
        ms = sorted(s * 1000 for s in self.samples)
        p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
        return f"{_fmt(statistics.median(ms))} ({_fmt(p90)})"

    def cpu_text(self) -> str:
        cpu = [c * 1000 for c in self.cpu if c == c]
        return _fmt(statistics.median(cpu)) if cpu else "-"


def _fmt(ms: float) -> str:
    return f"{ms:.1f} ms" if ms < 1000 else f"{ms / 1000:.2f} s"


def timed(fn: Callable[[], Any]) -> tuple[float, Any, float]:
    cpu = time.process_time()
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result, time.process_time() - cpu


@dataclasses.dataclass
class Row:
    store: str
    size: int
    load: Timing
    hit: Timing
    miss: Timing
    add: Timing
    record: Timing
    hits_found: int = 0
    misses_found: int = 0


class Workload:
    """The stored entries (built once, grown with the sizes) and the probes."""

    def __init__(self, bases: Sequence[Base]):
        self.bases = [b for b in bases if b.plan]
        self.iter = contexts(self.bases)
        self.entries: list[MemoryEntry] = []
        self.keys: list[rows.EntryKeys] = []
        self.stored: list[tuple[Base, int]] = []
        self.refused = 0
        self._maker = EpisodicMemory(Path(tempfile.mkdtemp()) / "maker.db")

    def grow(self, size: int) -> list[MemoryEntry]:
        """New entries up to `size` distinct tasks (a plan the memory would refuse, or a goal
        that is the same task as one already made, "garden lamp" and "lamp garden", is skipped)."""
        new: list[MemoryEntry] = []
        seen = {k.entry_key for k in self.keys}
        while len(self.entries) < size:
            base, i = next(self.iter)
            entry = self._maker.make_entry(in_context(base.goals[0], i), list(base.plan))
            if isinstance(entry, str):
                self.refused += 1
                continue
            keys = rows.entry_keys(entry)  # the goal's reading is still cached
            if keys.entry_key in seen:
                continue
            seen.add(keys.entry_key)
            self.entries.append(entry)
            self.keys.append(keys)
            self.stored.append((base, i))
            new.append(entry)
        return new

    def store(self, memory: EpisodicMemory, new: Sequence[MemoryEntry]) -> None:
        """Insert the new entries in one transaction, with the keys computed when they were
        made (the same keys `add_successful_plan` would compute; the analysis runs once)."""
        keys = dict(zip((e.id for e in self.entries), self.keys, strict=True))
        with memory.store.write() as conn:
            for entry in new:
                rows.insert(conn, entry, keys[entry.id])

    def hit_probes(self, n: int, rng: random.Random) -> list[str]:
        """Goals of stored templates with another seed's values (checked to keep the template)."""
        out: list[str] = []
        for base, i in rng.sample(self.stored, min(len(self.stored), 20 * n)):
            for goal in base.goals[1:]:
                probe = in_context(goal, i)
                stored = read_goal(in_context(base.goals[0], i)).template
                wanted = read_goal(probe).template
                same = wanted.template == stored.template
                if same and states_of(wanted.slots) == states_of(stored.slots) and probe not in out:
                    out.append(probe)
                    break
            if len(out) == n:
                break
        clear_caches()
        return out

    def miss_probes(self, n: int, rng: random.Random) -> list[str]:
        return [
            in_context(rng.choice(self.bases).goals[-1], rng.randrange(10**6), MISS_WORDS)
            for _ in range(n)
        ]

    def new_goals(self, n: int) -> list[tuple[str, list[str]]]:
        out = []
        while len(out) < n:
            base, i = next(self.iter)
            out.append((in_context(base.goals[0], i), list(base.plan)))
        return out


def measure_sqlite(path: Path, work: Workload, ops: int, rng: random.Random) -> Row:
    row = Row("sqlite", len(work.entries), Timing(), Timing(), Timing(), Timing(), Timing())
    for _ in range(min(ops, 5)):
        seconds, memory, cpu = timed(lambda: _open(path))
        row.load.add(seconds, cpu)
        memory.close()
    memory = EpisodicMemory(path)
    for goal in work.hit_probes(ops, rng):
        clear_caches()
        seconds, hit, cpu = timed(lambda g=goal: memory.find_similar_task(g))
        row.hit.add(seconds, cpu)
        row.hits_found += hit is not None
    for goal in work.miss_probes(ops, rng):
        clear_caches()
        seconds, hit, cpu = timed(lambda g=goal: memory.find_similar_task(g))
        row.miss.add(seconds, cpu)
        row.misses_found += hit is None
    for goal, plan in work.new_goals(ops):
        clear_caches()
        seconds, _, cpu = timed(lambda g=goal, p=plan: memory.add_successful_plan(g, p))
        row.add.add(seconds, cpu)
    ids = [e.id for e in rng.sample(work.entries, min(ops, len(work.entries)))]
    for n, entry_id in enumerate(ids):
        seconds, _, cpu = timed(lambda e=entry_id, k=n: memory.record_outcome(e, k % 3 != 0))
        row.record.add(seconds, cpu)
    assert not memory.warnings, memory.warnings[:3]
    memory.close()
    return row


def _open(path: Path) -> EpisodicMemory:
    memory = EpisodicMemory(path)
    memory.check(create=False)
    memory.count()
    return memory


def measure_legacy(path: Path, work: Workload, ops: int, rng: random.Random) -> Row:
    atomic_write_text(path, dump_json_memory(work.entries))
    memory = LegacyJsonMemory(path)
    row = Row("json (before)", len(work.entries), Timing(), Timing(), Timing(), Timing(), Timing())
    for _ in range(min(ops, 3)):
        seconds, _, cpu = timed(memory.load)
        row.load.add(seconds, cpu)
    for goal in work.hit_probes(ops, rng):
        clear_caches()
        seconds, hit, cpu = timed(lambda g=goal: memory.find_similar_task(g))
        row.hit.add(seconds, cpu)
        row.hits_found += hit is not None
    for goal in work.miss_probes(ops, rng):
        clear_caches()
        seconds, hit, cpu = timed(lambda g=goal: memory.find_similar_task(g))
        row.miss.add(seconds, cpu)
        row.misses_found += hit is None
    maker = EpisodicMemory(path.with_suffix(".maker.db"))
    for goal, plan in work.new_goals(ops):
        clear_caches()
        entry = maker.make_entry(goal, plan)
        if not isinstance(entry, str):
            seconds, _, cpu = timed(lambda e=entry: memory.add(e))
            row.add.add(seconds, cpu)
    for n, entry in enumerate(rng.sample(work.entries, min(ops, len(work.entries)))):
        seconds, _, cpu = timed(lambda e=entry.id, k=n: memory.record_outcome(e, k % 3 != 0))
        row.record.add(seconds, cpu)
    return row


def table(rows: Sequence[Row], *, cpu: bool = False) -> str:
    """A Markdown table: wall time median (90th percentile), or the CPU time's median."""
    header = ["store", "plans", "load", "lookup hit", "lookup miss", "add", "record_outcome"]

    def cell(t: Timing) -> str:
        return t.cpu_text() if cpu else t.text()

    body = [
        [
            r.store,
            f"{r.size:,}",
            cell(r.load),
            cell(r.hit) + ("" if cpu else f" [{r.hits_found}/{len(r.hit.samples)} hit]"),
            cell(r.miss) + ("" if cpu else f" [{r.misses_found}/{len(r.miss.samples)} miss]"),
            cell(r.add),
            cell(r.record),
        ]
        for r in rows
    ]
    widths = [max(len(x[i]) for x in [header, *body]) for i in range(len(header))]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |"]
    lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    lines += ["| " + " | ".join(c.ljust(w) for c, w in zip(x, widths)) + " |" for x in body]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--legacy-sizes", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--ops", type=int, default=20, help="operations timed per kind (SQLite)")
    parser.add_argument("--legacy-ops", type=int, default=5, help="... for the JSON store")
    parser.add_argument("--workdir", type=Path, default=None, help="where the stores go (temp)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if any(n < 10 for n in [*args.sizes, *args.legacy_sizes]) or args.ops < 1:
        print("error: sizes must be 10 or more and --ops 1 or more", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        work = Workload(suite_bases())
        db = Path(tmp) / "memory.db"
        store = EpisodicMemory(db)
        rows: list[Row] = []
        for size in sorted(set(args.sizes) | set(args.legacy_sizes)):
            built, new, _ = timed(lambda s=size: work.grow(s))
            build_db, _, _ = timed(lambda n=new: work.store(store, n))
            print(
                f"{size:,} plans: made in {built:.0f} s, stored in {build_db:.1f} s "
                f"({work.refused} plans refused as leaking values)",
                file=sys.stderr,
            )
            if size in args.sizes:
                snapshot = Path(tmp) / f"sqlite-{size}.db"
                _copy_store(store, snapshot)
                rows.append(measure_sqlite(snapshot, work, args.ops, rng))
                print(table(rows[-1:]), file=sys.stderr)
            if size in args.legacy_sizes:
                rows.append(
                    measure_legacy(Path(tmp) / f"json-{size}.json", work, args.legacy_ops, rng)
                )
                print(table(rows[-1:]), file=sys.stderr)
        store.close()
    rows.sort(key=lambda r: (r.store != "json (before)", r.size))
    print(
        f"{args.ops} SQLite / {args.legacy_ops} JSON operations per cell; load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; wall {time.perf_counter() - start:.0f} s"
    )
    print("\nwall time per operation: median (90th percentile)\n")
    print(table(rows))
    print("\nCPU time of the process per operation: median\n")
    print(table(rows, cpu=True))
    return 0


def _copy_store(memory: EpisodicMemory, target: Path) -> None:
    """A consistent copy (SQLite's backup API), so each size is measured on its own file and
    the timed adds do not grow the next size's store."""
    import sqlite3

    conn = memory.store.connection()
    assert conn is not None
    out = sqlite3.connect(target)
    try:
        conn.backup(out)
    finally:
        out.close()


if __name__ == "__main__":
    raise SystemExit(main())
