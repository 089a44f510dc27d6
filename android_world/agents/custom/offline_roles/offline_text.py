"""Text handling for the offline (no-model) roles: normalising, fuzzy matching, goal slots.

Without a model, every decision is a similarity between words of the goal and words on the screen,
so this module is where that similarity is defined. It holds only generic phone vocabulary (what
an app is usually called, which words usually lead to a setting, what a form field is usually
labelled); nothing here knows any benchmark task. All functions are pure.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import functools
import re
from collections.abc import Sequence

from android_world.agents.custom.offline_roles import offline_wording as wording
from android_world.agents.custom.offline_roles.offline_dates import (
    _DATE_PHRASE as _DATE_PHRASE,
)
from android_world.agents.custom.offline_roles.offline_dates import (
    _MONTHS as _MONTHS,
)
from android_world.agents.custom.offline_roles.offline_dates import (
    When as When,
)
from android_world.agents.custom.offline_roles.offline_dates import (
    day_phrase as day_phrase,
)
from android_world.agents.custom.offline_roles.offline_dates import (
    duration_minutes as duration_minutes,
)
from android_world.agents.custom.offline_roles.offline_dates import (
    is_relative_day as is_relative_day,
)
from android_world.agents.custom.offline_roles.offline_dates import (
    parse_clock as parse_clock,
)
from android_world.agents.custom.offline_roles.offline_dates import (
    parse_date as parse_date,
)
from android_world.agents.custom.offline_roles.offline_dates import (
    parse_month_title as parse_month_title,
)
from android_world.agents.custom.offline_roles.offline_dates import (
    parse_when as parse_when,
)
from android_world.agents.custom.offline_roles.offline_questions import (
    Question as Question,
)
from android_world.agents.custom.offline_roles.offline_questions import (
    answer_fits as answer_fits,
)
from android_world.agents.custom.offline_roles.offline_questions import (
    asks_for_count as asks_for_count,
)
from android_world.agents.custom.offline_roles.offline_questions import (
    asks_for_number as asks_for_number,
)
from android_world.agents.custom.offline_roles.offline_questions import (
    asks_for_titles as asks_for_titles,
)
from android_world.agents.custom.offline_roles.offline_questions import (
    attribute_question as attribute_question,
)
from android_world.agents.custom.offline_roles.offline_questions import (
    count_qualifier as count_qualifier,
)
from android_world.agents.custom.offline_roles.offline_questions import (
    is_qualifier_label as is_qualifier_label,
)
from android_world.agents.custom.offline_roles.offline_questions import (
    parse_question as parse_question,
)
from android_world.agents.custom.offline_roles.offline_questions import (
    week_span as week_span,
)
from android_world.agents.custom.offline_roles.offline_questions import (
    when_with_question as when_with_question,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    _VALUE_END as _VALUE_END,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    _mask_values as _mask_values,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    activity_matches_app as activity_matches_app,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    app_hint as app_hint,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    app_names as app_names,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    append_text as append_text,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    canonical_app as canonical_app,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    day_of_month as day_of_month,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    delete_all_day as delete_all_day,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    delete_targets as delete_targets,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    edit_target as edit_target,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    find_apps as find_apps,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    find_numbers as find_numbers,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    folder_hint as folder_hint,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    forbidden_words as forbidden_words,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    move_request as move_request,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    parse_duration as parse_duration,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    person_name as person_name,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    prepend_text as prepend_text,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    read_request as read_request,
)
from android_world.agents.custom.offline_roles.offline_requests import (
    repetition as repetition,
)
from android_world.agents.custom.offline_roles.offline_words import (
    APP_HINTS as APP_HINTS,
)
from android_world.agents.custom.offline_roles.offline_words import (
    FIELD_SYNONYMS as FIELD_SYNONYMS,
)
from android_world.agents.custom.offline_roles.offline_words import (
    RELATED_TERMS as RELATED_TERMS,
)
from android_world.agents.custom.offline_roles.offline_words import (
    STOPWORDS as STOPWORDS,
)
from android_world.agents.custom.offline_roles.offline_words import (
    AppHint as AppHint,
)
from android_world.agents.custom.offline_roles.offline_words import (
    content_words as content_words,
)
from android_world.agents.custom.offline_roles.offline_words import (
    expand_terms as expand_terms,
)
from android_world.agents.custom.offline_roles.offline_words import (
    label_relevance as label_relevance,
)
from android_world.agents.custom.offline_roles.offline_words import (
    normalize as normalize,
)
from android_world.agents.custom.offline_roles.offline_words import (
    phrase_in as phrase_in,
)
from android_world.agents.custom.offline_roles.offline_words import (
    quoted_at as quoted_at,
)
from android_world.agents.custom.offline_roles.offline_words import (
    quoted_spans as quoted_spans,
)
from android_world.agents.custom.offline_roles.offline_words import (
    quoted_values as quoted_values,
)
from android_world.agents.custom.offline_roles.offline_words import (
    stem as stem,
)
from android_world.agents.custom.offline_roles.offline_words import (
    words as words,
)
from android_world.agents.custom.roles import celil_goal_questions as questions

# The longest goal of the sim's tasks is ~1,150 characters. The goal check's readers scan a clause
# from each of its keywords onwards, quadratic on a goal that repeats one ("delete " x 20,000 took
# 30 s a check); longer goals are not read model-free (the goal check: unknown; the gate's second
# opinion: none).
READ_GOAL_MAX_CHARS = 4_000

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


# Quote marks a goal puts around a value: straight and typographic, double and single.
QUOTE_CHARS = "\"'“”‘’"

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
    r"run|take|pause|stop|reply|record|delete|remove|guide|navigate|steer|solve)\b))",
    re.I,
)
_OPEN_PATTERN = re.compile(
    r"^\s*(?:open|launch|start|go to)\s+(?:the\s+)?(.+?)(?:\s+app)?\s*$", re.I
)
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


def parse_goal(goal: str, launcher_labels: Sequence[str] = ()) -> GoalInfo:
    """Memoized: the offline roles parse the same goal ~30 times an episode (a fifth of an
    offline run's time); each caller gets its own copy, so none can change another's."""
    return copy.deepcopy(_parsed_goal(goal, tuple(launcher_labels)))


def _goal_verbs(text: str, clauses: list[str], forbidden: list[str]) -> list[str]:
    """The action verbs the goal asks for (not those it forbids)."""
    lowered = words(text)
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
    return verbs


def _goal_objects(text: str) -> list[str]:
    """Words of the goal (outside its values) that name a thing an app keeps."""
    return [
        w
        for w in words(_mask_values(text, []))
        if w in RELATED_TERMS or any(w == k or stem(w) == k for h in APP_HINTS for k in h.keywords)
    ]


def _asks_question(text: str, polite: bool) -> bool:
    return (
        any(questions.opens_question(c) for c in _question_parts(text))
        or (text.rstrip().endswith("?") and not polite)
        or bool(re.search(r"\b(?:tell|give|show)\s+me\s+(?:the|what|which|how|my)\b", text, re.I))
    )


def _text_edit(
    raw: str, text: str, fields: list[tuple[str, str]], verbs: list[str]
) -> tuple[list[tuple[str, str]], list[str], str | None, str | None]:
    """A goal that rewrites or adds to a document's text: (fields, verbs, appended text, the
    document to edit), the fields cut down to the new text."""
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
    return fields, verbs, append, edit


@functools.lru_cache(maxsize=256)
def _parsed_goal(goal: str, launcher_labels: tuple[str, ...]) -> GoalInfo:
    raw, polite = read_request(goal)
    text = " ".join(raw.split())
    clauses = split_clauses(text)
    toggles = [t for t in (parse_toggle(c) for c in clauses) if t is not None]
    levels = [lv for lv in (parse_level(c) for c in clauses) if lv is not None]
    forbidden = list(dict.fromkeys(forbidden_words(text) + wording.negated_verbs(text)))
    verbs = _goal_verbs(text, clauses, forbidden)
    objects = _goal_objects(text)
    object_word = next(
        (stem(o) for o in objects if o not in ("calendar", "sms", "filesystem", "folder")), ""
    )
    names = app_names(launcher_labels)
    fields = goal_fields(raw, object_word, verbs, names)
    is_question = _asks_question(text, polite)
    fields, verbs, append, edit = _text_edit(raw, text, fields, verbs)
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
