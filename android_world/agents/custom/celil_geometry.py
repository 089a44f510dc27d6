"""Pure geometry helpers shared by the executor (coordinate snapping) and the Conductor loop.

Clicking by element index is the most reliable action in AndroidWorld (the env resolves the index
against a fresh element list), so a model's coordinate is turned into an index whenever an
actionable element contains it. Kept free of model and env code so both roles can use it.
"""

from __future__ import annotations

from collections.abc import Sequence

from android_world.env import representation_utils


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


def is_actionable(element: representation_utils.UIElement) -> bool:
    """Elements a tap can meaningfully target.

    Scrollable-only containers are excluded: snapping a tap on a non-clickable row to its list
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


def snap_to_element(
    x: float,
    y: float,
    elements: Sequence[representation_utils.UIElement],
    screen_size: tuple[int, int] | None = None,
) -> int | None:
    """Index of the smallest actionable element containing (x, y), or None."""
    best_index: int | None = None
    best_area: float | None = None
    for index, element in enumerate(elements):
        if not is_actionable(element):
            continue
        box = element_box(element, screen_size)
        if box is None or box.area <= 0 or not box.contains(x, y):
            continue
        if best_area is None or box.area < best_area:
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
