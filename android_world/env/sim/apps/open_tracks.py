"""OpenTracks (de.dennisguse.opentracks): recorded activities, read from the app's `tracks` table.

The list shows every recorded track, newest first: its name, its activity type (the `category`
column) with the start date and time, and its distance and total time. A track's page lists its
statistics (total and moving time, distance, average speed, elevation gain and loss), its
activity type, start time and description. Distances follow the unit system of Settings
(imperial, as on upstream's en-US emulator, or metric); the preference lives in the app's
shared-preferences file. The phone has no GPS fix, so "Record" cannot start a track.
"""

from __future__ import annotations

from android_world.env.device_facts import open_tracks as facts
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen
from android_world.env.sim.widgets import Node

ROW_H = 270


class OpenTracksApp(App):
    package = facts.PACKAGE

    def install(self) -> None:
        self.device.sqlite_execute(facts.DB, facts.SCHEMA)

    def main_screen(self) -> Screen:
        return TrackList(self)

    def units(self) -> str:
        if not self.device.exists(facts.PREFS_PATH):
            return facts.DEFAULT_UNITS
        return facts.units_in(self.device.read_file(facts.PREFS_PATH))

    def set_units(self, units: str) -> None:
        self.device.write_file(facts.PREFS_PATH, facts.prefs_xml(units))

    def tracks(self) -> list[dict]:
        self.device.sqlite_execute(facts.DB, facts.SCHEMA)
        return self.device.sqlite_query(
            facts.DB, "SELECT * FROM tracks ORDER BY starttime DESC, _id DESC"
        )

    def track(self, track_id: int) -> dict | None:
        rows = self.device.sqlite_query(facts.DB, "SELECT * FROM tracks WHERE _id = ?", (track_id,))
        return rows[0] if rows else None


def _activity_type(row: dict) -> str:
    return row.get("category") or row.get("activity_type") or "unknown"


class TrackList(Screen):
    activity = "de.dennisguse.opentracks.TrackListActivity"

    @property
    def tracks_app(self) -> OpenTracksApp:
        return self.app  # type: ignore[return-value]

    def build(self) -> Node:
        units = self.tracks_app.units()
        rows = [self.row(r, units) for r in self.tracks_app.tracks()]
        bar = w.app_bar(
            "OpenTracks",
            actions=[w.icon_button("More options", "more", self.more)],
        )
        body = w.scroll_list(
            "track_list", *(rows or [w.empty_state("No tracks yet")]), res_id="track_list"
        )
        return w.with_fab(
            w.column(bar, body, flex=1),
            w.fab("Record", self.record, glyph="play", res_id="track_list_fab_action"),
        )

    def row(self, r: dict, units: str) -> Node:
        track_id = r["_id"]
        return w.column(
            w.label(r["name"] or "", bold=True, res_id="list_item_name"),
            w.label(
                f"{_activity_type(r)} · {facts.format_start(r['starttime'] or 0)}",
                size=w.SECONDARY_SIZE,
                color="secondary",
                res_id="list_item_date_time",
            ),
            w.label(
                f"{facts.format_distance(r['totaldistance'] or 0, units)} · "
                f"{facts.format_duration(r['totaltime'] or 0)}",
                size=w.SECONDARY_SIZE,
                color="secondary",
                res_id="list_item_statistics",
            ),
            kind="row",
            h=ROW_H,
            pad=(48, 24, 36, 24),
            align="center",
            clickable=True,
            focusable=True,
            on_click=lambda: self.push(TrackDetail(self.app, track_id)),
            key=f"track_{track_id}",
        )

    def more(self) -> None:
        self.show_menu([("Settings", lambda: self.push(SettingsScreen(self.app)))])

    def record(self) -> None:
        self.toast("Waiting for GPS signal")


class TrackDetail(Screen):
    """One recorded track: its statistics, activity type, start time and description."""

    activity = "de.dennisguse.opentracks.TrackRecordedActivity"

    def __init__(self, app: App, track_id: int):
        super().__init__(app)
        self.track_id = track_id

    def build(self) -> Node:
        tracks_app: OpenTracksApp = self.app  # type: ignore[assignment]
        r = tracks_app.track(self.track_id)
        if r is None:
            return w.column(
                w.app_bar("Track", on_up=self.close), w.empty_state("Track deleted"), flex=1
            )
        units = tracks_app.units()
        meters, total = r["totaldistance"] or 0, r["totaltime"] or 0
        stats = (
            ("Total time", facts.format_duration(total)),
            ("Moving time", facts.format_duration(r["movingtime"] or 0)),
            ("Distance", facts.format_distance(meters, units)),
            ("Average speed", facts.format_speed(meters, total, units)),
            ("Elevation gain", facts.format_elevation(r["elevationgain"] or 0, units)),
            ("Elevation loss", facts.format_elevation(r["elevationloss"] or 0, units)),
            ("Activity type", _activity_type(r)),
            ("Start time", facts.format_start(r["starttime"] or 0)),
        )
        rows: list[Node] = [
            w.list_row(value, name, key=f"stat_{name}", res_id="stats_value")
            for name, value in stats
        ]
        if r["description"]:
            rows.append(w.list_row("Description", key="description_title"))
            rows.append(
                w.label(
                    r["description"],
                    max_lines=3,
                    pad=(48, 0, 48, 0),
                    res_id="description",
                )
            )
        return w.column(
            w.app_bar(r["name"] or "", on_up=self.close),
            w.scroll_list("track_statistics", *rows, pad=(0, 12, 0, 48)),
            flex=1,
        )


class SettingsScreen(Screen):
    activity = "de.dennisguse.opentracks.settings.SettingsActivity"

    def build(self) -> Node:
        tracks_app: OpenTracksApp = self.app  # type: ignore[assignment]
        current = tracks_app.units()
        return w.column(
            w.app_bar("Settings", on_up=self.close),
            w.label("Unit system", size=w.SECONDARY_SIZE, color="accent", pad=(48, 30, 48, 0)),
            w.radio_row(
                "Metric (km, m)",
                current == facts.METRIC,
                lambda: tracks_app.set_units(facts.METRIC),
            ),
            w.radio_row(
                "Imperial (mi, ft)",
                current == facts.IMPERIAL,
                lambda: tracks_app.set_units(facts.IMPERIAL),
            ),
            w.spacer(flex=1),
            flex=1,
        )
