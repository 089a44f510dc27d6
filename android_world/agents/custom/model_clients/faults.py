"""What went wrong with a model request, told truly: network faults, the total deadline, and 200
answers that are not answers.

- `network_fault(exc)` reads an SDK exception's cause chain and says which fault it was: the
  server refused the connection (nothing listens: not worth retrying), reset or closed it before
  answering (it crashed or restarted: worth retrying), the request timed out, or the host could not
  be reached. SDKs wrap all of these in one "Connection error."; the chain keeps the truth.
- `call_with_deadline(fn, seconds)` bounds a whole request (connect, headers and every read of
  the body). An HTTP client's timeout bounds each read, so a server sending one byte every 0.3 s
  can hold a call for minutes; the request runs on a helper thread and the caller gets
  `DeadlineExceeded` when the time is up. The abandoned request ends on its own (its read
  timeout or the server's end) and its answer is dropped.
- `read_chat_completion(body)` checks an OpenAI-style 200 answer's shape (choices, message text,
  usage token counts) and names the first field that is wrong.

Pure functions and standard-library threads only (plus pydantic for the answer's shape).
"""

from __future__ import annotations

import contextvars
import errno
import math
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt, ValidationError

T = TypeVar("T")

REFUSED, RESET, TIMEOUT, UNREACHABLE = "refused", "reset", "timeout", "unreachable"

_RESET_ERRNOS = frozenset({errno.ECONNRESET, errno.ECONNABORTED, errno.EPIPE})
_UNREACHABLE_ERRNOS = frozenset({errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EHOSTDOWN})
# httpx/httpcore's name for "the peer closed the connection before a response"; http.client's and
# aiohttp's names for the same.
_RESET_TYPES = frozenset({"RemoteProtocolError", "RemoteDisconnected", "ServerDisconnectedError"})
_RESET_WORDS = (
    "connection reset",
    "server disconnected",
    "remote end closed",
    "connection aborted",
    "broken pipe",
    "peer closed connection",
)
_UNREACHABLE_WORDS = ("name or service not known", "nodename nor servname", "no route to host")


class DeadlineExceeded(TimeoutError):
    """A request was still unfinished when its total deadline passed."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"request unfinished after its {seconds:g}s deadline")
        self.seconds = seconds


def causes(exc: BaseException) -> Iterator[BaseException]:
    """The exception, then its causes and contexts (SDKs raise their own error `from` the
    transport's, which was raised from the socket's)."""
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        yield link
        link = link.__cause__ or link.__context__


def _fault_of_type(link: BaseException) -> str | None:
    if isinstance(link, TimeoutError) or "timeout" in type(link).__name__.lower():
        return TIMEOUT
    if isinstance(link, ConnectionRefusedError):
        return REFUSED
    if isinstance(link, ConnectionResetError | ConnectionAbortedError | BrokenPipeError):
        return RESET
    code = getattr(link, "errno", None)
    if code == errno.ECONNREFUSED:
        return REFUSED
    if code in _RESET_ERRNOS:
        return RESET
    if code in _UNREACHABLE_ERRNOS:
        return UNREACHABLE
    if type(link).__name__ in _RESET_TYPES:
        return RESET
    return None


def _fault_of_words(text: str) -> str | None:
    if "connection refused" in text:
        return REFUSED
    if any(words in text for words in _RESET_WORDS):
        return RESET
    if "timed out" in text:
        return TIMEOUT
    if any(words in text for words in _UNREACHABLE_WORDS):
        return UNREACHABLE
    return None


def network_fault(exc: BaseException) -> str | None:
    """ "refused", "reset", "timeout", "unreachable", or None when `exc` is no network fault.

    Exception types and errno values anywhere in the chain decide first; the messages only when
    no type does (some clients re-raise with text alone)."""
    links = list(causes(exc))
    for link in links:
        fault = _fault_of_type(link)
        if fault is not None:
            return fault
    for link in links:
        fault = _fault_of_words(str(link).lower())
        if fault is not None:
            return fault
    return None


def call_with_deadline(fn: Callable[[], T], seconds: float | None) -> T:
    """`fn()`, or DeadlineExceeded once `seconds` have passed (None: no deadline).

    `fn` runs on a daemon thread (with the caller's context variables) so that the caller's wait
    is bounded whatever the HTTP client does; its exceptions are re-raised here."""
    if seconds is None or not math.isfinite(seconds):
        return fn()
    outcome: list[tuple[bool, Any]] = []
    finished = threading.Event()
    context = contextvars.copy_context()

    def run() -> None:
        try:
            outcome.append((True, context.run(fn)))
        except BaseException as exc:  # handed to the caller below
            outcome.append((False, exc))
        finally:
            finished.set()

    threading.Thread(target=run, name="celil-model-request", daemon=True).start()
    if not finished.wait(max(0.0, seconds)):
        raise DeadlineExceeded(seconds)
    succeeded, value = outcome[0]
    if succeeded:
        return value
    raise value


# --------------------------------------------------------------------------------------------------
# The shape of an OpenAI-style chat completion
# --------------------------------------------------------------------------------------------------


class MalformedAnswer(ValueError):
    """A 200 answer that is not a chat completion; the message names what is wrong."""


class _Lenient(BaseModel):
    # Servers add fields of their own (llama.cpp's `timings`, vLLM's `prompt_logprobs`).
    model_config = ConfigDict(extra="ignore")


class _Usage(_Lenient):
    prompt_tokens: NonNegativeInt | None = None
    completion_tokens: NonNegativeInt | None = None


class _Message(_Lenient):
    content: str | None = None


class _Choice(_Lenient):
    message: _Message
    finish_reason: Any = None


class _Completion(_Lenient):
    choices: list[_Choice] = Field(min_length=1)
    usage: _Usage | None = None


class ChatAnswer(BaseModel):
    """What a call needs from a chat completion."""

    text: str
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int


def _where(location: tuple[int | str, ...]) -> str:
    path = ""
    for part in location:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


# pydantic's error types, in words about the answer rather than about our schema classes.
_EXPECTED = {
    "model_type": "not an object",
    "dict_type": "not an object",
    "list_type": "not a list",
    "string_type": "not text",
    "int_type": "not a token count",
    "int_parsing": "not a token count",
    "int_from_float": "not a token count",
    "greater_than_equal": "not a token count",
}


def _describe(error: Any) -> str:
    location = tuple(error.get("loc") or ())
    kind = error.get("type")
    if location == ("choices",) and kind in ("missing", "too_short", "list_type"):
        return "it has no choices (no answer)"
    if kind == "missing":
        return f"{_where(location)} is missing"
    shown = repr(error.get("input"))
    shown = shown if len(shown) <= 40 else shown[:39] + "…"
    return f"{_where(location)} is {shown}, {_EXPECTED.get(kind, error.get('msg', 'not valid'))}"


def read_chat_completion(body: Any) -> ChatAnswer:
    """The answer in a chat-completion body, or MalformedAnswer naming the first wrong field.

    Absent or null usage is allowed (the caller estimates tokens); usage that is present but not a
    token count is not, because a server that garbles its counts cannot be trusted with the rest."""
    if not isinstance(body, dict):
        raise MalformedAnswer(f"the answer is not a JSON object but {type(body).__name__}")
    try:
        completion = _Completion.model_validate(body)
    except ValidationError as exc:
        raise MalformedAnswer(_describe(exc.errors()[0])) from None
    choice = completion.choices[0]
    usage = completion.usage or _Usage()
    finish = choice.finish_reason
    return ChatAnswer(
        text=choice.message.content or "",
        finish_reason=finish if isinstance(finish, str) else None,
        prompt_tokens=usage.prompt_tokens or 0,
        completion_tokens=usage.completion_tokens or 0,
    )


def looks_streamed(content_type: str, text: str) -> bool:
    """An event stream (`text/event-stream`, or `data:` lines) where one JSON body was asked for."""
    return content_type.lower().startswith("text/event-stream") or text.lstrip().startswith("data:")
