"""The phone's system UI: status bar, navigation bar, toast and the on-screen keyboard."""

from __future__ import annotations

from android_world.env.sim import layout
from android_world.env.sim import widgets as w
from android_world.env.sim.phone_frame import NAV_H
from android_world.env.sim.widgets import Node


class SystemUi:
    """The system-UI half of `Phone` (a mixin: it reads the phone's geometry, device settings
    and keyboard state, and types through `Phone.type_text`)."""

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
        root = w.column(
            w.spacer(h=70),
            *self._key_rows(),
            kind="ime",
            cls="android.inputmethodservice.SoftInputWindow",
            pad=(16, 0, 16, 0),
            gap=14,
            res_id="com.google.android.inputmethod.latin:id/keyboard_holder",
        )
        rect = (0, self.content_bottom - self.ime_h, self.width, self.content_bottom)
        layout.layout(root, rect, rect, {})
        return root

    def _key_rows(self) -> list[Node]:
        """Three rows of letters (or symbols) and the row of Symbols, comma, Space, dot, Enter."""
        if self.symbols:
            rows = ["1234567890", "@#$_&-+()/", "*\"':;!?"]
        else:
            rows = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]
            if self.shift:
                rows = [r.upper() for r in rows]
        key = self._key
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
        return key_rows

    def _key(
        self, ch: str, desc: str = "", width: int | None = None, handler=None, glyph: str = ""
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
