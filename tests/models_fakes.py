"""Loopback fake model servers for the model-backend contract tests (no network, no keys).

Each fake speaks just enough of one REST API (Gemini generateContent, Ollama /api/chat and
/api/tags, OpenAI /v1/chat/completions and /v1/models) for the real SDK clients to talk to it, and
records every request so tests can assert what the SDK actually sent.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import http.server
import io
import json
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from PIL import Image


@dataclasses.dataclass(frozen=True)
class Fault:
    """A reply that is not one well-formed JSON body: what servers and proxies do when they crash,
    restart, stall or stream. `kind`:

    - "reset": read the request, then close with an RST (SO_LINGER 0), as a server process that
      dies mid-request does (the client sees ECONNRESET, "Connection reset by peer");
    - "disconnect": read the request, then close without a word (the client sees "Server
      disconnected without sending a response", as with Ollama and llamafile in
      BerriAI/litellm#13249 and run-llama/llama_index#12866);
    - "trickle": a 200 whose JSON `body` arrives one byte every `interval_s` (a stalled proxy or
      an overloaded server: every read is quick, the whole answer is not);
    - "event_stream": a 200 `text/event-stream` of `body` (bytes) although `stream` was not asked
      for, as some proxies do for every request (weaigc/bingo#101: the openai SDK then hands
      back a str, "'str' object has no attribute 'choices'").
    """

    kind: str
    body: Any = None
    interval_s: float = 0.0


Reply = tuple[int, Any] | tuple[int, Any, float] | Fault  # (status, json body[, delay s]) | Fault
Responder = Callable[[dict[str, Any]], Reply]


class FakeServer:
    """A threaded HTTP server whose routes answer from scripts: a list (consumed, last repeats)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._routes: list[tuple[str, str, list[Reply] | Responder]] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                request = {
                    "method": self.command,
                    "path": self.path,
                    "headers": dict(self.headers),
                    "body": body,
                }
                with outer._lock:
                    outer.requests.append(request)
                reply = outer._reply(self.command, self.path, request)
                if isinstance(reply, Fault):
                    self._fault(reply)
                    return
                status, payload = reply[0], reply[1]
                if len(reply) > 2 and reply[2]:
                    time.sleep(reply[2])
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (timeout tests)

            def _fault(self, fault: Fault) -> None:
                self.close_connection = True
                try:
                    if fault.kind == "reset":
                        linger = struct.pack("ii", 1, 0)
                        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
                        self.connection.close()
                    elif fault.kind == "disconnect":
                        self.connection.shutdown(socket.SHUT_RDWR)
                    elif fault.kind == "trickle":
                        data = json.dumps(fault.body).encode()
                        self.send_response(200)
                        self.send_header("content-type", "application/json")
                        self.send_header("content-length", str(len(data)))
                        self.end_headers()
                        self.wfile.flush()
                        for index in range(len(data)):
                            self.wfile.write(data[index : index + 1])
                            self.wfile.flush()
                            time.sleep(fault.interval_s)
                    elif fault.kind == "event_stream":
                        data = fault.body
                        self.send_response(200)
                        self.send_header("content-type", "text/event-stream")
                        self.send_header("content-length", str(len(data)))
                        self.end_headers()
                        self.wfile.write(data)
                    else:
                        raise ValueError(f"unknown fault {fault.kind!r}")
                except OSError:
                    pass  # the client gave up (the deadline tests)

            def finish(self) -> None:
                with contextlib.suppress(OSError, ValueError):  # a fault closed it already
                    super().finish()

            do_GET = _handle
            do_POST = _handle

            def log_message(self, *args: Any) -> None:
                return None

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}"

    def route(self, method: str, path_part: str, script: list[Reply] | Responder) -> None:
        """Requests whose path contains `path_part` answer from `script` (later routes win)."""
        self._routes.insert(0, (method, path_part, script))

    def _reply(self, method: str, path: str, request: dict[str, Any]) -> Reply:
        with self._lock:
            for route_method, part, script in self._routes:
                if route_method == method and part in path:
                    if callable(script):
                        return script(request)
                    return script.pop(0) if len(script) > 1 else script[0]
        return 404, {"error": f"no fake route for {method} {path}"}

    def calls(self, path_part: str) -> list[dict[str, Any]]:
        return [r for r in self.requests if path_part in r["path"]]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    """A FakeServer for one test, closed after it. Test modules bind it: `server = fakes.fake_server`."""
    server = FakeServer()
    yield server
    server.close()


def model_env(monkeypatch: pytest.MonkeyPatch, google_key: str | None = None) -> None:
    """Keep the developer's model keys and hosts out of a test; optionally set a fake Gemini key."""
    for name in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "OLLAMA_HOST"):
        monkeypatch.delenv(name, raising=False)
    if google_key:
        monkeypatch.setenv("GOOGLE_API_KEY", google_key)


def free_port_url() -> str:
    """A loopback URL nothing listens on (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def screenshot(height: int = 64, width: int = 32, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 255, size=(height, width, 3), dtype=np.uint8)


def decode_png(data: str | bytes) -> np.ndarray:
    if isinstance(data, str):
        padded = data + "=" * (-len(data) % 4)
        raw = base64.urlsafe_b64decode(padded.replace("+", "-").replace("/", "_"))
    else:
        raw = data
    assert raw.startswith(b"\x89PNG"), "image was not sent as PNG"
    return np.asarray(Image.open(io.BytesIO(raw)).convert("RGB"))


# Canned answers -----------------------------------------------------------------------------------


def gemini_ok(text: str = "hello", prompt_tokens: int = 11, output_tokens: int = 5) -> Reply:
    return (
        200,
        {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
            ],
            "usageMetadata": {
                "promptTokenCount": prompt_tokens,
                "candidatesTokenCount": output_tokens,
                "totalTokenCount": prompt_tokens + output_tokens,
            },
        },
    )


def gemini_error(status: int, message: str = "boom") -> Reply:
    names = {
        429: "RESOURCE_EXHAUSTED",
        500: "INTERNAL",
        503: "UNAVAILABLE",
        400: "INVALID_ARGUMENT",
    }
    return status, {
        "error": {"code": status, "message": message, "status": names.get(status, "ERROR")}
    }


def ollama_ok(text: str = "hello", prompt_tokens: int = 20, output_tokens: int = 4) -> Reply:
    return (
        200,
        {
            "model": "m",
            "created_at": "2026-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": text},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": prompt_tokens,
            "eval_count": output_tokens,
        },
    )


def ollama_tags(*names: str) -> Reply:
    return 200, {"models": [{"name": n, "model": n} for n in names]}


def openai_ok(
    text: str = "hello", prompt_tokens: int = 30, output_tokens: int = 6, finish: str = "stop"
) -> Reply:
    return (
        200,
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "served-model",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": finish,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": output_tokens,
                "total_tokens": prompt_tokens + output_tokens,
            },
        },
    )


def openai_error(status: int, message: str = "boom") -> Reply:
    return status, {"error": {"message": message, "type": "server_error", "code": status}}


# Faulty answers, in the shapes real servers produce -------------------------------------------


def vllm_too_many_images(limit: int = 1) -> Reply:
    """vLLM's answer when a request carries more images than `--limit-mm-per-prompt` allows (the
    default is 1 for many vision models): the body as reported in vllm-project/vllm#17092 and
    Visual-Agent/DeepEyes#26."""
    return 400, {
        "object": "error",
        "message": f"At most {limit} image(s) may be provided in one request.",
        "type": "BadRequestError",
        "param": None,
        "code": 400,
    }


def openai_no_choices() -> Reply:
    """A 200 that says it is a chat completion and carries no answer (seen from proxies that
    swallow an upstream error)."""
    return 200, {"object": "chat.completion"}


def openai_with_usage(text: str, usage: dict[str, Any]) -> Reply:
    status, body = openai_ok(text)[:2]
    return status, {**body, "usage": usage}


def event_stream(*chunks: str) -> Fault:
    """The streamed form of an answer (`data: {chunk}` lines, then `data: [DONE]`), as vLLM and
    llama.cpp's llama-server send when `stream: true`."""
    lines = []
    for text in chunks:
        chunk = {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "served-model",
            "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
        }
        lines.append(f"data: {json.dumps(chunk)}\n\n")
    lines.append("data: [DONE]\n\n")
    return Fault("event_stream", "".join(lines).encode())


def trickle(reply: Reply, interval_s: float) -> Fault:
    """`reply`'s JSON body, one byte every `interval_s` seconds."""
    assert not isinstance(reply, Fault)
    return Fault("trickle", reply[1], interval_s)


RESET = Fault("reset")
DISCONNECT = Fault("disconnect")
