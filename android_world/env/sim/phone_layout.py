"""How the phone lays out a frame: the app's window, a dialog or menu over it, and the room the
keyboard takes (adjustResize, then adjustPan for a field the resize hides), as Android does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from android_world.env import device
from android_world.env.sim import layout, variation
from android_world.env.sim import widgets as w
from android_world.env.sim.phone_frame import IME_PACKAGE, SYSTEMUI, Frame, Window, flatten
from android_world.env.sim.widgets import Node

if TYPE_CHECKING:
    from android_world.env.sim.app import Screen


class WindowLayout:
    """The frame-building half of `Phone` (a mixin: it reads the phone's geometry, profile,
    foreground screen and system bars, which `Phone` and `SystemUi` provide)."""

    def frame(self) -> Frame:
        key = (self.version, self.device.version)
        if self._frame is None or self._frame_key != key:
            self.clock_read = False
            self._frame = self._build_frame()
            self._frame_key = (self.version, self.device.version)
            self._frame_reads_clock = self.clock_read
        return self._frame

    def keep_frame_over(self, settled: tuple[int, int]) -> None:
        """Time passed (`Phone.pass_time`) and changed nothing but the phone's version: the frame
        built at `settled` stays the frame when building it read no clock (the Clock app's
        ticks, `uptime_ms`), so the next look need not lay the same screen out again."""
        if (
            self._frame is not None
            and self._frame_key == settled
            and not self._frame_reads_clock
            and self.device.version == settled[1]
        ):
            self._frame_key = (self.version, self.device.version)

    def shifted_frame(self, shift: int) -> Frame:
        """The current screen with its content `shift` design pixels lower: a frame of the
        screen sliding into place. Observation only: focus and scroll offsets are left as the
        settled frame has them."""
        self.frame()  # settle focus first
        screen = self.current_screen()
        focus = screen.focus
        try:
            return self._build_frame(shift)
        finally:
            screen.focus = focus

    def _build_frame(self, shift: int = 0) -> Frame:
        screen = self.current_screen()
        package = self.foreground or device.HOME_PACKAGE
        windows = [Window(self._status_bar(), SYSTEMUI)]
        content, focused = self._layout_content(screen, shift)
        overlay_node = None
        if screen.overlay is not None:
            overlay_node, focused = self._layout_overlay(screen)
            windows.append(Window(content, package, in_tree=False))
            windows.append(Window(overlay_node, package, dim_below=screen.overlay_kind == "dialog"))
        else:
            windows.append(Window(content, package))
        if focused is not None:
            windows.append(Window(self._keyboard(), IME_PACKAGE))
        windows.append(Window(self._nav_bar(), SYSTEMUI))
        if self._toast:
            windows.append(Window(self._toast_node(self._toast), SYSTEMUI))
        return flatten(windows, focused, overlay_node, self.profile.screen.scale)

    def _layout_content(self, screen: Screen, shift: int = 0) -> tuple[Node, Node | None]:
        """Lay out the screen; with a focused field the keyboard takes the bottom (adjustResize).

        A field the resized layout hides (fixed-height content on a short screen) keeps its
        focus: the window pans up until the field sits above the keyboard (adjustPan), as
        Android does, instead of dropping the focus. `shift` moves the content down (a screen
        sliding in while it settles).
        """
        in_content = screen.overlay is None
        for _ in range(2):
            bottom = self.content_bottom - (self.ime_h if screen.focus and in_content else 0)
            visible = (0, self.content_top, self.width, bottom)
            root_box = self._content_box(screen, visible, shift)
            if not in_content:
                return root_box, None
            focused = self._find_focus(root_box, screen)
            if focused is None and not shift and self._scroll_to_focus(screen, root_box):
                root_box = self._content_box(screen, visible, shift)
                focused = self._find_focus(root_box, screen)
            if screen.focus is None or focused is not None:
                if not shift:  # a sliding frame is only looked at
                    self._shown_focus = (screen, screen.focus) if focused is not None else None
                return root_box, focused
            pan = self._pan_for_focus(screen, bottom)
            if pan:  # the window keeps its full height and moves up
                full_h = self.content_bottom - self.content_top
                root_box = self._content_box(screen, visible, shift - pan, full_h)
                focused = self._find_focus(root_box, screen)
                if focused is not None:
                    return root_box, focused
            screen.focus = None  # the focused field is gone: hide the keyboard and relayout
        return root_box, None

    def _content_box(
        self, screen: Screen, visible: layout.Rect, shift: int = 0, height: int | None = None
    ) -> Node:
        """The app's window shown through `visible`: laid out `height` tall (default: as tall
        as `visible`) and moved down by `shift` (up if < 0)."""
        root = self._scrollable(self._vendor(screen.build()))
        root_box = Node(
            kind="screen", cls="android.widget.FrameLayout", children=[root], res_id="content"
        )
        root.flex = root.flex or 1.0
        if not shift:
            layout.layout(root_box, visible, visible, screen.scroll_offsets)
            return root_box
        top = self.content_top + shift
        layout.layout(
            root_box,
            (0, top, self.width, top + (height or visible[3] - visible[1])),
            visible,
            dict(screen.scroll_offsets),  # a moved window never changes where lists stand
        )
        root_box.frame = root_box.bounds = root_box.clip = visible  # the window stays put
        return root_box

    def _scrollable(self, root: Node) -> Node:
        """A screen taller than the window (fixed-size widgets on a short or landscape screen)
        scrolls as a whole, as an app's ScrollView would; one that fits is left as it is."""
        if layout.min_h(root) <= self.content_bottom - self.content_top:
            return root
        root.flex = 0.0
        return _scroll_view("content_scroll", [root])

    def _vendor(self, root: Node) -> Node:
        if self.profile.vendor:
            return variation.relabel(root, self.foreground or device.HOME_PACKAGE)
        return root

    def _scroll_to_focus(self, screen: Screen, root_box: Node) -> bool:
        """A field that just took the focus but that the keyboard's resize hides scrolls into
        the list around it (a ScrollView's `requestChildFocus`), rather than the window panning
        over a list that could have moved. Only for a new focus: a field the user then scrolls
        away keeps Android's later behaviour here (the pan, or the focus goes)."""
        if screen.focus is None:  # no field to bring into view (and no screen to build again)
            return False
        seen = self._shown_focus
        if seen is not None and seen[0] is screen and seen[1] == screen.focus:
            return False
        tree = self._scrollable(self._vendor(screen.build()))
        lists = [
            n
            for n in tree.walk()
            if n.kind == "scroll" and any(c.ident == screen.focus for c in n.walk())
        ]
        laid = {n.ident: n for n in root_box.walk() if n.kind == "scroll"}
        if not lists or lists[-1].ident not in laid:  # walk order: the innermost list is last
            return False
        scroll, shown = lists[-1], laid[lists[-1].ident]
        left, top, right, bottom = shown.frame
        viewport = layout.intersect(
            (left + shown.pad[0], top + shown.pad[1], right - shown.pad[2], bottom - shown.pad[3]),
            shown.clip,
        )
        if layout.is_empty(viewport):
            return False
        now = screen.scroll_offsets.get(scroll.ident, 0)
        wanted = layout.offset_showing(
            scroll, screen.focus or "", viewport, now, screen.scroll_offsets
        )
        if wanted == now:
            return False
        screen.scroll_offsets[scroll.ident] = wanted
        return True

    def _pan_for_focus(self, screen: Screen, bottom: int) -> int:
        """How far to pan the window up so the focused field clears the keyboard (0: cannot)."""
        full = (0, self.content_top, self.width, self.content_bottom)
        offsets = dict(screen.scroll_offsets)
        root_box = self._content_box(screen, full)
        screen.scroll_offsets = offsets  # a measurement: the full window must not clamp lists
        field = next((n for n in root_box.walk() if n.editable and n.ident == screen.focus), None)
        if field is None or layout.is_empty(field.bounds):
            return 0
        wanted = field.frame[3] + 24 - bottom
        return max(0, min(wanted, field.frame[1] - self.content_top))

    def _layout_overlay(self, screen: Screen) -> tuple[Node, Node | None]:
        """Dialogs may hold text fields: then the keyboard shows and the dialog moves above it
        (and, where the space above it is too short, pans up to the focused field)."""
        assert screen.overlay is not None
        for _ in range(2):
            node = self._vendor(screen.overlay())
            bottom = self.content_bottom - (self.ime_h if screen.focus else 0)
            self._place_overlay(screen, node, bottom)
            focused = self._find_focus(node, screen)
            if screen.focus is None or (focused is not None and not _cut(focused)):
                return node, focused
            field = next((n for n in node.walk() if n.editable and n.ident == screen.focus), None)
            if field is not None and field.frame[3] > bottom:
                panned = self._pan_overlay(screen, node, field, bottom)
                if panned is not None:
                    return panned
            if focused is not None:  # cut, but nothing better: as it was
                self._place_overlay(screen, placed := self._vendor(screen.overlay()), bottom)
                return placed, self._find_focus(placed, screen)
            screen.focus = None
        return node, None

    def _pan_overlay(
        self, screen: Screen, node: Node, field: Node, bottom: int
    ) -> tuple[Node, Node] | None:
        """The dialog at its full height, moved up until the focused field clears the keyboard
        (adjustPan): a field the keyboard cuts is never left a sliver, so it keeps its focus."""
        top = node.frame[1] - (field.frame[3] + 24 - bottom)
        height = max(node.frame[3] - node.frame[1], layout.natural_h(node))
        area = (0, self.content_top, self.width, bottom)
        rect = (node.frame[0], top, node.frame[2], top + height)
        node = self._vendor(screen.overlay())
        layout.layout(node, rect, area, screen.scroll_offsets)
        focused = self._find_focus(node, screen)
        return (node, focused) if focused is not None and not _cut(focused) else None

    @staticmethod
    def _find_focus(root: Node, screen: Screen) -> Node | None:
        if not screen.focus:
            return None
        for node in root.walk():
            if node.editable and node.ident == screen.focus and node.bounds[2] > node.bounds[0]:
                node.focused = True
                return node
        return None

    def _place_overlay(self, screen: Screen, node: Node, bottom: int | None = None) -> None:
        bottom = self.content_bottom if bottom is None else bottom
        area = (0, self.content_top, self.width, bottom)
        if not screen.focus:
            _fit_overlay(node, area[3] - area[1] - 60)
        if screen.overlay_kind == "menu":
            width = node.w or 620
            height = min(layout.natural_h(node), area[3] - area[1] - 48)
            top = self.content_top + 24
            rect = (self.width - width - 24, top, self.width - 24, top + height)
        else:
            width = min(node.w or 940, self.width - 96)  # margins on a narrow screen
            height = node.h or layout.natural_h(node)
            height = min(height, area[3] - area[1] - 60)
            top = area[1] + (area[3] - area[1] - height) // 2
            rect = ((self.width - width) // 2, top, (self.width + width) // 2, top + height)
        layout.layout(node, rect, area, screen.scroll_offsets)


def _cut(node: Node) -> bool:
    """Shown only in part (a list edge, a dialog's edge or the keyboard cuts it)."""
    return node.bounds[3] - node.bounds[1] < node.frame[3] - node.frame[1]


def _scroll_view(key: str, children: list[Node], gap: int = 0) -> Node:
    """A ScrollView around content that does not fit: unlike a list, it keeps the views it
    scrolls out of sight (in the tree, with no visible bounds), as Android's ScrollView does."""
    node = w.scroll_list(key, *children, gap=gap)
    node.cls = "android.widget.ScrollView"
    node.style["keep_all"] = True
    return node


def _fit_overlay(node: Node, height: int) -> None:
    """A dialog or menu taller than the window scrolls: a dialog's title and body scroll above
    its buttons, as an AlertDialog's do; a menu's items scroll. One that fits is untouched."""
    if layout.natural_h(node) <= height or not node.children:
        return
    lists = [c for c in node.children if c.kind == "scroll" and c.h is not None]
    if lists:  # a list sized for a tall screen takes what the window has left
        for child in lists:
            child.h, child.flex = None, 1.0
        node.h = height
        return
    children = node.children
    buttons = children[-1] if any(c.kind == "button" for c in children[-1].children) else None
    body = children[:-1] if buttons is not None and node.kind == "dialog" else children
    if not body:
        return
    scroll = _scroll_view(f"{node.kind}_scroll", body, gap=node.gap)
    node.children = [scroll, buttons] if body is not children else [scroll]
    node.h = height
