"""The simulated OsmAnd's offline map: Liechtenstein's places and roads, drawn, searched and routed.

Upstream's phone carries one offline map (Liechtenstein); its OsmAnd tasks name twelve of its
places, at the coordinates upstream lists. This map holds those twelve at exactly those points,
plus the country's other main towns, a road network between them, the Rhine and the border, so a
screen of it reads like a map: labelled places an agent can see (not in the accessibility tree, as
OsmAnd's map view exposes none), tap, search for and route between.

- `MapView` is the camera (centre and zoom) in Web Mercator, with pixel <-> coordinate
  conversions; `MapPicture` is what one frame shows, a frozen value the renderer draws
  (`render(width, height)`, cached);
- `search(query)` finds places by name or a typed "lat, lon";
- `route_through(points)` follows the roads between consecutive points (densified track points).
"""

from __future__ import annotations

import dataclasses
import functools
import heapq
import itertools
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence

from PIL import Image, ImageDraw, ImageFilter

from android_world.env.sim import render

COUNTRY = "Liechtenstein"
LatLon = tuple[float, float]


@dataclasses.dataclass(frozen=True)
class Place:
    name: str
    kind: str  # City, Town, Village, Hamlet
    lat: float
    lon: float

    @property
    def point(self) -> LatLon:
        return (self.lat, self.lon)


# Upstream's twelve (exact coordinates) and the other main places of the country.
PLACES: tuple[Place, ...] = (
    Place("Vaduz", "City", 47.1410, 9.5209),
    Place("Schaan", "Town", 47.1663432, 9.5103085),
    Place("Balzers", "Town", 47.0688832, 9.5061564),
    Place("Triesen", "Town", 47.106997, 9.5274854),
    Place("Eschen", "Town", 47.2107, 9.5225),
    Place("Mauren", "Town", 47.2197, 9.5417),
    Place("Triesenberg", "Town", 47.1180, 9.5430),
    Place("Ruggell", "Village", 47.23976, 9.5262837),
    Place("Schellenberg", "Village", 47.2310, 9.5470),
    Place("Gamprin", "Village", 47.2203, 9.5087),
    Place("Bendern", "Village", 47.2122151, 9.5062101),
    Place("Nendeln", "Village", 47.1973857, 9.5430636),
    Place("Schaanwald", "Village", 47.2165476, 9.5699984),
    Place("Planken", "Village", 47.1858882, 9.5452201),
    Place("Oberplanken", "Hamlet", 47.1784977, 9.5450163),
    Place("Rotenboden", "Hamlet", 47.1275785, 9.5387131),
    Place("Steg", "Hamlet", 47.1153, 9.5736),
    Place("Malbun", "Village", 47.1026191, 9.6083057),
    Place("Schönberg", "Hamlet", 47.1303814, 9.5930117),
)
_BY_NAME = {p.name: p for p in PLACES}

ROADS: tuple[tuple[str, ...], ...] = (
    ("Balzers", "Triesen", "Vaduz", "Schaan", "Nendeln", "Schaanwald"),
    ("Schaan", "Bendern", "Ruggell", "Schellenberg", "Mauren", "Schaanwald"),
    ("Bendern", "Gamprin", "Eschen", "Nendeln"),
    ("Eschen", "Mauren"),
    ("Triesen", "Rotenboden", "Triesenberg", "Steg", "Malbun"),
    ("Vaduz", "Triesenberg"),
    ("Steg", "Schönberg"),
    ("Schaan", "Oberplanken", "Planken"),
)

BORDER: tuple[LatLon, ...] = (
    (47.2705, 9.5330),
    (47.2530, 9.5580),
    (47.2390, 9.5640),
    (47.2250, 9.5790),
    (47.2000, 9.5850),
    (47.1850, 9.6100),
    (47.1600, 9.6250),
    (47.1300, 9.6360),
    (47.0900, 9.6250),
    (47.0560, 9.6070),
    (47.0480, 9.5800),
    (47.0550, 9.5300),
    (47.0600, 9.4900),
    (47.0750, 9.4800),
    (47.1000, 9.4900),
    (47.1300, 9.4950),
    (47.1650, 9.4900),
    (47.2000, 9.4780),
    (47.2300, 9.4850),
    (47.2500, 9.4950),
    (47.2650, 9.5100),
)
RHINE: tuple[LatLon, ...] = (
    (47.030, 9.495),
    (47.060, 9.489),
    (47.100, 9.488),
    (47.150, 9.492),
    (47.200, 9.476),
    (47.250, 9.494),
    (47.285, 9.535),
)
ALPS: tuple[LatLon, ...] = (
    (47.2000, 9.5600),
    (47.1850, 9.6100),
    (47.1600, 9.6250),
    (47.1300, 9.6360),
    (47.0900, 9.6250),
    (47.0560, 9.6070),
    (47.0480, 9.5800),
    (47.0700, 9.5450),
    (47.1100, 9.5520),
    (47.1500, 9.5600),
)

MIN_ZOOM, MAX_ZOOM = 8, 18
START = (47.160, 9.555)  # the country fills a portrait screen at START_ZOOM
START_ZOOM = 12
PLACE_ZOOM = 15  # where a search result is shown

# Colours of OsmAnd's default map style, roughly.
LAND, COUNTRY_FILL = (236, 233, 226), (246, 244, 238)
FOREST = (212, 232, 196)
WATER = (156, 192, 249)
ROAD, ROAD_EDGE = (252, 214, 164), (220, 158, 92)
BORDER_LINE = (163, 118, 176)
LABEL, HALO = (40, 40, 40), (255, 255, 255)
FAVORITE, MARKER, ROUTE = (244, 180, 0), (26, 115, 232), (70, 110, 230)
PIN = {"start": (52, 168, 83), "via": (251, 188, 5), "end": (217, 48, 37), "pick": (217, 48, 37)}


# ---- geometry ---------------------------------------------------------------------------------


def world_px(zoom: int) -> float:
    return 512.0 * 2**zoom


def to_world(lat: float, lon: float, zoom: int) -> tuple[float, float]:
    size = world_px(zoom)
    s = math.sin(math.radians(max(-85.0, min(85.0, lat))))
    x = (lon + 180.0) / 360.0 * size
    y = (0.5 - math.log((1 + s) / (1 - s)) / (4 * math.pi)) * size
    return x, y


def from_world(x: float, y: float, zoom: int) -> LatLon:
    size = world_px(zoom)
    lon = x / size * 360.0 - 180.0
    lat = math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * y / size))))
    return lat, lon


def distance_m(a: LatLon, b: LatLon) -> float:
    """Great-circle distance in metres."""
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * 6_371_000 * math.asin(min(1.0, math.sqrt(h)))


@dataclasses.dataclass(frozen=True)
class MapView:
    """The camera: the map's centre and zoom; pixels are relative to the map view's top-left."""

    lat: float = START[0]
    lon: float = START[1]
    zoom: int = START_ZOOM

    def to_pixel(self, point: LatLon, width: int, height: int) -> tuple[float, float]:
        cx, cy = to_world(self.lat, self.lon, self.zoom)
        x, y = to_world(point[0], point[1], self.zoom)
        return x - cx + width / 2, y - cy + height / 2

    def to_point(self, px: float, py: float, width: int, height: int) -> LatLon:
        cx, cy = to_world(self.lat, self.lon, self.zoom)
        return from_world(cx + px - width / 2, cy + py - height / 2, self.zoom)

    def panned(self, dx: float, dy: float) -> MapView:
        """The view after the map is dragged by (dx, dy) pixels (the content follows the finger)."""
        cx, cy = to_world(self.lat, self.lon, self.zoom)
        lat, lon = from_world(cx - dx, cy - dy, self.zoom)
        return dataclasses.replace(self, lat=lat, lon=lon)

    def zoomed(self, step: int) -> MapView:
        return dataclasses.replace(self, zoom=max(MIN_ZOOM, min(MAX_ZOOM, self.zoom + step)))

    def centred(self, point: LatLon, zoom: int | None = None) -> MapView:
        return MapView(point[0], point[1], self.zoom if zoom is None else zoom)


# ---- what a frame shows -----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Label:
    place: Place
    dot: tuple[float, float]
    box: tuple[float, float, float, float]  # the label's text box, in view pixels


def _label_size(place: Place) -> int:
    return {"City": 44, "Town": 38}.get(place.kind, 34)


def labels(view: MapView, width: int, height: int) -> tuple[Label, ...]:
    """The place labels a frame draws: biggest places first; one that would overlap a label
    already placed is left out, as map renderers do."""
    placed: list[Label] = []
    order = sorted(PLACES, key=lambda p: ("City", "Town", "Village", "Hamlet").index(p.kind))
    for place in order:
        x, y = view.to_pixel(place.point, width, height)
        text_w, text_h = render.text_mask(place.name, _label_size(place)).size
        box = (x + 18, y - text_h / 2, x + 18 + text_w, y + text_h / 2)
        if box[2] < 0 or box[0] - 40 > width or box[3] < 0 or box[1] > height:
            continue
        if any(_overlap(box, other.box) for other in placed):
            continue
        placed.append(Label(place, (x, y), box))
    return tuple(placed)


def _overlap(a: Sequence[float], b: Sequence[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def place_at(view: MapView, px: float, py: float, width: int, height: int) -> Place | None:
    """The labelled place a touch at (px, py) lands on (its dot or its label), if any."""
    best, best_d = None, 70.0
    for label in labels(view, width, height):
        x0, y0, x1, y1 = label.box
        if x0 - 10 <= px <= x1 + 10 and y0 - 10 <= py <= y1 + 10:
            return label.place
        d = math.hypot(px - label.dot[0], py - label.dot[1])
        if d < best_d:
            best, best_d = label.place, d
    return best


@dataclasses.dataclass(frozen=True)
class MapPicture:
    """One frame of the map: the camera and what lies on it. Equal pictures draw equal pixels."""

    view: MapView
    favorites: tuple[LatLon, ...] = ()
    markers: tuple[LatLon, ...] = ()
    route: tuple[LatLon, ...] = ()
    pins: tuple[tuple[str, LatLon], ...] = ()  # (kind, point): start, via, end, pick

    def render(self, width: int, height: int) -> Image.Image:
        return _render(self, width, height)


@functools.lru_cache(maxsize=32)
def _render(picture: MapPicture, width: int, height: int) -> Image.Image:
    view = picture.view
    image = Image.new("RGB", (width, height), LAND)
    draw = ImageDraw.Draw(image)
    scale = 2 ** (view.zoom - START_ZOOM)

    def xy(points: Iterable[LatLon]) -> list[tuple[float, float]]:
        return [view.to_pixel(p, width, height) for p in points]

    draw.polygon(xy(BORDER), fill=COUNTRY_FILL)
    draw.polygon(xy(ALPS), fill=FOREST)
    draw.line(xy(RHINE), fill=WATER, width=max(4, int(9 * min(scale, 4))), joint="curve")
    road_w = max(3, int(8 * min(scale, 3)))
    for chain in ROADS:
        line = xy(_BY_NAME[n].point for n in chain)
        draw.line(line, fill=ROAD_EDGE, width=road_w + 4, joint="curve")
    for chain in ROADS:
        line = xy(_BY_NAME[n].point for n in chain)
        draw.line(line, fill=ROAD, width=road_w, joint="curve")
    outline = xy(BORDER)
    draw.line([*outline, outline[0]], fill=BORDER_LINE, width=4)
    if len(picture.route) > 1:
        draw.line(xy(picture.route), fill=ROUTE, width=road_w + 8, joint="curve")
    for label in labels(view, width, height):
        _place(image, draw, label)
    for point in picture.favorites:
        _badge(draw, view.to_pixel(point, width, height), FAVORITE, "star")
    for point in picture.markers:
        _badge(draw, view.to_pixel(point, width, height), MARKER, "flag")
    for kind, point in picture.pins:
        _pin(draw, view.to_pixel(point, width, height), PIN.get(kind, PIN["pick"]))
    return image


def _place(image: Image.Image, draw: ImageDraw.ImageDraw, label: Label) -> None:
    x, y = label.dot
    r = 9 if label.place.kind in ("City", "Town") else 7
    draw.ellipse((x - r, y - r, x + r, y + r), fill=(90, 90, 90), outline=HALO, width=3)
    mask = render.text_mask(label.place.name, _label_size(label.place))
    at = (round(label.box[0]), round(label.box[1]))
    image.paste(HALO, at, mask.filter(ImageFilter.MaxFilter(7)))
    image.paste(LABEL, at, mask)


def _badge(draw: ImageDraw.ImageDraw, at: tuple[float, float], colour, kind: str) -> None:
    x, y = at
    draw.ellipse((x - 26, y - 26, x + 26, y + 26), fill=colour, outline=HALO, width=4)
    if kind == "star":
        points = []
        for i in range(10):
            radius = 16 if i % 2 == 0 else 7
            angle = math.pi / 2 + i * math.pi / 5
            points.append((x + radius * math.cos(angle), y - radius * math.sin(angle)))
        draw.polygon(points, fill=HALO)
    else:
        draw.line([(x - 8, y + 14), (x - 8, y - 14)], fill=HALO, width=4)
        draw.polygon([(x - 8, y - 14), (x + 12, y - 8), (x - 8, y - 2)], fill=HALO)


def _pin(draw: ImageDraw.ImageDraw, at: tuple[float, float], colour) -> None:
    x, y = at
    draw.polygon([(x - 22, y - 50), (x + 22, y - 50), (x, y)], fill=colour)
    draw.ellipse((x - 26, y - 80, x + 26, y - 28), fill=colour, outline=HALO, width=4)
    draw.ellipse((x - 9, y - 63, x + 9, y - 45), fill=HALO)


# ---- search -------------------------------------------------------------------------------------

_COORDS = re.compile(r"^\s*(-?\d{1,2}(?:\.\d+)?)\s*[,;\s]\s*(-?\d{1,3}(?:\.\d+)?)\s*$")


def fold(text: str) -> str:
    """Lower case without accents ('Schönberg' and 'Schonberg' search alike)."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def parse_coordinates(query: str) -> LatLon | None:
    """'47.1973857, 9.5430636' (or with a space or semicolon) -> (lat, lon) when both are valid."""
    m = _COORDS.match(query)
    if not m:
        return None
    lat, lon = float(m[1]), float(m[2])
    return (lat, lon) if -90 <= lat <= 90 and -180 <= lon <= 180 else None


def search(query: str) -> list[Place]:
    """Places whose name's words start with the query's words (the country's name in the query
    is ignored: every place lies in it); an exact name first."""
    words = [w for w in re.split(r"[\s,]+", fold(query)) if w and w != fold(COUNTRY)]
    if not words:
        return []
    found = []
    for place in PLACES:
        name_words = re.split(r"[\s-]+", fold(place.name))
        if all(any(n.startswith(w) for n in name_words) for w in words):
            found.append(place)
    wanted = " ".join(words)
    return sorted(found, key=lambda p: (fold(p.name) != wanted, p.name))


def format_point(point: LatLon) -> str:
    return f"{point[0]:.5f}, {point[1]:.5f}"


# ---- routing ------------------------------------------------------------------------------------


def _graph() -> dict[str, list[tuple[str, float]]]:
    edges: dict[str, list[tuple[str, float]]] = {p.name: [] for p in PLACES}
    for chain in ROADS:
        for a, b in itertools.pairwise(chain):
            d = distance_m(_BY_NAME[a].point, _BY_NAME[b].point)
            edges[a].append((b, d))
            edges[b].append((a, d))
    return edges


_GRAPH = _graph()


def _nearest(point: LatLon) -> Place:
    return min(PLACES, key=lambda p: distance_m(p.point, point))


def _shortest(a: str, b: str) -> list[str]:
    queue: list[tuple[float, str, list[str]]] = [(0.0, a, [a])]
    seen: set[str] = set()
    while queue:
        cost, node, path = heapq.heappop(queue)
        if node == b:
            return path
        if node in seen:
            continue
        seen.add(node)
        for other, d in _GRAPH[node]:
            if other not in seen:
                heapq.heappush(queue, (cost + d, other, [*path, other]))
    return [a, b]


def _densified(points: Sequence[LatLon], step_m: float = 250.0) -> list[LatLon]:
    out: list[LatLon] = []
    for a, b in itertools.pairwise(points):
        n = max(1, math.ceil(distance_m(a, b) / step_m))
        out += [(a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n) for i in range(n)]
    if points:
        out.append(points[-1])
    return out


def route_through(points: Sequence[LatLon]) -> list[LatLon]:
    """Track points along the roads from each point to the next (a point off the road network
    joins it at the nearest place), every ~250 m, each given point included exactly."""
    if len(points) < 2:
        return list(points)
    corners: list[LatLon] = [points[0]]
    for a, b in itertools.pairwise(points):
        start, end = _nearest(a), _nearest(b)
        for name in _shortest(start.name, end.name):
            corners.append(_BY_NAME[name].point)
        corners.append(b)
    unique = [p for i, p in enumerate(corners) if i == 0 or p != corners[i - 1]]
    return _densified(unique)


def length_m(points: Sequence[LatLon]) -> float:
    return sum(distance_m(a, b) for a, b in itertools.pairwise(points))
