"""Reading the first call of a UI-TARS action: its name, its text and its arguments.

`ast` reads well-formed calls; calls it rejects (an unescaped quote inside `content`, say) go to a
tolerant pattern reader. Every pattern and loop here is linear in the answer (issue 27).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from android_world.agents.custom.dialects import uitars_actions
from android_world.agents.custom.dialects.uitars_actions import UiTarsParseFailure

# Patterns here never nest quantifiers over the same text, and start only at word starts, so
# every one is linear in the answer (issue 27: blank space after `Action:` took 40 s).
CALL_START = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(")
_BARE_NAME = re.compile(r"`*([A-Za-z_][A-Za-z0-9_]*)`*")
_ACTION_BREAK = re.compile(r"\)[ \t]*\n[ \t]*\n")
_KEYWORD = re.compile(r"(?<![\w])(\w+)[ \t]*=[ \t]*")
# Possessive runs (`*+`) never give back blank space, so a long run is crossed once.
_VALUE_END = re.compile(r"[ \t\n]*+(?:,[ \t\n]*+\w++[ \t]*+=|,?+[ \t\n]*+\Z)")
_NEXT_KEYWORD = re.compile(r",[ \t\n]*+\w++[ \t]*+=")
# The most the tolerant reader and the scan for further calls look at; real actions are short.
MAX_TOLERANT_CHARS = 4000
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", "'": "'", '"': '"', "\\": "\\"}


def scan_call(source: str, open_paren: int, limit: int | None = None) -> tuple[str, int] | None:
    """The call text up to its matching `)`, with raw newlines inside strings escaped.

    Escaping lets `ast` read multi-line `type(content=...)`; None means quotes or parentheses do
    not balance, and the caller falls back to the tolerant reader.
    """
    out: list[str] = []
    depth = 0
    quote: str | None = None
    escaped = False
    end = len(source) if limit is None else min(len(source), open_paren + limit)
    for position in range(open_paren, end):
        char = source[position]
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
            out.append(char)
            continue
        out.append(char)
        if char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return "".join(out), position
    return None


def _literal(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return ast.unparse(node)


def _ast_arguments(call_text: str) -> tuple[list[Any], dict[str, Any]] | None:
    try:
        tree = ast.parse(call_text.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    call = tree.body
    if not isinstance(call, ast.Call):
        return None
    positional = [_literal(arg) for arg in call.args]
    keywords = {kw.arg: _literal(kw.value) for kw in call.keywords if kw.arg}
    return positional, keywords


def _unescape(value: str) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(0)), value)


def _tolerant_arguments(inner: str) -> dict[str, Any]:
    """Keyword arguments read by scanning, for calls `ast` rejects (unescaped quotes, say).

    A quoted value ends at the first matching quote followed by `, name=` or the end, so a
    quote or `x=` inside the text stays in it; an unquoted value ends before the next `, name=`.
    """
    text = inner.strip()
    arguments: dict[str, Any] = {}
    position = 0
    while (key := _KEYWORD.search(text, position)) is not None:
        start = key.end()
        quote = text[start : start + 1]
        value_end = None
        if quote in ("'", '"'):
            close = text.find(quote, start + 1)
            while close != -1:
                if text[close - 1] != "\\" and _VALUE_END.match(text, close + 1):
                    value_end = close
                    break
                close = text.find(quote, close + 1)
        if value_end is not None:
            arguments[key.group(1)] = _unescape(text[start + 1 : value_end])
            position = value_end + 1
            continue
        following = _NEXT_KEYWORD.search(text, start)
        stop = following.start() if following else len(text)
        arguments[key.group(1)] = text[start:stop].strip().rstrip(",").strip()
        position = max(stop, start + 1)
    return arguments


def read_call(action_part: str) -> tuple[str, str, list[Any], dict[str, Any]] | UiTarsParseFailure:
    """(name, call text, positional args, keyword args) of the first call after `Action:`."""
    start = CALL_START.search(action_part)
    if start is None:
        for line in action_part.splitlines():
            bare = _BARE_NAME.fullmatch(line.strip())
            if (
                bare
                and uitars_actions.canonical(bare.group(1)) in uitars_actions.NO_ARGUMENT_ACTIONS
            ):
                return bare.group(1), bare.group(1), [], {}
        return UiTarsParseFailure("no_call", "no function call after 'Action:'")
    name = start.group(1)
    open_paren = start.end() - 1
    scanned = scan_call(action_part, open_paren)
    if scanned is not None:
        call_text = name + scanned[0]
        parsed = _ast_arguments(call_text)
        if parsed is not None:
            return name, action_part[start.start() : scanned[1] + 1], parsed[0], parsed[1]
    # Tolerant path: bound the first action, then read `key=value` pairs by pattern.
    rest = action_part[start.start() :]
    brk = _ACTION_BREAK.search(rest)
    segment = rest[: brk.start() + 1] if brk else rest.rstrip()
    segment = segment[:MAX_TOLERANT_CHARS]
    opening = len(start.group(0))
    close = segment.rfind(")")
    inner = segment[opening:close] if close >= opening else segment[opening:]
    arguments = _tolerant_arguments(inner)
    if not arguments and inner.strip():
        return UiTarsParseFailure(
            "bad_call", f"could not read the arguments of {name}(...)", call_text=segment
        )
    return name, segment, [], arguments
