"""How the offline roles fare when sim goals are worded the way people word them (issue 14.4).

Run: `python benchmarks/paraphrase.py [--tasks A B ...] [--seeds 0 1] [--split dev|heldout|all]
[--plan_style own|STYLE]`.

Each task of tests/fixtures/paraphrase_goals.json runs once per seed in its own wording and once
per paraphrase, with CelilAgent's offline roles on SimEnv (render off, OCR off). The table gives,
per task family and split, success and false completions (the agent ended `complete` but the
task's check failed). The held-out split exists so rules are not tuned to every wording: read
its numbers, do not fix rules for them.

`--plan_style` replaces the offline planner's own plan with one worded the way models word
plans (benchmarks/plan_styles.py) for the goal as worded; the offline executor, checks and
verifier stay. `own` (the default) is the offline planner's plan.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install
sys.path.insert(0, str(Path(__file__).resolve().parent))

import plan_styles

from android_world.agents.custom.celil_protocols import Plan
from android_world.agents.custom.loop import celil_agent
from android_world.agents.custom.offline_roles import offline
from android_world.agents.custom.offline_roles.offline import OfflinePlanner
from android_world.agents.custom.roles.celil_perception import PerceptionModule
from android_world.env.sim.apps.expense import CATEGORIES
from android_world.env.sim.sim_env import SimEnv
from android_world.harness import suite_utils
from android_world.task_evals import registry
from android_world.task_evals.single import recipe

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "paraphrase_goals.json"
ORIGINAL = "original"


@dataclasses.dataclass(frozen=True)
class Wording:
    task: str
    index: int  # position in the task's list; -1 for the task's own template
    text: str
    split: str  # original | dev | heldout
    source: str = "ours"
    when: tuple[tuple[str, Any], ...] = ()
    params: tuple[tuple[str, Any], ...] = ()


@dataclasses.dataclass
class Outcome:
    wording: Wording
    seed: int
    goal: str
    success: bool
    status: str | None
    reason: str | None = None
    error: str | None = None

    @property
    def false_completion(self) -> bool:
        return self.status == "complete" and not self.success


def load_wordings(path: Path = FIXTURE) -> dict[str, list[Wording]]:
    """Task name -> its paraphrases; `same_as` entries share another task's list."""
    raw = json.loads(path.read_text(encoding="utf-8"))["tasks"]
    out: dict[str, list[Wording]] = {}
    for task, entries in raw.items():
        if len(entries) == 1 and "same_as" in entries[0]:
            entries = raw[entries[0]["same_as"]]
        out[task] = [
            Wording(
                task=task,
                index=i,
                text=e["text"],
                split=e["split"],
                source=e.get("source", "ours"),
                when=tuple(sorted(e.get("when", {}).items())),
                params=tuple(sorted(e.get("params", {}).items())),
            )
            for i, e in enumerate(entries)
        ]
    return out


def family(task: str) -> str:
    """Task family = the app a task name starts with (as upstream groups them)."""
    for prefix in ("SimpleCalendar", "SimpleSms", "Turn"):
        if task.startswith(prefix):
            return "System" if prefix == "Turn" else prefix
    match = re.match(r"[A-Z][a-z]+", task)
    return match.group(0) if match else task


def _and_list(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def derived_fields(params: dict[str, Any]) -> dict[str, Any]:
    """Slots wordings may use beyond the task's own params (other spellings of the same values)."""
    out: dict[str, Any] = dict(params)
    rows = params.get("row_objects") or []
    if rows and "amount" in rows[0]:
        names = [str(r["name"]) for r in rows]
        out.update(names=", ".join(names), names_and=_and_list(names))
        out["names_quoted"] = _and_list([f'"{n}"' for n in names])
        out["expenses_listed"] = _and_list(
            [
                f"{r['name']} (${r['amount'] / 100}, {CATEGORIES[r['category']]}, note: {r['note']})"
                for r in rows
            ]
        )
        first = rows[0]
        out.update(
            name=first["name"],
            amount_dollars=f"${first['amount'] / 100}",
            category_name=CATEGORIES[first["category"]],
            note=first["note"],
        )
    if rows and "directions" in rows[0]:  # Broccoli recipes
        titles = [str(r["title"]) for r in rows]
        out.update(titles=", ".join(titles), titles_and=_and_list(titles))
        out["titles_quoted"] = _and_list([f'"{t}"' for t in titles])
        kind = params.get("text_representation_type")
        if kind:
            out["recipes_text"] = recipe.rows_as_text(rows, kind)
    for suffix in ("", "1", "2"):  # media tasks: songs (Retro Music) or video files (VLC)
        files = params.get(f"files{suffix}")
        if isinstance(files, list) and files:
            if all(str(f).endswith(".mp3") for f in files):
                songs = [str(f).split(".")[0] for f in files]
                out.update(songs=", ".join(songs), songs_and=_and_list(songs))
            else:
                names = [str(f) for f in files]
                out[f"files{suffix}_listed"] = ", ".join(names)
                out[f"files{suffix}_and"] = _and_list(names)
    waypoints = params.get("waypoints")
    if isinstance(waypoints, list) and waypoints:  # OsmAndTrack's places, in order
        out.update(waypoints_listed=", ".join(waypoints), waypoints_and=_and_list(waypoints))
    name = params.get("name")
    if isinstance(name, str):
        parts = name.split(" ", 1)
        out.update(first_name=parts[0], last_name=parts[1] if len(parts) > 1 else "")
    number = params.get("number")
    if isinstance(number, str) and re.fullmatch(r"\+1\d{10}", number):
        out["number_dashed"] = f"+1 {number[2:5]}-{number[5:8]}-{number[8:]}"
    for key in ("minutes", "seconds"):
        if isinstance(params.get(key), int):
            out[f"{key}2"] = f"{params[key]:02d}"
    if all(isinstance(params.get(k), int) for k in ("year", "month", "day", "hour")):
        start = datetime.datetime(params["year"], params["month"], params["day"], params["hour"])
        end = start + datetime.timedelta(minutes=int(params.get("duration_mins", 0)))
        out.update(month_name=f"{start:%B}", end_hm=f"{end:%H:%M}")
        out["hour12"] = f"{(start.hour % 12) or 12}{'am' if start.hour < 12 else 'pm'}"
    if "day_of_week" not in out and rows and "start_ts" in rows[0]:
        # Upstream's relative-day goal names the event's weekday from its row, not a param.
        start = datetime.datetime.fromtimestamp(rows[0]["start_ts"], datetime.UTC)
        out["day_of_week"] = f"{start:%A}"
    return out


def applies(wording: Wording, params: dict[str, Any]) -> bool:
    return all(params.get(k) == v for k, v in wording.when)


OWN_PLAN = "own"


class StyledPlanner(offline.OfflinePlanner):
    """The offline planner, but its first plan is a model's, worded in a plan style."""

    def __init__(self, plan: list[str], style: str) -> None:
        super().__init__()
        self._styled = plan
        self._style = style

    def generate_initial_plan(self, goal, observation, retrieved_plan) -> Plan:
        del goal, observation, retrieved_plan
        return Plan(list(self._styled), rationale=f"{self._style} plan style", source="model")


def styled_plan(task: Any, seed: int, goal: str, style: str) -> list[str]:
    trace: list[plan_styles.TraceStep] = []
    if style in plan_styles.TRACE_STYLES or style in ("open_then_goal", "verify"):
        trace = plan_styles.reference_trace(type(task), dict(task.params), seed)
    app = plan_styles.plan_app(list(getattr(task, "app_names", ()) or ()), trace)
    return [s.text for s in plan_styles.plan_for(style, goal, app, trace)]


def run_episode(
    task_name: str, seed: int, wording: Wording | None, style: str = OWN_PLAN
) -> Outcome:
    """One episode of `task_name` (params drawn for `seed`) in `wording` (None: its own)."""
    task_cls = registry.TaskRegistry().get_registry()[task_name]
    env = SimEnv(seed=seed, render=False)
    try:
        task = suite_utils.create_suite({task_name: task_cls}, seed=seed, env=env)[task_name][0]
        task.params.update(dict(wording.params) if wording else {})
        if wording is None:
            wording = Wording(task_name, -1, task.goal, ORIGINAL, "template")
        else:
            text = wording.text.format(**derived_fields(task.params))
            task.__class__ = type(task_name, (task_cls,), {"goal": property(lambda _: text)})
        roles = offline.build_offline_roles()
        planner = roles.planner
        if style != OWN_PLAN:
            planner = StyledPlanner(styled_plan(task, seed, task.goal, style), style)
        agent = celil_agent.CelilAgent(
            env,
            PerceptionModule(ocr="off"),
            planner,
            roles.action_generator,
            roles.verifier,
            vision_selector=roles.element_selector,
            screen_checker=OfflinePlanner(),
            transition_pause=0.0,
        )
        episode = suite_utils.run_task(task, agent, print_fn=lambda _: None)
        summary = agent.episode_summary()
        return Outcome(
            wording=wording,
            seed=seed,
            goal=str(episode["goal"]),
            success=bool(episode["is_successful"]),
            status=summary.get("status"),
            reason=summary.get("infeasible_reason"),
            error=episode.get("error"),
        )
    finally:
        env.close()


def plan_runs(
    wordings: dict[str, list[Wording]], tasks: Iterable[str], seeds: Sequence[int], split: str
) -> list[tuple[str, int, Wording | None]]:
    """(task, seed, wording) triples; `when` filters are checked once params are drawn."""
    runs: list[tuple[str, int, Wording | None]] = []
    for task in tasks:
        for seed in seeds:
            runs.append((task, seed, None))
            runs += [(task, seed, w) for w in wordings[task] if split in ("all", w.split)]
    return runs


def run_all(
    runs: Sequence[tuple[str, int, Wording | None]], style: str = OWN_PLAN
) -> list[Outcome]:
    registry_ = registry.TaskRegistry().get_registry()
    outcomes = []
    for task, seed, wording in runs:
        if wording is not None:
            task_obj = suite_utils.create_suite({task: registry_[task]}, seed=seed)[task][0]
            if not applies(wording, task_obj.params):
                continue
        outcomes.append(run_episode(task, seed, wording, style))
    return outcomes


def table(outcomes: Sequence[Outcome]) -> list[str]:
    """Rows of family x split: episodes, success rate, false completions."""
    cells: dict[tuple[str, str], list[Outcome]] = {}
    for o in outcomes:
        cells.setdefault((family(o.wording.task), o.wording.split), []).append(o)
        cells.setdefault(("ALL", o.wording.split), []).append(o)
    lines = [f"{'family':<16}{'split':<9}{'eps':>5}{'success':>9}{'false_compl':>13}"]
    for (fam, split), group in sorted(cells.items(), key=lambda kv: (kv[0][0] == "ALL", kv[0])):
        n = len(group)
        ok = sum(o.success for o in group) / n
        false = sum(o.false_completion for o in group)
        lines.append(f"{fam:<16}{split:<9}{n:>5}{ok:>9.2f}{false:>8} ({false / n:.0%})")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="*", default=None)
    parser.add_argument("--seeds", nargs="*", type=int, default=[0])
    parser.add_argument("--split", choices=("dev", "heldout", "all"), default="all")
    parser.add_argument("--failures", action="store_true", help="list every failed episode")
    parser.add_argument(
        "--plan_style",
        default=OWN_PLAN,
        choices=(OWN_PLAN, *plan_styles.STYLES),
        help="whose plan: the offline planner's own, or a model's in a plan style",
    )
    args = parser.parse_args(argv)
    wordings = load_wordings()
    unknown = sorted(set(args.tasks or ()) - set(wordings))
    if unknown:
        print(f"error: no wordings for {', '.join(unknown)}", file=sys.stderr)
        return 2
    runs = plan_runs(wordings, args.tasks or sorted(wordings), args.seeds, args.split)
    outcomes = run_all(runs, args.plan_style)
    print(f"plan style: {args.plan_style}")
    print("\n".join(table(outcomes)))
    if args.failures:
        for o in outcomes:
            if not o.success:
                mark = "FALSE COMPLETE" if o.false_completion else (o.status or o.error or "-")
                print(
                    f"- {o.wording.task} [{o.wording.split} #{o.wording.index}] {mark}: {o.goal!r}"
                )
                if o.reason:
                    print(f"    reason: {o.reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
