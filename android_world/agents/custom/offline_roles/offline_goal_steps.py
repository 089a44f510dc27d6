"""How a plan's sub-goal relates to the goal and to the screen: wording, not end states.

The goal check (`offline_goal`) reads whether the whole goal is done. The plan's steps need
other answers, read from their words alone: whether a sub-goal is the goal itself in other
words (verbatim, restated, a final "verify ..." step), which values a sub-goal names (shown on
the screen, they are its evidence), and which control a "Tap 'Save'" step names and whether
the screen has it (a step naming a control the screen lacks is replanned, not retried).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.offline_goal_screens import texts as _texts
from android_world.agents.custom.offline_roles.offline_goal_screens import value_shown
from android_world.agents.custom.offline_roles.offline_goal_values import (
    each_value,
    given_values,
    without_lone_capitals,
)


def _norm(text: str | None) -> str:
    return text_lib.normalize(text)


_VERIFY_STEP = re.compile(r"^\s*(?:verify|check|confirm|make\s+sure|ensure|double-check)\b", re.I)
# Share of the goal's naming words a sub-goal must carry to be the goal in other words.
_RESTATED_SHARE = 0.6
# A step that only types ("Enter 'It's a bird' as the message"): one part of a goal that sends
# or saves what is typed, even when its words are most of the goal's ("message" is also the
# goal's verb "send"). Words that make it more than typing.
_TYPING_STEP = re.compile(r"^\s*(?:enter|type|input|fill\s+in|fill)\b", re.I)
_COMMIT_WORDS = frozenset({"send", "save", "submit", "reply", "post", "create", "add", "done"})


# Verbs people use for the same request; a restated goal says "switch on" for "turn on".
_SAME_VERB = (
    frozenset({"create", "make", "add", "new", "set", "setup", "put", "insert", "log", "record"}),
    frozenset({"delete", "remove", "erase", "clear", "discard", "trash"}),
    frozenset({"turn", "switch", "enable", "disable", "toggle", "activate", "deactivate"}),
    frozenset({"open", "launch", "start", "run", "go", "navigate", "head"}),
    frozenset({"change", "edit", "update", "modify", "adjust", "rename", "replace"}),
    frozenset({"take", "capture", "snap", "shoot", "record"}),
    frozenset({"send", "text", "message", "reply", "respond", "answer"}),
    frozenset({"move", "relocate", "transfer"}),
    frozenset({"copy", "duplicate"}),
    frozenset({"minute", "minutes", "min", "mins"}),
    frozenset({"second", "seconds", "sec", "secs"}),
    frozenset({"hour", "hours", "hr", "hrs"}),
)


def _word_keys(text: str, apps: set[str]) -> list[frozenset[str]]:
    """Each naming word of a text with the words that mean the same."""
    keys = []
    for word in text_lib.content_words(text):
        if word in apps:
            continue
        stem = text_lib.stem(word)
        same = next((group for group in _SAME_VERB if word in group or stem in group), None)
        keys.append(frozenset({word, stem} | (same or frozenset())))
    return keys


def covers_goal(goal: str, sub_goal: str) -> bool:
    """Whether a sub-goal is the whole goal in other words: the goal verbatim, restated, or a
    final "verify that ..." step. Every clause of the goal must be in it (most of its naming
    words, or words that mean the same): "Turn Wi-Fi on" is one clause of "Turn on Wi-Fi,
    then open the camera app", not the goal. Such a sub-goal is done only when the goal is."""
    if _norm(goal) == _norm(sub_goal) or _VERIFY_STEP.match(sub_goal or ""):
        return True
    if _only_types(sub_goal) and not _TYPING_STEP.match(goal or ""):
        return False
    apps = {_norm(a) for a in text_lib.app_names()}
    have = {w for key in _word_keys(sub_goal, apps) for w in key}
    clauses = [
        c for c in text_lib.parse_goal(without_examples(goal)).clauses if _word_keys(c, apps)
    ]
    if not clauses:
        return False
    opens_only = _only_opens(sub_goal)
    for clause in clauses:
        wanted = _word_keys(clause, apps)
        found = sum(1 for key in wanted if key & have)
        if found < _RESTATED_SHARE * len(wanted):
            return False
        if opens_only and not text_lib.parse_open(clause):
            return False  # "Open Pro Expense" is not "Delete ... from pro expense: X"
    return True


def _only_types(sub_goal: str) -> bool:
    """A step that enters values and does nothing with them ("Enter 'x' as the message");
    "Type the message and send it" also commits it."""
    return bool(_TYPING_STEP.match(sub_goal or "")) and not (
        set(text_lib.words(sub_goal)) & _COMMIT_WORDS
    )


def _only_opens(sub_goal: str) -> bool:
    """A step that opens an app and says nothing more ("Open Pro Expense"); "Start the contacts
    app. Clear any pop-ups ..." opens an app on its way to more."""
    app = text_lib.parse_open(sub_goal)
    if app is None:
        return False
    hint = text_lib.app_hint(app)
    names = (hint.label, *hint.aliases) if hint else (app,)
    known = {w for n in names for w in text_lib.words(n)} | {"app", "application"}
    known |= next(group for group in _SAME_VERB if "open" in group)
    return not set(text_lib.content_words(sub_goal)) - known


_EXAMPLE_SENTENCE = re.compile(
    r"(?:^|(?<=[.!?])\s+)(?:for example|for instance|e\.g\.).*?(?:[.!?](?=\s|$)|$)",
    re.I,
)


def without_examples(goal: str) -> str:
    """The goal without its "For example, ..." sentences: their quoted texts ("edna, pineapple")
    show the form of the answer and are no values the task leaves behind."""
    return _EXAMPLE_SENTENCE.sub(" ", goal or "").strip()


def named_values(sub_goal: str) -> list[str]:
    """Values a sub-goal names (quoted texts, numbers of note, names): shown on the screen,
    they are part of its evidence."""
    info = text_lib.parse_goal(without_examples(sub_goal))
    return each_value(without_lone_capitals(info, given_values(info)))


# A quoted label right after a verb that acts on it ("Tap 'More options'", "... in 'Name'").
_QUOTED = re.compile(r"['\"“‘]([^'\"”’]{1,80})['\"”’]")
_ACTS_ON = re.compile(
    r"\b(?:in|into|tap|press|click|hit|select|choose|long-press|long\s+press)(?:\s+on)?"
    r"(?:\s+the)?\s*$",
    re.I,
)


def place_labels(sub_goal: str) -> set[str]:
    """The labels a step names as where it acts: the control it taps, the field it types into.
    Such a label is no value its end state shows: a tapped "More options" is covered by the
    menu it opened, a field's hint goes when it is filled. The tap itself is checked as a
    tap (the handler's "the step for it went through")."""
    text = sub_goal or ""
    return {
        _norm(match.group(1))
        for match in _QUOTED.finditer(text)
        if _ACTS_ON.search(text[max(0, match.start() - 24) : match.start()])
    }


def values_missing(sub_goal: str, observation: Observation, seen: Sequence[str] = ()) -> list[str]:
    """The values a sub-goal names that neither the screen nor the `seen` texts show; the
    label a one-place step acts on (`place_labels`) is a place, not a value."""
    shown = _texts(observation) + list(seen)
    places = place_labels(sub_goal)
    if len(places) > 1:
        # "Tap '30', then tap 'OK', then tap 'Save'": a tap on the first proves nothing of
        # the others, so the later ones are still asked of the screen.
        places = set()
    return [
        v for v in named_values(sub_goal) if _norm(v) not in places and not value_shown(v, shown)
    ]


_NAMED_CONTROL = (
    re.compile(
        r"^\s*(?:tap|press|click|hit|select|choose)\s+(?:on\s+)?(?:the\s+)?['\"“‘](.+?)['\"”’]",
        re.I,
    ),
    re.compile(
        r"^\s*(?:tap|press|click|hit)\s+(?:on\s+)?(?:the\s+)?([A-Za-z][\w -]{0,30}?)\s+"
        r"(?:button|tab|icon|option|menu item)\b",
        re.I,
    ),
)
# Words that name the same commit control in other apps and vendors' wording.
_SAME_CONTROL = {
    "save": ("done", "ok", "confirm", "apply", "check"),
    "ok": ("done", "confirm", "save", "yes"),
    "done": ("save", "ok", "confirm"),
    "delete": ("remove", "trash", "bin"),
    "remove": ("delete", "trash"),
    "send": ("send sms", "submit"),
}


def named_control(sub_goal: str) -> str | None:
    """The control a "Tap the 'Save' button" step names, or None for a step that names none."""
    for pattern in _NAMED_CONTROL:
        match = pattern.match(sub_goal or "")
        if match:
            return match.group(1).strip()
    return None


def control_shown(sub_goal: str, observation: Observation) -> bool | None:
    """Whether the control a step names is on the screen (under its name or a name the same
    control has elsewhere); None when the step names no control."""
    label = named_control(sub_goal)
    if label is None:
        return None
    names = [label, *_SAME_CONTROL.get(_norm(label), ())]
    terms = text_lib.expand_terms(names)
    for i in screen.content_indices(observation):
        for name in screen.labels(observation.ui_elements[i]):
            if text_lib.label_relevance(terms, name) >= 0.8:
                return True
    return False
