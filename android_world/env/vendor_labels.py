"""Vendor wording: the names phone makers give the same Settings pages and buttons.

One table serves both sides: the simulated phone's `vendor` profile shows the vendor word in
place of stock Android's (see `env/sim/variation.py`), and reference solutions match a canonical
label against all its known variants (`task_evals/oracle_utils.py`), so a task written with
stock English labels works on a phone that words them differently (the sim's vendor profile or
a real Samsung). Keys are stock Android (Pixel) labels; the first variant is what the sim shows.
"""

from __future__ import annotations

import re

VARIANTS: dict[str, tuple[str, ...]] = {
    # Settings (Samsung One UI wording)
    "Wi-Fi": ("WLAN",),
    "Network & internet": ("Connections",),
    "Sound & vibration": ("Sounds and vibration",),
    "Battery": ("Battery and device care",),
    "Security & privacy": ("Security and privacy",),
    "Passwords & accounts": ("Accounts and backup",),
    "Safety & emergency": ("Safety and emergency",),
    "Wallpaper & style": ("Wallpaper and style",),
    "System": ("General management",),
    "About emulated device": ("About phone",),
    "Brightness level": ("Brightness",),
    "Connection preferences": ("More connection settings",),
    # Common buttons
    "Save": ("Done",),
    "Delete": ("Remove",),
    "OK": ("Confirm",),
}

# Words replaced inside longer Settings texts too ("Use Wi-Fi" -> "Use WLAN").
IN_TEXT: dict[str, str] = {"Wi-Fi": "WLAN"}

# Labels the sim relabels everywhere on buttons and menu items; the rest only inside Settings.
BUTTON_LABELS = frozenset({"Save", "Delete", "OK"})


def vendor_label(label: str) -> str:
    """The word the sim's vendor profile shows for stock `label` (itself if none)."""
    found = VARIANTS.get(label)
    return found[0] if found else label


def replace_in_text(text: str) -> str:
    """Stock words inside a longer Settings text, vendor-worded."""
    for stock, vendor in IN_TEXT.items():
        if stock in text:
            text = text.replace(stock, vendor)
    return text


def equivalents(label: str) -> frozenset[str]:
    """Lower-case labels a phone may show for stock `label`: itself and its vendor variants,
    and the same with the in-text words swapped ("Use Wi-Fi" also matches "Use WLAN")."""
    low = label.strip().lower()
    names = {low}
    for stock, vendors in VARIANTS.items():
        if stock.lower() == low:
            names |= {v.lower() for v in vendors}
    for stock, vendor in IN_TEXT.items():
        if stock.lower() in low and low != stock.lower():
            names.add(re.sub(re.escape(stock.lower()), vendor.lower(), low))
    return frozenset(names)
