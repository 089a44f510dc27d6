"""Plan safety for episodic memory: a stored plan must not carry one goal's values into
another goal, and a retrieved template must ask for the same task.

`plan_leaks` and `stale_values` find a goal's values that a plan's fixed text still spells out;
`template_differences`, `wording_key` and `template_similarity` compare two goal templates
(celil_episodic_goals makes them). All functions are pure.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence

from android_world.agents.custom.memory.celil_episodic_apps import APP_WORDS
from android_world.agents.custom.memory.celil_episodic_goals import (
    LABEL_RE,
    MASK,
    NON_NAME_WORDS,
    PLACEHOLDER,
    GoalTemplate,
    SlotValue,
    name_like,
    sentence_initial,
    whole_word,
)

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
_TOKEN = re.compile(r"[\w$+][\w'’+\-./:$]*")


def literal_text(template: str) -> str:
    """A plan template's fixed text, which every instantiation repeats whatever the goal."""
    return PLACEHOLDER.sub(lambda m: {"{{": "{", "}}": "}"}.get(m.group(0), MASK), template)


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
        and word not in NON_NAME_WORDS
        and word.lower() not in APP_WORDS
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
    sentence = not name_like(stripped)
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

    App names, labels ("First Name:"), sentence starts and words in `NON_NAME_WORDS` are the
    goal's wording; anything else capitalised or numeric should have been a slot.
    """
    text = literal_text(template)
    labels = {w for m in LABEL_RE.finditer(text) for w in m.group(1).split()}
    out: list[str] = []
    for start, word in _tokens(text):
        numeric = re.fullmatch(r"[$+\-]?\d[\d.,:]*", word) is not None
        capital = word[0].isupper() and not any(c.isdigit() for c in word)
        if not (numeric or capital) or not _is_marker(word) or word in labels:
            continue
        if capital and sentence_initial(text, start):
            continue
        if word not in out:
            out.append(word)
    return out


def _found(marker: str, text: str) -> bool:
    return bool(marker) and whole_word(marker).search(text) is not None


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


def wording_key(template: str) -> str:
    """The template's words in order, without filler words and punctuation. Templates with the
    same key differ in nothing `template_differences` counts, so the key indexes the candidates
    of retrieval by wording."""
    return " ".join(
        t
        for t in _template_tokens(template)
        if t not in _FILLER_WORDS and (t[0].isalnum() or t[0] == "<")
    )


def template_similarity(a: str, b: str) -> float:
    """Token similarity of two templates (0..1); slot numbers are ignored, slot types are not."""
    ta, tb = _template_tokens(a), _template_tokens(b)
    if not ta and not tb:
        return 1.0
    return difflib.SequenceMatcher(None, ta, tb, autojunk=False).ratio()
