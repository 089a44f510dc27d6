"""Goal abstraction for episodic memory: a concrete goal becomes a template with typed slots.

Celil remembers the *shape* of a goal rather than its parameters: "Create a new contact for
Alice Smith. Their number is +1 555 0100." is stored as "Create a new contact for {name_1}.
Their number is {number_1}." with a plan using the same slots, so the plan can be reused for Bob
next time. This module holds that abstraction; the checks that keep a stored plan from carrying
one goal's values into another (`plan_leaks`, `stale_values`, `template_differences`) are in
`celil_episodic_plan_checks`, app names in `celil_episodic_apps`. All functions are pure; they
import the standard library and the offline roles' wording rules (name particles).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence

from android_world.agents.custom.memory.celil_episodic_apps import (
    KNOWN_APP_NAMES,
    AppMention,
    app_mentions,
    apps_in_goal,
    canonical_app,
)
from android_world.agents.custom.offline_roles import offline_wording

# The app names live in celil_episodic_apps; importers of this module still find them here.
__all__ = [
    "KNOWN_APP_NAMES",
    "LABEL_RE",
    "MASK",
    "NON_NAME_WORDS",
    "PLACEHOLDER",
    "AppMention",
    "GoalTemplate",
    "SlotValue",
    "abstract_goal",
    "abstract_plan",
    "abstract_text",
    "app_mentions",
    "apps_in_goal",
    "canonical_app",
    "instantiate",
    "name_like",
    "placeholders",
    "sentence_initial",
    "whole_word",
]


@dataclasses.dataclass(frozen=True)
class SlotValue:
    type: str
    value: str


@dataclasses.dataclass(frozen=True)
class GoalTemplate:
    """`template` uses `{type_n}` placeholders; literal braces are doubled, as in `str.format`."""

    template: str
    slots: dict[str, SlotValue]


# Capitalised words that are not people even mid-sentence (all-caps ones included: "Do NOT").
_NON_NAME_TEXT = (
    "I OK Wi-Fi WiFi Wifi Bluetooth Internet Airplane Mode Dark Do Not Disturb "
    "January February March April May June July August September October November December "
    "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday "
    "Today Tomorrow Yesterday Expense Expenses "
    "A AM PM NOT NO AND OR THE TO DO SMS MMS URL USB GPS PIN ID PDF TV UI API FAQ ETA ASAP UTC GMT"
)
NON_NAME_WORDS = frozenset(_NON_NAME_TEXT.split())
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
MASK = "\x00"
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
LABEL_RE = re.compile(rf"(?<![\w\x00\x01'’\-])({_LABEL_WORDS}):[ \t]+(?=\S)")
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
PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([a-z]+_\d+)\}")


def _claim(masked: list[str], start: int, end: int) -> None:
    for i in range(start, end):
        masked[i] = MASK


def _is_free(masked: list[str], start: int, end: int) -> bool:
    return all(c not in (MASK, _APP_MASK) for c in masked[start:end])


def name_like(value: str) -> bool:
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


def sentence_initial(text: str, start: int) -> bool:
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
    if len(parts) >= 2 and all(name_like(goal[s:e]) for s, e in parts):
        return parts
    if body and name_like(body):
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
    for m in LABEL_RE.finditer(goal):
        start = m.end()
        if not _is_free(masked, m.start(), start) or _INNER_LABEL.match(goal, start):
            continue
        if any(qs < m.start() < qe for qs, qe in quotes):
            continue  # "title 'Agenda: budget'" is a quote, not a field
        line_end = goal.find("\n", start)
        line_end = len(goal) if line_end < 0 else line_end
        nxt = _NEXT_LABEL.search(goal, start, line_end)
        end = nxt.start() if nxt else line_end
        taken = next((i for i in range(start, end) if masked[i] in (MASK, _APP_MASK)), end)
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


@dataclasses.dataclass
class _Claims:
    """The goal with the characters already claimed masked out, and the spans claimed so far.

    Rules run strongest first and each sees only what earlier ones left free, so no two slots
    overlap and a weaker rule never cuts into a stronger rule's value."""

    goal: str
    masked: list[str] = dataclasses.field(init=False)
    spans: list[tuple[int, int, str]] = dataclasses.field(default_factory=list)

    def __post_init__(self) -> None:
        self.masked = list(self.goal)

    def add(self, start: int, end: int, kind: str) -> None:
        if start < end and _is_free(self.masked, start, end):
            self.spans.append((start, end, kind))
            _claim(self.masked, start, end)

    def take(self, kind: str, pattern: re.Pattern[str], group: int = 0) -> None:
        for m in pattern.finditer("".join(self.masked)):
            self.add(*m.span(group), kind)


def _content_is_quoted(goal: str) -> bool:
    """A "top of the note ..." phrase inside a quote belongs to the quoted text: the rest of the
    goal is then not free text."""
    return any(
        qs < m.start(1) < qe for m in _CONTENT_RULE.finditer(goal) for qs, qe in _quote_spans(goal)
    )


def _named_kind(keyword: str, value: str) -> str:
    """A value after "file" or one with a file extension is a file; any other is text."""
    is_file = keyword == "file" or re.search(r"\.[A-Za-z][A-Za-z0-9]{0,4}$", value)
    return "file" if is_file else "text"


def _take_typed_values(claims: _Claims) -> None:
    """Values whose shape says their type, in rule priority: dates before times before files,
    phone numbers before plain numbers, then switch states."""
    for pattern in _DATE_RULES:
        claims.take("date", pattern)
    for pattern in _TIME_RULES:
        claims.take("time", pattern)
    for pattern in _FILE_RULES:
        claims.take("file", pattern)
    for pattern in _PHONE_RULES:
        claims.take("number", pattern)
    claims.take("number", _NUMBER_RULE)
    for pattern, group in _TOGGLE_RULES:
        claims.take("toggle", pattern, group)


def _hide_app_names(goal: str, masked: list[str]) -> None:
    """App names stay literal: hide them from the folder and name rules without making them
    slots (only where the goal names the app or writes it capitalised, not the common word)."""
    for mention in app_mentions(goal):
        written_capitalised = goal[mention.start : mention.start + 1].isupper()
        if (mention.named or written_capitalised) and _is_free(masked, mention.start, mention.end):
            for i in range(mention.start, mention.end):
                masked[i] = _APP_MASK


def _name_pieces(goal: str, start: int, end: int) -> list[tuple[int, int]]:
    """The names in a capitalised run goal[start:end]: a sentence's first word is capitalised for
    the sentence, not as a name, and a word that is never part of a name splits the run; the
    pieces in between are the names."""
    words = [(w.start() + start, w.end() + start) for w in re.finditer(r"\S+", goal[start:end])]
    if words and sentence_initial(goal, words[0][0]):
        words = words[1:]
    pieces: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []
    for ws, we in [*words, (-1, -1)]:
        word = goal[ws:we]
        if ws >= 0 and (word not in NON_NAME_WORDS or word in _NAME_PARTICLES):
            run.append((ws, we))
            continue
        if run:
            pieces.append((run[0][0], run[-1][1]))
        run = []
    return pieces


def _find_spans(goal: str) -> list[tuple[int, int, str]]:
    """Slot spans (start, end, type) in goal order, by rule priority; no two spans overlap."""
    claims = _Claims(goal)
    for s, e, kind in _table_spans(goal):
        claims.add(s, e, kind)
    if not _content_is_quoted(goal):
        claims.take("text", _CONTENT_RULE, 1)
    claims.spans.extend(_labelled_spans(goal, claims.masked))  # they claim their own characters
    for kind, pattern, group in _QUOTE_RULES:
        claims.take(kind, pattern, group)
    for m in _NAMED_RULE.finditer("".join(claims.masked)):
        claims.add(*m.span(2), _named_kind(m.group(1), m.group(2)))
    _take_typed_values(claims)
    _hide_app_names(goal, claims.masked)
    claims.take("folder", _FOLDER_RULE, 1)
    for m in _NAME_RULE.finditer("".join(claims.masked)):
        for s, e in _name_pieces(goal, *m.span()):
            claims.add(s, e, "name")
    return sorted(claims.spans)


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

    return PLACEHOLDER.sub(repl, text)


def placeholders(text: str) -> set[str]:
    return {m.group(1) for m in PLACEHOLDER.finditer(text) if m.group(1)}


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
            matches = [m.span() for m in whole_word(value).finditer(text)]
            bare = value.rstrip(".!?")
            if not matches and bare != value and len(bare) > 3:
                # A plan may quote a sentence without its final period: still the same value.
                matches = [m.span() for m in whole_word(bare).finditer(text)]
        n = used.get((kind, value), 0) if used is not None else 0
        for s, e in sorted(set(matches)):
            if all(c != MASK for c in masked[s:e]):
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


def whole_word(value: str, flags: int = 0) -> re.Pattern[str]:
    left = r"(?<!\w)" if value[:1].isalnum() or value[:1] == "_" else ""
    right = r"(?!\w)" if value[-1:].isalnum() or value[-1:] == "_" else ""
    return re.compile(left + re.escape(value) + right, flags)
