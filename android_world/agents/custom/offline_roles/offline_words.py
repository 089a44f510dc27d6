"""Generic phone words for the offline roles: stop words, words related to a setting, usual form-
field labels, app names and hints, and the similarity of a goal's words to a screen label
(normalising, stemming, fuzzy matching). Re-exported by offline_text."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import re
from collections.abc import Iterable, Sequence

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


@functools.lru_cache(maxsize=65536)  # pure; the executor compares the same words every step
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


@functools.lru_cache(maxsize=16384)  # pure
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
