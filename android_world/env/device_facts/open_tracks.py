"""OpenTracks (de.dennisguse.opentracks): recorded activities in the `tracks` table of its sqlite db.

Upstream's sports questions write and read rows of that table; these are its columns (upstream's
row type), with times in epoch milliseconds, distances in metres, speeds in metres per second.
The app shows distances in the unit system of its settings: on upstream's en-US emulator that is
imperial, miles to two decimals (upstream rounds every distance it seeds so that the miles shown
convert back to its metres), or metric, kilometres to two decimals.
"""

from __future__ import annotations

import datetime

PACKAGE = "de.dennisguse.opentracks"
DB = f"/data/data/{PACKAGE}/databases/database.db"
TABLE = "tracks"
COLUMNS = (
    "name",
    "description",
    "category",
    "activity_type",
    "starttime",
    "stoptime",
    "numpoints",
    "totaldistance",
    "totaltime",
    "movingtime",
    "avgspeed",
    "avgmovingspeed",
    "maxspeed",
    "minelevation",
    "maxelevation",
    "elevationgain",
    "icon",
    "uuid",
    "elevationloss",
    "starttime_offset",
)
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS tracks (_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, "
    "description TEXT, category TEXT, activity_type TEXT, starttime INTEGER, stoptime INTEGER, "
    "numpoints INTEGER, totaldistance FLOAT, totaltime INTEGER, movingtime INTEGER, "
    "avgspeed FLOAT, avgmovingspeed FLOAT, maxspeed FLOAT, minelevation FLOAT, "
    "maxelevation FLOAT, elevationgain FLOAT, icon TEXT, uuid BLOB, elevationloss FLOAT, "
    "starttime_offset INTEGER)"
)
# The app's preferences (Android's shared-preferences XML): the unit system setting.
PREFS_PATH = f"/data/data/{PACKAGE}/shared_prefs/{PACKAGE}_preferences.xml"
UNITS_KEY = "stats_units"
IMPERIAL, METRIC = "IMPERIAL", "METRIC"
DEFAULT_UNITS = IMPERIAL  # upstream's emulator runs in en-US

MILES_TO_METERS = 1609.34
FEET_PER_METER = 3.28084


def prefs_xml(units: str) -> bytes:
    return (
        "<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<map>\n"
        f'    <string name="{UNITS_KEY}">{units}</string>\n</map>\n'
    ).encode()


def units_in(prefs: bytes) -> str:
    """The unit system a preferences file holds (the default when it says none)."""
    text = prefs.decode("utf-8", errors="replace")
    for units in (IMPERIAL, METRIC):
        if f'name="{UNITS_KEY}">{units}<' in text:
            return units
    return DEFAULT_UNITS


def format_distance(meters: float, units: str) -> str:
    """'2.49 mi' or '4.00 km', as the app's statistics show a track's distance."""
    if units == METRIC:
        return f"{meters / 1000:.2f} km"
    return f"{meters / MILES_TO_METERS:.2f} mi"


def format_elevation(meters: float, units: str) -> str:
    if units == METRIC:
        return f"{meters:.0f} m"
    return f"{meters * FEET_PER_METER:.0f} ft"


def format_duration(ms: int) -> str:
    """A total time as the app shows it: 'H:MM:SS'."""
    seconds = max(0, int(ms) // 1000)
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def format_speed(meters: float, ms: int, units: str) -> str:
    hours = ms / 3_600_000
    if hours <= 0:
        return "-"
    if units == METRIC:
        return f"{meters / 1000 / hours:.1f} km/h"
    return f"{meters / MILES_TO_METERS / hours:.1f} mph"


def start_of(ms: int) -> datetime.datetime:
    """A row's start time (UTC, the device's zone)."""
    return datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)


def format_start(ms: int) -> str:
    """'Oct 12, 2023, 5:00 PM': the date and time a track started."""
    when = start_of(ms)
    return when.strftime("%b %-d, %Y, %-I:%M %p")
