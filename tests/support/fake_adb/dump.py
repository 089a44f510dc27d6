"""uiautomator dumps written as a device prints them, for the fake adb's `uiautomator dump`.

The reader (`representation_utils.parse_dump`) is product code; this writer only serves the fake
device and the round-trip tests, so it lives with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import quoteattr

from android_world.env.representation_utils import AccessibilityNode


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
