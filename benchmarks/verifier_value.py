"""What the verifier gate is worth: success, cost and errors per verification policy.

Run: `python benchmarks/verifier_value.py [--p 0.3] [--q 0.8] [--rho 0 0.5] [--seeds 0]
[--tasks A B] [--policies off adaptive parallel lazy]`.

A scripted model (benchmarks/scripted_model.py) answers every role over HTTP on 127.0.0.1 from
each task's reference solution; its executor is wrong with probability p and each verifier
persona judges with accuracy q (independently, or sharing one judgement with probability rho).
The agent is the real CelilAgent with its OpenAI backend, JSON executor, gate, evidence checks
and ledger, over the whole sim suite. Printed per policy and judge regime: success, false
completions, model calls and estimated tokens per step, wrong actions stopped, good actions
rejected, replans per episode. A last row runs the default policy with every answer right.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install
sys.path.insert(0, str(Path(__file__).resolve().parent))

import scripted_model as sm

from android_world import config, suite_utils
from android_world.agents import registry
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals.registry import TaskRegistry

POLICIES = {
    "off": {"verification": "off"},
    "adaptive": {"verifier_mode": "adaptive"},
    "parallel": {"verifier_mode": "parallel"},
    "lazy": {"verifier_mode": "lazy"},
}


@dataclasses.dataclass
class Row:
    policy: str
    regime: str
    episodes: int = 0
    successes: float = 0.0
    false_complete: int = 0
    steps: int = 0
    calls: int = 0
    tokens: int = 0
    wrong_gated: int = 0
    wrong_stopped: int = 0
    wrong_unvoted: int = 0
    good_gated: int = 0
    good_rejected: int = 0
    replans: int = 0
    post_check_failures: int = 0
    calls_by_role: dict[str, int] = dataclasses.field(default_factory=dict)
    seconds: float = 0.0

    def cells(self) -> list[str]:
        steps = max(self.steps, 1)
        return [
            self.policy,
            self.regime,
            f"{self.successes / max(self.episodes, 1):.2f}",
            str(self.false_complete),
            f"{self.calls / steps:.2f}",
            f"{self.tokens / steps / 1000:.1f}k",
            f"{self.wrong_stopped}/{self.wrong_gated}",
            f"{self.good_rejected}/{self.good_gated}",
            f"{self.replans / max(self.episodes, 1):.2f}",
            str(self.post_check_failures),
        ]


HEADERS = [
    "policy",
    "judges",
    "success",
    "false done",
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
        self._execute(action)
        self._world.on_execute(action)


def _label(proposals: list[dict[str, Any]] | None) -> str | None:
    if not proposals:
        return None
    thought = proposals[-1].get("thought") or ""
    for label in (sm.WRONG, sm.RECOVERY, sm.CORRECT):
        if f"scripted {label}" in thought:
            return label
    return None


def score_episode(row: Row, episode: dict[str, Any]) -> None:
    row.episodes += 1
    row.successes += float(episode.get("is_successful") or 0.0)
    false_complete, _ = suite_utils.false_claims(episode)
    row.false_complete += int(bool(false_complete))
    row.steps += int(episode.get("episode_length") or 0)
    usage = episode.get("usage") or {}
    row.calls += int(usage.get("model_calls") or 0)
    row.tokens += int(usage.get("prompt_tokens") or 0) + int(usage.get("completion_tokens") or 0)
    for role, totals in (usage.get("by_role") or {}).items():
        row.calls_by_role[role] = row.calls_by_role.get(role, 0) + int(totals["model_calls"])
    data = episode.get("episode_data") or {}
    gates = data.get("gate") or []
    proposals = data.get("proposals") or []
    outcomes = data.get("outcome") or []
    skipped = data.get("vote_skipped") or []
    for i, gate in enumerate(gates):
        if gate not in ("pass", "reject"):
            continue
        label = _label(proposals[i] if i < len(proposals) else None)
        if label == sm.WRONG:
            row.wrong_gated += 1
            row.wrong_stopped += gate == "reject"
            row.wrong_unvoted += bool(i < len(skipped) and skipped[i])
        elif label is not None:
            row.good_gated += 1
            row.good_rejected += gate == "reject"
    row.post_check_failures += sum(1 for o in outcomes if o == "post_check_failed")
    steps = data.get("rehearsal") or []
    row.replans += sum(1 for r in steps if r)


def run_row(
    policy: str,
    rates: sm.Rates,
    tasks: list[str] | None,
    regime: str,
    seeds: list[int],
    no_memory: bool = False,
) -> Row:
    row = Row(policy, regime)
    started = time.perf_counter()
    # As the default `memory: fresh`: one memory per run, empty at its start, so a template's
    # later parameter draws may reuse the plan its first verified success stored.
    memory_dir = tempfile.TemporaryDirectory(prefix="celil-vv-memory-")
    memory_path = None if no_memory else str(Path(memory_dir.name) / "episodic_memory.json")
    for seed in seeds:
        env = SimEnv(seed=seed, render=False)
        world = sm.ScriptedWorld(env, dataclasses.replace(rates, seed=seed))
        server = sm.ScriptedServer(world)
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
    memory_dir.cleanup()
    row.seconds = time.perf_counter() - started
    return row


def table(rows: list[Row]) -> str:
    cells = [HEADERS] + [r.cells() for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(HEADERS))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(line, widths)) + " |" for line in cells]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=float, default=0.3, help="executor wrong rate")
    parser.add_argument("--q", type=float, default=0.8, help="persona accuracy")
    parser.add_argument("--rho", type=float, nargs="+", default=[0.0, 0.5])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--tasks", nargs="*", default=None)
    parser.add_argument("--policies", nargs="+", default=list(POLICIES), choices=list(POLICIES))
    parser.add_argument("--no_all_right", action="store_true", help="skip the p=0, q=1 row")
    parser.add_argument(
        "--no_memory", action="store_true", help="no episodic memory (every episode plans anew)"
    )
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)
    rows: list[Row] = []
    for rho in args.rho:
        regime = "independent" if rho == 0 else f"rho={rho:g}"
        for policy in args.policies:
            rates = sm.Rates(p=args.p, q=args.q, rho=rho)
            rows.append(run_row(policy, rates, args.tasks, regime, args.seeds, args.no_memory))
            print(f"  {policy:9s} {regime:11s} {rows[-1].seconds:6.1f}s", file=sys.stderr)
    if not args.no_all_right:
        rows.append(
            run_row(
                "adaptive",
                sm.Rates(p=0.0, q=1.0),
                args.tasks,
                "all right",
                args.seeds,
                args.no_memory,
            )
        )
    memory = "off" if args.no_memory else "fresh per row, shared across its seeds"
    print(f"p={args.p} q={args.q} seeds={args.seeds} memory={memory} cores={os.cpu_count()}")
    print(table(rows))
    for row in rows:
        steps = max(row.steps, 1)
        roles = ", ".join(f"{k} {v / steps:.2f}" for k, v in sorted(row.calls_by_role.items()))
        print(
            f"{row.policy} {row.regime}: calls/step by role: {roles}; "
            f"wrong actions let through without a vote: {row.wrong_unvoted}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
