"""Upstream AndroidWorld's own agents, unmodified, on this harness's simulated phone, with an
oracle model. Run from the repository root with a Python that has this harness's requirements
and the agents' own imports (opencv, matplotlib, IPython, requests), the repository root on
PYTHONPATH:

    PYTHONPATH=. python tests/upstream/agents_here.py --checkout CHECKOUT --agent t3a|m3a|seeact \\
        --tasks SystemWifiTurnOn,ContactsAddContact

The agent class is loaded from the checkout by `module_loader.load_class` (its helper modules,
`m3a_utils`/`seeact_utils`, from beside it, as if copied in); nothing of upstream is committed.
Each task runs through this harness's `suite_utils` on a `SimEnv`. The model is an oracle: each
time the agent asks for an action it answers, in the agent's own format, with the next action of
the task's reference solution (`oracle_actions`, which reads the live screen), and it answers
the agents' other calls (T3A's and M3A's step summaries, SeeAct's free-text reasoning) with
plain text. T3A and M3A reach it through this harness's `infer.Gpt4Wrapper` on a fake
OpenAI-compatible server on 127.0.0.1; SeeAct posts to OpenAI's URL with `requests.post`, which
is answered in process (no network). Prints one JSON line: each task's score, steps and calls.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
os.environ.setdefault("MPLBACKEND", "Agg")

from android_world.agents import infer, module_loader  # noqa: E402
from android_world.env import json_action  # noqa: E402
from android_world.env.sim.sim_env import SimEnv  # noqa: E402
from android_world.harness import suite_utils  # noqa: E402
from android_world.task_evals import registry  # noqa: E402

AGENTS = {"t3a": "T3A", "m3a": "M3A", "seeact": "SeeAct"}
SEEACT_ACTIONS = {
    json_action.CLICK: "CLICK",
    json_action.LONG_PRESS: "LONG PRESS",
    json_action.INPUT_TEXT: "INPUT TEXT",
    json_action.OPEN_APP: "OPEN APP",
    json_action.KEYBOARD_ENTER: "KEYBOARD ENTER",
    json_action.NAVIGATE_BACK: "NAVIGATE BACK",
    json_action.NAVIGATE_HOME: "NAVIGATE HOME",
    json_action.STATUS: "TERMINATE",
    json_action.ANSWER: "ANSWER",
    json_action.WAIT: "WAIT",
}


class Oracle:
    """The next action of the current task's reference solution, one per action request."""

    def __init__(self, env: SimEnv) -> None:
        self.env = env
        self.task: Any = None
        self._actions: Any = None
        self.calls = 0

    def start(self, task: Any) -> None:
        self.task, self._actions = task, None

    def next_action(self) -> json_action.JSONAction:
        self.calls += 1
        if self._actions is None:
            self._actions = self.task.oracle_actions(self.env)
        try:
            return next(self._actions)
        except StopIteration:
            return json_action.JSONAction(action_type="status", goal_status="complete")

    def reason_action(self) -> str:
        """T3A's and M3A's format: a reason line, then the action as JSON."""
        action = self.next_action()
        fields = {k: v for k, v in action.as_dict().items() if v is not None}
        fields.pop("clear_text", None)
        return f"Reason: the reference solution's next step.\nAction: {json.dumps(fields)}"

    def seeact_grounding(self) -> str:
        """SeeAct's format: the chosen element's letter among its filtered choices."""
        from android_world.agents import seeact_utils  # provided from the checkout

        action = self.next_action()
        state = self.env.get_state()
        letter = "None"
        if action.index is not None:
            target = state.ui_elements[int(action.index)]
            choices = seeact_utils.format_and_filter_elements(state.ui_elements)
            matches = [c.abc_index for c in choices if c.ui_element == target]
            if not matches:
                raise RuntimeError(f"SeeAct lists no choice for {target}")
            letter = matches[0]
        value = {
            json_action.INPUT_TEXT: action.text,
            json_action.OPEN_APP: action.app_name,
            json_action.ANSWER: action.text,
        }.get(action.action_type, "None")
        kind = SEEACT_ACTIONS[action.action_type]
        return f"ELEMENT: {letter}\nACTION: {kind}\nVALUE: {value}"


def _text_of(messages: list[dict[str, Any]]) -> str:
    parts = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [p.get("text", "") for p in content if isinstance(p, dict)]
    return "\n".join(parts)


def openai_reply(content: str, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-oracle",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def serve(oracle: Oracle) -> http.server.ThreadingHTTPServer:
    """T3A's and M3A's model: an OpenAI-compatible chat endpoint answering as the oracle."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            prompt = _text_of(body.get("messages") or [])
            if "brief summary" in prompt:
                answer = "The step went as planned."
            else:
                answer = oracle.reason_action()
            data = json.dumps(openai_reply(answer, body.get("model", "oracle"))).encode()
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


def answer_seeact_requests(oracle: Oracle) -> None:
    """SeeAct posts to OpenAI with `requests.post`: answered here, in process."""
    import requests

    real_post = requests.post

    class Reply:
        def __init__(self, payload: dict[str, Any]) -> None:
            self.payload = payload
            self.status_code = 200

        def json(self) -> dict[str, Any]:
            return self.payload

    def post(url: str, *args: Any, **kwargs: Any) -> Any:
        if not str(url).startswith("https://api.openai.com/"):
            return real_post(url, *args, **kwargs)
        messages = (kwargs.get("json") or {}).get("messages") or []
        grounding = len(messages) > 2  # the second request carries the first answer
        answer = oracle.seeact_grounding() if grounding else "I will do the task's next step."
        return Reply(openai_reply(answer, "oracle"))

    requests.post = post


def build_agent(name: str, checkout: Path, env: SimEnv, url: str) -> Any:
    module = checkout / "android_world" / "agents" / f"{name}.py"
    cls = module_loader.load_class(f"{module}:{AGENTS[name]}")
    if name == "seeact":
        agent = cls(env)
    else:
        os.environ["OPENAI_BASE_URL"] = url
        llm = infer.Gpt4Wrapper("gpt-4o")
        agent = cls(env, llm, wait_after_action_seconds=0) if name == "m3a" else cls(env, llm)
    agent.transition_pause = None  # what upstream's run.py sets
    return agent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--checkout", type=Path, required=True)
    parser.add_argument("--agent", choices=sorted(AGENTS), required=True)
    parser.add_argument("--tasks", default="SystemWifiTurnOn,ContactsAddContact")
    parser.add_argument("--seed", type=int, default=30)
    args = parser.parse_args(argv)
    os.environ["OPENAI_API_KEY"] = "sk-oracle-not-a-key"
    env = SimEnv(seed=0)
    oracle = Oracle(env)
    server = serve(oracle)
    answer_seeact_requests(oracle)
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    agent = build_agent(args.agent, args.checkout, env, url)
    classes = registry.TaskRegistry().get_registry()
    names = [t for t in args.tasks.split(",") if t]
    suite = suite_utils.create_suite(classes, 1, seed=args.seed, tasks=names)
    results: dict[str, Any] = {}
    for name, instances in suite.items():
        oracle.start(instances[0])
        before = oracle.calls
        one = suite_utils.Suite({name: instances})
        [episode] = suite_utils.run(one, agent, print_fn=lambda _: None)
        results[name] = {
            "score": episode.get("is_successful"),
            "steps": episode.get("episode_length"),
            "oracle_actions": oracle.calls - before,
            "error": episode.get("error"),
        }
    server.shutdown()
    env.close()
    print(json.dumps({"agent": AGENTS[args.agent], "results": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
