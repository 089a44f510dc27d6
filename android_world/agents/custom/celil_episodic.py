"""Episodic memory: verified plans, stored as reusable goal templates in one JSON file.

Celil remembers how it solved a goal only when the harness verified the episode (score 1.0), and it
remembers the *shape* of the goal rather than its parameters: "Create a new contact for Alice Smith.
Their number is +1 555 0100." is stored as "Create a new contact for {name_1}. Their number is
{number_1}." with a plan using the same slots, so the plan can be reused for Bob next time.

Safety properties the rest of the system relies on:

- Several runs (processes) may share one memory file. Every change happens under an inter-process
  lock as read (fresh from disk) + change + atomic write, so no process loses another's entries.
- A write is a temp file in the same directory + fsync + `os.replace`: a writer killed at any point
  leaves either the old or the new file, never a torn one.
- A file that cannot be parsed is moved aside (`<name>.corrupt-<timestamp>`) with a warning, never
  overwritten; a file from a newer schema is refused rather than downgraded.
- Retired entries are never retrieved; the agent-facing methods never raise for storage problems
  (a broken memory must not break an episode), they log and append to `warnings` instead.
- A memory must help later goals and never poison them. A plan that, once abstracted, still
  spells out one of its goal's values is not stored (`plan_leaks`); a remembered plan is not
  retrieved for a goal of another app or other wording, nor when its fixed text repeats a value
  of its example goal that this goal does not share (`misfit_reason`).

This file is part of the plugin: it imports only the standard library and pydantic (plus filelock
when installed, else the OS file lock; see celil_optional).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import difflib
import hashlib
import json
import logging
import os
import re
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import pydantic

from android_world.agents.custom import celil_optional, offline_wording

logger = logging.getLogger(__name__)

SCHEMA_VERSION = 1
DEFAULT_SIMILARITY_THRESHOLD = 0.8
DEFAULT_MIN_SUCCESS_RATE = 0.3
MIN_TRIALS_FOR_RATE_FLOOR = 3

SlotType = Literal["text", "name", "number", "date", "time", "file", "folder", "toggle"]
Status = Literal["active", "pinned", "retired"]


class EpisodicMemoryError(Exception):
    """A memory file problem the caller has to resolve (e.g. a newer schema, an unmovable file)."""


class CorruptMemoryError(EpisodicMemoryError):
    """The memory file cannot be parsed or validated (raised only when loading strictly)."""


# ---------------------------------------------------------------------------------------------
# Goal abstraction (pure functions)
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SlotValue:
    type: str
    value: str


@dataclasses.dataclass(frozen=True)
class GoalTemplate:
    """`template` uses `{type_n}` placeholders; literal braces are doubled, as in `str.format`."""

    template: str
    slots: dict[str, SlotValue]


# App names: left literal, because the app decides the plan.
KNOWN_APP_NAMES: tuple[str, ...] = (
    "Simple Calendar Pro",
    "Simple Calendar",
    "Simple SMS Messenger",
    "Simple Gallery Pro",
    "Simple Draw Pro",
    "Pro Expense",
    "Arduia Pro Expense",
    "Audio Recorder",
    "Retro Music",
    "OpenTracks",
    "Open Tracks",
    "Broccoli",
    "Markor",
    "Contacts",
    "Clock",
    "Camera",
    "Settings",
    "Files",
    "Chrome",
    "VLC",
    "OsmAnd",
    "Joplin",
    "Tasks",
    "Clipper",
    "Dialer",
    "Phone",
    "Messages",
    "Gallery",
    "Recipe",
    "Expense",
    "Google",
    "Android",
)

# Canonical app keys, so "Simple Calendar", "simple calendar pro" and "Simple Calendar Pro" overlap.
_APP_ALIASES: dict[str, str] = {
    "simple calendar": "simple calendar pro",
    "calendar": "simple calendar pro",
    "arduia pro expense": "pro expense",
    "expense": "pro expense",
    "simple sms": "simple sms messenger",
    "sms messenger": "simple sms messenger",
    "sms": "simple sms messenger",
    "messages": "simple sms messenger",
    "open tracks": "opentracks",
    "open tracks sports tracker": "opentracks",
    "recipe": "broccoli",
    "broccoli app": "broccoli",
    "phone": "dialer",
    "gallery": "simple gallery pro",
}

# App names that are everyday words: they name an app where the goal capitalises them or says so
# ("the settings app", "open contacts"), not in "the clock is ticking".
_COMMON_WORD_APPS = frozenset(
    {
        "contacts",
        "clock",
        "camera",
        "settings",
        "files",
        "tasks",
        "dialer",
        "chrome",
        "clipper",
        "broccoli",
    }
)
# ...and those that name an app only in such a context, even capitalised ("Android filesystem",
# "the phone number", "Expense: Taxi Fare").
_CONTEXT_ONLY_APPS = frozenset({"phone", "messages", "gallery", "recipe", "expense"})
# Platform words, never the app a goal is about ("in the Android filesystem").
_NEVER_NAMED_APPS = frozenset({"android", "google"})
_APP_WORDS = frozenset(w for a in KNOWN_APP_NAMES for w in a.lower().split()) | {"sms"}
_APP_PATTERN = re.compile(
    r"(?<![\w\-])(?:"
    + "|".join(re.escape(a) for a in sorted(KNOWN_APP_NAMES, key=len, reverse=True))
    + r")(?![\w\-])",
    re.I,
)
_APP_CONTEXT_BEFORE = re.compile(
    r"\b(?:open|opens|opening|launch|start|using|use|via|in|inside)\s+(?:the\s+)?$", re.I
)
_APP_CONTEXT_AFTER = re.compile(r"\s+app\b", re.I)

# Capitalised words that are not people even mid-sentence (all-caps ones included: "Do NOT").
_NON_NAME_TEXT = (
    "I OK Wi-Fi WiFi Wifi Bluetooth Internet Airplane Mode Dark Do Not Disturb "
    "January February March April May June July August September October November December "
    "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday "
    "Today Tomorrow Yesterday Expense Expenses "
    "A AM PM NOT NO AND OR THE TO DO SMS MMS URL USB GPS PIN ID PDF TV UI API FAQ ETA ASAP UTC GMT"
)
_NON_NAME_WORDS = frozenset(_NON_NAME_TEXT.split())
# Words a paraphrase may add or drop without changing what the goal asks for.
_FILLER_WORDS = frozenset(
    {
        "a",
        "an",
        "the",
        "new",
        "please",
        "kindly",
        "my",
        "your",
        "this",
        "that",
        "just",
        "now",
        "also",
        "then",
        "app",
        "application",
    }
)
# Small words inside names and list items ("Cup of Coffee", "Bread and Butter").
_CONNECTORS = frozenset(
    {"of", "and", "the", "for", "&", "to", "in", "on", "a", "at", "with", "de", "la", "van", "von"}
)

_MONTHS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
    r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)"
)
_WEEKDAYS = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"
_FILE_EXTENSIONS = (
    r"(?:md|txt|jpg|jpeg|png|gif|bmp|webp|mp3|mp4|m4a|wav|ogg|opus|3gp|mkv|avi|m3u|pdf|html|htm|"
    r"csv|json|xml|zip|apk|exe|ics|vcf|doc|docx|xls|xlsx|ppt|pptx|gpx|kml)"
)
_MASK = "\x00"
_APP_MASK = "\x01"

# Each rule: (slot type, compiled pattern, group holding the value). Earlier rules win overlaps.
_QUOTE_RULES: tuple[tuple[str, re.Pattern[str], int], ...] = (
    ("text", re.compile(r"(?<!\w)'((?:[^'\n]|(?<=\w)'(?=\w))*?[^\s'])'(?!\w)"), 1),
    ("text", re.compile(r'"([^"\n]+)"'), 1),
    ("text", re.compile(r"‘([^’\n]+)’"), 1),
    ("text", re.compile(r"“([^”\n]+)”"), 1),
)
# Phrases after which the rest of the goal is free text ("Add to the top of the note <text>").
_CONTENT_RULE = re.compile(
    r"\b(?:(?:top|bottom|end|beginning|start) of the note|[Rr]eplace the (?:text|content|note) with)"
    r"[ \t]+(\S.*?)\s*\Z",
    re.S,
)
# "label: value" fields ("with message: ...", "First Name: Leila, Last Name: Kim"). A label is one
# word, or up to three capitalised ones; a field runs to the end of its line or the next label.
_LABEL_WORDS = r"(?:[A-Z][a-z]+(?: [A-Z][a-z]+){0,2}|[A-Za-z][A-Za-z_]*)"
_LABEL_RE = re.compile(rf"(?<![\w\x00\x01'’\-])({_LABEL_WORDS}):[ \t]+(?=\S)")
_INNER_LABEL = re.compile(r"(?:[A-Z][a-z]+(?: [A-Z][a-z]+){0,2}|[a-z]+_[a-z_]+):[ \t]")
_NEXT_LABEL = re.compile(rf",[ \t]*{_LABEL_WORDS}:[ \t]")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])[ \t]+(?=[A-Z])")
# Identifiers after "named"/"file" (folder_20230725_130216, sharp_teacup_c7E4): no name rule
# would take them, and a plan types them verbatim.
_NAMED_RULE = re.compile(
    r"\b(named|called|titled|file)[ \t]+((?=[\w.\-]*[_\d])[A-Za-z0-9][\w\-]*(?:\.[\w\-]+)*)"
    r"(?=[.,;:!?]*(?:\s|$))"
)
_DATE_RULES: tuple[re.Pattern[str], ...] = (
    re.compile(r"(?<![\w.])\d{4}-\d{1,2}-\d{1,2}(?![\w])"),
    re.compile(r"(?<![\w./])\d{1,2}/\d{1,2}/\d{2,4}(?![\w/])"),
    re.compile(rf"\b{_MONTHS}\.? \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?(?![\w])"),
    re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{_MONTHS}(?:,? \d{{4}})?\b"),
    re.compile(rf"\b{_WEEKDAYS}\b"),
)
_TIME_RULES: tuple[re.Pattern[str], ...] = (
    re.compile(r"(?<![\w:])\d{1,2}:\d{2}(?::\d{2})?(?:\s?(?:[AaPp]\.?[Mm]\.?)(?![\w]))?(?![\w:])"),
    re.compile(r"(?<![\w.:])\d{1,2}\s?(?:[ap]\.m\.|[AaPp][Mm](?![\w]))"),
    re.compile(r"(?<![\w.:])\d{1,2}h(?:\d{2})?(?![\w])"),
)
# A file name may end a sentence ("rename it to notes_v2.md."), but not run on ("a.md.bak").
_FILE_RULES: tuple[re.Pattern[str], ...] = (
    re.compile(rf"(?<![\w.\-])[\w\-]+(?:\.[\w\-]+)*\.{_FILE_EXTENSIONS}(?!\w|\.\w)", re.I),
    # snake_case names with any short extension (happy_harbor_copy.exe)
    re.compile(r"(?<![\w.\-])[\w\-]*_[\w\-]*\.[A-Za-z][A-Za-z0-9]{0,4}(?!\w|\.\w)"),
)
_PHONE_RULES: tuple[re.Pattern[str], ...] = (
    re.compile(r"(?<![\w+])\+\d[\d\- ().]{5,}\d(?![\w])"),
    re.compile(r"(?<![\w+(])\(?\d{3}\)?[ .\-]\d{3}[ .\-]\d{4}(?![\w])"),
)
_NUMBER_RULE = re.compile(r"(?<![\w.])[-+]?\d+(?:,\d{3})*(?:\.\d+)?(?![\w]|\.\d)")
_TOGGLE_RULES: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile(r"\b(?:turn|switch|toggle|set)\s+(on|off)\b", re.I), 1),
    (re.compile(r"\b(on|off)(?=\s*(?:[.,;!?)]|$))", re.I), 1),
    (re.compile(r"\b(max|min|maximum|minimum)\b", re.I), 1),
    (re.compile(r"\b(top|bottom)(?= of\b)", re.I), 1),
)
# A capitalised or all-caps word before "folder"/"within" is a folder (Music, DCIM, Alarms).
_FOLDER_RULE = re.compile(r"\b([A-Z][A-Za-z0-9_]*)(?= (?:folder|directory|within)\b)")
_NAME_TOKEN = r"(?:[A-Z][A-Za-z'\-]*[a-z][A-Za-z'\-]*|[A-Z][A-Z0-9]+(?![a-z]))"
# A family name may start with a lowercase particle ("George dos Santos", upstream's names).
_NAME_PARTICLES = frozenset(offline_wording.NAME_PARTICLES)
_PARTICLE = "(?:" + "|".join(sorted(_NAME_PARTICLES)) + ") "
_NAME_RULE = re.compile(rf"\b{_NAME_TOKEN}(?: (?:{_PARTICLE})?{_NAME_TOKEN}){{0,3}}\b")
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([a-z]+_\d+)\}")
_TOKEN = re.compile(r"[\w$+][\w'’+\-./:$]*")


def _claim(masked: list[str], start: int, end: int) -> None:
    for i in range(start, end):
        masked[i] = _MASK


def _is_free(masked: list[str], start: int, end: int) -> bool:
    return all(c not in (_MASK, _APP_MASK) for c in masked[start:end])


@dataclasses.dataclass(frozen=True)
class AppMention:
    start: int
    end: int
    app: str  # canonical key
    named: bool  # the text names this app (rather than using the word)


def app_mentions(text: str) -> list[AppMention]:
    """Known app names in `text`, found case-insensitively, each judged by its context."""
    out: list[AppMention] = []
    for m in _APP_PATTERN.finditer(text):
        key = " ".join(m.group(0).lower().split())
        in_context = bool(
            _APP_CONTEXT_BEFORE.search(text, 0, m.start())
            or _APP_CONTEXT_AFTER.match(text, m.end())
        )
        if key in _NEVER_NAMED_APPS:
            named = False
        elif key in _CONTEXT_ONLY_APPS:
            named = in_context
        elif key in _COMMON_WORD_APPS:
            named = in_context or m.group(0)[:1].isupper()
        else:
            named = True
        out.append(AppMention(m.start(), m.end(), canonical_app(key), named))
    return out


def _name_like(value: str) -> bool:
    """A short run of capitalised words or numbers: a title, a name, a list item, a field value."""
    words = value.split()
    if not 1 <= len(words) <= 7 or not (words[0][:1].isupper() or words[0][:1].isdigit()):
        return False
    return all(
        w[:1].isupper() or w[:1].isdigit() or w.lower() in _CONNECTORS or not w[:1].isalpha()
        for w in words
    )


def _classify_value(value: str) -> tuple[str, int, int]:
    """The slot type of a labelled value and the span to slot ("$57.47" slots only 57.47)."""
    for rule in _DATE_RULES:
        if rule.fullmatch(value):
            return "date", 0, len(value)
    for rule in _TIME_RULES:
        if rule.fullmatch(value):
            return "time", 0, len(value)
    if any(rule.fullmatch(value) for rule in _FILE_RULES):
        return "file", 0, len(value)
    for rule in _PHONE_RULES:
        if rule.fullmatch(value):
            return "number", 0, len(value)
    money = re.fullmatch(r"([$€£¥]\s?)?([-+]?\d+(?:,\d{3})*(?:\.\d+)?)(\s?%)?", value)
    if money:
        return "number", money.start(2), money.end(2)
    return "text", 0, len(value)


def _sentence_initial(text: str, start: int) -> bool:
    i = start - 1
    while i >= 0 and text[i] in " \t\"'“‘(":
        i -= 1
    return i < 0 or text[i] in ".!?:;\n"


def _value_items(goal: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans of the values in goal[start:end]: one, or one per item of a comma-separated list.

    A list of names ("Taxi Fare, Jeans, Property Taxes.") becomes one slot per item, so a plan
    that deletes them one by one names each through its own slot. The final period of a list or
    of a short name-like value belongs to the sentence, not the value.
    """
    body_end = end - 1 if goal[end - 1 : end] == "." else end
    body = goal[start:body_end]
    parts = [(m.start() + start, m.end() + start) for m in re.finditer(r"[^,]+", body)]
    parts = [(s + len(goal[s:e]) - len(goal[s:e].lstrip()), e) for s, e in parts]
    if len(parts) >= 2 and all(_name_like(goal[s:e]) for s, e in parts):
        return parts
    if body and _name_like(body):
        return [(start, body_end)]
    return [(start, end)]


def _cut_value(goal: str, start: int, end: int, field_list: bool) -> int:
    """Where a labelled value really ends, when the goal goes on after it on the same line."""
    value = goal[start:end]
    named = [m for m in app_mentions(value) if m.named]
    # "with message: Lorem ipsum. in Simple SMS Messenger": the trailing app is not the message.
    if named and re.fullmatch(r"[ \t]*\.?", value[named[-1].end :]):
        before = re.search(r"[ \t]+in[ \t]+(?:the[ \t]+)?$", value[: named[-1].start])
        if before:
            end = start + before.start()
            value = goal[start:end]
            named = named[:-1]
    # "...text: Call Grandma.. Share it ... using Simple SMS Messenger": a sentence that names an
    # app is the goal's next instruction, not more of the value.
    if named:
        breaks = [b.start() for b in _SENTENCE_BREAK.finditer(value, 0, named[0].start)]
        if breaks:
            end = start + breaks[-1]
    # "in order: A, B. Then export the playlist ...": a sentence that opens with "Then" is the
    # goal's next step, not more of the value.
    then = re.search(r"(?<=[.!?])[ \t]+Then\b", goal[start:end])
    if then:
        end = start + then.start()
    # "Phone Label: Work. Do NOT hit save.": a field of a list ends with its sentence.
    if field_list:
        brk = _SENTENCE_BREAK.search(goal, start, end)
        if brk:
            end = brk.start()
    if goal[start:end].endswith(".."):
        end -= 1  # "birthday.. Share": the value's period, then the goal's
    return end


def _quote_spans(goal: str) -> list[tuple[int, int]]:
    return [m.span() for _, pattern, _ in _QUOTE_RULES for m in pattern.finditer(goal)]


def _labelled_spans(goal: str, masked: list[str]) -> list[tuple[int, int, str]]:
    """Label values, taken before quotes so that a message may quote ("discuss '1984'.")."""
    spans: list[tuple[int, int, str]] = []
    quotes = _quote_spans(goal)
    for m in _LABEL_RE.finditer(goal):
        start = m.end()
        if not _is_free(masked, m.start(), start) or _INNER_LABEL.match(goal, start):
            continue
        if any(qs < m.start() < qe for qs, qe in quotes):
            continue  # "title 'Agenda: budget'" is a quote, not a field
        line_end = goal.find("\n", start)
        line_end = len(goal) if line_end < 0 else line_end
        nxt = _NEXT_LABEL.search(goal, start, line_end)
        end = nxt.start() if nxt else line_end
        taken = next((i for i in range(start, end) if masked[i] in (_MASK, _APP_MASK)), end)
        end = taken
        while end > start and goal[end - 1].isspace():
            end -= 1
        if end <= start:
            continue
        # 'content: "X", and rename it to Y': a quoted value ends at its closing quote.
        lead = next((qe for qs, qe in quotes if qs == start and qe < end), None)
        if lead is not None and re.match(r"[ \t]*(?:,|and\b|then\b)", goal[lead:end]):
            end = lead
        field_list = nxt is not None or bool(re.search(r",[ \t]*$", goal[: m.start()]))
        end = _cut_value(goal, start, end, field_list)
        if end <= start:
            continue
        quoted = next(((qs, qe) for qs, qe in quotes if (qs, qe) == (start, end)), None)
        items = [(start + 1, end - 1)] if quoted else _value_items(goal, start, end)
        for s, e in items:
            kind, sub_s, sub_e = _classify_value(goal[s:e])
            spans.append((s + sub_s, s + sub_e, kind))
        _claim(masked, start, end)
        for i in range(*m.span(1)):
            masked[i] = _APP_MASK  # the label is wording: no name rule may take "First Name"
    return spans


def _table_spans(goal: str) -> list[tuple[int, int, str]]:
    """Cells of `a|b|c` rows (upstream's csv expense goals); header and rule rows stay literal."""
    rows: list[list[tuple[int, int]]] = []
    for line in re.finditer(r"[^\n]+", goal):
        if line.group(0).count("|") < 1:
            continue
        cells = [
            (c.start() + line.start(), c.end() + line.start())
            for c in re.finditer(r"[^|]+", line.group(0))
        ]
        rows.append(cells)
    if len(rows) < 2:
        return []
    spans: list[tuple[int, int, str]] = []
    for cells in rows:
        texts = [goal[s:e].strip() for s, e in cells]
        if all(re.fullmatch(r"[a-z][a-z0-9_ ]*|:?-{2,}:?|", t) for t in texts):
            continue  # a header (column names) or a rule
        for s, e in cells:
            lead = len(goal[s:e]) - len(goal[s:e].lstrip())
            s, e = s + lead, s + lead + len(goal[s:e].strip())
            if s < e:
                kind, sub_s, sub_e = _classify_value(goal[s:e])
                spans.append((s + sub_s, s + sub_e, kind))
    return spans


def _find_spans(goal: str) -> list[tuple[int, int, str]]:
    """Slot spans (start, end, type) in goal order, by rule priority; no two spans overlap."""
    masked = list(goal)
    spans: list[tuple[int, int, str]] = []

    def add(s: int, e: int, kind: str) -> None:
        if s < e and _is_free(masked, s, e):
            spans.append((s, e, kind))
            _claim(masked, s, e)

    def take(kind: str, pattern: re.Pattern[str], group: int = 0) -> None:
        for m in pattern.finditer("".join(masked)):
            add(*m.span(group), kind)

    for s, e, kind in _table_spans(goal):
        add(s, e, kind)
    if not any(
        qs < m.start(1) < qe for m in _CONTENT_RULE.finditer(goal) for qs, qe in _quote_spans(goal)
    ):
        take("text", _CONTENT_RULE, 1)
    for s, e, kind in _labelled_spans(goal, masked):
        spans.append((s, e, kind))  # already claimed
    for kind, pattern, group in _QUOTE_RULES:
        take(kind, pattern, group)
    for m in _NAMED_RULE.finditer("".join(masked)):
        value = m.group(2)
        is_file = m.group(1) == "file" or re.search(r"\.[A-Za-z][A-Za-z0-9]{0,4}$", value)
        add(*m.span(2), "file" if is_file else "text")
    for pattern in _DATE_RULES:
        take("date", pattern)
    for pattern in _TIME_RULES:
        take("time", pattern)
    for pattern in _FILE_RULES:
        take("file", pattern)
    for pattern in _PHONE_RULES:
        take("number", pattern)
    take("number", _NUMBER_RULE)
    for pattern, group in _TOGGLE_RULES:
        take("toggle", pattern, group)

    # App names stay literal: hide them from the folder and name rules without making them slots.
    for mention in app_mentions(goal):
        written_capitalised = goal[mention.start : mention.start + 1].isupper()
        if (mention.named or written_capitalised) and _is_free(masked, mention.start, mention.end):
            for i in range(mention.start, mention.end):
                masked[i] = _APP_MASK
    take("folder", _FOLDER_RULE, 1)
    for m in _NAME_RULE.finditer("".join(masked)):
        s, e = m.span()
        words = [(w.start() + s, w.end() + s) for w in re.finditer(r"\S+", goal[s:e])]
        if words and _sentence_initial(goal, words[0][0]):
            words = words[1:]
        # Split the run at words that are never names, keeping the pieces in between.
        run: list[tuple[int, int]] = []
        for ws, we in [*words, (-1, -1)]:
            word = goal[ws:we]
            if ws >= 0 and (word not in _NON_NAME_WORDS or word in _NAME_PARTICLES):
                run.append((ws, we))
                continue
            if run:
                add(run[0][0], run[-1][1], "name")
            run = []
    spans.sort()
    return spans


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def abstract_goal(goal: str) -> GoalTemplate:
    """Turn a concrete goal into a template with typed, numbered slots (`instantiate` inverts it).

    Slots are numbered per type in order of appearance, so two goals of the same task get the same
    template and a plan's `{name_1}` means "the first name in this goal" for any goal of it.
    """
    pieces: list[str] = []
    slots: dict[str, SlotValue] = {}
    counters: dict[str, int] = {}
    pos = 0
    for start, end, kind in _find_spans(goal):
        counters[kind] = counters.get(kind, 0) + 1
        key = f"{kind}_{counters[kind]}"
        slots[key] = SlotValue(kind, goal[start:end])
        pieces.append(_escape(goal[pos:start]))
        pieces.append("{" + key + "}")
        pos = end
    pieces.append(_escape(goal[pos:]))
    return GoalTemplate("".join(pieces), slots)


def _slot_text(value: SlotValue | str) -> str:
    return value.value if isinstance(value, SlotValue) else str(value)


def instantiate(text: str, slots: Mapping[str, SlotValue | str]) -> str:
    """Fill `{type_n}` placeholders; unknown placeholders stay visible rather than guessed."""

    def repl(m: re.Match[str]) -> str:
        token = m.group(0)
        if token == "{{":
            return "{"
        if token == "}}":
            return "}"
        key = m.group(1)
        return _slot_text(slots[key]) if key in slots else token

    return _PLACEHOLDER.sub(repl, text)


def placeholders(text: str) -> set[str]:
    return {m.group(1) for m in _PLACEHOLDER.finditer(text) if m.group(1)}


def abstract_text(
    text: str, slots: Mapping[str, SlotValue], used: dict[tuple[str, str], int] | None = None
) -> str:
    """Replace a goal's slot values where they appear in other text (e.g. a plan's sub-goal).

    Values are matched whole-word, longest first (a sentence also without its final period).
    When several slots share a value ("5 hours, 5 minutes"), successive occurrences take
    successive slots. On/off-like values are replaced only
    where they read as a setting ("switch it off."), not as prepositions ("tap on Save").
    """
    masked = list(text)
    found: list[tuple[int, int, str]] = []
    by_value: dict[tuple[str, str], list[str]] = {}
    for key, slot in slots.items():
        by_value.setdefault((slot.type, slot.value), []).append(key)
    for (kind, value), keys in sorted(by_value.items(), key=lambda kv: -len(kv[0][1])):
        if not value.strip():
            continue
        if kind == "toggle":
            matches: Iterable[tuple[int, int]] = [
                m.span(g)
                for pattern, g in _TOGGLE_RULES
                for m in pattern.finditer(text)
                if m.group(g).lower() == value.lower()
            ]
        else:
            matches = [m.span() for m in _whole(value).finditer(text)]
            bare = value.rstrip(".!?")
            if not matches and bare != value and len(bare) > 3:
                # A plan may quote a sentence without its final period: still the same value.
                matches = [m.span() for m in _whole(bare).finditer(text)]
        n = used.get((kind, value), 0) if used is not None else 0
        for s, e in sorted(set(matches)):
            if all(c != _MASK for c in masked[s:e]):
                found.append((s, e, keys[min(n, len(keys) - 1)]))
                _claim(masked, s, e)
                n += 1
        if used is not None:
            used[(kind, value)] = n
    pieces: list[str] = []
    pos = 0
    for s, e, key in sorted(found):
        pieces.append(_escape(text[pos:s]))
        pieces.append("{" + key + "}")
        pos = e
    pieces.append(_escape(text[pos:]))
    return "".join(pieces)


def abstract_plan(plan: Sequence[str], slots: Mapping[str, SlotValue]) -> list[str]:
    """Each step abstracted; a value two slots share takes the next slot at each occurrence
    across the plan (one record's description, then the next record's)."""
    used: dict[tuple[str, str], int] = {}
    return [abstract_text(step, slots, used) for step in plan]


def _whole(value: str, flags: int = 0) -> re.Pattern[str]:
    left = r"(?<!\w)" if value[:1].isalnum() or value[:1] == "_" else ""
    right = r"(?!\w)" if value[-1:].isalnum() or value[-1:] == "_" else ""
    return re.compile(left + re.escape(value) + right, flags)


# ---------------------------------------------------------------------------------------------
# Plan safety: a stored plan must not carry one goal's values into another goal
# ---------------------------------------------------------------------------------------------


def literal_text(template: str) -> str:
    """A plan template's fixed text, which every instantiation repeats whatever the goal."""
    return _PLACEHOLDER.sub(lambda m: {"{{": "{", "}}": "}"}.get(m.group(0), _MASK), template)


def _tokens(text: str) -> list[tuple[int, str]]:
    out = []
    for m in _TOKEN.finditer(text):
        word = m.group(0).rstrip(".,:;'’/-")
        if word:
            out.append((m.start(), word))
    return out


def _is_marker(word: str) -> bool:
    """Capitalised, all-caps or numeric: the kind of word that is a goal's value, not its verb."""
    if any(c.isdigit() for c in word):
        return True
    return (
        len(word) > 1
        and word[0].isupper()
        and word not in _NON_NAME_WORDS
        and word.lower() not in _APP_WORDS
    )


def slot_markers(slot: SlotValue) -> list[str]:
    """What of a slot value must never appear in a plan's fixed text: the value itself and its
    capitalised or numeric words (except a sentence's first word: "Call Grandma" starts a verb)."""
    if slot.type == "toggle":
        return []
    value = slot.value.strip()
    out = [value] if value else []
    stripped = value.rstrip(".!?")
    if stripped and stripped != value:
        out.append(stripped)
    sentence = not _name_like(stripped)
    for i, (_, token) in enumerate(_tokens(value)):
        if i == 0 and sentence:
            continue
        # "Let's" is also "Let": a plan may cut a value at its apostrophe.
        for word in dict.fromkeys([token, *re.findall(r"\w+", token)]):
            if _is_marker(word) and word not in out:
                out.append(word)
    # Four words in a row of a sentence value: a plan that quotes part of a message.
    words = stripped.split()
    if sentence and len(words) > 4:
        out += [" ".join(words[i : i + 4]) for i in range(len(words) - 3)]
    return out


def template_markers(template: str) -> list[str]:
    """Capitalised and numeric words a goal template kept literal though they look like values.

    App names, labels ("First Name:"), sentence starts and words in `_NON_NAME_WORDS` are the
    goal's wording; anything else capitalised or numeric should have been a slot.
    """
    text = literal_text(template)
    labels = {w for m in _LABEL_RE.finditer(text) for w in m.group(1).split()}
    out: list[str] = []
    for start, word in _tokens(text):
        numeric = re.fullmatch(r"[$+\-]?\d[\d.,:]*", word) is not None
        capital = word[0].isupper() and not any(c.isdigit() for c in word)
        if not (numeric or capital) or not _is_marker(word) or word in labels:
            continue
        if capital and _sentence_initial(text, start):
            continue
        if word not in out:
            out.append(word)
    return out


def _found(marker: str, text: str) -> bool:
    return bool(marker) and _whole(marker).search(text) is not None


def plan_leaks(goal: GoalTemplate, plan: Sequence[str]) -> list[str]:
    """Goal values an abstracted plan still spells out literally (empty = safe to store).

    Such a plan would hand this goal's values to the next goal of the same shape: the slot
    values, their capitalised or numeric words, and capitalised or numeric goal words that the
    abstraction left literal.
    """
    literal = literal_text("\n".join(plan))
    markers = [m for slot in goal.slots.values() for m in slot_markers(slot)]
    markers += template_markers(goal.template)
    out: list[str] = []
    for marker in markers:
        if marker not in out and _found(marker, literal):
            out.append(marker)
    return out


def stale_values(
    stored_slots: Mapping[str, SlotValue], goal_slots: Mapping[str, SlotValue], plan: Sequence[str]
) -> list[str]:
    """Values of the stored example goal that a plan's fixed text repeats, though this goal's
    value for the same slot differs (e.g. a source folder the old abstraction did not slot)."""
    literal = literal_text("\n".join(plan))
    out: list[str] = []
    for key, old in stored_slots.items():
        new = goal_slots.get(key)
        keep = set(slot_markers(new)) if new is not None else set()
        for marker in slot_markers(old):
            if marker not in keep and marker not in out and _found(marker, literal):
                out.append(marker)
    return out


def template_differences(stored: str, wanted: str) -> list[tuple[str, str]]:
    """Where two templates differ in more than filler words and punctuation (empty = same task).

    A similar template with a different word ("top" vs "bottom", "settings" vs "contacts", "Pause"
    vs "Run") is another task, however high its similarity.
    """
    a, b = _template_tokens(stored), _template_tokens(wanted)
    out: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        changed = a[i1:i2] + b[j1:j2]
        if all(t in _FILLER_WORDS or not (t[0].isalnum() or t[0] == "<") for t in changed):
            continue
        out.append((_render(a[i1:i2]), _render(b[j1:j2])))
    return out


def _render(tokens: Sequence[str]) -> str:
    words = ["{" + t[1:-1] + "}" if t.startswith("<") else t for t in tokens]
    return re.sub(r" ([^\w{])", r"\1", " ".join(words))


def _template_tokens(template: str) -> list[str]:
    out: list[str] = []
    for m in re.finditer(r"\{([a-z]+)_\d+\}|\w+|[^\w\s{}]", template):
        out.append(f"<{m.group(1)}>" if m.group(1) else m.group(0).lower())
    return out


def template_similarity(a: str, b: str) -> float:
    """Token similarity of two templates (0..1); slot numbers are ignored, slot types are not."""
    ta, tb = _template_tokens(a), _template_tokens(b)
    if not ta and not tb:
        return 1.0
    return difflib.SequenceMatcher(None, ta, tb, autojunk=False).ratio()


def canonical_app(name: str) -> str:
    key = " ".join(name.lower().split())
    return _APP_ALIASES.get(key, key)


def apps_in_goal(goal: str) -> list[str]:
    """Apps a goal names, found case-insensitively ("the settings app", "Simple Calendar Pro")."""
    return sorted({m.app for m in app_mentions(goal) if m.named})


# ---------------------------------------------------------------------------------------------
# Stored entries
# ---------------------------------------------------------------------------------------------


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class MemoryEntry(pydantic.BaseModel):
    """One remembered task shape. `plan` uses the same `{type_n}` slots as `goal_template`."""

    model_config = pydantic.ConfigDict(extra="ignore", validate_assignment=True)

    id: str
    goal_template: str
    example_goal: str = ""
    slots: dict[str, SlotValue] = pydantic.Field(default_factory=dict)
    plan: list[str]
    app_names: list[str] = pydantic.Field(default_factory=list)
    created_at: dt.datetime
    updated_at: dt.datetime
    last_used_at: dt.datetime | None = None
    successes: int = pydantic.Field(default=0, ge=0)
    failures: int = pydantic.Field(default=0, ge=0)
    uses: int = pydantic.Field(default=0, ge=0)
    status: Status = "active"
    notes: str = ""
    provenance: dict[str, Any] = pydantic.Field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION

    @property
    def trials(self) -> int:
        return self.successes + self.failures

    @property
    def success_rate(self) -> float:
        return self.successes / self.trials if self.trials else 0.0

    @property
    def key(self) -> tuple[str, tuple[str, ...]]:
        return self.goal_template, tuple(sorted(self.app_names))


class MemoryFile(pydantic.BaseModel):
    schema_version: int = SCHEMA_VERSION
    entries: list[MemoryEntry] = pydantic.Field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class RetrievedPlan:
    entry_id: str
    goal_template: str
    plan: list[str]
    similarity: float
    success_rate: float
    pinned: bool = False
    example_goal: str = ""


@dataclasses.dataclass(frozen=True)
class Match:
    """A ranked candidate (read-only view used by retrieval and the review CLI's search)."""

    entry: MemoryEntry
    similarity: float
    plan: list[str]
    usable: bool
    reason: str = ""


def misfit_reason(entry: MemoryEntry, goal: GoalTemplate, goal_apps: Iterable[str] = ()) -> str:
    """Why a remembered plan must not be used for this goal, however similar ("" = it fits).

    These are the retrieval half of "help later goals, never poison them": another app, another
    task wording, a value the plan needs but the goal lacks, a setting the plan silently assumes,
    or a value of the example goal that the plan spells out literally.
    """
    wanted, have = set(goal_apps), set(entry.app_names)
    if wanted and have and not wanted & have:
        return f"for another app ({', '.join(sorted(have))}, not {', '.join(sorted(wanted))})"
    differences = template_differences(entry.goal_template, goal.template)
    if differences:
        old, new = differences[0]
        return f"another task (remembered {old or '-'!r}, this goal {new or '-'!r})"
    used = set().union(*map(placeholders, entry.plan)) if entry.plan else set()
    missing = sorted(used - set(goal.slots))
    if missing:
        return "goal lacks slots " + ", ".join(missing)
    for key, old_slot in entry.slots.items():
        new_slot = goal.slots.get(key)
        if (
            old_slot.type == "toggle"
            and key not in used
            and new_slot is not None
            and new_slot.value.lower() != old_slot.value.lower()
        ):
            return f"the plan does not say {key}, and it was made for {old_slot.value!r}"
    stale = stale_values(entry.slots, goal.slots, entry.plan)
    if stale:
        return "the plan repeats the example goal's " + ", ".join(repr(v) for v in stale[:3])
    return ""


def new_entry_id() -> str:
    return uuid.uuid4().hex[:12]


# ---------------------------------------------------------------------------------------------
# Migration of older files
# ---------------------------------------------------------------------------------------------

_V0_TYPE_HINTS: tuple[tuple[str, str], ...] = (
    ("file", "file"),
    ("folder", "folder"),
    ("date", "date"),
    ("day", "date"),
    ("time", "time"),
    ("on_or_off", "toggle"),
    ("max_or_min", "toggle"),
    ("number", "number"),
    ("phone", "number"),
    ("amount", "number"),
    ("hours", "number"),
    ("minutes", "number"),
    ("seconds", "number"),
    ("count", "number"),
    ("name", "name"),
    ("contact", "name"),
    ("person", "name"),
)


def _v0_slot_type(placeholder: str) -> str:
    low = placeholder.lower()
    for hint, kind in _V0_TYPE_HINTS:
        if hint in low:
            return kind
    return "text"


def _v0_plan(raw: Any) -> list[str]:
    if isinstance(raw, str):
        return [line.strip() for line in raw.splitlines() if line.strip()]
    if isinstance(raw, list):
        return [str(s).strip() for s in raw if str(s).strip()]
    if isinstance(raw, dict):
        for k in ("plan", "sub_goals", "steps"):
            if k in raw:
                return _v0_plan(raw[k])
    raise ValueError(f"plan is neither a list nor text: {str(raw)[:60]!r}")


def _v0_entry(
    goal: str, plan: list[str], extra: Mapping[str, Any], now: dt.datetime
) -> MemoryEntry:
    """An old entry: its goal is either a concrete goal or an upstream-style `{name}` template."""
    named = re.findall(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})", goal)
    if named:
        mapping: dict[str, str] = {}
        counters: dict[str, int] = {}
        for name in named:
            if name not in mapping:
                kind = _v0_slot_type(name)
                counters[kind] = counters.get(kind, 0) + 1
                mapping[name] = f"{kind}_{counters[kind]}"

        def convert(text: str) -> str:
            parts = re.split(r"(\{[A-Za-z_][A-Za-z0-9_]*\})", text)
            return "".join(
                "{" + mapping[p[1:-1]] + "}"
                if p.startswith("{") and p[1:-1] in mapping
                else _escape(p)
                for p in parts
            )

        template, tplan, slots = convert(goal), [convert(s) for s in plan], {}
    else:
        abstracted = abstract_goal(goal)
        template, slots = abstracted.template, abstracted.slots
        tplan = abstract_plan(plan, slots)
    apps = sorted({canonical_app(a) for a in extra.get("app_names") or extra.get("apps") or ()})
    apps = apps or apps_in_goal(goal)
    # Stable ids, so an id seen in a listing of an old file still names the entry after migration.
    stable_id = hashlib.sha1(f"{template}\n{apps}".encode()).hexdigest()[:12]
    return MemoryEntry(
        id=stable_id,
        goal_template=template,
        example_goal=goal,
        slots=slots,
        plan=tplan,
        app_names=apps,
        created_at=now,
        updated_at=now,
        successes=int(extra.get("successes", extra.get("success_count", 1)) or 0),
        failures=int(extra.get("failures", extra.get("failure_count", 0)) or 0),
        notes="migrated from schema 0",
        provenance={"migrated_from": 0},
    )


def migrate(data: Any, now: dt.datetime | None = None) -> tuple[MemoryFile, list[str]]:
    """Parse any known file layout into the current schema. Returns (file, notes about it).

    v0 (the original plan) was a bare JSON object `{goal_or_template: plan}` or a list of
    `{"goal"/"goal_template": ..., "plan": ...}` records; v1 is `{"schema_version": 1, "entries"}`.
    Raises ValueError for anything unrecognised and EpisodicMemoryError for a newer schema.
    """
    now = now or _utcnow()
    notes: list[str] = []
    if isinstance(data, dict) and "schema_version" in data:
        version = data["schema_version"]
        if not isinstance(version, int):
            raise ValueError(f"schema_version is not an integer: {version!r}")
        if version > SCHEMA_VERSION:
            raise EpisodicMemoryError(
                f"written by a newer Celil (schema {version} > {SCHEMA_VERSION}); upgrade Celil "
                "or point episodic_memory_path at another file"
            )
        if version == SCHEMA_VERSION:
            return MemoryFile.model_validate(data), notes
        if version != 0:
            raise ValueError(f"unknown schema_version {version}")
        data = data.get("entries", data.get("plans", {}))
    records: list[tuple[str, list[str], Mapping[str, Any]]] = []
    if isinstance(data, dict):
        for goal, plan in data.items():
            extra = plan if isinstance(plan, dict) else {}
            records.append((str(goal), _v0_plan(plan), extra))
    elif isinstance(data, list):
        for i, item in enumerate(data):
            if not isinstance(item, dict):
                raise ValueError(f"entry {i} is not an object")
            goal = next(
                (item[k] for k in ("goal_template", "template", "goal", "task") if k in item), None
            )
            if not isinstance(goal, str) or not goal.strip():
                raise ValueError(f"entry {i} has no goal or goal_template")
            records.append((goal, _v0_plan(item), item))
    else:
        raise ValueError("top level is neither an object nor a list")
    entries = [_v0_entry(goal, plan, extra, now) for goal, plan, extra in records if plan]
    notes.append(f"migrated {len(entries)} entries from schema 0 to {SCHEMA_VERSION}")
    return MemoryFile(entries=entries), notes


# ---------------------------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------------------------


def atomic_write_text(path: Path, text: str) -> None:
    """Temp file in the same directory + fsync + rename: readers see the old or the new file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


class EpisodicMemory:
    """Verified plans keyed by goal template, in one JSON file shared safely between processes.

    Callers must only pass plans from episodes the harness scored 1.0 to `add_successful_plan`;
    the memory cannot check that itself. Use `record_outcome` for how a retrieved plan fared.
    """

    def __init__(
        self,
        db_path: str | os.PathLike[str],
        *,
        similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD,
        provenance: Mapping[str, Any] | None = None,
        min_success_rate: float = DEFAULT_MIN_SUCCESS_RATE,
        lock_timeout: float = 30.0,
        clock: Callable[[], dt.datetime] = _utcnow,
        read_only: bool = False,
    ) -> None:
        if not 0.0 <= similarity_threshold <= 1.0:
            raise ValueError(f"similarity_threshold must be in 0..1, got {similarity_threshold}")
        self.path = Path(db_path)
        self.similarity_threshold = similarity_threshold
        self.min_success_rate = min_success_rate
        self.provenance = dict(provenance or {})
        # A frozen memory answers lookups but learns nothing, so an evaluation run cannot change
        # what the next run retrieves.
        self.read_only = read_only
        self.warnings: list[str] = []
        self._clock = clock
        self._lock_timeout = lock_timeout
        self._lock: Any = None
        self._migrated = False
        # Entries whose outcome this instance already counted since the last add, so an episode
        # that calls both record_outcome(id, True) and add_successful_plan counts one success.
        self._counted_success: set[str] = set()

    # -- storage -------------------------------------------------------------------------------

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        logger.warning("episodic memory: %s", message)

    def _file_lock(self) -> Any:
        """`filelock.FileLock` when installed, else the OS lock (one warning per process)."""
        if self._lock is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._lock = celil_optional.file_lock(f"{self.path}.lock", self._lock_timeout)
        return self._lock

    def _move_aside(self, reason: str, kept: int) -> Path:
        stamp = self._clock().strftime("%Y%m%dT%H%M%S%fZ")
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        try:
            os.replace(self.path, aside)
        except OSError as exc:
            raise EpisodicMemoryError(
                f"{self.path} is unusable ({reason}) and could not be moved aside: {exc}"
            ) from exc
        self._warn(
            f"{self.path} was unusable ({reason}); kept it as {aside} and carried on with the "
            f"{kept} entries that were still valid"
        )
        return aside

    def _read(self) -> tuple[MemoryFile, list[str], str | None]:
        """Parse the file: (contents, notes, problem). `problem` is set when it is unusable."""
        if not self.path.exists():
            return MemoryFile(), [], None
        try:
            raw = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            return MemoryFile(), [], f"unreadable: {exc}"
        if not raw.strip():
            return MemoryFile(), [], "empty file"
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            return MemoryFile(), [], f"not valid JSON: {exc}"
        try:
            contents, notes = migrate(data, self._clock())
        except EpisodicMemoryError:
            raise
        except (ValueError, TypeError, pydantic.ValidationError) as exc:
            salvaged = _salvage(data)
            detail = str(exc).splitlines()[0]
            return salvaged, [], f"invalid contents ({detail})"
        return contents, notes, None

    def _load(self, *, strict: bool = False) -> list[MemoryEntry]:
        """Entries on disk. Call with the lock held when the result will be written back.

        Not strict: an unusable file is moved aside (entries that still validate are kept) and
        reported in `warnings`. Strict (the review CLI): raise CorruptMemoryError, touch nothing.
        """
        contents, notes, problem = self._read()
        self._migrated = bool(notes)
        for note in notes:
            logger.info("episodic memory %s: %s", self.path, note)
        if problem is not None:
            if strict:
                raise CorruptMemoryError(f"{self.path} is {problem}")
            if self.read_only:
                self._warn(f"{self.path} is {problem}; read-only, so using the valid entries")
            else:
                self._move_aside(problem, len(contents.entries))
        return contents.entries

    def _save(self, entries: Sequence[MemoryEntry]) -> None:
        """Write atomically. Call with the lock held. A read-only memory keeps its file as it is
        (use counts included), so its content hash stays the one the manifest recorded."""
        if self.read_only:
            return
        self._remove_orphan_temps()
        body = MemoryFile(entries=list(entries)).model_dump(mode="json")
        atomic_write_text(self.path, json.dumps(body, indent=1, ensure_ascii=False) + "\n")

    def _remove_orphan_temps(self) -> None:
        # Writers hold the lock while a temp file exists, so any temp seen under the lock is an
        # orphan of a writer that died mid-write.
        with contextlib.suppress(OSError):
            for p in self.path.parent.glob(f".{self.path.name}.*.tmp"):
                with contextlib.suppress(OSError):
                    p.unlink()

    @contextlib.contextmanager
    def transaction(self, *, strict: bool = False) -> Iterator[list[MemoryEntry]]:
        """Lock, read fresh from disk, let the caller change the list, write it back atomically.

        Nothing is written if the block raises or leaves the entries unchanged.
        """
        with self._file_lock():
            entries = self._load(strict=strict)
            before = [e.model_dump(mode="json") for e in entries]
            yield entries
            changed = [e.model_dump(mode="json") for e in entries] != before
            # A file just moved aside is rewritten with the entries salvaged from it.
            if changed or self._migrated or (entries and not self.path.exists()):
                self._save(entries)

    def entries(self, *, strict: bool = False) -> list[MemoryEntry]:
        """A snapshot of the entries (reads under the lock; writes only to move a bad file aside)."""
        if strict:
            contents, _notes, problem = self._read()
            if problem is not None:
                raise CorruptMemoryError(f"{self.path} is {problem}")
            return contents.entries
        with self.transaction() as entries:
            return list(entries)

    # -- retrieval -----------------------------------------------------------------------------

    def rank(
        self,
        goal: str,
        app_names: Iterable[str] = (),
        entries: Sequence[MemoryEntry] | None = None,
        *,
        include_retired: bool = False,
    ) -> list[Match]:
        """All candidates, best first, each with its instantiated plan and whether it is usable."""
        abstracted = abstract_goal(goal)
        wanted_apps = {canonical_app(a) for a in app_names} | set(apps_in_goal(goal))
        pool = self.entries() if entries is None else entries
        out: list[Match] = []
        for entry in pool:
            if entry.status == "retired" and not include_retired:
                continue
            sim = template_similarity(abstracted.template, entry.goal_template)
            have_apps = set(entry.app_names)
            if wanted_apps and have_apps:
                overlap = len(wanted_apps & have_apps) / len(wanted_apps | have_apps)
                sim *= 0.5 + 0.5 * overlap
            plan = [instantiate(step, abstracted.slots) for step in entry.plan]
            reason = ""
            if entry.status == "retired":
                reason = "retired"
            elif sim < self.similarity_threshold:
                reason = f"similarity {sim:.2f} < {self.similarity_threshold:.2f}"
            else:
                reason = misfit_reason(entry, abstracted, wanted_apps)
            if (
                not reason
                and entry.status != "pinned"
                and entry.trials >= MIN_TRIALS_FOR_RATE_FLOOR
                and entry.success_rate < self.min_success_rate
            ):
                reason = f"success rate {entry.success_rate:.2f} < {self.min_success_rate:.2f}"
            out.append(Match(entry, round(sim, 4), plan, not reason, reason))
        out.sort(
            key=lambda m: (
                m.usable,
                m.entry.status == "pinned",
                m.similarity + 0.1 * (m.entry.successes + 1) / (m.entry.trials + 2),
                m.entry.updated_at,
            ),
            reverse=True,
        )
        return out

    def find_similar_task(self, goal: str, app_names: Iterable[str] = ()) -> RetrievedPlan | None:
        """The best usable remembered plan for this goal, filled with this goal's values.

        Pinned entries win, then similarity with a small bonus for a good track record. Marks the
        entry as used. Returns None (and records a warning) if the memory cannot be read.
        """
        apps = list(app_names)
        try:
            with self._file_lock():
                entries = self._load()
                best = next((m for m in self.rank(goal, apps, entries) if m.usable), None)
                if best is None:
                    return None
                best.entry.last_used_at = self._clock()
                best.entry.uses += 1
                self._save(entries)
        except (OSError, TimeoutError, EpisodicMemoryError) as exc:
            self._warn(f"retrieval skipped: {exc}")
            return None
        self._counted_success.discard(best.entry.id)
        return RetrievedPlan(
            entry_id=best.entry.id,
            goal_template=best.entry.goal_template,
            plan=best.plan,
            similarity=best.similarity,
            success_rate=best.entry.success_rate,
            pinned=best.entry.status == "pinned",
            example_goal=best.entry.example_goal,
        )

    # -- learning ------------------------------------------------------------------------------

    def record_outcome(self, entry_id: str, success: bool) -> None:
        """Count how a retrieved plan fared. An unknown id (deleted meanwhile) is only a warning."""
        if self.read_only:
            return
        try:
            with self.transaction() as entries:
                entry = next((e for e in entries if e.id == entry_id), None)
                if entry is None:
                    self._warn(f"record_outcome: no entry {entry_id!r} (deleted?)")
                    return
                if success:
                    entry.successes += 1
                    self._counted_success.add(entry_id)
                else:
                    entry.failures += 1
                entry.updated_at = self._clock()
        except (OSError, TimeoutError, EpisodicMemoryError) as exc:
            self._warn(f"record_outcome skipped: {exc}")

    def add_successful_plan(
        self,
        goal: str,
        plan: Sequence[str],
        app_names: Iterable[str] = (),
        provenance: Mapping[str, Any] | None = None,
    ) -> str:
        """Remember a plan that the harness VERIFIED (score 1.0). The caller must ensure that.

        The goal and plan are abstracted to templates. A success for a template already stored
        (same template and apps) updates that entry: one more success (unless `record_outcome`
        already counted it) and, unless the entry is pinned or retired, the newest plan. Retired
        entries stay retired. Returns the entry id, or "" if the memory could not be written or
        the plan was refused because it still names the goal's values (see `plan_leaks`), or
        the memory is read-only.
        """
        if self.read_only:
            return ""
        steps = [s.strip() for s in plan if s and s.strip()]
        if not steps:
            self._warn("add_successful_plan: empty plan not stored")
            return ""
        abstracted = abstract_goal(goal)
        tplan = abstract_plan(steps, abstracted.slots)
        leaks = plan_leaks(abstracted, tplan)
        if leaks:
            # Stored, this plan would hand these values to the next goal of the same shape.
            self._counted_success = set()
            self._warn(
                "plan not stored: after abstraction it still spells out the goal's "
                + ", ".join(repr(v) for v in leaks[:3])
                + f" (template {abstracted.template!r})"
            )
            return ""
        apps = sorted({canonical_app(a) for a in app_names} | set(apps_in_goal(goal)))
        source = {**self.provenance, **dict(provenance or {})}
        now = self._clock()
        try:
            with self.transaction() as entries:
                # The marker is for this episode only, whichever entry this success lands on.
                self._counted_success, counted = set(), self._counted_success
                key = (abstracted.template, tuple(apps))
                entry = next((e for e in entries if e.key == key), None)
                if entry is None:
                    entry = MemoryEntry(
                        id=new_entry_id(),
                        goal_template=abstracted.template,
                        example_goal=goal,
                        slots=abstracted.slots,
                        plan=tplan,
                        app_names=apps,
                        created_at=now,
                        updated_at=now,
                        successes=1,
                        provenance=source,
                    )
                    entries.append(entry)
                    return entry.id
                if entry.id not in counted:
                    entry.successes += 1
                if entry.status == "active":
                    entry.plan = tplan
                    entry.example_goal = goal
                    entry.slots = abstracted.slots
                entry.provenance = {**entry.provenance, "last_success": source}
                entry.updated_at = now
                return entry.id
        except (OSError, TimeoutError, EpisodicMemoryError) as exc:
            self._warn(f"plan not stored: {exc}")
            return ""

    # -- convenience for reviewers -------------------------------------------------------------

    def abstract_goal(self, goal: str) -> GoalTemplate:
        return abstract_goal(goal)

    def instantiate(self, text: str, slots: Mapping[str, SlotValue | str]) -> str:
        return instantiate(text, slots)


def _salvage(data: Any) -> MemoryFile:
    """The entries of a damaged v1 file that still validate (the whole file is kept aside)."""
    good: list[MemoryEntry] = []
    if isinstance(data, dict) and isinstance(data.get("entries"), list):
        for item in data["entries"]:
            with contextlib.suppress(pydantic.ValidationError, TypeError, ValueError):
                good.append(MemoryEntry.model_validate(item))
    return MemoryFile(entries=good)


__all__ = [
    "SCHEMA_VERSION",
    "CorruptMemoryError",
    "EpisodicMemory",
    "EpisodicMemoryError",
    "GoalTemplate",
    "Match",
    "MemoryEntry",
    "MemoryFile",
    "RetrievedPlan",
    "SlotValue",
    "abstract_goal",
    "abstract_plan",
    "abstract_text",
    "apps_in_goal",
    "atomic_write_text",
    "canonical_app",
    "instantiate",
    "migrate",
    "new_entry_id",
    "placeholders",
    "template_similarity",
]
