"""The send loop every network backend shares: retries with backoff on transient faults, the
total deadline, re-sends in another shape after a refusal (fewer images), the ledger entry and
the redaction of what leaves it."""

from __future__ import annotations

import dataclasses
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from android_world.agents import infer
from android_world.agents.custom.celil_secrets import redact
from android_world.agents.custom.model_clients import faults, negotiation
from android_world.agents.custom.model_clients.call_types import (
    CallRecord,
    CallResult,
    ModelReply,
    ModelRequest,
)
from android_world.agents.custom.model_clients.client import CelilModel
from android_world.agents.custom.model_clients.errors import (
    RETRYABLE_STATUS,
    ModelCallError,
    excerpt,
    status_of,
)
from android_world.agents.custom.model_clients.faults import DeadlineExceeded, network_fault
from android_world.agents.custom.model_clients.ledger import UsageLedger, estimate_tokens

# An internal error that repeats is the server's answer to the request: re-sent once, not more.
MAX_500_RETRIES = 1


@dataclasses.dataclass
class _CallState:
    """What one call learned on its way (per thread: the verifier personas share a wrapper)."""

    notes: list[str] = dataclasses.field(default_factory=list)
    resends: int = 0
    # Text the client added to the request (a server with no JSON mode gets the schema in the
    # prompt): sent, so the token estimate counts it.
    added_chars: int = 0


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
        status = status_of(exc)
        detail = str(exc)
        refused = negotiation.is_refusal(status, detail)
        fault = network_fault(exc)
        if status is None and fault is not None:
            return self._network_error(fault, exc, "check that the server is running")
        retryable = status in RETRYABLE_STATUS and not refused
        return ModelCallError(
            f"{self.where()}: {type(exc).__name__}: {excerpt(detail)}",
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
        """One request under the total deadline (see faults.call_with_deadline)."""
        return faults.call_with_deadline(send, self.deadline_s)

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
        if fault == faults.TIMEOUT:
            return self._timed_out(where, deadline=isinstance(exc, DeadlineExceeded))
        if fault == faults.REFUSED:
            return ModelCallError(f"{where}: connection refused (nothing listens there); {start}")
        if fault == faults.RESET:
            message = (
                f"{where}: connection reset: the server closed the connection before answering "
                "(did it crash, restart or run out of memory?); check the server's log"
            )
        else:
            cause = str(list(faults.causes(exc))[-1]) or type(exc).__name__
            message = f"{where}: cannot connect ({excerpt(cause, 120)}); check the address"
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
        retryable = status in RETRYABLE_STATUS and not negotiation.is_refusal(status, text)
        return ModelCallError(
            f"{where}: HTTP {status}: {excerpt(text)}",
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

    def _count_added_text(self, chars: int) -> None:
        """Text the last request carried beyond the role's own (the estimate counts it)."""
        self._call_state().added_chars = chars

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
        return negotiation.SERVERS.facts(self.server_key(), self.model).max_images

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
            and negotiation.may_refuse_images(failure.status, failure.detail)
        ):
            raise failure
        return self._send_fewer_images(request, failure)

    def _send_fewer_images(self, request: ModelRequest, refusal: ModelCallError) -> ModelReply:
        """After a refusal of image parts: the limit the server stated (vLLM: "At most 1 image(s)
        may be provided in one request."), else one image (the current screen), else none. The
        count that works is kept for the rest of the run, as the JSON form is."""
        count = len(request.all_images())
        for limit in negotiation.image_fallbacks(count, refusal.detail):
            self._count_resend()
            try:
                reply = self._send(request.keeping_last_images(limit))
            except Exception as exc:
                failure = self._failure(exc)
                if negotiation.may_refuse_images(failure.status, failure.detail):
                    continue
                raise failure from None  # fewer images went through but failed otherwise
            note = negotiation.image_limit_note(self.model, limit, excerpt(refusal.detail, 80))
            negotiation.SERVERS.learn_image_limit(self.server_key(), self.model, limit, note)
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
            prompt_tokens, completion_tokens = estimate_tokens(
                request, outcome.text or "", state.added_chars
            )
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
