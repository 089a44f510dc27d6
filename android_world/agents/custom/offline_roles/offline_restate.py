"""Requests as people phrase them, restated for the offline planner: wanted states ("make sure Wi-
Fi is off"), verb synonyms, negated verbs; and masking quoted values while a phrase is
rewritten. Re-exported by offline_wording."""

from __future__ import annotations

import re
from collections.abc import Sequence

# --------------------------------------------------------------------------------------------
# Requests: wanted states, verb synonyms

_STATE_WORDS = {
    "on": "on",
    "enabled": "on",
    "active": "on",
    "activated": "on",
    "off": "off",
    "disabled": "off",
    "inactive": "off",
    "deactivated": "off",
}
_RUN_STATES = {
    "running": "Start",
    "started": "Start",
    "going": "Start",
    "on": "Start",
    "paused": "Pause",
    "stopped": "Pause",
    "halted": "Pause",
}
_WANT = r"(?:make\s+sure|ensure|see\s+to\s+it|check)\s+(?:that\s+)?"
_WANT_STATE = re.compile(
    _WANT
    + r"(?:the\s+|my\s+)?(?P<subject>.+?)\s+(?:is|are|gets?|stays?)\s+(?:turned\s+|switched\s+"
    r"|set\s+|kept\s+)?(?P<state>\w+)\b(?P<rest>.*)$",
    re.I | re.S,
)
_WANT_LEVEL = re.compile(
    _WANT + r"(?:the\s+)?(?P<subject>.+?)\s+(?:is|are)\s+(?:at|on|set to|turned to)\s+"
    r"(?:the\s+|its\s+)?(?P<level>max(?:imum)?|min(?:imum)?|highest|lowest|full|top|bottom)\b.*$",
    re.I | re.S,
)
_WANT_ABSENT = re.compile(
    _WANT + r"there(?:'s|\s+is|\s+are)\s+no\s+(?:more\s+|longer\s+(?:an?\s+|any\s+)?)?"
    r"(?P<rest>.+?)(?:\s+any\s*more|\s+anymore|\s+left)?(?P<end>[.!]?)\s*$",
    re.I | re.S,
)
_WANT_HAS = re.compile(
    _WANT + r"(?P<owner>.+?)\s+(?:has|contains|includes)\s+(?P<rest>.+)$", re.I | re.S
)
_LEVEL_WORDS = {
    "bright": ("brightness", "max"),
    "brighter": ("brightness", "max"),
    "dim": ("brightness", "min"),
    "dark": ("brightness", "min"),
    "loud": ("volume", "max"),
    "quiet": ("volume", "min"),
}
_AS_POSSIBLE = re.compile(
    r"\b(?:make|set|turn|get)\s+(?:the\s+)?(?:\w+\s+)?(?:as|so)\s+(?P<adj>\w+)\s+as\s+(?:possible|it\s+goes|it\s+can\s+be)\b",
    re.I,
)
_ALL_THE_WAY = re.compile(
    r"\b(?P<verb>turn|set|put|crank|push|bring)\s+(?:the\s+)?(?P<subject>[\w\s-]+?)\s+all\s+the\s+way\s+(?P<dir>up|down)\b",
    re.I,
)
# Verbs people use for the planner's verbs. Each pair is ordinary English, not a template phrase.
_SYNONYMS = (
    (r"\b(?:initiate|fire\s+up|boot\s+up|power\s+up)\b(?=\s+(?:the\s+)?\w+\s+app)", "open"),
    (r"\b(?:power|fire)\s+(?:up|on)\b", "enable"),
    (r"\bget\s+rid\s+of\b", "delete"),
    (r"\b(?:erase|trash|discard|wipe\s+out)\b", "delete"),
    (
        r"\b(?:snap|capture|shoot)\b(?=\s+(?:a|an|one|the|single|\d+|some)?\s*(?:single\s+)?(?:photo|picture|pic|shot|selfie|image))",
        "take",
    ),
    (r"\b(?:relocate|transfer)\b", "move"),
    (r"\b(?:log|jot\s+down|note\s+down|enter)\b(?=\s+(?:a|an|the|my|this|new)\b)", "add"),
    (
        r"\brecord\b(?=\s+(?:a|an|the|my|this|new)\s+(?!video|audio|voice|sound|clip|movie)\w)",
        "add",
    ),
    (
        r"\btext\b(?=\s+(?:\+?\d|\(\d|its\b|it\b|that\b|this\b|him\b|her\b|them\b|"
        r"the\s+(?:note|content|text|whole)\b))",
        "send",
    ),
    (r"\bget\s+(?:the\s+|my\s+)?(\w+)\s+(?:running|going|started)\b", r"start the \1"),
    (r"\b(?:respond|answer)\s+to\b", "reply to"),
    (r"\b(?:respond|answer)\b(?=\s+(?:the|my|this|that)\b)", "reply to"),
    (
        r"\b(?:schedule|book|set\s+up|generate|initiate)\b(?=\s+(?:a|an|the|new|my)\b|\s+[\"“'‘])",
        "create",
    ),
    (r"\b(?:activate|switch\s+on)\b", "enable"),
    (r"\bdirector(?:y|ies)\b", "folder"),
    (r"\bcancel\b(?=\s+(?:the|my|this|that)\s)", "delete"),
    (r"\b(?:halt|freeze)\b", "pause"),
    (r"\b(?:kick\s+off|fire\s+up)\b", "start"),
    (r"\b(?:bring|pull|call)\s+up\b|\b(?:go\s+into|switch\s+to|get\s+into)\b", "open"),
    (r"^\s*i\s+(?:need|want)\s+(?:the\s+)?(.+?)\s+(?:open|opened|up)\b", r"open the \1"),
    # Telegraphic: "Bluetooth off.", "Bluetooth on, wifi off."
    (
        r"(^|[,;]\s*|\band\s+)(?!(?:turn|switch|set|put|toggle|make|keep|and)\b)(?:the\s+)?"
        r"([A-Za-z][\w-]*(?:\s+(?!on\b|off\b|is\b|are\b)[\w-]+)?)\s+(on|off)\s*(?=[.!,;]|\s+and\b|$)",
        r"\1turn \2 \3",
    ),
    (r"\bmax\s+out\s+(?:the\s+)?([\w\s-]+?)(?=[.!]?\s*$)", r"set \1 to max"),
    (r"\b(?:proceed|go\s+on|continue|then)\s+to\s+(?=open|launch|start)", ""),
    (r"\baccess\b(?=\s+(?:the\s+)?\w+\s+app)", "open"),
    (r"\b(?:deactivate|switch\s+off)\b", "disable"),
)


def restate(goal: str) -> str:
    """A wanted state or an unusual verb, said as the plain order the planner reads. Values
    (quoted, or after "note:", "saying", ...) keep their own words: "transfer funds" in a note
    is no request to move anything."""
    masked, values = _mask_free_values(goal)
    return _unprotect(_restate_words(masked), values)


_FREE_VALUE = re.compile(
    r"(?<=:)[ \t]*\S[^\n]*|(?<=\bsaying\s)[^\n]*|(?<=\bsays\s)[^\n]*|(?<=\bcontaining\s)[^\n]*"
    r"|(?<=\bcontaining:\s)[^\n]*"
    # A row of a "|" table is data, every cell of it.
    r"|^[^\n|]*\|[^\n]*$",
    re.I | re.M,
)


def _mask_free_values(text: str) -> tuple[str, list[str]]:
    protected, values = _protect(text)

    def keep(match: re.Match[str]) -> str:
        values.append(match.group(0))
        return f"\x00{len(values) - 1}\x00"

    return _FREE_VALUE.sub(keep, protected), values


def _restate_words(goal: str) -> str:
    text = _restate_wants(goal)
    for pattern, verb in _SYNONYMS:
        text = re.sub(pattern, verb, text, flags=re.I)
    text = _AS_POSSIBLE.sub(_as_possible, text)
    text = _ALL_THE_WAY.sub(
        lambda m: (
            f"Set {m.group('subject')} to {'max' if m.group('dir').lower() == 'up' else 'min'}"
        ),
        text,
    )
    return _restate_wants(text)


def _as_possible(match: re.Match[str]) -> str:
    found = _LEVEL_WORDS.get(match.group("adj").casefold())
    if not found:
        return match.group(0)
    return f"set {found[0]} to {found[1]}"


def _restate_wants(text: str) -> str:
    """ "Make sure X is off" -> "Turn X off", per clause, keeping the rest of the goal."""
    if not re.search(_WANT, text, re.I):
        return text  # nothing to restate: the goal keeps its own spacing and line breaks
    pieces = re.split(r"((?<=[.;!])\s+|\s+and\s+(?=" + _WANT + r"))", text, flags=re.I)
    return "".join(
        _restate_want(piece) if n % 2 == 0 else (" and " if "and" in piece else piece)
        for n, piece in enumerate(pieces)
    )


def _restate_want(sentence: str) -> str:
    if not re.match(r"\s*" + _WANT, sentence, re.I):
        return sentence
    match = _WANT_LEVEL.match(sentence.strip())
    if match:
        level = match.group("level").casefold()
        high = level.startswith(("max", "high", "full", "top"))
        return f"Set {match.group('subject')} to {'max' if high else 'min'}."
    match = _WANT_ABSENT.match(sentence.strip())
    if match:
        return f"Delete the {match.group('rest')}{match.group('end')}"
    match = _WANT_STATE.match(sentence.strip())
    if match:
        subject, state = match.group("subject"), match.group("state").casefold()
        rest = match.group("rest")
        pieces = re.split(r"\s+and\s+", subject + " is " + state + rest)
        if (
            state in _RUN_STATES
            and len(subject.split()) <= 3
            and not re.search(
                r"\b(?:wi-?fi|wlan|bluetooth|airplane|flight|mode|location|gps|nfc|hotspot)\b",
                subject,
                re.I,
            )
        ) or state in ("running", "paused", "stopped", "started", "going", "halted"):
            return f"{_RUN_STATES[state]} the {subject}{rest}"
        if state in _STATE_WORDS:
            turned = [_turn_piece(p) for p in pieces]
            if all(turned):
                return " and ".join(turned) + ("." if sentence.rstrip().endswith(".") else "")
    match = _WANT_HAS.match(sentence.strip())
    if match:
        rest = match.group("rest").rstrip(" .")
        absent = re.match(r"no\s+(?:more\s+)?(?P<what>.+)$", rest, re.I)
        if absent:  # "has no duplicate expenses": the state is reached by deleting them
            return f"Delete the {absent.group('what')} in {match.group('owner')}."
        return f"Add {rest} in {match.group('owner')}."
    return sentence


def _turn_piece(piece: str) -> str | None:
    match = re.match(
        r"\s*(?:the\s+|my\s+)?(.+?)\s+(?:is|are)\s+(?:turned\s+|switched\s+|set\s+)?(\w+)\W*$",
        piece,
        re.I,
    )
    if not match or match.group(2).casefold() not in _STATE_WORDS:
        return None
    return f"Turn {match.group(1)} {_STATE_WORDS[match.group(2).casefold()]}"


# --------------------------------------------------------------------------------------------
# Negations: what the goal says not to do, in any of the usual forms

_NEGATED_VERB = re.compile(
    r"\b(?:do\s+not|don'?t|never|without|but\s+not|not\s+to|avoid|no)\s+(?:(?:hit|press|tap|click|"
    r"touch|pressing|tapping|hitting|clicking)\s+)?(?:the\s+|any\s+)?(\w+)",
    re.I,
)
_LEAVE_STATE = re.compile(
    r"\b(?:leave|keep)\s+(?:it|the\s+\w+|them)\s+(?:as\s+(?:a\s+)?)?(\w+)", re.I
)
_VERB_FORMS = {
    "starting": "start",
    "started": "start",
    "saving": "save",
    "saved": "save",
    "sending": "send",
    "sent": "send",
    "running": "start",
    "unsaved": "save",
    "unsent": "send",
    "stopped": "start",
    "paused": "start",
    "draft": "save",
    "submitting": "save",
    "submit": "save",
    "confirming": "save",
    "run": "start",
}


def negated_verbs(goal: str) -> list[str]:
    """Verbs the goal forbids, in base form ("without starting it" -> start, "leave it unsaved"
    -> save)."""
    found = [
        m.group(1)
        for m in _NEGATED_VERB.finditer(goal)
        # "no saving" forbids an act; "no exact duplicates" names a state of things.
        if not re.match(r"no\b", m.group(0), re.I)
        or m.group(1).casefold().endswith("ing")
        or m.group(1).casefold() in _VERB_FORMS
    ]
    found += [m.group(1) for m in _LEAVE_STATE.finditer(goal)]
    out = []
    for word in found:
        base = _VERB_FORMS.get(word.casefold(), word.casefold())
        if base not in out:
            out.append(base)
    return out


def _protect(text: str) -> tuple[str, list[str]]:
    quoted: list[str] = []

    def keep(match: re.Match[str]) -> str:
        quoted.append(match.group(0))
        return f"\x00{len(quoted) - 1}\x00"

    return re.sub(r"\"[^\"]*\"|“[^”]*”|(?<!\w)'[^']*'(?!\w)|‘[^’]*’", keep, text), quoted


def _unprotect(text: str, quoted: Sequence[str]) -> str:
    # A masked value may hold a masked quote: restore until none is left.
    for _ in range(3):
        restored = re.sub(r"\x00(\d+)\x00", lambda m: quoted[int(m.group(1))], text)
        if restored == text:
            break
        text = restored
    return text
