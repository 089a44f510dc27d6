"""A synthetic run directory for the report tests (no tests here; imported by test_report_*.py).

It writes the files the harness writes (DESIGN §7) with the shapes the harness and CelilAgent
produce: Celil episodes carry 1-based event steps, votes, gates, rehearsals and model calls; plain
episodes (an oracle-like agent) carry only actions and no events; one episode raised.
"""

from __future__ import annotations

import functools
import io
import json
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

TASKS = {
    # task: (difficulty, tags) as a row override; the report reads the registry otherwise
    "SyntheticContacts": ("medium", ["data_entry"]),
    "SyntheticWifi": ("easy", ["screen_reading"]),
    "SyntheticQuestion": ("hard", ["information_retrieval", "screen_reading"]),
}


@functools.cache
def screenshot_png() -> bytes:
    """One 1080x2400 frame, encoded once and copied to every step (fast for 100 episodes)."""
    image = Image.new("RGB", (1080, 2400), (236, 240, 247))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 1080, 90), fill=(40, 44, 52))
    for i in range(6):
        top = 300 + i * 220
        draw.rectangle((60, top, 1020, top + 180), fill=(255, 255, 255), outline=(200, 200, 210))
    draw.ellipse((880, 330, 980, 430), fill=(26, 115, 232))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


def _celil_episode(name: str, goal: str, success: bool, ts0: float) -> tuple[list, list, dict]:
    """Steps (episode.json records), events (feedback.jsonl) and the agent summary."""
    plan = ["Open the Settings app", "Turn on Wi-Fi"]
    steps: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    ts = ts0

    def emit(step: int, event_type: str, **fields: Any) -> None:
        """As the run writer stamps them: the agent's 1-based counter is `agent_step`, the
        runner's 0-based step is `step`."""
        nonlocal ts
        ts += 0.05
        events.append(
            {"ts": ts, "type": event_type, **fields, "agent_step": step, "step": step - 1}
        )

    def call(step: int, role: str, latency: float) -> None:
        emit(
            step,
            "model_call",
            role=role,
            backend="ollama",
            model=f"m-{role}",
            prompt_tokens=900,
            completion_tokens=40,
            latency_s=latency,
            retries=0,
            error=None,
            cost_usd=0.0002,
            request_hash="",
        )

    actions = [
        ({"action_type": "open_app", "app_name": "Settings"}, True),
        ({"action_type": "click", "x": 930, "y": 380}, False),  # rejected by the gate
        ({"action_type": "click", "index": 4}, True),
        ({"action_type": "scroll", "direction": "down"}, True),
        ({"action_type": "input_text", "text": "hello world", "index": 2}, True),
    ]
    done: list[str] = []
    for i, (action, passed) in enumerate(actions):
        agent_step = i + 1
        if i == 0:
            call(agent_step, "maestro", 1.2)
            emit(
                agent_step,
                "plan_created",
                sub_goals=plan,
                source="model",
                rationale="wifi lives in Settings",
                warnings=[],
            )
        sub_goal = plan[0] if i == 0 else plan[1]
        call(agent_step, "section_leader", 2.0)
        proposal = {
            "action": action,
            "thought": f"Thought for step {i}: tap the toggle",
            "raw_output": "",
            "sub_goal_finished": False,
            "finished_content": None,
            "error": None,
            "is_safe": True,
        }
        emit(agent_step, "action_proposed", sub_goal=sub_goal, **proposal)
        votes = []
        for persona, score in (
            ("Pragmatist", 9.0),
            ("Skeptic", 8.0 if passed else 2.0),
            ("Efficiency Expert", 7.0),
        ):
            call(agent_step, "verifiers", 0.8)
            vote = {
                "persona": persona,
                "score": score,
                "reasoning": f"{persona} thinks step {i} is {'fine' if passed else 'wrong'}",
                "parseable": True,
                "error": None,
            }
            votes.append(vote)
            emit(agent_step, "vote", **vote)
        final = 0.4 * votes[0]["score"] + 0.5 * votes[1]["score"] + 0.1 * votes[2]["score"]
        emit(
            agent_step,
            "gate",
            score=final,
            threshold=7.0,
            irreversible=None,
            passed=passed,
            action=action,
        )
        data: dict[str, Any] = {
            "goal": goal,
            "sub_goal": sub_goal,
            "action": action,
            "proposals": [proposal],
            "action_description": f"{action['action_type']} step {i}",
            "votes": votes,
            "verifier_score": final,
            "threshold": 7.0,
            "irreversible": None,
            "gate": "pass" if passed else "reject",
            "warnings": [],
        }
        if passed:
            emit(agent_step, "executed", action=action, ok=True, error=None)
            emit(
                agent_step, "post_check", ok=True, screen_changed=True, reason="the screen changed"
            )
            data.update(
                executed=True,
                execution_error=None,
                screen_changed=True,
                post_check={"ok": True, "reason": "the screen changed"},
                outcome="acted",
            )
            if i == 0:
                done = [plan[0]]
                emit(agent_step, "sub_goal_done", sub_goal=plan[0], by="executor", content="")
        else:
            reasons = ["verifier score 4.70 below the 7.0 gate", "Skeptic (2.0): wrong element"]
            emit(
                agent_step,
                "rehearsal",
                kind="rejected",
                count=1,
                limit=6,
                reasons=reasons,
                gave_up=False,
            )
            call(agent_step, "maestro", 1.0)
            emit(
                agent_step,
                "plan_revised",
                kind="rejected",
                sub_goals=plan,
                new_sub_goals=plan[1:],
                done_sub_goals=done,
                source="model",
                rationale="try the Wi-Fi row instead",
            )
            data.update(outcome="rejected", rehearsal="rejected", plan_revised=plan)
        data.update(plan=plan, done_sub_goals=list(done), rehearsals_so_far=0 if i < 1 else 1)
        steps.append(
            {"step_number": i, "done": False, "screenshot": f"step_{i:03d}.png", "data": data}
        )
    last = len(actions) + 1
    status = "complete" if success else "infeasible"
    emit(last, "episode_end", status=status, answer=None, steps=last, rehearsals=1)
    steps.append(
        {
            "step_number": len(actions),
            "done": True,
            "screenshot": None,
            "data": {
                "goal": goal,
                "action": {"action_type": "status", "goal_status": status},
                "status": status,
                "outcome": "finished" if success else "infeasible",
                "plan": plan,
                "done_sub_goals": plan if success else done,
            },
        }
    )
    summary = {
        "agent": "celil_agent",
        "status": status,
        "answer": None,
        "rehearsals": {"count": 1, "limit": 6},
        "gate": {"passed": 4, "rejected": 1},
    }
    return steps, events, summary


def make_run(
    root: Path,
    n_episodes: int = 6,
    *,
    name: str = "run_20250101T000000000000",
    success_every: int = 2,
    cost_scale: float = 1.0,
) -> Path:
    """A run directory with `n_episodes` spread over the synthetic tasks.

    Every third episode is a plain agent's (no events), one episode (index 5) raised, and a
    success comes every `success_every` episodes.
    """
    run = root / name
    (run / "episodes").mkdir(parents=True)
    png = screenshot_png()
    task_names = list(TASKS)
    rows = []
    for i in range(n_episodes):
        task = task_names[i % len(task_names)]
        instance = i // len(task_names)
        ep_name = f"{task}_{instance}"
        goal = f"Goal of {task} number {instance}: turn Wi-Fi on and say 'done'"
        success = i % success_every == 0
        directory = run / "episodes" / ep_name
        directory.mkdir()
        error = "RuntimeError: the device went away" if i == 5 else None
        if error:
            steps, events, agent_summary = [], [], {}
        elif i % 3 == 2:  # an agent without events
            steps = [
                {
                    "step_number": 0,
                    "done": False,
                    "screenshot": "step_000.png",
                    "data": {"action": {"action_type": "click", "index": 7}},
                },
                {
                    "step_number": 1,
                    "done": False,
                    "screenshot": "step_001.png",
                    "data": {"action": {"action_type": "swipe", "direction": "left"}},
                },
                {
                    "step_number": 2,
                    "done": True,
                    "screenshot": None,
                    "data": {"action": {"action_type": "status", "goal_status": "complete"}},
                },
            ]
            events, agent_summary = [], {}
        else:
            steps, events, agent_summary = _celil_episode(
                ep_name, goal, success, 1_700_000_000.0 + i * 100
            )
        for step in steps:
            if step["screenshot"]:
                (directory / step["screenshot"]).write_bytes(png)
        calls = sum(1 for e in events if e["type"] == "model_call") or None
        tokens = calls * 940 if calls else None
        row = {
            "name": ep_name,
            "task": task,
            "instance": instance,
            "goal": goal,
            "score": None if error else (1.0 if success else 0.0),
            "raw_score": None if error else (1.0 if success else 0.0),
            "done": not error,
            "steps": len(steps),
            "runtime": 3.5 + i % 4,
            "calls": calls,
            "prompt_tokens": calls * 900 if calls else None,
            "completion_tokens": calls * 40 if calls else None,
            "tokens": tokens,
            "cost_usd": calls * 0.0002 * cost_scale if calls else None,
            "error": error,
            "teardown_error": None,
            "seed": 1000 + i,
            "agent": "celil_agent" if events else "oracle_agent",
            "difficulty": TASKS[task][0],
            "tags": TASKS[task][1],
        }
        rows.append(row)
        episode = {
            "name": ep_name,
            "goal": goal,
            "task_template": task,
            "instance_id": instance,
            "is_successful": row["score"],
            "done": row["done"],
            "episode_length": len(steps),
            "params": {"seed": 1000 + i, "on_or_off": "on", "contact": {"name": "Ada"}},
            "expected_answer": "done" if task == "SyntheticQuestion" else None,
            "error": error,
            "exception_info": {
                "type": "RuntimeError",
                "traceback": "Traceback ...\nRuntimeError: the device went away",
            }
            if error
            else None,
            "steps": steps,
        }
        (directory / "episode.json").write_text(json.dumps(episode))
        (directory / "summary.json").write_text(json.dumps({"result": row, "agent": agent_summary}))
        (directory / "feedback.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    manifest = {
        "git_commit": "0123456789abcdef0123",
        "python": "3.11.7",
        "started_at": "2025-01-01T00:00:00+00:00",
        "finished_at": "2025-01-01T00:20:30+00:00",
        "resumed_at": [],
        "suite_family": "sim",
        "env": {"type": "sim", "seed": 0, "render": True},
        "seeds": {
            "env": 0,
            "task_random_seed": 30,
            "instances": {r["name"]: r["seed"] for r in rows},
        },
        "agent": {
            "configuration": "celil_agent",
            "registry_name": "celil_agent",
            "kwargs": {"threshold": 7.0},
        },
        "agent_info": {
            "roles": {
                "maestro": {
                    "backend": "gemini",
                    "model": "gemini-2.5-flash",
                    "reason": "GOOGLE_API_KEY set",
                },
                "section_leader": {
                    "backend": "ollama",
                    "model": "ui-tars-1.5-7b",
                    "reason": "server up",
                },
                "verifiers": {"backend": "gemini", "model": "gemini-2.5-flash-lite", "reason": ""},
            }
        },
    }
    (run / "manifest.json").write_text(json.dumps(manifest))
    (run / "summary.csv").write_text("task_template,num_complete_trials\n")
    return run
