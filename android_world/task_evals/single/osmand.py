"""OsmAnd tasks (upstream's `single/osmand.py`): a favourite, a map marker and a track.

The location is one of upstream's twelve places on the preloaded Liechtenstein map, named
("Schaan, Liechtenstein") or, for a favourite or marker half the time, as its coordinates
("47.1663432, 9.5103085"); a track passes two to four places in a given order. Success is read
where upstream reads it (`env/device_facts/osmand.py`): a favourite in the favourites GPX whose
name contains the location or whose position lies within 0.001 degrees of it; a row of the
`map_markers` table within 0.001 degrees; a GPX file in the tracks folder whose track points pass
every waypoint, in order, within 0.001 degrees. The oracles search for each place and use the
context menu ("Add", then "Save"; "Marker") or Directions (from, intermediate points, to, then
"Details" and "Save as track").
"""

from __future__ import annotations

import logging
import random
import re
from collections.abc import Iterable, Iterator
from typing import Any

from android_world.env import interface
from android_world.env.device_facts import osmand as facts
from android_world.env.json_action import JSONAction
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals import task_eval, upstream_pools

LOCATIONS: dict[str, tuple[float, float]] = upstream_pools.OSMAND_LOCATIONS
DELTA_DEG = 0.001  # 50 to 100 m in most of the populated world, as upstream says
_NUMBERS = re.compile(r"-?\d*\.?\d+")
_LOG = logging.getLogger(__name__)
LatLon = tuple[float, float]


# ---- locations ----------------------------------------------------------------------------------


def coords_match(target: LatLon, actual: LatLon, delta_deg: float = DELTA_DEG) -> bool:
    """Within `delta_deg` on both axes (upstream's Chebyshev test)."""
    return all(abs(t - a) < delta_deg for t, a in zip(target, actual, strict=True))


def parse_coords(location: str) -> LatLon | None:
    """(lat, lon) when the text holds exactly two numbers."""
    numbers = [float(n) for n in _NUMBERS.findall(location)]
    return (numbers[0], numbers[1]) if len(numbers) == 2 else None


def location_coords(location: str) -> LatLon | None:
    """The coordinates a location names: typed in it, or those of a place upstream lists."""
    return parse_coords(location) or LOCATIONS.get(location)


def random_location_str(names_only: bool = False, num_locations: int = 1) -> list[str]:
    """Upstream's `_random_location_str`: places drawn without repeats; unless `names_only`,
    a coin flip gives their names or their coordinates ("lat, lon")."""
    names = random.sample(list(LOCATIONS), num_locations)
    if names_only:
        return names
    if random.getrandbits(1):
        return names
    return [f"{LOCATIONS[n][0]}, {LOCATIONS[n][1]}" for n in names]


def result_title(location: str) -> str:
    """What OsmAnd's search lists for the location: the place's name, or the typed point to
    five decimals."""
    if location in LOCATIONS:
        return location.split(",")[0]
    point = parse_coords(location)
    return f"{point[0]:.5f}, {point[1]:.5f}" if point else location


def waypoint_matches(point: facts.Waypoint, location: str) -> bool:
    """Upstream's favourite test: the name holds the location, or the position is within 0.001
    degrees of it."""
    if location in point.name:
        return True
    target = location_coords(location)
    return target is not None and coords_match((point.lat, point.lon), target)


def track_passes(points: Iterable[LatLon], targets: list[LatLon]) -> bool:
    """Every target met by some track point, in order (any points between)."""
    remaining = iter(targets)
    wanted = next(remaining, None)
    for point in points:
        if wanted is not None and coords_match(point, wanted):
            wanted = next(remaining, None)
            if wanted is None:
                return True
    return wanted is None


# ---- device ---------------------------------------------------------------------------------------


def clear_favorites(env: interface.AsyncEnv) -> None:
    """Upstream's `_clear_favorites`: the backup folder emptied, every favourite removed from the
    favourites file and its legacy backup (a file that is not there is only logged)."""
    controller = env.controller
    for name in controller.list_dir(facts.BACKUP_DIR):
        controller.remove(f"{facts.BACKUP_DIR}/{name}")
    for path in (facts.FAVORITES_PATH, facts.LEGACY_FAVORITES_PATH):
        if not controller.exists(path):
            _LOG.info("Favorites file %s not found during cleanup.", path)
            continue
        try:
            controller.write_file(path, facts.remove_waypoints(controller.read_file(path)))
        except ValueError:
            controller.write_file(path, facts.favorites_gpx(()))


def favorites(env: interface.AsyncEnv) -> list[facts.Waypoint]:
    if not env.controller.exists(facts.FAVORITES_PATH):
        return []
    try:
        return facts.read_waypoints(env.controller.read_file(facts.FAVORITES_PATH))
    except ValueError:
        return []


def clear_markers(env: interface.AsyncEnv) -> None:
    env.controller.sqlite_execute(facts.MARKERS_DB, facts.MARKERS_SCHEMA)
    env.controller.sqlite_execute(facts.MARKERS_DB, f"DELETE FROM {facts.MARKERS_TABLE}")


def markers(env: interface.AsyncEnv) -> list[dict[str, Any]]:
    env.controller.sqlite_execute(facts.MARKERS_DB, facts.MARKERS_SCHEMA)
    return env.controller.sqlite_query(facts.MARKERS_DB, f"SELECT * FROM {facts.MARKERS_TABLE}")


def clear_tracks(env: interface.AsyncEnv) -> None:
    for name in env.controller.list_dir(facts.TRACKS_DIR):
        env.controller.remove(f"{facts.TRACKS_DIR}/{name}")


def saved_tracks(env: interface.AsyncEnv) -> Iterator[list[LatLon]]:
    """The track points of every GPX file in the tracks folder (files that do not parse: none)."""
    for name in env.controller.list_dir(facts.TRACKS_DIR):
        path = f"{facts.TRACKS_DIR}/{name}"
        if env.controller.is_dir(path):
            continue
        try:
            yield facts.read_track_points(env.controller.read_file(path))
        except ValueError:
            continue


# ---- reference solutions --------------------------------------------------------------------------


def search_and_pick(
    env: interface.AsyncEnv, location: str, field_hint: str
) -> Iterator[JSONAction]:
    """Type the location into the open search and tap its result."""
    yield ui.type_into(env, ui.hint_is(field_hint), location, "the search field")
    title = result_title(location)
    index = yield from ui.scroll_to(
        env, ui.matching(text=title, res="android:id/title"), f"the result {title!r}"
    )
    yield JSONAction(action_type="click", index=index)


def open_on_map(env: interface.AsyncEnv, location: str) -> Iterator[JSONAction]:
    """Open OsmAnd, search the location and open its context menu."""
    yield ui.open_app("OsmAnd")
    yield ui.tap(env, desc="Search")
    yield from search_and_pick(env, location, "Search")


# ---- tasks ----------------------------------------------------------------------------------------


class _OsmTaskEval(task_eval.TaskEval):
    app_names = ("osmand",)


class OsmAndFavorite(_OsmTaskEval):
    """A favourite for a place (named, or given by its coordinates)."""

    complexity = 1.3
    difficulty = "medium"
    tags = ("search", "complex_ui_understanding", "parameterized")
    optimal_steps = 6
    schema = {
        "type": "object",
        "properties": {"location": {"type": "string"}},
        "required": ["location"],
    }
    template = "Add a favorite location marker for {location} in the OsmAnd maps app."

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"location": random_location_str()[0]}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_favorites(env)

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        found = any(waypoint_matches(p, self.params["location"]) for p in favorites(env))
        return 1.0 if found else 0.0

    def tear_down(self, env: interface.AsyncEnv) -> None:
        clear_favorites(env)
        super().tear_down(env)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from open_on_map(env, self.params["location"])
        yield ui.tap(env, text="Add")
        yield ui.tap(env, text="Save")
        yield ui.done()


class OsmAndMarker(_OsmTaskEval):
    """A map marker at a place (named, or given by its coordinates)."""

    complexity = 2.0
    difficulty = "hard"
    tags = ("complex_ui_understanding", "search", "parameterized")
    optimal_steps = 10
    schema = {
        "type": "object",
        "properties": {"location": {"type": "string"}},
        "required": ["location"],
    }
    template = "Add a location marker for {location} in the OsmAnd maps app."

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"location": random_location_str()[0]}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        clear_markers(env)  # as upstream's SQLiteApp: before and after the base set-up
        super().initialize_task(env)
        clear_markers(env)

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        target = location_coords(self.params["location"])
        if target is None:
            return 0.0
        found = any(
            coords_match((float(r["marker_lat"]), float(r["marker_lon"])), target)
            for r in markers(env)
            if r["marker_lat"] is not None and r["marker_lon"] is not None
        )
        return 1.0 if found else 0.0

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_markers(env)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from open_on_map(env, self.params["location"])
        yield ui.tap(env, text="Marker")
        yield ui.done()


class OsmAndTrack(_OsmTaskEval):
    """A saved track through two to four places, in the order given."""

    complexity = 12
    difficulty = "hard"
    tags = ("complex_ui_understanding", "search", "data_entry", "repetition", "parameterized")
    optimal_steps = 60
    schema = {
        "type": "object",
        "properties": {"waypoints": {"type": "array", "items": {"type": "string"}}},
        "required": ["waypoints"],
    }
    template = ""  # the goal is built in code, as upstream's
    fidelity_notes = (
        "app: the simulated OsmAnd saves a route as a track from Directions (start,"
        " intermediate points, destination, then 'Details' and 'Save as track'); it has no"
        " 'Plan a route' tool, whose saved track upstream's check reads the same way",
    )

    @property
    def goal(self) -> str:
        waypoints = self.params["waypoints"]
        if len(waypoints) < 2:
            raise ValueError("Waypoints parameter must contain at least two locations.")
        return (
            f"Save a track with waypoints {', '.join(waypoints)} in the OsmAnd maps app in the"
            " same order as listed."
        )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        waypoints = random_location_str(names_only=True, num_locations=random.randint(2, 4))
        return {"track_name": f"{waypoints[0]} to {waypoints[-1]}", "waypoints": waypoints}

    def targets(self) -> list[LatLon]:
        found = {w: location_coords(w) for w in self.params["waypoints"]}
        missing = ", ".join(f'"{w}"' for w, c in found.items() if c is None)
        if missing:
            raise ValueError(
                f"Unable to look up coordinates for waypoint location parameter(s) {missing}."
                " Only lat/lon coordinate strings or the names of upstream's places are supported."
            )
        return [c for c in found.values() if c is not None]

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_tracks(env)
        self.targets()  # an unknown waypoint fails set-up, as upstream's

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        targets = self.targets()
        return 1.0 if any(track_passes(t, targets) for t in saved_tracks(env)) else 0.0

    def tear_down(self, env: interface.AsyncEnv) -> None:
        clear_tracks(env)
        super().tear_down(env)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        first, *middle, last = self.params["waypoints"]
        yield ui.open_app("OsmAnd")
        yield ui.tap(env, desc="Directions")
        for row, hint, location in (
            ("From", "Choose start point", first),
            ("To", "Choose destination", last),
        ):
            index = yield from ui.scroll_to(env, ui.text_is(row), repr(row))
            yield JSONAction(action_type="click", index=index)
            yield from search_and_pick(env, location, hint)
        for location in middle:
            index = yield from ui.scroll_to(env, ui.text_is("Add intermediate"), "Add intermediate")
            yield JSONAction(action_type="click", index=index)
            yield from search_and_pick(env, location, "Add intermediate destination")
        index = yield from ui.scroll_to(env, ui.text_is("Details"), "Details")
        yield JSONAction(action_type="click", index=index)
        yield ui.tap(env, desc="Save as track")
        yield ui.tap(env, text="Save")
        yield ui.done()
