"""The sub-goal grammar of the offline roles: the controlled phrasings the offline planner
writes ("Enter 'Ann' as the name", "Turn wifi off") and the executor and checks read back as an
`Intent`. The phrasings are data (`PATTERNS`, `PREFIXES`) tried in the order of `RULES`; any
other text (a model planner's) falls back to a `generic` intent and lexical matching."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from android_world.agents.custom.offline_roles import offline_clear as clear
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.offline_common import (
    SAVE_WORDS,
    object_word,
    row_wants,
)


@dataclasses.dataclass(frozen=True)
class Intent:
    kind: str  # open, permission, toggle, level, fill, new, tap, back, find, generic
    sub_goal: str
    app: str | None = None
    subject: str = ""
    state: bool | None = None
    level: str | None = None
    field: str | None = None
    value: str | None = None


# Each pattern belongs to the rule of the same name in `RULES`.
PATTERNS: dict[str, re.Pattern[str]] = {
    # "Open Contacts", "Reopen Markor (attempt 2)".
    "open": re.compile(r"^(?:re)?open\s+(?:the\s+)?(.+?)(?:\s+app)?(?:\s+\(.*\))?$", re.I),
    # "Set the start date to 2023-10-27", "Set the end time to 15 mins after the start": the
    # goal's own words, so episodic memory slots them; the executor works the pickers out.
    "when": re.compile(r"^set the (start|end) (date|time) to (.+)$", re.I),
    # "Delete every event on 2023-10-27": every item of that day's list, whatever their names.
    "delete_all": re.compile(r"^(?:delete|remove) every (\w+) on (.+)$", re.I),
    # "Search for 'Team lunch'", then "Open 'Team lunch'": find one item among many, open it.
    "search": re.compile(r"^search for '(.+)'$", re.I),
    "open_item": re.compile(r"^open '(.+)'$", re.I),
    "read_date": re.compile(r"^read today'?s date\b", re.I),
    "permission": re.compile(r"\b(permission|pop-?ups?|allow)\b"),
    "fill": re.compile(
        r"^(?:enter|type|fill in|input|write)\s+'(.+)'\s+(?:in|into|as)\s+(?:the\s+)?(.+?)(?:\s+field)?$",
        re.I | re.S,
    ),
    "append": re.compile(r"^append\s+'(.+)'\s+to\s+(?:the\s+)?(.+)$", re.I | re.S),
    "prepend": re.compile(r"^prepend\s+'(.+)'\s+to\s+(?:the\s+)?(.+)$", re.I | re.S),
    "delete": re.compile(r"^(?:delete|remove)\s+'(.+)'$", re.I),
    "select": re.compile(r"^select\s+'(.+)'$", re.I),
    # Written out in words ("2 hours 5 minutes 0 seconds") so episodic memory turns each number
    # of the goal into a slot and a remembered plan fills in the next goal's duration.
    "keypad": re.compile(
        r"^set the duration to (\d+)\s*(?:h|hours?) (\d+)\s*(?:m|minutes?) (\d+)\s*(?:s|seconds?)$",
        re.I,
    ),
    "new": re.compile(r"^(?:start|create|add|begin|compose)\s+(?:a\s+|an\s+)?new\s+(.+)$", re.I),
    "tap": re.compile(r"^(?:tap|press|click|select|choose|go to)\s+(?:the\s+|on\s+)?(.+?)$", re.I),
}
# Rules that need only the sub-goal's first words (matched on its casefolded text).
PREFIXES: dict[str, tuple[str, ...]] = {
    "back": ("go back",),
    "first_item": ("open the most recent", "open the first"),
    "find": ("find",),
    "paste": ("paste",),
}
REOPEN = PATTERNS["open"]
READ_DATE_SUB_GOAL = "Read today's date on the Clock"
DATE_SOURCE_APP = "Clock"
FIND_SUB_GOAL = "Find the information the question asks for"


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
_ROUND = re.compile(rf"\s*\((?:{'|'.join(ORDINALS)})\)$", re.I)


def _open(sub_goal: str, text: str, info: text_lib.GoalInfo) -> Intent | None:
    match = REOPEN.match(text)
    if match and (apps := text_lib.find_apps(match.group(1))):
        return Intent("open", sub_goal, app=apps[0])
    return None


def _when(sub_goal: str, text: str, info: text_lib.GoalInfo) -> Intent | None:
    match = PATTERNS["when"].match(text)
    if match is None:
        return None
    subject = f"{match.group(1).casefold()} {match.group(2).casefold()}"
    return Intent("when", sub_goal, subject=subject, value=match.group(3).strip())


def _clear(sub_goal: str, text: str, info: text_lib.GoalInfo) -> Intent | None:
    kind = clear.parse_sub_goal(text)
    return Intent("clear", sub_goal, subject=kind) if kind else None


def _delete_all(sub_goal: str, text: str, info: text_lib.GoalInfo) -> Intent | None:
    match = PATTERNS["delete_all"].match(text)
    if match is None:
        return None
    return Intent("delete_all", sub_goal, subject=match.group(1), value=match.group(2))


def _search(sub_goal: str, text: str, info: text_lib.GoalInfo) -> Intent | None:
    match = PATTERNS["search"].match(text)
    return Intent("search", sub_goal, subject="search", value=match.group(1)) if match else None


def _open_item(sub_goal: str, text: str, info: text_lib.GoalInfo) -> Intent | None:
    match = PATTERNS["open_item"].match(text)
    if match and not text_lib.find_apps(match.group(1)):
        return Intent("open_item", sub_goal, subject=match.group(1))
    return None


def _read_date(sub_goal: str, text: str, info: text_lib.GoalInfo) -> Intent | None:
    return (
        Intent("read_date", sub_goal, subject=text) if PATTERNS["read_date"].match(text) else None
    )


def _permission(sub_goal: str, text: str, info: text_lib.GoalInfo) -> Intent | None:
    return (
        Intent("permission", sub_goal) if PATTERNS["permission"].search(text.casefold()) else None
    )


def _level(sub_goal: str, text: str, info: text_lib.GoalInfo) -> Intent | None:
    level = text_lib.parse_level(text)
    return Intent("level", sub_goal, subject=level[0], level=level[1]) if level else None


def _toggle(sub_goal: str, text: str, info: text_lib.GoalInfo) -> Intent | None:
    toggle = text_lib.parse_toggle(text)
    return Intent("toggle", sub_goal, subject=toggle[0], state=toggle[1]) if toggle else None


def _text_into(kind: str) -> Callable[[str, str, text_lib.GoalInfo], Intent | None]:
    """ "Enter/Append/Prepend '<value>' as/to the <field>"."""

    def read(sub_goal: str, text: str, info: text_lib.GoalInfo) -> Intent | None:
        match = PATTERNS[kind].match(text)
        if match is None:
            return None
        return Intent(kind, sub_goal, field=match.group(2).strip(), value=match.group(1))

    return read


def _quoted_subject(kind: str) -> Callable[[str, str, text_lib.GoalInfo], Intent | None]:
    """ "Delete '<item>'", "Select '<item>'"."""

    def read(sub_goal: str, text: str, info: text_lib.GoalInfo) -> Intent | None:
        match = PATTERNS[kind].match(text)
        return Intent(kind, sub_goal, subject=match.group(1)) if match else None

    return read


def _keypad(sub_goal: str, text: str, info: text_lib.GoalInfo) -> Intent | None:
    match = PATTERNS["keypad"].match(text)
    if match is None:
        return None
    h, m, sec = (int(g) for g in match.groups())
    return Intent("keypad", sub_goal, value=f"{h:02d}{m:02d}{sec:02d}".lstrip("0") or "0")


def _prefixed(
    kind: str, *, keep_text: bool
) -> Callable[[str, str, text_lib.GoalInfo], Intent | None]:
    """A rule of `PREFIXES`; "find" also carries the goal (the question) as its value."""

    def read(sub_goal: str, text: str, info: text_lib.GoalInfo) -> Intent | None:
        if not text.casefold().startswith(PREFIXES[kind]):
            return None
        if kind == "find":
            return Intent("find", sub_goal, subject=text, value=info.goal)
        return Intent(kind, sub_goal, subject=text) if keep_text else Intent(kind, sub_goal)

    return read


def _new(sub_goal: str, text: str, info: text_lib.GoalInfo) -> Intent | None:
    match = PATTERNS["new"].match(text)
    return Intent("new", sub_goal, subject=match.group(1).strip()) if match else None


def _tap(sub_goal: str, text: str, info: text_lib.GoalInfo) -> Intent | None:
    match = PATTERNS["tap"].match(text)
    return Intent("tap", sub_goal, subject=match.group(1).strip()) if match else None


@dataclasses.dataclass(frozen=True)
class SubGoalRule:
    name: str
    read: Callable[[str, str, text_lib.GoalInfo], Intent | None]  # (sub_goal, text, info)


# In order: the first rule that reads the sub-goal names its intent.
RULES: tuple[SubGoalRule, ...] = (
    SubGoalRule("open", _open),
    SubGoalRule("back", _prefixed("back", keep_text=False)),
    SubGoalRule("when", _when),
    SubGoalRule("clear", _clear),
    SubGoalRule("delete_all", _delete_all),
    SubGoalRule("search", _search),
    SubGoalRule("open_item", _open_item),
    SubGoalRule("read_date", _read_date),
    SubGoalRule("permission", _permission),
    SubGoalRule("level", _level),
    SubGoalRule("toggle", _toggle),
    SubGoalRule("fill", _text_into("fill")),
    SubGoalRule("append", _text_into("append")),
    SubGoalRule("prepend", _text_into("prepend")),
    SubGoalRule("delete", _quoted_subject("delete")),
    SubGoalRule("select", _quoted_subject("select")),
    SubGoalRule("keypad", _keypad),
    SubGoalRule("first_item", _prefixed("first_item", keep_text=False)),
    SubGoalRule("new", _new),
    SubGoalRule("find", _prefixed("find", keep_text=True)),
    SubGoalRule("paste", _prefixed("paste", keep_text=True)),
    SubGoalRule("tap", _tap),
)


def parse_sub_goal(sub_goal: str, info: text_lib.GoalInfo) -> Intent:
    # "Tap Save (second)": the ordinal only tells one record's round from another's.
    text = _ROUND.sub("", " ".join(sub_goal.split()).rstrip("."))
    for rule in RULES:
        intent = rule.read(sub_goal, text, info)
        if intent is not None:
            return intent
    return Intent("generic", sub_goal, subject=text)


def intent_terms(intent: Intent, info: text_lib.GoalInfo) -> list[tuple[str, float]]:
    """The words that lead toward the intent's target on screen, weighted."""
    if intent.kind in ("fill", "append", "prepend"):
        base = [intent.field or ""]
    elif intent.kind == "delete":
        return [
            (intent.subject, 1.0),
            ("delete", 1.0),
            ("trash", 0.8),
            ("remove", 0.8),
            ("more options", 0.55),
        ]
    elif intent.kind == "new":
        base = ["new", "add", "create", intent.subject]
    elif intent.kind == "find":
        base = text_lib.content_words(info.goal)
    else:
        base = text_lib.content_words(intent.subject or intent.sub_goal)
    terms = text_lib.expand_terms(base)
    if intent.kind == "tap" and text_lib.normalize(intent.subject) in SAVE_WORDS:
        obj = object_word(info)
        terms += [(w, 0.85) for w in SAVE_WORDS if w != "save"]
        if obj != "item":
            terms.append((obj, 0.95))
    if intent.kind == "new":
        terms += [("compose", 0.8), ("start chat", 0.8), ("plus", 0.7)]
    if intent.kind == "find" and row_wants(info.goal).done is True:
        # Lists hide done items until their menu shows them.
        terms += [("show completed", 1.0), ("more options", 0.85)]
    return terms
