"""Every model call of a run in one ledger (tokens, latency, retries, error, cost), with the token
estimate for servers that report no usage and the price table's lookup."""

from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from android_world.agents.custom.model_clients.call_types import CallRecord, ModelRequest
from android_world.agents.custom.model_clients.errors import excerpt

Price = tuple[float, float]  # USD per million (input, output) tokens


# Vision encoders of the UI-TARS / Qwen2-VL family read 28x28-pixel patches, one token each.
IMAGE_PATCH_PX = 28
CHARS_PER_TOKEN = 4


def image_tokens(image: np.ndarray) -> int:
    height, width = image.shape[:2]
    return math.ceil(height / IMAGE_PATCH_PX) * math.ceil(width / IMAGE_PATCH_PX)


def estimate_tokens(request: ModelRequest, answer: str, added_chars: int = 0) -> tuple[int, int]:
    """(prompt, completion) tokens for a server that reports no usage: text at ~4 characters a
    token plus every image (history screenshots included) at one token per 28x28 patch.
    `added_chars`: text the client added on its way (the schema for a server with no JSON mode),
    which the server read as well."""
    text = request.text_chars() + len(request.system or "") + max(0, added_chars)
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
        totals["first_error"] = f"{record.role}: {excerpt(record.error, 240)}"


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
