"""Is a progress verdict grounded in the screen? (DESIGN §3, step 3.)

A sub-goal is done only when the screen shows it. Code that read the UI tree itself (the offline
planner) reports `screen` or `transition` evidence; a model's verdict arrives as text, and that
text counts only when what it names is on the screen: its quoted values are shown, most of its
words are there, and a switch it names is in the position it claims. A template echo ("what on
screen shows it") or an empty string is never evidence. Pure functions, no harness imports.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from android_world.agents.custom import celil_geometry
from android_world.agents.custom.celil_protocols import Evidence, Observation

# Kinds the agent counts as done; `model` counts only after `ground_text` found it on screen.
ACCEPTED_KINDS = ("screen", "transition", "reading")

# Echoes of our own prompt schemas and stock filler: never evidence, whatever the screen shows.
_PLACEHOLDERS = (
    "what on screen shows it",
    "quoted on-screen text",
    "where you read it",
    "evidence",
    "n/a",
    "na",
    "none",
    "null",
    "unknown",
    "...",
    "todo",
    "yes",
    "true",
    "done",
)
_TEMPLATE = re.compile(r"^\s*[<{\[].*[>}\]]\s*$", re.S)
_QUOTED = re.compile(r"[\"“‘']([^\"”’']{2,80})[\"”’']")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Words that describe a screen rather than name something on it.
_GENERIC_WORDS = """a an the is are was were be been being it its it's this that these those there here and or
    of to in on off at as for with by from now has have had which who shows show shown showing
    visible displayed display displays screen page view current currently already still button
    field fields app application element elements label text value set setting settings toggle
    toggled switch switched turned state status appears appear present contains containing
    holds holding reads read says indicated indicates confirm confirms confirmed done completed
    complete successfully success sub goal subgoal task user under top bottom so i we you can see
    seen not no yes enabled disabled checked unchecked selected"""
_GENERIC = frozenset(_GENERIC_WORDS.split())
_ON_WORDS = frozenset({"on", "enabled", "checked", "active"})
_OFF_WORDS = frozenset({"off", "disabled", "unchecked", "inactive"})


def normalise(text: str | None) -> str:
    return " ".join((text or "").casefold().split())


def is_placeholder(text: str | None) -> bool:
    """Empty, a schema echo ("what on screen shows it"), a `<...>`/`{...}` template, or filler."""
    value = normalise(text).strip(" .:;!\"'")
    if (len(value) < 2 and not value.isdigit()) or value in _PLACEHOLDERS:  # "6" is a count
        return True
    return bool(_TEMPLATE.match(value))


def screen_texts(observation: Observation) -> list[str]:
    """Every text a reader of this screen can see: element texts, descriptions, OCR lines."""
    texts = []
    for element in observation.ui_elements:
        for value in (element.text, element.content_description):
            if value:
                texts.append(normalise(value))
    texts.extend(normalise(line.text) for line in observation.ocr_lines if line.text)
    return [t for t in texts if t]


def _words(text: str) -> list[str]:
    return _WORD.findall(normalise(text))


def _word_found(word: str, screen_words: set[str]) -> bool:
    if word in screen_words:
        return True
    if len(word) < 4:
        return False
    return any(len(w) >= 4 and (w.startswith(word) or word.startswith(w)) for w in screen_words)


def _screen_sentences_removed(text: str, observation: Observation) -> str:
    """The evidence without the sentences it quotes from the screen: "To see available
    networks, turn WLAN on", quoted from a screen whose WLAN is off, is the screen's hint, not
    the model saying the switch is on. A short quote ("Wi-Fi on") stays: it is a claim."""
    texts = screen_texts(observation)

    def keep(match: re.Match[str]) -> str:
        quoted = normalise(match.group(1))
        on_screen = any(quoted in t for t in texts)
        return " " if on_screen and len(_words(quoted)) >= 4 else match.group(0)

    return _QUOTED.sub(keep, text)


def switch_contradiction(text: str, observation: Observation) -> str | None:
    """The evidence says a named switch is on (off) while the screen shows it off (on)."""
    text = _screen_sentences_removed(text, observation)
    words = set(_words(text))
    says_on, says_off = bool(words & _ON_WORDS), bool(words & _OFF_WORDS)
    if says_on == says_off:
        return None
    evidence = normalise(text)
    for element in observation.ui_elements:
        if not element.is_checkable:
            continue
        label = normalise(celil_geometry.element_label(element))
        if not label or label not in evidence:
            continue
        if bool(element.is_checked) != says_on:
            shown = "on" if element.is_checked else "off"
            return f"the evidence says {label!r} is {'on' if says_on else 'off'}; it shows {shown}"
    return None


def ground_text(
    text: str | None, observation: Observation, seen: Iterable[str] = ()
) -> tuple[bool, str]:
    """Whether a model's evidence is on this screen (or, through `seen`, on earlier ones).

    Every quoted value must be shown; without quotes, at least half of the evidence's naming
    words (not "screen", "shows", "button") must be; a switch it names must be in the position
    it claims.
    """
    if is_placeholder(text):
        return False, f"placeholder evidence {normalise(text)[:60]!r}"
    value = text or ""
    texts = screen_texts(observation) + [normalise(s) for s in seen if s]
    quotes = [normalise(q) for q in _QUOTED.findall(value) if normalise(q)]
    missing = [q for q in quotes if not any(q in t for t in texts)]
    if missing:
        return False, f"{missing[0]!r} is not on the screen"
    contradiction = switch_contradiction(value, observation)
    if contradiction:
        return False, contradiction
    if quotes:
        return True, "quoted " + ", ".join(repr(q) for q in quotes[:3]) + " on screen"
    screen_words = {w for t in texts for w in _words(t)}
    naming = sorted({w for w in _words(value) if w not in _GENERIC})
    hits = [w for w in naming if _word_found(w, screen_words)]
    if not naming or 2 * len(hits) < len(naming):
        missing_words = [w for w in naming if w not in hits][:3]
        return False, "evidence names what is not on screen: " + ", ".join(missing_words or ["-"])
    return True, "on screen: " + ", ".join(hits[:5])


# Small words that name nothing ("the", "with") in a goal, next to the screen-describing ones.
_STOP_WORD_LIST = """a an and as at by for from in into of on onto or the to with then when it
    its all any each every my your our their his her new"""
_STOP_WORDS = frozenset(_STOP_WORD_LIST.split())
# The orders a goal gives ("Delete the recipes", "Save the note"): a screen shows the same words
# on its buttons before anything is done, so a quote of "Delete" names no end state of the task.
_COMMAND_VERB_LIST = [
    "add",
    "create",
    "delete",
    "remove",
    "erase",
    "save",
    "send",
    "open",
    "launch",
    "start",
    "stop",
    "pause",
    "resume",
    "play",
    "edit",
    "change",
    "update",
    "modify",
    "set",
    "turn",
    "enable",
    "disable",
    "tap",
    "click",
    "press",
    "select",
    "choose",
    "type",
    "enter",
    "write",
    "take",
    "mark",
    "move",
    "rename",
    "search",
    "find",
    "navigate",
    "scroll",
    "swipe",
    "clear",
    "reset",
    "share",
    "make",
    "schedule",
    "check",
    "uncheck",
    "verify",
    "confirm",
    "close",
    "cancel",
    "put",
    "give",
    "get",
    "use",
    "keep",
    "reply",
    "forward",
    "dial",
    "install",
    "uninstall",
    "download",
    "upload",
    "sort",
    "filter",
    "apply",
    "submit",
    "capture",
    "snap",
]
_COMMAND_VERBS = frozenset(_COMMAND_VERB_LIST)
# A number standing on its own ("16 minutes", "12:30"), not a piece of a name
# ("2023_08_05.txt"); its parts are what a screen may show on their own ("12", "30").
_WHOLE_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.:,]\d+)*(?![\w])")


# One setting, two names: vendors call Wi-Fi "WLAN" (and the goal may write "Wi-Fi" as two
# words), so a quote naming either names the task.
_SAME_NAME = {"wifi": ("wlan",), "wlan": ("wifi",)}


def _naming_words(text: str) -> list[str]:
    """The words of a text, with "Wi-Fi" also read as the one word "wifi"."""
    words = _words(text)
    return [*words, "wifi"] if "wi" in words and "fi" in words else words


def _with_other_names(words: set[str]) -> set[str]:
    return words | {other for word in words for other in _SAME_NAME.get(word, ())}


def _subject_terms(subject: str) -> tuple[set[str], set[int]]:
    """The naming words (3+ letters, not generic, not an order like "delete") and the
    standalone numbers of a sub-goal or goal: what evidence about it can be expected to name."""
    words = {
        w
        for w in _naming_words(subject)
        if len(w) >= 3
        and not w.isdecimal()
        and w not in _GENERIC
        and w not in _STOP_WORDS
        and w not in _COMMAND_VERBS
    }
    words = _with_other_names(words) | _date_month_names(subject)
    numbers = {
        int(part)
        for match in _WHOLE_NUMBER.findall(_ISO_DATE.sub(" ", normalise(subject)))
        for part in re.split(r"[.:,]", match)
        if part.isdecimal()
    }
    return words, numbers


# A date the goal writes as 2023-10-17. Its parts are no standalone numbers: a calendar shows a
# "10" or a "17" in every month, so a quote of one is not about the date (a model done too early
# quoting the day cell "10" for "delete the events on 2023-10-17"). Its month, by name, is.
_ISO_DATE = re.compile(r"(?<![\w.])(\d{4})-(\d{1,2})-(\d{1,2})(?![\w])")
_MONTHS = [
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
]


def _date_month_names(subject: str) -> set[str]:
    """The month names ("october", "oct") of the ISO dates a subject names."""
    names: set[str] = set()
    for match in _ISO_DATE.finditer(normalise(subject)):
        month = int(match.group(2))
        if 1 <= month <= 12:
            names |= {_MONTHS[month - 1], _MONTHS[month - 1][:3]}
    return names


def relevant(text: str | None, subjects: Iterable[str]) -> tuple[bool, str]:
    """Whether a model's evidence is about what it was asked: it names at least one naming word
    or standalone number of the sub-goal or the goal. A text that is on the screen but names
    none of them ("Simple Calendar Pro" for a maze in Chrome, the "08" of a file's date for a
    merge) shows the screen, not the sub-goal's end state; nor does one that names only the
    goal's order ("Delete", the confirm button of "Delete the recipe X")."""
    words: set[str] = set()
    numbers: set[int] = set()
    for subject in subjects:
        more_words, more_numbers = _subject_terms(subject)
        words |= more_words
        numbers |= more_numbers
    for word in _naming_words(text or ""):
        if word.isdecimal():
            if int(word) in numbers:
                return True, f"names {word!r}"
        elif len(word) >= 3 and word not in _GENERIC and _word_found(word, words):
            return True, f"names {word!r}"
    return False, f"the evidence names nothing the task names ({normalise(text)[:60]!r})"


_OPEN_APP_STEP = re.compile(
    r"^\s*(?:open|launch|start)\s+(?:the\s+)?(?P<app>[\w &'.-]{2,40}?)(?:\s+app)?\s*[.!]?\s*$",
    re.IGNORECASE,
)


def opened_app_in_front(sub_goal: str, activity: str | None) -> bool:
    """Whether `sub_goal` only opens an app ("Open the Settings app") and that app is in front:
    every naming word of the app appears in the foreground activity's name."""
    match = _OPEN_APP_STEP.match(sub_goal or "")
    if not match or not activity:
        return False
    front = activity.casefold()
    names = [w for w in _words(match.group("app")) if len(w) >= 3 and not w.isdecimal()]
    return bool(names) and all(name in front for name in names)


def accept(
    evidence: Evidence, observation: Observation, seen: Iterable[str] = ()
) -> tuple[bool, str]:
    """Whether a verdict counts as done, and why (the why is recorded either way)."""
    if not evidence.done:
        return False, evidence.text or "the check says not done"
    if evidence.kind in ACCEPTED_KINDS:
        if is_placeholder(evidence.text):
            return False, "a done verdict without any evidence text"
        return True, evidence.text
    if evidence.kind == "model":
        return ground_text(evidence.text, observation, seen)
    if evidence.kind == "action":
        return False, f"only an action ran ({evidence.text or 'no screen evidence'})"
    return False, "no evidence"


def content_grounded(
    content: str | None, observation: Observation, seen: Iterable[str] = ()
) -> bool:
    """The executor's finished(content): every comma-separated part is on a screen seen."""
    if is_placeholder(content):
        return False
    texts = screen_texts(observation) + [normalise(s) for s in seen if s]
    parts = [normalise(p) for p in (content or "").split(",") if normalise(p)]
    return bool(parts) and all(
        any(p in t for t in texts) or _date_time_seen(p, texts) for p in parts
    )


_DATE_TIME = re.compile(r"^([a-z]+)\s+0?(\d{1,2})\s+(\d{4})\s+(\d{1,2}:\d{2})$")


def _date_time_seen(part: str, texts: list[str]) -> bool:
    """A date and time put together in the format a question asks ("october 27 2023 15:15")
    from a day header ("friday, october 27, 2023") and an item's time ("15:15 - 15:45")."""
    match = _DATE_TIME.match(part)
    if not match:
        return False
    month, day, year, clock = match.groups()
    plain = [t.replace(",", " ") for t in texts]
    date_seen = any(
        re.search(rf"\b{month}\s+0?{day}\s+{year}\b", " ".join(t.split())) for t in plain
    )
    return date_seen and any(re.search(rf"(?<![\d:]){clock}(?![\d])", t) for t in texts)


def is_number(text: str | None) -> bool:
    return bool(re.fullmatch(r"[-+]?\$?\d[\d,]*(?:\.\d+)?", (text or "").strip()))


# Amounts a screen shows ("$12.50", "1,204.50"): what a total may be worked out from. Whole
# numbers are left out: a clock's "2:15:00" or a list's many small numbers add up to anything.
_FIGURE = re.compile(r"(?<![\w.])\$?\d[\d,]*\.\d{1,2}(?![\w])")
# A question of how many things, not of a measure ("how many minutes did it last").
_COUNT_WORDS = re.compile(
    r"\b(?:how\s+many|number\s+of|count\s+of)\b(?!\s+(?:minutes|seconds|hours|days|meters|"
    r"metres|kilometers|km|miles|steps|calories)\b)",
    re.I,
)
# Bounds that keep the subset-sum check small: figures read, and the largest total in cents.
_MAX_FIGURES = 200
_MAX_CENTS = 10_000_000


def _cents(text: str) -> int | None:
    try:
        return round(float(text.replace(",", "").lstrip("$+")) * 100)
    except ValueError:
        return None


def number_worked_out(
    content: str | None, subjects: Iterable[str], seen: Iterable[str]
) -> tuple[bool, str]:
    """Whether a number the executor answered, though no screen shows it, comes from what the
    task names or the screens showed: a number the sub-goal or goal names, for a question of
    how many a count no larger than the texts seen, or a total of amounts seen. Any other number is a guess, not a
    reading ("1" for "how many minutes did it last", read off nothing)."""
    subjects = list(subjects)
    if not is_number(content):
        return False, "not a number"
    value = _cents(content or "")
    if value is None or value < 0:
        return False, "not a number"
    named = {
        cents
        for subject in subjects
        for match in _WHOLE_NUMBER.findall(normalise(subject))
        if (cents := _cents(match)) is not None
    }
    if value in named:
        return True, "a number the task names"
    texts = {normalise(t) for t in seen if t}
    counts = any(_COUNT_WORDS.search(subject or "") for subject in subjects)
    if counts and value % 100 == 0 and value // 100 <= len(texts):
        return True, "a count of what the screens showed"
    figures = [
        cents
        for text in sorted(texts)
        for match in _FIGURE.findall(text)
        if (cents := _cents(match)) is not None and 0 < cents <= _MAX_CENTS
    ][:_MAX_FIGURES]
    if 0 < value <= _MAX_CENTS:
        reachable = 1  # bit k set: some figures seen add up to k cents
        mask = (1 << (value + 1)) - 1
        for cents in figures:
            reachable = (reachable | (reachable << cents)) & mask
            if reachable >> value & 1:
                return True, "a total of amounts the screens showed"
    return False, f"{content!r} is on no screen and not worked out from them"
