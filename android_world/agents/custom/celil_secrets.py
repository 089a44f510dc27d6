"""Secrets: where keys come from, and the one redaction every printed or written text goes through.

Keys come from environment variables only (`read_secret`), and each one read is remembered so it
can be scrubbed wherever it turns up. Beyond those, `redact` removes what a secret looks like in
a URL or an error message: URL userinfo (`user:password@`), query parameters that carry keys,
tokens or signatures (`?key=`, `api_key=`, `access_token=`, `sig=`, `X-Amz-Signature=`, ...),
`api_key=`-style assignments, and bearer or basic credentials in echoed headers. The plugin
applies it to every text it returns (errors, reasons, notes, recordings); the harness applies the
same function to every file it writes and every line it prints, so there is one rule to keep
right. Patterns are linear-time (no nested quantifiers), so hostile text cannot stall a write.

This module imports only the standard library: the harness's config loader uses it too, and the
plugin may not import the harness.
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any

REDACTED = "<redacted>"
# Variables whose values are keys whether or not a role named them (the SDKs read them).
KEY_ENVS = ("GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY")
# What local servers are sent instead of a key; not a secret.
NOT_SECRET = frozenset({"not-needed"})
_MIN_SECRET_LEN = 4

_SECRETS: set[str] = set()
_SECRETS_LOCK = threading.Lock()

# Characters that end a URL part or a value wherever the text came from: prose, JSON (quotes and
# backslash escapes), HTML (quotes, angle brackets, `&amp;`) or a query string (`&`, `#`).
_STOP = r"\s\"'<>\\"
# `scheme://userinfo@`: everything up to the last @ before the host (an unencoded @ in a password
# stays covered).
_USERINFO = re.compile(rf"(?<=://)[^{_STOP}/?#]+@")
# The last word of a parameter name that carries a secret (`api_key`, `access_token`,
# `X-Amz-Signature`, `client_secret`, ...). Query strings also use bare `key` and `auth`.
_SECRET_WORD = r"(?:key|apikey|token|secret|password|passwd|pwd|sig|signature|credential|auth)"
_QUERY_PARAM = re.compile(rf"([?&;](?:[\w.~-]*[-_.])?{_SECRET_WORD}=)[^{_STOP}&#),;\]]+", re.I)
# In prose (`invalid api_key=...`), a bare `key=` is too common to mean a secret: the name must
# be a compound (`api_key`, `access-token`) or one of the unambiguous words.
_ASSIGNMENT = re.compile(
    rf"((?<![\w.-])(?:[a-z0-9]+[-_])+{_SECRET_WORD}\s*=\s*|"
    r"(?<![\w.-])(?:apikey|token|secret|password|passwd)\s*=\s*)"
    rf"[^{_STOP}&#,;)]+",
    re.I,
)
# Echoed headers: `Authorization: Bearer x`, `'Authorization': 'Basic x'`, or a bare `Bearer x`.
# The scheme is matched possessively (`?+`): an already redacted value is not taken for the scheme.
_AUTHORIZATION = re.compile(
    rf"(authorization['\"]?\s*[:=]\s*['\"]?(?:(?:bearer|basic|token)\s+)?+)[^{_STOP},;]+", re.I
)
_BEARER = re.compile(rf"(\bbearer\s+)(?!{re.escape(REDACTED)})[^{_STOP},;]+", re.I)
# Key shapes that are secrets wherever they appear (Google API keys, OpenAI-style keys, HF tokens).
_KEY_SHAPES = re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b|\bsk-[A-Za-z0-9_-]{20,}|\bhf_[A-Za-z0-9]{30,}")
_KEY_PREFIXES = ("AIza", "sk-", "hf_")
# Cheap tests that say when a pattern above cannot match, so the whole text is not scanned by
# it (the case-insensitive patterns cost ~80 ms on a 200 kB report page). They run on `_folded`
# text and only ever skip a pattern that would have changed nothing: each is a necessary
# condition of its pattern (tests/models/test_models_secrets_fast.py compares with the full scan).
_QUERY_ANCHOR = re.compile(rf"[?&;._-]{_SECRET_WORD}=")  # the char before the word, then `=`
_ASSIGNMENT_ANCHOR = re.compile(
    r"(?:key|token|secret|password|passwd|pwd|sig|signature|credential|auth)\s*="
)
# `_ASSIGNMENT` matches end in one of these before their spaces and `=`.
_ASSIGNMENT_ENDS = (
    *(sep + word for sep in "-_" for word in _SECRET_WORD[3:-1].split("|")),
    *("apikey", "token", "secret", "password", "passwd"),
)
_ASSIGNMENT_END_CHARS = max(map(len, _ASSIGNMENT_ENDS))
# The only non-ASCII characters `re.I` takes for an ASCII letter or digit (str.lower() keeps the
# first three and gives "İ" two characters).
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
# Config keys whose values are secrets (`*_env` keys name variables and are kept).
_SECRET_KEY = re.compile(
    r"(^|[-_.])(api[-_]?key|secret|password|passwd|token|auth|authorization|credentials?|"
    r"private[-_]?key)$",
    re.I,
)


def register_secret(value: str | None) -> None:
    """Remember a secret value so `redact` scrubs it from anything printed or written."""
    if value and len(value) >= _MIN_SECRET_LEN and value not in NOT_SECRET:
        with _SECRETS_LOCK:
            _SECRETS.add(value)


def read_secret(env_name: str | None) -> str | None:
    """A key from the environment (the only place keys may come from), registered for redaction."""
    if not env_name:
        return None
    value = os.environ.get(env_name) or None
    register_secret(value)
    return value


def _known_secrets() -> list[str]:
    for name in KEY_ENVS:
        register_secret(os.environ.get(name))
    with _SECRETS_LOCK:
        return sorted(_SECRETS, key=len, reverse=True)


def redact(text: str) -> str:
    """`text` with every known key, URL credential, secret query parameter, secret assignment and
    echoed credential header replaced by `<redacted>`.

    SDK and server error messages echo request details (the URL, sometimes the headers); scrubbing
    every text at the boundary is cheaper than trusting each of them not to.
    """
    if not text:
        return text
    for secret in _known_secrets():
        if secret in text:
            text = text.replace(secret, REDACTED)
    # Each pattern runs only where its anchor occurs: reports and results are mostly free of them.
    if "://" in text and "@" in text:
        text = _USERINFO.sub(f"{REDACTED}@", text)
    folded = _folded(text)
    if "=" in text:
        if _QUERY_ANCHOR.search(folded):
            scrubbed = _QUERY_PARAM.sub(rf"\1{REDACTED}", text)
            if scrubbed != text:
                text, folded = scrubbed, _folded(scrubbed)
        if _assignment_possible(folded):
            scrubbed = _ASSIGNMENT.sub(rf"\1{REDACTED}", text)
            if scrubbed != text:
                text, folded = scrubbed, _folded(scrubbed)
    if "authorization" in folded or "bearer" in folded:  # _HEADER_HINT, without a regex scan
        text = _AUTHORIZATION.sub(rf"\1{REDACTED}", text)
        text = _BEARER.sub(rf"\1{REDACTED}", text)
    if _key_shape_possible(text):
        text = _KEY_SHAPES.sub(REDACTED, text)
    return text


def _folded(text: str) -> str:
    """`text` as `re.I` compares it, in lower case: a plain search of a lower-case word in it
    finds every place a case-insensitive pattern of that word would."""
    if not text.isascii() and any(c in text for c in "\u0130\u0131\u017f\u212a"):
        text = text.translate(_FOLD)
    return text.lower()


def _assignment_possible(folded: str) -> bool:
    """Could `_ASSIGNMENT` match? Each of its matches ends in a secret word, spaces and `=`, with
    a `-` or `_` before the word unless the word is one of the unambiguous ones."""
    for found in _ASSIGNMENT_ANCHOR.finditer(folded):
        word_end = found.start() + len(found.group()[:-1].rstrip())  # the spaces before `=` out
        start = max(0, word_end - _ASSIGNMENT_END_CHARS)
        if folded[start:word_end].endswith(_ASSIGNMENT_ENDS):
            return True
    return False


def _key_shape_possible(text: str) -> bool:
    """Could `_KEY_SHAPES` match? Each match begins with one of its prefixes ("task-" holds
    "sk-", so the prefix alone is common): try the pattern only where a prefix occurs."""
    for prefix in _KEY_PREFIXES:
        at = text.find(prefix)
        while at >= 0:
            if _KEY_SHAPES.match(text, at):
                return True
            at = text.find(prefix, at + 1)
    return False


def is_secret_key(name: str) -> bool:
    """Does a mapping key (a config field, an HTTP header name) name a secret value?"""
    return bool(_SECRET_KEY.search(name))


def redact_value(value: Any, key: str = "") -> Any:
    """A copy of a JSON-like value with secret-named fields replaced and every string redacted."""
    if isinstance(value, dict):
        return {k: redact_value(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v, key) for v in value]
    if isinstance(value, str) and value:
        return REDACTED if key and is_secret_key(key) else redact(value)
    return value
