"""UI elements as agents see them, with upstream AndroidWorld's field names.

Live states fill `bbox_pixels` and leave the normalised `bbox` empty, exactly as upstream's live
environment does, so agents that rely on either behave the same here.
"""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from typing import Any


@dataclasses.dataclass
class BoundingBox:
    """Axis-aligned box. Field order is x_min, x_max, y_min, y_max, as upstream."""

    x_min: float | int
    x_max: float | int
    y_min: float | int
    y_max: float | int

    @property
    def center(self) -> tuple[float, float]:
        return (self.x_min + self.x_max) / 2.0, (self.y_min + self.y_max) / 2.0

    @property
    def width(self) -> float | int:
        return self.x_max - self.x_min

    @property
    def height(self) -> float | int:
        return self.y_max - self.y_min

    @property
    def area(self) -> float | int:
        return self.width * self.height

    def contains(self, x: float, y: float) -> bool:
        return self.x_min <= x < self.x_max and self.y_min <= y < self.y_max


@dataclasses.dataclass
class UIElement:
    """One actionable or descriptive node of the screen, upstream's fields."""

    text: str | None = None
    content_description: str | None = None
    class_name: str | None = None
    bbox: BoundingBox | None = None
    bbox_pixels: BoundingBox | None = None
    hint_text: str | None = None
    is_checked: bool | None = None
    is_checkable: bool | None = None
    is_clickable: bool | None = None
    is_editable: bool | None = None
    is_enabled: bool | None = None
    is_focused: bool | None = None
    is_focusable: bool | None = None
    is_long_clickable: bool | None = None
    is_scrollable: bool | None = None
    is_selected: bool | None = None
    is_visible: bool | None = None
    package_name: str | None = None
    resource_name: str | None = None
    tooltip: str | None = None
    resource_id: str | None = None
    metadata: dict[str, Any] | None = None


@dataclasses.dataclass
class AccessibilityNode:
    """A node of an accessibility tree, the shape both the sim and uiautomator produce.

    `child_ids` index into the same flat list, as in android_env's forest proto.
    """

    unique_id: int
    bounds_in_screen: BoundingBox
    class_name: str = ""
    text: str = ""
    content_description: str = ""
    hint_text: str = ""
    package_name: str = ""
    view_id_resource_name: str = ""
    child_ids: list[int] = dataclasses.field(default_factory=list)
    is_checkable: bool = False
    is_checked: bool = False
    is_clickable: bool = False
    is_editable: bool = False
    is_enabled: bool = True
    is_focusable: bool = False
    is_focused: bool = False
    is_long_clickable: bool = False
    is_scrollable: bool = False
    is_selected: bool = False
    is_visible_to_user: bool = True
    tooltip_text: str = ""


def node_becomes_element(node: AccessibilityNode) -> bool:
    """Upstream's rule: leaves, described nodes and scrollables become elements."""
    return not node.child_ids or bool(node.content_description) or node.is_scrollable


def accessibility_node_to_ui_element(
    node: AccessibilityNode, screen_size: tuple[int, int] | None = None
) -> UIElement:
    bounds = node.bounds_in_screen
    pixels = BoundingBox(bounds.x_min, bounds.x_max, bounds.y_min, bounds.y_max)
    normalised = None
    if screen_size is not None:
        width, height = screen_size
        normalised = BoundingBox(
            bounds.x_min / width, bounds.x_max / width, bounds.y_min / height, bounds.y_max / height
        )
    return UIElement(
        text=node.text or None,
        content_description=node.content_description or None,
        class_name=node.class_name or None,
        bbox=normalised,
        bbox_pixels=pixels,
        hint_text=node.hint_text or None,
        is_checked=node.is_checked,
        is_checkable=node.is_checkable,
        is_clickable=node.is_clickable,
        is_editable=node.is_editable,
        is_enabled=node.is_enabled,
        is_focused=node.is_focused,
        is_focusable=node.is_focusable,
        is_long_clickable=node.is_long_clickable,
        is_scrollable=node.is_scrollable,
        is_selected=node.is_selected,
        is_visible=node.is_visible_to_user,
        package_name=node.package_name or None,
        resource_name=node.view_id_resource_name or None,
        tooltip=node.tooltip_text or None,
    )


def forest_to_ui_elements(
    forest: Any,
    exclude_invisible_elements: bool = False,
    screen_size: tuple[int, int] | None = None,
) -> list[UIElement]:
    """Upstream's name: the indexed elements of an accessibility forest. Here a forest is the
    node list an env's State carries (windows flattened in tree order)."""
    nodes = list(getattr(forest, "nodes", forest) or [])
    return nodes_to_ui_elements(nodes, exclude_invisible_elements, screen_size)


def xml_dump_to_ui_elements(
    xml_string: str, screen_size: tuple[int, int] | None = None
) -> list[UIElement]:
    """Upstream's name: elements from a `uiautomator dump` XML string."""
    return nodes_to_ui_elements(parse_dump(xml_string), screen_size=screen_size)


def nodes_to_ui_elements(
    nodes: Iterable[AccessibilityNode],
    exclude_invisible_elements: bool = False,
    screen_size: tuple[int, int] | None = None,
) -> list[UIElement]:
    """Flatten nodes (in tree order) into the indexed element list agents act on."""
    elements = []
    for node in nodes:
        if exclude_invisible_elements and not node.is_visible_to_user:
            continue
        if node_becomes_element(node):
            elements.append(accessibility_node_to_ui_element(node, screen_size))
    return elements


# ---------------------------------------------------------------------------------------------
# reading `uiautomator dump` output (upstream reads it here too; env/adb/uiautomator re-exports it)
# Pure and tolerant: several `<hierarchy>` documents in one output (windows dumped separately, or
# a retry's leftovers), the "UI hierchary dumped to" trailer, empty attributes and control
# characters do not break it.

# Failures that go away when the dump is retried (the screen was changing, or the bridge was busy).
TRANSIENT_MARKERS = (
    "null root node returned by uitestautomationbridge",
    "could not get idle state",
    "could not get root node",
)

_HIERARCHY = re.compile(r"<hierarchy\b[^>]*?/>|<hierarchy\b.*?</hierarchy>", re.DOTALL)
_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
# XML 1.0 forbids these; some apps put them in text and uiautomator writes them as they are.
_INVALID_XML_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_CHAR_REF = re.compile(r"&#(x[0-9a-fA-F]+|[0-9]+);")


class UiDumpError(ValueError):
    """The output holds no hierarchy; `transient` says whether retrying may help."""

    def __init__(self, message: str, transient: bool):
        super().__init__(message)
        self.transient = transient


def is_transient_failure(output: str) -> bool:
    lowered = output.lower()
    return any(marker in lowered for marker in TRANSIENT_MARKERS)


def extract_hierarchies(output: str) -> list[str]:
    """The `<hierarchy>` documents in a dump's output, in order."""
    return _HIERARCHY.findall(output)


def parse_bounds(value: str | None) -> BoundingBox:
    """`[x1,y1][x2,y2]` -> BoundingBox(x1, x2, y1, y2); missing or malformed -> a zero box."""
    match = _BOUNDS.search(value or "")
    if not match:
        return BoundingBox(0, 0, 0, 0)
    x1, y1, x2, y2 = (int(g) for g in match.groups())
    return BoundingBox(x1, x2, y1, y2)


def _flag(attrs: dict[str, str], name: str, default: bool = False) -> bool:
    value = attrs.get(name)
    if value is None:
        return default
    return value.strip().lower() == "true"


def _node_from_attrs(unique_id: int, attrs: dict[str, str]) -> AccessibilityNode:
    class_name = attrs.get("class", "")
    editable = attrs.get("editable")
    return AccessibilityNode(
        unique_id=unique_id,
        bounds_in_screen=parse_bounds(attrs.get("bounds")),
        class_name=class_name,
        text=attrs.get("text", ""),
        content_description=attrs.get("content-desc", ""),
        hint_text=attrs.get("hint", ""),
        package_name=attrs.get("package", ""),
        view_id_resource_name=attrs.get("resource-id", ""),
        is_checkable=_flag(attrs, "checkable"),
        is_checked=_flag(attrs, "checked"),
        is_clickable=_flag(attrs, "clickable"),
        # uiautomator has no editable flag on most releases; EditText and its subclasses are.
        is_editable=_flag(attrs, "editable") if editable is not None else "EditText" in class_name,
        is_enabled=_flag(attrs, "enabled", default=True),
        is_focusable=_flag(attrs, "focusable"),
        is_focused=_flag(attrs, "focused"),
        is_long_clickable=_flag(attrs, "long-clickable"),
        is_scrollable=_flag(attrs, "scrollable"),
        is_selected=_flag(attrs, "selected"),
        is_visible_to_user=_flag(attrs, "visible-to-user", default=True),
        tooltip_text=attrs.get("tooltip-text", ""),
    )


def _drop_invalid_ref(match: re.Match[str]) -> str:
    ref = match.group(1)
    code = int(ref[1:], 16) if ref[0] in "xX" else int(ref)
    return match.group(0) if code in (9, 10, 13) or code >= 32 else ""


def _clean(document: str) -> str:
    return _CHAR_REF.sub(_drop_invalid_ref, _INVALID_XML_CHARS.sub("", document))


def parse_dump(output: str) -> list[AccessibilityNode]:
    """Every `<node>` of every hierarchy in the output, pre-order; `child_ids` index this list.

    Raises UiDumpError when there is no hierarchy at all (transient when uiautomator said so).
    """
    documents = extract_hierarchies(output)
    if not documents:
        first = next((ln.strip() for ln in output.splitlines() if ln.strip()), "empty output")
        raise UiDumpError(f"uiautomator dump failed: {first[:200]}", is_transient_failure(output))
    nodes: list[AccessibilityNode] = []
    for document in documents:
        try:
            root = ET.fromstring(_clean(document))
        except ET.ParseError as exc:
            raise UiDumpError(f"uiautomator dump is not valid XML: {exc}", transient=True) from exc
        for child in root:
            _walk(child, nodes)
    return nodes


def _walk(element: ET.Element, nodes: list[AccessibilityNode]) -> int | None:
    if element.tag != "node":
        return None
    node = _node_from_attrs(len(nodes), dict(element.attrib))
    nodes.append(node)
    for child in element:
        child_id = _walk(child, nodes)
        if child_id is not None:
            node.child_ids.append(child_id)
    return node.unique_id
