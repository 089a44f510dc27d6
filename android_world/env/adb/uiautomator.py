"""uiautomator dumps: upstream's uiautomator element rule, over the reader in representation_utils.

Upstream's UIAUTOMATOR path makes every `<node>` an element (the `<hierarchy>` root is not one),
with `bbox_pixels` from `bounds="[x1,y1][x2,y2]"`. We keep that rule rather than the forest rule
(leaves, described, scrollable), because uiautomator already drops invisible nodes and agents tuned
on upstream's uiautomator path expect the containers too. Reading a dump into nodes lives in
`representation_utils` (upstream's XML reader is there too), so that contract module needs nothing
of this backend; the reader's names are re-exported here for the adb code.
"""

from __future__ import annotations

from collections.abc import Sequence

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
