"""What a role asks of a model and what it gets back: the chat message, the request (a prompt
with images, or a chat), the backend's reply and the call's result with its ledger record.

Plain data with no backend in it, so roles, the UI-TARS dialect and every client share them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from typing import Any

import numpy as np


@dataclasses.dataclass
class ChatMessage:
    """A backend-neutral chat message; any wrapper can turn it into its own API's shape."""

    role: str  # "user" or "assistant"
    text: str = ""
    images: list[np.ndarray] = dataclasses.field(default_factory=list)


def flatten_messages(messages: Sequence[ChatMessage]) -> tuple[str, list[np.ndarray]]:
    """One prompt plus an image list, for wrappers that only offer `predict_mm(text, images)`.

    Screenshot markers keep the text and the image order aligned so the model can tell which
    answer belonged to which screen.
    """
    parts: list[str] = []
    images: list[np.ndarray] = []
    for message in messages:
        for image in message.images:
            images.append(image)
            parts.append(f"[Screenshot {len(images)}]")
        if message.text:
            parts.append(message.text.rstrip("\n") if message.role == "user" else message.text)
    if images and messages and messages[-1].images:
        parts[-1] = f"{parts[-1]} (current screen)"
    return "\n\n".join(parts), images


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
    shape_in_prompt: bool = False
    """The prompt already states the reply's shape (an example of it), so a server with no JSON
    mode gets no schema appended: stated twice, a joint vote's shape cost ~170 tokens where the
    example alone is ~70. A server with a JSON mode still gets `schema` as its response format.
    Not part of `request_hash`: the model is asked the same thing either way."""

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

    def flattened(self) -> tuple[str, list[np.ndarray]]:
        """One prompt and its images, for a model that takes no chat: a chat is flattened with
        screenshot markers (`flatten_messages`), a prompt request is what it is."""
        if self.messages:
            return flatten_messages(self.messages)
        return self.prompt, list(self.images)

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

    @classmethod
    def answered(
        cls,
        text: str,
        is_safe: bool | None = None,
        raw: Any = None,
        *,
        role: str = "",
        backend: str = "",
        model: str = "",
    ) -> CallResult:
        """A successful answer from a model that keeps no ledger (scripted, in process)."""
        return cls(text, is_safe, raw, CallRecord(role, backend, model))

    @property
    def ok(self) -> bool:
        return self.error_kind is None

    def triple(self) -> tuple[str, bool | None, Any]:
        return self.text, self.is_safe, self.raw


@dataclasses.dataclass
class ModelReply:
    """A backend's successful answer."""

    text: str
    raw: Any
    is_safe: bool | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str | None = None
