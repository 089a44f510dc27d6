"""Model clients for Celil's roles, behind AndroidWorld's `infer.py` contract, plus the usage ledger.

Every role talks to a model through one object that is both an `infer.LlmWrapper` and an
`infer.MultimodalLlmWrapper`, whatever serves it (Gemini, Ollama, an OpenAI-compatible server or a
recording), so roles stay backend-agnostic and tests can script them. Three rules hold everywhere:

- A model call never raises to its caller: failures come back as `(infer.ERROR_CALLING_LLM, is_safe,
  None)` and as a ledger entry whose `error` says what went wrong and how to fix it. (A replay miss
  may raise `ReplayMissError` in strict mode, on request.)
- Every call goes through a `UsageLedger` (tokens, latency, retries, error, cost), which is how the
  agent reports per-step usage and how `feedback.jsonl` gets its `model_call` events.
- Secrets come from environment variables only, and every text that leaves this module (errors,
  reasons, notes, recordings, ledger entries) passes through `redact()` first (celil_secrets: the
  same function the harness applies to every file it writes and every line it prints).
- A request has a total deadline (`deadline_s`) beside the read timeout, and a fault is named
  for what it was (celil_faults): refused, reset, timed out, or a 200 that is not an answer.

Structured output: `predict(text, response_schema=...)`, `predict_mm(text, images,
response_schema=...)` or `predict_json(text, images, schema)` ask the backend for JSON that follows a
JSON schema (a dict). The reply is still the raw text; parse it with `agent_utils.extract_json`
(backends that cannot enforce a schema, such as Gemma on the Gemini API, get the schema as an
instruction in the prompt instead).

Multi-turn chat: `predict_messages(list[uitars.ChatMessage])` sends a real conversation (earlier
answers as assistant turns, screenshots on user turns) in each backend's own message format; it
is recorded and replayed like any other call. Wrappers without it get the chat flattened.

This module imports only `agents.infer` from the harness side (plus `uitars` from the plugin) and
loads each SDK lazily, so the plugin folder still works in an upstream AndroidWorld checkout with
only the SDKs it uses.
"""

from __future__ import annotations

import base64
import collections
import dataclasses
import hashlib
import io
import json
import logging
import math
import os
import random
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from android_world.agents import infer
from android_world.agents.custom import celil_faults, celil_negotiation
from android_world.agents.custom.celil_faults import DeadlineExceeded, network_fault

# Re-exported: callers name the secrets functions from here.
from android_world.agents.custom.celil_secrets import read_secret, redact
from android_world.agents.custom.celil_secrets import register_secret as register_secret
from android_world.agents.custom.uitars import (
    ABSOLUTE_RESIZED,
    RELATIVE_1000,
    ChatMessage,
    flatten_messages,
)

# --------------------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------------------

GEMINI_KEY_ENVS = ("GOOGLE_API_KEY", "GEMINI_API_KEY")
DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
OPENAI_DUMMY_KEY = "not-needed"
RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})
MAX_500_RETRIES = 1
ROLES = ("maestro", "section_leader", "verifiers", "vision_fallback")
BACKENDS = ("auto", "gemini", "ollama", "openai", "replay", "offline")

# Gemini finish reasons that mean "a safety filter blocked this answer".
_GEMINI_UNSAFE_FINISH = frozenset(
    {
        "SAFETY",
        "PROHIBITED_CONTENT",
        "BLOCKLIST",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
    }
)

# --------------------------------------------------------------------------------------------------
# Secrets (celil_secrets holds the rules; these names stay importable from here)
# --------------------------------------------------------------------------------------------------

logger = logging.getLogger(__name__)


def gemini_key(api_key_env: str | None = None) -> tuple[str | None, str | None]:
    """(key, name of the variable it came from). GOOGLE_API_KEY wins over GEMINI_API_KEY, as in the SDK."""
    names = (api_key_env,) if api_key_env else GEMINI_KEY_ENVS
    for name in names:
        value = read_secret(name)
        if value:
            return value, name
    return None, None


# --------------------------------------------------------------------------------------------------
# Settings (plain data; the harness converts its config into these)
# --------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RoleSettings:
    """One role's model settings, mirroring the harness's `RoleModelConfig` after defaults are applied.

    The plugin never imports harness config, so the harness hands over this plain object. Model names
    are per backend because `backend: auto` may land on any of them; `model` is what an explicit
    backend uses (falling back to that backend's field when empty).
    """

    role: str = "maestro"
    backend: str = "auto"
    model: str = ""
    gemini_model: str = ""
    gemini_fallback_model: str = ""
    ollama_model: str = ""
    openai_model: str = ""
    base_url: str | None = None
    gemini_base_url: str | None = None
    ollama_host: str | None = None
    openai_base_url: str | None = None
    api_key_env: str | None = None
    temperature: float = 0.0
    timeout_s: float = 60.0
    deadline_s: float | None = None
    """Total seconds one request may take (connect and every read); None: twice `timeout_s`."""
    max_retries: int = 3
    max_output_tokens: int = 2048
    retry_initial_delay_s: float = 1.0
    retry_max_delay_s: float = 30.0
    num_ctx: int = 16384
    thinking_budget: int | None = None
    auto_order: tuple[str, ...] = ("gemini", "ollama", "openai")
    probe_timeout_s: float = 2.0
    record_path: str | None = None
    replay_path: str | None = None
    replay_strict: bool = False
    coordinates: str = "auto"
    structured_output: str = "auto"
    images: str = "auto"

    def request_deadline_s(self) -> float:
        """The total deadline of one request: `deadline_s`, else twice the read timeout (time to
        connect and to wait for the first byte, each up to `timeout_s`, plus the transfer)."""
        return self.deadline_s if self.deadline_s is not None else 2 * self.timeout_s

    def model_for(self, backend: str) -> str:
        """The model name to use on `backend` (explicit `model` wins for an explicit backend)."""
        per_backend = {
            "gemini": self.gemini_model,
            "ollama": self.ollama_model,
            "openai": self.openai_model,
        }.get(backend, "")
        if self.backend == backend and self.model:
            return self.model
        return per_backend or self.model

    def url_for(self, backend: str) -> str | None:
        """The server URL for `backend` (a role's `base_url` applies to its explicit backend)."""
        if self.backend == backend and self.base_url:
            return self.base_url
        if backend == "gemini":
            return self.gemini_base_url
        if backend == "ollama":
            return self.ollama_host or os.environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST
        if backend == "openai":
            return self.openai_base_url
        return None


# --------------------------------------------------------------------------------------------------
# Requests, results and the ledger
# --------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ModelRequest:
    """What a role asks: one prompt with images, or a chat (`messages`), plus schema and system text.

    A prompt request is a one-turn chat, so every backend builds its payload from `turns()` and
    the two kinds cannot drift apart. Images are RGB uint8 arrays, sent as they are.
    """

    prompt: str
    images: tuple[np.ndarray, ...] = ()
    schema: dict[str, Any] | None = None
    system: str | None = None
    messages: tuple[ChatMessage, ...] = ()

    @classmethod
    def chat(
        cls,
        messages: Sequence[ChatMessage],
        schema: dict[str, Any] | None = None,
        system: str | None = None,
    ) -> ModelRequest:
        """A multi-turn request. System messages join `system`; roles become user or assistant.

        Images belong to user turns only (no chat API accepts them from the assistant), so an
        assistant image is a caller bug and raises ValueError.
        """
        systems = [system] if system else []
        turns: list[ChatMessage] = []
        for message in messages:
            role = (message.role or "user").lower()
            if role == "system":
                systems.append(message.text)
                continue
            role = "assistant" if role in ("assistant", "model") else "user"
            if role == "assistant" and message.images:
                raise ValueError("chat messages from the assistant cannot carry images")
            turns.append(ChatMessage(role, message.text or "", list(message.images)))
        if not turns:
            raise ValueError("a chat request needs at least one user or assistant message")
        return cls("", (), schema, "\n\n".join(systems) or None, tuple(turns))

    def turns(self) -> tuple[ChatMessage, ...]:
        return self.messages or (ChatMessage("user", self.prompt, list(self.images)),)

    def all_images(self) -> list[np.ndarray]:
        return [image for turn in self.turns() for image in turn.images]

    def without_images(self) -> ModelRequest:
        """The same request for a text-only model: every image dropped, the text kept."""
        return self.keeping_last_images(0)

    def keeping_last_images(self, limit: int) -> ModelRequest:
        """The same request with only its last `limit` images, the text kept.

        Every caller puts the current screen last (the executor's chat ends with it), so a
        server that takes one image still gets the screen the action is about."""
        drop = len(self.all_images()) - max(0, limit)
        if drop <= 0:
            return self
        if not self.messages:
            return dataclasses.replace(self, images=self.images[drop:])
        turns = []
        for turn in self.messages:
            gone = min(drop, len(turn.images))
            drop -= gone
            turns.append(ChatMessage(turn.role, turn.text, list(turn.images[gone:])))
        return dataclasses.replace(self, messages=tuple(turns))

    def image_hashes(self) -> list[str]:
        return [image_hash(image) for image in self.all_images()]

    def text_chars(self) -> int:
        return sum(len(turn.text) for turn in self.turns())

    def request_hash(self) -> str:
        """Stable identity of the request, used to match recordings on replay."""
        if not self.messages:
            return request_hash(self.prompt, self.image_hashes(), self.schema, self.system)
        chat = [
            {"role": t.role, "text": t.text, "images": [image_hash(i) for i in t.images]}
            for t in self.messages
        ]
        payload = {"chat": chat, "schema": self.schema, "system": self.system}
        return _sha256_json(payload)


def image_hash(image: np.ndarray) -> str:
    array = np.ascontiguousarray(image)
    digest = hashlib.sha256()
    digest.update(f"{array.shape}|{array.dtype}|".encode())
    digest.update(array.tobytes())
    return digest.hexdigest()


def request_hash(
    prompt: str,
    image_hashes: Sequence[str] = (),
    schema: dict[str, Any] | None = None,
    system: str | None = None,
) -> str:
    payload = {"prompt": prompt, "images": list(image_hashes), "schema": schema, "system": system}
    return _sha256_json(payload)


def _sha256_json(payload: dict[str, Any]) -> str:
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclasses.dataclass(frozen=True)
class CallRecord:
    """One model call as the ledger sees it. `error` and `note` are already redacted.

    `retries` counts every request re-sent within the call: after a transient failure, and in
    another shape after a refusal (the next JSON form, fewer images). The server saw
    `1 + retries` requests for this call."""

    role: str
    backend: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    retries: int = 0
    error: str | None = None
    cost_usd: float = 0.0
    request_hash: str = ""
    ts: float = 0.0
    note: str = ""
    """How the request was adapted to the server (e.g. JSON form, images dropped); empty if not."""
    tokens_estimated: bool = False
    """The server reported no usage; the token counts are `estimate_tokens`'s."""

    def to_event(self) -> dict[str, Any]:
        """The `model_call` event for feedback.jsonl (the runner adds its own `ts`)."""
        event = {"type": "model_call", **dataclasses.asdict(self)}
        event.pop("ts", None)
        event["latency_s"] = round(self.latency_s, 4)
        event["cost_usd"] = round(self.cost_usd, 8)
        return event


@dataclasses.dataclass
class CallResult:
    """A call's outcome: the `infer` triple plus its ledger record and how it failed, if it did.

    `error_kind`: None on success, "safety" (blocked), "transient" (retries exhausted on 408/429/5xx,
    a timeout, a reset connection), "fatal" (not worth retrying: bad key, model missing, nothing
    listening, a malformed 200 answer) or "replay_miss".
    """

    text: str
    is_safe: bool | None
    raw: Any
    record: CallRecord
    error_kind: str | None = None

    @property
    def ok(self) -> bool:
        return self.error_kind is None

    def triple(self) -> tuple[str, bool | None, Any]:
        return self.text, self.is_safe, self.raw


Price = tuple[float, float]  # USD per million (input, output) tokens


# Vision encoders of the UI-TARS / Qwen2-VL family read 28x28-pixel patches, one token each.
IMAGE_PATCH_PX = 28
CHARS_PER_TOKEN = 4


def image_tokens(image: np.ndarray) -> int:
    height, width = image.shape[:2]
    return math.ceil(height / IMAGE_PATCH_PX) * math.ceil(width / IMAGE_PATCH_PX)


def estimate_tokens(request: ModelRequest, answer: str) -> tuple[int, int]:
    """(prompt, completion) tokens for a server that reports no usage: text at ~4 characters a
    token plus every image (history screenshots included) at one token per 28x28 patch."""
    text = request.text_chars() + len(request.system or "")
    prompt = math.ceil(text / CHARS_PER_TOKEN) + sum(image_tokens(i) for i in request.all_images())
    return prompt, math.ceil(len(answer) / CHARS_PER_TOKEN)


def price_for(model: str, prices: dict[str, Price]) -> Price:
    """Exact match first, then the longest configured prefix (so `gemini-2.5-flash-001` is priced)."""
    if model in prices:
        return prices[model]
    best = ""
    for name in prices:
        if model.startswith(name) and len(name) > len(best):
            best = name
    return prices[best] if best else (0.0, 0.0)


def estimate_cost(
    model: str, prompt_tokens: int, completion_tokens: int, prices: dict[str, Price]
) -> float:
    input_price, output_price = price_for(model, prices)
    return (prompt_tokens * input_price + completion_tokens * output_price) / 1_000_000


_FREE_BACKENDS = frozenset({"replay", "offline", "ollama"})


def _empty_totals() -> dict[str, Any]:
    return {
        "model_calls": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "model_seconds": 0.0,
        "cost_usd": 0.0,
        "retries": 0,
        "errors": 0,
        "first_error": None,
    }


def _add(totals: dict[str, Any], record: CallRecord) -> None:
    totals["model_calls"] += 1
    totals["prompt_tokens"] += record.prompt_tokens
    totals["completion_tokens"] += record.completion_tokens
    totals["model_seconds"] += record.latency_s
    totals["cost_usd"] += record.cost_usd
    totals["retries"] += record.retries
    totals["errors"] += 1 if record.error else 0
    if record.error and totals["first_error"] is None:
        totals["first_error"] = f"{record.role}: {_excerpt(record.error, 240)}"


def summarize(records: Iterable[CallRecord]) -> dict[str, Any]:
    """Totals shaped like CONTRACTS.md's `usage`, with a `by_role` breakdown (JSON-serialisable)."""
    totals = _empty_totals()
    by_role: dict[str, dict[str, Any]] = {}
    for record in records:
        _add(totals, record)
        _add(by_role.setdefault(record.role, _empty_totals()), record)
    for bucket in [totals, *by_role.values()]:
        bucket["model_seconds"] = round(bucket["model_seconds"], 4)
        bucket["cost_usd"] = round(bucket["cost_usd"], 8)
    totals["by_role"] = by_role
    return totals


def per_step(totals: dict[str, Any], steps: int) -> dict[str, float]:
    """Calls, tokens, seconds and cost per agent step (DESIGN §4's per-step numbers)."""
    n = max(steps, 1)
    return {
        "calls_per_step": round(totals["model_calls"] / n, 4),
        "tokens_per_step": round((totals["prompt_tokens"] + totals["completion_tokens"]) / n, 2),
        "seconds_per_step": round(totals["model_seconds"] / n, 4),
        "cost_per_step_usd": round(totals["cost_usd"] / n, 8),
    }


class UsageLedger:
    """Every model call of a run, thread-safe (the verifier personas call in parallel threads).

    Keeps the run's records and marks where the current episode began, so per-episode and per-run
    totals come from one list. Listeners get each `CallRecord` as it happens (the agent turns them into
    `model_call` events); a failing listener is counted, never propagated into the model call.
    """

    def __init__(self, prices: dict[str, Price] | None = None) -> None:
        self._prices = dict(prices or {})
        self._lock = threading.Lock()
        self._records: list[CallRecord] = []
        self._episode_start = 0
        self._listeners: list[Callable[[CallRecord], None]] = []
        self.listener_errors = 0

    @property
    def prices(self) -> dict[str, Price]:
        return dict(self._prices)

    def cost(self, backend: str, model: str, prompt_tokens: int, completion_tokens: int) -> float:
        if backend in _FREE_BACKENDS:
            return 0.0
        return estimate_cost(model, prompt_tokens, completion_tokens, self._prices)

    def record(self, record: CallRecord) -> CallRecord:
        if not record.cost_usd:
            cost = self.cost(
                record.backend, record.model, record.prompt_tokens, record.completion_tokens
            )
            record = dataclasses.replace(record, cost_usd=cost)
        with self._lock:
            self._records.append(record)
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(record)
            except Exception:  # a broken sink must not break the model call
                with self._lock:
                    self.listener_errors += 1
        return record

    def add_listener(self, listener: Callable[[CallRecord], None]) -> None:
        with self._lock:
            self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[CallRecord], None]) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def records(self, episode_only: bool = False) -> list[CallRecord]:
        with self._lock:
            return list(self._records[self._episode_start :] if episode_only else self._records)

    def episode_totals(self) -> dict[str, Any]:
        return summarize(self.records(episode_only=True))

    def totals(self) -> dict[str, Any]:
        """Run totals (every call since the ledger was made)."""
        return summarize(self.records())

    def reset_episode(self) -> dict[str, Any]:
        """Close the current episode: return its totals and start counting a new one."""
        with self._lock:
            episode = self._records[self._episode_start :]
            self._episode_start = len(self._records)
        return summarize(episode)


# --------------------------------------------------------------------------------------------------
# The wrapper base classes
# --------------------------------------------------------------------------------------------------


class ModelCallError(Exception):
    """An error a backend raises inside `_send` with a ready-made, user-facing message."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        kind: str = "fatal",
        status: int | None = None,
        detail: str = "",
    ) -> None:
        super().__init__(redact(message))
        self.retryable = retryable
        self.kind = kind
        # The HTTP status and the server's own words, so a refusal of the request's shape can be
        # told from a transient failure (celil_negotiation).
        self.status = status
        self.detail = detail


class SafetyBlocked(ModelCallError):
    def __init__(self, message: str) -> None:
        super().__init__(message, retryable=False, kind="safety")


class ReplayMissError(ModelCallError):
    """No recorded answer for a request during replay (raised to the caller only in strict mode)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, retryable=False, kind="replay_miss")


class ModelSetupError(ValueError):
    """A role cannot be set up as configured (missing key, missing replay file). One clear line,
    redacted (it may name a server URL)."""

    def __init__(self, message: str) -> None:
        super().__init__(redact(message))


@dataclasses.dataclass
class ModelReply:
    """A backend's successful answer."""

    text: str
    raw: Any
    is_safe: bool | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str | None = None


_LAST_ERROR = threading.local()


class CelilModel(infer.LlmWrapper, infer.MultimodalLlmWrapper):
    """Both `infer` interfaces over one `call(ModelRequest) -> CallResult` method."""

    role: str = ""
    backend: str = ""
    model: str = ""

    def call(self, request: ModelRequest) -> CallResult:
        raise NotImplementedError

    def _answer(self, request: ModelRequest) -> tuple[str, bool | None, Any]:
        """The triple of `call`, remembering a failure's reason for `last_error` (per thread:
        the verifier personas share one wrapper across threads). The triple itself stays as
        upstream's agents expect it: a failed call's third element is None."""
        result = self.call(request)
        _LAST_ERROR.value = None if result.ok else result.record.error
        return result.triple()

    def last_error(self) -> str | None:
        """Why this thread's last call through the infer interface failed (HTTP status and the
        server's words included), or None when it succeeded."""
        return getattr(_LAST_ERROR, "value", None)

    def predict(
        self,
        text_prompt: str,
        *,
        response_schema: dict[str, Any] | None = None,
        system: str | None = None,
    ) -> tuple[str, bool | None, Any]:
        return self._answer(ModelRequest(text_prompt, (), response_schema, system))

    def predict_mm(
        self,
        text_prompt: str,
        images: list[np.ndarray],
        *,
        response_schema: dict[str, Any] | None = None,
        system: str | None = None,
    ) -> tuple[str, bool | None, Any]:
        request = ModelRequest(text_prompt, tuple(images or ()), response_schema, system)
        return self._answer(request)

    def predict_json(
        self,
        text_prompt: str,
        images: Sequence[np.ndarray] | None,
        schema: dict[str, Any],
        *,
        system: str | None = None,
    ) -> tuple[str, bool | None, Any]:
        """Ask for JSON following `schema`; the text is the model's JSON (parse with extract_json)."""
        return self._answer(ModelRequest(text_prompt, tuple(images or ()), schema, system))

    def predict_messages(
        self,
        messages: Sequence[ChatMessage],
        *,
        response_schema: dict[str, Any] | None = None,
        system: str | None = None,
    ) -> tuple[str, bool | None, Any]:
        """A real multi-turn chat (UI-TARS was trained on one: earlier answers as assistant turns,
        screenshots as user turns), instead of flattening the history into one prompt."""
        request = ModelRequest.chat(messages, response_schema, system)
        return self._answer(request)

    def describe(self) -> str:
        return f"{self.backend} {self.model}".strip()


def _excerpt(text: str, limit: int = 300) -> str:
    """A server's error body on one line and short enough for a table cell or a warning."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _status_detail(exc: BaseException) -> str:
    """The SDK's message plus the server's own body when the message leaves it out (the openai
    SDK says only "Error code: 500" for a body it cannot read as an error object)."""
    message = str(getattr(exc, "message", "") or exc)
    body = getattr(exc, "body", None)
    if body is None:
        response = getattr(exc, "response", None)
        try:
            body = response.text if response is not None else None
        except Exception:
            body = None
    text = body if isinstance(body, str) else json.dumps(body, default=str) if body else ""
    if text and text not in message:
        return f"{message}: {text}"
    return message


def _status_of(exc: BaseException) -> int | None:
    for attr in ("status_code", "code"):
        value = getattr(exc, attr, None)
        if isinstance(value, int):
            return value
    return None


@dataclasses.dataclass
class _CallState:
    """What one call learned on its way (per thread: the verifier personas share a wrapper)."""

    notes: list[str] = dataclasses.field(default_factory=list)
    resends: int = 0


class BackendWrapper(CelilModel):
    """A wrapper that sends requests to one backend: the retry loop, timing, ledger and redaction.

    We retry ourselves (SDK retries off) so that every retry is counted in the ledger and the
    backoff is the same, and testable, on all backends. Each request runs under a total deadline
    (`deadline_s`, default twice `timeout_s`) as well as the client's read timeout.
    """

    backend = "base"
    timeout_note = ""
    """Said after a read timeout (e.g. Ollama's first call also loads the model)."""

    def __init__(
        self,
        role: str,
        model: str,
        *,
        ledger: UsageLedger | None = None,
        max_retries: int = 3,
        retry_initial_delay_s: float = 1.0,
        retry_max_delay_s: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        temperature: float = 0.0,
        timeout_s: float = 60.0,
        deadline_s: float | None = None,
        max_output_tokens: int = 2048,
        images: str = "auto",
    ) -> None:
        self.role = role
        self.model = model
        self.images = images
        self._state = threading.local()
        self.ledger = ledger
        self.temperature = temperature
        self.timeout_s = timeout_s
        self.deadline_s = deadline_s if deadline_s is not None else 2 * timeout_s
        self.max_output_tokens = max_output_tokens
        self.max_retries = max(0, int(max_retries))
        self.retry_initial_delay_s = max(0.0, retry_initial_delay_s)
        self.retry_max_delay_s = max(0.0, retry_max_delay_s)
        self._sleep = sleep

    # Subclasses implement `_send`, and `where` and `_classify` to name their server and faults.
    def _send(self, request: ModelRequest) -> ModelReply:
        raise NotImplementedError

    def where(self) -> str:
        """The server, as error messages name it."""
        return f"{self.backend} {self.model}"

    def _classify(self, exc: BaseException) -> ModelCallError:
        """Turn a backend exception into a user-facing error that says whether to retry."""
        status = _status_of(exc)
        detail = str(exc)
        refused = celil_negotiation.is_refusal(status, detail)
        fault = network_fault(exc)
        if status is None and fault is not None:
            return self._network_error(fault, exc, "check that the server is running")
        retryable = status in RETRYABLE_STATUS and not refused
        return ModelCallError(
            f"{self.where()}: {type(exc).__name__}: {_excerpt(detail)}",
            retryable=retryable,
            kind="transient" if retryable else "fatal",
            status=status,
            detail=detail,
        )

    def _failure(self, exc: BaseException) -> ModelCallError:
        """Any exception from a send, as a ModelCallError (the deadline is the same everywhere)."""
        if isinstance(exc, ModelCallError):
            return exc
        if isinstance(exc, DeadlineExceeded):
            return self._timed_out(self.where(), deadline=True)
        return self._classify(exc)

    def _within_deadline(self, send: Callable[[], Any]) -> Any:
        """One request under the total deadline (see celil_faults.call_with_deadline)."""
        return celil_faults.call_with_deadline(send, self.deadline_s)

    def _timed_out(self, where: str, *, deadline: bool = False) -> ModelCallError:
        if deadline:
            message = (
                f"{where}: timed out: model '{self.model}' was still answering when the request's "
                f"deadline passed (deadline_s={self.deadline_s:g}s, a slow or trickling "
                f"answer); raise models.{self.role}.deadline_s"
            )
        else:
            message = (
                f"{where}: timed out: model '{self.model}' did not answer within "
                f"{self.timeout_s:g}s{self.timeout_note}; raise models.{self.role}.timeout_s"
            )
        return ModelCallError(message, retryable=True, kind="transient")

    def _network_error(self, fault: str, exc: BaseException, start: str) -> ModelCallError:
        """A network fault named for what it was; `start` says how to start the server.

        Nothing listening (refused) will not change by retrying; a reset (the server closed the
        connection before answering: it crashed, restarted or was overloaded), a timeout and an
        unreachable host may."""
        where = self.where()
        if fault == celil_faults.TIMEOUT:
            return self._timed_out(where, deadline=isinstance(exc, DeadlineExceeded))
        if fault == celil_faults.REFUSED:
            return ModelCallError(f"{where}: connection refused (nothing listens there); {start}")
        if fault == celil_faults.RESET:
            message = (
                f"{where}: connection reset: the server closed the connection before answering "
                "(did it crash, restart or run out of memory?); check the server's log"
            )
        else:
            cause = str(list(celil_faults.causes(exc))[-1]) or type(exc).__name__
            message = f"{where}: cannot connect ({_excerpt(cause, 120)}); check the address"
        return ModelCallError(message, retryable=True, kind="transient")

    def _http_error(
        self, where: str, status: int, detail: Any, *, auth: str, not_found: str
    ) -> ModelCallError:
        """An HTTP error status, with the fix for the two that are configuration mistakes."""
        if status in (401, 403):
            return ModelCallError(f"{where}: HTTP {status}: {auth}")
        if status == 404:
            return ModelCallError(f"{where}: HTTP 404: {not_found}")
        text = str(detail)
        # A 500 that says the request is malformed fails the same way every time.
        retryable = status in RETRYABLE_STATUS and not celil_negotiation.is_refusal(status, text)
        return ModelCallError(
            f"{where}: HTTP {status}: {_excerpt(text)}",
            retryable=retryable,
            kind="transient" if retryable else "fatal",
            status=status,
            detail=text,
        )

    def server_key(self) -> str:
        """Where this wrapper's requests go, for the per-server memory of what works."""
        return f"{self.backend}:{getattr(self, 'base_url', '') or ''}"

    # What a call learns on its way ----------------------------------------------------------------

    def _call_state(self) -> _CallState:
        state = getattr(self._state, "call", None)
        if state is None:
            state = self._state.call = _CallState()
        return state

    def _note(self, note: str) -> None:
        self._call_state().notes.append(note)

    def _count_resend(self) -> None:
        """A request sent again in another shape within this call (ledger: `retries`)."""
        self._call_state().resends += 1

    # Sending what the server takes -----------------------------------------------------------------

    def _image_limit(self) -> int | None:
        """How many images a request may carry here: None (any), or what `images: off` and the
        server's refusals so far allow (0: text only)."""
        if self.images == "off":
            return 0
        if self.images != "auto":
            return None
        return celil_negotiation.SERVERS.facts(self.server_key(), self.model).max_images

    def _send_adapted(self, request: ModelRequest) -> ModelReply:
        """`_send`, with what the server is known to refuse left out; a refusal of image parts
        (under `images: auto`) is answered by sending the request again with fewer images."""
        limit = self._image_limit()
        if limit is not None:
            request = request.keeping_last_images(limit)
        try:
            return self._send(request)
        except Exception as exc:
            failure = self._failure(exc)
        if not (
            request.all_images()
            and self.images == "auto"
            and celil_negotiation.may_refuse_images(failure.status, failure.detail)
        ):
            raise failure
        return self._send_fewer_images(request, failure)

    def _send_fewer_images(self, request: ModelRequest, refusal: ModelCallError) -> ModelReply:
        """After a refusal of image parts: the limit the server stated (vLLM: "At most 1 image(s)
        may be provided in one request."), else one image (the current screen), else none. The
        count that works is kept for the rest of the run, as the JSON form is."""
        count = len(request.all_images())
        for limit in celil_negotiation.image_fallbacks(count, refusal.detail):
            self._count_resend()
            try:
                reply = self._send(request.keeping_last_images(limit))
            except Exception as exc:
                failure = self._failure(exc)
                if celil_negotiation.may_refuse_images(failure.status, failure.detail):
                    continue
                raise failure from None  # fewer images went through but failed otherwise
            note = celil_negotiation.image_limit_note(
                self.model, limit, _excerpt(refusal.detail, 80)
            )
            celil_negotiation.SERVERS.learn_image_limit(self.server_key(), self.model, limit, note)
            self._note(note)
            return reply
        raise refusal

    def backoff_delay(self, retry: int) -> float:
        """Delay before re-send number `retry` (1-based): exponential, capped, with a little jitter."""
        base = self.retry_initial_delay_s * (2 ** (retry - 1))
        delay = min(base, self.retry_max_delay_s)
        return delay * (1.0 + 0.1 * random.random()) if delay else 0.0

    def _attempt(self, request: ModelRequest) -> tuple[ModelReply | ModelCallError, int]:
        """Send, re-sending retryable failures with backoff: (reply or last failure, retries)."""
        retries = 0
        while True:
            try:
                return self._send_adapted(request), retries
            except Exception as exc:  # the contract: never raise to the role
                failure = self._failure(exc)
            if not failure.retryable or retries >= self.max_retries:
                return failure, retries
            if failure.status == 500 and retries >= MAX_500_RETRIES:
                # An internal error that repeats is the server's answer to this request, not
                # a passing fault: more backoff only makes every call of the run slower.
                return failure, retries
            retries += 1
            self._sleep(self.backoff_delay(retries))

    def call(self, request: ModelRequest) -> CallResult:
        started = time.monotonic()
        state = self._state.call = _CallState()
        outcome, retries = self._attempt(request)
        ok = isinstance(outcome, ModelReply)
        error = None
        if not ok:
            error = redact(str(outcome))
            if outcome.retryable and retries:
                error = f"{error} (gave up after {retries + 1} attempts)"
        prompt_tokens = int(outcome.prompt_tokens or 0) if ok else 0
        completion_tokens = int(outcome.completion_tokens or 0) if ok else 0
        estimated = ok and prompt_tokens == 0
        if estimated:
            prompt_tokens, completion_tokens = estimate_tokens(request, outcome.text or "")
        record = CallRecord(
            role=self.role,
            backend=self.backend,
            model=(outcome.model if ok else None) or self.model,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            tokens_estimated=estimated,
            latency_s=time.monotonic() - started,
            retries=retries + state.resends,
            error=error,
            request_hash=request.request_hash(),
            ts=time.time(),
            note=redact("; ".join(state.notes)),
        )
        self._state.call = None
        if self.ledger is not None:
            record = self.ledger.record(record)
        if ok:
            return CallResult(outcome.text, outcome.is_safe, outcome.raw, record)
        kind = "transient" if outcome.retryable else outcome.kind
        is_safe = False if kind == "safety" else None
        return CallResult(infer.ERROR_CALLING_LLM, is_safe, None, record, error_kind=kind)


def _with_json_instruction(
    messages: list[dict[str, Any]], schema: dict[str, Any]
) -> list[dict[str, Any]]:
    """The chat with the JSON instruction appended to its last user turn (for servers that take
    no response_format at all)."""
    out = [dict(m) for m in messages]
    for message in reversed(out):
        if message["role"] != "user":
            continue
        content = message["content"]
        if isinstance(content, str):
            message["content"] = f"{content}\n\n{_json_instruction(schema)}"
        else:
            message["content"] = [*content, {"type": "text", "text": _json_instruction(schema)}]
        break
    return out


def _json_instruction(schema: dict[str, Any]) -> str:
    return (
        "\n\nReply with only one JSON object (no prose, no code fences) that follows this JSON schema:\n"
        + json.dumps(schema, sort_keys=True)
    )


_PNG_CACHE: collections.OrderedDict[str, bytes] = collections.OrderedDict()
_PNG_CACHE_SIZE = 8
_PNG_LOCK = threading.Lock()


def _png_bytes(image: np.ndarray) -> bytes:
    """PNG-encode a screenshot (lossless, so small UI text survives; upstream's infer only has
    JPEG helpers). A step sends the same frame to the planner and to every verifier persona;
    hashing is cheap next to encoding, so each frame is encoded once (the last few are kept)."""
    from PIL import Image

    key = image_hash(image)
    with _PNG_LOCK:
        cached = _PNG_CACHE.get(key)
        if cached is not None:
            _PNG_CACHE.move_to_end(key)
            return cached
    buffer = io.BytesIO()
    Image.fromarray(np.asarray(image, dtype=np.uint8)).save(buffer, format="PNG")
    data = buffer.getvalue()
    with _PNG_LOCK:
        _PNG_CACHE[key] = data
        while len(_PNG_CACHE) > _PNG_CACHE_SIZE:
            _PNG_CACHE.popitem(last=False)
    return data


def _system_message(request: ModelRequest) -> list[dict[str, Any]]:
    """The chat-API message list's start: the system text, when there is one."""
    return [{"role": "system", "content": request.system}] if request.system else []


# --------------------------------------------------------------------------------------------------
# Gemini (google-genai)
# --------------------------------------------------------------------------------------------------


def is_gemma(model: str) -> bool:
    """Gemma on the Gemini API takes no system instruction and no JSON mode."""
    return model.lower().split("/")[-1].startswith("gemma")


class GeminiWrapper(BackendWrapper):
    """Gemini (and Gemma) through the maintained `google-genai` SDK.

    The key comes from `api_key_env`, else GOOGLE_API_KEY, else GEMINI_API_KEY. `base_url` points the
    SDK at another endpoint (a proxy, or a fake server in tests).
    """

    backend = "gemini"

    def __init__(
        self,
        role: str,
        model: str,
        *,
        api_key_env: str | None = None,
        base_url: str | None = None,
        thinking_budget: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(role, model, **kwargs)
        key, key_env = gemini_key(api_key_env)
        if not key:
            names = api_key_env or " or ".join(GEMINI_KEY_ENVS)
            raise ModelSetupError(
                f"{role}: backend gemini needs an API key: set {names} in the environment "
                "(https://aistudio.google.com/apikey), or choose another backend for this role"
            )
        from google import genai
        from google.genai import types

        self._types = types
        self.key_env = key_env
        self.base_url = base_url
        self.thinking_budget = thinking_budget
        http_options = types.HttpOptions(
            timeout=max(1, int(self.timeout_s * 1000)),  # milliseconds
            base_url=base_url,
        )
        self._client = genai.Client(api_key=key, http_options=http_options)

    def _config(self, request: ModelRequest) -> Any:
        types = self._types
        fields: dict[str, Any] = {
            "temperature": self.temperature,
            "max_output_tokens": self.max_output_tokens,
        }
        if not is_gemma(self.model):
            if request.system:
                fields["system_instruction"] = request.system
            if request.schema is not None:
                fields["response_mime_type"] = "application/json"
                fields["response_json_schema"] = request.schema
        budget = self._thinking_budget()
        if budget is not None:
            fields["thinking_config"] = types.ThinkingConfig(thinking_budget=budget)
        return types.GenerateContentConfig(**fields)

    def _thinking_budget(self) -> int | None:
        """2.5 models only; Pro cannot turn thinking off, so 0 becomes its minimum (128)."""
        if self.thinking_budget is None or "2.5" not in self.model or is_gemma(self.model):
            return None
        if "pro" in self.model and 0 <= self.thinking_budget < 128:
            return 128
        return self.thinking_budget

    def _contents(self, request: ModelRequest) -> list[Any]:
        """Turns as `Content`s (the assistant is `model`), consecutive same-role turns merged
        because the API expects alternating roles. Gemma gets system text and schema inline."""
        types = self._types
        turns = [(t.role, t.text, t.images) for t in request.turns()]
        if is_gemma(self.model):
            users = [i for i, turn in enumerate(turns) if turn[0] == "user"]
            if request.system and users:
                role, text, images = turns[users[0]]
                turns[users[0]] = (role, f"{request.system}\n\n{text}", images)
            if request.schema is not None and users:
                role, text, images = turns[users[-1]]
                turns[users[-1]] = (role, text + _json_instruction(request.schema), images)
        contents: list[Any] = []
        for role, text, images in turns:
            parts = [types.Part.from_text(text=text)] if text else []
            parts += [
                types.Part.from_bytes(data=_png_bytes(image), mime_type="image/png")
                for image in images
            ]
            api_role = "model" if role == "assistant" else "user"
            if contents and contents[-1].role == api_role:
                contents[-1].parts.extend(parts)
            else:
                contents.append(types.Content(role=api_role, parts=parts))
        return contents

    def where(self) -> str:
        return f"gemini {self.model}" + (f" at {self.base_url}" if self.base_url else "")

    def _send(self, request: ModelRequest) -> ModelReply:
        contents, config = self._contents(request), self._config(request)
        response = self._within_deadline(
            lambda: self._client.models.generate_content(
                model=self.model, contents=contents, config=config
            )
        )
        usage = response.usage_metadata
        prompt_tokens = (usage.prompt_token_count or 0) if usage else 0
        completion_tokens = 0
        if usage:
            completion_tokens = (usage.candidates_token_count or 0) + (
                usage.thoughts_token_count or 0
            )
        feedback = response.prompt_feedback
        if feedback is not None and feedback.block_reason:
            raise SafetyBlocked(
                f"gemini {self.model}: prompt blocked by safety filter ({_enum(feedback.block_reason)})"
            )
        candidates = response.candidates or []
        finish = (
            _enum(candidates[0].finish_reason) if candidates and candidates[0].finish_reason else ""
        )
        if finish in _GEMINI_UNSAFE_FINISH:
            raise SafetyBlocked(f"gemini {self.model}: answer blocked by safety filter ({finish})")
        text = _gemini_text(response)
        if not text:
            if finish == "MAX_TOKENS":
                raise ModelCallError(
                    f"gemini {self.model}: no text before max_output_tokens={self.max_output_tokens} "
                    "(thinking counts against it); raise max_output_tokens or lower thinking_budget"
                )
            raise ModelCallError(
                f"gemini {self.model}: empty answer (finish reason {finish or 'none'})"
            )
        return ModelReply(text, response, True, prompt_tokens, completion_tokens)

    def _classify(self, exc: BaseException) -> ModelCallError:
        where = self.where()
        status = _status_of(exc)
        if status is not None:
            return self._http_error(
                where,
                status,
                getattr(exc, "message", None) or str(exc),
                auth=f"the key in {self.key_env} was rejected; check it at "
                "https://aistudio.google.com/apikey",
                not_found=f"model '{self.model}' not found; set models.{self.role}.gemini_model "
                "to an available model (see client.models.list())",
            )
        fault = network_fault(exc)
        if fault is not None:
            start = "check models.gemini_base_url (unset: Google's endpoint)"
            return self._network_error(fault, exc, start)
        return ModelCallError(f"{where}: {type(exc).__name__}: {exc}")


def _enum(value: Any) -> str:
    return str(getattr(value, "name", value) or "")


def _gemini_text(response: Any) -> str:
    """The answer's text parts, skipping thought parts (response.text warns on mixed parts)."""
    candidates = response.candidates or []
    if not candidates or not candidates[0].content or not candidates[0].content.parts:
        return ""
    return "".join(
        part.text
        for part in candidates[0].content.parts
        if part.text and not getattr(part, "thought", False)
    )


# --------------------------------------------------------------------------------------------------
# Ollama
# --------------------------------------------------------------------------------------------------


class OllamaWrapper(BackendWrapper):
    """A model on an Ollama server (UI-TARS for the executor, or any vision model).

    The client's default timeout is unlimited, so we always set one; `num_ctx` defaults high because
    a few screenshots exceed Ollama's small default context and would be silently truncated.
    """

    backend = "ollama"
    timeout_note = " (the first call also loads the model)"

    def __init__(
        self,
        role: str,
        model: str,
        *,
        host: str | None = None,
        num_ctx: int = 16384,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("timeout_s", 120.0)  # the first call also loads the model
        super().__init__(role, model, **kwargs)
        import ollama

        self._ollama = ollama
        self.host = host or os.environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST
        self.num_ctx = max(int(num_ctx), 16384)
        self._client = ollama.Client(host=self.host, timeout=self.timeout_s)

    def _send(self, request: ModelRequest) -> ModelReply:
        messages = _system_message(request)
        for turn in request.turns():
            message: dict[str, Any] = {"role": turn.role, "content": turn.text}
            if turn.images:
                message["images"] = [_png_bytes(image) for image in turn.images]
            messages.append(message)
        options = {
            "num_ctx": self.num_ctx,
            "temperature": self.temperature,
            "num_predict": self.max_output_tokens,
        }
        response = self._within_deadline(
            lambda: self._client.chat(
                model=self.model, messages=messages, format=request.schema, options=options
            )
        )
        text = response.message.content or ""
        return ModelReply(
            text,
            response,
            None,
            int(response.prompt_eval_count or 0),
            int(response.eval_count or 0),
        )

    def where(self) -> str:
        return f"ollama at {self.host}"

    def _classify(self, exc: BaseException) -> ModelCallError:
        where = self.where()
        if isinstance(exc, self._ollama.ResponseError):
            status = exc.status_code
            if status == 404:
                return ModelCallError(
                    f"{where}: model '{self.model}' is not pulled; run `ollama pull {self.model}`"
                )
            return self._http_error(
                where,
                status,
                exc.error,
                auth="the server refused the request",
                not_found=f"model '{self.model}' is not pulled; run `ollama pull {self.model}`",
            )
        fault = network_fault(exc)
        if fault is not None:
            start = "start the server with `ollama serve` (or point models.ollama_host at a running one)"
            return self._network_error(fault, exc, start)
        return super()._classify(exc)


# --------------------------------------------------------------------------------------------------
# OpenAI-compatible servers (vLLM, SGLang, LM Studio, llama.cpp server, OpenAI itself)
# --------------------------------------------------------------------------------------------------


class OpenAICompatibleWrapper(BackendWrapper):
    """Any `/v1/chat/completions` server through the `openai` client.

    Local servers need no key, so without `api_key_env` we send a dummy; the SDK's own retries are
    off (`max_retries=0`) because we retry and count in `BackendWrapper.call`.
    """

    backend = "openai"

    def __init__(
        self,
        role: str,
        model: str,
        *,
        base_url: str,
        api_key_env: str | None = None,
        structured_output: str = "auto",
        **kwargs: Any,
    ) -> None:
        super().__init__(role, model, **kwargs)
        import openai

        if structured_output not in ("auto", *celil_negotiation.JSON_FORMS):
            raise ModelSetupError(
                f"{role}: structured_output must be auto, "
                f"{', '.join(celil_negotiation.JSON_FORMS)}; got {structured_output!r}"
            )
        self.structured_output = structured_output

        self._openai = openai
        self.base_url = base_url
        self.api_key_env = api_key_env
        key = read_secret(api_key_env) if api_key_env else None
        if api_key_env and not key:
            raise ModelSetupError(
                f"{role}: models.{role}.api_key_env names {api_key_env}, which is not set in the environment"
            )
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=key or OPENAI_DUMMY_KEY,
            timeout=self.timeout_s,
            max_retries=0,
        )

    def _send(self, request: ModelRequest) -> ModelReply:
        messages = _system_message(request)
        for turn in request.turns():
            if not turn.images:
                messages.append({"role": turn.role, "content": turn.text})
                continue
            parts: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
            for image in turn.images:
                url = "data:image/png;base64," + base64.b64encode(_png_bytes(image)).decode()
                parts.append({"type": "image_url", "image_url": {"url": url}})
            messages.append({"role": turn.role, "content": parts})
        answer, raw = self._create_negotiated(messages, request.schema)
        if answer.finish_reason == "content_filter":
            raise SafetyBlocked(f"{self.where()}: answer blocked by content filter")
        return ModelReply(
            answer.text, raw, None, answer.prompt_tokens, answer.completion_tokens, model=None
        )

    def where(self) -> str:
        return f"openai-compatible server at {self.base_url}"

    def _json_form(self) -> str:
        if self.structured_output != "auto":
            return self.structured_output
        facts = celil_negotiation.SERVERS.facts(self.server_key(), self.model)
        return facts.json_form or celil_negotiation.JSON_FORMS[0]

    def _create(
        self, messages: list[dict[str, Any]], form: str | None, schema: Any
    ) -> tuple[celil_faults.ChatAnswer, Any]:
        """One request (under the deadline), read as a chat completion: (answer, raw response)."""
        kwargs: dict[str, Any] = {}
        if schema is not None and form is not None:
            response_format = celil_negotiation.response_format(form, schema)
            if response_format is None:  # "none": the schema rides in the last user turn
                messages = _with_json_instruction(messages, schema)
            else:
                kwargs["response_format"] = response_format

        def send() -> tuple[Any, str, str]:
            # The raw response, so that its content type and body are ours to check: the SDK
            # hands back an event stream it was not asked for as a bare str.
            response = self._client.chat.completions.with_raw_response.create(
                model=self.model,
                messages=messages,
                temperature=self.temperature,
                max_tokens=self.max_output_tokens,
                **kwargs,
            )
            return response, response.headers.get("content-type", ""), response.text

        response, content_type, body = self._within_deadline(send)
        answer = self._read_answer(content_type, body)
        try:
            raw = response.parse()  # the SDK's ChatCompletion, as callers of `raw` expect
        except Exception:
            raw = json.loads(body)
        return answer, raw

    def _read_answer(self, content_type: str, body: str) -> celil_faults.ChatAnswer:
        """A 200's body as a chat completion; anything else is a failed call that says what came.

        Not retried: a server (or a proxy before it) that answers so does it every time."""
        where = f"{self.where()}: HTTP 200"
        if celil_faults.looks_streamed(content_type, body):
            raise ModelCallError(
                f"{where} but the answer is an event stream (text/event-stream) though none was "
                "asked for (stream off); the server or a proxy in front of it streams every "
                "answer: check models.openai_base_url points at the server itself"
            )
        try:
            parsed = json.loads(body)
        except ValueError:
            raise ModelCallError(
                f"{where} but the answer is not JSON: {_excerpt(body, 120)!r}"
            ) from None
        try:
            return celil_faults.read_chat_completion(parsed)
        except celil_faults.MalformedAnswer as exc:
            raise ModelCallError(
                f"{where} but the answer is malformed: {exc} (body: {_excerpt(body, 120)}); "
                "check the server's OpenAI compatibility"
            ) from None

    def _create_negotiated(
        self, messages: list[dict[str, Any]], schema: Any
    ) -> tuple[celil_faults.ChatAnswer, Any]:
        """Send with the JSON form that works here; under `auto`, a server that refuses the form
        is asked again with the next one (each re-send counted in the ledger), and the one that
        works is remembered."""
        form = self._json_form() if schema is not None else None
        while True:
            try:
                return self._create(messages, form, schema)
            except Exception as exc:
                failure = self._failure(exc)
                following = celil_negotiation.next_form(form) if form else None
                if (
                    self.structured_output != "auto"
                    or following is None
                    or not celil_negotiation.refuses_format(failure.status, failure.detail)
                ):
                    raise failure from None
                note = f"server refused response_format {form}; using {following}"
                celil_negotiation.SERVERS.learn_form(self.server_key(), self.model, following, note)
                self._note(note)
                self._count_resend()
                form = following

    def _classify(self, exc: BaseException) -> ModelCallError:
        openai = self._openai
        where = self.where()
        if isinstance(exc, openai.APIConnectionError):  # APITimeoutError is one too
            fault = network_fault(exc) or celil_faults.UNREACHABLE
            if isinstance(exc, openai.APITimeoutError):
                fault = celil_faults.TIMEOUT
            start = (
                f"start the server (e.g. `vllm serve {self.model}`) or fix models.openai_base_url"
            )
            return self._network_error(fault, exc, start)
        if isinstance(exc, openai.APIStatusError):
            return self._http_error(
                where,
                exc.status_code,
                _status_detail(exc),
                auth=f"the key was rejected ({self.api_key_env or 'no key (api_key_env unset)'})",
                not_found=f"model '{self.model}' is not served there; check GET "
                f"{self.base_url.rstrip('/')}/models and models.{self.role}.openai_model",
            )
        return super()._classify(exc)


# --------------------------------------------------------------------------------------------------
# Recording and replay
# --------------------------------------------------------------------------------------------------


class JsonlRecorder:
    """Appends one JSON line per call, flushed per line, shared safely by all roles' wrappers."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def write(self, entry: dict[str, Any]) -> None:
        line = redact(json.dumps(entry, ensure_ascii=False, sort_keys=True))
        with self._lock, self.path.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")
            handle.flush()


_RECORDERS: dict[str, JsonlRecorder] = {}
_RECORDERS_LOCK = threading.Lock()


def recorder_for(path: str | Path) -> JsonlRecorder:
    """One recorder (one lock) per file, so several roles recording to one file do not interleave."""
    key = str(Path(path).resolve())
    with _RECORDERS_LOCK:
        if key not in _RECORDERS:
            _RECORDERS[key] = JsonlRecorder(path)
        return _RECORDERS[key]


class RecordingWrapper(CelilModel):
    """Wraps any wrapper and records each call (what replay needs, and nothing secret)."""

    def __init__(
        self,
        inner: infer.LlmWrapper | infer.MultimodalLlmWrapper,
        path: str | Path,
        role: str | None = None,
    ) -> None:
        self.inner = inner
        self.role = role or getattr(inner, "role", "") or "unknown"
        self.backend = getattr(inner, "backend", type(inner).__name__)
        self.model = getattr(inner, "model", "")
        self.recorder = recorder_for(path)

    def call(self, request: ModelRequest) -> CallResult:
        if isinstance(self.inner, CelilModel):
            result = self.inner.call(request)
        else:
            result = _call_plain(self.inner, request, self.role, self.backend, self.model)
        record = result.record
        self.recorder.write(
            {
                "role": self.role,
                "backend": record.backend,
                "model": record.model,
                "request_hash": request.request_hash(),
                "turns": len(request.turns()),
                "prompt_chars": request.text_chars(),
                "images": request.image_hashes(),
                "response_text": result.text,
                "is_safe": result.is_safe,
                "error": record.error,
                "error_kind": result.error_kind,
                "usage": {
                    "prompt_tokens": record.prompt_tokens,
                    "completion_tokens": record.completion_tokens,
                    "latency_s": round(record.latency_s, 4),
                    "retries": record.retries,
                },
                "ts": round(time.time(), 3),
            }
        )
        return result


def _call_plain(
    wrapper: Any, request: ModelRequest, role: str, backend: str, model: str
) -> CallResult:
    """Call a plain `infer` wrapper (not ours) through the same result type."""
    started = time.monotonic()
    try:
        if request.messages and callable(getattr(wrapper, "predict_messages", None)):
            text, is_safe, raw = wrapper.predict_messages(list(request.messages))
        elif request.messages:
            prompt, images = flatten_messages(request.messages)
            text, is_safe, raw = wrapper.predict_mm(prompt, images)
        elif request.images:
            text, is_safe, raw = wrapper.predict_mm(request.prompt, list(request.images))
        else:
            text, is_safe, raw = wrapper.predict(request.prompt)
        error = None if text != infer.ERROR_CALLING_LLM else "wrapped model returned an error"
    except Exception as exc:
        text, is_safe, raw, error = (
            infer.ERROR_CALLING_LLM,
            None,
            None,
            redact(f"{type(exc).__name__}: {exc}"),
        )
    record = CallRecord(
        role,
        backend,
        model,
        latency_s=time.monotonic() - started,
        error=error,
        request_hash=request.request_hash(),
        ts=time.time(),
    )
    return CallResult(text, is_safe, raw, record, error_kind="fatal" if error else None)


class ReplayWrapper(BackendWrapper):
    """Answers from a recording, deterministically by (role, request hash) and occurrence order.

    The n-th identical request of a role gets the n-th recorded answer for it, so repeated prompts
    (the same screen twice) replay in order. Tokens are the recorded ones (so usage totals match the
    recorded run); cost is 0 because nothing was spent.
    """

    backend = "replay"

    def __init__(
        self,
        role: str,
        path: str | Path,
        *,
        strict: bool = False,
        ledger: UsageLedger | None = None,
    ) -> None:
        super().__init__(role, "", ledger=ledger, max_retries=0)
        self.path = Path(path)
        if not self.path.is_file():
            raise ModelSetupError(
                f"{role}: replay file {self.path} does not exist; record one first with models.record: PATH"
            )
        self.strict = strict
        self._lock = threading.Lock()
        self._entries: dict[str, list[dict[str, Any]]] = {}
        self._used: dict[str, int] = {}
        self._calls = 0
        models: set[str] = set()
        backends: collections.Counter[str] = collections.Counter()
        lines = self.path.read_text(encoding="utf-8").splitlines(keepends=True)
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as exc:
                if number == len(lines) and not line.endswith("\n"):
                    # A recording run killed mid-write leaves a torn last line; every call
                    # before it is still a good recording.
                    logger.warning("%s:%d: ignoring a torn last line", self.path, number)
                    continue
                raise ModelSetupError(
                    f"{self.path}:{number}: not a JSON line ({exc.msg})"
                ) from None
            if not isinstance(entry, dict) or not entry.get("request_hash"):
                raise ModelSetupError(
                    f"{self.path}:{number}: not a recorded model call (no request_hash); "
                    "record one with models.record: PATH"
                )
            if entry.get("role") != role:
                continue
            self._entries.setdefault(entry["request_hash"], []).append(entry)
            models.add(entry.get("model", ""))
            backends[entry.get("backend") or ""] += 1
        self.model = sorted(models)[0] if len(models) == 1 else ("mixed" if models else "")
        # The backend that produced most of the recorded answers (it decides coordinates).
        self.recorded_backend = backends.most_common(1)[0][0] if backends else ""

    @property
    def entry_count(self) -> int:
        return sum(len(entries) for entries in self._entries.values())

    def call(self, request: ModelRequest) -> CallResult:
        result = super().call(request)
        if self.strict and result.error_kind == "replay_miss":
            raise ReplayMissError(result.record.error or "replay miss")
        return result

    def _send(self, request: ModelRequest) -> ModelReply:
        rhash = request.request_hash()
        with self._lock:
            self._calls += 1
            call_number = self._calls
            occurrence = self._used.get(rhash, 0)
            self._used[rhash] = occurrence + 1
        entries = self._entries.get(rhash, [])
        if occurrence >= len(entries):
            seen = f"{len(entries)} recorded" if entries else "never recorded"
            raise ReplayMissError(
                f"replay: no recorded answer for role '{self.role}' call #{call_number} (request "
                f"{rhash[:12]}, occurrence {occurrence + 1}, {seen}) in {self.path}; the prompt or "
                "screen differs from the recorded run: re-record with models.record"
            )
        entry = entries[occurrence]
        if entry.get("error_kind") == "safety":
            raise SafetyBlocked(entry.get("error") or "replayed safety block")
        if entry.get("error"):
            raise ModelCallError(
                f"replayed error: {entry['error']}", kind=entry.get("error_kind") or "fatal"
            )
        usage = entry.get("usage") or {}
        return ModelReply(
            entry.get("response_text", ""),
            {"replayed": True, "request_hash": rhash, "occurrence": occurrence + 1},
            entry.get("is_safe"),
            int(usage.get("prompt_tokens", 0)),
            int(usage.get("completion_tokens", 0)),
            model=entry.get("model") or None,
        )


# --------------------------------------------------------------------------------------------------
# Fallback
# --------------------------------------------------------------------------------------------------


class FallbackWrapper(CelilModel):
    """Primary first; on a non-safety failure (retries exhausted, model unavailable) the secondary.

    Used by `auto` on Gemini: the planner on the stronger model falls back to the cheaper one and the
    verifiers the other way round. Both attempts are in the ledger.
    """

    def __init__(self, primary: CelilModel, secondary: CelilModel) -> None:
        self.primary = primary
        self.secondary = secondary
        self.role = primary.role
        self.backend = primary.backend
        self.model = primary.model
        self.fallbacks = 0

    def call(self, request: ModelRequest) -> CallResult:
        result = self.primary.call(request)
        if result.ok or result.error_kind in ("safety", "replay_miss"):
            return result
        self.fallbacks += 1
        return self.secondary.call(request)

    def describe(self) -> str:
        return f"{self.primary.describe()} (fallback {self.secondary.model})"


# --------------------------------------------------------------------------------------------------
# Building wrappers and resolving `auto`
# --------------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Resolution:
    """What a role got: backend, model, a one-line human reason (no secrets) and the wrapper.

    `wrapper` is None for `offline` (the offline roles live in offline.py).
    """

    role: str
    backend: str
    model: str
    reason: str
    wrapper: CelilModel | None = None
    coordinates: str = "absolute_resized"
    """How the model's points read (executor): `absolute_resized` or `relative_1000`; a config
    value of `auto` is settled here, by the backend that answers (see `default_coordinates`)."""

    def __post_init__(self) -> None:
        # Reasons name server URLs; they reach the console banner and manifest.json.
        self.reason = redact(self.reason)

    def line(self) -> str:
        model = f" {self.model}" if self.model else ""
        return f"{self.role}: {self.backend}{model} — {self.reason}"

    def to_dict(self) -> dict[str, str]:
        """For manifest.json's resolved model backends."""
        return {
            "role": self.role,
            "backend": self.backend,
            "model": self.model,
            "reason": self.reason,
            "coordinates": self.coordinates,
        }


def _common_kwargs(settings: RoleSettings, ledger: UsageLedger | None) -> dict[str, Any]:
    """What every network backend takes alike (see `BackendWrapper.__init__`)."""
    return {
        "ledger": ledger,
        "max_retries": settings.max_retries,
        "retry_initial_delay_s": settings.retry_initial_delay_s,
        "retry_max_delay_s": settings.retry_max_delay_s,
        "temperature": settings.temperature,
        "timeout_s": settings.timeout_s,
        "deadline_s": settings.request_deadline_s(),
        "max_output_tokens": settings.max_output_tokens,
        "images": settings.images,
    }


def build_wrapper(
    backend: str,
    settings: RoleSettings,
    ledger: UsageLedger | None = None,
    model: str | None = None,
) -> CelilModel:
    """A wrapper for `backend` from settings (no probing, no recording). Raises ModelSetupError."""
    role = settings.role
    model = model if model is not None else settings.model_for(backend)
    common = _common_kwargs(settings, ledger)
    if backend == "gemini":
        if not model:
            raise ModelSetupError(
                f"{role}: no Gemini model configured (models.{role}.gemini_model)"
            )
        return GeminiWrapper(
            role,
            model,
            api_key_env=settings.api_key_env,
            base_url=settings.url_for("gemini"),
            thinking_budget=settings.thinking_budget,
            **common,
        )
    if backend == "ollama":
        if not model:
            raise ModelSetupError(
                f"{role}: no Ollama model configured (models.{role}.ollama_model)"
            )
        return OllamaWrapper(
            role,
            model,
            host=settings.url_for("ollama"),
            num_ctx=settings.num_ctx,
            **common,
        )
    if backend == "openai":
        base_url = settings.url_for("openai")
        if not base_url:
            raise ModelSetupError(
                f"{role}: backend openai needs a server URL: set models.openai_base_url "
                f"(or models.{role}.base_url), e.g. http://127.0.0.1:8000/v1"
            )
        if not model:
            raise ModelSetupError(f"{role}: no model configured (models.{role}.openai_model)")
        return OpenAICompatibleWrapper(
            role,
            model,
            base_url=base_url,
            api_key_env=settings.api_key_env,
            structured_output=settings.structured_output,
            **common,
        )
    if backend == "replay":
        if not settings.replay_path:
            raise ModelSetupError(f"{role}: backend replay needs models.replay_path")
        return ReplayWrapper(
            role, settings.replay_path, strict=settings.replay_strict, ledger=ledger
        )
    raise ModelSetupError(
        f"{role}: unknown backend '{backend}' (choose one of {', '.join(BACKENDS)})"
    )


def _gemini_wrapper(settings: RoleSettings, ledger: UsageLedger | None) -> CelilModel:
    primary = build_wrapper("gemini", settings, ledger)
    fallback = settings.gemini_fallback_model
    if fallback and fallback != primary.model:
        return FallbackWrapper(primary, build_wrapper("gemini", settings, ledger, model=fallback))
    return primary


def _normalise_tag(name: str) -> str:
    return name if ":" in name.split("/")[-1] else f"{name}:latest"


def probe_ollama(host: str, model: str, timeout_s: float = 2.0) -> tuple[bool, str]:
    """Is the Ollama server up and is `model` pulled? (ok, human reason naming the fix)."""
    import httpx

    url = host.rstrip("/")
    if "://" not in url:
        url = f"http://{url}"
    try:
        response = httpx.get(f"{url}/api/tags", timeout=timeout_s)
        response.raise_for_status()
        names = {
            _normalise_tag(m.get("name") or m.get("model") or "")
            for m in response.json().get("models", [])
        }
    except (httpx.HTTPError, ValueError) as exc:
        return (
            False,
            f"Ollama at {host} not reachable ({type(exc).__name__}); start it with `ollama serve`",
        )
    if not model:
        return False, f"Ollama at {host} is up but no ollama_model is configured"
    if _normalise_tag(model) not in names:
        return (
            False,
            f"Ollama at {host} is up but '{model}' is not pulled; run `ollama pull {model}`",
        )
    return True, f"Ollama at {host} is up and '{model}' is pulled"


def probe_openai(
    base_url: str, model: str, api_key_env: str | None, timeout_s: float = 2.0
) -> tuple[bool, str, str]:
    """Is the OpenAI-compatible server up (GET /models)? (ok, reason, model to use).

    With no model configured we take the first one the server lists, which is what a single-model
    local server (LM Studio, llama.cpp, vLLM) expects.
    """
    import httpx

    headers = {}
    key = read_secret(api_key_env) if api_key_env else None
    if key:
        headers["Authorization"] = f"Bearer {key}"
    try:
        response = httpx.get(f"{base_url.rstrip('/')}/models", timeout=timeout_s, headers=headers)
        response.raise_for_status()
        served = [m.get("id", "") for m in response.json().get("data", [])]
    except httpx.HTTPStatusError as exc:
        status = exc.response.status_code
        hint = " (still loading its model? wait and try again)" if status == 503 else ""
        return False, f"OpenAI-compatible server at {base_url} answered HTTP {status}{hint}", model
    except httpx.TimeoutException:
        return (
            False,
            f"OpenAI-compatible server at {base_url} did not answer within {timeout_s:g}s "
            "(busy? raise models.probe_timeout_s)",
            model,
        )
    except (httpx.HTTPError, ValueError) as exc:
        return (
            False,
            f"OpenAI-compatible server at {base_url} not reachable ({type(exc).__name__})",
            model,
        )
    if not model:
        if not served:
            return False, f"OpenAI-compatible server at {base_url} serves no models", model
        return (
            True,
            f"OpenAI-compatible server at {base_url} is up; using its first model",
            served[0],
        )
    if served and model not in served:
        return (
            False,
            f"OpenAI-compatible server at {base_url} does not serve '{model}' (serves {', '.join(served[:3])})",
            model,
        )
    return True, f"OpenAI-compatible server at {base_url} is up and serves '{model}'", model


def default_coordinates(backend: str) -> str:
    """The executor's point convention when the config leaves it on `auto`.

    UI-TARS-1.5 (what Ollama and OpenAI-compatible servers run for this role) writes pixels of the
    image it was sent. Gemini models are trained to point on a 0..1000 grid over the image and,
    asked for UI-TARS actions, write points on that grid, so absolute pixels would land in the top
    left of the screen.
    """
    return RELATIVE_1000 if backend == "gemini" else ABSOLUTE_RESIZED


def _resolved(
    settings: RoleSettings,
    backend: str,
    wrapper: CelilModel,
    reason: str,
    *,
    model_backend: str | None = None,
) -> Resolution:
    """The Resolution of a built wrapper: recording wrapped around it, coordinates settled.

    `model_backend` is the backend that produced the answers when that is not `backend` (replay
    answers as the recorded backend did, so it points like it)."""
    coordinates = settings.coordinates
    if coordinates == "auto":
        coordinates = default_coordinates(model_backend or backend)
    if settings.record_path:
        reason = f"{reason}; recording to {settings.record_path}"
        wrapper = RecordingWrapper(wrapper, settings.record_path, role=settings.role)
    return Resolution(settings.role, backend, wrapper.model, reason, wrapper, coordinates)


def _resolve_explicit(settings: RoleSettings, ledger: UsageLedger | None) -> Resolution:
    role, backend = settings.role, settings.backend
    if backend == "gemini":
        wrapper = _gemini_wrapper(settings, ledger)
        _, key_env = gemini_key(settings.api_key_env)
        return _resolved(settings, backend, wrapper, f"configured; key from {key_env}")
    wrapper = build_wrapper(backend, settings, ledger)
    if isinstance(wrapper, ReplayWrapper):
        if not wrapper.entry_count:
            # The recorded run made no calls for this role: it ran offline, so replay does too.
            reason = f"replay: no recorded calls for {role} in {settings.replay_path} (offline when recorded)"
            return Resolution(role, "offline", "", reason)
        reason = f"configured ({settings.replay_path}, recorded on {wrapper.recorded_backend})"
        return _resolved(settings, backend, wrapper, reason, model_backend=wrapper.recorded_backend)
    return _resolved(settings, backend, wrapper, f"configured ({settings.url_for(backend)})")


def _try_auto(
    candidate: str, settings: RoleSettings, ledger: UsageLedger | None
) -> Resolution | str:
    """`candidate` as the role's backend if it can work now, else why not (one phrase)."""
    if candidate == "gemini":
        _, key_env = gemini_key(settings.api_key_env)
        if not key_env:
            return f"no {settings.api_key_env or '/'.join(GEMINI_KEY_ENVS)}"
        if not settings.model_for("gemini"):
            return "no gemini_model"
        wrapper = _gemini_wrapper(settings, ledger)
        reason = f"auto: {key_env} is set"
        if isinstance(wrapper, FallbackWrapper):
            reason += f"; falls back to {wrapper.secondary.model}"
        return _resolved(settings, "gemini", wrapper, reason)
    if candidate == "ollama":
        host = settings.url_for("ollama") or DEFAULT_OLLAMA_HOST
        ok, why = probe_ollama(host, settings.model_for("ollama"), settings.probe_timeout_s)
        if not ok:
            return why
        return _resolved(
            settings, "ollama", build_wrapper("ollama", settings, ledger), f"auto: {why}"
        )
    if candidate == "openai":
        base_url = settings.url_for("openai")
        if not base_url:
            return "no openai_base_url configured"
        ok, why, model = probe_openai(
            base_url, settings.model_for("openai"), settings.api_key_env, settings.probe_timeout_s
        )
        if not ok:
            return why
        wrapper = build_wrapper("openai", settings, ledger, model=model)
        return _resolved(settings, "openai", wrapper, f"auto: {why}")
    return f"unknown auto backend '{candidate}'"


def resolve_role(
    role: str, settings: RoleSettings, ledger: UsageLedger | None = None
) -> Resolution:
    """Choose and build a role's model. Explicit backends are respected (and not probed).

    `auto` tries `settings.auto_order` (default gemini, ollama, openai): Gemini when a key is set,
    Ollama when reachable with the model pulled, an OpenAI-compatible server when configured and
    reachable; otherwise `offline`. Raises ModelSetupError for an explicit backend that cannot work.
    """
    if settings.role != role:
        settings = dataclasses.replace(settings, role=role)
    backend = settings.backend
    if backend == "offline":
        return Resolution(role, "offline", "", "configured offline (no model calls)")
    if backend not in BACKENDS:
        raise ModelSetupError(
            f"{role}: unknown backend '{backend}' (choose one of {', '.join(BACKENDS)})"
        )
    if backend != "auto":
        return _resolve_explicit(settings, ledger)
    skipped: list[str] = []
    configured_openai: str | None = None
    for candidate in settings.auto_order:
        outcome = _try_auto(candidate, settings, ledger)
        if isinstance(outcome, Resolution):
            return outcome
        skipped.append(outcome)
        if candidate == "openai" and settings.url_for("openai"):
            configured_openai = outcome
    if configured_openai is not None:
        # A server the user named and cannot be used is a mistake to fix, not a reason to run
        # the whole benchmark silently on the offline roles.
        raise ModelSetupError(
            f"{role}: models.openai_base_url is set but unusable: {configured_openai}; start or "
            "fix the server, or remove openai_base_url to let `auto` run offline"
        )
    reason = (
        "auto: no model available (" + "; ".join(skipped) + ")"
        if skipped
        else "auto: nothing to try"
    )
    return Resolution(role, "offline", "", redact(reason))
