"""The simulated phone's runtime: windows, focus, keyboard, touch dispatch and navigation.

Every observation is built fresh from the apps' state: status bar, the foreground screen (or
its dialog/menu), the keyboard while a text field is focused, and the navigation bar. Touches are
hit-tested against that same frame, top-most and deepest first, as Android dispatches them.

This module holds the phone's state, navigation, text input and touch dispatch; the frame it shows
is built by `phone_layout` (windows) and `phone_system_ui` (bars and keyboard) and described by
`phone_frame`.
"""

from __future__ import annotations

import random

from android_world.env import device, sim_profile
from android_world.env.sim import apps as app_modules
from android_world.env.sim import layout, variation
from android_world.env.sim.app import App, Screen, generic_app
from android_world.env.sim.controller import SimController
from android_world.env.sim.phone_frame import (
    CONTENT_BOTTOM,
    CONTENT_TOP,
    HEIGHT,
    IME_H,
    IME_PACKAGE,
    NAV_H,
    STATUS_H,
    SYSTEMUI,
    WIDTH,
    Frame,
    Window,
    contains,
    interactive,
)
from android_world.env.sim.phone_layout import WindowLayout
from android_world.env.sim.phone_system_ui import SystemUi
from android_world.env.sim.widgets import Node

__all__ = [
    "CONTENT_BOTTOM",
    "CONTENT_TOP",
    "HEIGHT",
    "IME_H",
    "IME_PACKAGE",
    "NAV_H",
    "STATUS_H",
    "STEP_MS",
    "SYSTEMUI",
    "WIDTH",
    "Frame",
    "Phone",
    "Window",
]

# How long one agent step takes on a phone (reading the screen, deciding, acting): the clock of
# what runs on its own while the agent works (a playing video, a recording). Device time, which
# tasks read, stays frozen.
STEP_MS = 5000


class Phone(WindowLayout, SystemUi):
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
        self._frame_reads_clock = True  # see `WindowLayout.keep_frame_over`
        self.clock_read = False  # set by every read of the phone's clock (`frame` resets it)
        self.version = 0
        self._uptime_ms = 0  # advanced by `pass_time`, never by observing
        for app in self.apps.values():
            app.install()

    # state ---------------------------------------------------------------------------------
    def changed(self) -> None:
        self.version += 1

    @property
    def uptime_ms(self) -> int:
        """The phone's clock of things that run on their own (a recording, a playing video)."""
        self.clock_read = True
        return self._uptime_ms

    def clock_ticks(self) -> int:
        """The phone's version read as a clock (the Clock app's stopwatch moves with it)."""
        self.clock_read = True
        return self.version

    def pass_time(self, ms: int) -> None:
        """Time goes by (an agent's step): running apps see it (`App.time_passed`).

        The screen is then built again only where time can show: a running app that acts on
        it (overrides `App.time_passed`) or a frame that read the clock; otherwise the frame
        already built stays the frame (`WindowLayout.keep_frame_over`)."""
        settled = (self.version, self.device.version)
        self._uptime_ms += ms
        timeless = True
        for app in self.apps.values():
            if app.running:
                timeless = timeless and type(app).time_passed is App.time_passed
                app.time_passed()
        self.changed()
        if timeless:
            self.keep_frame_over(settled)

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
            if interactive(node) and contains(node.bounds, x, y):
                return node
        return None

    def tap(self, x: float, y: float, long: bool = False) -> None:
        frame = self.frame()
        screen = self.current_screen()
        self._toast = None
        node = self.hit(x, y)
        if frame.overlay is not None and not contains(frame.overlay.bounds, x, y):
            on_system_window = any(
                win.package in (SYSTEMUI, IME_PACKAGE) and contains(win.root.bounds, x, y)
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
            if node.on_drag is not None and contains(node.bounds, sx, sy):
                node.on_drag(sx, sy, ex, ey)  # a web canvas draws, a pager turns
                self.changed()
                return
            if node.kind == "canvas" and contains(node.bounds, sx, sy):
                if node.on_change:  # a stroke, from where the finger landed to where it left
                    node.on_change([(sx, sy), (ex, ey)])
                self.changed()
                return
            if node.kind == "seekbar" and contains(node.bounds, sx, sy):
                self._set_seekbar(node, ex)
                self.changed()
                return
        dy = ey - sy
        if abs(dy) < abs(ex - sx):
            return  # no horizontal lists in the sim
        target = next(
            (n for n in reversed(frame.nodes) if n.kind == "scroll" and contains(n.bounds, sx, sy)),
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


def _encloses(outer: Node, inner: Node) -> bool:
    return any(node is inner for node in outer.walk())
