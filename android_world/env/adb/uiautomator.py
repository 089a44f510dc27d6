"""uiautomator dumps: upstream's uiautomator element rule, and writing dumps (for the fake adb).

Upstream's UIAUTOMATOR path makes every `<node>` an element (the `<hierarchy>` root is not one),
with `bbox_pixels` from `bounds="[x1,y1][x2,y2]"`. We keep that rule rather than the forest rule
(leaves, described, scrollable), because uiautomator already drops invisible nodes and agents tuned
on upstream's uiautomator path expect the containers too. Reading a dump into nodes lives in
`representation_utils` (upstream's XML reader is there too), so that contract module needs nothing
of this backend; the reader's names are re-exported here for the adb code.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import quoteattr

from android_world.env import representation_utils
from android_world.env.representation_utils import (
    TRANSIENT_MARKERS,
    AccessibilityNode,
    UiDumpError,
    UIElement,
    extract_hierarchies,
    is_transient_failure,
    parse_bounds,
    parse_dump,
)

__all__ = [
    "TRANSIENT_MARKERS",
    "UiDumpError",
    "dump_to_ui_elements",
    "extract_hierarchies",
    "is_transient_failure",
    "nodes_to_dump",
    "nodes_to_elements",
    "parse_bounds",
    "parse_dump",
]


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
