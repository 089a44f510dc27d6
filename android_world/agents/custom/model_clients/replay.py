"""Recording every call to a JSONL file, and answering from such a file (deterministic re-runs,
tests): what replay needs and nothing secret."""

from __future__ import annotations

import collections
import json
import logging
import threading
import time
from pathlib import Path
from typing import Any

from android_world.agents import infer
from android_world.agents.custom.celil_secrets import redact
from android_world.agents.custom.model_clients.call_types import (
    CallResult,
    ModelReply,
    ModelRequest,
)
from android_world.agents.custom.model_clients.client import CelilModel, call_infer_wrapper
from android_world.agents.custom.model_clients.errors import (
    ModelCallError,
    ModelSetupError,
    ReplayMissError,
    SafetyBlocked,
)
from android_world.agents.custom.model_clients.ledger import UsageLedger
from android_world.agents.custom.model_clients.retries import BackendWrapper

logger = logging.getLogger(__name__)


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
            result = call_infer_wrapper(self.inner, request, self.role, self.backend, self.model)
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
