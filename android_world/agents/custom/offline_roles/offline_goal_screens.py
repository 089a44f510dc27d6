"""What the screens showed, for the goal check: their texts, their forms, a value among them.

The goal check reads every screen of the episode's trail again after every action, so a
40-step episode reads its first screen 40 times; reading them (content elements, form fields
with their row labels) was about a quarter of an offline run's agent time under the profiler
(issue 30). What a screen shows is a pure function of the screen, so it is memoised here under a
key made of *everything* the readers look at: the screen size, every field of every element
(boxes as their numbers) and the OCR lines' texts. Two screens with the same key read the same;
an element changed in place gets a new key, so a memo can never answer for a screen it was not
computed on. (Keys compare values: a flag typed as the int 0 would share False's key; the
element's flags are typed bool | None.)
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import operator
import re
import threading
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, TypeVar

from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles import offline_wording as wording
from android_world.env import representation_utils

_BOX_FIELDS = ("bbox", "bbox_pixels")
_SCALAR_FIELDS = tuple(
    f.name
    for f in dataclasses.fields(representation_utils.UIElement)
    if f.name not in (*_BOX_FIELDS, "metadata")
)
_scalars = operator.attrgetter(*_SCALAR_FIELDS)
MEMO_SIZE = 512  # distinct screens; an episode shows at most ~60


def _box_key(box: representation_utils.BoundingBox | None) -> tuple | None:
    return None if box is None else (box.x_min, box.x_max, box.y_min, box.y_max)


def _element_key(element: representation_utils.UIElement) -> tuple:
    metadata = element.metadata
    return (
        _scalars(element),
        _box_key(element.bbox),
        _box_key(element.bbox_pixels),
        repr(sorted(metadata.items(), key=repr)) if metadata else metadata,
    )


class ScreenKey:
    """A screen's key (`screen_key`): its value, hashed once; equal keys are equal values.

    The memo's keys hold one of these, so a lookup hashes a few words instead of every element
    of the screen; keys of equal screens are one object while both are held (`_SEEN`), so a hit
    compares by identity, and two objects for equal values still compare equal (by value)."""

    __slots__ = ("_hash", "value")

    def __init__(self, value: tuple):
        self.value = value
        self._hash = hash(value)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, ScreenKey):
            return NotImplemented
        return self._hash == other._hash and self.value == other.value

    def __repr__(self) -> str:
        return f"ScreenKey({self.value!r})"


def _key_value(observation: Observation) -> tuple:
    return (
        tuple(observation.screen_size),
        tuple(_element_key(e) for e in observation.ui_elements),
        tuple(line.text for line in observation.ocr_lines),
    )


class _Seen:
    """Keys by value, the most recent `MEMO_SIZE` (so equal screens share one key object), and
    within one whole-goal check (`holding_keys`) each screen's key by the screen object: the
    check reads its screens many times and changes none, so the key is made once a check."""

    def __init__(self, size: int = MEMO_SIZE):
        self.size = size
        self._keys: collections.OrderedDict[tuple, ScreenKey] = collections.OrderedDict()
        self._lock = threading.Lock()
        self._held = threading.local()

    def key(self, observation: Observation) -> ScreenKey:
        held = getattr(self._held, "keys", None)
        if held is not None:
            entry = held.get(id(observation))
            if entry is not None and entry[0] is observation:
                return entry[1]
        value = _key_value(observation)
        with self._lock:
            key = self._keys.get(value)
            if key is None:
                key = self._keys[value] = ScreenKey(value)
                while len(self._keys) > self.size:
                    self._keys.popitem(last=False)
            else:
                self._keys.move_to_end(value)
        if held is not None:
            held[id(observation)] = (observation, key)  # the screen kept: its id stays its own
        return key

    def holding(self) -> bool:
        return getattr(self._held, "keys", None) is not None

    def hold(self) -> None:
        self._held.keys = {}

    def release(self) -> None:
        self._held.keys = None

    def clear(self) -> None:
        with self._lock:
            self._keys.clear()


_SEEN = _Seen()


def screen_key(observation: Observation) -> ScreenKey:
    """Everything of a screen the readers below look at (pixels, summaries and the frame hash
    are not read, so they are not in it)."""
    return _SEEN.key(observation)


_Check = TypeVar("_Check", bound=Callable[..., Any])


def holding_keys(check: _Check) -> _Check:
    """For a whole-goal check (a call that reads screens and changes none): while it runs, each
    screen's key is made once, not once per reading. Nested calls share the outer one's."""

    @functools.wraps(check)
    def held(*args: Any, **kwargs: Any) -> Any:
        if _SEEN.holding():
            return check(*args, **kwargs)
        _SEEN.hold()
        try:
            return check(*args, **kwargs)
        finally:
            _SEEN.release()

    return held  # type: ignore[return-value]


class ScreenMemo:
    """Pure readings of screens, least recently used dropped first, with hit counts."""

    def __init__(self, size: int = MEMO_SIZE):
        self.size = size
        self.hits = 0
        self.misses = 0
        self._items: collections.OrderedDict[Hashable, tuple] = collections.OrderedDict()
        self._lock = threading.Lock()  # agents of a threaded run share the module

    def get(self, key: Hashable, compute: Callable[[], Iterable]) -> tuple:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return value
            self.misses += 1
        value = tuple(compute())
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.hits = self.misses = 0
        _SEEN.clear()


MEMO = ScreenMemo()


def _read_texts(observation: Observation, editable: bool | None) -> list[str]:
    out: list[str] = []
    for i in screen.content_indices(observation):
        element = observation.ui_elements[i]
        if editable is not None and screen.is_field(element) != editable:
            continue
        values = [screen.field_text(element)] if screen.is_field(element) else []
        values += [] if screen.is_field(element) else [element.text or ""]
        values.append(element.content_description or "")
        out += [v for v in values if v and v.strip()]
    if editable is not True:
        out += [line.text for line in observation.ocr_lines if line.text.strip()]
    return out


def texts(
    observation: Observation, *, editable: bool | None = None, key: ScreenKey | None = None
) -> list[str]:
    """Texts a person can read on the screen (element texts and descriptions, OCR lines);
    `editable` narrows to what sits in text fields (True) or outside them (False). `key` is
    the screen's `screen_key` when the caller has it already."""
    key = screen_key(observation) if key is None else key
    return list(MEMO.get(("texts", editable, key), lambda: _read_texts(observation, editable)))


def form_fields(observation: Observation, *, key: ScreenKey | None = None) -> list[int]:
    """`offline_screen.form_fields`, memoised (it reads every field's row label)."""
    key = screen_key(observation) if key is None else key
    return list(MEMO.get(("form", key), lambda: screen.form_fields(observation)))


def held_texts(observation: Observation) -> list[str]:
    """The words the form's fields hold (an empty field, or one showing only its hint, none)."""
    fields = form_fields(observation)
    return [h for i in fields if (h := screen.field_text(observation.ui_elements[i]))]


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,5}$")


def value_shown(value: str, shown: Sequence[str]) -> bool:
    """A goal value among shown texts: phone numbers by their digits, amounts by their number,
    anything else as words (case, spacing and punctuation at the ends ignored)."""
    want = text_lib.normalize(value)
    if not want:
        return True
    # "Downloads" in a goal is the folder a file manager shows as "Download".
    wants = (
        [want, want[:-1]] if " " not in want and len(want) > 4 and want.endswith("s") else [want]
    )
    # A player or gallery titles "clip_7.mp4" as "clip_7"; "clip_7.mp3" is another file.
    stem = text_lib.normalize(_EXTENSION.sub("", value.strip()))
    bare = re.compile(re.escape(stem) + r"(?!\.\w)") if stem != want and len(stem) >= 4 else None
    digits = _digits(value)
    phone = len(digits) >= 7 and re.fullmatch(r"[\d\s().+-]+", value.strip()) is not None
    money = wording.money_values(value)
    for text in shown:
        if phone and len(_digits(text)) >= 7 and _digits(text)[-10:] == digits[-10:]:
            return True
        if money and _same_amount(money[0], text):
            return True
        normalized = text_lib.normalize(text)
        if any(w in normalized for w in wants) or (bare and bare.search(normalized)):
            return True
    return False


def item_shown(item: str, shown: Sequence[str]) -> bool:
    """An item of a list (a file, a recipe, an expense) shown as a whole entry: its text is
    the item's name, with or without a file extension ("notes" is not "notes_edited.md")."""
    want = text_lib.normalize(_EXTENSION.sub("", item.strip()))
    return bool(want) and any(
        text_lib.normalize(_EXTENSION.sub("", t.strip())) == want for t in shown
    )


def _same_amount(value: str, text: str) -> bool:
    want = screen.money(value)
    return want is not None and any(
        screen.money(m) == want for m in re.findall(r"\$?\d[\d,]*(?:\.\d+)?", text)
    )
