"""The home screen: a date line and a grid of app icons, one per entry of `device.APPS`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from android_world.env import device
from android_world.env.sim import widgets as w
from android_world.env.sim.widgets import Node

if TYPE_CHECKING:
    from android_world.env.sim.phone import Phone

COLUMNS = 4
ICON_COLOURS = (
    "#1A73E8",
    "#188038",
    "#E37400",
    "#9334E6",
    "#D93025",
    "#12B5CB",
    "#F9AB00",
    "#5F6368",
    "#B06000",
)


class HomeScreen:
    """Not an app: the launcher has no back stack, only icons that open apps."""

    activity = device.HOME_ACTIVITY

    def __init__(self, phone: Phone):
        self.phone = phone
        self.scroll_offsets: dict[str, int] = {}
        self.focus: str | None = None
        self.overlay = None
        self.overlay_kind = "dialog"
        self.overlay_dismissable = True

    def dismiss(self) -> None:
        self.overlay = None

    def on_back(self) -> bool:
        return True

    def build(self) -> Node:
        now = self.phone.device.device_time()
        icons = [self._icon(i, app) for i, app in enumerate(device.APPS)]
        columns = max(COLUMNS, self.phone.width // 270)  # a wide (landscape) screen: more
        grid_rows = [
            w.row(
                *icons[i : i + columns],
                *[w.spacer() for _ in range(columns - len(icons[i : i + columns]))],
                h=330,
            )
            for i in range(0, len(icons), columns)
        ]
        return w.column(
            w.spacer(h=60),
            w.label(now.strftime("%A, %B %-d"), size=52, pad=(64, 0, 0, 0), res_id="date"),
            w.spacer(h=80),
            *grid_rows,
            w.spacer(flex=1),
            kind="home",
            cls="android.widget.FrameLayout",
            pad=(24, 0, 24, 0),
            flex=1,
        )

    def _icon(self, i: int, app: device.AppInfo) -> Node:
        return Node(
            kind="appicon",
            cls="android.widget.TextView",
            text=app.label,
            desc=app.label,
            clickable=True,
            long_clickable=True,
            focusable=True,
            on_click=lambda pkg=app.package: self.phone.launch(pkg),
            on_long_click=lambda: None,
            style={"color": ICON_COLOURS[i % len(ICON_COLOURS)]},
        )
