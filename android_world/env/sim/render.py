"""Draws a frame's node trees with Pillow, so screenshots read like a phone and OCR well.

Dark text on light surfaces at 36-56 px, Material-like shapes. Speed: text is rasterised once per
(string, size) and pasted as a mask afterwards; whole frames are cached by a hash of what is
drawn, so revisiting a screen costs a dictionary lookup.
"""

from __future__ import annotations

import collections
import math
from functools import cache
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from android_world.env import device
from android_world.env.sim.widgets import Node, Rect

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
    "divider": (218, 220, 224),
    "tonal": (211, 227, 253),
    "on_accent": (255, 255, 255),
    "ime": (232, 234, 237),
    "scrim": (0, 0, 0),
    "home": (232, 240, 254),
}
# The scrim behind a dialog: the app's content fades towards light grey. A light scrim (not the
# usual dark one) keeps OCR working: a dark frame around a dialog makes tesseract take the whole
# dialog for a picture and drop its buttons; faded content also stays out of the OCR text.
DIM_LUT = [int(225 + (v - 225) * 0.1) for v in range(256)] * 3

# Icons the renderer knows how to draw; any other name draws the description's initial.
GLYPHS = (
    "back",
    "more",
    "search",
    "add",
    "close",
    "check",
    "delete",
    "edit",
    "menu",
    "up",
    "down",
    "left",
    "right",
    "wifi",
    "bluetooth",
    "battery",
    "signal",
    "nav_back",
    "nav_home",
    "nav_recent",
    "shift",
    "backspace",
    "enter",
    "space",
    "star",
    "share",
    "send",
    "play",
    "pause",
    "stop",
    "camera",
    "video",
    "folder",
    "file",
    "person",
    "phone",
    "clock",
    "alarm",
    "timer",
    "stopwatch",
    "calendar",
    "display",
    "sound",
    "bell",
    "apps",
    "storage",
    "lock",
    "location",
    "info",
    "devices",
    "palette",
    "accessibility",
    "key",
    "google",
    "sim",
    "hotspot",
    "datasaver",
    "cast",
    "print",
    "save",
    "sort",
    "refresh",
    "copy",
    "message",
    "attach",
)


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)  # bundled TrueType: identical on every machine


@cache
def _text_mask(text: str, size: int) -> Image.Image:
    f = font(size)
    ascent, descent = f.getmetrics()
    width = max(1, math.ceil(f.getlength(text)) + 2)
    mask = Image.new("L", (width, ascent + descent))
    ImageDraw.Draw(mask).text((0, 0), text, font=f, fill=255)
    return mask


@cache
def _fit(text: str, size: int, width: int) -> str:
    """Ellipsize to fit `width` pixels, as a single-line TextView does."""
    f = font(size)
    if f.getlength(text) <= width:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if f.getlength(text[:mid] + "…") <= width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…"


@cache
def _word_length(word: str, size: int) -> float:
    return font(size).getlength(word)


@cache
def _wrap(text: str, size: int, width: int, max_lines: int) -> tuple[str, ...]:
    space = _word_length(" ", size)
    lines: list[str] = []
    for paragraph in text.split("\n"):
        current, current_len = "", 0.0
        for word in paragraph.split(" "):
            word_len = _word_length(word, size)
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


class Renderer:
    """Turns windows into an (H, W, 3) uint8 array.

    Two caches: whole frames by a hash of everything drawn, and the screen-tiling windows
    (status bar, app content, keyboard, navigation bar) by their own hash, so a frame where only
    the app content changed redraws only that block and copies the rest.
    """

    def __init__(self, cache_size: int = 64):
        self._frames: collections.OrderedDict[int, np.ndarray] = collections.OrderedDict()
        self._blocks: collections.OrderedDict[int, np.ndarray] = collections.OrderedDict()
        self._cache_size = cache_size
        self.hits = 0
        self.misses = 0

    def render(self, windows: list[Window]) -> np.ndarray:
        signatures = [
            (win.dim_below, tuple(_signature(n) for n in win.root.walk())) for win in windows
        ]
        key = hash(tuple(signatures))
        cached = self._frames.get(key)
        if cached is not None:
            self._frames.move_to_end(key)
            self.hits += 1
            return cached
        self.misses += 1
        pixels = self._compose(windows, signatures)
        _remember(self._frames, key, pixels, self._cache_size)
        return pixels

    def draw(self, windows: list[Window]) -> np.ndarray:
        """Render with both caches bypassed (for benchmarks and tests)."""
        signatures = [
            (win.dim_below, tuple(_signature(n) for n in win.root.walk())) for win in windows
        ]
        self._blocks.clear()
        return self._compose(windows, signatures)

    def _compose(self, windows: list[Window], signatures: list) -> np.ndarray:
        last_dim = max((i for i, win in enumerate(windows) if win.dim_below), default=-1)
        pixels = np.empty((HEIGHT, WIDTH, 3), dtype=np.uint8)
        covered = 0
        floating = []
        for i, win in enumerate(windows):
            if win.root.kind not in BLOCK_KINDS:
                floating.append(win)
                continue
            left, top, right, bottom = win.root.frame
            dim = i < last_dim and win.root.kind == "screen"  # system bars sit above the scrim
            key = hash((signatures[i], dim))
            block = self._blocks.get(key)
            if block is None:
                block = self._draw_block(win.root, dim)
                _remember(self._blocks, key, block, self._cache_size)
            pixels[top:bottom, left:right] = block
            covered += (right - left) * (bottom - top)
        if covered < WIDTH * HEIGHT:
            pixels[:] = 255  # not tiled (unexpected layout): draw everything the slow way
            floating = [w for w in windows]
        if floating:
            image = Image.fromarray(pixels)
            for win in floating:
                canvas = _Canvas(image)
                for node in win.root.walk():
                    canvas.node(node)
            pixels = np.asarray(image)
        pixels.setflags(write=False)
        return pixels

    def _draw_block(self, root: Node, dim: bool) -> np.ndarray:
        left, top, right, bottom = root.frame
        image = Image.new("RGB", (right - left, bottom - top), WHITE)
        canvas = _Canvas(image, (left, top))
        for node in root.walk():
            canvas.node(node)
        if dim:
            image = image.point(DIM_LUT)
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
        node.value,
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

    def text(self, text: str, x: int, y: int, size: int, color, clip: Rect) -> None:
        """Paste `text` with its line box's top-left at (x, y), cut to `clip`."""
        if not text:
            return
        mask = _text_mask(text, size)
        x0, y0, x1, y1 = x, y, x + mask.width, y + mask.height
        cx0, cy0 = max(x0, clip[0]), max(y0, clip[1])
        cx1, cy1 = min(x1, clip[2]), min(y1, clip[3])
        if cx1 <= cx0 or cy1 <= cy0:
            return
        if (cx0, cy0, cx1, cy1) != (x0, y0, x1, y1):
            mask = mask.crop((cx0 - x0, cy0 - y0, cx1 - x0, cy1 - y0))
        ox, oy = self.ox, self.oy
        self.image.paste(color, (cx0 - ox, cy0 - oy, cx1 - ox, cy1 - oy), mask)

    def line_text(
        self, text: str, r: Rect, size: int, color, clip: Rect, center: bool = False
    ) -> None:
        """One line, ellipsized to the box, vertically centred."""
        width = r[2] - r[0]
        if width <= 0:
            return
        shown = _fit(text, size, width)
        mask = _text_mask(shown, size)
        x = r[0] + (width - mask.width) // 2 if center else r[0]
        y = (r[1] + r[3] - mask.height) // 2
        self.text(shown, x, y, size, color, clip)

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
    ) -> None:
        wrapped = _wrap(text, size, max(1, r[2] - r[0]), lines)
        line_h = _text_mask("Ag", size).height
        y = r[1] if top else (r[1] + r[3] - line_h * len(wrapped)) // 2
        for line in wrapped:
            mask = _text_mask(line, size)
            x = r[0] + (r[2] - r[0] - mask.width) // 2 if center else r[0]
            self.text(line, x, y, size, color, clip)
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

    def k_row(self, n: Node) -> None:
        if n.selected:
            self.rect(n.frame, n.clip, COLORS["tonal"])

    def k_divider(self, n: Node) -> None:
        self.rect(n.frame, n.clip, COLORS["divider"])

    def k_text(self, n: Node) -> None:
        s = n.style
        r = _inset(n.frame, n.pad)
        color = COLORS.get(s.get("color", "text"), COLORS["text"])
        size = s.get("size", 42)
        if s.get("lines", 1) > 1:
            self.para(n.text, r, size, color, n.clip, s["lines"], s.get("center", False))
        else:
            self.line_text(n.text, r, size, color, n.clip, s.get("center", False))

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
            mask = _text_mask(initial, 84)
            self.text(
                initial, cx - mask.width // 2, box[1] + radius - mask.height // 2, 84, WHITE, n.clip
            )
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
        if n.checked:
            self.d.rounded_rectangle(box, radius=6, fill=COLORS["accent"])
            self.d.line([(cx - 16, cy), (cx - 4, cy + 13), (cx + 17, cy - 13)], fill=WHITE, width=7)
        else:
            self.d.rounded_rectangle(box, radius=6, outline=COLORS["outline"], width=5)

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
        if variant == "filled":
            self.rect(r, n.clip, COLORS["accent"], radius=(r[3] - r[1]) // 2)
            fg = WHITE
        elif variant == "tonal":
            self.rect(r, n.clip, COLORS["tonal"], radius=(r[3] - r[1]) // 2)
            fg = COLORS["text"]
        elif variant == "outlined":
            self.rect(
                r, n.clip, WHITE, radius=(r[3] - r[1]) // 2, outline=COLORS["outline"], width=3
            )
        if not n.enabled:
            fg = COLORS["hint"]
        self.line_text(n.text or n.desc, _inset(r, (20, 0, 20, 0)), 40, fg, n.clip, center=True)

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
        r = (n.frame[0] + 36, n.frame[1] + 14, n.frame[2] - 36, n.frame[3] - 14)
        if not s.get("borderless"):
            color = COLORS["accent"] if n.focused else COLORS["outline"]
            self.rect(r, n.clip, WHITE, radius=16, outline=color, width=5 if n.focused else 3)
        inner = _inset(r, (32, 14, 32, 14))
        size = s.get("size", 42)
        shown = "•" * len(n.text) if s.get("password") else n.text
        color = COLORS["text"] if shown else COLORS["hint"]
        content = shown or n.hint
        if n.multiline:
            lines = max(1, (inner[3] - inner[1]) // _text_mask("Ag", size).height)
            self.para(content, inner, size, color, n.clip, lines, top=True)
        else:
            self.line_text(content, inner, size, color, n.clip, center=s.get("center", False))
        if n.focused and not n.multiline:
            width = (
                0
                if not shown
                else min(
                    inner[2] - inner[0],
                    _text_mask(_fit(shown, size, inner[2] - inner[0]), size).width,
                )
            )
            x = (
                inner[0] + width + 2
                if not s.get("center")
                else (inner[0] + inner[2]) // 2 + width // 2
            )
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
        self.rect(n.frame, n.clip, (248, 250, 253), radius=12, outline=COLORS["divider"], width=2)

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
        d, wd = self.d, max(4, s // 6)
        if name == "back" or name == "left":
            d.line([(cx + s, cy), (cx - s, cy)], fill=color, width=wd)
            d.line([(cx - s + wd // 2, cy), (cx, cy - s)], fill=color, width=wd)
            d.line([(cx - s + wd // 2, cy), (cx, cy + s)], fill=color, width=wd)
        elif name == "right":
            d.line([(cx - s, cy), (cx + s, cy)], fill=color, width=wd)
            d.line([(cx + s - wd // 2, cy), (cx, cy - s)], fill=color, width=wd)
            d.line([(cx + s - wd // 2, cy), (cx, cy + s)], fill=color, width=wd)
        elif name == "more":
            for dy in (-s * 2 // 3, 0, s * 2 // 3):
                d.ellipse((cx - wd, cy + dy - wd, cx + wd, cy + dy + wd), fill=color)
        elif name == "menu":
            for dy in (-s * 2 // 3, 0, s * 2 // 3):
                d.line([(cx - s, cy + dy), (cx + s, cy + dy)], fill=color, width=wd)
        elif name == "search":
            rr = s * 2 // 3
            d.ellipse((cx - s, cy - s, cx - s + 2 * rr, cy - s + 2 * rr), outline=color, width=wd)
            d.line([(cx + s // 4, cy + s // 4), (cx + s, cy + s)], fill=color, width=wd)
        elif name in ("add", "hotspot"):
            d.line([(cx - s, cy), (cx + s, cy)], fill=color, width=wd)
            d.line([(cx, cy - s), (cx, cy + s)], fill=color, width=wd)
        elif name == "close":
            d.line([(cx - s, cy - s), (cx + s, cy + s)], fill=color, width=wd)
            d.line([(cx - s, cy + s), (cx + s, cy - s)], fill=color, width=wd)
        elif name == "check":
            d.line(
                [(cx - s, cy), (cx - s // 3, cy + s * 2 // 3), (cx + s, cy - s * 2 // 3)],
                fill=color,
                width=wd,
            )
        elif name in ("up", "down"):
            sign = -1 if name == "up" else 1
            d.polygon(
                [
                    (cx - s, cy - sign * s // 2),
                    (cx + s, cy - sign * s // 2),
                    (cx, cy + sign * s // 2),
                ],
                fill=color,
            )
        elif name == "delete":
            d.rectangle(
                (cx - s * 2 // 3, cy - s // 2, cx + s * 2 // 3, cy + s), outline=color, width=wd
            )
            d.line([(cx - s, cy - s * 2 // 3), (cx + s, cy - s * 2 // 3)], fill=color, width=wd)
        elif name == "edit":
            d.line([(cx - s, cy + s), (cx + s, cy - s)], fill=color, width=wd * 2)
        elif name == "wifi":
            for k in (3, 2, 1):
                rr = s * k // 3 + s // 3
                d.arc(
                    (cx - rr, cy + s // 2 - rr, cx + rr, cy + s // 2 + rr),
                    225,
                    315,
                    fill=color,
                    width=wd,
                )
            d.ellipse((cx - wd, cy + s // 2 - wd, cx + wd, cy + s // 2 + wd), fill=color)
        elif name == "bluetooth":
            pts = [
                (cx - s // 2, cy - s // 2),
                (cx + s // 2, cy + s // 2),
                (cx, cy + s),
                (cx, cy - s),
                (cx + s // 2, cy - s // 2),
                (cx - s // 2, cy + s // 2),
            ]
            d.line(pts, fill=color, width=max(3, wd // 2))
        elif name == "battery":
            d.rectangle((cx - s // 2, cy - s + 4, cx + s // 2, cy + s), fill=color)
            d.rectangle((cx - s // 5, cy - s, cx + s // 5, cy - s + 4), fill=color)
        elif name == "signal":
            d.polygon([(cx - s, cy + s), (cx + s, cy + s), (cx + s, cy - s)], fill=color)
        elif name == "nav_back":
            d.polygon(
                [(cx + s // 2, cy - s // 2), (cx + s // 2, cy + s // 2), (cx - s // 2, cy)],
                outline=color,
                width=wd,
            )
        elif name == "nav_home":
            d.ellipse((cx - s // 2, cy - s // 2, cx + s // 2, cy + s // 2), outline=color, width=wd)
        elif name == "nav_recent":
            d.rectangle(
                (cx - s // 2, cy - s // 2, cx + s // 2, cy + s // 2), outline=color, width=wd
            )
        elif name == "shift":
            d.polygon([(cx, cy - s), (cx + s, cy), (cx - s, cy)], outline=color, width=wd // 2 + 1)
            d.rectangle(
                (cx - s // 3, cy, cx + s // 3, cy + s * 2 // 3), outline=color, width=wd // 2 + 1
            )
        elif name == "backspace":
            d.polygon(
                [
                    (cx - s, cy),
                    (cx - s // 3, cy - s // 2),
                    (cx + s, cy - s // 2),
                    (cx + s, cy + s // 2),
                    (cx - s // 3, cy + s // 2),
                ],
                outline=color,
                width=wd // 2 + 1,
            )
        elif name == "enter":
            d.line(
                [(cx + s, cy - s // 2), (cx + s, cy + s // 3), (cx - s, cy + s // 3)],
                fill=color,
                width=wd,
            )
            d.line([(cx - s, cy + s // 3), (cx - s // 2, cy - s // 6)], fill=color, width=wd)
        elif name == "space":
            d.line([(cx - s * 2, cy + s // 2), (cx + s * 2, cy + s // 2)], fill=color, width=wd)
        elif name in ("play", "send"):
            d.polygon([(cx - s // 2, cy - s), (cx + s, cy), (cx - s // 2, cy + s)], fill=color)
        elif name == "pause":
            d.rectangle((cx - s * 2 // 3, cy - s, cx - s // 5, cy + s), fill=color)
            d.rectangle((cx + s // 5, cy - s, cx + s * 2 // 3, cy + s), fill=color)
        elif name == "stop":
            d.rectangle(
                (cx - s * 2 // 3, cy - s * 2 // 3, cx + s * 2 // 3, cy + s * 2 // 3), fill=color
            )
        elif name in ("camera", "video"):
            d.rounded_rectangle(
                (cx - s, cy - s * 2 // 3, cx + s, cy + s * 2 // 3),
                radius=8,
                outline=color,
                width=wd,
            )
            d.ellipse((cx - s // 3, cy - s // 3, cx + s // 3, cy + s // 3), outline=color, width=wd)
        elif name in ("folder", "file", "storage"):
            d.rounded_rectangle(
                (cx - s, cy - s * 2 // 3, cx + s, cy + s * 2 // 3),
                radius=6,
                outline=color,
                width=wd,
            )
        elif name in ("clock", "alarm", "timer", "stopwatch"):
            d.ellipse((cx - s, cy - s, cx + s, cy + s), outline=color, width=wd)
            d.line(
                [(cx, cy), (cx, cy - s * 2 // 3), (cx, cy), (cx + s // 2, cy)], fill=color, width=wd
            )
        elif name == "person":
            d.ellipse((cx - s // 2, cy - s, cx + s // 2, cy), fill=color)
            d.pieslice((cx - s, cy + s // 6, cx + s, cy + 2 * s), 180, 360, fill=color)
        elif name == "star":
            pts = [
                (
                    cx + s * math.cos(math.pi / 2 + k * 4 * math.pi / 5),
                    cy - s * math.sin(math.pi / 2 + k * 4 * math.pi / 5),
                )
                for k in range(5)
            ]
            d.polygon(pts, fill=color)
        else:
            letter = (desc or name or "?")[:1].upper()
            d.ellipse((cx - s, cy - s, cx + s, cy + s), outline=color, width=max(3, wd // 2))
            size = max(12, s)
            mask = _text_mask(letter, size)
            self.text(letter, cx - mask.width // 2, cy - mask.height // 2, size, color, clip)


def _inset(r: Rect, pad: tuple[int, int, int, int]) -> Rect:
    return (r[0] + pad[0], r[1] + pad[1], r[2] - pad[2], r[3] - pad[3])


def _inside(r: Rect, clip: Rect) -> bool:
    return r[0] >= clip[0] and r[1] >= clip[1] and r[2] <= clip[2] and r[3] <= clip[3]


def blank_frame() -> np.ndarray:
    pixels = np.full((HEIGHT, WIDTH, 3), 255, dtype=np.uint8)
    pixels.setflags(write=False)
    return pixels
