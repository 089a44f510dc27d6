"""One observation of the simulated phone: the windows drawn and their accessibility view.

Also the screen's fixed geometry and system packages, which every part of the phone shares.
"""

from __future__ import annotations

import dataclasses
import functools

from android_world.env import device, representation_utils
from android_world.env.sim.widgets import Node

WIDTH, HEIGHT = device.SCREEN_WIDTH, device.SCREEN_HEIGHT
STATUS_H = 110
NAV_H = 132
IME_H = 800
CONTENT_TOP = STATUS_H
CONTENT_BOTTOM = HEIGHT - NAV_H

SYSTEMUI = "com.android.systemui"
IME_PACKAGE = "com.google.android.inputmethod.latin"


@dataclasses.dataclass
class Window:
    """One layer of the frame: its root node and the package it belongs to."""

    root: Node
    package: str
    dim_below: bool = False  # dialogs darken what is drawn before them
    in_tree: bool = True  # content under a dialog is drawn but not reachable


class Frame:
    """One observation: the windows drawn, and the accessibility view of the nodes in the tree.

    The accessibility forest and element list are built on first use: typing rebuilds the frame
    after every key but reads only the focused field, so most frames never need them.
    """

    def __init__(
        self,
        windows: list[Window],
        nodes: list[Node],
        packages: list[str],
        focused: Node | None,
        overlay: Node | None,
        scale: float = 1.0,
    ):
        self.scale = scale  # screen pixels per design pixel (see env/sim_profile.py)
        self.windows = windows
        self.nodes = nodes  # the accessibility nodes, tree order, over windows in tree
        self.packages = packages
        self.focused = focused
        self.overlay = overlay

    @functools.cached_property
    def forest(self) -> list[representation_utils.AccessibilityNode]:
        ids = {id(n): i for i, n in enumerate(self.nodes)}
        return [
            _a11y(node, i, [ids[id(c)] for c in node.children if id(c) in ids], package, self.scale)
            for i, (node, package) in enumerate(zip(self.nodes, self.packages, strict=True))
        ]

    @functools.cached_property
    def _element_pairs(self) -> list[tuple[representation_utils.UIElement, Node]]:
        return [
            (representation_utils.accessibility_node_to_ui_element(a11y), node)
            for node, a11y in zip(self.nodes, self.forest, strict=True)
            if representation_utils.node_becomes_element(a11y)
        ]

    @property
    def elements(self) -> list[representation_utils.UIElement]:
        return [element for element, _ in self._element_pairs]

    @property
    def element_nodes(self) -> list[Node]:
        return [node for _, node in self._element_pairs]


def interactive(node: Node) -> bool:
    return node.clickable or node.long_clickable or node.editable or node.kind == "seekbar"


def contains(rect: tuple[int, int, int, int], x: float, y: float) -> bool:
    return rect[0] <= x < rect[2] and rect[1] <= y < rect[3]


def flatten(
    windows: list[Window], focused: Node | None, overlay: Node | None, scale: float = 1.0
) -> Frame:
    nodes: list[Node] = []
    packages: list[str] = []
    for window in windows:
        if not window.in_tree:
            continue
        for node in window.root.walk():
            # Layout filler is no view; a drawing marked `a11y_hidden` (importantForAccessibility
            # "no", or a web page's empty <div>) is seen but not in the tree.
            if node.kind != "space" and not node.style.get("a11y_hidden"):
                nodes.append(node)
                packages.append(window.package)
    return Frame(windows, nodes, packages, focused, overlay, scale)


def _a11y(
    node: Node, uid: int, child_ids: list[int], package: str, scale: float = 1.0
) -> representation_utils.AccessibilityNode:
    left, top, right, bottom = node.bounds
    if scale != 1.0:  # design pixels to screen pixels
        left, top, right, bottom = (round(v * scale) for v in node.bounds)
    return representation_utils.AccessibilityNode(
        unique_id=uid,
        bounds_in_screen=representation_utils.BoundingBox(left, right, top, bottom),
        class_name=node.cls,
        text="•" * len(node.text) if node.style.get("password") else node.text,
        content_description=node.desc,
        hint_text=node.hint,
        package_name=package,
        view_id_resource_name=node.res_id,
        child_ids=child_ids,
        is_checkable=node.checkable,
        is_checked=node.checked,
        is_clickable=node.clickable,
        is_editable=node.editable,
        is_enabled=node.enabled,
        is_focusable=node.focusable,
        is_focused=node.focused,
        is_long_clickable=node.long_clickable,
        is_scrollable=node.scrollable,
        is_selected=node.selected,
        is_visible_to_user=right > left and bottom > top,
    )
