"""uiautomator dumps: parse them into nodes and elements, and write them (for the fake adb).

Upstream's UIAUTOMATOR path makes every `<node>` an element (the `<hierarchy>` root is not one),
with `bbox_pixels` from `bounds="[x1,y1][x2,y2]"`. We keep that rule rather than the forest rule
(leaves, described, scrollable), because uiautomator already drops invisible nodes and agents tuned
on upstream's uiautomator path expect the containers too. Parsing is pure and tolerant: several
`<hierarchy>` documents in one output (windows dumped separately, or a retry's leftovers), the
"UI hierchary dumped to" trailer, empty attributes and control characters do not break it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from xml.sax.saxutils import quoteattr

from android_world.env import representation_utils
from android_world.env.representation_utils import AccessibilityNode, BoundingBox, UIElement

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


def nodes_to_elements(nodes: Sequence[AccessibilityNode]) -> list[UIElement]:
    """Upstream's uiautomator rule: every node is an element, in document order."""
    elements = []
    for node in nodes:
        element = representation_utils.accessibility_node_to_ui_element(node)
        element.resource_id = node.view_id_resource_name or None
        elements.append(element)
    return elements


def dump_to_ui_elements(output: str) -> list[UIElement]:
    return nodes_to_elements(parse_dump(output))


# ---------------------------------------------------------------------------------------------
# writing (what a device would print), used by the fake adb


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _node_xml(
    node: AccessibilityNode,
    by_id: dict[int, AccessibilityNode],
    index: int,
    depth: int,
    out: list[str],
) -> None:
    b = node.bounds_in_screen
    attrs = [
        ("index", str(index)),
        ("text", node.text or ""),
        ("resource-id", node.view_id_resource_name or ""),
        ("class", node.class_name or ""),
        ("package", node.package_name or ""),
        ("content-desc", node.content_description or ""),
        ("checkable", _bool(node.is_checkable)),
        ("checked", _bool(node.is_checked)),
        ("clickable", _bool(node.is_clickable)),
        ("enabled", _bool(node.is_enabled)),
        ("focusable", _bool(node.is_focusable)),
        ("focused", _bool(node.is_focused)),
        ("scrollable", _bool(node.is_scrollable)),
        ("long-clickable", _bool(node.is_long_clickable)),
        ("password", "false"),
        ("selected", _bool(node.is_selected)),
        ("bounds", f"[{int(b.x_min)},{int(b.y_min)}][{int(b.x_max)},{int(b.y_max)}]"),
    ]
    if node.hint_text:
        attrs.insert(6, ("hint", node.hint_text))
    rendered = " ".join(f"{k}={quoteattr(v)}" for k, v in attrs)
    children = [by_id[c] for c in node.child_ids if c in by_id]
    if not children:
        out.append(f"<node {rendered} />")
        return
    out.append(f"<node {rendered}>")
    for i, child in enumerate(children):
        _node_xml(child, by_id, i, depth + 1, out)
    out.append("</node>")


def nodes_to_dump(nodes: Sequence[AccessibilityNode], rotation: int = 0) -> str:
    """A flat node list (child_ids by unique_id) as uiautomator writes it: one line, no newlines."""
    by_id = {n.unique_id: n for n in nodes}
    child_ids = {c for n in nodes for c in n.child_ids}
    roots = [n for n in nodes if n.unique_id not in child_ids]
    out: list[str] = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"]
    out.append(f'<hierarchy rotation="{rotation}">')
    for i, root in enumerate(roots):
        _node_xml(root, by_id, i, 0, out)
    out.append("</hierarchy>")
    return "".join(out)
