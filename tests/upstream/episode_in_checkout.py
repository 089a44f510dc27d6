"""One Celil episode inside a real upstream AndroidWorld checkout, no emulator, no network.

Run with upstream's Python, from the checkout, after the installer put the plugin there:

    cd /path/to/android_world && PYTHONPATH=. /path/to/python /this/file.py

The agent is built by upstream's own run.py (`--agent_name=celil_agent`, `--celil_config`) on
upstream's own fake env (`utils.test_utils.FakeAsyncEnv`) given a Wi-Fi screen made of upstream's
classes (`State`, `UIElement`, `BoundingBox`, `JSONAction`), and driven by upstream's
`episode_runner.run_episode`; then the same task through upstream's `suite_utils.run` and
checkpointer; then three steps on that fake env unmodified. The roles talk to one fake server on
127.0.0.1 that plays planner (Gemini API), UI-TARS executor (OpenAI-compatible API) and verifiers
(Ollama API). The two paths that once failed inside upstream are checked: a UI-TARS coordinate
click must land on the Wi-Fi switch (it once raised AttributeError on `BoundingBox.contains`), and
the requests must carry PNG screenshots (the encoder once called a name upstream lacks).

The first episode runs with the plugin's defaults: the adaptive verifier skips the vote on a tap
of the control the goal names, so only the planner and the executor are asked (and images go to
the Gemini and OpenAI-compatible APIs). A second episode, built by the plugin's factory with
`verifier_mode: parallel` (every proposal voted on by the three personas), checks that the
verifiers' requests carry screenshots on the Ollama API too. Prints one JSON line with what it
saw; exit 0 when every check holds, 1 otherwise.

Only the standard library, upstream and the installed plugin are imported here: this file must
not depend on the harness.
"""

from __future__ import annotations

import base64
import http.server
import io
import json
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np
from absl import flags
from android_world.utils import test_utils
from PIL import Image

from android_world import episode_runner
from android_world.agents.custom.dialects import uitars
from android_world.env import interface, json_action, representation_utils

WIDTH, HEIGHT = 540, 1200
SWITCH = representation_utils.BoundingBox(400, 500, 300, 360)
BATTERY = representation_utils.BoundingBox(20, 300, 420, 480)
INTERNET = representation_utils.BoundingBox(20, 300, 200, 260)


class FakePhone(test_utils.FakeAsyncEnv):
    """Upstream's fake env showing a Wi-Fi settings screen; a tap inside the switch's box turns
    Wi-Fi on (upstream's own fake shows random 10x10 pixels and no elements)."""

    def __init__(self) -> None:
        super().__init__()
        self.wifi_on = False
        self.actions: list[dict[str, Any]] = []

    def _elements(self) -> list[representation_utils.UIElement]:
        return [
            representation_utils.UIElement(
                text="Internet",
                class_name="android.widget.TextView",
                bbox_pixels=INTERNET,
                is_visible=True,
                package_name="com.android.settings",
            ),
            representation_utils.UIElement(
                text="Wi-Fi",
                class_name="android.widget.Switch",
                bbox_pixels=SWITCH,
                is_checkable=True,
                is_checked=self.wifi_on,
                is_clickable=True,
                is_enabled=True,
                is_visible=True,
                package_name="com.android.settings",
            ),
            representation_utils.UIElement(
                text="Battery",
                class_name="android.widget.TextView",
                bbox_pixels=BATTERY,
                is_clickable=True,
                is_visible=True,
                package_name="com.android.settings",
            ),
        ]

    def _pixels(self) -> np.ndarray:
        pixels = np.full((HEIGHT, WIDTH, 3), 245, dtype=np.uint8)
        colour = (20, 120, 220) if self.wifi_on else (150, 150, 150)
        pixels[SWITCH.y_min : SWITCH.y_max, SWITCH.x_min : SWITCH.x_max] = colour
        pixels[BATTERY.y_min : BATTERY.y_max, BATTERY.x_min : BATTERY.x_max] = (200, 200, 200)
        return pixels

    def reset(self, go_home: bool = False) -> interface.State:
        return self.get_state()

    def get_state(self, wait_to_stabilize: bool = False) -> interface.State:
        return interface.State(pixels=self._pixels(), forest=None, ui_elements=self._elements())

    def execute_action(self, action: json_action.JSONAction) -> None:
        self.actions.append(json.loads(action.json_str()))
        if action.action_type == json_action.CLICK:
            x, y = action.x, action.y
            if action.index is not None:
                box = self._elements()[int(action.index)].bbox_pixels
                x, y = box.center
            if (
                x is not None
                and SWITCH.x_min <= x < SWITCH.x_max
                and SWITCH.y_min <= y < SWITCH.y_max
            ):
                self.wifi_on = True

    @property
    def foreground_activity_name(self) -> str:
        return "com.android.settings/.SubSettings"

    @property
    def device_screen_size(self) -> tuple[int, int]:
        return WIDTH, HEIGHT


def wifi_task(phone: FakePhone) -> Any:
    """A task in upstream's TaskEval form for the fake phone: Wi-Fi off at the start, success when
    it is on. No device time or app snapshots (there is no device)."""
    from android_world.task_evals import task_eval

    class WifiOnFakePhone(task_eval.TaskEval):
        app_names = ()
        complexity = 1
        schema = {"type": "object", "properties": {}}
        template = "Turn on Wi-Fi"

        @classmethod
        def generate_random_params(cls) -> dict[str, Any]:
            return {}

        def initialize_device_time(self, env: interface.AsyncEnv) -> None:
            pass

        def initialize_task(self, env: interface.AsyncEnv) -> None:
            super().initialize_task(env)
            phone.wifi_on = False

        def is_successful(self, env: interface.AsyncEnv) -> float:
            super().is_successful(env)
            return 1.0 if phone.wifi_on else 0.0

    return WifiOnFakePhone({"seed": 123})


def through_upstream_runner(run: Any, phone: FakePhone, output: Path) -> dict[str, Any]:
    """Upstream's suite_utils.run with its checkpointer, as run.py's main drives an agent."""
    from android_world import checkpointer as checkpointer_lib
    from android_world import suite_utils

    agent = run._get_agent(phone, "android_world")
    agent.transition_pause = None
    suite = suite_utils.Suite({"WifiOnFakePhone": [wifi_task(phone)]})
    suite.suite_family = "android_world"
    episodes = suite_utils.run(
        suite, agent, checkpointer=checkpointer_lib.IncrementalCheckpointer(str(output))
    )
    (episode,) = episodes
    return {
        "is_successful": episode["is_successful"],
        "episode_length": episode["episode_length"],
        "exception_info": episode.get("exception_info"),
        "checkpoint_files": len(list(output.iterdir())),
    }


class FakeModels:
    """Answers like each role wants, told apart by the JSON schema it asks for (or its prompt)."""

    def __init__(self, phone: FakePhone) -> None:
        self.phone = phone
        self.roles: list[str] = []
        self.png_sizes: list[tuple[int, int]] = []
        self.png_apis: set[str] = set()
        sent_h, sent_w = uitars.smart_resize(HEIGHT, WIDTH)
        x, y = SWITCH.center
        self.switch_point = (round(x * sent_w / WIDTH), round(y * sent_h / HEIGHT))

    def _png(self, encoded: str, api: str) -> None:
        padded = encoded + "=" * (-len(encoded) % 4)  # google-genai sends URL-safe, unpadded
        data = base64.urlsafe_b64decode(padded.replace("+", "-").replace("/", "_"))
        if data.startswith(b"\x89PNG\r\n\x1a\n"):
            self.png_sizes.append(Image.open(io.BytesIO(data)).size)
            self.png_apis.add(api)

    def _images(self, messages: list[dict[str, Any]]) -> None:
        for message in messages:
            for encoded in message.get("images") or []:  # Ollama: base64 strings
                self._png(encoded, "ollama")
            for part in message.get("content") if isinstance(message.get("content"), list) else []:
                url = (part.get("image_url") or {}).get("url", "") if isinstance(part, dict) else ""
                if url.startswith("data:image/png;base64,"):  # OpenAI-compatible: data URLs
                    self._png(url.split(",", 1)[1], "openai")

    def answer(self, body: dict[str, Any]) -> str:
        messages = body.get("messages") or []
        self._images(messages)
        text = json.dumps(messages)
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
        if isinstance(body.get("format"), dict):  # Ollama puts the schema in `format`
            schema = body["format"]
        fields = set(schema.get("properties") or {})
        if "sub_goals" in fields or ("sub_goals" in text and "## User Instruction" not in text):
            self.roles.append("planner")
            return json.dumps({"sub_goals": ["Turn on Wi-Fi"], "rationale": "one switch"})
        if "done" in fields:
            self.roles.append("progress")
            return json.dumps({"done": self.phone.wifi_on, "evidence": "the Wi-Fi switch"})
        if "score" in fields:
            self.roles.append("verifier")
            return json.dumps({"score": 9, "reasoning": "the switch is the right target"})
        self.roles.append("executor")
        if self.phone.wifi_on:
            return "Thought: Wi-Fi is on.\nAction: finished(content='')"
        x, y = self.switch_point
        return f"Thought: Flip the switch.\nAction: click(start_box='<|box_start|>({x},{y})<|box_end|>')"


def serve(models: FakeModels) -> http.server.ThreadingHTTPServer:
    def gemini(body: dict[str, Any]) -> str:
        """A Gemini generateContent request answered through the same role logic."""
        texts = []
        for content in body.get("contents") or []:
            for part in content.get("parts") or []:
                inline = part.get("inlineData") or part.get("inline_data") or {}
                if inline.get("data"):
                    models._png(inline["data"], "gemini")
                if part.get("text"):
                    texts.append(part["text"])
        config = body.get("generationConfig") or body.get("generation_config") or {}
        schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
        return models.answer(
            {"messages": [{"role": "user", "content": "\n".join(texts)}], "format": schema}
        )

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            """What real servers list at start-up, which the plugin checks: the OpenAI-compatible
            models list and Ollama's tags (llama.cpp, vLLM and Ollama all answer these)."""
            names = ["fake-section_leader", "fake-verifiers"]
            if self.path.rstrip("/").endswith("/models"):
                self._send(
                    {"object": "list", "data": [{"id": n, "object": "model"} for n in names]}
                )
            elif self.path.startswith("/api/tags"):
                self._send({"models": [{"name": n, "model": n} for n in names]})
            else:
                self.send_error(404)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            if ":generateContent" in self.path:  # the Gemini API
                self._send(
                    {
                        "candidates": [
                            {
                                "content": {"role": "model", "parts": [{"text": gemini(body)}]},
                                "finishReason": "STOP",
                            }
                        ],
                        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5},
                    }
                )
                return
            if self.path.startswith("/api/chat"):  # Ollama's API
                self._send(
                    {
                        "model": body.get("model", "fake"),
                        "created_at": "2026-01-01T00:00:00Z",
                        "message": {"role": "assistant", "content": models.answer(body)},
                        "done": True,
                        "done_reason": "stop",
                        "prompt_eval_count": 10,
                        "eval_count": 5,
                    }
                )
                return
            self._send(
                {
                    "id": "chatcmpl-1",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", "fake"),
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": models.answer(body)},
                        }
                    ],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                }
            )

        def _send(self, reply: dict[str, Any]) -> None:
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def voted_episode(phone: FakePhone, models: FakeModels, config: Path) -> dict[str, Any]:
    """The same episode with every proposal voted on (`verifier_mode: parallel`), built by the
    plugin's own factory: the verifiers' requests must carry screenshots (Ollama's API)."""
    from android_world.agents.custom import factory

    phone.wifi_on = False
    phone.actions.clear()
    models.roles.clear()
    models.png_sizes.clear()
    models.png_apis.clear()
    agent = factory.create_agent(phone, str(config))
    agent.transition_pause = None
    result = episode_runner.run_episode(
        "Turn on Wi-Fi", agent, max_n_steps=6, print_fn=lambda _: None
    )
    return {
        "done": bool(result.done),
        "wifi_on": phone.wifi_on,
        "roles": sorted(set(models.roles)),
        "png_apis": sorted(models.png_apis),
    }


def main() -> int:
    phone = FakePhone()
    models = FakeModels(phone)
    server = serve(models)
    work = Path(tempfile.mkdtemp(prefix="celil_upstream_"))
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    # Planner on the Gemini API, executor on an OpenAI-compatible one, verifiers on Ollama's:
    # the three image paths, all on the fake server.
    os.environ["GOOGLE_API_KEY"] = "fake-key-for-the-fake-server"
    roles = (
        "  maestro: {backend: gemini, model: gemini-2.5-flash}\n"
        "  section_leader: {backend: openai, model: fake-section_leader}\n"
        "  verifiers: {backend: ollama, model: fake-verifiers}\n"
    )
    config = work / "celil.yaml"
    models_yaml = (
        f"models:\n  openai_base_url: {url}\n  ollama_host: {url.removesuffix('/v1')}\n"
        f"  gemini_base_url: {url.removesuffix('/v1')}\n{roles}"
    )
    agent_yaml = "celil_agent:\n  ocr: auto\n  memory: fresh\n  transition_pause: 0\n"
    config.write_text(models_yaml + agent_yaml, encoding="utf-8")
    voted_config = work / "celil-voted.yaml"
    voted_config.write_text(
        models_yaml + agent_yaml + "  verifier_mode: parallel\n", encoding="utf-8"
    )
    os.environ["CELIL_RUN_DIR"] = str(work)
    # Upstream's run.py looks for adb under $HOME when imported; nothing here calls it.
    adb = work / "home" / "Android" / "Sdk" / "platform-tools" / "adb"
    adb.parent.mkdir(parents=True)
    adb.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    os.environ["HOME"] = str(work / "home")
    import run  # upstream's run.py, with the installer's branch

    flags.FLAGS(["run.py", "--agent_name=celil_agent", f"--celil_config={config}"])
    agent = run._get_agent(phone, "android_world")
    agent.transition_pause = None  # what upstream's run.py sets: wait for a stable screen
    result = episode_runner.run_episode(
        "Turn on Wi-Fi", agent, max_n_steps=6, print_fn=lambda _: None
    )
    clicks = [a for a in phone.actions if a.get("action_type") == "click"]
    seen = {
        "agent": type(agent).__name__,
        "agent_name": agent.name,
        "done": bool(result.done),
        "wifi_on": phone.wifi_on,
        "actions": phone.actions,
        "roles": sorted(set(models.roles)),
        "calls": len(models.roles),
        "png_images": len(models.png_sizes),
        "png_size": list(models.png_sizes[0]) if models.png_sizes else None,
        "png_apis": sorted(models.png_apis),
    }
    # Upstream's fake env as it is (random 10x10 frames, no elements): the agent must get
    # through its steps without raising, whatever it decides. The fake models keep answering as
    # if Wi-Fi were off, so the executor keeps clicking at a point far outside this screen.
    phone.wifi_on = False
    plain = run._get_agent(test_utils.FakeAsyncEnv(), "android_world")
    plain.transition_pause = None
    try:
        plain_result = episode_runner.run_episode(
            "Turn on Wi-Fi", plain, max_n_steps=3, print_fn=lambda _: None
        )
        steps = len(next(iter(plain_result.step_data.values()), []))
        plain_seen = {"steps": steps, "done": bool(plain_result.done), "error": None}
    except Exception as error:  # reported, not raised: the JSON line says what broke
        plain_seen = {"steps": None, "error": f"{type(error).__name__}: {error}"}
    phone.actions.clear()
    seen["upstream_runner"] = through_upstream_runner(run, phone, work / "run")
    seen["voted"] = voted_episode(phone, models, voted_config)
    server.shutdown()
    seen["plain_fake_env"] = plain_seen
    default_roles = set(seen["roles"])
    ok = (
        seen["agent"] == "CelilAgent"
        and seen["done"]
        and seen["wifi_on"]
        and bool(clicks)
        and seen["png_images"] > 0
        and {"gemini", "openai"} <= set(seen["png_apis"])
        and {"planner", "executor"} <= default_roles
        # A vote is asked for only when the defaults call for one, and then with a screenshot.
        and ("verifier" not in default_roles or "ollama" in seen["png_apis"])
        and seen["voted"]["wifi_on"]
        and "verifier" in seen["voted"]["roles"]
        and seen["voted"]["png_apis"] == ["gemini", "ollama", "openai"]
        and plain_seen["error"] is None
        and seen["upstream_runner"]["is_successful"] == 1.0
    )
    seen["ok"] = ok
    print(json.dumps(seen))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
