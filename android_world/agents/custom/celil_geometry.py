"""Pure geometry helpers shared by the executor (coordinate snapping), the verifiers and the loop.

Clicking by element index is the most reliable action in AndroidWorld (the env resolves the index
against a fresh element list), so a model's coordinate is turned into an index whenever an element
that reacts to the gesture contains it. There is exactly one snapping rule in Celil, here, so the
executor, the verifiers and the Conductor never disagree about what a point targets. Kept free of
model and env code so every role can use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from android_world.env import representation_utils

Gesture = Literal["tap", "scroll"]
TAP: Gesture = "tap"
SCROLL: Gesture = "scroll"
GESTURES: tuple[str, ...] = (TAP, SCROLL)


# Widgets whose effect depends on the touch point: a tap moved to their centre sets another value.
_POSITION_SENSITIVE = ("seekbar", "slider", "ratingbar", "progressbar", "numberpicker")


def is_position_sensitive(element: object) -> bool:
    """Sliders, seek bars, rating bars, number pickers: a tap snapped to their centre sets the
    middle value, whatever the model aimed at, so their points are never snapped."""
    names = " ".join(
        str(getattr(element, field, "") or "").lower().replace("_", "").replace(".", " ")
        for field in ("class_name", "resource_name")
    )
    return any(word in names for word in _POSITION_SENSITIVE)


class _TextBox(Protocol):
    text: str
    box: representation_utils.BoundingBox


def element_box(
    element: representation_utils.UIElement, screen_size: tuple[int, int] | None = None
) -> representation_utils.BoundingBox | None:
    """The element's box in pixels: live states fill `bbox_pixels`, offline data only `bbox`."""
    if element.bbox_pixels is not None:
        return element.bbox_pixels
    if element.bbox is not None and screen_size is not None:
        width, height = screen_size
        box = element.bbox
        return representation_utils.BoundingBox(
            box.x_min * width, box.x_max * width, box.y_min * height, box.y_max * height
        )
    return None


def box_contains(box: representation_utils.BoundingBox, x: float, y: float) -> bool:
    """Whether (x, y) lies in the box, half-open like pixel ranges (the right and bottom edges
    belong to the neighbour), so two adjacent elements never both claim a point.

    Upstream's `BoundingBox` has no `contains`; the plugin must run on upstream's classes.
    """
    return box.x_min <= x < box.x_max and box.y_min <= y < box.y_max


def box_list(box: representation_utils.BoundingBox | None) -> list[float] | None:
    """`[x0, y0, x1, y1]`, the JSON shape step data and the report use for boxes."""
    if box is None:
        return None
    return [round(float(v), 1) for v in (box.x_min, box.y_min, box.x_max, box.y_max)]


def is_actionable(element: representation_utils.UIElement) -> bool:
    """Elements a tap can meaningfully target (enabled, visible, and reacting to a touch).

    Scroll-only containers are excluded: snapping a tap on a non-clickable row to its list
    would move the tap to the list's centre, which is worse than keeping the raw point.
    """
    if element.is_enabled is False or element.is_visible is False:
        return False
    return bool(
        element.is_clickable
        or element.is_long_clickable
        or element.is_editable
        or element.is_checkable
    )


def accepts(element: representation_utils.UIElement, gesture: Gesture) -> bool:
    """Whether the element reacts to `gesture`: taps need a touch target, scrolls a scrollable."""
    if gesture == SCROLL:
        return (
            element.is_enabled is not False
            and element.is_visible is not False
            and bool(element.is_scrollable)
        )
    return is_actionable(element)


def snap_to_element(
    x: float,
    y: float,
    elements: Sequence[representation_utils.UIElement],
    screen_size: tuple[int, int] | None = None,
    *,
    gesture: Gesture = TAP,
) -> int | None:
    """Index of the smallest element accepting `gesture` that contains (x, y), or None.

    Smallest wins because nested elements get more specific (a row's switch over the row); on a
    tie the later element, which is deeper in the tree, wins.
    """
    if gesture not in GESTURES:
        raise ValueError(f"unknown gesture {gesture!r}; use one of {GESTURES}")
    best_index: int | None = None
    best_area = 0.0
    for index, element in enumerate(elements):
        if not accepts(element, gesture):
            continue
        box = element_box(element, screen_size)
        if box is None or box.area <= 0 or not box_contains(box, x, y):
            continue
        if best_index is None or box.area <= best_area:
            best_index, best_area = index, float(box.area)
    return best_index


def element_label(element: representation_utils.UIElement) -> str:
    """The text a person would use to name the element (text, description, hint, resource)."""
    for value in (element.text, element.content_description, element.hint_text, element.tooltip):
        if value and value.strip():
            return " ".join(value.split())
    if element.resource_name:
        return element.resource_name.rsplit("/", 1)[-1]
    return ""


def short_class_name(element: representation_utils.UIElement) -> str:
    """`android.widget.Button` -> `Button`; prompts do not need the package."""
    name = element.class_name or "View"
    return name.rsplit(".", 1)[-1] or "View"


def ocr_text_at(x: float, y: float, lines: Sequence[_TextBox]) -> str:
    """The OCR text under a point (every line whose box contains it), whitespace folded."""
    return " ".join(
        " ".join(line.text.split())
        for line in lines
        if box_contains(line.box, x, y) and line.text.strip()
    )
