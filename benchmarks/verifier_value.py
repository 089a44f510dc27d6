"""What the verifier gate is worth: success, cost and errors per verification policy.

Run: `python benchmarks/verifier_value.py [--p 0.3] [--q 0.8] [--progress_wrong 0.2] [--rho 0 0.5]
[--seeds 0] [--tasks A B] [--policies off adaptive parallel lazy] [--plan_style all|STYLE ...]`.

A scripted model (benchmarks/scripted_model.py) answers every role over HTTP on 127.0.0.1 from
each task's reference solution; its executor is wrong with probability p and each verifier
persona judges with accuracy q (independently, or sharing one judgement with probability rho).
The agent is the real CelilAgent with its OpenAI backend, JSON executor, gate, evidence checks
and ledger, over the whole sim suite. The planner writes its plans in a plan style
(benchmarks/plan_styles.py) and answers progress questions wrongly with probability
`progress_wrong`. Printed per plan style, policy and judge regime: success with its standard
error, false completions, done-but-unclaimed episodes (the task's check passed, the agent never
said complete), model calls and estimated tokens per step, wrong actions stopped, good actions
rejected, replans per episode. A last row per style runs the default policy with every answer
right.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import dataclasses
import logging
import math
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install
sys.path.insert(0, str(Path(__file__).resolve().parent))

import call_purposes
import plan_styles
import scripted_model as sm
from goal_check_truth import split_of

from android_world.agents import registry
from android_world.env.sim.sim_env import SimEnv
from android_world.harness import config, suite_utils
from android_world.task_evals.registry import TaskRegistry

POLICIES = {
    "off": {"verification": "off"},
    "adaptive": {"verifier_mode": "adaptive"},
    "parallel": {"verifier_mode": "parallel"},
    "lazy": {"verifier_mode": "lazy"},
    "joint": {"verifier_mode": "joint"},
    "default": {},  # config/default.yaml's own policy
    # The model-free executor as a second opinion in the gate (issue 30, `second_opinion`).
    "second_off": {"second_opinion": "off", "second_opinion_irreversible": False},  # before stop 43
    "second_skip": {"second_opinion": "skip", "second_opinion_irreversible": False},
    "second_vote": {"second_opinion": "vote", "second_opinion_irreversible": False},
    "second_strict": {"second_opinion": "strict", "second_opinion_irreversible": False},
    "second_irr": {"second_opinion": "vote", "second_opinion_irreversible": True},
}


@dataclasses.dataclass
class Row:
    policy: str
    regime: str
    style: str = "neutral"
    episodes: int = 0
    successes: float = 0.0
    false_complete: int = 0
    unclaimed: int = 0
    scores: list[float] = dataclasses.field(default_factory=list)
    failures: list[str] = dataclasses.field(default_factory=list)
    by_episode: dict[str, float] = dataclasses.field(default_factory=dict)
    steps: int = 0
    calls: int = 0
    tokens: int = 0
    prompt_tokens: int = 0
    wrong_gated: int = 0
    wrong_stopped: int = 0
    wrong_unvoted: int = 0
    good_gated: int = 0
    good_rejected: int = 0
    replans: int = 0
    post_check_failures: int = 0
    calls_by_role: dict[str, int] = dataclasses.field(default_factory=dict)
    prompt_tokens_by_role: dict[str, int] = dataclasses.field(default_factory=dict)
    # Per skip rule (skip_rule): proposals it let run unvoted, and how many of them were wrong.
    skips: dict[str, list[int]] = dataclasses.field(default_factory=dict)
    # Per second-opinion verdict: [proposals, wrong, wrong that ran, good, good stopped].
    opinions: dict[str, list[int]] = dataclasses.field(default_factory=dict)
    seconds: float = 0.0
    # Calls by what they asked for (call_purposes), votes by the action judged, sub-goals by
    # who found them done, episodes by what ended them.
    purposes: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    vote_targets: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    advanced_by: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    ended_by: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)

    @property
    def success(self) -> float:
        return self.successes / max(self.episodes, 1)

    @property
    def standard_error(self) -> float:
        """Of the mean success over episodes (binomial-like; scores are 0 or 1)."""
        n = len(self.scores)
        if n < 2:
            return 0.0
        mean = sum(self.scores) / n
        variance = sum((x - mean) ** 2 for x in self.scores) / (n - 1)
        return math.sqrt(variance / n)

    def cells(self) -> list[str]:
        steps = max(self.steps, 1)
        return [
            self.style,
            self.policy,
            self.regime,
            str(self.episodes),
            f"{self.success:.2f} ± {self.standard_error:.2f}",
            str(self.false_complete),
            str(self.unclaimed),
            f"{self.calls / steps:.2f}",
            f"{self.tokens / steps / 1000:.1f}k",
            f"{self.wrong_stopped}/{self.wrong_gated}",
            f"{self.good_rejected}/{self.good_gated}",
            f"{self.replans / max(self.episodes, 1):.2f}",
            str(self.post_check_failures),
        ]


HEADERS = [
    "plan style",
    "policy",
    "judges",
    "episodes",
    "success ± SE",
    "false done",
    "done unclaimed",
    "calls/step",
    "tok/step",
    "wrong stopped",
    "good rejected",
    "replans/ep",
    "post-check fails",
]


def models_overrides(url: str) -> list[str]:
    roles = {
        "maestro": sm.PLANNER_MODEL,
        "section_leader": sm.EXECUTOR_MODEL,
        "verifiers": sm.VERIFIER_MODEL,
    }
    out = []
    for role, model in roles.items():
        out += [
            f"models.{role}.backend=openai",
            f"models.{role}.model={model}",
            f"models.{role}.base_url={url}",
            f"models.{role}.max_retries=0",
            f"models.{role}.structured_output=none",
        ]
    return out


class _ExecutionTap:
    """Tells the world about every action that really runs (wraps the env's execute_action)."""

    def __init__(self, env: SimEnv, world: sm.ScriptedWorld) -> None:
        self._execute = env.execute_action
        self._world = world

    def __call__(self, action: Any) -> None:
        self._world.run_action(self._execute, action)


def _label(proposals: list[dict[str, Any]] | None) -> str | None:
    if not proposals:
        return None
    thought = proposals[-1].get("thought") or ""
    for label in (sm.WRONG, sm.RECOVERY, sm.CORRECT):
        if f"scripted {label}" in thought:
            return label
    return None


_SKIP_RULES = (
    ("is undone by another step", "navigation"),
    ("types the goal's own words", "goal's words typed"),
    ("which the goal names", "control the goal names"),
    ("opens another screen", "list row"),
    ("every field holds the goal's own words", "form of the goal's words"),
    ("it selects it, and back undoes it", "list row long-pressed"),
    ("it opens a menu or goes up a screen", "menu control"),
    ("tapping it again undoes it", "goal's switch"),
    ("it opens an editor that saves nothing", "new-record button"),
    ("the model-free executor proposes the same action", "second opinion agrees"),
)


def skip_rule(reason: str) -> str:
    """The skip rule behind a `vote_skipped` reason (navigation split by action type)."""
    for marker, rule in _SKIP_RULES:
        if marker in reason:
            return f"{rule}: {reason.split()[0]}" if rule == "navigation" else rule
    return "other: " + reason[:40]


def score_episode(row: Row, episode: dict[str, Any]) -> None:
    row.episodes += 1
    score = float(episode.get("is_successful") or 0.0)
    row.successes += score
    row.scores.append(score)
    row.by_episode[f"{episode.get('name')}@{episode.get('seed')}"] = score
    false_complete, _ = suite_utils.false_claims(episode)
    row.false_complete += int(bool(false_complete))
    unclaimed = suite_utils.done_unclaimed(episode)
    row.unclaimed += int(unclaimed)
    if score < 1.0 or false_complete or unclaimed:
        data = episode.get("episode_data") or {}
        reasons = [r for r in data.get("infeasible_reason") or [] if r]
        row.failures.append(
            f"{episode.get('name')}: claimed {episode.get('claimed')}, raw {episode.get('raw_score')}, "
            f"{episode.get('episode_length')}/{episode.get('step_budget')} steps"
            + (f", {reasons[-1][:160]}" if reasons else "")
        )
    row.steps += int(episode.get("episode_length") or 0)
    usage = episode.get("usage") or {}
    row.calls += int(usage.get("model_calls") or 0)
    row.tokens += int(usage.get("prompt_tokens") or 0) + int(usage.get("completion_tokens") or 0)
    row.prompt_tokens += int(usage.get("prompt_tokens") or 0)
    for role, totals in (usage.get("by_role") or {}).items():
        row.calls_by_role[role] = row.calls_by_role.get(role, 0) + int(totals["model_calls"])
        tokens = int(totals.get("prompt_tokens") or 0)
        row.prompt_tokens_by_role[role] = row.prompt_tokens_by_role.get(role, 0) + tokens
    data = episode.get("episode_data") or {}
    gates = data.get("gate") or []
    proposals = data.get("proposals") or []
    outcomes = data.get("outcome") or []
    skipped = data.get("vote_skipped") or []
    verdicts = data.get("second_opinion") or []
    for i, gate in enumerate(gates):
        if gate not in ("pass", "reject"):
            continue
        label = _label(proposals[i] if i < len(proposals) else None)
        verdict = verdicts[i] if i < len(verdicts) else None
        if verdict and label is not None:
            wrong = label == sm.WRONG
            tally = row.opinions.setdefault(str(verdict), [0, 0, 0, 0, 0])
            tally[0] += 1
            tally[1] += wrong
            tally[2] += wrong and gate == "pass"
            tally[3] += not wrong
            tally[4] += (not wrong) and gate == "reject"
        reason = skipped[i] if i < len(skipped) else None
        if reason and label is not None:
            counts = row.skips.setdefault(skip_rule(str(reason)), [0, 0])
            counts[0] += 1
            counts[1] += label == sm.WRONG
        if label == sm.WRONG:
            row.wrong_gated += 1
            row.wrong_stopped += gate == "reject"
            row.wrong_unvoted += bool(i < len(skipped) and skipped[i])
        elif label is not None:
            row.good_gated += 1
            row.good_rejected += gate == "reject"
    row.post_check_failures += sum(1 for o in outcomes if o == "post_check_failed")
    count_progress(row, data)
    steps = data.get("rehearsal") or []
    row.replans += sum(1 for r in steps if r)


def count_progress(row: Row, data: dict[str, Any]) -> None:
    """Who found each sub-goal done (accepted evidence, by its checker) and what ended the
    episode (the claiming step's `completed_by`, else its outcome)."""
    for step_evidence in data.get("evidence") or []:
        for item in step_evidence or []:
            if isinstance(item, dict) and item.get("accepted"):
                row.advanced_by[str(item.get("by"))] += 1
    statuses = data.get("status") or []
    for i, status in enumerate(statuses):
        if status:
            by = (data.get("completed_by") or [None] * len(statuses))[i]
            outcome = (data.get("outcome") or [None] * len(statuses))[i]
            row.ended_by[f"{status} ({by or outcome})"] += 1
            break


def run_row(
    policy: str,
    rates: sm.Rates,
    tasks: list[str] | None,
    regime: str,
    seeds: list[int],
    no_memory: bool = False,
    profile: str | None = None,
) -> Row:
    row = Row(policy, regime, rates.plan_style)
    started = time.perf_counter()
    # As the default `memory: fresh`: one memory per run, empty at its start, so a template's
    # later parameter draws may reuse the plan its first verified success stored.
    memory_dir = tempfile.TemporaryDirectory(prefix="celil-vv-memory-")
    memory_path = None if no_memory else str(Path(memory_dir.name) / "episodic_memory.db")
    for seed in seeds:
        env = SimEnv(seed=seed, render=False, profile=profile)
        world = sm.ScriptedWorld(env, dataclasses.replace(rates, seed=seed))
        tally = call_purposes.PurposeTally()
        server = sm.ScriptedServer(world, answer_fn=tally)
        try:
            cfg, _ = config.load_config(config.DEFAULT_CONFIG_PATH, models_overrides(server.url))
            context = registry.RunContext(models=cfg.models, seed=seed, log=lambda _line: None)
            agent = registry.get_agent(
                "celil_agent",
                env,
                context=context,
                memory="off" if memory_path is None else "shared",
                episodic_memory_path=memory_path,
                executor_format="json",
                **POLICIES[policy],
            )
            agent.set_task = world.set_task  # the runner's hook: the world learns the task
            env.execute_action = _ExecutionTap(env, world)
            suite = suite_utils.create_suite(
                TaskRegistry().get_registry("sim"),
                n_task_combinations=1,
                seed=30 + seed,
                tasks=tasks,
            )
            for episode in suite_utils.run(
                suite, agent, return_full_episode_data=True, print_fn=lambda _line: None
            ):
                score_episode(row, episode)
        finally:
            server.close()
            env.close()
            row.purposes.update(tally.counts)
            row.vote_targets.update(tally.votes_by_action)
    memory_dir.cleanup()
    row.seconds = time.perf_counter() - started
    return row


def skip_tradeoff(row: Row) -> list[tuple[str, int, int, float, float]]:
    """Per skip rule: (rule, votes saved, wrong actions it ran, calls/step a vote on its
    proposals would add, wrong actions that would still run at the row's own vote pass rate)."""
    voted_wrong = row.wrong_gated - row.wrong_unvoted
    passed = voted_wrong - row.wrong_stopped
    pass_rate = passed / voted_wrong if voted_wrong else 0.0
    steps = max(row.steps, 1)
    return [
        (rule, count, wrong, count / steps, wrong * pass_rate)
        for rule, (count, wrong) in sorted(row.skips.items(), key=lambda kv: -kv[1][1])
    ]


def print_skips(row: Row) -> None:
    """The skip rules' trade: what each saves against the wrong actions it lets run."""
    voted_wrong = row.wrong_gated - row.wrong_unvoted
    print(
        f"    wrong actions voted on: {voted_wrong}, passed a vote: "
        f"{voted_wrong - row.wrong_stopped}; run unvoted: {row.wrong_unvoted}"
    )
    print("    | skip rule | votes saved | wrong run | +calls/step if voted | wrong run if voted |")
    for rule, count, wrong, calls, left in skip_tradeoff(row):
        print(f"    | {rule} | {count} | {wrong} | +{calls:.3f} | {left:.1f} |")


def paired_gain(gated: Row, off: Row) -> tuple[float, float, int]:
    """Success with the gate minus success without it, over the episodes both rows ran (the
    same task draws and seeds), with the standard error of the paired difference."""
    keys = sorted(set(gated.by_episode) & set(off.by_episode))
    diffs = [gated.by_episode[k] - off.by_episode[k] for k in keys]
    n = len(diffs)
    if n < 2:
        return (diffs[0] if diffs else 0.0), 0.0, n
    mean = sum(diffs) / n
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, math.sqrt(variance / n), n


def table(rows: list[Row]) -> str:
    cells = [HEADERS] + [r.cells() for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(HEADERS))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(line, widths)) + " |" for line in cells]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def _run_unit(unit: tuple[str, sm.Rates, str], common: tuple) -> Row:
    policy, rates, regime = unit
    tasks, seeds, no_memory, profile = common
    logging.disable(logging.WARNING)
    row = run_row(policy, rates, tasks, regime, seeds, no_memory, profile)
    # The row's cells too, so a long sweep that is cut short still leaves its finished rows.
    print(
        f"  {rates.plan_style:14s} {policy:9s} {regime:11s} {row.seconds:6.1f}s  "
        + " | ".join(row.cells()),
        file=sys.stderr,
    )
    return row


def run_rows(units: list[tuple[str, sm.Rates, str]], common: tuple, jobs: int) -> list[Row]:
    """Every row, in order; `jobs` > 1 runs rows in that many processes (each row keeps its own
    phones, scripted server and memory, so rows are independent)."""
    if jobs <= 1:
        return [_run_unit(unit, common) for unit in units]
    context = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
        return list(pool.map(_run_unit, units, [common] * len(units)))


def styles_arg(values: list[str]) -> list[str]:
    """`all` or plan style names, in plan_styles.STYLES order."""
    wanted = set(plan_styles.STYLES) if "all" in values else set(values)
    unknown = wanted - set(plan_styles.STYLES)
    if unknown:
        raise SystemExit(
            f"unknown plan style {sorted(unknown)[0]!r}; choose from all, "
            + ", ".join(plan_styles.STYLES)
        )
    return [s for s in plan_styles.STYLES if s in wanted]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=float, default=0.3, help="executor wrong rate")
    parser.add_argument("--q", type=float, default=0.8, help="persona accuracy")
    parser.add_argument(
        "--progress_wrong", type=float, default=0.2, help="planner progress answers wrong rate"
    )
    parser.add_argument("--rho", type=float, nargs="+", default=[0.0, 0.5])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--tasks", nargs="*", default=None)
    parser.add_argument("--policies", nargs="+", default=list(POLICIES), choices=list(POLICIES))
    parser.add_argument(
        "--plan_style",
        nargs="+",
        default=["neutral"],
        help="how the scripted planner words its plans: all, or some of "
        + ", ".join(plan_styles.STYLES),
    )
    parser.add_argument("--no_all_right", action="store_true", help="skip the p=0, q=1 rows")
    parser.add_argument(
        "--failures",
        action="store_true",
        help="list every failed, falsely claimed or done-but-unclaimed episode",
    )
    parser.add_argument("--show_heldout", action="store_true", help="with --failures")
    parser.add_argument("--only_all_right", action="store_true", help="only the p=0, q=1 rows")
    parser.add_argument(
        "--no_memory", action="store_true", help="no episodic memory (every episode plans anew)"
    )
    parser.add_argument(
        "--sim_profile", default=None, help="a sim profile (--list profiles), e.g. vendor"
    )
    parser.add_argument("--jobs", type=int, default=1, help="rows run in this many processes")
    parser.add_argument(
        "--joint_malformed",
        type=float,
        default=0.05,
        help="share of joint votes the scripted judges write in a shape nothing can read",
    )
    parser.add_argument(
        "--all_right_policies",
        nargs="+",
        default=["default"],
        choices=list(POLICIES),
        help="policies of the p=0, q=1 rows (default: the config's own)",
    )
    parser.add_argument(
        "--skips", action="store_true", help="per skip rule: votes it saved, wrong actions it ran"
    )
    parser.add_argument(
        "--purposes", action="store_true", help="also the vote calls by the action they judged"
    )
    args = parser.parse_args(argv)
    styles = styles_arg(args.plan_style)
    logging.disable(logging.WARNING)
    units: list[tuple[str, sm.Rates, str]] = []
    for style in styles:
        for rho in [] if args.only_all_right else args.rho:
            regime = "independent" if rho == 0 else f"rho={rho:g}"
            for policy in args.policies:
                rates = sm.Rates(
                    p=args.p,
                    q=args.q,
                    rho=rho,
                    plan_style=style,
                    progress_wrong=args.progress_wrong,
                    joint_malformed=args.joint_malformed,
                )
                units.append((policy, rates, regime))
        if not args.no_all_right:
            for policy in args.all_right_policies:
                units.append((policy, sm.Rates(p=0.0, q=1.0, plan_style=style), "all right"))
    common = (args.tasks, args.seeds, args.no_memory, args.sim_profile)
    rows = run_rows(units, common, args.jobs)
    memory = "off" if args.no_memory else "fresh per row, shared across its seeds"
    print(
        f"p={args.p} q={args.q} progress_wrong={args.progress_wrong} seeds={args.seeds} "
        f"memory={memory} profile={args.sim_profile or 'default'} cores={os.cpu_count()}"
    )
    print(table(rows))
    for row in rows:
        off = next(
            (
                r
                for r in rows
                if r.policy == "off" and (r.style, r.regime) == (row.style, row.regime)
            ),
            None,
        )
        if off is not None and row.policy != "off":
            gain, error, n = paired_gain(row, off)
            print(
                f"{row.style} {row.policy} {row.regime}: success gain over off {gain:+.3f} "
                f"± {error:.3f} (paired, {n} episodes)"
            )
    for row in rows:
        steps = max(row.steps, 1)
        roles = ", ".join(f"{k} {v / steps:.2f}" for k, v in sorted(row.calls_by_role.items()))
        by_role = ", ".join(
            f"{k} {v / steps:.0f}" for k, v in sorted(row.prompt_tokens_by_role.items())
        )
        print(
            f"{row.style} {row.policy} {row.regime}: calls/step by role: {roles}; "
            f"prompt tokens/step {row.prompt_tokens / steps:.0f} ({by_role}); "
            f"wrong actions let through without a vote: {row.wrong_unvoted}"
        )
        print(f"    calls/step by purpose: {call_purposes.per_step_line(row.purposes, row.steps)}")
        print(f"    sub-goals found done by: {dict(row.advanced_by.most_common())}")
        print(f"    episodes ended by: {dict(row.ended_by.most_common())}")
        if args.purposes:
            targets = ", ".join(f"{k} {v}" for k, v in row.vote_targets.most_common(25))
            print(f"    vote calls by action judged (top 25): {targets}")
        if args.skips:
            print_skips(row)
        for verdict, (n, wrong, ran, good, stopped) in sorted(row.opinions.items()):
            print(
                f"    second opinion {verdict}: {n} proposals ({n / steps:.2f}/step), wrong "
                f"{wrong} (ran {ran}), good {good} (stopped {stopped})"
            )
        if args.failures:
            # Held-out tasks' failures stay hidden while rules are tuned; their count shows.
            hidden = [f for f in row.failures if split_of(f.split("_")[0]) == "heldout"]
            for line in row.failures:
                if line not in hidden or args.show_heldout:
                    print(f"    {line}")
            if hidden and not args.show_heldout:
                print(f"    ({len(hidden)} held-out failures not shown; --show_heldout)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
