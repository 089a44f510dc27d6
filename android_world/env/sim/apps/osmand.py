"""OsmAnd (net.osmand): an offline map of Liechtenstein with favourites, markers and routes.

What upstream's three OsmAnd tasks need, laid out as OsmAnd 4.6 lays it out:

- the map (`osmand_map`): drag to move it, "Zoom in"/"Zoom out", tap a place (its dot or label)
  or a favourite to open its context menu, long-press anywhere for that point's menu; the map's
  labels are pixels only (OsmAnd's map view has no accessibility children);
- the context menu (a bottom sheet): the name, its kind or "Location", the coordinates, a
  "Directions" button and the actions "Add" (a favourite; "Edit" once it is one), "Marker"
  ("Remove marker" once it is one), "Share" and "Actions";
- "Search" (top left): places by name, or a typed "lat, lon"; a result opens its context menu;
- "Menu" (bottom left): Search, Directions, My places (favourites and tracks), Map markers;
- "Directions" (bottom right): start, intermediate points and destination, each chosen through
  search; the route follows the roads; its "Details" page saves it as a track
  ("Save as track": a GPX file in the app's tracks folder).

Favourites are written to the favourites GPX file, markers to the `map_markers` table and tracks
to GPX files, where upstream's checks read them (`env/device_facts/osmand.py`). The phone has no
GPS fix, so "My position" cannot start a route.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable

from android_world.env.device_facts import osmand as facts
from android_world.env.sim import osmand_map as geo
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen
from android_world.env.sim.widgets import Node

MAP_ACTIVITY = "net.osmand.plus.activities.MapActivity"
SAME_POINT = 1e-6  # degrees: a favourite or marker "at" a point


@dataclasses.dataclass(frozen=True)
class Stop:
    """A point the user picked: what it is called and where it is."""

    title: str
    point: geo.LatLon
    kind: str = "Location"  # a place's kind, "Favorite" or "Location"


@dataclasses.dataclass
class RoutePlan:
    start: Stop | None = None  # None: "My position" (no GPS fix on this phone)
    vias: list[Stop] = dataclasses.field(default_factory=list)
    end: Stop | None = None

    def stops(self) -> list[Stop] | None:
        if self.start is None or self.end is None:
            return None
        return [self.start, *self.vias, self.end]


def place_stop(place: geo.Place) -> Stop:
    return Stop(place.name, place.point, place.kind)


def point_stop(point: geo.LatLon) -> Stop:
    return Stop(geo.format_point(point), point)


def _near(a: geo.LatLon, b: geo.LatLon) -> bool:
    return abs(a[0] - b[0]) < SAME_POINT and abs(a[1] - b[1]) < SAME_POINT


class OsmAndApp(App):
    package = facts.PACKAGE

    def __init__(self, phone):
        super().__init__(phone)
        self.view = geo.MapView()
        self.route = RoutePlan()

    def install(self) -> None:
        self.device.sqlite_execute(facts.MARKERS_DB, facts.MARKERS_SCHEMA)
        self.device.make_dirs(facts.TRACKS_DIR)

    def start(self) -> None:
        self.route = RoutePlan()
        super().start()

    def main_screen(self) -> Screen:
        return MapScreen(self)

    # stores --------------------------------------------------------------------------------
    def favorites(self) -> list[facts.Waypoint]:
        if not self.device.exists(facts.FAVORITES_PATH):
            return []
        try:
            return facts.read_waypoints(self.device.read_file(facts.FAVORITES_PATH))
        except ValueError:
            return []  # a damaged file shows no favourites, as the app would

    def add_favorite(self, point: facts.Waypoint) -> None:
        self.device.write_file(
            facts.FAVORITES_PATH, facts.favorites_gpx([*self.favorites(), point])
        )

    def markers(self) -> list[dict]:
        self.device.sqlite_execute(facts.MARKERS_DB, facts.MARKERS_SCHEMA)
        return self.device.sqlite_query(
            facts.MARKERS_DB,
            "SELECT * FROM map_markers WHERE marker_active = 1 ORDER BY marker_added",
        )

    def marker_at(self, point: geo.LatLon) -> dict | None:
        return next(
            (m for m in self.markers() if _near((m["marker_lat"], m["marker_lon"]), point)), None
        )

    def add_marker(self, stop: Stop) -> None:
        added = int(self.device.device_time().timestamp() * 1000)
        row = facts.marker_row(
            f"{stop.point[0]:.7f},{stop.point[1]:.7f}", *stop.point, stop.title, added
        )
        columns = ", ".join(f'"{c}"' for c in row)
        self.device.sqlite_execute(
            facts.MARKERS_DB,
            f"INSERT OR REPLACE INTO map_markers ({columns}) VALUES ({', '.join('?' * len(row))})",
            tuple(row.values()),
        )

    def remove_marker(self, marker_id: str) -> None:
        self.device.sqlite_execute(
            facts.MARKERS_DB, "DELETE FROM map_markers WHERE marker_id = ?", (marker_id,)
        )

    def tracks(self) -> list[str]:
        return [n for n in self.device.list_dir(facts.TRACKS_DIR) if n.endswith(".gpx")]


def map_node(screen: Screen, picture: geo.MapPicture, on_tap=None) -> Node:
    """The map view: a drawn picture that pans under a finger and, with `on_tap`, hears where
    a touch lands (view pixels)."""
    app: OsmAndApp = screen.app  # type: ignore[assignment]

    def drag(sx: float, sy: float, ex: float, ey: float) -> None:
        app.view = app.view.panned(ex - sx, ey - sy)

    node = Node(
        kind="painted",
        cls="android.view.View",
        res_id="map_view",
        clickable=True,
        long_clickable=True,
        on_drag=drag,
        style={"picture": picture},
    )
    if on_tap is not None:

        def tap(x: float, y: float, long: bool) -> None:
            left, top, right, bottom = node.frame
            on_tap(x - left, y - top, right - left, bottom - top, long)

        node.on_tap_at = tap
    return node


def map_button(desc: str, glyph: str, handler: Callable[[], None]) -> Node:
    """A round-cornered white control floating on the map."""
    return w.row(
        w.icon_button(desc, glyph, handler),
        kind="box",
        w=144,
        h=144,
        style={"bg": (255, 255, 255)},
    )


def zoom_buttons(app: OsmAndApp) -> Node:
    def zoom(step: int) -> Callable[[], None]:
        return lambda: setattr(app, "view", app.view.zoomed(step))

    return w.row(
        w.spacer(flex=1),
        w.column(
            map_button("Zoom in", "add", zoom(1)),
            map_button("Zoom out", "remove", zoom(-1)),
            w=144,
            gap=12,
        ),
        h=300,
        pad=(0, 0, 24, 0),
    )


def sheet(*children: Node | None, **kw) -> Node:
    """A white card over the map (a bottom sheet or a top panel)."""
    return w.column(*children, kind="box", style={"bg": (255, 255, 255)}, **kw)


class MapScreen(Screen):
    """The map, its floating controls, and the context menu of a picked point."""

    activity = MAP_ACTIVITY

    def __init__(self, app: App):
        super().__init__(app)
        self.selected: Stop | None = None

    @property
    def osm(self) -> OsmAndApp:
        return self.app  # type: ignore[return-value]

    def picture(self) -> geo.MapPicture:
        pins = (("pick", self.selected.point),) if self.selected else ()
        return geo.MapPicture(
            self.osm.view,
            favorites=tuple((f.lat, f.lon) for f in self.osm.favorites()),
            markers=tuple((m["marker_lat"], m["marker_lon"]) for m in self.osm.markers()),
            pins=pins,
        )

    def build(self) -> Node:
        top = w.row(
            map_button("Search", "search", self.open_search),
            w.spacer(flex=1),
            h=144,
            pad=(24, 24, 24, 0),
        )
        bottom = (
            self.context_menu(self.selected)
            if self.selected
            else w.row(
                map_button("Menu", "menu", self.open_menu),
                w.spacer(flex=1),
                map_button("Directions", "send", self.directions),
                h=192,
                pad=(24, 0, 24, 48),
            )
        )
        controls = w.column(top, w.spacer(flex=1), zoom_buttons(self.osm), w.spacer(flex=1), bottom)
        return Node(
            kind="box",
            direction="overlay",
            children=[map_node(self, self.picture(), self.tap_map), controls],
            flex=1,
        )

    # the map -------------------------------------------------------------------------------
    def tap_map(self, x: float, y: float, width: int, height: int, long: bool) -> None:
        view = self.osm.view
        for favorite in self.osm.favorites():
            fx, fy = view.to_pixel((favorite.lat, favorite.lon), width, height)
            if abs(fx - x) <= 32 and abs(fy - y) <= 32:
                self.selected = Stop(favorite.name, (favorite.lat, favorite.lon), "Favorite")
                return
        if long:
            self.selected = point_stop(view.to_point(x, y, width, height))
            return
        place = geo.place_at(view, x, y, width, height)
        self.selected = place_stop(place) if place else None

    def show(self, stop: Stop) -> None:
        """Centre the map on a picked point and open its context menu."""
        self.osm.view = self.osm.view.centred(stop.point, geo.PLACE_ZOOM)
        self.selected = stop

    def on_back(self) -> bool:
        if self.selected is not None:
            self.selected = None
            return True
        return False

    # the context menu ----------------------------------------------------------------------
    def context_menu(self, stop: Stop) -> Node:
        favorite = any(_near((f.lat, f.lon), stop.point) for f in self.osm.favorites())
        marker = self.osm.marker_at(stop.point)
        actions = w.row(
            w.button("Edit" if favorite else "Add", lambda: self.edit_favorite(stop)),
            w.button(
                "Remove marker" if marker else "Marker",
                (lambda: self.osm.remove_marker(marker["marker_id"]))
                if marker
                else (lambda: self.add_marker(stop)),
            ),
            w.button("Share", lambda: self.share(stop)),
            w.button("Actions", lambda: self.more_actions(stop)),
            h=w.BUTTON_H,
            gap=12,
        )
        header = w.row(
            w.column(
                w.label(stop.title, size=w.TITLE_SIZE, bold=True, res_id="context_menu_line1"),
                w.label(
                    stop.kind if stop.kind == "Location" else f"{stop.kind} · {geo.COUNTRY}",
                    size=w.SECONDARY_SIZE,
                    color="secondary",
                    res_id="context_menu_line2",
                ),
                flex=1,
            ),
            w.icon_button("Directions", "send", lambda: self.directions_to(stop)),
            w.icon_button("Close", "close", self.close_menu),
            h=170,
        )
        return sheet(
            header,
            w.label(geo.format_point(stop.point), color="secondary", res_id="context_menu_coords"),
            actions,
            pad=(36, 24, 24, 48),
            gap=12,
        )

    def close_menu(self) -> None:
        self.selected = None

    def edit_favorite(self, stop: Stop) -> None:
        self.push(FavoriteEditor(self.app, stop))

    def add_marker(self, stop: Stop) -> None:
        self.osm.add_marker(stop)
        self.toast(f"Marker added: {stop.title}")

    def share(self, stop: Stop) -> None:
        def copy() -> None:
            self.device.set_clipboard(geo.format_point(stop.point))
            self.toast("Copied to clipboard")

        self.show_menu([("Copy coordinates", copy)])

    def more_actions(self, stop: Stop) -> None:
        def start_here() -> None:
            self.osm.route.start = stop
            self.selected = None
            self.push(RouteScreen(self.app))

        self.show_menu([("Directions from", start_here)])

    def directions_to(self, stop: Stop) -> None:
        self.osm.route.end = stop
        self.selected = None
        self.push(RouteScreen(self.app))

    # controls ------------------------------------------------------------------------------
    def open_search(self) -> None:
        self.push(SearchScreen(self.app, "Search", self.show))

    def directions(self) -> None:
        self.push(RouteScreen(self.app))

    def open_menu(self) -> None:
        self.show_menu(
            [
                ("Search", self.open_search),
                ("Directions", self.directions),
                ("My places", lambda: self.push(MyPlacesScreen(self.app, self.show))),
                ("Map markers", lambda: self.push(MarkersScreen(self.app, self.show))),
            ]
        )


class SearchScreen(Screen):
    """Search: places by name, favourites, or a typed "lat, lon". Picking a result calls
    `on_pick` and leaves."""

    activity = MAP_ACTIVITY

    def __init__(self, app: App, title: str, on_pick: Callable[[Stop], None]):
        super().__init__(app)
        self.title, self.on_pick = title, on_pick
        self.query = ""
        self.focus = "search_field"

    def results(self) -> list[Stop]:
        query = self.query.strip()
        if not query:
            return []
        found: list[Stop] = []
        point = geo.parse_coordinates(query)
        if point is not None:
            found.append(point_stop(point))
        found += [place_stop(p) for p in geo.search(query)]
        wanted = geo.fold(query)
        osm: OsmAndApp = self.app  # type: ignore[assignment]
        found += [
            Stop(f.name, (f.lat, f.lon), "Favorite")
            for f in osm.favorites()
            if wanted and wanted in geo.fold(f.name)
        ]
        return found

    def build(self) -> Node:
        results = self.results()
        rows = [
            w.list_row(
                stop.title,
                stop.kind if stop.kind == "Location" else f"{stop.kind} · {geo.COUNTRY}",
                icon="location",
                on_click=lambda s=stop: self.pick(s),
                key=f"result_{i}",
            )
            for i, stop in enumerate(results)
        ]
        if self.query.strip() and not rows:
            rows = [w.empty_state("Nothing found")]
        field = w.text_field(
            self.query,
            self.set_query,
            hint=self.title,
            key="search_field",
            on_enter=self.first_result,
        )
        return w.column(
            w.row(
                w.icon_button("Navigate up", "back", self.close),
                field,
                h=w.APP_BAR_H,
                pad=(12, 15, 24, 15),
                kind="appbar",
            ),
            w.scroll_list("search_results", *rows),
            flex=1,
        )

    def set_query(self, text: str) -> None:
        self.query = text

    def first_result(self) -> None:
        """Enter keeps the results on screen (the keyboard hides), as OsmAnd's search does."""
        self.focus = None

    def pick(self, stop: Stop) -> None:
        self.close()
        self.on_pick(stop)


class FavoriteEditor(Screen):
    """ "Add favorite": name (the place's), description, address and group, then Save."""

    activity = MAP_ACTIVITY

    def __init__(self, app: App, stop: Stop):
        super().__init__(app)
        self.stop = stop
        self.name = stop.title
        self.description = ""
        self.address = "" if stop.kind == "Location" else geo.COUNTRY

    def build(self) -> Node:
        return w.column(
            w.app_bar("Add favorite", on_up=self.close),
            w.scroll_list(
                "favorite_form",
                w.text_field(self.name, self.set_name, hint="Name", key="name"),
                w.text_field(
                    self.description, self.set_description, hint="Description", key="description"
                ),
                w.text_field(self.address, self.set_address, hint="Address", key="address"),
                w.list_row("Group", "Favorites", icon="folder", key="group"),
                w.label(geo.format_point(self.stop.point), color="secondary", pad=(48, 0, 48, 0)),
                pad=(24, 24, 24, 24),
                gap=24,
            ),
            w.row(
                w.spacer(flex=1),
                w.button("Cancel", self.close, variant="text", w=260),
                w.button("Save", self.save, variant="filled", w=260),
                h=170,
                gap=24,
                pad=(24, 25, 36, 25),
            ),
            flex=1,
        )

    def set_name(self, text: str) -> None:
        self.name = text

    def set_description(self, text: str) -> None:
        self.description = text

    def set_address(self, text: str) -> None:
        self.address = text

    def save(self) -> None:
        name = self.name.strip()
        if not name:
            self.toast("Please enter a name")
            return
        osm: OsmAndApp = self.app  # type: ignore[assignment]
        osm.add_favorite(facts.Waypoint(*self.stop.point, name, self.description.strip()))
        self.close()


class RouteScreen(Screen):
    """Directions: from, intermediate points and to, each picked through search; the route along
    the roads, its length and time, and "Details"."""

    activity = MAP_ACTIVITY

    @property
    def plan(self) -> RoutePlan:
        return self.app.route  # type: ignore[attr-defined]

    def build(self) -> Node:
        plan = self.plan
        rows = self._point_rows(plan)
        stops = plan.stops()
        track = geo.route_through([s.point for s in stops]) if stops else []
        rows.append(self.summary(track))
        pins = [("start", plan.start.point)] if plan.start else []
        pins += [("via", v.point) for v in plan.vias]
        pins += [("end", plan.end.point)] if plan.end else []
        picture = geo.MapPicture(self.app.view, route=tuple(track), pins=tuple(pins))  # type: ignore[attr-defined]
        return w.column(
            w.app_bar(
                "Directions",
                on_up=self.close,
                actions=[w.button("Cancel", self.cancel, variant="text", w=220)],
            ),
            w.scroll_list("route_points", *rows),
            w.divider(),
            w.column(map_node(self, picture), flex=1),
            flex=1,
        )

    def _point_rows(self, plan: RoutePlan) -> list[Node | None]:
        """From, each intermediate point (removable) and To, then "Add intermediate"."""
        rows: list[Node | None] = [
            w.list_row(
                "From",
                plan.start.title if plan.start else "My position",
                icon="location",
                on_click=lambda: self.choose("Choose start point", "start"),
                key="from",
            )
        ]
        for i, via in enumerate(plan.vias):
            rows.append(
                w.list_row(
                    f"Via {i + 1}" if len(plan.vias) > 1 else "Via",
                    via.title,
                    icon="location",
                    trailing=w.icon_button(
                        "Remove intermediate point", "close", lambda i=i: self.plan.vias.pop(i)
                    ),
                    key=f"via_{i}",
                )
            )
        rows.append(
            w.list_row(
                "To",
                plan.end.title if plan.end else "Choose destination",
                icon="location",
                on_click=lambda: self.choose("Choose destination", "end"),
                key="to",
            )
        )
        rows.append(
            w.row(
                w.button(
                    "Add intermediate",
                    lambda: self.choose("Add intermediate destination", "via"),
                    variant="outlined",
                    w=420,
                ),
                w.spacer(flex=1),
                h=150,
                pad=(36, 15, 36, 15),
            )
        )
        return rows

    def summary(self, track: list[geo.LatLon]) -> Node:
        if self.plan.start is None:
            text, ready = "My position is unknown: choose a start point.", False
        elif self.plan.end is None:
            text, ready = "Choose a destination.", False
        else:
            km = geo.length_m(track) / 1000
            text, ready = f"{km:.1f} km · {max(1, round(km / 45 * 60))} min", True
        return sheet(
            w.label(text, bold=ready, res_id="route_summary", max_lines=2),
            w.row(
                w.button("Details", self.details, enabled=ready, w=300),
                w.spacer(flex=1),
                w.button("Start", self.start, variant="filled", enabled=ready, w=300),
                h=w.BUTTON_H,
            ),
            pad=(36, 24, 36, 36),
            gap=18,
        )

    def choose(self, title: str, slot: str) -> None:
        def put(stop: Stop) -> None:
            if slot == "start":
                self.plan.start = stop
            elif slot == "end":
                self.plan.end = stop
            else:
                self.plan.vias.append(stop)
            self.app.view = self.app.view.centred(stop.point)  # type: ignore[attr-defined]

        self.push(SearchScreen(self.app, title, put))

    def cancel(self) -> None:
        self.app.route = RoutePlan()  # type: ignore[attr-defined]
        self.close()

    def details(self) -> None:
        self.push(RouteDetails(self.app))

    def start(self) -> None:
        self.toast("Waiting for your position")


class RouteDetails(Screen):
    """The route's legs and length; "Save as track" writes it as a GPX track."""

    activity = MAP_ACTIVITY

    def __init__(self, app: App):
        super().__init__(app)
        self.file_name = ""
        self.error = ""

    def stops(self) -> list[Stop]:
        return self.app.route.stops() or []  # type: ignore[attr-defined]

    def build(self) -> Node:
        stops = self.stops()
        track = geo.route_through([s.point for s in stops])
        legs = [
            w.list_row(
                f"{a.title} – {b.title}",
                f"{geo.length_m(geo.route_through([a.point, b.point])) / 1000:.1f} km",
                key=f"leg_{i}",
            )
            for i, (a, b) in enumerate(itertools.pairwise(stops))
        ]
        return w.column(
            w.app_bar(
                "Route details",
                on_up=self.close,
                actions=[w.icon_button("Save as track", "save", self.ask_name)],
            ),
            w.list_row("Distance", f"{geo.length_m(track) / 1000:.1f} km", key="total"),
            w.divider(),
            w.scroll_list("legs", *legs),
            flex=1,
        )

    def ask_name(self) -> None:
        when = self.device.device_time()
        self.file_name = when.strftime("%Y-%m-%d_%H-%M_%a")
        self.error = ""
        self.show_dialog(
            lambda: w.dialog(
                "Save as new track",
                self.error,
                body=[
                    w.text_field(self.file_name, self.set_name, hint="File name", key="track_name")
                ],
                buttons=[("Cancel", self.dismiss), ("Save", self.save)],
            )
        )

    def set_name(self, text: str) -> None:
        self.file_name = text

    def save(self) -> None:
        name = self.file_name.strip().removesuffix(".gpx")
        if not name or "/" in name:
            self.error = "Enter a file name without '/'."
            return
        path = f"{facts.TRACKS_DIR}/{name}.gpx"
        if self.device.exists(path):
            self.error = "A track with this name already exists."
            return
        points = geo.route_through([s.point for s in self.stops()])
        self.device.write_file(path, facts.track_gpx(name, points))
        self.dismiss()
        self.toast(f"Saved: {name}")


class MyPlacesScreen(Screen):
    """My places: the favourites and the saved tracks."""

    activity = "net.osmand.plus.myplaces.ui.MyPlacesActivity"

    def __init__(self, app: App, show: Callable[[Stop], None]):
        super().__init__(app)
        self.show, self.tab = show, 0

    def build(self) -> Node:
        osm: OsmAndApp = self.app  # type: ignore[assignment]
        if self.tab == 0:
            rows = [
                w.list_row(
                    f.name,
                    geo.format_point((f.lat, f.lon)),
                    icon="star",
                    on_click=lambda f=f: self.pick(Stop(f.name, (f.lat, f.lon), "Favorite")),
                    key=f"favorite_{i}",
                )
                for i, f in enumerate(osm.favorites())
            ] or [w.empty_state("No favorites yet")]
        else:
            rows = [
                w.list_row(name.removesuffix(".gpx"), "Track", icon="file", key=name)
                for name in osm.tracks()
            ] or [w.empty_state("No tracks yet")]
        return w.column(
            w.app_bar("My places", on_up=self.close),
            w.tabs(["Favorites", "Tracks"], self.tab, self.set_tab),
            w.scroll_list("places", *rows),
            flex=1,
        )

    def set_tab(self, tab: int) -> None:
        self.tab = tab

    def pick(self, stop: Stop) -> None:
        self.close()
        self.show(stop)


class MarkersScreen(Screen):
    """Map markers: the active ones, oldest first."""

    activity = "net.osmand.plus.mapmarkers.MapMarkersActivity"

    def __init__(self, app: App, show: Callable[[Stop], None]):
        super().__init__(app)
        self.show = show

    def build(self) -> Node:
        osm: OsmAndApp = self.app  # type: ignore[assignment]
        rows = [
            w.list_row(
                m["title"] or geo.format_point((m["marker_lat"], m["marker_lon"])),
                geo.format_point((m["marker_lat"], m["marker_lon"])),
                icon="location",
                on_click=lambda m=m: self.pick(m),
                key=f"marker_{i}",
            )
            for i, m in enumerate(osm.markers())
        ] or [w.empty_state("No markers")]
        return w.column(
            w.app_bar("Map markers", on_up=self.close), w.scroll_list("markers", *rows), flex=1
        )

    def pick(self, marker: dict) -> None:
        self.close()
        self.show(Stop(marker["title"], (marker["marker_lat"], marker["marker_lon"])))
