"""What a model server accepts, learned from its refusals and kept for the run.

Servers that speak the OpenAI API differ in what they take: llama-cpp-python's server refuses
`response_format: json_schema` (it wants `json_object` with a `schema`), a text-only model
behind llama.cpp refuses image parts, and vLLM serves many vision models with one image per
request unless started with `--limit-mm-per-prompt` ("At most 1 image(s) may be provided in one
request."). A refusal of that kind is deterministic: sending the same request again cannot help,
sending a different shape can. This module holds the pure rules (is this
failure a refusal of the request's shape, which shape comes next) and the per-server memory, so
the first call pays for the discovery and every later call of every role sends what works.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

from android_world.agents.custom.celil_secrets import redact

# The forms of asking an OpenAI-compatible server for JSON, most to least specific.
JSON_FORMS = ("json_schema", "json_object", "none")

# Words in an error body that mark a refusal of the request itself (the same request will fail
# again) rather than a transient server problem.
_REFUSAL_MARKERS = (
    "validation error",
    "literal_error",
    "not supported",
    "unsupported",
    "not implemented",
    "invalid",
    "can only concatenate",
    "must be a string",
    "expected str",
    "typeerror",
    "keyerror",
    "mmproj",
    "does not support",
)
_FORMAT_MARKERS = ("response_format", "json_schema", "json_object", "grammar")
_IMAGE_MARKERS = ("image", "multimodal", "vision", "mmproj", "content must be a string")
REFUSAL_STATUSES = frozenset({400, 415, 422, 500, 501})
# vLLM's words for a request over its per-request image limit (vllm-project/vllm#17092).
_STATED_IMAGE_LIMIT = re.compile(r"at most (\d{1,3}) image", re.I)


def is_refusal(status: int | None, detail: str) -> bool:
    """A 4xx, or a 5xx whose body says the request itself is wrong: retrying cannot help."""
    if status is None:
        return False
    if 400 <= status < 500 and status not in (408, 429):
        return True
    text = detail.lower()
    return status in REFUSAL_STATUSES and any(marker in text for marker in _REFUSAL_MARKERS)


def refuses_format(status: int | None, detail: str) -> bool:
    """The refusal names the JSON response format (e.g. llama-cpp-python's literal_error)."""
    text = detail.lower()
    return is_refusal(status, detail) and any(marker in text for marker in _FORMAT_MARKERS)


def may_refuse_images(status: int | None, detail: str) -> bool:
    """A refusal that could be about image parts: named as such, or a refusal that names nothing
    else (llama-cpp-python answers a list-valued content with a bare TypeError text)."""
    if not is_refusal(status, detail):
        return False
    text = detail.lower()
    return any(m in text for m in _IMAGE_MARKERS) or not any(m in text for m in _FORMAT_MARKERS)


def stated_image_limit(detail: str) -> int | None:
    """The number of images a refusal says a request may carry ("At most 1 image(s) ..."), if any."""
    match = _STATED_IMAGE_LIMIT.search(detail)
    return int(match.group(1)) if match else None


def image_fallbacks(count: int, detail: str) -> list[int]:
    """The image counts to try, in order, after a request with `count` images was refused: the
    limit the refusal states, then one (the current screen), then none."""
    stated = stated_image_limit(detail)
    tries = {0}
    if count > 1:
        tries.add(1)
    if stated is not None and 0 < stated < count:
        tries.add(stated)
    return sorted(tries, reverse=True)


def image_limit_note(model: str, limit: int, detail: str) -> str:
    """What the ledger, --check_models and the manifest say about a learned image limit."""
    if limit == 0:
        return f"{model} refused image parts ({detail}); screenshots are no longer sent to it"
    which = "the current screen" if limit == 1 else f"the last {limit} screenshots"
    return (
        f"{model} takes at most {limit} image(s) per request ({detail}); "
        f"sending only {which} from now on"
    )


def next_form(form: str) -> str | None:
    """The JSON form to try after `form` was refused; None when none is left."""
    if form not in JSON_FORMS:
        return None
    index = JSON_FORMS.index(form)
    return JSON_FORMS[index + 1] if index + 1 < len(JSON_FORMS) else None


def response_format(form: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The `response_format` payload of `form` (None for "none": the schema goes only into the
    prompt)."""
    if form == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "response", "schema": schema}}
    if form == "json_object":
        # llama-cpp-python constrains the answer to `schema` when it is given here.
        return {"type": "json_object", "schema": schema}
    return None


@dataclass
class ServerFacts:
    """What one (server, model) pair was found to accept. `max_images`: None when no limit was
    met, 0 for a text-only model."""

    json_form: str | None = None
    max_images: int | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def text_only(self) -> bool:
        return self.max_images == 0


class ServerMemory:
    """Per (base URL, model) facts shared by every role's wrapper in the process."""

    def __init__(self) -> None:
        self._facts: dict[tuple[str, str], ServerFacts] = {}
        self._lock = threading.Lock()

    def facts(self, server: str, model: str) -> ServerFacts:
        with self._lock:
            return self._facts.setdefault((server, model), ServerFacts())

    def learn_form(self, server: str, model: str, form: str, note: str) -> None:
        with self._lock:
            facts = self._facts.setdefault((server, model), ServerFacts())
            if facts.json_form != form:
                facts.json_form = form
                facts.notes.append(note)

    def learn_image_limit(self, server: str, model: str, limit: int, note: str) -> None:
        """A request with `limit` images went through after more were refused (limits only fall:
        two roles may learn at once)."""
        with self._lock:
            facts = self._facts.setdefault((server, model), ServerFacts())
            if facts.max_images is None or limit < facts.max_images:
                facts.max_images = limit
                facts.notes.append(note)

    def learn_text_only(self, server: str, model: str, note: str) -> None:
        self.learn_image_limit(server, model, 0, note)

    def forget(self) -> None:
        with self._lock:
            self._facts.clear()

    def snapshot(self) -> list[dict[str, Any]]:
        """What was learned, for manifest.json: one entry per server and model that needed it
        (the server's URL without its credentials)."""
        with self._lock:
            return [
                {
                    "server": redact(server),
                    "model": model,
                    "json_form": facts.json_form,
                    "max_images": facts.max_images,
                    "text_only": facts.text_only,
                    "notes": [redact(note) for note in facts.notes],
                }
                for (server, model), facts in sorted(self._facts.items())
                if facts.json_form or facts.max_images is not None
            ]


def merge_snapshots(*snapshots: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Several processes' snapshots as one (a `--workers` run learns in each worker): per server
    and model, the lowest image limit, the last JSON form named, every note once."""
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for snapshot in snapshots:
        for entry in snapshot:
            key = (str(entry.get("server")), str(entry.get("model")))
            into = merged.setdefault(key, {**entry, "notes": []})
            into["json_form"] = entry.get("json_form") or into.get("json_form")
            limits = [n for n in (into.get("max_images"), entry.get("max_images")) if n is not None]
            into["max_images"] = min(limits) if limits else None
            into["text_only"] = into["max_images"] == 0
            into["notes"] += [n for n in entry.get("notes") or [] if n not in into["notes"]]
    return [merged[key] for key in sorted(merged)]


SERVERS = ServerMemory()
