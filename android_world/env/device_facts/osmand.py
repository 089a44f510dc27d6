"""OsmAnd (net.osmand 4.6, upstream's APK): where the map app keeps favourites, markers and tracks.

Upstream's OsmAnd tasks read three stores, and so do ours, on the sim and over adb alike:

- favourites: a GPX 1.1 file of `<wpt>` points under the app's external files folder (upstream
  reads it through the `/data/media/0` path of the shared storage, and also clears a legacy backup
  copy and a backup folder in the app's private files);
- map markers: the `map_markers` table of the app's `map_markers_db` sqlite database (one row per
  marker, its position in `marker_lat`/`marker_lon`);
- tracks: GPX files in the `tracks` folder, whose `<trk>/<trkseg>/<trkpt>` points are the track.

The GPX helpers here write and read those files (standard library XML; a file that does not parse
is a ValueError, never a crash of the caller).
"""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable, Sequence
from xml.sax.saxutils import escape

PACKAGE = "net.osmand"
FILES_DIR = "/data/media/0/Android/data/net.osmand/files"
FAVORITES_PATH = f"{FILES_DIR}/favorites/favorites.gpx"
TRACKS_DIR = f"{FILES_DIR}/tracks"
LEGACY_FILES_DIR = "/data/data/net.osmand/files"
LEGACY_FAVORITES_PATH = f"{LEGACY_FILES_DIR}/favourites_bak.gpx"
BACKUP_DIR = f"{LEGACY_FILES_DIR}/backup"
# The offline map upstream's set-up copies to the device (the one country the app can show).
MAP_NAME = "Liechtenstein_europe.obf"

MARKERS_DB = "/data/data/net.osmand/databases/map_markers_db"
MARKERS_TABLE = "map_markers"
MARKER_COLUMNS = (
    "marker_id",
    "marker_lat",
    "marker_lon",
    "marker_description",
    "marker_active",
    "marker_added",
    "marker_visited",
    "group_name",
    "group_key",
    "marker_color",
    "marker_next_key",
    "marker_disabled",
    "marker_selected",
    "marker_map_object_name",
    "title",
)
MARKERS_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS map_markers (marker_id TEXT PRIMARY KEY, marker_lat DOUBLE, "
    "marker_lon DOUBLE, marker_description TEXT, marker_active INTEGER, marker_added LONG, "
    "marker_visited LONG, group_name TEXT, group_key TEXT, marker_color INTEGER, "
    "marker_next_key TEXT, marker_disabled INTEGER, marker_selected INTEGER, "
    "marker_map_object_name TEXT, title TEXT)"
)

GPX_NS = "http://www.topografix.com/GPX/1/1"
_NS = {"gpx": GPX_NS}
CREATOR = "OsmAnd 4.6.13"


@dataclasses.dataclass(frozen=True)
class Waypoint:
    """A `<wpt>`: a favourite's position, name and (optional) description and group."""

    lat: float
    lon: float
    name: str = ""
    desc: str = ""
    group: str = ""


def _header() -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        f'<gpx version="1.1" creator="{CREATOR}" xmlns="{GPX_NS}">\n'
    )


def _wpt(point: Waypoint) -> str:
    parts = [f'  <wpt lat="{point.lat:.7f}" lon="{point.lon:.7f}">']
    parts.append(f"    <name>{escape(point.name)}</name>")
    if point.desc:
        parts.append(f"    <desc>{escape(point.desc)}</desc>")
    if point.group:
        parts.append(f"    <type>{escape(point.group)}</type>")
    parts.append("  </wpt>")
    return "\n".join(parts)


def favorites_gpx(points: Iterable[Waypoint]) -> bytes:
    """A favourites file holding `points` (none: an empty favourites file)."""
    body = "\n".join(_wpt(p) for p in points)
    return (_header() + (body + "\n" if body else "") + "</gpx>\n").encode("utf-8")


def track_gpx(name: str, points: Sequence[tuple[float, float]]) -> bytes:
    """A track file: one `<trk>` named `name` with one segment through `points` (lat, lon)."""
    rows = "\n".join(f'      <trkpt lat="{lat:.7f}" lon="{lon:.7f}"/>' for lat, lon in points)
    return (
        _header()
        + f"  <trk>\n    <name>{escape(name)}</name>\n    <trkseg>\n"
        + (rows + "\n" if rows else "")
        + "    </trkseg>\n  </trk>\n</gpx>\n"
    ).encode("utf-8")


def _root(data: bytes) -> ElementTree.Element:
    try:
        return ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise ValueError(f"Not a GPX file: {exc}") from exc


def _coordinate(element: ElementTree.Element) -> tuple[float, float]:
    try:
        return float(element.attrib["lat"]), float(element.attrib["lon"])
    except (KeyError, ValueError) as exc:
        raise ValueError("A GPX point without a numeric lat and lon.") from exc


def read_waypoints(data: bytes) -> list[Waypoint]:
    """The `<wpt>` points of a GPX file, in file order."""
    found = []
    for element in _root(data).findall("gpx:wpt", _NS):
        lat, lon = _coordinate(element)
        found.append(
            Waypoint(
                lat,
                lon,
                element.findtext("gpx:name", "", _NS),
                element.findtext("gpx:desc", "", _NS),
                element.findtext("gpx:type", "", _NS),
            )
        )
    return found


def remove_waypoints(data: bytes) -> bytes:
    """The same GPX file without its `<wpt>` points (what clearing favourites leaves)."""
    ElementTree.register_namespace("", GPX_NS)
    root = _root(data)
    for element in root.findall("gpx:wpt", _NS):
        root.remove(element)
    return ElementTree.tostring(root, encoding="utf-8", xml_declaration=True)


def read_track_points(data: bytes) -> list[tuple[float, float]]:
    """Every `<trkpt>` of every track and segment of a GPX file, in order."""
    return [
        _coordinate(point)
        for track in _root(data).findall("gpx:trk", _NS)
        for segment in track.findall("gpx:trkseg", _NS)
        for point in segment.findall("gpx:trkpt", _NS)
    ]


def marker_row(marker_id: str, lat: float, lon: float, title: str, added_ms: int) -> dict:
    """A new active map marker as the app writes it (columns of `MARKER_COLUMNS`)."""
    return {
        "marker_id": marker_id,
        "marker_lat": lat,
        "marker_lon": lon,
        "marker_description": "",
        "marker_active": 1,
        "marker_added": added_ms,
        "marker_visited": 0,
        "group_name": "",
        "group_key": "",
        "marker_color": 0,
        "marker_next_key": "",
        "marker_disabled": 0,
        "marker_selected": 0,
        "marker_map_object_name": title,
        "title": title,
    }
