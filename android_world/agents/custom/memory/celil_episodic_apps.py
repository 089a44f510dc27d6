"""App names in goals for episodic memory: which app a goal names, and one key per app.

An app name stays literal in a goal's template (the app decides the plan), and retrieval keeps
the apps a goal names (`apps_in_goal`) so a plan for one app is not offered for another. A
name that is also an everyday word ("clock", "settings") names the app only in context. Pure;
standard library only.
"""

from __future__ import annotations

import dataclasses
import re

# App names: left literal, because the app decides the plan.
KNOWN_APP_NAMES: tuple[str, ...] = (
    "Simple Calendar Pro",
    "Simple Calendar",
    "Simple SMS Messenger",
    "Simple Gallery Pro",
    "Simple Draw Pro",
    "Pro Expense",
    "Arduia Pro Expense",
    "Audio Recorder",
    "Retro Music",
    "OpenTracks",
    "Open Tracks",
    "Broccoli",
    "Markor",
    "Contacts",
    "Clock",
    "Camera",
    "Settings",
    "Files",
    "Chrome",
    "VLC",
    "OsmAnd",
    "Joplin",
    "Tasks",
    "Clipper",
    "Dialer",
    "Phone",
    "Messages",
    "Gallery",
    "Recipe",
    "Expense",
    "Google",
    "Android",
)

# Canonical app keys, so "Simple Calendar", "simple calendar pro" and "Simple Calendar Pro" overlap.
_APP_ALIASES: dict[str, str] = {
    "simple calendar": "simple calendar pro",
    "calendar": "simple calendar pro",
    "arduia pro expense": "pro expense",
    "expense": "pro expense",
    "simple sms": "simple sms messenger",
    "sms messenger": "simple sms messenger",
    "sms": "simple sms messenger",
    "messages": "simple sms messenger",
    "open tracks": "opentracks",
    "open tracks sports tracker": "opentracks",
    "recipe": "broccoli",
    "broccoli app": "broccoli",
    "phone": "dialer",
    "gallery": "simple gallery pro",
}

# App names that are everyday words: they name an app where the goal capitalises them or says so
# ("the settings app", "open contacts"), not in "the clock is ticking".
_COMMON_WORD_APPS = frozenset(
    {
        "contacts",
        "clock",
        "camera",
        "settings",
        "files",
        "tasks",
        "dialer",
        "chrome",
        "clipper",
        "broccoli",
    }
)
# ...and those that name an app only in such a context, even capitalised ("Android filesystem",
# "the phone number", "Expense: Taxi Fare").
_CONTEXT_ONLY_APPS = frozenset({"phone", "messages", "gallery", "recipe", "expense"})
# Platform words, never the app a goal is about ("in the Android filesystem").
_NEVER_NAMED_APPS = frozenset({"android", "google"})
APP_WORDS = frozenset(w for a in KNOWN_APP_NAMES for w in a.lower().split()) | {"sms"}
_APP_PATTERN = re.compile(
    r"(?<![\w\-])(?:"
    + "|".join(re.escape(a) for a in sorted(KNOWN_APP_NAMES, key=len, reverse=True))
    + r")(?![\w\-])",
    re.I,
)
_APP_CONTEXT_BEFORE = re.compile(
    r"\b(?:open|opens|opening|launch|start|using|use|via|in|inside)\s+(?:the\s+)?$", re.I
)
_APP_CONTEXT_AFTER = re.compile(r"\s+app\b", re.I)


@dataclasses.dataclass(frozen=True)
class AppMention:
    start: int
    end: int
    app: str  # canonical key
    named: bool  # the text names this app (rather than using the word)


def app_mentions(text: str) -> list[AppMention]:
    """Known app names in `text`, found case-insensitively, each judged by its context."""
    out: list[AppMention] = []
    for m in _APP_PATTERN.finditer(text):
        key = " ".join(m.group(0).lower().split())
        in_context = bool(
            _APP_CONTEXT_BEFORE.search(text, 0, m.start())
            or _APP_CONTEXT_AFTER.match(text, m.end())
        )
        if key in _NEVER_NAMED_APPS:
            named = False
        elif key in _CONTEXT_ONLY_APPS:
            named = in_context
        elif key in _COMMON_WORD_APPS:
            named = in_context or m.group(0)[:1].isupper()
        else:
            named = True
        out.append(AppMention(m.start(), m.end(), canonical_app(key), named))
    return out


def canonical_app(name: str) -> str:
    key = " ".join(name.lower().split())
    return _APP_ALIASES.get(key, key)


def apps_in_goal(goal: str) -> list[str]:
    """Apps a goal names, found case-insensitively ("the settings app", "Simple Calendar Pro")."""
    return sorted({m.app for m in app_mentions(goal) if m.named})
