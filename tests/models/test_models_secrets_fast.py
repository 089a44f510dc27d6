"""`redact` skips a pattern only where it cannot match: the same text as scanning with every
pattern, on hostile and ordinary texts alike (the skips exist for speed on large report pages)."""

from __future__ import annotations

import random

import pytest

from android_world.agents.custom import celil_secrets as secrets
from android_world.agents.custom.celil_secrets import REDACTED


def full_scan(text: str) -> str:
    """What `redact` did before its cheap tests: every pattern whose literal hint occurs runs."""
    if not text:
        return text
    for secret in secrets._known_secrets():
        if secret in text:
            text = text.replace(secret, REDACTED)
    if "://" in text and "@" in text:
        text = secrets._USERINFO.sub(f"{REDACTED}@", text)
    if "=" in text:
        text = secrets._QUERY_PARAM.sub(rf"\1{REDACTED}", text)
        text = secrets._ASSIGNMENT.sub(rf"\1{REDACTED}", text)
    if secrets.re.search("authorization|bearer", text, secrets.re.I):
        text = secrets._AUTHORIZATION.sub(rf"\1{REDACTED}", text)
        text = secrets._BEARER.sub(rf"\1{REDACTED}", text)
    if any(prefix in text for prefix in secrets._KEY_PREFIXES):
        text = secrets._KEY_SHAPES.sub(REDACTED, text)
    return text


# Pieces that make each pattern match, almost match, or be skipped: secret words in all cases,
# separators, URL parts, key prefixes ("task-" holds "sk-"), whitespace, quotes, and the four
# non-ASCII letters `re.I` takes for ASCII ones (dotted/dotless i, long s, Kelvin sign).
PIECES = [
    "key",
    "KEY",
    "Key",
    "apikey",
    "api_key",
    "API-KEY",
    "token",
    "tok\u0130en",
    "secret",
    "password",
    "passwd",
    "pwd",
    "sig",
    "signature",
    "credential",
    "auth",
    "AUTH",
    "x-amz-",
    "client_",
    "access-",
    "var key",
    "=",
    " = ",
    "=",
    "\t=",
    "\u00a0",
    " ",
    "\n",
    "?",
    "&",
    ";",
    ".",
    "-",
    "_",
    "~",
    "#",
    ")",
    ",",
    "]",
    "'",
    '"',
    "<",
    ">",
    "\\",
    "://",
    "@",
    "https://u:p@h/",
    "Bearer ",
    "bearer  ",
    "Authorization: ",
    "'authorization': '",
    "Basic ",
    "sk-",
    "task-",
    "AIza",
    "hf_",
    "abcdefghijklmnopqrstuvwxyz0123",
    "ABCDEFGHIJ_klmno-12345",
    "x",
    "value",
    "\u0130",
    "\u0131",
    "\u017f",
    "\u212a",
    "s\u0131g",
    "\u212aey",
    "to\u212aen",
    "pa\u017f\u017fword",
    "cred\u0130ntial",
    "<redacted>",
    "\u00e9",
    "\u2192",
]


def texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14))) for _ in range(n)]


@pytest.mark.parametrize("seed", range(4))
def test_redact_is_the_full_scan(seed):
    for text in texts(5000, seed):
        assert secrets.redact(text) == full_scan(text), repr(text)


def test_each_skipped_pattern_still_runs_where_it_matches():
    cases = {
        "GET /v1?key=abc123&x=1": "GET /v1?key=<redacted>&x=1",
        "call?X-Amz-Signature=deadbeef": "call?X-Amz-Signature=<redacted>",
        "invalid api_key = s3cr3t here": "invalid api_key = <redacted> here",
        "PASSWORD=hunter22": "PASSWORD=<redacted>",
        "pa\u017f\u017fword=hunter22": "pa\u017f\u017fword=<redacted>",  # long s: re.I's "s"
        "api_\u212aey=hunter22": "api_\u212aey=<redacted>",  # Kelvin sign: re.I's "k"
        "Authorization: Bearer abc.def": "Authorization: Bearer <redacted>",
        "AUTHOR\u0130ZATION: xyz": "AUTHOR\u0130ZATION: <redacted>",  # dotted I: re.I's "i"
        "use sk-" + "a" * 24 + " now": f"use {REDACTED} now",
    }
    for text, want in cases.items():
        assert secrets.redact(text) == want == full_scan(text)


def test_anchors_that_cannot_match_leave_the_text_alone():
    # Every hint is there, no pattern matches: "key =" is no compound, "task-" no key shape.
    text = 'var key = e.key; <a href="x?page=2">task-list</a> bearer_note'
    assert secrets.redact(text) == text == full_scan(text)
    assert not secrets._assignment_possible(secrets._folded(text))
    assert not secrets._key_shape_possible(text)
