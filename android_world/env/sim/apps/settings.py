"""Settings, laid out like Android 13 on a Pixel: switches write the real settings keys.

Wi-Fi is `global wifi_on`, Bluetooth `global bluetooth_on`, brightness `system
screen_brightness` (1..255) and adaptive brightness `system screen_brightness_mode`; tasks read
the same keys through the controller, as `adb shell settings get` does on a device.
"""

from __future__ import annotations

from collections.abc import Callable

from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen
from android_world.env.sim.widgets import Node

BRIGHTNESS_MIN, BRIGHTNESS_MAX = 1, 255


class SettingsApp(App):
    package = "com.android.settings"

    def main_screen(self) -> Screen:
        return SettingsHome(self)


class _Page(Screen):
    """A settings sub-page: app bar with "Navigate up" and a scrolling list of rows."""

    title = ""

    def rows(self) -> list[Node]:
        return []

    def build(self) -> Node:
        return w.column(
            w.app_bar(self.title, on_up=self.close),
            w.scroll_list(f"{type(self).__name__}_list", *self.rows(), res_id="recycler_view"),
            flex=1,
        )

    # helpers over the settings table --------------------------------------------------------
    def flag(self, namespace: str, key: str, on: tuple[str, ...] = ("1",)) -> bool:
        return self.device.get_setting(namespace, key) in on

    def setter(
        self, namespace: str, key: str, on: str = "1", off: str = "0"
    ) -> Callable[[bool], None]:
        def put(value: bool) -> None:
            self.device.put_setting(namespace, key, on if value else off)

        return put

    def open(self, page: type[Screen]) -> Callable[[], None]:
        return lambda: self.push(page(self.app))


class _Placeholder(_Page):
    """A decoration page: real-looking rows that change nothing."""

    def __init__(self, app: App, title: str, items: list[tuple[str, str]]):
        super().__init__(app)
        self.title = title
        self.items = items

    def rows(self) -> list[Node]:
        return [w.list_row(t, s, on_click=lambda: None) for t, s in self.items]


_DECOR: dict[str, list[tuple[str, str]]] = {
    "Apps": [
        ("Recently opened apps", ""),
        ("Default apps", "Chrome, Phone, and Messages"),
        ("Screen time", "0 minutes today"),
        ("Unused apps", "0 unused apps"),
        ("App battery usage", ""),
    ],
    "Notifications": [
        ("App notifications", "On for all apps"),
        ("Notification history", "Off"),
        ("Conversations", "No priority conversations"),
        ("Bubbles", "On"),
        ("Do Not Disturb", "Off"),
    ],
    "Storage": [
        ("System", "11 GB"),
        ("Apps", "1.2 GB"),
        ("Images", "12 MB"),
        ("Documents & other", "3 MB"),
        ("Trash", "0 B"),
    ],
    "Sound & vibration": [
        ("Media volume", ""),
        ("Call volume", ""),
        ("Ring & notification volume", ""),
        ("Do Not Disturb", "Off"),
        ("Phone ringtone", "The Big Adventure"),
    ],
    "Wallpaper & style": [("Wallpaper", ""), ("Wallpaper colors", ""), ("Themed icons", "Off")],
    "Accessibility": [
        ("Display size and text", ""),
        ("Color and motion", ""),
        ("TalkBack", "Off"),
        ("Select to Speak", "Off"),
    ],
    "Security & privacy": [
        ("App security", "No apps scanned"),
        ("Device lock", "Screen lock"),
        ("Privacy", "Permissions, account activity"),
    ],
    "Location": [("Use location", "On"), ("Recent access", ""), ("App location permissions", "")],
    "Safety & emergency": [("Emergency SOS", "Off"), ("Emergency contacts", "")],
    "Passwords & accounts": [("Saved passwords", ""), ("Autofill service", "Google")],
    "Google": [("Manage your Google Account", ""), ("Backup", "On")],
    "System": [
        ("Languages & input", "Gboard"),
        ("Gestures", ""),
        ("Date & time", "GMT+00:00"),
        ("Backup", "On"),
        ("Reset options", ""),
    ],
    "About emulated device": [
        ("Device name", "sdk_gphone64_x86_64"),
        ("Phone number", "+1 555-521-5554"),
        ("Android version", "13"),
        ("Build number", "TE1A.220922.012"),
    ],
}


class SettingsHome(Screen):
    def build(self) -> Node:
        wifi = self.device.get_setting("global", "wifi_on") in ("1", "2")
        rows = []
        for title, summary, glyph, page in _HOME_ROWS:
            if page is NetworkPage:
                summary = "Mobile, Wi-Fi, hotspot" if wifi else "Mobile, hotspot"
            handler = self._decor(title) if page is None else self._opener(page)
            rows.append(w.list_row(title, summary, icon=glyph, on_click=handler, key=title))
        return w.column(
            w.app_bar("Settings"),
            w.row(
                Node(
                    kind="search",
                    cls="android.widget.TextView",
                    text="Search settings",
                    clickable=True,
                    on_click=lambda: None,
                    res_id="search_action_bar_title",
                ),
                h=150,
                pad=(40, 10, 40, 20),
            ),
            w.scroll_list("settings_homepage", *rows, res_id="recycler_view"),
            flex=1,
        )

    def _opener(self, page: type[Screen]) -> Callable[[], None]:
        return lambda: self.push(page(self.app))

    def _decor(self, title: str) -> Callable[[], None]:
        return lambda: self.push(_Placeholder(self.app, title, _DECOR[title]))


class NetworkPage(_Page):
    title = "Network & internet"

    def rows(self) -> list[Node]:
        wifi = self.flag("global", "wifi_on", ("1", "2"))
        airplane = self.flag("global", "airplane_mode_on")
        return [
            w.list_row(
                "Internet",
                "AndroidWifi" if wifi else "T-Mobile",
                icon="wifi",
                on_click=self.open(InternetPage),
            ),
            w.list_row("Calls & SMS", "T-Mobile", icon="phone", on_click=lambda: None),
            w.list_row("SIMs", "T-Mobile", icon="sim", on_click=lambda: None),
            w.switch_row("Airplane mode", airplane, self.setter("global", "airplane_mode_on")),
            w.list_row("Hotspot & tethering", "Off", icon="hotspot", on_click=lambda: None),
            w.list_row("Data Saver", "Off", icon="datasaver", on_click=lambda: None),
            w.list_row("VPN", "None", icon="key", on_click=lambda: None),
            w.list_row("Private DNS", "Automatic", on_click=lambda: None),
        ]


class InternetPage(_Page):
    title = "Internet"

    def rows(self) -> list[Node]:
        wifi = self.flag("global", "wifi_on", ("1", "2"))
        rows = [
            w.list_row(
                "T-Mobile",
                "Connected / 5G" if not wifi else "Mobile data",
                icon="signal",
                on_click=lambda: None,
            ),
            w.switch_row("Wi-Fi", wifi, self.setter("global", "wifi_on"), key="wifi_switch"),
        ]
        if wifi:
            rows += [
                w.list_row("AndroidWifi", "Connected", icon="wifi", on_click=lambda: None),
                w.list_row("Add network", icon="add", on_click=lambda: None),
                w.list_row(
                    "Network preferences",
                    "Wi-Fi turns back on automatically",
                    on_click=lambda: None,
                ),
                w.list_row("Saved networks", "1 network", on_click=lambda: None),
            ]
        else:
            rows.append(
                w.label(
                    "To see available networks, turn Wi-Fi on",
                    color="secondary",
                    max_lines=2,
                    pad=(48, 0, 48, 0),
                )
            )
        return rows


class ConnectedDevicesPage(_Page):
    title = "Connected devices"

    def rows(self) -> list[Node]:
        return [
            w.list_row("Pair new device", icon="add", on_click=lambda: None),
            w.list_row(
                "Connection preferences",
                "Bluetooth, NFC",
                icon="devices",
                on_click=self.open(ConnectionPreferencesPage),
            ),
            w.list_row("See all", "No devices are connected", on_click=lambda: None),
        ]


class ConnectionPreferencesPage(_Page):
    title = "Connection preferences"

    def rows(self) -> list[Node]:
        bluetooth = self.flag("global", "bluetooth_on")
        return [
            w.list_row(
                "Bluetooth",
                "On" if bluetooth else "Off",
                icon="bluetooth",
                on_click=self.open(BluetoothPage),
            ),
            w.switch_row(
                "NFC",
                self.flag("global", "nfc_on"),
                self.setter("global", "nfc_on"),
                summary="Allow data exchange when the phone touches an NFC device",
            ),
            w.list_row("Cast", "Not connected", icon="cast", on_click=lambda: None),
            w.list_row("Printing", "1 print service on", icon="print", on_click=lambda: None),
            w.list_row("Nearby Share", "Off", on_click=lambda: None),
            w.list_row("Android Auto", "Use apps on your car screen", on_click=lambda: None),
        ]


class BluetoothPage(_Page):
    title = "Bluetooth"

    def rows(self) -> list[Node]:
        bluetooth = self.flag("global", "bluetooth_on")
        rows = [
            w.switch_row(
                "Use Bluetooth",
                bluetooth,
                self.setter("global", "bluetooth_on"),
                key="bluetooth_switch",
            )
        ]
        if bluetooth:
            rows += [
                w.list_row("Pair new device", icon="add", on_click=lambda: None),
                w.label("Device name: Pixel 6", color="secondary", pad=(48, 0, 48, 0)),
            ]
        else:
            rows.append(
                w.label(
                    "When Bluetooth is turned on, your device can communicate with other Bluetooth devices nearby.",
                    color="secondary",
                    max_lines=3,
                    pad=(48, 0, 48, 0),
                )
            )
        return rows


def brightness_percent(level: int) -> int:
    return round(100 * (level - BRIGHTNESS_MIN) / (BRIGHTNESS_MAX - BRIGHTNESS_MIN))


class DisplayPage(_Page):
    title = "Display"

    def rows(self) -> list[Node]:
        level = int(self.device.get_setting("system", "screen_brightness") or 102)
        pct = brightness_percent(level)
        return [
            w.label("Brightness", size=36, color="accent", pad=(48, 20, 48, 0), h=90),
            w.column(
                w.label("Brightness level", pad=(48, 0, 48, 0)),
                w.label(
                    f"{pct}%",
                    size=36,
                    color="secondary",
                    pad=(48, 0, 48, 0),
                    res_id="android:id/summary",
                ),
                w.seekbar(
                    level,
                    BRIGHTNESS_MIN,
                    BRIGHTNESS_MAX,
                    self._set_brightness,
                    desc="Brightness level",
                    text=f"{pct}%",
                    key="brightness",
                ),
                h=330,
                pad=(0, 20, 0, 0),
            ),
            w.switch_row(
                "Adaptive brightness",
                self.flag("system", "screen_brightness_mode"),
                self.setter("system", "screen_brightness_mode"),
                summary="Optimize brightness for available light",
            ),
            w.label("Lock display", size=36, color="accent", pad=(48, 20, 48, 0), h=90),
            w.list_row("Screen timeout", "After 1 minute of inactivity", on_click=lambda: None),
            w.label("Appearance", size=36, color="accent", pad=(48, 20, 48, 0), h=90),
            w.switch_row(
                "Dark theme",
                self.flag("secure", "ui_night_mode", ("2",)),
                self.setter("secure", "ui_night_mode", "2", "1"),
                summary="Will never turn on automatically",
            ),
            w.list_row("Font size", "Default", on_click=lambda: None),
            w.list_row("Display size", "Default", on_click=lambda: None),
            w.switch_row(
                "Auto-rotate screen",
                self.flag("system", "accelerometer_rotation"),
                self.setter("system", "accelerometer_rotation"),
            ),
        ]

    def _set_brightness(self, value: float) -> None:
        level = max(BRIGHTNESS_MIN, min(BRIGHTNESS_MAX, round(value)))
        self.device.put_setting("system", "screen_brightness", str(level))


class BatteryPage(_Page):
    title = "Battery"

    def rows(self) -> list[Node]:
        return [
            w.label("100%", size=72, pad=(48, 20, 48, 0), h=130),
            w.label("Full charge lasts about 1 day", color="secondary", pad=(48, 0, 48, 0)),
            w.list_row("Battery usage", "View usage for past 24 hours", on_click=lambda: None),
            w.switch_row(
                "Battery Saver",
                self.flag("global", "low_power"),
                self.setter("global", "low_power"),
            ),
            w.switch_row(
                "Adaptive Battery",
                self.device.get_setting("secure", "adaptive_battery_management_enabled") != "0",
                self.setter("secure", "adaptive_battery_management_enabled"),
            ),
            w.switch_row(
                "Battery percentage",
                self.flag("system", "status_bar_show_battery_percent"),
                self.setter("system", "status_bar_show_battery_percent"),
                summary="Show battery percentage in status bar",
            ),
        ]


# The home page's rows (title, summary, icon, the page it opens; None: a page with nothing to
# set). "Network & internet"'s summary depends on Wi-Fi (see `SettingsHome.build`). Defined
# after the pages it names.
_HOME_ROWS: tuple[tuple[str, str, str, type[Screen] | None], ...] = (
    ("Network & internet", "", "wifi", NetworkPage),
    ("Connected devices", "Bluetooth, pairing", "devices", ConnectedDevicesPage),
    ("Apps", "Assistant, recent apps, default apps", "apps", None),
    ("Notifications", "Notification history, conversations", "bell", None),
    ("Battery", "100%", "battery", BatteryPage),
    ("Storage", "34% used - 21.19 GB free", "storage", None),
    ("Sound & vibration", "Volume, haptics, Do Not Disturb", "sound", None),
    ("Display", "Dark theme, font size, brightness", "display", DisplayPage),
    ("Wallpaper & style", "Colors, themed icons, app grid", "palette", None),
    ("Accessibility", "Display, interaction, audio", "accessibility", None),
    ("Security & privacy", "App security, device lock, permissions", "lock", None),
    ("Location", "On - 4 apps have access to location", "location", None),
    ("Safety & emergency", "Emergency SOS, medical info, alerts", "star", None),
    ("Passwords & accounts", "Saved passwords, autofill, synced accounts", "key", None),
    ("Google", "Services & preferences", "google", None),
    ("System", "Languages, gestures, time, backup", "info", None),
    ("About emulated device", "sdk_gphone64_x86_64", "phone", None),
)
