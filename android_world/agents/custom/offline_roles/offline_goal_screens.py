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
import operator
import re
import threading
from collections.abc import Callable, Hashable, Iterable, Sequence

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


def screen_key(observation: Observation) -> tuple:
    """Everything of a screen the readers below look at (pixels, summaries and the frame hash
    are not read, so they are not in it)."""
    return (
        tuple(observation.screen_size),
        tuple(_element_key(e) for e in observation.ui_elements),
        tuple(line.text for line in observation.ocr_lines),
    )


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
    observation: Observation, *, editable: bool | None = None, key: tuple | None = None
) -> list[str]:
    """Texts a person can read on the screen (element texts and descriptions, OCR lines);
    `editable` narrows to what sits in text fields (True) or outside them (False). `key` is
    the screen's `screen_key` when the caller has it already."""
    key = screen_key(observation) if key is None else key
    return list(MEMO.get(("texts", editable, key), lambda: _read_texts(observation, editable)))


def form_fields(observation: Observation, *, key: tuple | None = None) -> list[int]:
    """`offline_screen.form_fields`, memoised (it reads every field's row label)."""
    key = screen_key(observation) if key is None else key
    return list(MEMO.get(("form", key), lambda: screen.form_fields(observation)))


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
