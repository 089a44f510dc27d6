"""Prompt size per role on typical sim screens: what marking screen text as data costs.

Run: `python benchmarks/prompt_tokens.py` (in two checkouts to compare them). A second table
gives the image tokens per call of each image setting (executor history, a vote's screenshot).

Each role's prompt is rendered for three screens a delete or send task passes through (Markor's
note list in selection mode, Pro Expense's list, a Simple SMS thread), with a plan, three earlier
steps and a fact in the context, as the agent builds them. Printed per role: characters, the
ledger's estimate (4 characters a token, what `usage` shows for servers that report none), and,
when llama-cpp-python and the SmolLM2 GGUF of the real-model tier are installed, the tokens a
real BPE tokenizer counts (CELIL_REALMODEL_GGUF).
"""

from __future__ import annotations

import logging
import math
import os
import random
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install

from android_world.agents.custom import factory
from android_world.agents.custom.celil_protocols import FailureContext, ProposedAction
from android_world.agents.custom.dialects import uitars
from android_world.agents.custom.memory.celil_memory import StepRecord, WorkingMemory
from android_world.agents.custom.model_clients.ledger import image_tokens
from android_world.agents.custom.model_clients.payload import json_instruction_chars
from android_world.agents.custom.roles import celil_joint_votes, celil_maestro, celil_perception
from android_world.agents.custom.roles import celil_quality_control as qc
from android_world.agents.custom.roles.celil_section_leader import UITarsActionGenerator
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals.registry import TaskRegistry

# (task, the reference solution's step whose screen is measured)
SCREENS = (("MarkorDeleteNote", 2), ("ExpenseDeleteMultiple", 4), ("SimpleSmsReply", 3))


def _screen(env: SimEnv, name: str, step: int) -> tuple[Any, Any, list[Any]]:
    """(task, the action the reference solution takes there, the actions before it)."""
    task_class = TaskRegistry().get_registry("sim")[name]
    random.seed(30)
    task = task_class(task_class.generate_random_params())
    task.initialize_task(env)
    done = []
    for n, action in enumerate(task.oracle_actions(env)):
        if n == step:
            return task, action, done
        env.execute_action(action)
        done.append(action)
    raise RuntimeError(f"{name} has no step {step}")


def prompts(env: SimEnv, name: str, step: int) -> dict[str, str]:
    task, action, before = _screen(env, name, step)
    perception = celil_perception.PerceptionModule(ocr="off")
    obs = perception.process_observation(env.get_state(), env.foreground_activity_name)
    goal = task.goal
    sub_goal = "Do the whole task as asked"
    memory = WorkingMemory(goal)
    memory.set_plan(["Open the app", sub_goal])
    memory.mark_done("Open the app")
    for n, earlier in enumerate(before[-3:], 1):
        memory.add_step(StepRecord(n, sub_goal, qc.describe_action(earlier, []), "ok", score=9.0))
    memory.add_fact(f"{sub_goal}: {goal[:60]}")
    memory.note_screen("s", "[app] " + " | ".join(e.text or "" for e in obs.ui_elements[:20]))
    context = memory.get_context_summary(3)
    proposal = ProposedAction(action, thought="The target is on screen; tap it.")
    irreversible = qc.irreversible_reason(proposal, obs)
    executor = UITarsActionGenerator(object(), executor_format="json")
    failure = FailureContext(
        goal=goal,
        plan=memory.get_plan(),
        done_sub_goals=memory.done_sub_goals(),
        failed_sub_goal=sub_goal,
        action=qc.describe_action(action, obs.ui_elements),
        reasons=["verifier score 3.0 below the 7.0 gate"],
        observation=obs,
        kind="rejected",
        history_summary=memory.history_summary(3),
    )
    out = {
        "planner: initial plan": celil_maestro.initial_plan_prompt(goal, obs, None, 8),
        "planner: corrective plan": celil_maestro.corrective_plan_prompt(failure, 8),
        "planner: progress check": celil_maestro.progress_prompt(goal, sub_goal, obs, context),
        "planner: answer": celil_maestro.answer_prompt(
            goal, obs, f"{context}\n{memory.scratchpad_summary()}"
        ),
        "verifier (one persona)": qc.verifier_prompt(
            qc.DEFAULT_PERSONA_PROMPTS[qc.SKEPTIC], sub_goal, proposal, obs, context, irreversible
        ),
        "verifiers: joint (three personas)": celil_joint_votes.joint_prompt(
            {p: qc.DEFAULT_PERSONA_PROMPTS[p] for p in qc.DEFAULT_PERSONAS},
            qc.review_body(sub_goal, proposal, obs, context, irreversible),
        ),
        "executor: json": executor._json_prompt(sub_goal, obs, context),
        "executor: ui-tars": uitars.mobile_prompt(executor._instruction(sub_goal, context)),
        "vision fallback": celil_maestro.selection_prompt(sub_goal, obs),
    }
    task.tear_down(env)
    return out


def image_rows(screenshot: Any) -> list[tuple[str, int]]:
    """Image tokens per call (the ledger's 28-pixel patches) for each image setting."""
    params = factory.CelilAgentConfig()
    full = uitars.resize_for_model(screenshot, params.max_image_pixels)[0]
    vote = celil_maestro.downscale(screenshot, params.verifier_image_pixels)
    old_vote = celil_maestro.downscale(screenshot, params.max_image_pixels)
    earlier = uitars.resize_for_model(screenshot, params.history_image_pixels)[0]
    rows = [
        (f"executor: current screenshot ({params.max_image_pixels:,} px)", image_tokens(full)),
        (
            f"a vote's screenshot (verifier_image_pixels {params.verifier_image_pixels:,})",
            image_tokens(vote),
        ),
        (
            f"a vote's screenshot at the old cap ({params.max_image_pixels:,})",
            image_tokens(old_vote),
        ),
        (
            f"the planner's screenshot (planner_image_pixels {params.planner_image_pixels:,})",
            image_tokens(celil_maestro.downscale(screenshot, params.planner_image_pixels)),
        ),
    ]
    for count in (1, 2, 3):
        old = image_tokens(full) * count
        new = image_tokens(full) + image_tokens(earlier) * (count - 1)
        rows.append((f"ui-tars executor, history_images {count}: earlier ones at full size", old))
        rows.append(
            (f"ui-tars executor, history_images {count}: earlier ones at history_image_pixels", new)
        )
    return rows


def shape_rows() -> list[tuple[str, int, int]]:
    """(call, the reply shape's estimated tokens stated twice, stated once) for a server with no
    JSON mode: the prompt's own example plus the schema a client used to add, and the example
    alone (issue 30)."""
    personas = list(qc.DEFAULT_PERSONAS)
    calls = (
        ("joint vote", celil_joint_votes.joint_format(personas), celil_joint_votes.JOINT_SCHEMA),
        ("single vote", qc.VOTE_FORMAT, qc.VOTE_SCHEMA),
        ("plan", celil_maestro.PLAN_FORMAT, celil_maestro.PLAN_SCHEMA),
        ("progress check", '{"done": true or false, "evidence": "..."}', celil_maestro.DONE_SCHEMA),
    )
    rows = []
    for name, example, schema in calls:
        once = math.ceil(len(example) / 4)
        rows.append((name, once + math.ceil(json_instruction_chars(schema) / 4), once))
    return rows


def bpe_counter() -> Any:
    """A real tokenizer (SmolLM2's BPE through llama-cpp-python), or None when not installed."""
    path = os.environ.get("CELIL_REALMODEL_GGUF")
    if not path or not Path(path).exists():
        return None
    try:
        import llama_cpp
    except ImportError:
        return None
    model = llama_cpp.Llama(model_path=path, vocab_only=True, verbose=False)
    return lambda text: len(model.tokenize(text.encode("utf-8"), add_bos=False))


def main() -> int:
    logging.disable(logging.WARNING)
    count = bpe_counter()
    env = SimEnv(seed=0, render=False)
    rows: dict[str, list[tuple[int, int, int | None]]] = {}
    try:
        screenshot = env.get_state().pixels
        for name, step in SCREENS:
            for role, text in prompts(env, name, step).items():
                bpe = count(text) if count else None
                rows.setdefault(role, []).append((len(text), math.ceil(len(text) / 4), bpe))
    finally:
        env.close()
    print(f"screens: {', '.join(n for n, _ in SCREENS)} (mean over them)")
    print("| role | chars | est. tokens | BPE tokens |")
    print("|---|---|---|---|")
    for role, values in rows.items():
        chars = statistics.mean(v[0] for v in values)
        estimate = statistics.mean(v[1] for v in values)
        bpe = [v[2] for v in values if v[2] is not None]
        bpe_cell = f"{statistics.mean(bpe):.0f}" if bpe else "-"
        print(f"| {role} | {chars:.0f} | {estimate:.0f} | {bpe_cell} |")
    print("\n| reply shape, server with no JSON mode | stated twice | stated once |\n|---|---|---|")
    for name, twice, once in shape_rows():
        print(f"| {name} | {twice} | {once} |")
    print("\n| image setting | image tokens per call |\n|---|---|")
    for what, tokens in image_rows(screenshot):
        print(f"| {what} | {tokens} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
