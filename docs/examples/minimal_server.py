"""A minimal OpenAI-compatible server that answers every Celil role (docs/MODEL_CONTRACT.md).

    python docs/examples/minimal_server.py 8000    # then models.openai_base_url: http://127.0.0.1:8000/v1

It shows the shapes only: replace `answer()` with a call to your model. The role is told by the
request's `response_format` schema (or the prompt's first words when no schema is sent).
Standard library only.
"""

import http.server
import json
import re
import sys


def prompt_text(body: dict) -> str:
    """The text of the request's user turns; images arrive as `image_url` data URLs."""
    parts = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        else:
            parts += [p.get("text", "") for p in content or [] if p.get("type") == "text"]
    return "\n".join(parts)


def answer(body: dict) -> str:
    """What the role's parser reads; every branch is the smallest valid answer."""
    format_ = body.get("response_format") or {}
    schema = format_.get("schema") or format_.get("json_schema", {}).get("schema") or {}
    fields = set(schema.get("properties", {}))
    text = prompt_text(body)
    task = re.search(r"^Task: (.+)$", text, re.MULTILINE)
    if "sub_goals" in fields:  # planner: a plan
        return json.dumps({"sub_goals": [task.group(1) if task else "Do the task"]})
    if "score" in fields:  # a verifier persona: one vote
        return json.dumps({"score": 8, "reasoning": "The action fits the sub-goal."})
    if "done" in fields:  # planner: is it done? (evidence must be text on the screen)
        return json.dumps({"done": False, "evidence": ""})
    if "answer" in fields:  # planner: the answer to a question task
        return json.dumps({"answer": "unknown"})
    if "index" in fields:  # vision_fallback: which element to tap
        return json.dumps({"index": -1, "reasoning": "none fits"})
    if "ok" in fields:  # --check_models' JSON probe
        return json.dumps({"ok": True})
    if text.startswith("You are operating an Android phone"):  # executor, executor_format: json
        return (
            'Reason: nothing to do.\nAction: {"action_type": "status", "goal_status": "infeasible"}'
        )
    if text.startswith("You are a GUI agent"):  # executor, UI-TARS dialect
        return "Thought: I go back to the home screen.\nAction: press_home()"
    return "OK"  # --check_models' ping


class Handler(http.server.BaseHTTPRequestHandler):
    def reply(self, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # GET /v1/models: Celil checks the model is served
        self.reply({"object": "list", "data": [{"id": "my-model", "object": "model"}]})

    def do_POST(self) -> None:  # POST /v1/chat/completions
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        message = {"role": "assistant", "content": answer(body)}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        self.reply(
            {
                "object": "chat.completion",
                "model": body.get("model"),
                "choices": [choice],
                "usage": usage,
            }
        )


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
