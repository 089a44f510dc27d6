"""Celil end to end through the real CLI: record a run against a fake model server, replay it offline.

Run 1 points every role at a fake OpenAI-compatible server on loopback that plays the planner, a
UI-TARS executor and the three verifier personas, deciding each answer from the request (the role
from the JSON schema it asks for, progress from the screen description, the executor's step from
its chat history). UI-TARS points are real: element centres of the simulated phone mapped into the
smart-resized image the executor is sent. The verifiers reject one wrong tap, so the run rehearses
once and replans. Run 2 replays
the recording with every role on `backend: replay` and the server gone, and must act and score
exactly as run 1 did.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from models_fakes import FakeServer, free_port_url, openai_ok

from android_world.agents.custom.dialects import uitars
from android_world.env import json_action
from android_world.task_evals import registry as task_registry

sim_env = pytest.importorskip("android_world.env.sim.sim_env", reason="no simulated phone")

ROOT = Path(__file__).resolve().parents[2]
TASKS = "SystemWifiTurnOn,OpenAppTaskEval"
ROLES = ("maestro", "section_leader", "verifiers")
MAX_IMAGE_PIXELS = 200_704  # agent.configurations.celil_agent.max_image_pixels (small: fast PNGs)
WIFI_SWITCH_ON = 'Switch "Wi-Fi" (clickable, checked)'
DECOY_THOUGHT = "Battery might hold the Wi-Fi toggle."


# --------------------------------------------------------------------------------------------------
# Where the executor should tap: element centres on the simulated phone, in sent-image pixels
# --------------------------------------------------------------------------------------------------


def _centre_of(env: Any, label: str, class_suffix: str = "") -> tuple[int, int]:
    for element in env.get_state().ui_elements:
        name = element.text or element.content_description
        if name == label and (element.class_name or "").endswith(class_suffix):
            box = element.bbox_pixels
            return (box.x_min + box.x_max) // 2, (box.y_min + box.y_max) // 2
    raise AssertionError(f"no element {label!r} on the simulated screen")


def uitars_points() -> dict[str, tuple[int, int]]:
    """Targets on the path to Wi-Fi, as UI-TARS-1.5 would write them: pixels of the resized image."""
    env = sim_env.SimEnv(seed=0, render=False)
    try:
        task_class = task_registry.TaskRegistry().get_registry("sim")["SystemWifiTurnOn"]
        task_class({"on_or_off": "on"}).initialize_task(env)  # wifi off, as the run starts
        env.execute_action(json_action.JSONAction(action_type="open_app", app_name="Settings"))
        screen = {
            "Battery": _centre_of(env, "Battery"),
            "Network & internet": _centre_of(env, "Network & internet"),
        }
        x, y = screen["Network & internet"]
        env.execute_action(json_action.JSONAction(action_type="click", x=x, y=y))
        screen["Internet"] = _centre_of(env, "Internet", "TextView")
        x, y = screen["Internet"]
        env.execute_action(json_action.JSONAction(action_type="click", x=x, y=y))
        screen["Wi-Fi switch"] = _centre_of(env, "Wi-Fi", "Switch")
        width, height = env.device_screen_size
    finally:
        env.close()
    sent_height, sent_width = uitars.smart_resize(height, width, max_pixels=MAX_IMAGE_PIXELS)
    points = {}
    for name, (x, y) in screen.items():
        point = (round(x * sent_width / width), round(y * sent_height / height))
        back = uitars.to_screen(
            *point, uitars.ABSOLUTE_RESIZED, (sent_width, sent_height), (width, height)
        )
        assert abs(back[0] - x) <= 3 and abs(back[1] - y) <= 3  # the mapping the agent applies
        points[name] = point
    return points


def allow_point(app: str) -> tuple[int, int] | None:
    """Where the app's first-launch permission request has its Allow button, in sent-image
    pixels (None when the app asks for nothing)."""
    env = sim_env.SimEnv(seed=0, render=False)
    try:
        env.execute_action(json_action.JSONAction(action_type="open_app", app_name=app))
        try:
            x, y = _centre_of(env, "Allow")
        except AssertionError:
            return None
        width, height = env.device_screen_size
    finally:
        env.close()
    sent_height, sent_width = uitars.smart_resize(height, width, max_pixels=MAX_IMAGE_PIXELS)
    return round(x * sent_width / width), round(y * sent_height / height)


# --------------------------------------------------------------------------------------------------
# The fake model server: one OpenAI-compatible endpoint, every role
# --------------------------------------------------------------------------------------------------


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if part.get("type") == "text")


def _json(payload: dict[str, Any]) -> str:
    return json.dumps(payload)


class FakeModels:
    """Answers each chat completion like the role that sent it would want it answered.

    Roles are told apart by the JSON schema they ask for (planner: sub_goals, progress check:
    done, verifier: score; the executor asks for none), which is sturdier than prompt wording.
    """

    def __init__(self, points: dict[str, tuple[int, int]]) -> None:
        self.points = points
        self.decoy_sent = False
        self.planned_goals: set[str] = set()
        self.executor_chats: list[list[dict[str, Any]]] = []
        self.roles: list[str] = []

    def __call__(self, request: dict[str, Any]) -> tuple[int, Any]:
        body = request["body"] or {}
        messages = body.get("messages")
        if not isinstance(messages, list):
            return 400, {"error": {"message": "fake server: a chat completion needs messages"}}
        prompt = "\n".join(_text_of(m) for m in messages if m["role"] != "assistant")
        response_format = body.get("response_format") or {}
        schema = (response_format.get("json_schema") or {}).get("schema") or {}
        fields = set(schema.get("properties") or {})
        for role, answer, wanted in (
            ("planner", self.plan, "sub_goals"),
            ("progress", self.progress, "done"),
            ("verifier", self.verifier, "score"),
            ("verifier", self.joint_vote, "votes"),
        ):
            if wanted in fields:
                self.roles.append(role)
                return openai_ok(answer(prompt))
        if not response_format and "## User Instruction" in prompt:
            self.roles.append("executor")
            self.executor_chats.append(messages)
            return openai_ok(self.executor(prompt, messages))
        return 400, {"error": {"message": f"fake server: unexpected request {prompt[:80]!r}"}}

    def plan(self, prompt: str) -> str:
        goal = re.search(r"^Task: (.*)$", prompt, re.MULTILINE).group(1)
        if goal in self.planned_goals and "wifi" in goal.lower():
            sub_goals = ["Open Network & internet", "Turn on Wi-Fi"]  # after the rejected tap
        elif "wifi" in goal.lower():
            sub_goals = ["Open the Settings app", "Turn on Wi-Fi"]
        else:
            sub_goals = [goal.split(".")[0]]
        self.planned_goals.add(goal)
        return _json({"sub_goals": sub_goals, "rationale": "scripted by the fake server"})

    @staticmethod
    def progress(prompt: str) -> str:
        sub_goal = re.search(r"^Sub-goal: (.*)$", prompt, re.MULTILINE).group(1)
        # Evidence quotes the screen, as the agent only counts evidence it finds there.
        done, evidence = {
            "Open the Settings app": ("com.android.settings" in prompt, "'Network & internet'"),
            # Evidence names the step's place as well as what shows it (a quote of the page's
            # content alone names nothing the task names, which the agent refuses).
            "Open Network & internet": (
                "Airplane mode" in prompt,
                "the Network & internet page lists 'Airplane mode'",
            ),
            "Turn on Wi-Fi": (WIFI_SWITCH_ON in prompt, "the Wi-Fi switch is on"),
        }.get(sub_goal, (False, ""))
        app = re.match(r"Open the (.+?) app$", sub_goal)
        if app and sub_goal != "Open the Settings app":
            title = app.group(1)
            done, evidence = f'"{title}"' in prompt or f"'{title}'" in prompt, f"'{title}' is shown"
        return _json({"done": done, "evidence": evidence if done else "not yet"})

    @staticmethod
    def verifier(prompt: str) -> str:
        if DECOY_THOUGHT in prompt:
            return _json({"score": 1, "reasoning": "Battery settings do not lead to Wi-Fi"})
        return _json({"score": 9, "reasoning": "the right next step"})

    @classmethod
    def joint_vote(cls, prompt: str) -> str:
        """The personas asked in one request (verifier_mode joint), each judging alike."""
        verdict = json.loads(cls.verifier(prompt))
        asked = [p for p in ("Pragmatist", "Skeptic", "Efficiency Expert") if p in prompt]
        return _json({"votes": [{"persona": p, **verdict} for p in asked]})

    def executor(self, prompt: str, messages: list[dict[str, Any]]) -> str:
        instruction = prompt.split("## User Instruction", 1)[1].strip().splitlines()[0]
        earlier = sum(1 for m in messages if m["role"] == "assistant")

        def click(name: str, thought: str) -> str:
            x, y = self.points[name]
            return (
                f"Thought: {thought}\nAction: click(start_box='<|box_start|>({x},{y})<|box_end|>')"
            )

        if instruction == "Turn on Wi-Fi":
            if not self.decoy_sent:
                self.decoy_sent = True
                return click("Battery", DECOY_THOUGHT)
            if earlier == 0:
                return click("Internet", "Wi-Fi lives under Internet.")
            return click("Wi-Fi switch", "Flip the Wi-Fi switch on.")
        if instruction == "Open Network & internet":
            return click("Network & internet", "Network & internet holds Wi-Fi.")
        app = re.match(r"Open the (.+?) app", instruction)
        if app and earlier == 0:
            return f"Thought: Open it directly.\nAction: open_app(app_name='{app.group(1)}')"
        allow = allow_point(app.group(1)) if app and earlier == 1 else None
        if allow is not None:  # the goal asks to clear pop-ups by granting permissions
            x, y = allow
            return (
                f"Thought: Grant it.\nAction: click(start_box='<|box_start|>({x},{y})<|box_end|>')"
            )
        return "Thought: The app is open.\nAction: finished(content='')"


# --------------------------------------------------------------------------------------------------
# Running the CLI and reading its run directory
# --------------------------------------------------------------------------------------------------


def _cli(output: Path, *sets: str) -> Path:
    env = {k: v for k, v in os.environ.items() if k not in ("GOOGLE_API_KEY", "GEMINI_API_KEY")}
    env.update(PYTHONPATH=str(ROOT), OLLAMA_HOST=free_port_url())
    args = [
        sys.executable,
        "-m",
        "android_world.harness.run",
        "--agent",
        "celil_agent",
        "--tasks",
        TASKS,
        "--output_path",
        str(output),
        "--set",
        "agent.configurations.celil_agent.registry_name=celil_agent",
        "--set",
        "agent.configurations.celil_agent.ocr='off'",
        "--set",
        "agent.configurations.celil_agent.transition_pause=0",
        # The scripted scenario is "a rejected tap, then a corrective plan".
        "--set",
        "agent.configurations.celil_agent.rejection_feedback=false",
        # ... and the planner's progress check after each action is one of the recorded roles.
        "--set",
        "agent.configurations.celil_agent.progress_check=after_action",
        "--set",
        f"agent.configurations.celil_agent.episodic_memory_path={output / 'memory.db'}",
        "--set",
        f"agent.configurations.celil_agent.max_image_pixels={MAX_IMAGE_PIXELS}",
        "--set",
        "benchmark.transition_pause=0",
    ]
    for item in sets:
        args += ["--set", item]
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    (run_dir,) = output.glob("run_*")
    return run_dir


def _episodes(run_dir: Path) -> dict[str, dict[str, Any]]:
    episodes = {}
    for folder in sorted((run_dir / "episodes").iterdir()):
        episode = json.loads((folder / "episode.json").read_text())
        events = [json.loads(line) for line in (folder / "feedback.jsonl").read_text().splitlines()]
        executed = [s["data"]["action"] for s in episode["steps"] if s["data"].get("executed")]
        episodes[episode["task_template"]] = {
            "score": episode["is_successful"],
            "executed": executed,
            "events": events,
        }
    return episodes


def _scores(run_dir: Path) -> dict[str, float]:
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return {row["task"]: row["score"] for row in rows}


@pytest.mark.slow
def test_a_recorded_run_replays_with_the_same_actions_and_scores(tmp_path):
    fake = FakeModels(uitars_points())
    server = FakeServer()
    server.route("POST", "/chat/completions", fake)
    recording = tmp_path / "calls.jsonl"
    try:
        live_sets = [f"models.openai_base_url={server.url}/v1", f"models.record={recording}"]
        for role in ROLES:
            live_sets += [
                f"models.{role}.backend=openai",
                f"models.{role}.model=fake-{role}",
                f"models.{role}.max_retries=0",
            ]
        run1 = _cli(tmp_path / "live", *live_sets)
    finally:
        server.close()

    live = _episodes(run1)
    assert _scores(run1) == {"SystemWifiTurnOn": 1.0, "OpenAppTaskEval": 1.0}
    wifi = live["SystemWifiTurnOn"]
    kinds = {event["type"] for event in wifi["events"]}
    assert {
        "plan_created",
        "action_proposed",
        "vote",
        "gate",
        "executed",
        "post_check",
        "rehearsal",
        "plan_revised",
    } <= kinds
    (rejected,) = [e for e in wifi["events"] if e["type"] == "gate" and not e["passed"]]
    assert rejected["score"] < rejected["threshold"]
    assert [e["kind"] for e in wifi["events"] if e["type"] == "rehearsal"] == ["rejected"]
    assert len(wifi["executed"]) == 4  # open Settings, Network & internet, Internet, the switch
    assert not [e for e in wifi["events"] if e["type"] == "model_call" and e.get("error")]
    assert set(fake.roles) == {"planner", "progress", "executor", "verifier"}
    # The executor held a real conversation: earlier answers as assistant turns, screenshots
    # only on user turns, the current screen last.
    wifi_chats = [c for c in fake.executor_chats if "Turn on Wi-Fi" in _text_of(c[0])]
    chat = max(wifi_chats, key=len)
    # history_images 1 (the default since the context diet): the current screen is the only image.
    assert [m["role"] for m in chat] == ["user", "assistant", "user"]
    for message in chat:
        has_image = isinstance(message["content"], list)
        assert has_image == (message["role"] == "user" and not _text_of(message))

    lines = [json.loads(line) for line in recording.read_text().splitlines()]
    assert {line["role"] for line in lines} == set(ROLES)
    assert "sk-" not in recording.read_text()

    replay_sets = [f"models.replay_path={recording}", "models.replay_strict=false"]
    replay_sets += [f"models.{role}.backend=replay" for role in ROLES]
    run2 = _cli(tmp_path / "replayed", *replay_sets)  # the server is closed: no network

    replayed = _episodes(run2)
    assert _scores(run2) == _scores(run1)
    for task, episode in live.items():
        assert replayed[task]["executed"] == episode["executed"], task
        calls = [e for e in replayed[task]["events"] if e["type"] == "model_call"]
        assert calls and all(c["backend"] == "replay" and not c["error"] for c in calls), task
        live_calls = [e for e in episode["events"] if e["type"] == "model_call"]
        assert len(calls) == len(live_calls), task
    manifest = json.loads((run2 / "manifest.json").read_text())
    assert "replay" in json.dumps(manifest)
