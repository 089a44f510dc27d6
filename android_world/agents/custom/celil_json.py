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

# The most of an answer any parser reads: its head and its tail (an answer's first action and its
# final JSON value are where the parsers look). Real answers are far shorter; a longer one is a
# model repeating itself to its token limit, or an attack, and the cut is recorded by the role.
MAX_ANSWER_CHARS = 40_000
# Spans longer than this are not tried as Python literals (the `ast` reader is slow and deep).
_MAX_LITERAL_CHARS = 20_000
# Decoding work allowed per character of answer, and the fixed cost counted per attempt: nested
# spans that all fail to parse would otherwise be tried once per level (quadratic on `[[[[...`
# or `{"a": {"a": ...`), and a flood of tiny ones (`{x}{x}...`) once each.
_WORK_PER_CHAR = 4
_ATTEMPT_COST = 64
_DECODER = json.JSONDecoder(strict=False)  # raw newlines inside strings are common
_OPENERS = {"{": "}", "[": "]"}
# A single quote opens a string only where a value or key may start (after one of these), so an
# apostrophe in prose ("it's") inside a brace does not swallow the rest of the answer.
_VALUE_START = frozenset("{[,:(")


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


def bounded(text: str | None, limit: int = MAX_ANSWER_CHARS) -> tuple[str, str | None]:
    """`text` cut to its first and last `limit // 2` characters when longer, and a note saying so.

    Every parser reads at most this much, so no answer can make one slow; the note goes into the
    role's record (proposal, vote, plan), so the cut shows in feedback.jsonl.
    """
    text = text or ""
    if len(text) <= limit:
        return text, None
    half = limit // 2
    note = (
        f"answer of {len(text):,} characters cut to its first and last {half:,} "
        f"(parsers read at most {limit:,})"
    )
    return text[:half] + "\n" + text[-half:], note


def _matched_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every bracket pair that closes, in order of start; one linear pass.

    Quotes count only inside brackets, so prose around a value cannot hide it. An unmatched
    opener is dropped when a later closer skips it, so a complete list inside a truncated object
    is still found.
    """
    spans: list[tuple[int, int]] = []
    stack: list[tuple[str, int]] = []
    quote: str | None = None
    escaped = False
    last = ""  # the last non-blank character outside strings
    for position, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
                last = char
            continue
        if stack and (char == '"' or (char == "'" and last in _VALUE_START)):
            quote = char
            continue
        if char in _OPENERS:
            stack.append((_OPENERS[char], position))
        elif char in "}]":
            depth = len(stack) - 1
            while depth >= 0 and stack[depth][0] != char:
                depth -= 1
            if depth >= 0:
                spans.append((stack[depth][1], position + 1))
                del stack[depth:]
        if not char.isspace():
            last = char
    spans.sort()
    return spans


def _escape_raw_newlines(candidate: str) -> str:
    """Raw line breaks inside quoted strings escaped, so `ast` reads a multi-line string."""
    out: list[str] = []
    quote: str | None = None
    escaped = False
    for char in candidate:
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
            elif char == "\n":
                out.append("\\n")
                continue
            elif char == "\r":
                continue
        elif char in "\"'":
            quote = char
        out.append(char)
    return "".join(out)


def _literal(candidate: str) -> Any:
    """A Python-literal reading (single quotes, True/None, trailing commas), also with JSON's
    true/false/null and raw line breaks inside strings."""
    python_words = re.sub(r"\btrue\b", "True", candidate)
    python_words = re.sub(r"\bfalse\b", "False", python_words)
    python_words = re.sub(r"\bnull\b", "None", python_words)
    for source in (candidate, python_words, _escape_raw_newlines(python_words)):
        try:
            return ast.literal_eval(source)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    raise ValueError("not a literal")


def _decode(candidate: str) -> Any:
    """The JSON (or Python-literal) value a whole bracket span spells; ValueError when none."""
    try:
        value, end = _DECODER.raw_decode(candidate)
        if not candidate[end:].strip():
            return value
    except (ValueError, RecursionError):
        pass
    if len(candidate) > _MAX_LITERAL_CHARS:
        raise ValueError("too long to read as a literal")
    return _literal(candidate)


def json_values(text: str | None) -> list[Any]:
    """Every top-level JSON object or array in `text` (think blocks removed), in order.

    Each bracket pair that closes is read as JSON, else as a Python literal (single quotes,
    True/None, trailing commas); an outer value that parses hides the values nested inside it,
    so `{"a": {"b": 1}}` is one value, not two. Linear: one pass finds the pairs, and decoding
    stops after a fixed amount of work per character of answer.
    """
    answer, _ = bounded(strip_think(text))
    budget = _WORK_PER_CHAR * len(answer) + 4096
    values: list[Any] = []
    covered = 0  # end of the last value read: spans inside it belong to it
    for start, end in _matched_spans(answer):
        if start < covered:
            continue
        if budget <= 0:
            break
        budget -= end - start + _ATTEMPT_COST
        try:
            value = _decode(answer[start:end])
        except ValueError:
            continue
        if isinstance(value, (dict, list)):
            values.append(value)
            covered = end
    return values


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
    "MAX_ANSWER_CHARS",
    "UnusableLog",
    "bounded",
    "example_strings",
    "extract_json",
    "extract_json_value",
    "is_placeholder",
    "json_values",
    "normalise",
    "strip_think",
]
