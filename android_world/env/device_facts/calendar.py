"""Simple Calendar Pro: where events live and how the editor writes a date.

Events live in upstream's `events` table of `events.db` (times are epoch seconds, the device is on
UTC). The editor shows a date as "Mon, Oct 16, 2023" (`format_day`): tasks compare it with the
date they expect before saving.
"""

from __future__ import annotations

import datetime

PACKAGE = "com.simplemobiletools.calendar.pro"
DB = f"/data/data/{PACKAGE}/databases/events.db"
TABLE = "events"
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS events ("
    "id INTEGER PRIMARY KEY AUTOINCREMENT, start_ts INTEGER NOT NULL, end_ts INTEGER NOT NULL, "
    "title TEXT NOT NULL, location TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '', "
    "reminder_1_minutes INTEGER NOT NULL DEFAULT -1, reminder_2_minutes INTEGER NOT NULL DEFAULT -1, "
    "reminder_3_minutes INTEGER NOT NULL DEFAULT -1, reminder_1_type INTEGER NOT NULL DEFAULT 0, "
    "reminder_2_type INTEGER NOT NULL DEFAULT 0, reminder_3_type INTEGER NOT NULL DEFAULT 0, "
    "repeat_interval INTEGER NOT NULL DEFAULT 0, repeat_rule INTEGER NOT NULL DEFAULT 0, "
    "repeat_limit INTEGER NOT NULL DEFAULT 0, repetition_exceptions TEXT NOT NULL DEFAULT '[]', "
    "attendees TEXT NOT NULL DEFAULT '', import_id TEXT NOT NULL DEFAULT '', "
    "time_zone TEXT NOT NULL DEFAULT 'UTC', flags INTEGER NOT NULL DEFAULT 0, "
    "event_type INTEGER NOT NULL DEFAULT 1, parent_id INTEGER NOT NULL DEFAULT 0, "
    "last_updated INTEGER NOT NULL DEFAULT 0, source TEXT NOT NULL DEFAULT 'simple-calendar', "
    "availability INTEGER NOT NULL DEFAULT 0, color INTEGER NOT NULL DEFAULT 0, "
    "type INTEGER NOT NULL DEFAULT 0)"
)


def format_day(day: datetime.date) -> str:
    """The editor's date text, e.g. "Mon, Oct 16, 2023"."""
    return day.strftime("%a, %b %d, %Y")
