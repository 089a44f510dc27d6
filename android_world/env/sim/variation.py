"""The behaviour parts of a sim profile that apps need not know about: first-launch pop-ups
and vendor wording. Both act on what the phone builds, centrally, so every app (including
those added later) gets them without a line of its own.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

from android_world.env import vendor_labels
from android_world.env.sim import widgets as w
from android_world.env.sim.widgets import Node

if TYPE_CHECKING:
    from android_world.env.sim.app import App

SETTINGS_PACKAGE = "com.android.settings"
_RELABELLED_KINDS = frozenset({"button", "menuitem", "fab"})

# (kind, title, message, buttons): every button just closes the pop-up, as none of them may
# change a device fact a task checks. The first button is the one that declines.
_POPUPS = (
    (
        "permission",
        "Allow {app} to send you notifications?",
        "",
        ("Don't allow", "Allow"),
    ),
    (
        "whats_new",
        "What's new in {app}",
        "A fresh look, faster search and many small fixes. Swipe through to learn more.",
        ("Got it",),
    ),
    (
        "rating",
        "Enjoying {app}?",
        "If you like it, please take a moment to rate it. Thanks for your support!",
        ("Not now", "Rate"),
    ),
)


def popup_kind(package: str) -> int:
    """Which pop-up an app shows: fixed per package (not drawn from the phone's seeded rng, so
    the task parameters a seed gives stay the same under every profile)."""
    return zlib.crc32(package.encode()) % len(_POPUPS)


class FirstLaunch:
    """Shows each app's pop-up on its first start in a task (`reset` when apps are closed, as
    upstream's tasks clear app data), at most once per app."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.shown: set[str] = set()

    def reset(self) -> None:
        self.shown.clear()

    def on_start(self, app: App) -> None:
        if not self.enabled or app.package in self.shown:
            return
        self.shown.add(app.package)
        _, title, message, buttons = _POPUPS[popup_kind(app.package)]
        screen = app.top
        if screen.overlay is not None:
            return  # the app opens with a prompt of its own (Contacts' permission): one is enough

        def build() -> Node:
            node = w.dialog(
                title.format(app=app.label),
                message,
                buttons=[(text, screen.dismiss) for text in buttons],
            )
            node.res_id = "first_launch_dialog"
            return node

        # Not closed by a tap beside it (Back still closes it), like a permission prompt.
        screen.show_dialog(build, dismissable=False)


def relabel(root: Node, package: str) -> Node:
    """Vendor wording on a freshly built tree: Settings page names (titles, switch
    descriptions, words inside summaries) and the common buttons of every app."""
    in_settings = package == SETTINGS_PACKAGE
    for node in root.walk():
        if node.kind in _RELABELLED_KINDS and node.text in vendor_labels.BUTTON_LABELS:
            new = vendor_labels.vendor_label(node.text)
            if node.w is not None:  # dialog buttons are sized from their text
                node.w = max(node.w, 40 * len(new) + 60)
            node.text = new
        elif in_settings:
            if node.text:
                node.text = vendor_labels.replace_in_text(vendor_labels.vendor_label(node.text))
            if node.desc:
                node.desc = vendor_labels.replace_in_text(vendor_labels.vendor_label(node.desc))
    return root
