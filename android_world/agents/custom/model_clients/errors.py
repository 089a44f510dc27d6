"""How a model call fails, as its caller reads it: a ready-made user-facing message (redacted),
whether a re-send may help, and the HTTP status and server words that tell a refusal of the
request's shape from a transient fault (see negotiation)."""

from __future__ import annotations

import json

from android_world.agents.custom.celil_secrets import redact

RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})


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
        # told from a transient failure (negotiation).
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


def excerpt(text: str, limit: int = 300) -> str:
    """A server's error body on one line and short enough for a table cell or a warning."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def status_detail(exc: BaseException) -> str:
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


def status_of(exc: BaseException) -> int | None:
    for attr in ("status_code", "code"):
        value = getattr(exc, attr, None)
        if isinstance(value, int):
            return value
    return None
