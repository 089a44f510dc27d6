"""What a goal asks beyond its fields, read off its wording for the offline roles: the apps it
names, a repetition, a day to empty, forbidden steps, a duration, items to delete or move, text
to add, a note to edit, a person, numbers. Re-exported by offline_text."""

from __future__ import annotations

import re
from collections.abc import Sequence

from android_world.agents.custom.offline_roles import offline_wording as wording
from android_world.agents.custom.offline_roles.offline_dates import (
    _MONTHS,
    day_phrase,
)
from android_world.agents.custom.offline_roles.offline_words import (
    APP_HINTS,
    AppHint,
    content_words,
    normalize,
    phrase_in,
    quoted_spans,
    stem,
    words,
)
from android_world.agents.custom.roles import celil_goal_questions as questions

# Plain numbers, as `find_numbers` has always read them (a phone-aware pattern once written here
# was shadowed by a later module-level `_NUMBER` and never used).
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
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
