"""The simulated phone's runtime: windows, focus, keyboard, touch dispatch and navigation.

Every observation is built fresh from the apps' state: status bar, the foreground screen (or
its dialog/menu), the keyboard while a text field is focused, and the navigation bar. Touches are
hit-tested against that same frame, top-most and deepest first, as Android dispatches them.
"""

from __future__ import annotations

import dataclasses
import functools
import random

from android_world.env import device, representation_utils, sim_profile
from android_world.env.sim import apps as app_modules
from android_world.env.sim import layout, variation
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen, generic_app
from android_world.env.sim.controller import SimController
from android_world.env.sim.widgets import Node

WIDTH, HEIGHT = device.SCREEN_WIDTH, device.SCREEN_HEIGHT
STATUS_H = 110
NAV_H = 132
IME_H = 800
CONTENT_TOP = STATUS_H
CONTENT_BOTTOM = HEIGHT - NAV_H

SYSTEMUI = "com.android.systemui"
IME_PACKAGE = "com.google.android.inputmethod.latin"
# How long one agent step takes on a phone (reading the screen, deciding, acting): the clock of
# what runs on its own while the agent works (a playing video, a recording). Device time, which
# tasks read, stays frozen.
STEP_MS = 5000


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


def _interactive(node: Node) -> bool:
    return node.clickable or node.long_clickable or node.editable or node.kind == "seekbar"


def _contains(rect: tuple[int, int, int, int], x: float, y: float) -> bool:
    return rect[0] <= x < rect[2] and rect[1] <= y < rect[3]


class Phone:
    """Owns the apps and what is on screen; `SimEnv` drives it, the controller queries it."""

    def __init__(
        self,
        controller: SimController,
        seed: int = 0,
        profile: sim_profile.SimProfile | None = None,
    ):
        self.device = controller
        self.rng = random.Random(seed)
        self.profile = profile or sim_profile.SimProfile()
        screen = self.profile.screen
        # Geometry in design pixels (see env/sim_profile.py); the default screen is exactly today's.
        # `width` is the app window's: a landscape phone keeps its navigation bar on the side.
        self.screen_width, self.height = screen.design_size
        self.nav_side = screen.landscape
        self.width = self.screen_width - (NAV_H if self.nav_side else 0)
        self.ime_h = screen.ime_h
        self.status_h = screen.status_h
        self.content_top = self.status_h
        self.content_bottom = self.height - (0 if self.nav_side else NAV_H)
        self.first_launch = variation.FirstLaunch(self.profile.dialogs)
        self._shown_focus: tuple[Screen, str | None] | None = None  # see `_scroll_to_focus`
        controller.phone = self
        self.apps: dict[str, App] = {}
        registry = app_modules.discover()
        for info in device.APPS:
            cls = registry.get(info.package) or generic_app(info)
            self.apps[info.package] = cls(self)
        from android_world.env.sim.launcher import HomeScreen

        self.home_screen = HomeScreen(self)
        self.foreground: str | None = None
        self.shift = False
        self.symbols = False
        self._toast: str | None = None
        self._frame: Frame | None = None
        self._frame_key: tuple[int, int] | None = None
        self.version = 0
        self.uptime_ms = 0  # advanced by `pass_time`, never by observing
        for app in self.apps.values():
            app.install()

    # state ---------------------------------------------------------------------------------
    def changed(self) -> None:
        self.version += 1

    def pass_time(self, ms: int) -> None:
        """Time goes by (an agent's step): running apps see it (`App.time_passed`)."""
        self.uptime_ms += ms
        for app in self.apps.values():
            if app.running:
                app.time_passed()
        self.changed()

    @property
    def current_app(self) -> App | None:
        return self.apps[self.foreground] if self.foreground else None

    def current_screen(self) -> Screen:
        app = self.current_app
        return app.top if app else self.home_screen

    def foreground_activity(self) -> str:
        app = self.current_app
        return app.activity() if app else device.HOME_ACTIVITY

    def toast(self, text: str) -> None:
        self._toast = text
        self.changed()

    # navigation ----------------------------------------------------------------------------
    def launch(self, name_or_package: str, opening: str | None = None) -> None:
        """Bring an app to the front; `opening`: a file it is asked to show (a file manager's
        "Open with"), shown before any first-launch pop-up comes over it."""
        info = device.find_app(name_or_package)
        if info is None:
            known = ", ".join(app.label for app in device.APPS)
            raise ValueError(f"Unknown app {name_or_package!r}; known apps: {known}.")
        app = self.apps[info.package]
        self._toast = None
        if not app.running:
            app.start()
            if opening is not None:
                app.open_file(opening)
            self.first_launch.on_start(app)
        elif opening is not None:
            app.open_file(opening)
        self.current_screen().focus = None
        self.foreground = info.package
        self.changed()

    def apps_opening(self, path: str) -> list[App]:
        """The apps that offer to open a file of this type, in the launcher's order."""
        suffix = path.rsplit("/", 1)[-1].rpartition(".")[2].lower()
        return [app for app in self.apps.values() if suffix and f".{suffix}" in app.opens]

    def go_home(self) -> None:
        self._toast = None
        if self.foreground and self.apps[self.foreground].running:
            self.apps[self.foreground].top.focus = None
        self.foreground = None
        self.home_screen.scroll_offsets.clear()
        self.changed()

    def close_all(self) -> None:
        for app in self.apps.values():
            app.stop()
        self.foreground = None
        self.home_screen = type(self.home_screen)(self)
        self.first_launch.reset()
        self._toast = None
        self.shift = self.symbols = False
        self.changed()

    def back(self) -> None:
        self._toast = None
        screen = self.current_screen()
        if screen.focus is not None:  # Back first hides the keyboard, even over a dialog
            screen.focus = None
        elif screen.overlay is not None:
            screen.dismiss()
        elif self.current_app is None:
            pass
        elif not screen.on_back():
            self.current_app.pop()
        self.changed()

    # frame ---------------------------------------------------------------------------------
    def frame(self) -> Frame:
        key = (self.version, self.device.version)
        if self._frame is None or self._frame_key != key:
            self._frame = self._build_frame()
            self._frame_key = (self.version, self.device.version)
        return self._frame

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
        return _flatten(windows, focused, overlay_node, self.profile.screen.scale)

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

    def _status_bar(self) -> Node:
        now = self.device.device_time()
        icons: list[Node] = []
        if self.device.get_setting("global", "bluetooth_on") == "1":
            icons.append(self._status_icon("Bluetooth on.", "bluetooth"))
        if self.device.get_setting("global", "wifi_on") in ("1", "2"):
            icons.append(self._status_icon("Wifi signal full.", "wifi"))
        icons.append(self._status_icon("Phone signal full.", "signal"))
        icons.append(self._status_icon("Battery 100 percent.", "battery"))
        root = w.row(
            w.label(now.strftime("%H:%M"), size=38, res_id="com.android.systemui:id/clock", w=220),
            w.spacer(),
            *icons,
            kind="statusbar",
            cls="android.widget.FrameLayout",
            pad=(48, 0, 36, 0),
            gap=8,
            res_id="com.android.systemui:id/status_bar",
        )
        bar = (0, 0, self.screen_width, self.status_h)
        layout.layout(root, bar, bar, {})
        return root

    @staticmethod
    def _status_icon(desc: str, glyph: str) -> Node:
        return Node(
            kind="icon",
            cls="android.widget.ImageView",
            desc=desc,
            w=64,
            h=64,
            style={"glyph": glyph, "small": True},
        )

    def _nav_bar(self) -> Node:
        def nav(desc: str, glyph: str, handler) -> Node:
            node = w.icon_button(desc, glyph, handler, res_id=f"com.android.systemui:id/{glyph}")
            node.w, node.h = (NAV_H, 200) if self.nav_side else (200, NAV_H)
            return node

        root = (w.column if self.nav_side else w.row)(
            nav("Back", "nav_back", self.back),
            nav("Home", "nav_home", self.go_home),
            nav("Overview", "nav_recent", self.go_home),
            kind="navbar",
            cls="android.widget.FrameLayout",
            align="center",
            gap=120,
            res_id="com.android.systemui:id/navigation_bar_frame",
        )
        rect = (0, self.content_bottom, self.width, self.height)
        if self.nav_side:  # landscape: a column on the right, under the status bar
            rect = (self.width, self.status_h, self.screen_width, self.height)
        layout.layout(root, rect, rect, {})
        return root

    def _toast_node(self, text: str) -> Node:
        node = Node(kind="toast", cls="android.widget.TextView", text=text, style={"size": 38})
        width = min(self.width - 120, 60 + 22 * len(text))
        top = self.content_bottom - 260
        rect = ((self.width - width) // 2, top, (self.width + width) // 2, top + 110)
        layout.layout(node, rect, rect, {})
        return node

    # keyboard ------------------------------------------------------------------------------
    def _keyboard(self) -> Node:
        if self.symbols:
            rows = ["1234567890", "@#$_&-+()/", "*\"':;!?"]
        else:
            rows = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]
            if self.shift:
                rows = [r.upper() for r in rows]

        def key(
            ch: str, desc: str = "", width: int | None = None, handler=None, glyph: str = ""
        ) -> Node:
            return Node(
                kind="key",
                cls="android.widget.FrameLayout" if not ch else "android.widget.TextView",
                text=ch,
                desc=desc,
                w=width,
                clickable=True,
                on_click=handler or (lambda ch=ch: self._key_typed(ch)),
                style={"glyph": glyph},
            )

        row_h = min(150, (self.ime_h - 70 - 4 * 14) // 4)  # shorter keys on a landscape IME
        key_rows = [w.row(*[key(ch) for ch in rows[0]], h=row_h, gap=10)]
        key_rows.append(
            w.row(
                *[key(ch) for ch in rows[1]],
                h=row_h,
                gap=10,
                pad=(50, 0, 50, 0) if not self.symbols else (0, 0, 0, 0),
            )
        )
        third = [key(ch) for ch in rows[2]]
        key_rows.append(
            w.row(
                key("", "Shift", 150, self._toggle_shift, "shift"),
                *third,
                key("", "Delete", 150, self._backspace, "backspace"),
                h=row_h,
                gap=10,
            )
        )
        key_rows.append(
            w.row(
                key("?123" if not self.symbols else "ABC", "Symbols", 180, self._toggle_symbols),
                key(",", "", 100),
                key("", "Space", None, lambda: self._key_typed(" "), "space"),
                key(".", "", 100),
                key("", "Enter", 180, self.press_enter, "enter"),
                h=row_h,
                gap=10,
            )
        )
        root = w.column(
            w.spacer(h=70),
            *key_rows,
            kind="ime",
            cls="android.inputmethodservice.SoftInputWindow",
            pad=(16, 0, 16, 0),
            gap=14,
            res_id="com.google.android.inputmethod.latin:id/keyboard_holder",
        )
        rect = (0, self.content_bottom - self.ime_h, self.width, self.content_bottom)
        layout.layout(root, rect, rect, {})
        return root

    def _toggle_shift(self) -> None:
        self.shift = not self.shift

    def _toggle_symbols(self) -> None:
        self.symbols = not self.symbols

    def _key_typed(self, ch: str) -> None:
        self.type_text(ch)
        self.shift = False

    def _backspace(self) -> None:
        field = self._require_focus()
        field.on_change(field.text[:-1]) if field.on_change else None
        self.changed()

    # input ---------------------------------------------------------------------------------
    def _require_focus(self) -> Node:
        focused = self.frame().focused
        if focused is None:
            raise ValueError(
                "No text field is focused; tap a text field first (or give its index)."
            )
        return focused

    def type_text(self, text: str) -> None:
        """Type into the focused field; a newline presses Enter, as adb's text input does."""
        for i, part in enumerate(text.split("\n")):
            if i:
                self.press_enter()
            if part:
                field = self._require_focus()
                if field.on_change:
                    field.on_change(field.text + part)
                self.changed()

    def clear_text(self) -> None:
        field = self._require_focus()
        if field.on_change:
            field.on_change("")
        self.changed()

    def press_enter(self) -> None:
        frame = self.frame()
        field = frame.focused
        if field is None:
            return
        if field.multiline:
            if field.on_change:
                field.on_change(field.text + "\n")
        elif field.on_enter:
            field.on_enter()
        else:
            screen = self.current_screen()
            fields = [n for n in frame.nodes if n.editable]
            after = fields[fields.index(field) + 1 :] if field in fields else []
            screen.focus = after[0].ident if after else None
        self.changed()

    # touch ---------------------------------------------------------------------------------
    def hit(self, x: float, y: float) -> Node | None:
        """The node a touch at (x, y) lands on: top-most window, deepest interactive node."""
        frame = self.frame()
        for node in reversed(frame.nodes):
            if _interactive(node) and _contains(node.bounds, x, y):
                return node
        return None

    def tap(self, x: float, y: float, long: bool = False) -> None:
        frame = self.frame()
        screen = self.current_screen()
        self._toast = None
        node = self.hit(x, y)
        if frame.overlay is not None and not _contains(frame.overlay.bounds, x, y):
            on_system_window = any(
                win.package in (SYSTEMUI, IME_PACKAGE) and _contains(win.root.bounds, x, y)
                for win in frame.windows
            )
            if not on_system_window:  # a tap on the dimmed area closes the dialog or menu
                if screen.overlay_dismissable:
                    screen.dismiss()
                self.changed()
                return
        if node is None:
            raise ValueError(f"Nothing clickable at ({int(x)}, {int(y)}).")
        if node.kind == "seekbar":
            self._set_seekbar(node, x)
        elif node.kind == "canvas":  # a dab of paint
            if node.on_change:
                node.on_change([(x, y)])
        elif node.editable:
            screen.focus = node.ident
            if long and node.on_long_click:
                node.on_long_click()
            elif long and screen.overlay is None:
                self._text_actions(screen, node)
        elif node.on_tap_at is not None:
            node.on_tap_at(x, y, long)
        elif long and node.long_clickable and node.on_long_click:
            node.on_long_click()
        elif node.clickable and node.on_click:
            node.on_click()
        self.changed()

    def _text_actions(self, screen: Screen, field: Node) -> None:
        """Long-press on a text field: Android's text-selection menu. The sim selects the whole
        text (no cursor model), so Cut and Copy take all of it and Paste appends the clipboard."""
        text, ident, on_change = field.text, field.ident, field.on_change
        clip = self.device.get_clipboard()

        def put(value: str) -> None:
            if on_change:
                on_change(value)
            screen.focus = ident

        def cut() -> None:
            self.device.set_clipboard(text)
            put("")

        def copy() -> None:
            self.device.set_clipboard(text)
            self.toast("Copied")

        items = [("Cut", cut), ("Copy", copy)] if text else []
        if clip:
            items.append(("Paste", lambda: put(text + clip)))
        if items:
            screen.show_menu(items)

    def drag(self, sx: float, sy: float, ex: float, ey: float) -> None:
        """A finger moving from (sx, sy) to (ex, ey): drags a slider or scrolls a list."""
        self._toast = None
        frame = self.frame()
        for node in reversed(frame.nodes):
            if node.on_drag is not None and _contains(node.bounds, sx, sy):
                node.on_drag(sx, sy, ex, ey)  # a web canvas draws, a pager turns
                self.changed()
                return
            if node.kind == "canvas" and _contains(node.bounds, sx, sy):
                if node.on_change:  # a stroke, from where the finger landed to where it left
                    node.on_change([(sx, sy), (ex, ey)])
                self.changed()
                return
            if node.kind == "seekbar" and _contains(node.bounds, sx, sy):
                self._set_seekbar(node, ex)
                self.changed()
                return
        dy = ey - sy
        if abs(dy) < abs(ex - sx):
            return  # no horizontal lists in the sim
        target = next(
            (
                n
                for n in reversed(frame.nodes)
                if n.kind == "scroll" and _contains(n.bounds, sx, sy)
            ),
            None,
        )
        if target is None:
            lists = [n for n in frame.nodes if n.kind == "scroll"]
            if not lists:
                return
            target = max(
                lists, key=lambda n: (n.bounds[2] - n.bounds[0]) * (n.bounds[3] - n.bounds[1])
            )
        offsets = self.current_screen().scroll_offsets
        # Nested scrolling: a list at its end hands the drag to the list around it.
        outer = [
            n
            for n in reversed(frame.nodes)
            if n.kind == "scroll" and n is not target and _encloses(n, target)
        ]
        for node in (target, *outer):
            current = offsets.get(node.ident, 0)
            offsets[node.ident] = max(0, min(layout.max_scroll(node), current - int(dy)))
            if offsets[node.ident] != current:
                break
        self.changed()

    def _set_seekbar(self, node: Node, x: float) -> None:
        left, right = node.frame[0] + 60, node.frame[2] - 60
        fraction = min(1.0, max(0.0, (x - left) / max(1, right - left)))
        if node.on_change:
            node.on_change(node.min_value + fraction * (node.max_value - node.min_value))


def _cut(node: Node) -> bool:
    """Shown only in part (a list edge, a dialog's edge or the keyboard cuts it)."""
    return node.bounds[3] - node.bounds[1] < node.frame[3] - node.frame[1]


def _encloses(outer: Node, inner: Node) -> bool:
    return any(node is inner for node in outer.walk())


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


def _flatten(
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
