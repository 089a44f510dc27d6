"""The one entry point every model client offers, `call(ModelRequest) -> CallResult`, and
`infer`'s two interfaces over it (so upstream's agents can use the same clients).

Roles call `call` and nothing else. A plain `infer` wrapper (one that only has `predict` and
`predict_mm`) is reached through `call_infer_wrapper`, as the recorder does when it wraps one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from android_world.agents import infer
from android_world.agents.custom.celil_secrets import redact
from android_world.agents.custom.model_clients.call_types import (
    CallRecord,
    CallResult,
    ChatMessage,
    ModelRequest,
)


class ModelClient(Protocol):
    """What a role needs of a model: one typed request in, one typed answer out, never a raise
    for a failed call (the answer says how it failed). The client is built for one role, so the
    ledger's role is the client's."""

    def call(self, request: ModelRequest) -> CallResult: ...


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


def call_infer_wrapper(
    wrapper: Any, request: ModelRequest, role: str, backend: str, model: str
) -> CallResult:
    """Call a plain `infer` wrapper (not ours) through the same result type."""
    started = time.monotonic()
    try:
        if request.messages and callable(getattr(wrapper, "predict_messages", None)):
            text, is_safe, raw = wrapper.predict_messages(list(request.messages))
        elif request.messages:
            prompt, images = request.flattened()
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
