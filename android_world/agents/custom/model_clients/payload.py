"""Pieces of a request payload that several backends build alike: PNG screenshots (each frame
encoded once), the system message, and the JSON instruction for servers without a JSON mode."""

from __future__ import annotations

import collections
import io
import json
import threading
from typing import Any

import numpy as np

from android_world.agents.custom.model_clients.call_types import ModelRequest, image_hash


def with_json_instruction(
    messages: list[dict[str, Any]], schema: dict[str, Any]
) -> list[dict[str, Any]]:
    """The chat with the JSON instruction appended to its last user turn (for servers that take
    no response_format at all); `json_instruction_chars` is what that adds."""
    out = [dict(m) for m in messages]
    for message in reversed(out):
        if message["role"] != "user":
            continue
        content = message["content"]
        if isinstance(content, str):
            message["content"] = f"{content}\n\n{json_instruction(schema)}"
        else:
            message["content"] = [*content, {"type": "text", "text": json_instruction(schema)}]
        break
    return out


def json_instruction_chars(schema: dict[str, Any]) -> int:
    """The characters `with_json_instruction` adds to a text turn (the token estimate's share)."""
    return len(json_instruction(schema)) + 2


def json_instruction(schema: dict[str, Any]) -> str:
    return (
        "\n\nReply with only one JSON object (no prose, no code fences) that follows this JSON schema:\n"
        + json.dumps(schema, sort_keys=True)
    )


_PNG_CACHE: collections.OrderedDict[str, bytes] = collections.OrderedDict()
_PNG_CACHE_SIZE = 8
_PNG_LOCK = threading.Lock()


def png_bytes(image: np.ndarray) -> bytes:
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


def system_message(request: ModelRequest) -> list[dict[str, Any]]:
    """The chat-API message list's start: the system text, when there is one."""
    return [{"role": "system", "content": request.system}] if request.system else []
