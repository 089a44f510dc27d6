"""Draws a frame's node trees with Pillow, so screenshots read like a phone and OCR well.

Dark text on light surfaces at 36-56 px, Material-like shapes, light outlines around fields
(tesseract drops text inside dark frames), digits that tesseract tells from letters. Speed:
strings are assembled from cached glyphs and pasted as pre-blended tiles; frames are composed
from cached strips, so a step redraws only the rows that changed (see `Renderer`).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import itertools
import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from android_world.env import device
from android_world.env.sim.widgets import Bitmap, Node, Rect

if TYPE_CHECKING:
    from android_world.env.sim.phone import Window

WIDTH, HEIGHT = device.SCREEN_WIDTH, device.SCREEN_HEIGHT

WHITE = (255, 255, 255)
COLORS = {
    "text": (31, 31, 31),
    "secondary": (68, 71, 78),
    "accent": (11, 87, 208),
    "hint": (110, 114, 120),
    "surface": (240, 244, 250),
    "surface2": (225, 233, 246),
    "outline": (116, 119, 127),
    # Boxes around text (fields, outlined buttons) stay light: tesseract drops the text inside a
    # dark frame, and a grey this light binarises to white.
    "field_outline": (200, 203, 208),
    "focus_outline": (122, 164, 236),
    "divider": (218, 220, 224),
    "tonal": (211, 227, 253),
    "primary_container": (168, 199, 250),
    "on_primary_container": (4, 30, 73),
    "ime": (232, 234, 237),
    "home": (232, 240, 254),
}
# The scrim behind a dialog: the app's content fades towards light grey. A light scrim (not the
# usual dark one) keeps OCR working: a dark frame around a dialog makes tesseract take the whole
# dialog for a picture and drop its buttons; faded content also stays out of the OCR text.
DIM_LUT = [int(225 + (v - 225) * 0.1) for v in range(256)] * 3


FONT_DIR = Path(__file__).parent / "fonts"


@functools.lru_cache(maxsize=64)
def font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's bundled Aileron (public domain): the same pixels on every machine, and of the
    free fonts tried the one tesseract reads best; DejaVu Sans splits names at underscores
    ("sdk_gphone x86 64")."""
    return ImageFont.load_default(size=size)


@functools.lru_cache(maxsize=64)
def digit_font(size: int) -> ImageFont.FreeTypeFont:
    """Digits come from DejaVu Sans Condensed (fonts/LICENSE), scaled to Aileron's cap height:
    tesseract reads Aileron's 0 as O ("OOh 00m 00s") and its 4 as A ("AO")."""
    return ImageFont.truetype(str(FONT_DIR / "DejaVuSansCondensed.ttf"), round(size * 0.94))


def _face(ch: str, size: int) -> ImageFont.FreeTypeFont:
    # DejaVu also has the accented letters Aileron lacks ("Schönberg" would show a box).
    accented = ch.isalpha() and not ch.isascii()
    return digit_font(size) if ch.isdigit() or accented else font(size)


@functools.lru_cache(maxsize=4096)
def _char(ch: str, size: int, stroke: int) -> tuple[np.ndarray, int, float]:
    """A character's coverage in a line box (Aileron's ascent + descent rows, baseline at the
    ascent), its left offset from the pen, and its advance. Strings are assembled from these:
    FreeType takes ~0.5 ms a string here, while pasting cached glyphs takes a few microseconds
    each, and new strings appear on every screen (typing makes one per key)."""
    f = _face(ch, size)
    ascent, descent = font(size).getmetrics()
    left, _, right, _ = f.getbbox(ch, anchor="ls", stroke_width=stroke)
    image = Image.new("L", (max(1, right - left), ascent + descent + 2 * stroke))
    ImageDraw.Draw(image).text(
        (-left, ascent + stroke), ch, font=f, fill=255, anchor="ls", stroke_width=stroke
    )
    return np.asarray(image), left, f.getlength(ch)


@functools.lru_cache(maxsize=8192)
def text_length(text: str, size: int) -> float:
    return sum(_char(ch, size, 0)[2] for ch in text)


@functools.lru_cache(maxsize=2048)  # bounded, as every cache here: typing makes new strings
def _mask_array(text: str, size: int, bold: bool = False) -> np.ndarray:
    """The text's coverage in its line box; Aileron has one weight, so bold is a thin stroke.
    Digits are DejaVu's (see `digit_font`)."""
    ascent, descent = font(size).getmetrics()
    stroke = max(1, size // 28) if bold else 0
    width = max(1, math.ceil(text_length(text, size)) + 2 + 2 * stroke)
    mask = np.zeros((ascent + descent + 2 * stroke, width), np.uint8)
    pen = float(stroke)
    for ch in text:
        glyph, left, advance = _char(ch, size, stroke)
        x0 = round(pen) + left
        a, b = max(0, x0), min(width, x0 + glyph.shape[1])
        if b > a:
            np.maximum(mask[:, a:b], glyph[:, a - x0 : b - x0], out=mask[:, a:b])
        pen += advance
    mask.setflags(write=False)
    return mask


@functools.lru_cache(maxsize=2048)
def _text_mask(text: str, size: int, bold: bool = False) -> Image.Image:
    return Image.fromarray(_mask_array(text, size, bold), "L")


def text_mask(text: str, size: int, bold: bool = False) -> Image.Image:
    """The text's coverage (mode "L"), for a view that draws its own text (a map's labels)."""
    return _text_mask(text, size, bold)


def _text_size(text: str, size: int, bold: bool = False) -> tuple[int, int]:
    """Width and height of the text's line box."""
    height, width = _mask_array(text, size, bold).shape
    return width, height


@functools.lru_cache(maxsize=512)
def _text_tile(text: str, size: int, bold: bool, color: tuple, bg: tuple) -> Image.Image:
    """The text already blended onto a plain background: pasting it is a plain copy, many times
    faster than blending through the mask on every frame."""
    return Image.fromarray(np.take(_blend_lut(color, bg), _mask_array(text, size, bold), axis=0))


@functools.lru_cache(maxsize=256)
def _blend_lut(color: tuple, bg: tuple) -> np.ndarray:
    """RGB for each coverage value 0..255, from `bg` to `color`."""
    alpha = np.arange(256)[:, None]
    mixed = (np.array(bg) * (255 - alpha) + np.array(color) * alpha + 127) // 255
    return mixed.astype(np.uint8)


@functools.lru_cache(maxsize=8192)
def _fit(text: str, size: int, width: int) -> str:
    """Ellipsize to fit `width` pixels, as a single-line TextView does."""
    if text_length(text, size) <= width:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if text_length(text[:mid] + "…", size) <= width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…"


@functools.lru_cache(maxsize=8192)
def _wrap(text: str, size: int, width: int, max_lines: int) -> tuple[str, ...]:
    space = text_length(" ", size)
    lines: list[str] = []
    for paragraph in text.split("\n"):
        current, current_len = "", 0.0
        for word in paragraph.split(" "):
            word_len = text_length(word, size)
            if not current:
                current, current_len = word, word_len
            elif current_len + space + word_len <= width:
                current, current_len = f"{current} {word}", current_len + space + word_len
            else:
                lines.append(current)
                current, current_len = word, word_len
        lines.append(current)
    if len(lines) > max_lines:
        lines = [*lines[: max_lines - 1], _fit(" ".join(lines[max_lines - 1 :]), size, width)]
    return tuple(_fit(line, size, width) for line in lines)


BLOCK_KINDS = ("statusbar", "screen", "ime", "navbar")  # windows that tile the screen
STRIP_H = 128  # rows per cached strip
PAINT_MARGIN = 32  # how far a node may paint past its frame (a menu's shadow), within its clip


Entry = tuple[Node, tuple, int, int]  # a node, its signature, the rows it may paint (top, bottom)


@dataclasses.dataclass
class _Layer:
    """A window's drawable nodes in drawing order, with their signatures and painted rows."""

    root: Node
    dim_below: bool
    entries: list[Entry]
    rows: dict[int, list[Entry]]  # strip row -> the entries painting into it
    signature: tuple

    @classmethod
    def of(cls, root: Node, dim_below: bool = False) -> _Layer:
        entries: list[Entry] = []
        rows: dict[int, list[Entry]] = collections.defaultdict(list)
        for node in root.walk():
            if node.bounds[2] <= node.bounds[0] or not hasattr(_Canvas, f"k_{node.kind}"):
                continue  # draws nothing
            top = max(node.frame[1] - PAINT_MARGIN, node.clip[1])
            bottom = min(node.frame[3] + PAINT_MARGIN, node.clip[3])
            if bottom <= top:
                continue  # clipped away
            entry = (node, _signature(node), top, bottom)
            entries.append(entry)
            for row in range(max(0, top) // STRIP_H, (bottom - 1) // STRIP_H + 1):
                rows[row].append(entry)
        signature = (dim_below, tuple(e[1] for e in entries))
        return cls(root, dim_below, entries, rows, signature)

    def in_strip(self, y0: int, y1: int) -> list[Entry]:
        """Entries painting into rows y0..y1, which lie within one strip row."""
        return [e for e in self.rows.get(y0 // STRIP_H, ()) if e[2] < y1 and e[3] > y0]

    def in_span(self, y0: int, y1: int) -> list[Entry]:
        return [e for e in self.entries if e[2] < y1 and e[3] > y0]


def _plan(
    layers: list[_Layer], size: tuple[int, int] = (WIDTH, HEIGHT)
) -> tuple[list[tuple[_Layer, bool]], list[_Layer]]:
    """The tiling blocks (each with whether a dialog dims it) and the windows floating over them.

    Under a dialog the app content fades; the system bars sit above the scrim. A layout that
    does not tile the screen (unexpected) is drawn on a white page, every window floating.
    """
    last_dim = max((i for i, layer in enumerate(layers) if layer.dim_below), default=-1)
    blocks, floating, covered = [], [], 0
    for i, layer in enumerate(layers):
        root = layer.root
        if root.kind in BLOCK_KINDS:
            blocks.append((layer, i < last_dim and root.kind == "screen"))
            covered += (root.frame[2] - root.frame[0]) * (root.frame[3] - root.frame[1])
        else:
            floating.append(layer)
    width, height = size
    if covered < width * height:
        page = Node(kind="screen", frame=(0, 0, width, height), clip=(0, 0, width, height))
        page.bounds = page.frame
        return [(_Layer.of(page), False)], layers
    return blocks, floating


def _strips(top: int, bottom: int) -> list[tuple[int, int]]:
    """A block's rows cut at multiples of STRIP_H."""
    cuts = [top, *range((top // STRIP_H + 1) * STRIP_H, bottom, STRIP_H), bottom]
    return list(itertools.pairwise(cuts))


class Renderer:
    """Turns windows into an (H, W, 3) uint8 array, redrawing only what changed.

    Each screen-tiling window (status bar, app content, keyboard, navigation bar) is cut into
    strips of STRIP_H rows; a strip is keyed by the signatures of the nodes that paint into it
    (its block's and those of any dialog, menu or toast over it), so a step that changes one row
    of a screen redraws a strip or two and copies the rest. Pillow-to-numpy conversion, the
    costliest part of a frame, is then limited to the rows that changed. When most of a block
    changed (a new screen), the changed span is drawn in one piece, which costs less than strip
    by strip, and cut into strips afterwards. Whole frames are cached as well, so revisiting a
    screen costs a dictionary lookup. Frames are fresh read-only arrays: a later frame never
    writes into an earlier one.
    """

    def __init__(
        self,
        frame_cache: int = 16,
        strip_cache_mb: int = 96,
        size: tuple[int, int] = (WIDTH, HEIGHT),
        out_size: tuple[int, int] | None = None,
    ):
        # Windows are laid out on a `size` canvas (design pixels); frames come out scaled to
        # `out_size` (the screen's pixels) when the screen's density differs from the design's.
        self.size = size
        self.out_size = out_size or size
        self._frames: collections.OrderedDict[int, np.ndarray] = collections.OrderedDict()
        self._strips: collections.OrderedDict[int, np.ndarray] = collections.OrderedDict()
        self._frame_cache = frame_cache
        self._strip_cache = max(64, strip_cache_mb * 2**20 // (STRIP_H * size[0] * 3))
        self._last: tuple[list[Window] | None, np.ndarray] = (None, np.empty(0))
        self.hits = 0  # whole frames
        self.misses = 0
        self.strips_drawn = 0
        self.strips_reused = 0

    def render(self, windows: list[Window]) -> np.ndarray:
        if windows is self._last[0]:  # the phone rebuilds its windows only when something changed
            self.hits += 1
            return self._last[1]
        layers = [_Layer.of(win.root, win.dim_below) for win in windows]
        key = hash(tuple(layer.signature for layer in layers))
        pixels = self._frames.get(key)
        if pixels is not None:
            self._frames.move_to_end(key)
            self.hits += 1
        else:
            self.misses += 1
            pixels = self._scaled(self._compose(layers))
            _remember(self._frames, key, pixels, self._frame_cache)
        self._last = (windows, pixels)
        return pixels

    def _compose(self, layers: list[_Layer]) -> np.ndarray:
        blocks, floating = _plan(layers, self.size)
        pixels = np.empty((self.size[1], self.size[0], 3), dtype=np.uint8)
        for block, dim in blocks:
            left, top, right, bottom = block.root.frame
            strips = []
            for y0, y1 in _strips(top, bottom):
                own = block.in_strip(y0, y1)
                over = [e for layer in floating for e in layer.in_strip(y0, y1)]
                sigs = (tuple(e[1] for e in own), tuple(e[1] for e in over))
                key = hash((left, right, y0, y1, dim, sigs))
                strip = self._strips.get(key)
                if strip is not None:
                    self._strips.move_to_end(key)  # before new strips could evict it
                strips.append((y0, y1, key, own, over, strip))
            missing = [s for s in strips if s[5] is None]
            if len(missing) > 2:  # draw the changed span at once, then cut it into strips
                y0, y1 = missing[0][0], missing[-1][1]
                own = block.in_span(y0, y1)
                over = [e for layer in floating for e in layer.in_span(y0, y1)]
                span = _draw_area((left, y0, right, y1), own, dim, over)
                drawn = {s[0]: span[s[0] - y0 : s[1] - y0] for s in missing}
            else:
                drawn = {
                    s[0]: _draw_area((left, s[0], right, s[1]), s[3], dim, s[4]) for s in missing
                }
            for y0, y1, key, _, _, strip in strips:
                if strip is None:
                    strip = drawn[y0]
                    _remember(self._strips, key, strip, self._strip_cache)
                    self.strips_drawn += 1
                else:
                    self.strips_reused += 1
                pixels[y0:y1, left:right] = strip
        pixels.setflags(write=False)
        return pixels

    def draw(self, windows: list[Window]) -> np.ndarray:
        """The reference: every window drawn onto one page, no strips, no caches.

        Slower than `render` and kept simple on purpose; tests check that `render` matches it.
        """
        layers = [_Layer.of(win.root, win.dim_below) for win in windows]
        blocks, floating = _plan(layers, self.size)
        image = Image.new("RGB", self.size, WHITE)
        canvas = _Canvas(image)
        for block, dim in blocks:
            for node in block.root.walk():
                canvas.node(node)
            if dim:
                box = block.root.frame
                image.paste(image.crop(box).point(DIM_LUT), box)
        for layer in floating:
            for node in layer.root.walk():
                canvas.node(node)
        return self._scaled(np.asarray(image))

    def _scaled(self, pixels: np.ndarray) -> np.ndarray:
        """The design canvas resampled to the screen's pixels (as Android scales dp)."""
        if self.out_size != self.size:
            image = Image.fromarray(pixels).resize(self.out_size, Image.Resampling.BILINEAR)
            pixels = np.asarray(image)
        pixels.setflags(write=False)
        return pixels


def _draw_area(box: Rect, own: list[Entry], dim: bool, over: list[Entry]) -> np.ndarray:
    """Rows of a block: its own nodes, the scrim if a dialog is up, then what floats over it."""
    left, top, right, bottom = box
    image = Image.new("RGB", (right - left, bottom - top), WHITE)
    canvas = _Canvas(image, (left, top))
    for node, *_ in own:
        canvas.node(node)
    if dim:
        image = image.point(DIM_LUT)
        canvas = _Canvas(image, (left, top))
    for node, *_ in over:
        canvas.node(node)
    return np.asarray(image)


def _remember(cache: collections.OrderedDict, key: int, value: np.ndarray, size: int) -> None:
    cache[key] = value
    if len(cache) > size:
        cache.popitem(last=False)


def _signature(node: Node) -> tuple:
    return (
        node.kind,
        node.frame,
        node.clip,
        node.text,
        node.hint,
        node.desc,
        node.checked,
        node.focused,
        node.selected,
        node.enabled,
        node.multiline,
        node.value,
        node.min_value,
        node.max_value,
        node.pad,
        tuple(sorted((k, str(v)) for k, v in node.style.items())) if node.style else (),
    )


class _ShiftedDraw:
    """ImageDraw in screen coordinates on an image that starts at (ox, oy) of the screen."""

    def __init__(self, image: Image.Image, ox: int, oy: int):
        self._d = ImageDraw.Draw(image)
        self._ox, self._oy = ox, oy

    def _xy(self, xy):
        ox, oy = self._ox, self._oy
        if not ox and not oy:
            return xy
        if isinstance(xy[0], (tuple, list)):
            return [(x - ox, y - oy) for x, y in xy]
        if len(xy) == 4:
            return (xy[0] - ox, xy[1] - oy, xy[2] - ox, xy[3] - oy)
        return [(xy[i] - ox, xy[i + 1] - oy) for i in range(0, len(xy), 2)]

    def __getattr__(self, name: str):
        method = getattr(self._d, name)
        return lambda xy, *args, **kwargs: method(self._xy(xy), *args, **kwargs)


class _Canvas:
    def __init__(self, image: Image.Image, origin: tuple[int, int] = (0, 0)):
        self.image = image
        self.ox, self.oy = origin
        self.d = _ShiftedDraw(image, *origin)

    # primitives ----------------------------------------------------------------------------
    def rect(
        self, r: Rect, clip: Rect, fill, radius: int = 0, outline=None, width: int = 1
    ) -> None:
        if radius and r[0] >= clip[0] and r[1] >= clip[1] and r[2] <= clip[2] and r[3] <= clip[3]:
            self.d.rounded_rectangle(r, radius=radius, fill=fill, outline=outline, width=width)
            return
        c = (max(r[0], clip[0]), max(r[1], clip[1]), min(r[2], clip[2]), min(r[3], clip[3]))
        if c[2] > c[0] and c[3] > c[1]:
            self.d.rectangle(
                (c[0], c[1], c[2] - 1, c[3] - 1), fill=fill, outline=outline, width=width
            )

    def text(
        self, text: str, x: int, y: int, size: int, color, clip: Rect, bold: bool = False
    ) -> None:
        """Paste `text` with its line box's top-left at (x, y), cut to `clip` and the canvas."""
        if not text:
            return
        width, height = _text_size(text, size, bold)
        ox, oy = self.ox, self.oy
        x0, y0 = x - ox, y - oy  # in image pixels from here on
        cx0, cy0 = max(x0, clip[0] - ox, 0), max(y0, clip[1] - oy, 0)
        cx1 = min(x0 + width, clip[2] - ox, self.image.width)
        cy1 = min(y0 + height, clip[3] - oy, self.image.height)
        if cx1 <= cx0 or cy1 <= cy0:
            return
        crop = (cx0 - x0, cy0 - y0, cx1 - x0, cy1 - y0)
        whole = crop == (0, 0, width, height)
        bg = self._plain_background(cx0, cy0, cx1 - 1, cy1 - 1)
        if bg is None:  # text over something drawn: blend through the mask
            mask = _text_mask(text, size, bold)
            self.image.paste(color, (cx0, cy0, cx1, cy1), mask if whole else mask.crop(crop))
            return
        tile = _text_tile(text, size, bold, tuple(color), bg)  # pre-blended: a plain copy
        self.image.paste(tile if whole else tile.crop(crop), (cx0, cy0))

    def _plain_background(self, x0: int, y0: int, x1: int, y1: int) -> tuple | None:
        """The colour under a text box when its corners and centre agree (a plain surface)."""
        get = self.image.getpixel
        bg = get((x0, y0))
        for point in ((x1, y0), (x0, y1), (x1, y1), ((x0 + x1) // 2, (y0 + y1) // 2)):
            if get(point) != bg:
                return None
        return bg

    def line_text(
        self,
        text: str,
        r: Rect,
        size: int,
        color,
        clip: Rect,
        center: bool = False,
        bold: bool = False,
    ) -> None:
        """One line, ellipsized to the box, vertically centred."""
        width = r[2] - r[0]
        if width <= 0:
            return
        shown = _fit(text, size, width)
        text_w, text_h = _text_size(shown, size, bold)
        x = r[0] + (width - text_w) // 2 if center else r[0]
        y = (r[1] + r[3] - text_h) // 2
        self.text(shown, x, y, size, color, clip, bold)

    def para(
        self,
        text: str,
        r: Rect,
        size: int,
        color,
        clip: Rect,
        lines: int,
        center: bool = False,
        top: bool = False,
        bold: bool = False,
    ) -> None:
        wrapped = _wrap(text, size, max(1, r[2] - r[0]), lines)
        line_h = _text_size("Ag", size, bold)[1]
        y = r[1] if top else (r[1] + r[3] - line_h * len(wrapped)) // 2
        for line in wrapped:
            x = r[0] + (r[2] - r[0] - _text_size(line, size, bold)[0]) // 2 if center else r[0]
            self.text(line, x, y, size, color, clip, bold)
            y += line_h

    # nodes ---------------------------------------------------------------------------------
    def node(self, n: Node) -> None:
        draw = getattr(self, f"k_{n.kind}", None)
        if draw is not None and n.bounds[2] > n.bounds[0]:
            draw(n)

    def k_screen(self, n: Node) -> None:
        self.rect(n.frame, n.clip, WHITE)

    def k_home(self, n: Node) -> None:
        self.rect(n.frame, n.clip, COLORS["home"])

    def k_statusbar(self, n: Node) -> None:
        self.rect(n.frame, n.clip, COLORS["surface"])

    def k_navbar(self, n: Node) -> None:
        self.rect(n.frame, n.clip, COLORS["surface"])

    def k_appbar(self, n: Node) -> None:
        self.rect(n.frame, n.clip, COLORS["surface"])

    def k_box(self, n: Node) -> None:
        bg = n.style.get("bg")
        if bg:
            self.rect(n.frame, n.clip, COLORS.get(bg, bg))

    def k_canvas(self, n: Node) -> None:
        """A drawing surface: its background, then its strokes ((r, g, b), width, points)."""
        self.rect(n.frame, n.clip, n.style.get("bg", WHITE))
        for color, width, points in n.style.get("strokes", ()):
            if len(points) == 1:
                (x, y), r = points[0], max(1, width // 2)
                self.d.ellipse((x - r, y - r, x + r, y + r), fill=color)
            else:
                self.d.line(list(points), fill=color, width=width, joint="curve")

    def k_row(self, n: Node) -> None:
        if n.selected:
            self.rect(n.frame, n.clip, COLORS["tonal"])

    def k_divider(self, n: Node) -> None:
        self.rect(n.frame, n.clip, COLORS["divider"])

    def k_text(self, n: Node) -> None:
        s = n.style
        r = _inset(n.frame, n.pad)
        color = s.get("color", "text")  # a palette name, or an app's own (r, g, b)
        color = COLORS.get(color, COLORS["text"]) if isinstance(color, str) else tuple(color)
        size = s.get("size", 42)
        bold = bool(s.get("bold"))
        if s.get("lines", 1) > 1:
            self.para(n.text, r, size, color, n.clip, s["lines"], s.get("center", False), bold=bold)
        else:
            self.line_text(n.text, r, size, color, n.clip, s.get("center", False), bold)

    def k_image(self, n: Node) -> None:
        box = _inset(n.frame, n.pad)
        width, height = box[2] - box[0], box[3] - box[1]
        if width <= 0 or height <= 0:
            return
        bitmap = n.style.get("bitmap")
        if bitmap is None:  # not a picture: a grey tile with a crossed frame
            self.rect(box, n.clip, COLORS["surface2"])
            self.glyph("close", box, COLORS["outline"], n.clip)
            return
        tile = _bitmap_tile(
            bitmap, width, height, n.style.get("fit", "contain"), n.style.get("smooth", True)
        )
        x = box[0] + (width - tile.width) // 2
        y = box[1] + (height - tile.height) // 2
        self.paste(tile, x, y, n.clip)
        if n.selected:  # a picked thumbnail: a tinted edge and a check mark
            self.d.rectangle(
                (box[0] + 6, box[1] + 6, box[2] - 7, box[3] - 7), outline=COLORS["accent"], width=12
            )
            self.glyph(
                "check",
                (box[2] - 110, box[1] + 10, box[2] - 10, box[1] + 110),
                COLORS["accent"],
                n.clip,
            )

    def k_painted(self, n: Node) -> None:
        """A view that draws itself (a map): its `picture` renders an image of the node's size
        (`picture.render(width, height)`; a frozen value, so equal pictures share cached strips)."""
        width, height = n.frame[2] - n.frame[0], n.frame[3] - n.frame[1]
        picture = n.style.get("picture")
        if picture is not None and width > 0 and height > 0:
            self.paste(picture.render(width, height), n.frame[0], n.frame[1], n.clip)

    def paste(self, tile: Image.Image, x: int, y: int, clip: Rect) -> None:
        """Paste `tile` with its top-left at screen (x, y), cut to `clip` and the canvas."""
        left, top = max(x, clip[0]), max(y, clip[1])
        right, bottom = min(x + tile.width, clip[2]), min(y + tile.height, clip[3])
        if right <= left or bottom <= top:
            return
        part = tile.crop((left - x, top - y, right - x, bottom - y))
        self.image.paste(part, (left - self.ox, top - self.oy))

    def k_toast(self, n: Node) -> None:
        self.rect(n.frame, n.clip, (241, 243, 244), radius=50, outline=COLORS["divider"], width=2)
        self.line_text(
            n.text,
            _inset(n.frame, (30, 0, 30, 0)),
            n.style.get("size", 38),
            COLORS["text"],
            n.clip,
            center=True,
        )

    def k_search(self, n: Node) -> None:
        self.rect(n.frame, n.clip, COLORS["surface2"], radius=60)
        x0, t, r, b = n.frame
        self.glyph("search", (x0 + 30, t, x0 + 120, b), COLORS["secondary"], n.clip)
        self.line_text(n.text, (x0 + 140, t, r - 30, b), 40, COLORS["secondary"], n.clip)

    def k_icon(self, n: Node) -> None:
        glyph = n.style.get("glyph") or ""
        color = COLORS["text"]
        self.glyph(glyph, n.frame, color, n.clip, n.desc)

    def k_appicon(self, n: Node) -> None:
        x0, t, r, b = n.frame
        cx = (x0 + r) // 2
        radius = 82
        colour = n.style.get("color", "#1A73E8")
        box = (cx - radius, t + 30, cx + radius, t + 30 + 2 * radius)
        if _inside(box, n.clip):
            self.d.ellipse(box, fill=colour)
            initial = n.text[:1].upper()
            tw, th = _text_size(initial, 84)
            self.text(initial, cx - tw // 2, box[1] + radius - th // 2, 84, WHITE, n.clip)
        self.para(
            n.text,
            (x0 + 6, t + 210, r - 6, b - 10),
            36,
            COLORS["text"],
            n.clip,
            2,
            center=True,
            top=True,
        )

    def k_switch(self, n: Node) -> None:
        x0, t, r, b = n.frame
        cy = (t + b) // 2
        track = (x0 + 10, cy - 32, r - 10, cy + 32)
        if not _inside(track, n.clip):
            return
        if n.checked:
            self.d.rounded_rectangle(track, radius=32, fill=COLORS["accent"])
            self.d.ellipse((track[2] - 58, cy - 24, track[2] - 10, cy + 24), fill=WHITE)
        else:
            self.d.rounded_rectangle(
                track, radius=32, fill=COLORS["surface2"], outline=COLORS["outline"], width=4
            )
            self.d.ellipse((track[0] + 14, cy - 16, track[0] + 46, cy + 16), fill=COLORS["outline"])

    def k_checkbox(self, n: Node) -> None:
        cx, cy = (n.frame[0] + n.frame[2]) // 2, (n.frame[1] + n.frame[3]) // 2
        box = (cx - 28, cy - 28, cx + 28, cy + 28)
        if not _inside(box, n.clip):
            return
        tint = n.style.get("color")  # an app's own colour (e.g. Tasks' priority colours)
        if n.checked:
            self.d.rounded_rectangle(box, radius=6, fill=tint or COLORS["accent"])
            self.d.line([(cx - 16, cy), (cx - 4, cy + 13), (cx + 17, cy - 13)], fill=WHITE, width=7)
        else:
            self.d.rounded_rectangle(box, radius=6, outline=tint or COLORS["outline"], width=5)

    def k_radio(self, n: Node) -> None:
        cx, cy = (n.frame[0] + n.frame[2]) // 2, (n.frame[1] + n.frame[3]) // 2
        if not _inside((cx - 30, cy - 30, cx + 30, cy + 30), n.clip):
            return
        color = COLORS["accent"] if n.checked else COLORS["outline"]
        self.d.ellipse((cx - 28, cy - 28, cx + 28, cy + 28), outline=color, width=5)
        if n.checked:
            self.d.ellipse((cx - 14, cy - 14, cx + 14, cy + 14), fill=color)

    def k_button(self, n: Node) -> None:
        variant = n.style.get("variant", "tonal")
        r = (n.frame[0] + 6, n.frame[1] + 10, n.frame[2] - 6, n.frame[3] - 10)
        fg = COLORS["accent"]
        if variant == "filled":  # a light container: white on blue is lost to tesseract
            self.rect(r, n.clip, COLORS["primary_container"], radius=(r[3] - r[1]) // 2)
            fg = COLORS["on_primary_container"]
        elif variant == "tonal":
            self.rect(r, n.clip, COLORS["tonal"], radius=(r[3] - r[1]) // 2)
            fg = COLORS["text"]
        elif variant == "outlined":
            self.rect(
                r,
                n.clip,
                WHITE,
                radius=(r[3] - r[1]) // 2,
                outline=COLORS["field_outline"],
                width=3,
            )
        elif variant == "web":  # a page's <button>: the browser's grey box, sized by the page
            r = n.frame
            self.rect(
                r,
                n.clip,
                n.style.get("bg") or (239, 239, 239),
                radius=8,
                outline=(118, 118, 118),
                width=2,
            )
            fg = COLORS["text"]
        if not n.enabled:
            fg = COLORS["hint"]
        size = n.style.get("size", 40)
        pad = 20 if variant != "web" else 4
        self.line_text(n.text or n.desc, _inset(r, (pad, 0, pad, 0)), size, fg, n.clip, center=True)

    def k_fab(self, n: Node) -> None:
        self.rect(n.frame, n.clip, COLORS["tonal"], radius=56)
        if n.text:
            x0, t, r, b = n.frame
            self.glyph(
                n.style.get("glyph", "add"), (x0 + 20, t, x0 + 140, b), COLORS["text"], n.clip
            )
            self.line_text(n.text, (x0 + 140, t, r - 30, b), 42, COLORS["text"], n.clip)
        else:
            self.glyph(n.style.get("glyph", "add"), n.frame, COLORS["text"], n.clip, n.desc)

    def k_field(self, n: Node) -> None:
        s = n.style
        if s.get("borderless"):  # picker values: the whole width is for the text
            r = n.frame
            inner = _inset(r, (8, 0, 8, 0))
        else:
            r = (n.frame[0] + 36, n.frame[1] + 14, n.frame[2] - 36, n.frame[3] - 14)
            inner = _inset(r, (32, 14, 32, 14))
            color = COLORS["focus_outline"] if n.focused else COLORS["field_outline"]
            self.rect(r, n.clip, WHITE, radius=16, outline=color, width=5 if n.focused else 3)
        size = s.get("size", 42)
        shown = "•" * len(n.text) if s.get("password") else n.text
        color = COLORS["text"] if shown else COLORS["hint"]
        content = shown or n.hint
        if n.multiline:
            lines = max(1, (inner[3] - inner[1]) // _text_size("Ag", size)[1])
            self.para(content, inner, size, color, n.clip, lines, top=True)
        else:
            self.line_text(content, inner, size, color, n.clip, center=s.get("center", False))
        if n.focused and not n.multiline:
            width = (
                0
                if not shown
                else min(
                    inner[2] - inner[0],
                    _text_size(_fit(shown, size, inner[2] - inner[0]), size)[0],
                )
            )
            if not shown:  # before the hint, clear of its first letter
                x = inner[0] - 12 if not s.get("center") else (inner[0] + inner[2]) // 2
            elif s.get("center"):
                x = (inner[0] + inner[2]) // 2 + width // 2
            else:
                x = inner[0] + width + 2
            cy = (inner[1] + inner[3]) // 2
            self.rect((x, cy - 28, x + 4, cy + 28), n.clip, COLORS["accent"])

    def k_seekbar(self, n: Node) -> None:
        x0, t, r, b = n.frame
        left, right = x0 + 60, r - 60
        cy = (t + b) // 2
        span = (n.max_value - n.min_value) or 1
        x = int(left + (right - left) * (n.value - n.min_value) / span)
        if not _inside((x0, cy - 30, r, cy + 30), n.clip):
            return
        self.d.rounded_rectangle((left, cy - 8, right, cy + 8), radius=8, fill=COLORS["surface2"])
        self.d.rounded_rectangle(
            (left, cy - 8, max(left + 16, x), cy + 8), radius=8, fill=COLORS["accent"]
        )
        self.d.ellipse((x - 28, cy - 28, x + 28, cy + 28), fill=COLORS["accent"])

    def k_dialog(self, n: Node) -> None:
        self.rect(n.frame, n.clip, WHITE, radius=28)  # no outline: tesseract reads boxed text worse

    def k_menu(self, n: Node) -> None:
        x0, t, r, b = n.frame
        self.rect((x0 + 4, t + 6, r + 4, b + 6), n.clip, (200, 200, 205), radius=12)
        # White, not a tint: on a tinted panel tesseract loses the item level with a list row.
        self.rect(n.frame, n.clip, WHITE, radius=12, outline=COLORS["divider"], width=2)

    def k_menuitem(self, n: Node) -> None:
        self.line_text(
            n.text, _inset(n.frame, (48, 0, 24, 0)), n.style.get("size", 42), COLORS["text"], n.clip
        )

    def k_tab(self, n: Node) -> None:
        color = COLORS["accent"] if n.selected else COLORS["secondary"]
        self.line_text(n.text, _inset(n.frame, (10, 0, 10, 0)), 40, color, n.clip, center=True)
        if n.selected:
            x0, _, r, b = n.frame
            self.rect((x0 + 40, b - 10, r - 40, b), n.clip, COLORS["accent"])

    def k_ime(self, n: Node) -> None:
        self.rect(n.frame, n.clip, COLORS["ime"])

    def k_key(self, n: Node) -> None:
        r = n.frame
        special = not n.text or len(n.text) > 1
        self.rect(r, n.clip, (200, 205, 212) if special else WHITE, radius=18)
        if n.text:
            self.line_text(
                n.text, r, 52 if len(n.text) == 1 else 38, COLORS["text"], n.clip, center=True
            )
        else:
            self.glyph(n.style.get("glyph", ""), r, COLORS["text"], n.clip, n.desc)

    # icons ---------------------------------------------------------------------------------
    def glyph(self, name: str, box: Rect, color, clip: Rect, desc: str = "") -> None:
        x0, t, r, b = box
        cx, cy = (x0 + r) // 2, (t + b) // 2
        s = max(8, min(r - x0, b - t) * 3 // 10)
        if not _inside((cx - s, cy - s, cx + s, cy + s), clip):
            return
        draw = _GLYPH_DRAWERS.get(name)
        if draw is not None:
            draw(self.d, cx, cy, s, max(4, s // 6), color)
            return
        letter = (desc or name or "?")[:1].upper()  # an app's own icon we have no drawing for
        self.d.ellipse((cx - s, cy - s, cx + s, cy + s), outline=color, width=max(3, s // 12))
        size = max(12, s)
        w, h = _text_size(letter, size)
        self.text(letter, cx - w // 2, cy - h // 2, size, color, clip)


@functools.lru_cache(maxsize=64)
def _bitmap_tile(bitmap: Bitmap, width: int, height: int, fit: str, smooth: bool) -> Image.Image:
    """The bitmap scaled for a box: whole and centred (`contain`), filling it and cropped to
    the middle (`cover`), or stretched to it (`stretch`). Cached by the bitmap's key and the
    box, so a photo is resampled once per size it is shown at."""
    image = bitmap.image
    resample = Image.Resampling.LANCZOS if smooth else Image.Resampling.NEAREST
    if fit == "stretch":
        return image.resize((width, height), resample)
    scale = (max if fit == "cover" else min)(width / image.width, height / image.height)
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    scaled = image.resize(size, resample)
    if fit != "cover":
        return scaled
    left, top = (size[0] - width) // 2, (size[1] - height) // 2
    return scaled.crop((left, top, left + width, top + height))


# ---- icons: a few strokes each, in a box of half-size s around (cx, cy), stroke width wd -------

GlyphDrawer = Callable[[Any, int, int, int, int, Any], None]
_GLYPH_DRAWERS: dict[str, GlyphDrawer] = {}


def _glyph(*names: str) -> Callable[[GlyphDrawer], GlyphDrawer]:
    def register(fn: GlyphDrawer) -> GlyphDrawer:
        for name in names:
            _GLYPH_DRAWERS[name] = fn
        return fn

    return register


def _arrow(d, cx, cy, s, wd, color, sign: int) -> None:
    tip = cx + sign * s
    d.line([(cx - sign * s, cy), (tip, cy)], fill=color, width=wd)
    d.line([(tip - sign * wd // 2, cy), (cx, cy - s)], fill=color, width=wd)
    d.line([(tip - sign * wd // 2, cy), (cx, cy + s)], fill=color, width=wd)


@_glyph("back", "left")
def _g_back(d, cx, cy, s, wd, color) -> None:
    _arrow(d, cx, cy, s, wd, color, -1)


@_glyph("right")
def _g_right(d, cx, cy, s, wd, color) -> None:
    _arrow(d, cx, cy, s, wd, color, 1)


@_glyph("more")
def _g_more(d, cx, cy, s, wd, color) -> None:
    for dy in (-s * 2 // 3, 0, s * 2 // 3):
        d.ellipse((cx - wd, cy + dy - wd, cx + wd, cy + dy + wd), fill=color)


@_glyph("menu")
def _g_menu(d, cx, cy, s, wd, color) -> None:
    for dy in (-s * 2 // 3, 0, s * 2 // 3):
        d.line([(cx - s, cy + dy), (cx + s, cy + dy)], fill=color, width=wd)


@_glyph("sort")
def _g_sort(d, cx, cy, s, wd, color) -> None:
    for k, dy in enumerate((-s * 2 // 3, 0, s * 2 // 3)):
        d.line([(cx - s, cy + dy), (cx + s - k * s * 2 // 3, cy + dy)], fill=color, width=wd)


@_glyph("search")
def _g_search(d, cx, cy, s, wd, color) -> None:
    rr = s * 2 // 3
    d.ellipse((cx - s, cy - s, cx - s + 2 * rr, cy - s + 2 * rr), outline=color, width=wd)
    d.line([(cx + s // 4, cy + s // 4), (cx + s, cy + s)], fill=color, width=wd)


@_glyph("add")
def _g_add(d, cx, cy, s, wd, color) -> None:
    d.line([(cx - s, cy), (cx + s, cy)], fill=color, width=wd)
    d.line([(cx, cy - s), (cx, cy + s)], fill=color, width=wd)


@_glyph("remove")
def _g_remove(d, cx, cy, s, wd, color) -> None:
    d.line([(cx - s, cy), (cx + s, cy)], fill=color, width=wd)


@_glyph("close")
def _g_close(d, cx, cy, s, wd, color) -> None:
    d.line([(cx - s, cy - s), (cx + s, cy + s)], fill=color, width=wd)
    d.line([(cx - s, cy + s), (cx + s, cy - s)], fill=color, width=wd)


@_glyph("check")
def _g_check(d, cx, cy, s, wd, color) -> None:
    pts = [(cx - s, cy), (cx - s // 3, cy + s * 2 // 3), (cx + s, cy - s * 2 // 3)]
    d.line(pts, fill=color, width=wd, joint="curve")


def _triangle(sign: int) -> GlyphDrawer:
    def draw(d, cx, cy, s, wd, color) -> None:
        h = sign * s // 2
        d.polygon([(cx - s, cy - h), (cx + s, cy - h), (cx, cy + h)], fill=color)

    return draw


_GLYPH_DRAWERS["up"] = _triangle(-1)
_GLYPH_DRAWERS["down"] = _triangle(1)


@_glyph("delete")
def _g_delete(d, cx, cy, s, wd, color) -> None:
    """A bin: lid, handle and a tapered body with two ribs."""
    lid = cy - s * 2 // 3
    d.line([(cx - s, lid), (cx + s, lid)], fill=color, width=wd)
    d.line([(cx - s // 3, lid - s // 4), (cx + s // 3, lid - s // 4)], fill=color, width=wd)
    d.polygon(
        [
            (cx - s * 3 // 4, lid),
            (cx + s * 3 // 4, lid),
            (cx + s // 2, cy + s),
            (cx - s // 2, cy + s),
        ],
        outline=color,
        width=wd,
    )
    for dx in (-s // 5, s // 5):
        d.line(
            [(cx + dx, lid + s // 3), (cx + dx, cy + s * 2 // 3)], fill=color, width=max(2, wd // 2)
        )


@_glyph("edit")
def _g_edit(d, cx, cy, s, wd, color) -> None:
    """A pencil: a thick shaft with a pointed tip at the lower left."""
    d.line([(cx - s // 2, cy + s // 2), (cx + s, cy - s)], fill=color, width=wd * 2)
    d.polygon(
        [
            (cx - s, cy + s),
            (cx - s // 2 - wd, cy + s // 2 - wd // 2),
            (cx - s // 2 + wd // 2, cy + s // 2 + wd),
        ],
        fill=color,
    )


@_glyph("wifi")
def _g_wifi(d, cx, cy, s, wd, color) -> None:
    for k in (3, 2, 1):
        rr = s * k // 3 + s // 3
        box = (cx - rr, cy + s // 2 - rr, cx + rr, cy + s // 2 + rr)
        d.arc(box, 225, 315, fill=color, width=wd)
    d.ellipse((cx - wd, cy + s // 2 - wd, cx + wd, cy + s // 2 + wd), fill=color)


@_glyph("hotspot")
def _g_hotspot(d, cx, cy, s, wd, color) -> None:
    d.ellipse((cx - wd, cy - wd, cx + wd, cy + wd), fill=color)
    for rr in (s // 2, s):
        d.arc((cx - rr, cy - rr, cx + rr, cy + rr), 200, 340, fill=color, width=max(3, wd // 2))
        d.arc((cx - rr, cy - rr, cx + rr, cy + rr), 20, 160, fill=color, width=max(3, wd // 2))


@_glyph("bluetooth")
def _g_bluetooth(d, cx, cy, s, wd, color) -> None:
    h = s // 2
    pts = [
        (cx - h, cy - h),
        (cx + h, cy + h),
        (cx, cy + s),
        (cx, cy - s),
        (cx + h, cy - h),
        (cx - h, cy + h),
    ]
    d.line(pts, fill=color, width=max(3, wd // 2))


@_glyph("battery")
def _g_battery(d, cx, cy, s, wd, color) -> None:
    d.rectangle((cx - s // 2, cy - s + 4, cx + s // 2, cy + s), fill=color)
    d.rectangle((cx - s // 5, cy - s, cx + s // 5, cy - s + 4), fill=color)


@_glyph("signal")
def _g_signal(d, cx, cy, s, wd, color) -> None:
    d.polygon([(cx - s, cy + s), (cx + s, cy + s), (cx + s, cy - s)], fill=color)


@_glyph("nav_back")
def _g_nav_back(d, cx, cy, s, wd, color) -> None:
    h = s // 2
    d.polygon([(cx + h, cy - h), (cx + h, cy + h), (cx - h, cy)], outline=color, width=wd)


@_glyph("nav_home")
def _g_nav_home(d, cx, cy, s, wd, color) -> None:
    d.ellipse((cx - s // 2, cy - s // 2, cx + s // 2, cy + s // 2), outline=color, width=wd)


@_glyph("nav_recent")
def _g_nav_recent(d, cx, cy, s, wd, color) -> None:
    d.rectangle((cx - s // 2, cy - s // 2, cx + s // 2, cy + s // 2), outline=color, width=wd)


@_glyph("shift")
def _g_shift(d, cx, cy, s, wd, color) -> None:
    w = wd // 2 + 1
    d.polygon([(cx, cy - s), (cx + s, cy), (cx - s, cy)], outline=color, width=w)
    d.rectangle((cx - s // 3, cy, cx + s // 3, cy + s * 2 // 3), outline=color, width=w)


@_glyph("backspace")
def _g_backspace(d, cx, cy, s, wd, color) -> None:
    h = s // 2
    pts = [
        (cx - s, cy),
        (cx - s // 3, cy - h),
        (cx + s, cy - h),
        (cx + s, cy + h),
        (cx - s // 3, cy + h),
    ]
    d.polygon(pts, outline=color, width=wd // 2 + 1)
    d.line([(cx, cy - h // 2), (cx + h, cy + h // 2)], fill=color, width=wd // 2 + 1)
    d.line([(cx, cy + h // 2), (cx + h, cy - h // 2)], fill=color, width=wd // 2 + 1)


@_glyph("enter")
def _g_enter(d, cx, cy, s, wd, color) -> None:
    d.line(
        [(cx + s, cy - s // 2), (cx + s, cy + s // 3), (cx - s, cy + s // 3)], fill=color, width=wd
    )
    d.line([(cx - s, cy + s // 3), (cx - s // 2, cy - s // 6)], fill=color, width=wd)


@_glyph("space")
def _g_space(d, cx, cy, s, wd, color) -> None:
    d.line([(cx - s * 2, cy + s // 2), (cx + s * 2, cy + s // 2)], fill=color, width=wd)


@_glyph("play")
def _g_play(d, cx, cy, s, wd, color) -> None:
    d.polygon([(cx - s // 2, cy - s), (cx + s, cy), (cx - s // 2, cy + s)], fill=color)


@_glyph("send")
def _g_send(d, cx, cy, s, wd, color) -> None:
    """A paper plane: an arrowhead with a notch in its tail."""
    d.polygon([(cx - s, cy - s), (cx + s, cy), (cx - s, cy + s), (cx - s // 2, cy)], fill=color)


@_glyph("pause")
def _g_pause(d, cx, cy, s, wd, color) -> None:
    d.rectangle((cx - s * 2 // 3, cy - s, cx - s // 5, cy + s), fill=color)
    d.rectangle((cx + s // 5, cy - s, cx + s * 2 // 3, cy + s), fill=color)


@_glyph("stop")
def _g_stop(d, cx, cy, s, wd, color) -> None:
    k = s * 2 // 3
    d.rectangle((cx - k, cy - k, cx + k, cy + k), fill=color)


@_glyph("camera")
def _g_camera(d, cx, cy, s, wd, color) -> None:
    h = s * 2 // 3
    d.rounded_rectangle((cx - s, cy - h, cx + s, cy + h), radius=8, outline=color, width=wd)
    d.rectangle((cx - s // 3, cy - h - s // 4, cx + s // 3, cy - h), fill=color)
    d.ellipse((cx - s // 3, cy - s // 3, cx + s // 3, cy + s // 3), outline=color, width=wd)


@_glyph("video")
def _g_video(d, cx, cy, s, wd, color) -> None:
    h = s // 2
    d.rounded_rectangle((cx - s, cy - h, cx + s // 3, cy + h), radius=6, outline=color, width=wd)
    d.polygon([(cx + s // 3, cy), (cx + s, cy - h), (cx + s, cy + h)], fill=color)


@_glyph("folder")
def _g_folder(d, cx, cy, s, wd, color) -> None:
    top, bottom = cy - s * 2 // 3, cy + s * 2 // 3
    pts = [
        (cx - s, top),
        (cx - s // 4, top),
        (cx, top + s // 4),
        (cx + s, top + s // 4),
        (cx + s, bottom),
        (cx - s, bottom),
    ]
    d.polygon(pts, outline=color, width=wd)


@_glyph("file")
def _g_file(d, cx, cy, s, wd, color) -> None:
    """A sheet with a folded corner."""
    left, right, fold = cx - s * 3 // 4, cx + s * 3 // 4, s // 2
    pts = [
        (left, cy - s),
        (right - fold, cy - s),
        (right, cy - s + fold),
        (right, cy + s),
        (left, cy + s),
    ]
    d.polygon(pts, outline=color, width=wd)
    d.line(
        [(right - fold, cy - s), (right - fold, cy - s + fold), (right, cy - s + fold)],
        fill=color,
        width=max(2, wd // 2),
    )


@_glyph("storage")
def _g_storage(d, cx, cy, s, wd, color) -> None:
    for dy in (-s * 2 // 3, 0, s * 2 // 3):
        d.rounded_rectangle(
            (cx - s, cy + dy - s // 4, cx + s, cy + dy + s // 4),
            radius=4,
            outline=color,
            width=max(3, wd // 2),
        )


@_glyph("copy")
def _g_copy(d, cx, cy, s, wd, color) -> None:
    w = max(3, wd // 2)
    d.rectangle((cx - s, cy - s, cx + s // 3, cy + s // 3), outline=color, width=w)
    d.rectangle((cx - s // 3, cy - s // 3, cx + s, cy + s), outline=color, width=w)


@_glyph("clock", "alarm", "timer", "stopwatch")
def _g_clock(d, cx, cy, s, wd, color) -> None:
    d.ellipse((cx - s, cy - s, cx + s, cy + s), outline=color, width=wd)
    d.line([(cx, cy), (cx, cy - s * 2 // 3), (cx, cy), (cx + s // 2, cy)], fill=color, width=wd)


@_glyph("person")
def _g_person(d, cx, cy, s, wd, color) -> None:
    d.ellipse((cx - s // 2, cy - s, cx + s // 2, cy), fill=color)
    d.pieslice((cx - s, cy + s // 6, cx + s, cy + 2 * s), 180, 360, fill=color)


@_glyph("star")
def _g_star(d, cx, cy, s, wd, color) -> None:
    pts = []
    for k in range(10):
        radius = s if k % 2 == 0 else s * 2 // 5
        angle = math.pi / 2 + k * math.pi / 5
        pts.append((cx + radius * math.cos(angle), cy - radius * math.sin(angle)))
    d.polygon(pts, fill=color)


@_glyph("phone")
def _g_phone(d, cx, cy, s, wd, color) -> None:
    """A handset: earpiece top left, mouthpiece bottom right, the grip curving between."""
    ox, oy, r = cx + s // 2, cy - s // 2, s * 3 // 2
    d.arc((ox - r, oy - r, ox + r, oy + r), 95, 175, fill=color, width=wd * 3 // 2)
    k = wd * 3 // 4
    d.rounded_rectangle(
        (ox - r - k, oy - s // 2, ox - r + 2 * wd, oy + s // 6), radius=k, fill=color
    )
    d.rounded_rectangle(
        (ox - s // 6, oy + r - 2 * wd, ox + s // 2, oy + r + k), radius=k, fill=color
    )


@_glyph("calendar")
def _g_calendar(d, cx, cy, s, wd, color) -> None:
    w = max(3, wd // 2)
    d.rounded_rectangle((cx - s, cy - s * 3 // 4, cx + s, cy + s), radius=6, outline=color, width=w)
    d.rectangle((cx - s, cy - s * 3 // 4, cx + s, cy - s // 3), fill=color)
    for dx in (-s // 2, s // 2):
        d.line([(cx + dx, cy - s), (cx + dx, cy - s // 2)], fill=color, width=w)
    d.rectangle((cx + s // 6, cy + s // 6, cx + s // 2, cy + s // 2), fill=color)


@_glyph("bell")
def _g_bell(d, cx, cy, s, wd, color) -> None:
    d.chord((cx - s * 2 // 3, cy - s, cx + s * 2 // 3, cy + s // 2), 180, 360, fill=color)
    d.rectangle((cx - s * 2 // 3, cy - s // 4, cx + s * 2 // 3, cy + s // 2), fill=color)
    d.rectangle((cx - s, cy + s // 2, cx + s, cy + s // 2 + wd), fill=color)
    d.ellipse((cx - s // 4, cy + s * 2 // 3, cx + s // 4, cy + s), fill=color)


@_glyph("refresh")
def _g_refresh(d, cx, cy, s, wd, color) -> None:
    """A circular arrow, three quarters round."""
    d.arc((cx - s, cy - s, cx + s, cy + s), 300, 240, fill=color, width=wd)
    end = math.radians(300)
    ex, ey = cx + s * math.cos(end), cy + s * math.sin(end)
    d.polygon(
        [(ex - s // 2, ey - s // 6), (ex + s // 3, ey - s // 2), (ex + s // 6, ey + s // 3)],
        fill=color,
    )


@_glyph("message")
def _g_message(d, cx, cy, s, wd, color) -> None:
    d.rounded_rectangle(
        (cx - s, cy - s * 3 // 4, cx + s, cy + s // 2), radius=s // 4, outline=color, width=wd
    )
    d.polygon([(cx - s // 2, cy + s // 2), (cx - s // 2, cy + s), (cx, cy + s // 2)], fill=color)


@_glyph("apps")
def _g_apps(d, cx, cy, s, wd, color) -> None:
    k, w = s * 3 // 4, max(3, wd // 2)
    for dx in (-k, k // 5):
        for dy in (-k, k // 5):
            d.rounded_rectangle(
                (cx + dx, cy + dy, cx + dx + k * 4 // 5, cy + dy + k * 4 // 5),
                radius=3,
                outline=color,
                width=w,
            )


@_glyph("cast")
def _g_cast(d, cx, cy, s, wd, color) -> None:
    w = max(3, wd // 2)
    d.line(
        [
            (cx - s, cy - s // 3),
            (cx - s, cy - s * 2 // 3),
            (cx + s, cy - s * 2 // 3),
            (cx + s, cy + s * 2 // 3),
            (cx, cy + s * 2 // 3),
        ],
        fill=color,
        width=w,
    )
    base = (cx - s, cy + s * 2 // 3)
    for rr in (s // 3, s * 2 // 3):
        d.arc(
            (base[0] - rr, base[1] - rr, base[0] + rr, base[1] + rr), 270, 360, fill=color, width=w
        )


@_glyph("datasaver")
def _g_datasaver(d, cx, cy, s, wd, color) -> None:
    d.arc((cx - s, cy - s, cx + s, cy + s), 300, 240, fill=color, width=max(3, wd // 2))
    d.line([(cx - s // 3, cy), (cx + s // 3, cy)], fill=color, width=max(3, wd // 2))
    d.line([(cx, cy - s // 3), (cx, cy + s // 3)], fill=color, width=max(3, wd // 2))


@_glyph("devices")
def _g_devices(d, cx, cy, s, wd, color) -> None:
    w = max(3, wd // 2)
    d.rectangle((cx - s, cy - s * 2 // 3, cx + s // 3, cy + s // 3), outline=color, width=w)
    d.line([(cx - s, cy + s * 2 // 3), (cx + s // 4, cy + s * 2 // 3)], fill=color, width=w)
    d.rounded_rectangle(
        (cx + s // 2, cy - s // 3, cx + s, cy + s * 2 // 3), radius=3, outline=color, width=w
    )


@_glyph("display")
def _g_display(d, cx, cy, s, wd, color) -> None:
    """Brightness: a sun."""
    r = s // 2
    d.ellipse((cx - r, cy - r, cx + r, cy + r), outline=color, width=max(3, wd // 2))
    for k in range(8):
        a = k * math.pi / 4
        d.line(
            [
                (cx + s * 0.7 * math.cos(a), cy + s * 0.7 * math.sin(a)),
                (cx + s * math.cos(a), cy + s * math.sin(a)),
            ],
            fill=color,
            width=max(3, wd // 2),
        )


@_glyph("key")
def _g_key(d, cx, cy, s, wd, color) -> None:
    w = max(3, wd // 2)
    d.ellipse((cx - s, cy - s // 3, cx - s // 3, cy + s // 3), outline=color, width=w)
    d.line([(cx - s // 3, cy), (cx + s, cy)], fill=color, width=w)
    for dx in (s // 2, s * 5 // 6):
        d.line([(cx + dx, cy), (cx + dx, cy + s // 3)], fill=color, width=w)


@_glyph("location")
def _g_location(d, cx, cy, s, wd, color) -> None:
    r = s * 2 // 3
    d.pieslice((cx - r, cy - s, cx + r, cy - s + 2 * r), 180, 360, fill=color)
    d.polygon([(cx - r, cy - s + r), (cx + r, cy - s + r), (cx, cy + s)], fill=color)
    h = r // 3
    d.ellipse((cx - h, cy - s + r - h, cx + h, cy - s + r + h), fill=WHITE)


@_glyph("print")
def _g_print(d, cx, cy, s, wd, color) -> None:
    w = max(3, wd // 2)
    d.rectangle((cx - s // 2, cy - s, cx + s // 2, cy - s // 3), outline=color, width=w)
    d.rounded_rectangle(
        (cx - s, cy - s // 3, cx + s, cy + s // 2), radius=4, outline=color, width=w
    )
    d.rectangle((cx - s // 2, cy + s // 6, cx + s // 2, cy + s), outline=color, width=w)


@_glyph("save")
def _g_save(d, cx, cy, s, wd, color) -> None:
    """A floppy disk."""
    w = max(3, wd // 2)
    d.polygon(
        [
            (cx - s, cy - s),
            (cx + s * 2 // 3, cy - s),
            (cx + s, cy - s * 2 // 3),
            (cx + s, cy + s),
            (cx - s, cy + s),
        ],
        outline=color,
        width=w,
    )
    d.rectangle((cx - s // 2, cy - s, cx + s // 3, cy - s // 3), outline=color, width=w)
    d.ellipse((cx - s // 4, cy + s // 6, cx + s // 4, cy + s * 2 // 3), fill=color)


@_glyph("share")
def _g_share(d, cx, cy, s, wd, color) -> None:
    r = max(4, s // 4)
    pts = [(cx + s - r, cy - s + r), (cx - s + r, cy), (cx + s - r, cy + s - r)]
    d.line(pts, fill=color, width=max(3, wd // 2))
    for x, y in pts:
        d.ellipse((x - r, y - r, x + r, y + r), fill=color)


@_glyph("sim")
def _g_sim(d, cx, cy, s, wd, color) -> None:
    w = max(3, wd // 2)
    left, right = cx - s * 2 // 3, cx + s * 2 // 3
    d.polygon(
        [
            (left, cy - s),
            (right - s // 3, cy - s),
            (right, cy - s * 2 // 3),
            (right, cy + s),
            (left, cy + s),
        ],
        outline=color,
        width=w,
    )
    d.rectangle((cx - s // 3, cy - s // 6, cx + s // 3, cy + s // 2), fill=color)


@_glyph("google")
def _g_google(d, cx, cy, s, wd, color) -> None:
    d.arc((cx - s, cy - s, cx + s, cy + s), 0, 310, fill=color, width=wd)
    d.line([(cx, cy), (cx + s, cy)], fill=color, width=wd)


@_glyph("info")
def _g_info(d, cx, cy, s, wd, color) -> None:
    w = max(3, wd // 2)
    d.ellipse((cx - s, cy - s, cx + s, cy + s), outline=color, width=w)
    d.ellipse((cx - w, cy - s // 2 - w, cx + w, cy - s // 2 + w), fill=color)
    d.line([(cx, cy - s // 6), (cx, cy + s // 2)], fill=color, width=w)


@_glyph("palette")
def _g_palette(d, cx, cy, s, wd, color) -> None:
    d.ellipse((cx - s, cy - s, cx + s, cy + s), outline=color, width=max(3, wd // 2))
    r = max(3, s // 6)
    for dx, dy in ((-s // 2, -s // 6), (-s // 6, -s // 2), (s // 3, -s // 3), (s // 3, s // 4)):
        d.ellipse((cx + dx - r, cy + dy - r, cx + dx + r, cy + dy + r), fill=color)


@_glyph("accessibility")
def _g_accessibility(d, cx, cy, s, wd, color) -> None:
    w = max(3, wd // 2)
    r = max(3, s // 5)
    d.ellipse((cx - r, cy - s, cx + r, cy - s + 2 * r), fill=color)
    d.line([(cx - s, cy - s // 3), (cx + s, cy - s // 3)], fill=color, width=w)
    d.line([(cx, cy - s // 3), (cx, cy + s // 4)], fill=color, width=w)
    d.line([(cx - s // 2, cy + s), (cx, cy + s // 4), (cx + s // 2, cy + s)], fill=color, width=w)


@_glyph("lock")
def _g_lock(d, cx, cy, s, wd, color) -> None:
    w = max(3, wd // 2)
    d.arc((cx - s // 2, cy - s, cx + s // 2, cy), 180, 360, fill=color, width=w)
    d.line([(cx - s // 2, cy - s // 2), (cx - s // 2, cy - s // 6)], fill=color, width=w)
    d.line([(cx + s // 2, cy - s // 2), (cx + s // 2, cy - s // 6)], fill=color, width=w)
    d.rounded_rectangle(
        (cx - s * 3 // 4, cy - s // 6, cx + s * 3 // 4, cy + s), radius=4, fill=color
    )


@_glyph("sound")
def _g_sound(d, cx, cy, s, wd, color) -> None:
    d.polygon(
        [
            (cx - s, cy - s // 3),
            (cx - s // 2, cy - s // 3),
            (cx, cy - s),
            (cx, cy + s),
            (cx - s // 2, cy + s // 3),
            (cx - s, cy + s // 3),
        ],
        fill=color,
    )
    for rr in (s // 2, s):
        d.arc((cx - rr, cy - rr, cx + rr, cy + rr), 300, 60, fill=color, width=max(3, wd // 2))


@_glyph("attach")
def _g_attach(d, cx, cy, s, wd, color) -> None:
    w = max(3, wd // 2)
    d.rounded_rectangle(
        (cx - s // 3, cy - s, cx + s // 3, cy + s), radius=s // 3, outline=color, width=w
    )
    d.line([(cx, cy - s // 2), (cx, cy + s // 2)], fill=color, width=w)


GLYPHS = tuple(_GLYPH_DRAWERS)  # icon names apps may use; any other draws its initial


def _inset(r: Rect, pad: tuple[int, int, int, int]) -> Rect:
    return (r[0] + pad[0], r[1] + pad[1], r[2] - pad[2], r[3] - pad[3])


def _inside(r: Rect, clip: Rect) -> bool:
    return r[0] >= clip[0] and r[1] >= clip[1] and r[2] <= clip[2] and r[3] <= clip[3]


def blank_frame(size: tuple[int, int] = (WIDTH, HEIGHT)) -> np.ndarray:
    pixels = np.full((size[1], size[0], 3), 255, dtype=np.uint8)
    pixels.setflags(write=False)
    return pixels
