"""`App` and `Screen`: what an app module subclasses (guide: `apps/__init__.py`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar

from android_world.env import device
from android_world.env.sim import widgets as w
from android_world.env.sim.widgets import Handler, Node

if TYPE_CHECKING:
    from android_world.env.sim.controller import SimController
    from android_world.env.sim.phone import Phone


class Screen:
    """One page of an app (an Activity or a Fragment), with its transient UI state.

    Subclasses implement `build()`; anything worth keeping across rebuilds (drafts, selected
    tab) lives in attributes. Persistent data lives behind `self.device`.
    """

    activity: str | None = None  # overrides the app's activity for foreground_activity()

    def __init__(self, app: App):
        self.app = app
        self.scroll_offsets: dict[str, int] = {}
        self.focus: str | None = None  # key of the focused text field
        self.overlay: Callable[[], Node] | None = None
        self.overlay_kind = "dialog"  # "dialog" (centred, dims the screen) or "menu" (top right)
        self.overlay_dismissable = True

    @property
    def device(self) -> SimController:
        return self.app.device

    def build(self) -> Node:
        """The screen's content below the status bar (usually `column(app_bar(...), ...)`)."""
        raise NotImplementedError

    def on_back(self) -> bool:
        """Return True if Back was handled here (e.g. leaving a selection mode)."""
        return False

    # helpers -------------------------------------------------------------------------------
    def push(self, screen: Screen) -> None:
        self.app.push(screen)

    def close(self) -> None:
        """Leave this screen (like finish()); the root screen returns to the launcher."""
        self.app.pop()

    def show_dialog(self, builder: Callable[[], Node], dismissable: bool = True) -> None:
        """Open a modal dialog; `builder` is called on every frame (use `widgets.dialog`)."""
        self.overlay, self.overlay_kind, self.overlay_dismissable = builder, "dialog", dismissable
        self.focus = None

    def show_menu(self, items: Sequence[tuple[str, Handler]]) -> None:
        """Open a popup menu; choosing an item closes the menu, then runs its handler."""

        def choose(handler: Handler) -> Handler:
            def run() -> None:
                self.dismiss()
                handler()

            return run

        entries = [(text, choose(handler)) for text, handler in items]
        self.overlay, self.overlay_kind, self.overlay_dismissable = (
            lambda: w.menu(entries),
            "menu",
            True,
        )

    def dismiss(self) -> None:
        self.overlay = None

    def toast(self, text: str) -> None:
        self.app.phone.toast(text)


class Selecting:
    """Long-press multi-selection for a list screen (Files, Markor, Pro Expense): while rows are
    selected, a tap toggles a row and Back clears the selection instead of leaving."""

    selected: set

    def toggle(self, item: object) -> None:
        self.selected ^= {item}

    def clear_selection(self) -> None:
        self.selected = set()

    def on_back(self) -> bool:
        if self.selected:
            self.clear_selection()
            return True
        return False


class OrderedSelecting:
    """`Selecting` that remembers the order rows were picked in (media apps add a selection to a
    playlist or queue in that order): a list, with the same long-press/tap/Back behaviour."""

    selected: list

    def toggle(self, item: object) -> None:
        if item in self.selected:
            self.selected.remove(item)
        else:
            self.selected.append(item)

    def clear_selection(self) -> None:
        self.selected = []

    def on_back(self) -> bool:
        if self.selected:
            self.clear_selection()
            return True
        return False


def folder_entries(controller: SimController, path: str) -> list[tuple[str, bool]]:
    """(name, is a folder) under `path`: folders first, then files, each A-Z as file managers
    list them."""
    names = controller.list_dir(path)
    dirs = sorted((n for n in names if controller.is_dir(f"{path}/{n}")), key=str.lower)
    files = sorted((n for n in names if n not in dirs), key=str.lower)
    return [(n, True) for n in dirs] + [(n, False) for n in files]


class App:
    """An app, addressed by its package name, which must be an entry of `device.APPS`."""

    package: ClassVar[str] = ""
    # File types (lower-case extensions, ".html") the app offers to open from a file manager.
    opens: ClassVar[tuple[str, ...]] = ()

    def __init__(self, phone: Phone):
        self.phone = phone
        self.device: SimController = phone.device
        self.rng: random.Random = phone.rng
        self.stack: list[Screen] = []
        info = device.find_app(self.package)
        if info is None:
            raise ValueError(
                f"{type(self).__name__}.package {self.package!r} is not in device.APPS"
            )
        self.info: device.AppInfo = info

    @property
    def label(self) -> str:
        return self.info.label

    def install(self) -> None:
        """Create this app's databases, folders and default settings (runs once per device)."""

    def main_screen(self) -> Screen:
        raise NotImplementedError

    def time_passed(self) -> None:
        """The phone's clock (`self.phone.uptime_ms`) moved on while this app runs: what runs
        by itself (playback, a recording) may act on it here, not in `build()`."""

    def open_file(self, path: str) -> None:
        """Show the file at device `path` (an "Open with" choice); the app is running."""
        raise NotImplementedError(f"{type(self).__name__} opens no files.")

    # lifecycle, driven by the phone --------------------------------------------------------
    @property
    def running(self) -> bool:
        return bool(self.stack)

    @property
    def top(self) -> Screen:
        if not self.stack:
            self.start()
        return self.stack[-1]

    def start(self) -> None:
        self.stack = [self.main_screen()]

    def stop(self) -> None:
        self.stack = []

    def push(self, screen: Screen) -> None:
        if self.stack:
            self.stack[-1].focus = None
        self.stack.append(screen)

    def pop(self) -> None:
        if len(self.stack) > 1:
            self.stack.pop()
        else:
            self.stack = []
            self.phone.go_home()

    def replace(self, screen: Screen) -> None:
        if self.stack:
            self.stack[-1] = screen
        else:
            self.stack = [screen]

    def activity(self) -> str:
        name = (self.stack[-1].activity if self.stack else None) or self.info.activity
        return f"{self.package}/{name}"


class _GenericScreen(Screen):
    def build(self) -> Node:
        label = self.app.label
        return w.column(
            w.app_bar(label),
            w.spacer(h=400),
            w.label(label, size=64, center=True, h=120),
            w.label("Nothing to show here yet", color="secondary", center=True),
            flex=1,
        )


def generic_app(info: device.AppInfo) -> type[App]:
    """A stand-in app with just a title, for packages no module implements yet."""

    def main_screen(self: App) -> Screen:
        return _GenericScreen(self)

    name = "Generic" + "".join(ch for ch in info.label if ch.isalnum()) + "App"
    return type(name, (App,), {"package": info.package, "main_screen": main_screen})
