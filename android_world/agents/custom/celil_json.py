"""Reading model answers: the final JSON value, think blocks, and echoed prompt placeholders.

The plugin carries this itself because it must run inside an upstream AndroidWorld checkout,
whose `agent_utils.extract_json` only finds JSON written on one line: a pretty-printed or fenced
plan there falls back to a one-step plan. Everything here is pure and never raises on model text.

Why the *final* value: reasoning models draft answers before committing to one (DeepSeek-R1 and
Qwen3 write a `<think>...</think>` block first, per their model cards), and chatty models restate
the prompt's example before their own answer. The last complete JSON value outside a think block
is the one the model meant.
"""

from __future__ import annotations

import ast
import json
import re
import threading
import unicodedata
from collections.abc import Iterable
from typing import Any

# Reasoning blocks, as (opening, closing) patterns. Spellings seen in public model cards, chat
# templates and reasoning parsers: <think> (DeepSeek-R1, Qwen3, SmolLM3), <thinking>, <reasoning>,
# <thought>, <seed:think> (Seed-OSS), the non-ASCII ◁think▷ (Kimi-VL, Kimi K2), [THINK]
# (Magistral), <|START_THINKING|> (Cohere Command A) and <|begin_of_thought|> (Sky-T1 style).
# An opening without a close (answer cut by the token limit) holds only a draft; a close without
# an opening happens when the chat template already emitted the opening tag.
_THINK_PAIRS = (
    (
        r"<(?:think|thinking|reasoning|thought|seed:think)>",
        r"</(?:think|thinking|reasoning|thought|seed:think)\s*>",
    ),
    (r"\u25c1think\u25b7", r"\u25c1/think\u25b7"),
    (r"\[THINK\]", r"\[/THINK\]"),
    (r"<\|START_THINKING\|>", r"<\|END_THINKING\|>"),
    (r"<\|begin_of_thought\|>", r"<\|end_of_thought\|>"),
)
_THINK_CLOSE = re.compile("|".join(closing for _, closing in _THINK_PAIRS), re.IGNORECASE)
_THINK_OPEN = re.compile("|".join(opening for opening, _ in _THINK_PAIRS), re.IGNORECASE)
# gpt-oss's harmony format served raw: the answer is the "final" channel's message.
_FINAL_CHANNEL = re.compile(r"<\|channel\|>\s*final\s*<\|message\|>", re.IGNORECASE)
_HARMONY_END = re.compile(r"<\|(?:return|end|call)\|>\s*$")

# Longer texts are cut to their tail (the final answer is at the end); bounds the scan cost.
MAX_SCAN_CHARS = 60_000
_MAX_LITERAL_ATTEMPTS = 200
_DECODER = json.JSONDecoder()
_OPENING = re.compile(r"[{\[]")


def strip_think(text: str | None) -> str:
    """`text` without reasoning blocks: what the model gave as its answer.

    One linear pass (no backtracking regex), so a reply full of unclosed tags stays cheap.
    """
    if not text:
        return ""
    finals = list(_FINAL_CHANNEL.finditer(text))
    if finals:
        text = _HARMONY_END.sub("", text[finals[-1].end() :])
    # A close before any opening: the template opened the block; what precedes it is reasoning.
    first_open = _THINK_OPEN.search(text)
    limit = first_open.start() if first_open else len(text)
    stray = [c.end() for c in _THINK_CLOSE.finditer(text, 0, limit)]
    if stray:
        text = text[stray[-1] :]
    parts: list[str] = []
    position = 0
    while (opening := _THINK_OPEN.search(text, position)) is not None:
        parts.append(text[position : opening.start()])
        close = _THINK_CLOSE.search(text, opening.end())
        if close is None:  # cut by the token limit inside its reasoning: the rest is a draft
            return " ".join(parts)
        parts.append(" ")
        position = close.end()
    parts.append(text[position:])
    return "".join(parts)


def _balanced_end(text: str, start: int) -> int | None:
    """Index after the bracket that closes the one at `start`, honouring quoted strings."""
    pairs = {"{": "}", "[": "]"}
    stack: list[str] = []
    quote: str | None = None
    escaped = False
    for position in range(start, len(text)):
        char = text[position]
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
            continue
        if char in "\"'":
            quote = char
        elif char in pairs:
            stack.append(pairs[char])
        elif char in "}]":
            if not stack or stack.pop() != char:
                return None
            if not stack:
                return position + 1
    return None


def _literal(candidate: str) -> Any:
    """A Python-literal reading (single quotes, True/None), also with JSON's true/false/null."""
    python_words = re.sub(r"\btrue\b", "True", candidate)
    python_words = re.sub(r"\bfalse\b", "False", python_words)
    python_words = re.sub(r"\bnull\b", "None", python_words)
    for source in (candidate, python_words):
        try:
            return ast.literal_eval(source)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    raise ValueError("not a literal")


def json_values(text: str | None) -> list[Any]:
    """Every top-level JSON object or array in `text` (think blocks removed), in order.

    JSON is read with the standard decoder from each `{` or `[`; where that fails (Python
    literals, single quotes), the balanced span is tried as a literal. An outer value that parses
    hides the values nested inside it, so `{"a": {"b": 1}}` is one value, not two.
    """
    answer = strip_think(text)
    if len(answer) > MAX_SCAN_CHARS:
        answer = answer[-MAX_SCAN_CHARS:]
    values: list[Any] = []
    position = 0
    literal_attempts = 0
    while True:
        match = _OPENING.search(answer, position)
        if match is None:
            return values
        start = match.start()
        try:
            value, end = _DECODER.raw_decode(answer, start)
        except (ValueError, RecursionError):
            value, end = None, None
            close = (
                _balanced_end(answer, start) if literal_attempts < _MAX_LITERAL_ATTEMPTS else None
            )
            if close is not None:
                literal_attempts += 1
                try:
                    value, end = _literal(answer[start:close]), close
                except ValueError:
                    value, end = None, None
        if end is not None and isinstance(value, (dict, list)):
            values.append(value)
            position = end
        else:
            position = start + 1


def extract_json(text: str | None) -> dict[str, Any] | None:
    """The final JSON object in a model answer, or None. A drop-in for agent_utils.extract_json."""
    for value in reversed(json_values(text)):
        if isinstance(value, dict):
            return value
    return None


def extract_json_value(text: str | None) -> dict[str, Any] | list[Any] | None:
    """The final JSON object or array in a model answer, or None."""
    values = json_values(text)
    return values[-1] if values else None


# --------------------------------------------------------------------------------------------
# Placeholders: a model that copies the prompt's example has not answered.

_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"(\s*:)?')
_ANGLE = re.compile(r"<[^<>\n]{1,60}>")


def example_strings(template: str) -> frozenset[str]:
    """The example and placeholder texts a prompt shows the model, normalised.

    Taken from the prompt text itself (every double-quoted value that is not a key, and every
    `<placeholder>`), so a prompt edit updates the check with it.
    """
    found: set[str] = set()
    for match in _QUOTED.finditer(template or ""):
        if match.group(2):  # a key: "score":
            continue
        found.add(match.group(1))
    found.update(m.group(0) for m in _ANGLE.finditer(template or ""))
    normalised = {normalise(text) for text in found}
    return frozenset(text for text in normalised if text)


def normalise(text: Any) -> str:
    """Case, width, punctuation and spacing folded away: what "the same words" means here."""
    folded = unicodedata.normalize("NFKC", str(text or "")).casefold()
    words = re.findall(r"[^\W_]+|\.\.\.|<|>", folded)
    return " ".join(words)


def is_placeholder(value: Any, examples: Iterable[str]) -> bool:
    """Does `value` repeat one of the prompt's example texts (see `example_strings`)?

    Equal after normalisation, or an example wrapped in nothing but list markers or quotes
    ("1. first milestone"). An empty value is not a placeholder: emptiness is its own problem.
    """
    text = normalise(value)
    if not text:
        return False
    examples = set(examples)
    if text in examples:
        return True
    stripped = re.sub(r"^(?:step |sub goal )?\d{1,2} ", "", text)
    return stripped in examples


class UnusableLog:
    """Answers a role received but could not use (placeholders, unparseable text), to report.

    Roles append from worker threads (the verifier personas run in parallel); the agent takes
    the records once per step into its step data and events.
    """

    def __init__(self) -> None:
        self._items: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def record(self, role: str, kind: str, reason: str, text: str = "") -> None:
        item = {"role": role, "kind": kind, "reason": reason, "text": (text or "")[:300]}
        with self._lock:
            self._items.append(item)

    def take(self) -> list[dict[str, Any]]:
        with self._lock:
            items, self._items = self._items, []
        return items


__all__ = [
    "UnusableLog",
    "example_strings",
    "extract_json",
    "extract_json_value",
    "is_placeholder",
    "json_values",
    "normalise",
    "strip_think",
]
