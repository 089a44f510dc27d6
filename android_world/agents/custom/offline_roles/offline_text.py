"""Text handling for the offline (no-model) roles: normalising, fuzzy matching, goal slots.

Without a model, every decision is a similarity between words of the goal and words on the screen,
so this module is where that similarity is defined. It holds only generic phone vocabulary (what
an app is usually called, which words usually lead to a setting, what a form field is usually
labelled); nothing here knows any benchmark task. All functions are pure.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import difflib
import functools
import re
from collections.abc import Iterable, Sequence
from typing import Any

from android_world.agents.custom.offline_roles import offline_wording as wording
from android_world.agents.custom.roles import celil_goal_questions as questions

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "and",
        "or",
        "then",
        "by",
        "from",
        "into",
        "onto",
        "as",
        "is",
        "are",
        "be",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "my",
        "me",
        "i",
        "you",
        "your",
        "please",
        "app",
        "application",
        "using",
        "use",
        "via",
        "all",
        "any",
        "new",
        "following",
        "value",
        "do",
        "does",
        "did",
    ]
)

# Words that usually lead to a thing on a phone even when the thing itself is not named on
# screen (Android puts Wi-Fi under "Network & internet", Bluetooth under "Connected devices").
RELATED_TERMS: dict[str, tuple[str, ...]] = {
    "wifi": ("internet", "network", "wlan", "wireless"),
    "bluetooth": ("connected devices", "connection preferences", "pairing"),
    "brightness": ("display", "screen"),
    "airplane": ("network", "internet", "flight"),
    "photo": ("camera", "shutter", "capture", "picture", "take"),
    "picture": ("photo", "camera", "shutter", "capture"),
    "video": ("record", "camera", "recording"),
    "recording": ("shutter", "record", "rec"),
    "contact": ("contacts", "people", "person"),
    "note": ("file", "document", "new"),
    "event": ("calendar", "appointment", "new"),
    "expense": ("expenses", "cost", "spending"),
    "message": ("sms", "chat", "conversation", "text"),
    "sms": ("message", "messages", "text", "chat"),
    "stopwatch": ("lap",),
    "timer": ("countdown",),
    "alarm": ("alarms",),
    "file": ("files", "document", "folder"),
}

# How form fields are usually labelled, by the slot name the goal gives them.
FIELD_SYNONYMS: dict[str, tuple[str, ...]] = {
    "phone": ("phone", "number", "mobile", "telephone", "tel", "to", "recipient"),
    "number": ("phone", "number", "mobile", "to", "recipient"),
    "name": ("name", "title", "file name", "filename"),
    "first name": ("first name", "given name", "name"),
    "last name": ("last name", "surname", "family name"),
    "message": ("message", "text", "body", "type a message", "content"),
    "text": ("text", "content", "body", "note", "message"),
    "title": ("title", "name", "subject"),
    "description": ("description", "note", "details", "notes"),
    "note": ("note", "notes", "description", "remark"),
    "amount": ("amount", "price", "cost", "sum", "value"),
    "category": ("category", "type"),
    "email": ("email", "e-mail", "mail"),
    "date": ("date", "day"),
    "time": ("time", "hour"),
    "hours": ("hours", "hour", "h"),
    "minutes": ("minutes", "minute", "min", "m"),
    "seconds": ("seconds", "second", "sec", "s"),
    "recipient": ("to", "recipient", "phone", "number"),
}


@dataclasses.dataclass(frozen=True)
class AppHint:
    """An app as goals name it: its launcher label, aliases, words that imply it, package hints."""

    label: str
    aliases: tuple[str, ...]
    keywords: tuple[str, ...]
    package_hints: tuple[str, ...]


APP_HINTS: tuple[AppHint, ...] = (
    AppHint(
        "Settings",
        ("settings", "system settings"),
        ("wifi", "bluetooth", "brightness", "airplane mode", "dark theme", "display", "network"),
        ("settings",),
    ),
    AppHint("Contacts", ("contacts",), ("contact", "contacts"), ("contacts",)),
    AppHint("Clock", ("clock",), ("stopwatch", "timer", "alarm"), ("deskclock", "clock")),
    AppHint("Markor", ("markor",), ("note", "notes", "markdown"), ("markor",)),
    AppHint(
        "Files",
        ("files", "file manager"),
        ("file", "files", "folder", "filesystem", "storage"),
        ("documentsui", "files"),
    ),
    AppHint("Pro Expense", ("pro expense",), ("expense", "expenses"), ("expense",)),
    AppHint(
        "Simple Calendar Pro",
        ("simple calendar pro", "simple calendar", "calendar"),
        ("event", "events", "calendar", "appointment"),
        ("calendar",),
    ),
    AppHint(
        "Simple SMS Messenger",
        ("simple sms messenger", "simple sms", "sms messenger", "sms"),
        ("text message", "sms", "messages"),
        ("smsmessenger", "sms", "messaging"),
    ),
    AppHint("Camera", ("camera",), ("photo", "picture", "video", "selfie"), ("camera",)),
    # Upstream's names for Broccoli (com.flauschcode.broccoli) and Tasks.org (org.tasks).
    AppHint(
        "Broccoli",
        ("broccoli recipe app", "broccoli app", "broccoli", "recipe app"),
        ("recipe", "recipes"),
        ("broccoli",),
    ),
    AppHint("Tasks", ("tasks app", "tasks.org", "tasks"), ("to-do", "todo"), ("org.tasks",)),
    # Upstream's media, drawing, gallery and browser apps (their names in upstream's goals).
    AppHint(
        "Audio Recorder",
        ("audio recorder",),
        ("audio recording", "voice recording", "voice memo"),
        ("audiorecorder",),
    ),
    AppHint(
        "Retro Music", ("retro music", "retro"), ("playlist", "song", "songs"), ("retromusic",)
    ),
    AppHint("VLC", ("vlc",), ("video", "videos"), ("videolan", "vlc")),
    AppHint("Simple Draw Pro", ("simple draw pro", "simple draw"), ("drawing",), ("draw",)),
    AppHint(
        "Simple Gallery Pro",
        ("simple gallery pro", "simple gallery", "gallery"),
        ("image", "images", "picture", "pictures"),
        ("gallery",),
    ),
    AppHint("Chrome", ("google chrome", "chrome"), ("browser", "web page"), ("chrome",)),
    # Upstream's names for OsmAnd, OpenTracks and Joplin (its app-name table).
    AppHint("OsmAnd", ("osmand maps app", "osmand maps", "osmand"), (), ("osmand",)),
    AppHint(
        "OpenTracks",
        ("open tracks sports tracker", "activity tracker", "open tracks", "opentracks"),
        (),
        ("opentracks",),
    ),
    AppHint("Joplin", ("joplin app", "joplin"), (), ("joplin",)),
)

# --------------------------------------------------------------------------------------------
# Normalising and matching words

# Quote marks and their closing partner. A straight or curly single quote is also an apostrophe
# ("Let's", "Parents' evening"), so for those the position decides (see `quoted_spans`).
_QUOTE_PAIRS = {'"': '"', "'": "'", "“": "”", "‘": "’"}
_APOSTROPHES = frozenset("'’")
MAX_QUOTED_CHARS = 1000


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each quoted value in `text`, quote marks included, in order.

    The one place that decides where a quoted value ends, because an apostrophe inside it
    ("the description 'Let's be punctual.'") must not cut it short: a single quote opens a value
    only after the start, a space or punctuation, and closes it only before the end, a space or
    punctuation, never between letters. Double quotes pair up plainly.
    """
    spans: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        mark = text[i]
        close = _QUOTE_PAIRS.get(mark)
        opens = (
            close is not None
            and i + 1 < n
            and not text[i + 1].isspace()
            and not (mark in _APOSTROPHES and i > 0 and text[i - 1].isalnum())
        )
        end = _closing_quote(text, i + 1, close) if opens and close else None
        if end is None:
            i += 1
            continue
        spans.append((i, end + 1))
        i = end + 1
    return spans


def _closing_quote(text: str, start: int, close: str) -> int | None:
    limit = min(len(text), start + MAX_QUOTED_CHARS + 1)
    for j in range(start + 1, limit):
        if text[j] != close or text[j - 1].isspace():
            continue
        if close not in _APOSTROPHES or j + 1 == len(text) or not text[j + 1].isalnum():
            return j
    return None


def quoted_values(text: str) -> list[str]:
    """The quoted values of `text`, verbatim (inner spacing and line breaks kept)."""
    return [text[s + 1 : e - 1] for s, e in quoted_spans(text)]


def quoted_at(text: str, pos: int) -> str | None:
    """The quoted value that starts at `pos` (after optional spaces), or None."""
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    return next((text[s + 1 : e - 1] for s, e in quoted_spans(text) if s == pos), None)


@functools.lru_cache(maxsize=8192)  # pure, and called ~5,000 times a step
def normalize(text: str | None) -> str:
    """Case, hyphens inside words ("Wi-Fi") and punctuation do not change what a label says."""
    text = (text or "").casefold().replace("&", " and ")
    text = re.sub(r"(?<=[a-z])[-‐](?=[a-z])", "", text)
    text = re.sub(r"[^\w%+:./]+", " ", text)
    return " ".join(text.split())


def words(text: str | None) -> list[str]:
    return [w.strip(":./") for w in normalize(text).split() if w.strip(":./")]


def content_words(text: str | None) -> list[str]:
    return [w for w in words(text) if w not in STOPWORDS]


@functools.lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """A crude plural/tense stem; enough for "contacts"/"contact", "notes"/"note"."""
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed"):
        return word[:-2]
    if len(word) > 4 and word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def word_similarity(a: str, b: str) -> float:
    """1 for the same word, a hair less for the same stem (so "Record" beats "Records" for
    "record"), the edit ratio for near-spellings, 0 otherwise."""
    if a == b:
        return 1.0
    if stem(a) == stem(b):
        return 0.98
    if len(a) < 4 or len(b) < 4:
        return 0.0
    ratio = difflib.SequenceMatcher(None, a, b).ratio()
    return ratio if ratio >= 0.85 else 0.0


def phrase_in(phrase: str, text: str) -> bool:
    """Whole-word containment after normalising, so "wifi" is in "Wi-Fi" but "on" not in "phone"."""
    p, t = normalize(phrase), normalize(text)
    return bool(p) and re.search(rf"(?<!\w){re.escape(p)}(?!\w)", t) is not None


def label_relevance(terms: Sequence[tuple[str, float]], label: str | None) -> float:
    """How strongly a screen label names one of the weighted query terms (0..~1.2).

    The best single match counts fully; each further matched term adds a little, so "Use
    Bluetooth" beats "Bluetooth, NFC" only by a hair and exact short labels win ties.
    """
    label_words = words(label)
    if not label_words or not terms:
        return 0.0
    matches: list[float] = []
    for term, weight in terms:
        term_words = words(term)
        if not term_words:
            continue
        if len(term_words) > 1:
            score = 1.0 if phrase_in(term, label or "") else 0.0
            if not score:
                hits = [max(word_similarity(t, w) for w in label_words) for t in term_words]
                score = 0.8 * sum(hits) / len(hits) if all(hits) else 0.0
        else:
            score = max(word_similarity(term_words[0], w) for w in label_words)
        if score:
            matches.append(weight * score)
    if not matches:
        return 0.0
    matches.sort(reverse=True)
    brevity = 0.05 if len(label_words) <= 3 else 0.0
    return matches[0] + 0.1 * sum(matches[1:3]) + brevity


def expand_terms(words_in: Iterable[str], related_weight: float = 0.6) -> list[tuple[str, float]]:
    """The query terms for a sub-goal: its own words at 1.0 and their related words lower."""
    terms: dict[str, float] = {}
    for word in words_in:
        key = normalize(word)
        if not key or key in STOPWORDS:
            continue
        terms[key] = max(terms.get(key, 0.0), 1.0)
        for related in RELATED_TERMS.get(stem(key), RELATED_TERMS.get(key, ())):
            terms.setdefault(related, related_weight)
    return list(terms.items())


# --------------------------------------------------------------------------------------------
# Goal slots


@dataclasses.dataclass
class GoalInfo:
    """What a goal asks for, as far as words can tell."""

    goal: str
    clauses: list[str]
    apps: list[str]
    toggles: list[tuple[str, bool]]
    levels: list[tuple[str, str]]
    fields: list[tuple[str, str]]
    quoted: list[str]
    numbers: list[str]
    verbs: list[str]
    is_question: bool
    objects: list[str]
    forbidden: list[str] = dataclasses.field(default_factory=list)
    duration: tuple[int, int, int] | None = None
    targets: list[str] = dataclasses.field(default_factory=list)
    folder: str | None = None
    append: str | None = None
    prepend: str | None = None
    edit: str | None = None
    day: str | None = None
    move: tuple[str, str, str] | None = None
    when: When | None = None
    # Two or more things to create, each its own (field, value) list ("the following recipes:"
    # as csv rows or as "Recipe: X" blocks); empty for one.
    records: list[list[tuple[str, str]]] = dataclasses.field(default_factory=list)

    def slot_values(self) -> list[str]:
        values = [v for _, v in self.fields] + [v for r in self.records for _, v in r]
        values += self.quoted + self.numbers
        seen: list[str] = []
        for value in values:
            if value and value not in seen:
                seen.append(value)
        return seen


_QUESTION_START = re.compile(
    r"^\s*(what|how many|how much|how long|which|who|when|where|is there|are there|do i|does|"
    r"did i|have i|list|tell me)\b",
    re.IGNORECASE,
)
ACTION_VERBS = (
    "create",
    "add",
    "make",
    "new",
    "send",
    "save",
    "delete",
    "remove",
    "take",
    "record",
    "start",
    "run",
    "pause",
    "stop",
    "reset",
    "rename",
    "move",
    "edit",
    "write",
    "reply",
)
_TOGGLE_PATTERNS = (
    re.compile(r"\b(?:turn|switch|toggle|set|put)\s+(on|off)\s+(?:the\s+)?(.+)$", re.I),
    re.compile(r"\b(?:turn|switch|toggle|set|put)\s+(?:the\s+)?(.+?)\s+(on|off)\b", re.I),
    re.compile(r"\b(enable|disable|activate|deactivate)\s+(?:the\s+)?(.+)$", re.I),
)
_LEVEL_PATTERN = re.compile(
    r"\b(?:turn|set|change|adjust|put|make|dim|lower|raise|bring|increase|decrease|reduce)\s+"
    r"(?:the\s+)?(.+?)\s+(?:to|at)\s+(?:the\s+|its\s+)?"
    r"(max(?:imum)?|min(?:imum)?|highest|lowest|full|100\s*%|0\s*%)(?!\w)",
    re.I,
)
_CLAUSE_SPLIT = re.compile(
    r"\s*(?:,\s*(?:and\s+)?then\s+|\s+and\s+then\s+|;\s*|\.\s+(?=[A-Z])|\s+then\s+|"
    r",\s*and\s+(?=(?:turn|enable|disable|switch|open|set|launch|share|send|accept|allow|grant)\b)|"
    r"\s+and\s+(?=(?:turn|enable|disable|switch|open|launch|share|send|accept|allow|grant|start|"
    r"run|take|pause|stop|reply|record|delete|remove)\b))",
    re.I,
)
_OPEN_PATTERN = re.compile(
    r"^\s*(?:open|launch|start|go to)\s+(?:the\s+)?(.+?)(?:\s+app)?\s*$", re.I
)
_NUMBER = re.compile(r"(?<![\w.])\+?\d[\d\s().-]{5,}\d(?!\w)|(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")
_PERSON = re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+){1,2})\b")
# A pattern without a group ends where a quoted value starts; `quoted_at` reads that value, so
# an apostrophe inside it is handled where every other quote is (`quoted_spans`).
_QUOTE_AHEAD = r"(?=[\"'“‘])"
_FIELD_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("phone", re.compile(r"\b(?:phone\s+)?number\s+(?:is|:)?\s*(\+?\d[\d\s().-]{4,}\d)", re.I)),
    ("phone", re.compile(r"\bto\s+(\+?\d[\d\s().-]{5,}\d)\b", re.I)),
    ("name", re.compile(r"\b(?:named|called|with the name|titled)\s+" + _QUOTE_AHEAD, re.I)),
    (
        "name",
        re.compile(
            r"\b(?:named|called|with the name|titled)\s+([^\"',]+?)(?=\s+with\b|[,.]\s|$)",
            re.I,
        ),
    ),
    ("title", re.compile(r"\bwith (?:the )?title\s+" + _QUOTE_AHEAD, re.I)),
    ("description", re.compile(r"\bdescription\s+" + _QUOTE_AHEAD, re.I)),
    ("message", re.compile(r"\bmessage\s*:\s*(.+)$", re.I)),
    ("text", re.compile(r"\b(?:following text|the text|with text|content)\s*:\s*(.+)$", re.I)),
)
_KEY_VALUE = re.compile(
    r"\b([a-z][a-z ]{1,20}?)\s*:\s*([^,;:]+?)(?=,\s*[a-z][a-z ]{1,20}:|[;\n]|$)", re.I
)


def _protect_quotes(text: str) -> tuple[str, list[str]]:
    """`text` with each quoted value (marks included) replaced by a placeholder, and the values
    as written, so clause splitting never looks inside a value."""
    pieces: list[str] = []
    quoted: list[str] = []
    pos = 0
    for start, end in quoted_spans(text):
        pieces += [text[pos:start], f"\x00{len(quoted)}\x00"]
        quoted.append(text[start:end])
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces), quoted


def _restore(text: str, quoted: list[str]) -> str:
    return re.sub(r"\x00(\d+)\x00", lambda m: quoted[int(m.group(1))], text)


def split_clauses(goal: str) -> list[str]:
    protected, quoted = _protect_quotes(goal.strip())
    # Everything after "message:" / "text:" is one value, never more clauses.
    tail = ""
    cut = re.search(r"\b(?:message|following text|text)\s*:", protected, re.I)
    if cut:
        protected, tail = protected[: cut.end()], protected[cut.end() :]
    parts = [p.strip(" .,") for p in _CLAUSE_SPLIT.split(protected)]
    parts = [p for p in parts if p]
    clauses = [_restore(p, quoted).strip(" .") for p in parts]
    if tail and clauses:
        # A value that ends a sentence ends with two periods ("...on Sunday.. Share it"): what
        # follows is a new sentence, so a new clause, and the value keeps its own period.
        value, *after = _VALUE_END.split(tail, maxsplit=1)
        ended = bool(after)
        clauses[-1] = _restore(parts[-1] + value, quoted).strip(" " if ended else " .")
        clauses += [_restore(p, quoted).strip(" .,") for p in after if p.strip(" .,")]
    return clauses or [goal.strip()]


_VALUE_END = re.compile(r"(?<=\.)\.\s+(?=[A-Z])")


def find_apps(text: str, launcher_labels: Sequence[str] = ()) -> list[str]:
    """Apps the text names (launcher labels and aliases first), then apps its words imply."""
    found: list[tuple[int, str]] = []
    # "at 3 o'clock" is a time, not the Clock app.
    norm = normalize(re.sub(r"\bo'?\s?clock\b", " ", text, flags=re.I))
    for label in launcher_labels:
        if len(normalize(label)) >= 3 and phrase_in(label, norm):
            found.append((norm.find(normalize(label)), label))
    for hint in APP_HINTS:
        for alias in (hint.label, *hint.aliases):
            if phrase_in(alias, norm):
                found.append((norm.find(normalize(alias)), hint.label))
                break
    explicit: list[str] = []
    for _, label in sorted(found):
        canonical = canonical_app(label)
        if canonical not in explicit:
            explicit.append(canonical)
    if explicit:
        return explicit
    implied: list[tuple[int, str]] = []
    for hint in APP_HINTS:
        positions = [
            norm.find(normalize(k))
            for k in hint.keywords
            if phrase_in(k, norm) or _stem_in(k, norm)
        ]
        if positions:
            implied.append(
                (
                    min(p for p in positions if p >= 0) if any(p >= 0 for p in positions) else 0,
                    hint.label,
                )
            )
    return [label for _, label in sorted(implied)]


def _stem_in(keyword: str, norm: str) -> bool:
    key = words(keyword)
    return len(key) == 1 and any(stem(w) == stem(key[0]) for w in norm.split())


def canonical_app(name: str) -> str:
    norm = normalize(name)
    for hint in APP_HINTS:
        if norm in (normalize(a) for a in (hint.label, *hint.aliases)):
            return hint.label
    return name.strip()


def app_hint(name: str) -> AppHint | None:
    canonical = canonical_app(name)
    return next((h for h in APP_HINTS if h.label == canonical), None)


def activity_matches_app(activity: str | None, app: str) -> bool:
    """Whether the foreground activity (package/class) belongs to the app, by package words."""
    if not activity:
        return False
    package = activity.split("/", 1)[0].casefold()
    hint = app_hint(app)
    hints = hint.package_hints if hint else tuple(content_words(app))
    return any(h and h in package for h in hints)


def _clean_subject(text: str) -> str:
    text = re.sub(
        r"\s+(?:in|on|from|via|using|within|inside)\s+(?:the\s+)?\w+(?:\s+app)?\s*$",
        "",
        text,
        flags=re.I,
    )
    text = re.sub(r"\b(setting|settings|option|feature|the|my)\b", " ", text, flags=re.I)
    return " ".join(text.split()).strip(" .,'\"")


def parse_toggle(clause: str) -> tuple[str, bool] | None:
    for pattern in _TOGGLE_PATTERNS:
        match = pattern.search(clause)
        if not match:
            continue
        a, b = match.group(1), match.group(2)
        if a.lower() in ("on", "off"):
            state, subject = a.lower() == "on", b
        elif b.lower() in ("on", "off"):
            state, subject = b.lower() == "on", a
        else:
            state, subject = a.lower() in ("enable", "activate"), b
        subject = _clean_subject(subject)
        if subject and len(subject.split()) <= 4 and not _LEVEL_PATTERN.search(clause):
            return subject, state
    return None


def parse_level(clause: str) -> tuple[str, str] | None:
    match = _LEVEL_PATTERN.search(clause)
    if not match:
        return None
    subject = _clean_subject(match.group(1))
    # "screen brightness", "display brightness": the setting is the last word.
    subject = re.sub(r"^(?:screen|display|phone|device)\s+(?=\w)", "", subject, flags=re.I)
    level = match.group(2).lower()
    return subject, "max" if level.startswith(("max", "high", "full", "1")) else "min"


def parse_open(clause: str) -> str | None:
    """The app an "open X" clause names; "start the stopwatch" names a thing in an app, so it
    is no request to open that app."""
    match = _OPEN_PATTERN.match(clause)
    if not match:
        return None
    target = match.group(1)
    apps = find_apps(target)
    if apps and re.match(r"\s*(?:start|run)\b", clause, re.I):
        norm = normalize(target)
        hint = app_hint(apps[0])
        names = (hint.label, *hint.aliases) if hint else (apps[0],)
        if not any(phrase_in(n, norm) for n in names):
            return None
    return apps[0] if apps else None


_KV_KEY = re.compile(r"([A-Za-z][A-Za-z_]*(?:[ ][A-Za-z][A-Za-z_]*){0,3})\s*:(?=\s|$)")
_SUFFIX_WORDS = frozenset({"name", "dollars", "dollar", "value", "usd", "in"})


def field_key(raw_key: str, object_word: str = "") -> str:
    """ "category_name" -> category, "amount_dollars" -> amount, "Phone Label" -> label; a key that
    names the goal's object ("Expense: X") is that object's name."""
    key_words = words(raw_key.replace("_", " "))[-3:]
    if not key_words:
        return ""
    pair = " ".join(key_words[-2:])
    if pair in FIELD_SYNONYMS:
        return pair
    kept = [w for w in key_words if w not in _SUFFIX_WORDS] or key_words[-1:]
    head = kept[-1]
    if object_word and stem(head) == stem(object_word):
        return "name"
    return head


def _clean_value(value: str, whole: bool = False) -> str:
    """A stated value, trimmed; in prose it ends with its sentence, but a table cell or a
    "key: value" line is whole (a recipe's directions run over several sentences)."""
    if not whole:
        value = re.split(r"\.\s+(?=[A-Z])", value.strip())[0]
    value = value.strip(" ,;\n\t")
    # Quotes around the whole value go; a quote that belongs to it ('Fried "Rice"') stays.
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    elif value and value[0] in "'\"" and value.count(value[0]) == 1:
        value = value[1:]
    elif value and value[-1] in "'\"" and value.count(value[-1]) == 1:
        value = value[:-1]
    value = re.sub(r"^[$€£]\s*(?=\d)", "", value)
    return value.rstrip(".") if not re.search(r"\d\.$", value) else value[:-1]


def _strip_trailing_app(value: str) -> str:
    """ "... to be. in Simple SMS Messenger" -> "... to be." (the app is not part of the text)."""
    for hint in APP_HINTS:
        for alias in (hint.label, *hint.aliases):
            pattern = rf"\s+(?:in|using|via|with)\s+(?:the\s+)?{re.escape(alias)}(?:\s+app)?\.?\s*$"
            stripped = re.sub(pattern, "", value, flags=re.I)
            if stripped != value:
                return stripped.strip()
    return value


def table_fields(text: str, object_word: str = "") -> list[tuple[str, str]]:
    """A header row and a value row separated by "|" ("name|amount\nRent|500")."""
    rows = [line.strip() for line in text.splitlines() if line.count("|") >= 1]
    if len(rows) < 2:
        return []
    header = [c.strip() for c in rows[0].split("|")]
    values = [c.strip() for c in rows[1].split("|")]
    out = []
    for key, value in zip(header, values):
        name = field_key(key, object_word)
        value = _clean_value(value, whole=True)
        if name and value:
            out.append((name, value))
    return out


def replacement_text(goal: str) -> str | None:
    match = re.search(r"\breplace\s+the\s+(?:text|content)s?\s+with[:\s]+(.+)$", goal, re.I | re.S)
    return match.group(1).strip() if match else None


def parse_fields(goal: str, object_word: str = "") -> list[tuple[str, str]]:
    """(field, value) pairs the goal states: "number is 555...", "named X", "title: Y"."""
    fields: list[tuple[str, str]] = []
    taken: set[str] = set()
    kv_text = goal
    for name, pattern in _FIELD_PATTERNS:
        match = pattern.search(goal)
        if match and name not in taken:
            if pattern.groups:
                value = match.group(1).strip()
            else:
                value = quoted_at(goal, match.end()) or ""
            if name == "phone" or (name == "name" and pattern.groups):
                value = value.strip("'\"").rstrip(".")
            if name in ("message", "text"):
                kv_text = kv_text[: match.start()]
                value = _strip_trailing_app(re.split(r"(?<=\.)\.\s+(?=[A-Z])", value)[0])
            if value:
                fields.append((name, value))
                taken.add(name)
    for key, value in table_fields(kv_text, object_word):
        if key not in taken:
            fields.append((key, value))
            taken.add(key)
    kv_text = "\n".join(line for line in kv_text.splitlines() if "|" not in line)
    keys = list(_KV_KEY.finditer(kv_text))
    # "to the clipboard: Order No: A1": a label straight after another, on its line, is part of
    # the first one's value.
    inner = {
        n + 1
        for n in range(len(keys) - 1)
        if not kv_text[keys[n].end() : keys[n + 1].start()].strip(" \t")
    }
    keys = [k for n, k in enumerate(keys) if n not in inner]
    for n, match in enumerate(keys):
        end = keys[n + 1].start() if n + 1 < len(keys) else len(kv_text)
        line_start = kv_text.rfind("\n", 0, match.start()) + 1
        own_line = not kv_text[line_start : match.start()].strip()
        raw = kv_text[match.end() : end]
        if own_line and "\n" in raw.strip(" \t"):
            raw = raw.strip(" \t").split("\n", 1)[0]
        value = _clean_value(raw, whole=own_line and bool(raw.strip()))
        key = field_key(match.group(1), object_word)
        if key and value and key not in taken and key not in STOPWORDS:
            fields.append((key, value))
            taken.add(key)
    replacement = replacement_text(goal)
    if replacement and "text" not in taken:
        fields.append(("text", replacement))
        taken.add("text")
    if "first name" in taken or "last name" in taken:
        fields = [(k, v) for k, v in fields if k != "name" or "first name" not in taken]
    if not taken & {"name", "title", "first name"}:
        # A name inside a value ("...hiking trip to Blue Mountain.") is the value's, not a slot.
        person = person_name(_mask_values(goal, [v for _, v in fields]))
        if person:
            fields.insert(0, ("name", person))
    return fields


_NEGATIVE = re.compile(
    r"\b(?:do not|don't|never|without)\s+(?:(?:hit|press|tap|click|touch)\s+)?(?:the\s+)?(\w+)",
    re.I,
)
_DURATION = {
    "h": re.compile(r"(\d+)\s*hours?\b", re.I),
    "m": re.compile(r"(\d+)\s*minutes?\b", re.I),
    "s": re.compile(r"(\d+)\s*seconds?\b", re.I),
}


_REPEAT = re.compile(
    r"\b(?:recurs?|recurring|repeats?|repeating|repeated)\s+(?:every\s+)?"
    r"(daily|weekly|monthly|yearly|annually|day|week|month|year)\b",
    re.I,
)
_REPEAT_CHOICE = {"day": "Daily", "week": "Weekly", "month": "Monthly", "year": "Yearly"}


def repetition(goal: str) -> str | None:
    """How often a thing the goal creates repeats, as a repetition menu words it ("The event
    recurs weekly" -> "Weekly"); quoted text is the goal's values, not its instructions."""
    text = goal
    for start, end in reversed(quoted_spans(goal)):
        text = text[:start] + " " * (end - start) + text[end:]
    match = _REPEAT.search(text)
    if not match:
        return None
    word = (
        match.group(1).casefold().removesuffix("ly").replace("annual", "year").replace("dai", "day")
    )
    return _REPEAT_CHOICE.get(word)


_DELETE_ALL = re.compile(
    r"\b(?:delete|remove|clear)\s+(?:all|every(?:thing)?)\s+(?:of\s+)?(?:the\s+|my\s+)?"
    r"(?:[\w-]+\s+){0,2}?(?:events?|appointments?|meetings?|entries|items?)?\s*"
    r"(?:that\s+(?:are|is)\s+)?(?:on|for|scheduled\s+(?:for|on)|planned\s+for)\s+(?P<rest>.+)$",
    re.I,
)


def delete_all_day(goal: str) -> str | None:
    """The day of "delete all the calendar events on 2023-10-27" / "delete all events scheduled
    for this Monday", as the goal words it (a list to empty, not an item to find)."""
    match = _DELETE_ALL.search(" ".join(goal.split()))
    return day_phrase(match.group("rest")) if match else None


def forbidden_words(goal: str) -> list[str]:
    """Labels the goal says not to touch ("Do not start the timer" -> start)."""
    return [normalize(m.group(1)) for m in _NEGATIVE.finditer(goal)]


_UNIT = re.compile(
    r"(\d+)\s*(hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b(?:[,\s]*(?:and\s+)?)", re.I
)


def parse_duration(goal: str) -> tuple[int, int, int] | None:
    """A duration of two or more units written together ("14h 35m 31s", "2 hours and 5
    minutes"); a lone "60 mins" or a start hour ("13h") is no duration."""
    runs: list[list[re.Match[str]]] = []
    for match in _UNIT.finditer(goal):
        if runs and runs[-1][-1].end() == match.start():
            runs[-1].append(match)
        else:
            runs.append([match])
    colon = re.search(r"(?<![\d:])(\d{1,2}):(\d{2}):(\d{2})(?![\d:])", goal)
    if colon and re.search(r"\b(?:timer|duration|countdown)\b", goal, re.I):
        h, m, sec = (int(g) for g in colon.groups())
        return h, m, sec
    for run in runs:
        parts = {m.group(2)[0].casefold(): int(m.group(1)) for m in run}
        if len(parts) >= 2 and len(parts) == len(run):
            return parts.get("h", 0), parts.get("m", 0), parts.get("s", 0)
    return None


def delete_targets(goal: str, fields: Sequence[tuple[str, str]]) -> list[str]:
    """The things a delete goal names: a "following ...: a, b" list, a file, a title or name."""
    match = re.search(r"\bfollowing\s+[\w ]+?(?:\s+from\s+[^:]*)?:\s*(.+)$", goal, re.I | re.S)
    if match:
        items = (wording.unquote(i) for i in wording.listed_items(match.group(1).strip()))
        return [i for i in items if i]
    match = re.search(r"\bfile\s+(\S+\.\w+)", goal, re.I)
    if match:
        return [match.group(1)]
    for key in ("title", "name"):
        for field, value in fields:
            if field == key:
                return [value]
    return []


_MOVE = re.compile(
    r"\b(?:move|transfer)\s+(?:the\s+)?(?:file|folder|note|document)?\s*['\"]?(?P<item>[^\s'\"]+)['\"]?"
    r"\s+from\s+(?:the\s+)?(?P<source>.+?)(?:\s+(?:folder|directory))?"
    r"(?:\s+(?:within|inside|in|on)\b.*?)?\s+to\s+(?:the\s+)?(?P<destination>.+?)"
    r"(?:\s+(?:folder|directory))?(?:\s+(?:within|inside|in|on)\b.*)?[.\s]*$",
    re.I | re.S,
)


def move_request(goal: str) -> tuple[str, str, str] | None:
    """(item, source folder, destination folder) of "move X from A to B", or None."""
    match = _MOVE.search(goal)
    if not match:
        return None
    parts = tuple(match.group(k).strip(" .'\"") for k in ("item", "source", "destination"))
    return parts if all(parts) else None  # type: ignore[return-value]


def folder_hint(goal: str) -> str | None:
    """The folder a file is in: "the Recordings folder", "in Recordings", "from DCIM"."""
    match = re.search(r"\bthe (\w+) folder\b", goal, re.I)
    if match:
        return match.group(1).strip()
    if not wording.file_names(goal):
        return None
    for match in re.finditer(
        r"\b(?:in|from|inside|within|located\s+in)\s+(?:the\s+)?([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)"
        r"(?!\s+(?:file\s*system|filesystem|storage|app|application)\b)",
        goal,
    ):
        name = match.group(1)
        if not find_apps(name) and name.split()[0].casefold() != "android" and " " not in name:
            return name
    return None


def append_text(goal: str) -> str | None:
    """Text to add at the end of an existing document ("Add to the bottom of the note X")."""
    match = re.search(
        r"\b(?:add|append)\s+to\s+the\s+(?:bottom|end)\s+of\s+the\s+\w+[:,]?\s+(.+)$",
        goal,
        re.I | re.S,
    )
    return match.group(1).strip().rstrip(".") if match else None


def prepend_text(goal: str) -> str | None:
    """Text to put before an existing document's text ("Add to the top of the note X")."""
    match = re.search(
        r"\b(?:add|insert|prepend)\s+to\s+the\s+(?:top|beginning|start)\s+of\s+the\s+\w+[:,]?"
        r"\s+(.+)$",
        goal,
        re.I | re.S,
    )
    return match.group(1).strip().rstrip(".") if match else None


_MONTHS = wording.MONTHS


def day_of_month(goal: str) -> str | None:
    """The day number of a date in the goal ("2023-10-19" or "October 19"), as a calendar shows it."""
    match = re.search(r"\b\d{4}-\d{1,2}-(\d{1,2})\b", goal)
    if match:
        return str(int(match.group(1)))
    match = re.search(rf"\b(?:{'|'.join(_MONTHS)})\s+(\d{{1,2}})\b", goal, re.I)
    return str(int(match.group(1))) if match else None


def edit_target(goal: str) -> str | None:
    match = re.search(r"\b(?:edit|open)\s+(?:the\s+(?:note|file)\s+)?(\S+\.\w{1,4})\b", goal, re.I)
    return match.group(1) if match else None


def _mask_values(goal: str, values: Sequence[str]) -> str:
    """`goal` with its quoted values and the given slot values blanked out."""
    masked = goal
    for start, end in reversed(quoted_spans(goal)):
        masked = masked[:start] + " " * (end - start) + masked[end:]
    for value in sorted(values, key=len, reverse=True):
        if len(value) > 3:
            masked = masked.replace(value, " " * len(value))
    return masked


def person_name(goal: str) -> str | None:
    """A capitalised multi-word name after "for"/"contact"/"to" that is not an app name; a
    family name may start with a lowercase particle ("George dos Santos", "Ana da Silva")."""
    particle = "(?:" + "|".join(wording.NAME_PARTICLES) + r")\s+"
    for match in re.finditer(
        rf"\b(?:for|contact|named|to|called)\s+([A-Z][a-z]+(?:\s+(?:{particle})?[A-Z][a-z]+){{1,2}})\b",
        goal,
    ):
        candidate = match.group(1)
        if app_hint(candidate) is None:
            return candidate
    return None


def find_numbers(goal: str) -> list[str]:
    return [m.group(0).strip() for m in _NUMBER.finditer(goal)]


def app_names(launcher_labels: Sequence[str] = ()) -> list[str]:
    return [*launcher_labels, *(a for h in APP_HINTS for a in (h.label, *h.aliases))]


def read_request(goal: str) -> tuple[str, bool]:
    """The goal as the plain order it means (courtesy dropped, wanted states and unusual verbs
    restated), and whether it was put as a polite request."""
    stripped, polite = questions.strip_politeness((goal or "").strip())
    return wording.restate_move(wording.restate(stripped)), polite


def parse_goal(goal: str, launcher_labels: Sequence[str] = ()) -> GoalInfo:
    """Memoized: the offline roles parse the same goal ~30 times an episode (a fifth of an
    offline run's time); each caller gets its own copy, so none can change another's."""
    return copy.deepcopy(_parsed_goal(goal, tuple(launcher_labels)))


@functools.lru_cache(maxsize=256)
def _parsed_goal(goal: str, launcher_labels: tuple[str, ...]) -> GoalInfo:
    raw, polite = read_request(goal)
    text = " ".join(raw.split())
    clauses = split_clauses(text)
    toggles = [t for t in (parse_toggle(c) for c in clauses) if t is not None]
    levels = [lv for lv in (parse_level(c) for c in clauses) if lv is not None]
    lowered = words(text)
    forbidden = list(dict.fromkeys(forbidden_words(text) + wording.negated_verbs(text)))
    verbs = [
        v
        for v in ACTION_VERBS
        if (v in lowered or any(stem(w) == v for w in lowered)) and v not in forbidden
    ]
    opened = [c for c in clauses if parse_open(c)]
    if opened:
        # "Start contacts": the verb opens an app, it is no request to tap Start.
        rest = words(" ".join(c for c in clauses if c not in opened))
        verbs = [v for v in verbs if v not in ("start", "run") or v in rest]
    objects = [
        w
        for w in words(_mask_values(text, []))
        if w in RELATED_TERMS or any(w == k or stem(w) == k for h in APP_HINTS for k in h.keywords)
    ]
    object_word = next(
        (stem(o) for o in objects if o not in ("calendar", "sms", "filesystem", "folder")), ""
    )
    names = app_names(launcher_labels)
    fields = goal_fields(raw, object_word, verbs, names)
    is_question = (
        any(questions.opens_question(c) for c in _question_parts(text))
        or (text.rstrip().endswith("?") and not polite)
        or bool(re.search(r"\b(?:tell|give|show)\s+me\s+(?:the|what|which|how|my)\b", text, re.I))
    )
    new_text = None if replacement_text(raw) else wording.replacement(raw)
    if new_text:
        fields = [(k, v) for k, v in fields if k != "text" and v not in new_text] + [
            ("text", new_text)
        ]
        verbs = [v for v in verbs if v not in ("delete", "remove")]
    append = append_text(raw) or wording.appended_text(raw)
    if append:
        fields = [(k, v) for k, v in fields if not (k == "text" and (append in v or v in append))]
    edit = edit_target(text)
    if edit is None and (append or new_text):
        value = append or new_text or ""
        edit = next((f for f in wording.file_names(raw) if f not in value), None)
    if edit and (append or new_text):
        # Editing a document: the only value is its new text (the name is the edit target).
        fields = [(k, v) for k, v in fields if k == "text"]
    return GoalInfo(
        goal=text,
        clauses=clauses,
        apps=find_apps(text, launcher_labels),
        toggles=toggles,
        levels=levels,
        fields=fields,
        quoted=quoted_values(raw),
        numbers=find_numbers(text),
        verbs=verbs,
        is_question=is_question,
        objects=list(dict.fromkeys(objects)),
        forbidden=forbidden,
        duration=parse_duration(text),
        # Values a sub-goal will carry come from the goal as written (line breaks kept), so the
        # plan repeats them verbatim and episodic memory can turn them into slots.
        targets=_delete_targets(raw, fields, names) if {"delete", "remove"} & set(verbs) else [],
        folder=folder_hint(text),
        append=append,
        prepend=prepend_text(raw),
        edit=edit,
        day=day_of_month(text),
        move=move_request(raw) if "move" in verbs else None,
        # A time inside a value ("...class at 6 PM.") is the value's, not when the thing is.
        when=parse_when(_mask_values(raw, [v for _, v in fields])),
        records=record_fields(raw, object_word),
    )


def record_fields(text: str, object_word: str = "") -> list[list[tuple[str, str]]]:
    """Each of several records a goal lists: csv rows under one header, or blocks that each
    start with "<Object>: <name>" lines. [] when it lists fewer than two."""
    rows = [line.strip() for line in text.splitlines() if line.count("|") >= 1]
    if len(rows) >= 3:
        header = [c.strip() for c in rows[0].split("|")]
        out = []
        for line in rows[1:]:
            cells = [c.strip() for c in line.split("|")]
            record = [
                (field_key(k, object_word), _clean_value(v, whole=True))
                for k, v in zip(header, cells)
            ]
            out.append([(k, v) for k, v in record if k and v])
        return out
    if not object_word:
        return []
    starts = [
        m.start()
        for m in re.finditer(r"(?m)^[ \t]*([A-Za-z]+)[ \t]*:", text)
        if stem(m.group(1).lower()) == object_word
    ]
    if len(starts) < 2:
        return []
    blocks = [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)])]
    return [parse_fields(block, object_word) for block in blocks]


_SENDING = frozenset({"send", "reply"})


def _question_parts(text: str) -> list[str]:
    """The goal's sentences, each without a leading place ("In Simple Calendar Pro, what's ...")."""
    parts = re.split(r"(?<=[.?!;])\s+", text)
    return [re.sub(r"^\s*(?:in|on|using|with)\s+[^,]{1,40},\s*", "", p, flags=re.I) for p in parts]


def goal_fields(
    raw: str, object_word: str, verbs: Sequence[str], names: Sequence[str]
) -> list[tuple[str, str]]:
    """The goal's (slot, value) pairs: by cue words first, then the suite-style key: value forms,
    then values that can only be one slot (a phone number, a person's name, a lone quote)."""
    # A "|" table is read by `parse_fields`; cue words inside it are its headers, not cues.
    cue_text = "\n".join(line for line in raw.splitlines() if "|" not in line)
    fields = dict(wording.slot_fields(cue_text, names, object_word))
    for key, value in parse_fields(raw, object_word):
        overlaps = any(value in v or v in value for v in fields.values())
        if key not in fields and not overlaps:
            fields[key] = value
    sending = bool(_SENDING & set(verbs)) or object_word in ("message", "sms")
    if sending and "text" in fields and "message" not in fields:
        fields["message"] = fields.pop("text")
    if not sending and "message" in fields and "text" not in fields:
        fields["text"] = fields.pop("message")
    if "phone" not in fields and (sending or object_word == "contact"):
        found = wording.phone_numbers(raw)
        if found:
            fields["phone"] = found[0]
    if "phone" in fields and re.search(r"[\s()]", fields["phone"]):
        fields["phone"] = re.sub(r"[^\d+]", "", fields["phone"])
    creating = {"add", "create", "save", "new", "make"} & set(verbs)
    if object_word == "contact" and creating and not {"name", "first name"} & set(fields):
        lead = re.sub(r"(^|[.!?;]\s+)(\w+)", lambda m: m.group(1) + m.group(2).lower(), raw)
        skip = [*names, *(w for w in re.findall(r"\w+", " ".join(fields.values())))]
        person = next(iter(wording.person_names(lead, skip)), None)
        if person:
            fields["name"] = person
    unused = [q for q in quoted_values(raw) if not any(q in v or v in q for v in fields.values())]
    if unused:
        slot = "message" if sending else ("text" if "name" in fields else "name")
        if slot not in fields:
            fields[slot] = unused[0]
    for noun in ("folder", "directory", "note", "file", "expense", "event", "contact"):
        if noun in fields and "name" not in fields:
            fields["name"] = fields.pop(noun)
    if "first name" in fields or "last name" in fields:
        fields.pop("name", None)

    # In the goal's order, as the request lists the form; a recipient comes before the text and
    # a phone's label right after the phone, as forms ask for them.
    def place(item: tuple[str, str]) -> tuple[float, int]:
        key, value = item
        at = raw.find(value) % (len(raw) + 1)
        if key == "label" and "phone" in fields:
            return raw.find(fields["phone"]) % (len(raw) + 1) + 0.5, 0
        if key == "phone" and sending:
            return -1, 0
        return at, 0

    return sorted(fields.items(), key=place)


def _delete_targets(raw: str, fields: list[tuple[str, str]], names: Sequence[str]) -> list[str]:
    """The suite-style reading unless the free reading names more items (a list it missed)."""
    known = delete_targets(raw, fields)
    free = wording.delete_items(raw, names)
    return free if len(free) > len(known) or not known else known


def field_terms(field: str) -> list[tuple[str, float]]:
    """Labels a form field for this slot is likely to carry, best first."""
    key = normalize(field)
    synonyms = FIELD_SYNONYMS.get(key, ())
    terms = [(key, 1.0)] + [(s, 0.85) for s in synonyms if s != key]
    return terms


def value_in_goal(value: str | None, goal: str) -> bool:
    """Whether typed text comes from the goal (case and spacing ignored; digits compared alone)."""
    if not value:
        return False
    v, g = normalize(value), normalize(goal)
    if v and v in g:
        return True
    digits = re.sub(r"\D", "", value)
    if len(digits) >= 5 and digits in re.sub(r"\D", "", goal):
        return True
    return difflib.SequenceMatcher(None, v, g).find_longest_match().size >= max(
        4, int(0.9 * len(v))
    )


# --------------------------------------------------------------------------------------------
# Dates, times and durations: what a form's pickers and a calendar's screens show

_WEEKDAYS = wording.WEEKDAYS
_MONTH_NAMES = "|".join(_MONTHS)
_MONTH_WORD = rf"(?:{_MONTH_NAMES}|{'|'.join(m[:3] for m in _MONTHS)})\.?"
_DATE_PHRASE = re.compile(
    rf"\b\d{{4}}-\d{{1,2}}-\d{{1,2}}\b|\b{_MONTH_WORD}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b",
    re.I,
)
_RELATIVE_DAY = re.compile(
    rf"\b(today|tomorrow|yesterday|(?:(?:this|next|the)\s+)?(?:{'|'.join(_WEEKDAYS)})"
    r"(?:\s+after\s+next)?)\b",
    re.I,
)
_CLOCK = re.compile(r"^\s*(\d{1,2})(?:[:.](\d{2}))?\s*(h|hrs?|o'?clock|[ap]\.?\s?m\.?)?\s*$", re.I)
_WHEN_TIME = re.compile(
    r"\bat\s+(\d{1,2}(?::\d{2})?\s*(?:h|[ap]\.?m\.?|o'clock)(?![\w])|\d{1,2}:\d{2})", re.I
)
_WHEN_DURATION = re.compile(
    r"\b(?:last(?:s|ing)?|duration\s+(?:of|is|:)|should\s+take|takes|for)\s+(?:for\s+)?"
    r"(?:about\s+)?"
    r"(\d+(?:\.\d+)?\s*(?:minutes?|mins?|hours?|hrs?|h)\b)",
    re.I,
)
# "45 minutes long", "30 minutes each time": a duration written after its number.
_DURATION_AFTER = re.compile(
    r"\b(\d+(?:\.\d+)?\s*(?:minutes?|mins?|hours?|hrs?))\s+"
    r"(?:long|each(?:\s+time|\s+occurrence)?|in\s+length)\b",
    re.I,
)
_MINUTES = re.compile(r"(\d+(?:\.\d+)?)\s*(minutes?|mins?|m|hours?|hrs?|h)\b", re.I)


@dataclasses.dataclass(frozen=True)
class When:
    """When a thing the goal creates should happen, each part as the goal writes it."""

    date: str | None = None
    time: str | None = None
    duration: str | None = None


# A day relative to today, as a goal to create something gives it: "for tomorrow", "for this
# Thursday", "in two weeks from today", "in 3 days".
_NUMBER_WORDS = ("a", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_COUNT = rf"(?:\d{{1,2}}|{'|'.join(_NUMBER_WORDS)})"
_RELATIVE_WHEN = re.compile(
    rf"\b(?:(?:for|on)\s+)?(today|tomorrow|(?:this|next)\s+(?:{'|'.join(_WEEKDAYS)}))\b"
    rf"|\b(?:for|on)\s+({'|'.join(_WEEKDAYS)})\b"
    rf"|\b((?:in\s+)?{_COUNT}\s+(?:days?|weeks?)\s+from\s+(?:today|now)"
    rf"|in\s+{_COUNT}\s+(?:days?|weeks?))\b",
    re.I,
)
_IN_DAYS = re.compile(rf"^(?:in\s+)?({_COUNT})\s+(days?|weeks?)(?:\s+from\s+(?:today|now))?$", re.I)


def is_relative_day(text: str | None) -> bool:
    """Whether a date phrase needs today's date to mean a day ("tomorrow", "this Friday")."""
    return bool(text) and parse_date(text) is None and parse_date(text, _ANY_DAY) is not None


_ANY_DAY = datetime.date(2000, 1, 3)  # only to test whether a phrase is relative


def parse_when(goal: str) -> When | None:
    """The date, start time and duration a goal gives ("on 2023-10-27 at 13h ... for 15 mins"),
    the date possibly relative to today ("for tomorrow", "in two weeks from today")."""
    date = _DATE_PHRASE.search(goal)
    if date is None:
        relative = _RELATIVE_WHEN.search(goal)
        if relative is not None:
            return _when(goal, next(g for g in relative.groups() if g))
    return _when(goal, date.group(0) if date else None)


def _when(goal: str, date: str | None) -> When | None:
    time = _WHEN_TIME.search(goal)
    duration = _WHEN_DURATION.search(goal) or _DURATION_AFTER.search(goal)
    if not (date or time or duration):
        return None
    return When(
        date,
        time.group(1).strip().rstrip(".") if time else None,
        duration.group(1).strip() if duration else None,
    )


def parse_clock(text: str | None) -> tuple[int, int] | None:
    """(hour, minute) of "13h", "13:05", "1:30 pm", "4pm", "12am"; None for anything else."""
    match = _CLOCK.match(text or "")
    if not match:
        return None
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    suffix = (match.group(3) or "").casefold().replace(".", "").replace(" ", "")
    if not match.group(2) and not suffix:
        return None  # a bare number is not a time
    if suffix in ("am", "pm"):
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if suffix == "pm" else 0)
    if hour > 23 or minute > 59:
        return None
    return hour, minute


def duration_minutes(text: str | None) -> int | None:
    """Minutes in "15 mins", "1 hour", "1.5 hours", "90 m"."""
    match = _MINUTES.search(text or "")
    if not match:
        return None
    amount = float(match.group(1))
    return round(amount * 60) if match.group(2).casefold().startswith("h") else round(amount)


def parse_date(
    text: str | None, today: datetime.date | None = None, default_year: int | None = None
) -> datetime.date | None:
    """The day a text names: "2023-10-27", "October 27 2023", "Sun, Oct 15, 2023", "Wednesday,
    October 18" (year from `default_year`, else `today`), or relative to `today` ("tomorrow",
    "Wednesday" = the coming one, "the Wednesday after next")."""
    raw = (text or "").strip()
    lowered = raw.casefold()
    match = re.search(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b", raw)
    if match:
        return _safe_date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    match = re.search(
        rf"\b({_MONTH_WORD})\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b", raw, re.I
    )
    if match:
        month = _month_number(match.group(1))
        year = match.group(3) or default_year or (today.year if today else None)
        if month and year:
            return _safe_date(int(year), month, int(match.group(2)))
        return None
    if today is None:
        return None
    offsets = {"today": 0, "tomorrow": 1, "yesterday": -1}
    if lowered in offsets:
        return today + datetime.timedelta(days=offsets[lowered])
    match = _IN_DAYS.match(lowered)
    if match:
        count = match.group(1)
        n = int(count) if count.isdigit() else max(1, _NUMBER_WORDS.index(count))
        return today + datetime.timedelta(days=n * (7 if match.group(2).startswith("w") else 1))
    match = re.fullmatch(
        rf"(?:(this|next|the)\s+)?({'|'.join(_WEEKDAYS)})(\s+after\s+next)?", lowered
    )
    if match:
        ahead = (_WEEKDAYS.index(match.group(2)) - today.weekday()) % 7 or 7
        if match.group(3):
            ahead += 7
        return today + datetime.timedelta(days=ahead)
    return None


def _safe_date(year: int, month: int, day: int) -> datetime.date | None:
    try:
        return datetime.date(year, month, day)
    except ValueError:
        return None


def _month_number(word: str) -> int | None:
    key = word.casefold().rstrip(".")[:3]
    names = [m[:3] for m in _MONTHS]
    return names.index(key) + 1 if key in names else None


def parse_month_title(text: str | None) -> tuple[int, int] | None:
    """(year, month) of a month header such as "October 2023"."""
    match = re.fullmatch(rf"\s*({_MONTH_WORD})\s+(\d{{4}})\s*", text or "", re.I)
    if not match:
        return None
    month = _month_number(match.group(1))
    return (int(match.group(2)), month) if month else None


def day_phrase(goal: str) -> str | None:
    """The day a question asks about, as written: a date, or "today", "Wednesday", ..."""
    match = _DATE_PHRASE.search(goal) or _RELATIVE_DAY.search(goal)
    return match.group(0) if match else None


# --------------------------------------------------------------------------------------------
# Questions: what kind of reading of the screen answers them

_TOTAL = re.compile(
    r"\b(?:total|sum)\b(?:\s+(?:amount|cost|value|spent))?\s+(?:of|on|for|in)\s+"
    r"(?:all\s+)?(?:my\s+|the\s+)?(?P<qualifier>.+?)\s+"
    r"(?P<object>expenses|expense|purchases|payments|transactions|costs|spending|bills|items)\b",
    re.I,
)
_NEXT = re.compile(r"\b(?:next|upcoming|soonest)\b", re.I)
_WEEK = re.compile(r"\b(next|this|last|coming|following|current)\s+week\b", re.I)


def week_span(which: str, today: datetime.date) -> tuple[datetime.date, datetime.date]:
    """Monday and Sunday of "this" week, the "last" one or the "next" one (weeks start on
    Monday)."""
    monday = today - datetime.timedelta(days=today.weekday())
    if which == "last":
        monday -= datetime.timedelta(days=7)
    elif which not in ("this", "current"):
        monday += datetime.timedelta(days=7)
    return monday, monday + datetime.timedelta(days=6)


@dataclasses.dataclass(frozen=True)
class Question:
    """How to read a question: `total` sums the amounts of the list items naming `qualifier`;
    `day` lists the items of the day `day` names; `next` finds the earliest item from now;
    `week` reads the dated items of the week `qualifier` names ("next", Monday to Sunday).

    A day question may narrow the day by time (`when`): "at" an instant (items whose span covers
    it), "after" a time (the first items starting then or later), "between" two times (items
    starting inside the window); `times` holds the (hour, minute) bounds."""

    kind: str  # total, day, next, week, other
    qualifier: str = ""
    day: str | None = None
    when: str = ""  # "", "at", "after", "between"
    times: tuple[tuple[int, int], ...] = ()

    def keeps(self, start: tuple[int, int], end: tuple[int, int]) -> bool:
        """Whether an item from `start` to `end` (an end past midnight counts as 24:00) fits
        the question's time narrowing; "after" keeps every later item, the caller takes the
        earliest."""
        end = end if end >= start else (24, 0)
        if self.when == "at":
            return start <= self.times[0] <= end
        if self.when == "after":
            return start >= self.times[0]
        if self.when == "between":
            return self.times[0] <= start <= self.times[1]
        return True

    @property
    def needs_today(self) -> bool:
        """Whether the answer depends on today's date, which the screen must first show."""
        if self.kind in ("next", "week"):
            return True
        return self.kind == "day" and not _DATE_PHRASE.search(self.day or "")


# Other ways to ask for a sum: "how much did I spend on X", "add up all X expenses", "what do
# my X expenses come to", "total spent on the X category".
_SPENT_END = (
    r"(?:\s+(?:category|expenses?|items?|purchases?))?(?=\s+(?:in|on|at|using|from)\b|[?.,;(]|$)"
)
_TOTAL_FORMS = (
    re.compile(
        r"\bhow\s+much\s+(?:did|do|have|had)\s+i\s+(?:spen[dt]|paid|pay)\s+(?:in\s+total\s+)?"
        rf"(?:on|for)\s+(?:the\s+|my\s+|all\s+)?(?P<qualifier>.+?){_SPENT_END}",
        re.I,
    ),
    re.compile(
        r"\b(?:add|sum|total)\s+up\s+(?:all\s+)?(?:the\s+|my\s+|of\s+)?(?P<qualifier>.+?)\s+"
        r"(?:expenses|purchases|payments|transactions|costs|items)\b",
        re.I,
    ),
    re.compile(
        r"\b(?:my|the|all)\s+(?P<qualifier>.+?)\s+(?:expenses|purchases|payments|costs)\s+"
        r"(?:add\s+up|come\s+to|sum\s+to|total)\b",
        re.I,
    ),
    re.compile(
        r"\btotal\s+(?:spent|spending|cost|paid)\s+(?:on|for)\s+(?:the\s+|my\s+)?"
        rf"(?P<qualifier>.+?){_SPENT_END}",
        re.I,
    ),
)


_ATTRIBUTE = re.compile(
    r"\b(?:what(?:'s|\s+is|\s+was)|tell\s+me|give\s+me|find)\s+the\s+(?P<attr>[a-z]+(?:\s+[a-z]+)?)\s+of\s+(?:my\s+|the\s+)?"
    r"(?P<item>.+?)\s+(?P<object>event|appointment|meeting|note|contact|expense|task|recipe|file)\b"
    r"(?!\s+(?:event|appointment|meeting)\b)",  # "my Doctor's appointment event": the title is whole
    re.I,
)


_WHERE = re.compile(
    r"\bwhere\s+(?:is|'s|does)\s+(?:my|the)\s+(?P<item>.+?)\s+"
    r"(?P<object>event|appointment|meeting)\b(?!\s+(?:event|appointment|meeting)\b)",
    re.I,
)


def attribute_question(goal: str) -> tuple[str, str] | None:
    """(attribute, item) of "What is the location of my Team lunch event?" (or "Where is my
    Team lunch event?"): a field of one item, read where the item is opened."""
    text = " ".join((goal or "").split())
    where = _WHERE.search(text)
    if where:
        item = where.group("item").strip(" '\"")
        return ("location", item) if item else None
    match = _ATTRIBUTE.search(text)
    if not match:
        return None
    item = match.group("item").strip(" '\"")
    return (match.group("attr").casefold(), item) if item else None


_WHEN_WITH = re.compile(
    r"(?i:\bwhen(?:\s+is|'s|\s+)\s*(?:my|the)\s+(?:next\s+|upcoming\s+)?(?:[\w-]+\s+)?"
    r"(?:meeting|event|appointment|call|session)\s+with)\s+(?P<who>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)",
)


def when_with_question(goal: str) -> str | None:
    """Who "When is my next meeting with Mia?" is about: the item to search for; the answer is
    its date and start time."""
    match = _WHEN_WITH.search(" ".join((goal or "").split()))
    return match.group("who") if match else None


def parse_question(goal: str) -> Question:
    text = " ".join((goal or "").split())
    if when_with_question(text):
        return Question("other")  # found by searching for the person, not by date
    total = _TOTAL.search(text) or next((m for p in _TOTAL_FORMS if (m := p.search(text))), None)
    if total:
        return Question("total", qualifier=total.group("qualifier").strip())
    week = _WEEK.search(text)
    if week:  # "in the next week" (weeks start on Monday): read a list of that week's days
        return Question("week", qualifier=week.group(1).casefold(), day=week.group(0).lower())
    day = day_phrase(text)
    if _NEXT.search(text) and not day:
        return Question("next")
    if day:
        return Question("day", day=day, **_time_narrowing(text))
    return Question("other")


_CLOCK_WORD = r"\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?|h)?"
_BETWEEN_TIMES = re.compile(rf"\bbetween\s+({_CLOCK_WORD})\s+and\s+({_CLOCK_WORD})", re.I)
_AFTER_TIME = re.compile(rf"\b(?:after|from|since)\s+({_CLOCK_WORD})(?![\w:])", re.I)
_AT_TIME = re.compile(rf"\bat\s+({_CLOCK_WORD})(?![\w:])", re.I)


def _time_narrowing(text: str) -> dict[str, Any]:
    """The time part of a day question: "between 4pm and 8pm", "after 16:15", "at 9:45am"."""
    between = _BETWEEN_TIMES.search(text)
    if between:
        lo, hi = parse_clock(between.group(1)), parse_clock(between.group(2))
        if lo is not None and hi is not None:
            return {"when": "between", "times": (lo, hi)}
    for word, pattern in (("after", _AFTER_TIME), ("at", _AT_TIME)):
        match = pattern.search(text)
        clock = parse_clock(match.group(1)) if match else None
        if clock is not None:
            return {"when": word, "times": (clock,)}
    return {}


_SINGLE_NUMBER = re.compile(r"\bas (?:just )?a single (?:integer|number)\b", re.I)
_EITHER = re.compile(r"\beither '([^']+)'.*?\bor '([^']+)'", re.I | re.S)
_AMOUNT_UNIT = re.compile(r"\bin the format <amount> <unit>", re.I)
_ONLY = re.compile(r"\banswer with the ([a-z ]+?) only\b", re.I)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_AMOUNT = re.compile(r"\d+(?:[./]\d+)?(?:\s+\d+/\d+)?\s+[a-z]+", re.I)


def answer_fits(goal: str, answer: str) -> bool:
    """Whether an answer has the form the question prescribes ("as a single integer", "either
    'True' or 'False'", "in the format <amount> <unit>"): a screen line or a list of titles of
    another form is not the answer, so no question is claimed answered with it."""
    answer = (answer or "").strip()
    if not answer:
        return False
    if _SINGLE_NUMBER.search(goal) and not _NUMBER.fullmatch(answer):
        return False
    either = _EITHER.search(goal)
    if either and answer.casefold() not in {either.group(1).casefold(), either.group(2).casefold()}:
        return False
    return not (_AMOUNT_UNIT.search(goal) and not _AMOUNT.fullmatch(answer))


def is_qualifier_label(text: str) -> bool:
    """A row's label that qualifies items ("High priority", "Completed"), not an item's title."""
    found = words(text)
    return bool(found) and all(w in _COUNTED_BY_READERS for w in found)


def asks_for_titles(goal: str) -> bool:
    """A question whose answer is items' titles (or says nothing of what it wants): what the
    readers of listed items answer with. "Answer with the activity type only" asks for
    something else."""
    only = _ONLY.search(goal)
    return only is None or only.group(1).strip().casefold() in ("title", "titles", "name", "names")


_HOW_MANY = re.compile(
    r"\bhow many ((?:[\w-]+ )*?)[\w-]+ (?:do|did|does|are|were|have|has)\b", re.I
)
_COUNTED_BY_READERS = frozenset(
    {"high", "low", "medium", "priority", "completed", "incomplete", "open", "done", "unfinished"}
)


def count_qualifier(goal: str) -> str:
    """Words that narrow what a "how many" question counts beyond what the list readers check
    (a date, a priority label, a check box): "hiking" in "How many hiking activities did I do
    this week"; "" when there are none."""
    match = _HOW_MANY.search(goal)
    if match is None:
        return ""
    return " ".join(w for w in match.group(1).split() if w.casefold() not in _COUNTED_BY_READERS)
