"""Free wording for the offline planner: requests as people phrase them, read as plain orders.

The rule-based planner reads a small imperative grammar ("Turn X on", "Create a new note named
X with the text: Y"). People ask differently: politely ("Could you ...?"), as a wanted state
("Make sure Wi-Fi is off"), with other verbs ("get rid of", "snap a photo"), with negations in any
form ("without starting it", "leave it unsaved") and with values in any order, quoted or not.
This module turns such wording into what the planner reads, by general conventions of English
requests, never by one benchmark's phrases; values are read by cue words (named, phone, amount,
saying, ...) so their order and quoting do not matter. Courtesy words and questions are read by
celil_goal_questions, which the model roles share.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from android_world.agents.custom.offline_roles.offline_restate import (
    _protect as _protect,
)
from android_world.agents.custom.offline_roles.offline_restate import (
    _unprotect as _unprotect,
)
from android_world.agents.custom.offline_roles.offline_restate import (
    negated_verbs as negated_verbs,
)
from android_world.agents.custom.offline_roles.offline_restate import (
    restate as restate,
)

# --------------------------------------------------------------------------------------------
# Values by cue words

_PHONE = r"\+?\d[\d\s().-]{5,}\d|\(\d{3}\)\s*\d{3}[\s.-]?\d{4}"
_MONEY = re.compile(
    r"[$€£]\s*(\d+(?:[.,]\d{1,2})?)|(\d+(?:\.\d{1,2})?)\s*(?:dollars|usd|euros?)\b", re.I
)
_PHONE_RE = re.compile(rf"(?<![\w+])(?:{_PHONE})(?!\w)")
_FILE_NAME = re.compile(
    r"(?<![\w.])(?<!\w['’])[\w-]+\.(?:txt|md|csv|json|mp3|mp4|jpg|png|pdf|wav|m4a|doc|docx)\b"
)
_IDENTIFIER = re.compile(
    r"(?<![\w.])(?=[\w.-]*[_\d])(?=[\w.-]*[A-Za-z])[\w-]+(?:\.\w{2,4})?(?![\w])"
)
# Cue -> slot. Short slots hold a name or a word; long slots hold free text to the sentence end.
_CUES: tuple[tuple[str, str], ...] = (
    (r"first[\s_-]*name", "first name"),
    (r"(?:last|family)[\s_-]*name|surname", "last name"),
    (r"phone[\s_-]*label|label(?:l?ed)?(?:\s+as)?", "label"),
    (r"(?:phone|mobile|cell)(?:[\s_-]*number)?|number", "phone"),
    (r"amount(?:[\s_-]*dollars)?|cost(?:ing|s)?|price", "amount"),
    (r"category(?:[\s_-]*name)?|under", "category"),
    (r"noted\s+as|with\s+(?:the\s+|a\s+)?note|note", "note"),
    (r"description|described\s+as|describing(?:\s+it)?(?:\s+as)?", "description"),
    (r"titled|title", "title"),
    (r"named|called|name(?:\s+it)?|call\s+it", "name"),
    (r"saying|that\s+says|says|reading|that\s+reads|containing|with(?=\s*:)", "message"),
    (r"(?:the\s+)?message", "message"),
    (
        r"(?:the\s+|following\s+|this\s+)?(?:text|content|contents|line)(?:\s+in(?:to)?\s+it)?",
        "text",
    ),
)
# Nouns that name a slot only when a value is marked as following (": X", "is X", a quote);
# bare, they are things ("the most recent text message").
_MARKED_ONLY = frozenset({"message", "text"})
# Free words up to the next comma or sentence end ("note: Want to have, in pro expense").
PHRASE_SLOTS = frozenset({"note"})
LONG_SLOTS = frozenset({"message", "text", "description"})
_CUE_RE = re.compile(
    r"(?<![\w'])(?:" + "|".join(f"(?P<s{i}>{c})" for i, (c, _) in enumerate(_CUES)) + r")(?![\w'])",
    re.I,
)
_STOP_WORDS = frozenset(
    (
        "with",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "under",
        "and",
        "using",
        "via",
        "lasting",
        "that",
        "which",
        "who",
        "whose",
        "by",
        "into",
        "as",
        "of",
        "but",
        "then",
        "so",
        "within",
        "inside",
        "located",
    )
)


_ARTICLES = frozenset({"the", "a", "an", "my", "its", "this", "that", "these", "those", "it"})


def _is_noun_cue(match: re.Match[str]) -> bool:
    """A bare noun cue ("message", "text"), not a verb cue ("saying", "containing")."""
    for i, (_, slot) in enumerate(_CUES):
        if match.group(f"s{i}") and slot in _MARKED_ONLY:
            return not re.match(
                r"saying|that\s+says|says|reading|that\s+reads|containing|with",
                match.group(0),
                re.I,
            )
    return False


def _name_like(value: str, app_names: Sequence[str]) -> bool:
    """A short value must read as a name, not as the next words of the sentence."""
    first = value.split()[0].casefold()
    return not (
        _CUE_RE.match(value)
        or first in _STOP_WORDS
        or first in _ARTICLES
        or value.casefold() in {a.casefold() for a in app_names}
    )


def _slot_of(match: re.Match[str]) -> str:
    for i, (_, slot) in enumerate(_CUES):
        if match.group(f"s{i}"):
            return slot
    return ""


def _quoted_after(text: str, pos: int) -> tuple[str, int] | None:
    """A quoted value starting at `pos` (after spaces), and where it ends."""
    match = re.match(r"\s*([\"“‘'])", text[pos:])
    if not match:
        return None
    open_mark = match.group(1)
    close = {"“": "”", "‘": "’"}.get(open_mark, open_mark)
    start = pos + match.end()
    # The closing mark is the last one before a non-word character (apostrophes stay inside).
    i = start
    while True:
        j = text.find(close, i)
        if j < 0:
            return None
        after = text[j + 1 : j + 2]
        if not after or not (after.isalnum()):
            return text[start:j], j + 1
        i = j + 1


def _short_value(text: str, pos: int, app_names: Sequence[str]) -> str:
    """A name-like value: words up to punctuation, a cue or a linking word that starts a new
    part (a linking word followed by a capitalised non-app word stays: "Meeting with HR")."""
    tokens = list(re.finditer(r"\S+", text[pos:]))
    kept: list[str] = []
    for n, token in enumerate(tokens):
        word = token.group(0)
        core = word.lstrip("(").rstrip(",;:)")
        ends_part = core != word.lstrip("(")
        ends_sentence = core.endswith((".", "!", "?")) and _sentence_end(text, pos + token.end())
        if ends_sentence:
            core = core.rstrip(".!?")
        if kept:
            if word.startswith("("):
                break
            if core.casefold() in _STOP_WORDS and ends_part:
                break
            if core.casefold() in _STOP_WORDS:
                following = tokens[n + 1].group(0) if n + 1 < len(tokens) else ""
                rest = text[pos + token.end() :].lstrip().casefold()
                if not following[:1].isupper() or any(
                    rest.startswith(a.casefold()) for a in app_names
                ):
                    break
            if _CUE_RE.fullmatch(core):
                break
        if not core:
            break
        kept.append(core)
        if ends_part or ends_sentence:
            break
    return " ".join(kept).strip(" .,;:'\"")


def _sentence_end(text: str, pos: int) -> bool:
    rest = text[pos:]
    return not rest.strip() or bool(re.match(r"\s+[A-Z]", rest))


def _long_value(text: str, pos: int, app_names: Sequence[str]) -> str:
    """Free text to the end of its sentence: a value that ends a sentence with its own period
    ends with two ("...on Sunday.. Then"), otherwise at the goal's end or a new clause."""
    rest = text[pos:]
    line_head = text[text.rfind("\n", 0, pos) + 1 : pos]
    if re.fullmatch(r"[ \t]*[A-Za-z][\w ]{0,30}:[ \t]*", line_head) and rest.strip(" \t"):
        # A "key: value" line of a listed record: the value is the rest of its line.
        rest = rest.split("\n", 1)[0]
    double = re.search(r"(?<=\.)\.(?:\s|$)", rest)
    if double:
        value = rest[: double.start()]
    else:
        cut = re.search(
            r"(?<=[.!?\"'”’])\s+(?=(?:then|and then|also|after that|finally|share|send|it|the)\b)"
            r"|,?\s+(?:and\s+|then\s+)+(?=(?:share|send|text|forward|save)\b)",
            rest,
            re.I,
        )
        value = rest[: cut.start()] if cut else rest
    value = value.strip()
    for name in app_names:
        value = re.sub(
            rf"[,\s]*\(?(?:in|using|via|with|on|use)\s+(?:the\s+)?{re.escape(name)}(?:\s+app)?\)?\.?\s*$",
            "",
            value,
            flags=re.I,
        )
    value = re.sub(r"^\s*(?:is|:|as|=)\s*", "", value)
    if value.endswith("?") and not value[:-1].rstrip().endswith("?"):
        value = value[:-1]
    return value.strip()


def _cued_value(
    goal: str,
    pos: int,
    slot: str,
    cue: str,
    quoted: tuple[str, int] | None,
    app_names: Sequence[str],
) -> str | None:
    """The value that follows a slot's cue word at `pos`, or None when none fits the slot."""
    if slot == "phone":
        number = _PHONE_RE.match(goal, pos)
        return number.group(0).strip() if number else None
    if slot == "amount":
        money = _MONEY.match(goal, pos) or re.match(r"(\d+(?:\.\d{1,2})?)", goal[pos:])
        return next(g for g in money.groups() if g) if money else None
    if quoted is not None:
        value = quoted[0]
    elif slot in LONG_SLOTS:
        value = _long_value(goal, pos, app_names)
    elif slot in PHRASE_SLOTS:
        value = re.split(r"[,;(\n]|\.(?:\s|$)", _long_value(goal, pos, app_names))[0].strip()
    else:
        value = _short_value(goal, pos, app_names)
    value = value.strip()
    short = slot not in LONG_SLOTS and slot not in PHRASE_SLOTS
    if not value or (short and not _name_like(value, app_names)):
        return None
    if slot == "category" and cue == "under" and not value[:1].isupper():
        return None
    return value


def _uncued_fields(
    goal: str, fields: dict[str, str], app_names: Sequence[str], object_word: str
) -> None:
    """Slots the goal fills without a cue word: "a Food expense", "$12", "a note Groceries",
    "a Home number"."""
    category = _CATEGORY_BEFORE.search(goal)
    if category and "category" not in fields:
        fields["category"] = category.group(1)
    if "amount" not in fields and (money := money_values(goal)):
        fields["amount"] = money[0]
    if object_word == "expense" and "category" not in fields:
        before = re.search(r"\b(?:an?|the)\s+([A-Z][\w&]*)\s+expense\b", goal)
        if before:
            fields["category"] = before.group(1)
    if not {"name", "title"} & set(fields):
        after = _NAME_AFTER_NOUN.search(goal)
        if after and after.group(1).casefold() not in {a.casefold() for a in app_names}:
            fields["name"] = after.group(1)
    label = _LABEL_BEFORE.search(goal)
    if label and "label" not in fields and not _CUE_RE.fullmatch(label.group(1)):
        fields["label"] = label.group(1)


def slot_fields(
    goal: str, app_names: Sequence[str] = (), object_word: str = ""
) -> list[tuple[str, str]]:
    """(slot, value) pairs by cue words, in goal order; the first value of each slot wins."""
    fields: dict[str, str] = {}
    for match in _CUE_RE.finditer(goal):
        slot = _slot_of(match)
        cue = match.group(0).casefold()
        if slot == "note" and object_word == "note" and cue == "note":
            slot = "name"
        pos = match.end()
        sep = re.match(
            r"\s*(?:(?:should|must|will|shall)\s+be\b|is\b|are\b|:|=|as\b|of\b)?\s*:?\s*",
            goal[pos:],
        )
        pos += sep.end() if sep else 0
        if slot in fields:
            continue
        quoted = _quoted_after(goal, pos)
        marked = bool(sep and re.search(r"[:=]|\b(?:is|are|be)\b", sep.group(0))) or (
            quoted is not None
        )
        if _is_noun_cue(match) and not marked:
            continue
        value = _cued_value(goal, pos, slot, cue, quoted, app_names)
        if value is not None:
            fields[slot] = value
    _uncued_fields(goal, fields, app_names, object_word)
    return list(fields.items())


# "a folder folder_2023", "an expense Seminars": a noun for a thing, then its name.
_NAME_AFTER_NOUN = re.compile(
    r"\b(?:folder|note|file|document|expense|event|contact|entry)\s+"
    r"((?=[\w.-]*[_\d])[\w.-]*[A-Za-z][\w.-]*|[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)"
)
_CATEGORY_BEFORE = re.compile(
    r"\b(?:in|under|to|as)\s+(?:the\s+)?([A-Z][\w&]*(?:\s+[A-Z][\w&]*)*)\s+category\b"
)
_LABEL_BEFORE = re.compile(r"\b(?:the|a|an|my)\s+([A-Z][a-z]+)\s+(?:phone\s+)?number\b")


def money_values(goal: str) -> list[str]:
    return [next(g for g in m.groups() if g) for m in _MONEY.finditer(goal)]


def phone_numbers(goal: str) -> list[str]:
    """Phone numbers as written; a date ("2023-10-19") has the shape but is none."""
    found = (m.group(0).strip() for m in _PHONE_RE.finditer(goal))
    return [
        n
        for n in found
        if len(re.sub(r"\D", "", n)) >= 7 and not re.search(r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}", n)
    ]


def file_names(goal: str) -> list[str]:
    out = []
    for match in _FILE_NAME.finditer(goal):
        name = match.group(0)
        first, _, rest = name.partition(" ")
        common = first.casefold() in _STOP_WORDS or first in ("note", "file")
        if rest and (common or _CUE_RE.fullmatch(first)):
            name = rest
        out.append(name)
    return out


def identifiers(goal: str) -> list[str]:
    """Tokens that can only be values: with digits or underscores and letters (file names,
    folder names, note names)."""
    return [
        m.group(0)
        for m in _IDENTIFIER.finditer(goal)
        if not re.fullmatch(r"[a-z]*\d+\w{0,2}", m.group(0), re.I)
        and goal[m.end() : m.end() + 1] != ":"
    ]


# Lowercase words that start a family name ("dos Santos", "da Silva", "van Dijk").
NAME_PARTICLES = ("da", "das", "de", "del", "della", "der", "di", "do", "dos", "du", "van", "von")


def person_names(goal: str, app_words: Sequence[str] = ()) -> list[str]:
    """Runs of capitalised words (any script, apostrophes and hyphens inside) that are not the
    sentence's first word or an app's name: "José Núñez", "Seán O'Brien"; a lowercase particle
    between two of them belongs to the name ("George dos Santos")."""
    out = []
    blocked = {w.casefold() for w in app_words}
    for match in re.finditer(r"(?<![\w'’])([^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*){0,3})", goal):
        run: list[str] = []
        words = match.group(1).split()
        for i, word in enumerate(words):
            capitalised = word[0].isupper() and word.casefold() not in blocked
            particle = bool(run) and word in NAME_PARTICLES and words[i + 1 :][:1] != []
            if capitalised or (particle and words[i + 1][0].isupper()):
                run.append(word)
            elif run:
                break
        if run:
            out.append(" ".join(run))
    return out


# --------------------------------------------------------------------------------------------
# Things to delete, move or extend


_DELETE_VERB = re.compile(r"\b(?:delete|remove)\b", re.I)
_DETERMINERS = r"(?:the|my|these|those|this|that|all|all\s+the|both|any)"
_OBJECT_NOUNS = (
    r"(?:expenses?|notes?|files?|events?|calendar\s+events?|entries|entry|calendar\s+entry|"
    r"items?|records?|documents?|folders?|contacts?|messages?|alarms?|recordings?|tasks?|"
    r"appointments?)"
)
_NAME_CUES = r"(?:named|called|titled|labell?ed|with\s+the\s+(?:name|title))"
_DELETE_HEADS = (
    # "the pro expense entry named X", "the calendar event titled X"
    re.compile(
        rf"\s*(?:{_DETERMINERS}\s+)?(?:\w+\s+){{0,2}}?{_OBJECT_NOUNS}\s+{_NAME_CUES}\s+", re.I
    ),
    # "the expense X", "the expenses A, B and C"
    re.compile(rf"\s*(?:{_DETERMINERS}\s+)?{_OBJECT_NOUNS}\s+(?:{_NAME_CUES}\s+)?", re.I),
    # "the X expense", "X"
    re.compile(rf"\s*(?:{_DETERMINERS}\s+)?", re.I),
)
_SPAN_END = re.compile(
    r"(?:^|\s+)(?:from|in|on|within|inside|located|at|scheduled|which|that|using|via|out\s+of)\b|"
    r"[;:](?:\s|$)|\.(?:\s|$)|[?!]|\s+\(|$",
    re.I,
)


def delete_items(goal: str, app_names: Sequence[str] = ()) -> list[str]:
    """The things a delete request names, quoted or not, one or a list ("Magazines, Doctor
    Visits and Streaming Services"); [] when it names none."""
    match = re.search(
        r"\b(?:following|these|those)\s+[\w ]+?(?:\s+from\s+[^:]*)?:\s*(.+)$", goal, re.I | re.S
    )
    if match:
        protected, quoted = _protect(match.group(1).strip().rstrip("."))
        items = (unquote(_unprotect(x, quoted)) for x in listed_items(protected))
        return [i for i in items if i]
    verb = _DELETE_VERB.search(goal)
    if not verb:
        return []
    rest = goal[verb.end() :]
    protected, quoted = _protect(rest)
    span = ""
    for head in _DELETE_HEADS:
        match = head.match(protected)
        if match:
            span = protected[match.end() :]
            end = _SPAN_END.search(span)
            span = span[: end.start()] if end else span
            span = re.sub(rf"(?:^|\s+){_OBJECT_NOUNS}\s*$", "", span.strip(), flags=re.I)
            if span.strip():
                break
    if not span.strip():
        cued = re.search(rf"{_NAME_CUES}\s+(\x00\d+\x00)", protected, re.I)
        span = cued.group(1) if cued else ""
    span = re.sub(rf"\s+{_OBJECT_NOUNS}\s*$", "", span.strip(), flags=re.I)
    if not span:
        return []
    for name in app_names:
        if span.casefold() == name.casefold():
            return []
    items = _split_items(_unprotect(span, quoted))
    return [i for i in items if i.casefold() not in ("it", "them", "this", "that")]


def unquote(value: str) -> str:
    """A listed value without the quotes around it; a quote inside it ('Fried "Rice"') stays."""
    value = value.strip(" .")
    pairs = {'"': '"', "'": "'", "“": "”", "‘": "’"}
    if len(value) >= 2 and pairs.get(value[0]) == value[-1]:
        return value[1:-1].strip()
    if value and value[0] in pairs and pairs[value[0]] not in value[1:]:
        value = value[1:]
    if value and value[-1] in pairs.values() and value.count(value[-1]) == 1:
        value = value[:-1]
    return value.strip(" .")


def listed_items(text: str) -> list[str]:
    """Items of a "following ...: A, B, C" list: one a line or comma-separated. Such lists
    join items with commas, so "and" inside one is part of a name ("Turkey and Cheese
    Panini"); only an Oxford ", and" before the last item is dropped."""
    items: list[str] = []
    for line in re.split(r"\s*\n\s*", text):
        items += [re.sub(r"^and\s+", "", p.strip(), flags=re.I) for p in line.split(",")]
    return [i for i in items if i]


def _split_items(text: str) -> list[str]:
    protected, quoted = _protect(text.strip().rstrip("."))
    parts = re.split(r",\s*(?:and\s+)?|\s+and\s+|\s*\n\s*", protected)
    return [p for p in (_unprotect(x, quoted).strip(" .'\"“”‘’") for x in parts) if p]


_MOVE_WORDING = (
    (re.compile(r"\bout\s+of\s+(?:the\s+)?", re.I), "from "),
    (re.compile(r"\s+(?:and\s+)?(?:into|over\s+to)\s+", re.I), " to "),
    (re.compile(r"(\S+)\s+\((?:in\s+|from\s+)?([^)]+)\)\s+to\b", re.I), r"\1 from \2 to"),
)


def restate_move(goal: str) -> str:
    """ "out of A and into B", "X (A) to B": the "from A to B" a move request reads."""
    if not re.search(r"\bmove\b", goal, re.I):
        return goal
    for pattern, replacement in _MOVE_WORDING:
        goal = pattern.sub(replacement, goal)
    return goal


_APPEND_WORDING = (
    re.compile(
        r"\b(?:append|add|put|insert|write)\s+(?P<value>[\"“'‘].+?[\"”'’])\s+(?:to|at|on|as)\s+"
        r"(?:the\s+)?(?:very\s+)?(?:end|bottom|(?:a\s+)?new\s+last\s+line|last\s+line)\b",
        re.I | re.S,
    ),
    re.compile(
        r"\b(?:append|add|put|insert|write)\s+(?:this|the\s+following|a|one\s+more)?\s*"
        r"(?:line|text|sentence)?\s*(?:to|at)\s+the\s+(?:very\s+)?(?:end|bottom)\s+of\s+"
        r"(?:the\s+)?(?:note\s+|file\s+)?\S+?[:,]\s+(?P<value>.+)$",
        re.I | re.S,
    ),
    re.compile(
        r"\bends\s+with\s+(?:the\s+)?(?:line|text|sentence)?[:\s]*(?P<value>.+)$", re.I | re.S
    ),
)


def appended_text(goal: str) -> str | None:
    """The text a goal adds at the end of a document, however the end is named."""
    for pattern in _APPEND_WORDING:
        match = pattern.search(goal)
        if match:
            value = match.group("value").strip()
            value = re.sub(r"(?<=[.!?\"”'’])\s+(?:in|using)\s+\w+(?:\s+\w+)?\.?$", "", value)
            value = value.rstrip(" ")
            if value[:1] in "\"“'‘" and value[-1:] in "\"”'’":
                value = value[1:-1]
            elif value[-2:-1] in "\"”'’" and value[-1:] == ".":
                value = value[1:-2] if value[:1] in "\"“'‘" else value
            return value.rstrip(".")
    return None


_COMMON_CAPITALS = frozenset(
    [
        "i",
        "ok",
        "not",
        "no",
        "wi-fi",
        "wifi",
        "bluetooth",
        "sms",
        "gps",
        "nfc",
        "usb",
        "pm",
        "am",
        "android",
    ]
)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_CALENDAR_WORDS = (*WEEKDAYS, *MONTHS, "today", "tomorrow")


def capitalised_words(goal: str, app_names: Sequence[str] = ()) -> list[str]:
    """Capitalised words inside sentences (names of things: a category, a label, a person),
    outside quotes; not a sentence's first word, an app's name, a day or a slot's cue word."""
    protected, _ = _protect(goal)
    apps = " ".join(app_names).casefold().split()
    out = []
    for sentence in re.split(r"(?<=[.?!;:])\s+|\n+", protected):
        tokens = re.findall(r"[^\W\d_][\w'’-]*", sentence)
        for before, word in itertools.pairwise(tokens):
            lowered = word.casefold()
            if before.casefold() in ("tap", "press", "hit", "click", "touch"):
                continue  # a button's label, not a value
            if (
                word[0].isupper()
                and lowered not in _COMMON_CAPITALS
                and lowered not in apps
                and lowered not in _CALENDAR_WORDS
                and not _CUE_RE.fullmatch(word)
                and lowered not in _STOP_WORDS
                and not word.isupper()
            ):
                out.append(word)
    return out


_NEXT_ORDER = re.compile(r"\s*(?:[,;]|\.\s)\s*(?:and\s+)?then\s+(?=[a-z])", re.I)
_REPLACE_FORMS = (
    re.compile(
        r"\b(?:replace|overwrite)\b[^:\n]*?\bwith\b(?:\s+the\s+following(?:\s+text)?)?\s*:?\s+(?P<value>.+)$",
        re.I | re.S,
    ),
    re.compile(
        r"\b(?:content|contents|text)\s+(?:becomes|should\s+be|is\s+now)\s*:?\s+(?P<value>.+)$",
        re.I | re.S,
    ),
    re.compile(
        r"\b(?:erase|clear|delete|remove)\s+(?:what\s+it\s+says|its\s+(?:text|content)|everything(?:\s+in\s+it)?)"
        r"\s+and\s+(?:write|type|put)\s*:?\s+(?P<value>.+)$",
        re.I | re.S,
    ),
)


def replacement(goal: str) -> str | None:
    """The text that is to replace a document's whole content, however the request says so."""
    for pattern in _REPLACE_FORMS:
        match = pattern.search(goal)
        if match:
            value = match.group("value").strip()
            # ", then rename it to X": a next order, not more of the text.
            value = _NEXT_ORDER.split(value, maxsplit=1)[0].strip()
            quoted = _quoted_after(value, 0)
            return quoted[0] if quoted and quoted[1] >= len(value.rstrip(". ")) else value
    return None
