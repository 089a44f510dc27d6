"""What a goal means, for episodic memory: the same task however it is worded.

Retrieval by wording alone misses the obvious: "turn on wifi", "Please switch Wi-Fi on" and
"Turn wifi on." are one task, yet their templates differ in word order, courtesy and synonyms.
So every goal is read twice:

- its *wording key*: the template's words in order, without filler words and punctuation. Two
  goals with the same wording key are the candidates the template-based rules judged before
  (`template_differences` finds no difference in more than filler); and
- its *meaning*: the goal as the offline roles read it (`offline_text.read_request`: courtesy
  dropped, wanted states and unusual verbs restated), abstracted, its words normalised (case,
  hyphens, plurals, a few verb and noun synonyms), with the values of its on/off-like slots kept
  (`states`): "turn off wifi" is another task than "turn on wifi", whatever plan served the other.

A meaning key is given only when the goal's slots keep their keys under the rewording, so a plan's
`{name_1}` still means the same value: with no repeated slot type the words are compared as a
set (word order does not matter); with a repeated type (a source and a target folder) in order.
Everything here is pure and cached per goal text.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections import Counter

from android_world.agents.custom.memory import celil_episodic_goals as goals
from android_world.agents.custom.memory import celil_episodic_plan_checks as plan_checks
from android_world.agents.custom.offline_roles import offline_text

# Words that change no meaning of an order to a phone.
MEANING_FILLER = frozenset(
    {"a", "an", "the", "new", "please", "kindly", "just", "my", "your", "app", "application"}
)
# Plain-English synonyms of the words goals are made of (after `offline_text.stem`). Kept small
# on purpose: a meaning match may skip the planner, so two words are merged only when they never
# ask for different things on a phone.
SYNONYMS: dict[str, str] = {
    "switch": "turn",
    "toggle": "turn",
    "launch": "open",
    "remove": "delete",
    "erase": "delete",
    "add": "create",
    "make": "create",
    "picture": "photo",
    "pic": "photo",
    "snap": "take",
    "capture": "take",
    "wlan": "wifi",
}
_STATE_WORDS = {"maximum": "max", "minimum": "min", "highest": "max", "lowest": "min"}
# "Enable X" is "turn on X": the state becomes a slot value like any other on/off.
_ON_OFF_VERB = re.compile(r"\b(enable|activate|disable|deactivate)\s+(?:the\s+)?(?=\w)", re.I)
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([a-z]+)_\d+\}")


@dataclasses.dataclass(frozen=True)
class GoalMeaning:
    """A goal's meaning: its normalised words (`<type>` for a slot), its on/off-like values and
    whether the words count in order. `key` is None when no meaning could be read safely."""

    words: tuple[str, ...]
    states: tuple[str, ...]
    ordered: bool
    aligned: bool
    clauses: int = 1

    @property
    def key(self) -> str | None:
        if not self.aligned or not self.words:
            return None
        kind = "seq" if self.ordered else "bag"
        return f"{kind}:{' '.join(self.words)}|{states_text(self.states)}|{self.clauses}"

    @property
    def slot_types(self) -> list[str]:
        return sorted(w[1:-1] for w in self.words if w.startswith("<"))

    def describe(self) -> str:
        """One line for people: "turn wifi [on]; slots: toggle"."""
        text = " ".join(w for w in self.words if not w.startswith("<")) or "-"
        if self.states:
            text += " [" + ", ".join(self.states) + "]"
        slots = self.slot_types
        text += "; slots: " + (", ".join(slots) if slots else "none")
        if self.ordered:
            text += " (in order)"
        return text


@dataclasses.dataclass(frozen=True)
class GoalReading:
    """Everything memory needs of one goal, computed once (the result is cached: never mutate
    `template.slots` or `fill_slots`)."""

    goal: str
    template: goals.GoalTemplate
    wording_key: str
    meaning: GoalMeaning
    apps: tuple[str, ...]
    # The goal's slots plus the on/off values its rewording made explicit ("Enable wifi" has no
    # toggle slot, its meaning has toggle_1 = on), for filling a plan found by meaning.
    fill_slots: dict[str, goals.SlotValue]


def states_text(states: tuple[str, ...]) -> str:
    return ",".join(states)


def key_states(meaning_key: str | None) -> str | None:
    """The on/off-like part of a meaning key (None: no key)."""
    return meaning_key.split("|")[1] if meaning_key and meaning_key.count("|") >= 2 else None


def state_value(value: str) -> str:
    word = value.strip().lower()
    return _STATE_WORDS.get(word, word)


def canonical_word(word: str) -> str:
    word = SYNONYMS.get(word, word)
    stemmed = offline_text.stem(word)
    return SYNONYMS.get(stemmed, stemmed)


def meaning_words(template: str) -> list[str]:
    """A template's words, normalised, filler dropped; each slot is `<type>`."""
    out: list[str] = []
    pos = 0
    for m in _PLACEHOLDER.finditer(template):
        out += _literal_words(template[pos : m.start()])
        if m.group(1):
            out.append(f"<{m.group(1)}>")
        pos = m.end()
    out += _literal_words(template[pos:])
    return out


def _literal_words(text: str) -> list[str]:
    return [
        canonical_word(w)
        for w in offline_text.words(text)
        if w not in MEANING_FILLER and canonical_word(w) not in MEANING_FILLER
    ]


def restated_goal(goal: str) -> str:
    """The goal as the roles read it, with enable/disable said as turn on/off."""
    text, _polite = offline_text.read_request(goal)
    return _ON_OFF_VERB.sub(
        lambda m: "turn on " if m.group(1).lower() in ("enable", "activate") else "turn off ", text
    )


def _aligned(original: goals.GoalTemplate, restated: goals.GoalTemplate) -> bool:
    """Whether the rewording kept every slot's key and value (toggles it adds are fine when the
    original had none: they come from "enable"/"disable")."""
    plain = {k: v for k, v in original.slots.items() if v.type != "toggle"}
    plain_restated = {k: v for k, v in restated.slots.items() if v.type != "toggle"}
    if plain != plain_restated:
        return False
    toggles = {k: v for k, v in original.slots.items() if v.type == "toggle"}
    added = {k: v for k, v in restated.slots.items() if v.type == "toggle"}
    return not toggles or toggles == added


def read_meaning(goal: str) -> tuple[GoalMeaning, goals.GoalTemplate]:
    """The goal's meaning and the template of its restated form."""
    original = goals.abstract_goal(goal)
    restated_text = restated_goal(goal)
    restated = original if restated_text == goal else goals.abstract_goal(restated_text)
    words = meaning_words(restated.template)
    counts = Counter(w for w in words if w.startswith("<"))
    ordered = any(n > 1 for n in counts.values())
    clauses = offline_text.split_clauses(restated_text)
    meaning = GoalMeaning(
        words=tuple(words if ordered else sorted(words)),
        states=goal_states(restated, clauses),
        ordered=ordered,
        aligned=_aligned(original, restated),
        clauses=len(clauses),
    )
    return meaning, restated


_WEEKDAY = re.compile(r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)", re.I)


def goal_states(template: goals.GoalTemplate, clauses: list[str]) -> tuple[str, ...]:
    """What a plan decides by but a slot does not carry: on/off-like slot values; else the state
    the roles' reader finds ("Set brightness to 0%" is brightness=min, "100%" max); and the form
    of each date ("Thursday" needs today's date read first, "October 17" does not)."""
    states = [state_value(v.value) for v in template.slots.values() if v.type == "toggle"]
    if not states:
        for clause in clauses:
            level = offline_text.parse_level(clause)
            toggle = offline_text.parse_toggle(clause)
            if level is not None:
                states.append(f"{_subject(level[0])}={level[1]}")
            elif toggle is not None:
                states.append(f"{_subject(toggle[0])}={'on' if toggle[1] else 'off'}")
    for value in template.slots.values():
        if value.type == "date":
            states.append("date=weekday" if _WEEKDAY.fullmatch(value.value) else "date=day")
    return tuple(states)


def _subject(text: str) -> str:
    return " ".join(canonical_word(w) for w in offline_text.words(text)) or "-"


@functools.lru_cache(maxsize=512)
def _implied_apps(literal: str) -> tuple[str, ...]:
    return tuple(sorted({goals.canonical_app(a) for a in offline_text.find_apps(literal)}))


def goal_apps(goal: str, template: str | None = None) -> tuple[str, ...]:
    """The apps a goal is about: the ones it names, else the ones its words imply ("wifi" is
    Settings, "stopwatch" is Clock), read from the template's fixed text so a value ("a note
    about photos") implies nothing."""
    named = goals.apps_in_goal(goal)
    if named:
        return tuple(named)
    fixed = plan_checks.literal_text(
        template if template is not None else goals.abstract_goal(goal).template
    )
    return _implied_apps(fixed.replace("\x00", " "))


def states_of(slots: dict[str, goals.SlotValue]) -> tuple[str, ...]:
    """The on/off-like slot values (the part of `goal_states` a template alone gives)."""
    return tuple(state_value(v.value) for v in slots.values() if v.type == "toggle")


@functools.lru_cache(maxsize=1024)
def read_goal(goal: str) -> GoalReading:
    """Template, wording key, meaning and apps of a goal (cached: episodes ask twice)."""
    template = goals.abstract_goal(goal)
    meaning, restated = read_meaning(goal)
    fill = dict(template.slots)
    if meaning.aligned:
        for key, value in restated.slots.items():
            fill.setdefault(key, value)
    return GoalReading(
        goal=goal,
        template=template,
        wording_key=plan_checks.wording_key(template.template),
        meaning=meaning,
        apps=goal_apps(goal, template.template),
        fill_slots=fill,
    )


def clear_caches() -> None:
    """Forget every goal read so far (benchmarks time a lookup with its goal analysis)."""
    read_goal.cache_clear()
    _implied_apps.cache_clear()


__all__ = [
    "MEANING_FILLER",
    "SYNONYMS",
    "GoalMeaning",
    "GoalReading",
    "canonical_word",
    "clear_caches",
    "goal_apps",
    "goal_states",
    "key_states",
    "meaning_words",
    "read_goal",
    "read_meaning",
    "restated_goal",
    "state_value",
    "states_of",
]
