"""OsmAnd, OpenTracks and Joplin on the simulated phone, driven through `execute_action` only:
what their screens show comes from the device facts, and what a user does there lands where
upstream's checks read it."""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest

from android_world.env.device_facts import joplin as joplin_facts
from android_world.env.device_facts import open_tracks as tracks_facts
from android_world.env.device_facts import osmand as osm_facts
from android_world.env.json_action import JSONAction
from android_world.env.sim import osmand_map as geo
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals import upstream_pools


@pytest.fixture()
def env():
    sim = SimEnv(render=False)
    sim.reset(go_home=True)
    yield sim
    sim.close()


def act(env: SimEnv, **kw) -> None:
    env.execute_action(JSONAction(**kw))


def elements(env: SimEnv):
    return env.get_state().ui_elements


def index_of(env: SimEnv, *, text: str | None = None, desc: str | None = None) -> int:
    """The first element with this text or description that is not a text field."""
    for i, e in enumerate(elements(env)):
        if e.is_editable and text:
            continue
        if (text is None or e.text == text) and (desc is None or e.content_description == desc):
            return i
    raise AssertionError(f"no element with text {text!r} desc {desc!r}")


def tap(env: SimEnv, **kw) -> None:
    act(env, action_type="click", index=index_of(env, **kw))


def texts(env: SimEnv) -> list[str]:
    return [e.text for e in elements(env) if e.text]


def search(env: SimEnv, query: str, hint: str = "Search") -> None:
    field = next(i for i, e in enumerate(elements(env)) if e.hint_text == hint)
    act(env, action_type="input_text", index=field, text=query)


# ---- OsmAnd -------------------------------------------------------------------------------------


def test_the_map_holds_upstreams_places_where_upstream_puts_them():
    for name, (lat, lon) in upstream_pools.OSMAND_LOCATIONS.items():
        place = next(p for p in geo.PLACES if p.name == name.split(",")[0])
        assert (place.lat, place.lon) == (lat, lon)
    assert [p.name for p in geo.search("Planken, Liechtenstein")] == ["Planken"]
    assert geo.search("schonberg")[0].name == "Schönberg"
    assert [p.name for p in geo.search("Schaan")] == ["Schaan", "Schaanwald"]
    assert geo.parse_coordinates("47.1973857, 9.5430636") == (47.1973857, 9.5430636)
    assert geo.parse_coordinates("Schaan") is None


def test_routes_follow_the_roads_through_every_stop_in_order():
    stops = [
        geo.PLACES[1].point,
        geo.PLACES[2].point,
        geo.PLACES[5].point,
    ]  # Schaan, Balzers, Mauren
    track = geo.route_through(stops)
    at = [track.index(s) for s in stops]
    assert at == sorted(at) and track[0] == stops[0] and track[-1] == stops[-1]
    assert all(geo.distance_m(a, b) <= 250.5 for a, b in itertools.pairwise(track))


def test_a_view_converts_pixels_and_coordinates_both_ways():
    view = geo.MapView(47.1, 9.5, 14)
    point = view.to_point(*view.to_pixel((47.12, 9.55), 1000, 2000), 1000, 2000)
    assert point == pytest.approx((47.12, 9.55))
    assert (view.panned(0, 0).lat, view.panned(0, 0).lon) == pytest.approx((47.1, 9.5))
    assert view.panned(0, 100).lat > view.lat and view.zoomed(10).zoom == geo.MAX_ZOOM


def _map_pixel(env: SimEnv, point) -> tuple[int, int]:
    box = next(e.bbox_pixels for e in elements(env) if e.resource_name == "map_view")
    x, y = env.phone.apps["net.osmand"].view.to_pixel(
        point, box.x_max - box.x_min, box.y_max - box.y_min
    )
    return int(box.x_min + x), int(box.y_min + y)


def test_a_tapped_place_opens_its_context_menu_and_add_writes_a_favourite(env):
    act(env, action_type="open_app", app_name="osmand")
    x, y = _map_pixel(env, upstream_pools.OSMAND_LOCATIONS["Malbun, Liechtenstein"])
    act(env, action_type="click", x=x, y=y)
    assert {"Malbun", "Village · Liechtenstein", "47.10262, 9.60831"} <= set(texts(env))
    tap(env, text="Add")
    assert "Add favorite" in texts(env)
    tap(env, text="Save")
    saved = osm_facts.read_waypoints(env.controller.read_file(osm_facts.FAVORITES_PATH))
    assert [(p.name, p.lat, p.lon) for p in saved] == [("Malbun", 47.1026191, 9.6083057)]
    assert "Edit" in texts(env)  # the context menu now knows it as a favourite


def test_search_by_coordinates_then_marker_writes_a_row_and_toggles(env):
    act(env, action_type="open_app", app_name="OsmAnd")
    tap(env, desc="Search")
    search(env, "47.1973857, 9.5430636")
    tap(env, text="47.19739, 9.54306")
    tap(env, text="Marker")
    rows = env.controller.sqlite_query(osm_facts.MARKERS_DB, "SELECT * FROM map_markers")
    assert [(r["marker_lat"], r["marker_lon"], r["marker_active"]) for r in rows] == [
        (47.1973857, 9.5430636, 1)
    ]
    tap(env, text="Remove marker")
    assert env.controller.sqlite_query(osm_facts.MARKERS_DB, "SELECT * FROM map_markers") == []


def test_directions_save_a_track_through_the_stops(env):
    act(env, action_type="open_app", app_name="OsmAnd")
    tap(env, desc="Directions")
    assert "My position is unknown: choose a start point." in texts(env)
    for row, hint, place in (
        ("From", "Choose start point", "Ruggell"),
        ("To", "Choose destination", "Balzers"),
    ):
        tap(env, text=row)
        search(env, place, hint)
        tap(env, text=place)
    tap(env, text="Add intermediate")
    search(env, "Vaduz", "Add intermediate destination")
    tap(env, text="Vaduz")
    tap(env, text="Details")
    assert "Ruggell – Vaduz" in texts(env) and "Vaduz – Balzers" in texts(env)
    tap(env, desc="Save as track")
    tap(env, text="Save")
    (name,) = env.controller.list_dir(osm_facts.TRACKS_DIR)
    assert name == "2023-10-15_15-34_Sun.gpx"
    points = osm_facts.read_track_points(env.controller.read_file(f"{osm_facts.TRACKS_DIR}/{name}"))
    ruggell, vaduz, balzers = (
        next(p.point for p in geo.PLACES if p.name == n) for n in ("Ruggell", "Vaduz", "Balzers")
    )
    assert points[0] == pytest.approx(ruggell) and points[-1] == pytest.approx(balzers)
    assert any(p == pytest.approx(vaduz) for p in points)


def test_dragging_pans_and_zoom_buttons_zoom(env):
    act(env, action_type="open_app", app_name="OsmAnd")
    app = env.phone.apps["net.osmand"]
    before = app.view
    act(env, action_type="scroll", direction="down")
    assert app.view.lat < before.lat and app.view.zoom == before.zoom
    tap(env, desc="Zoom in")
    assert app.view.zoom == before.zoom + 1


def test_gpx_helpers_round_trip_and_refuse_garbage():
    data = osm_facts.favorites_gpx([osm_facts.Waypoint(47.1, 9.5, "A & B", "note")])
    assert osm_facts.read_waypoints(data) == [osm_facts.Waypoint(47.1, 9.5, "A & B", "note")]
    assert osm_facts.read_waypoints(osm_facts.remove_waypoints(data)) == []
    track = osm_facts.track_gpx("t", [(47.1, 9.5), (47.2, 9.6)])
    assert osm_facts.read_track_points(track) == [(47.1, 9.5), (47.2, 9.6)]
    with pytest.raises(ValueError):
        osm_facts.read_waypoints(b"<gpx")
    with pytest.raises(ValueError):
        osm_facts.read_track_points(
            b'<gpx xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>'
            b'<trkpt lat="x" lon="1"/></trkseg></trk></gpx>'
        )


def test_shared_storage_paths_name_the_same_files(env):
    env.controller.write_text("/data/media/0/Download/a.txt", "x")
    assert env.controller.read_text("/storage/emulated/0/Download/a.txt") == "x"
    assert env.controller.read_text("/sdcard/Download/a.txt") == "x"


# ---- OpenTracks -----------------------------------------------------------------------------------


def _track(env: SimEnv, name: str, category: str, start_ms: int, minutes: int, meters: float):
    env.controller.sqlite_execute(tracks_facts.DB, tracks_facts.SCHEMA)
    env.controller.sqlite_execute(
        tracks_facts.DB,
        "INSERT INTO tracks (name, category, activity_type, starttime, stoptime, totaldistance,"
        " totaltime, movingtime, elevationgain) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            name,
            category,
            category,
            start_ms,
            start_ms + minutes * 60_000,
            meters,
            minutes * 60_000,
            minutes * 60_000,
            120,
        ),
    )


def test_tracks_list_newest_first_in_miles_and_metric_after_the_setting(env):
    _track(env, "Morning Run", "running", 1_697_180_400_000, 75, 4506.0)  # Oct 13 07:00
    _track(env, "Lake Paddle", "kayaking", 1_697_266_800_000, 30, 1207.0)  # Oct 14 07:00
    act(env, action_type="open_app", app_name="OpenTracks")
    shown = texts(env)
    assert shown.index("Lake Paddle") < shown.index("Morning Run")
    assert "running · Oct 13, 2023, 7:00 AM" in shown and "2.80 mi · 1:15:00" in shown
    tap(env, text="Morning Run")
    assert {"1:15:00", "Total time", "2.80 mi", "running", "394 ft"} <= set(texts(env))
    act(env, action_type="navigate_back")
    tap(env, desc="More options")
    tap(env, text="Settings")
    tap(env, text="Metric (km, m)")
    assert tracks_facts.units_in(env.controller.read_file(tracks_facts.PREFS_PATH)) == "METRIC"
    act(env, action_type="navigate_back")
    assert "4.51 km · 1:15:00" in texts(env)


def test_track_formats():
    assert tracks_facts.format_duration(4_500_000) == "1:15:00"
    assert tracks_facts.format_distance(498.9, tracks_facts.IMPERIAL) == "0.31 mi"
    assert tracks_facts.format_start(1_697_180_400_000) == "Oct 13, 2023, 7:00 AM"
    assert tracks_facts.units_in(b"<map/>") == tracks_facts.DEFAULT_UNITS


# ---- Joplin ----------------------------------------------------------------------------------------


def _notebook(env: SimEnv, folder_id: str, title: str) -> None:
    env.controller.sqlite_execute(joplin_facts.DB, joplin_facts.SCHEMA)
    env.controller.sqlite_execute(
        joplin_facts.DB, "INSERT INTO folders (id, title) VALUES (?, ?)", (folder_id, title)
    )


def _note(env, note_id, folder_id, title, body, todo=0, done=0, updated=0) -> None:
    env.controller.sqlite_execute(
        joplin_facts.DB,
        "INSERT INTO notes (id, parent_id, title, body, is_todo, todo_completed,"
        " user_updated_time) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (note_id, folder_id, title, body, todo, done, updated),
    )


def test_notebooks_notes_and_todos(env):
    _notebook(env, "f1", "Work")
    _notebook(env, "f2", "Home")
    _note(env, "n1", "f1", "Report", "Line one\nLine two", updated=5)
    _note(env, "n2", "f1", "Call Bob", "", todo=1, updated=1)
    _note(env, "n3", "f2", "Paint", "", todo=1, done=1, updated=9)
    act(env, action_type="open_app", app_name="Joplin")
    shown = texts(env)
    assert shown[shown.index("All notes") :][:4] == ["All notes", "Call Bob", "Paint", "Report"]
    tap(env, desc="Show side menu")
    assert texts(env)[-3:] == ["NOTEBOOKS", "Home", "Work"]
    tap(env, text="Work")
    items = elements(env)
    boxes = [i for i, e in enumerate(items) if e.resource_name == "todo_checkbox"]
    assert len(boxes) == 1 and items[boxes[0] + 1].text == "Call Bob"
    tap(env, text="Report")
    assert [e.text for e in elements(env) if e.resource_name == "note_body"] == [
        "Line one",
        "Line two",
    ]


def test_search_finds_by_title_and_text_and_a_new_note_is_searchable(env):
    _notebook(env, "f1", "Work")
    _note(env, "n1", "f1", "Report", "quarterly numbers")
    act(env, action_type="open_app", app_name="Joplin")
    tap(env, desc="Search")
    search(env, "QUARTERLY", "Search...")
    assert "Report" in texts(env)
    act(env, action_type="navigate_back")  # Enter hid the keyboard: Back leaves the search
    tap(env, desc="Add")
    tap(env, text="New to-do")
    title = next(i for i, e in enumerate(elements(env)) if e.hint_text == "Title")
    act(env, action_type="input_text", index=title, text="Buy milk")
    tap(env, desc="Save")
    rows = env.controller.sqlite_query(
        joplin_facts.DB, "SELECT title, is_todo, parent_id FROM notes_normalized WHERE is_todo = 1"
    )
    assert rows == [{"title": "buy milk", "is_todo": 1, "parent_id": "f1"}]


def test_device_facts_need_no_simulated_phone():
    """Task-side code reads device facts, never `android_world.env.sim` (so it runs over adb)."""
    modules = (
        "android_world.env.device_facts.osmand",
        "android_world.env.device_facts.open_tracks",
        "android_world.env.device_facts.joplin",
        "android_world.task_evals.single.osmand",
        "android_world.task_evals.single.sports_tracker",
        "android_world.task_evals.single.joplin_notes",
    )
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m.startswith('android_world.env.sim')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"
