"""Pulling a JSON object out of model text.

Models wrap JSON in ```json fences, put prose before and after it, nest objects and spread them over
several lines; upstream's regex takes the first `{...}` without nesting and breaks on all of these.
This finds the first balanced object that parses, trying JSON and then Python literals.

Model text is untrusted: only its first `MAX_TEXT_CHARS` are read, and parse attempts stop after
a fixed amount of work per character, so a hostile answer (a megabyte of `{x}`) costs
milliseconds, not minutes.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON|python)?\s*(.*?)```", re.DOTALL)
MAX_TEXT_CHARS = 40_000
# Parse work allowed per character of text read, and the fixed cost counted per attempt.
_WORK_PER_CHAR = 4
_ATTEMPT_COST = 64


def _balanced_objects(text: str) -> list[str]:
    """Every top-level balanced {...} span, honouring quoted strings."""
    spans: list[str] = []
    depth = 0
    start = -1
    quote: str | None = None
    escaped = False
    for position, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
            continue
        if char in "\"'" and depth > 0:
            quote = char
        elif char == "{":
            if depth == 0:
                start = position
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start : position + 1])
    return spans


def _parse_object(candidate: str) -> dict[str, Any] | None:
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(candidate)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    # Models often write Python booleans/None inside otherwise-JSON text, or JSON ones in Python.
    normalised = re.sub(r"\btrue\b", "True", candidate)
    normalised = re.sub(r"\bfalse\b", "False", normalised)
    normalised = re.sub(r"\bnull\b", "None", normalised)
    try:
        value = ast.literal_eval(normalised)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def extract_json(s: str | None) -> dict[str, Any] | None:
    """The first JSON object in `s` (fenced blocks first), or None if there is none."""
    if not s:
        return None
    s = s[:MAX_TEXT_CHARS]
    budget = _WORK_PER_CHAR * len(s) + 4096
    sources = [match.group(1) for match in _FENCE.finditer(s)] + [s]
    for source in sources:
        for candidate in _balanced_objects(source):
            budget -= len(candidate) + _ATTEMPT_COST
            if budget < 0:
                return None
            parsed = _parse_object(candidate)
            if parsed is not None:
                return parsed
    return None
