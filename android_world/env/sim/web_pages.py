"""The local pages the simulated Chrome can show, as widget trees with the pages' behaviour.

A task page (`device_facts.chrome`) names its kind and seed; the page here replays the puzzle
its script would draw and behaves as the script does: the maze moves the X on the direction
buttons and turns into "Success!" on the goal, the multiply page shows a new number per click
and checks the product, the draw page keeps a real 300x300 canvas that strokes paint (touches
that start on it never scroll the page, as `touch-action: none`) and on Submit looks for the
task's colours among its pixels. Any other file is shown as its text.

Sizes are CSS pixels times the page's scale: a page with a `width=device-width` viewport lays
out at 2.625 design pixels per CSS pixel (1 dp), one without it is zoomed out to fit Chrome's
980-px layout width into the window, as Chrome does; the zoom setting multiplies both. As in
Chrome's accessibility tree, empty boxes (cells, swatches) are drawn but not exposed; buttons,
texts, the input and the canvas are.
"""

from __future__ import annotations

import dataclasses
import html
import re
from collections.abc import Callable

from PIL import Image, ImageDraw

from android_world.env.device_facts import chrome as facts
from android_world.env.sim import widgets as w
from android_world.env.sim.widgets import Bitmap, Node

DESIGN_PX_PER_CSS_PX = 2.625  # 420 dpi over 160: one dp
LAYOUT_WIDTH = 980  # Chrome's layout width for a page without a viewport tag
BODY_MARGIN = 8


@dataclasses.dataclass(frozen=True)
class Css:
    """CSS pixels to design pixels for one page at one zoom."""

    scale: float

    def px(self, value: float) -> int:
        return max(1, round(value * self.scale))


def page_scale(fits_screen: bool, window_width: int, zoom: float) -> Css:
    base = DESIGN_PX_PER_CSS_PX if fits_screen else window_width / LAYOUT_WIDTH
    return Css(base * zoom)


# ---- building blocks ----------------------------------------------------------------------------


def _box(css: Css, width: float, height: float, color: str, **kw) -> Node:
    """A painted <div> with no text: seen, not in the accessibility tree."""
    return Node(
        kind="box",
        cls="android.view.View",
        w=css.px(width),
        h=css.px(height),
        style={"bg": color, "a11y_hidden": True},
        **kw,
    )


def _text(css: Css, text: str, size: float, *, bold: bool = False, center: bool = False) -> Node:
    return w.label(text, size=css.px(size), bold=bold, center=center, h=css.px(size * 1.4))


def _button(css: Css, text: str, on_click: Callable[[], None], size: float, pad: tuple) -> Node:
    """A <button>: its text at `size` with `pad` (x, y) CSS pixels around it."""
    width = len(text) * size * 0.6 + 2 * pad[0]
    node = w.button(
        text, on_click, variant="web", w=css.px(width), h=css.px(size * 1.3 + 2 * pad[1])
    )
    node.style["size"] = css.px(size)
    return node


def _centered(*children: Node, h: int) -> Node:
    return w.row(w.spacer(), *children, w.spacer(), h=h)


def _left(*children: Node, h: int, gap: int = 0) -> Node:
    return w.row(*children, w.spacer(), h=h, gap=gap)


def _parse_int(text: str) -> int | None:
    """JavaScript's `parseInt(text, 10)`: the leading integer, else nothing (NaN)."""
    match = re.match(r"\s*([+-]?\d+)", text)
    return int(match.group(1)) if match else None


# ---- the pages ----------------------------------------------------------------------------------


class WebPage:
    """One loaded document: its title, whether it has a device-width viewport, its nodes."""

    title = ""
    fits_screen = False

    def nodes(self, css: Css) -> list[Node]:
        raise NotImplementedError


class MazePage(WebPage):
    title = facts.PAGE_TITLES["maze"]

    def __init__(self, seed: int):
        self.layout = facts.maze(seed)
        self.at = (0, 0)
        self.solved = False

    def move(self, direction: str) -> None:
        if self.solved:
            return
        self.at = facts.maze_step(self.layout, self.at, direction)
        row, col = self.at
        self.solved = self.layout[row][col] == facts.GOAL

    def _cell(self, css: Css, row: int, col: int) -> Node:
        kind = self.layout[row][col]
        fill = {facts.WALL: "#000000", facts.GOAL: "#008000"}.get(kind, "#ffffff")
        inner = Node(kind="box", cls="android.view.View", flex=1, style={"bg": fill})
        if (row, col) == self.at:
            inner.children = [_text(css, "X", 56, center=True)]
            inner.align = "center"
        else:
            inner.style["a11y_hidden"] = True
        return w.column(
            inner, w=css.px(112), h=css.px(112), pad=(css.px(1),) * 4, style={"bg": "#000000"}
        )

    def nodes(self, css: Css) -> list[Node]:
        if self.solved:  # the page's body is replaced by one heading
            return [_left(_text(css, facts.SUCCESS_TEXT, 32, bold=True), h=css.px(60))]
        rows = [
            _left(*[self._cell(css, r, c) for c in range(facts.MAZE_SIZE)], h=css.px(112))
            for r in range(facts.MAZE_SIZE)
        ]
        buttons = [
            _button(css, label, lambda d=move: self.move(d), 30, (28, 15))
            for label, move in (
                ("Up", "up"),
                ("Down", "down"),
                ("Left", "left"),
                ("Right", "right"),
            )
        ]
        return [*rows, w.spacer(h=css.px(10)), _left(*buttons, h=css.px(69), gap=css.px(5))]


class MultiplyPage(WebPage):
    title = facts.PAGE_TITLES["multiply"]

    def __init__(self, seed: int):
        self.numbers = facts.multiply_numbers(seed)
        self.clicks = 0
        self.answer = ""
        self.result: str | None = None  # None: no answer submitted yet

    @property
    def asking(self) -> bool:
        return self.clicks >= facts.MULTIPLY_CLICKS

    def click(self) -> None:
        self.clicks = min(self.clicks + 1, facts.MULTIPLY_CLICKS)

    def set_answer(self, text: str) -> None:
        self.answer = "".join(ch for ch in text if ch in "0123456789+-.e")  # a number input

    def submit(self) -> None:
        product = 1
        for n in self.numbers:
            product *= n
        self.result = facts.SUCCESS_TEXT if _parse_int(self.answer) == product else ""

    def nodes(self, css: Css) -> list[Node]:
        parts: list[Node] = [w.spacer(h=css.px(50))]
        if not self.asking:
            shown = str(self.numbers[self.clicks])
            parts += [
                _text(css, shown, 48, center=True),
                w.spacer(h=css.px(20)),
                _centered(_button(css, "Click Me", self.click, 24, (20, 10)), h=css.px(52)),
            ]
        else:
            field = w.text_field(
                self.answer,
                self.set_answer,
                hint="Enter the product",
                key="answer",
                on_enter=lambda: None,
                h=css.px(40),
            )
            field.w = css.px(230)
            field.style["size"] = css.px(18)
            parts += [
                w.spacer(h=css.px(40)),
                _centered(field, _button(css, "Submit", self.submit, 18, (10, 5)), h=css.px(40)),
            ]
        if self.result:
            parts.append(_text(css, self.result, 24, bold=True, center=True))
        return parts


class DrawPage(WebPage):
    title = facts.PAGE_TITLES["draw"]
    fits_screen = True

    def __init__(self, seed: int):
        self.wanted = facts.draw_colors(seed)
        size = facts.CANVAS_SIZE
        self.canvas = Image.new("RGBA", (size, size), (0, 0, 0, 0))  # cleared: transparent black
        self.stroke = facts.DEFAULT_STROKE
        self.edits = 0
        self.result = ""

    def pick(self, color: str) -> None:
        self.stroke = color

    def draw(
        self, frame: tuple[int, int, int, int], sx: float, sy: float, ex: float, ey: float
    ) -> None:
        """A touch that starts on the canvas paints one line (the canvas clips it)."""
        left, top, right, bottom = frame
        fx = facts.CANVAS_SIZE / max(1, right - left)
        fy = facts.CANVAS_SIZE / max(1, bottom - top)
        start = ((sx - left) * fx, (sy - top) * fy)
        end = ((ex - left) * fx, (ey - top) * fy)
        if start == end:
            return  # a tap: no move, no line
        ImageDraw.Draw(self.canvas).line([start, end], fill=self.stroke, width=1)
        self.edits += 1

    def clear(self) -> None:
        self.canvas = Image.new("RGBA", self.canvas.size, (0, 0, 0, 0))
        self.edits += 1

    def used_colors(self) -> set[str]:
        return {facts.hex_color(rgba[:3]) for _, rgba in self.canvas.getcolors(1 << 24) or ()}

    def submit(self) -> None:
        used = self.used_colors()
        self.result = facts.SUCCESS_TEXT if all(c in used for c in self.wanted) else ""

    def _canvas_node(self, css: Css) -> Node:
        shown = Image.new("RGB", self.canvas.size, (255, 255, 255))
        shown.paste(self.canvas, mask=self.canvas)
        node = w.image_view(
            Bitmap(f"canvas:{id(self)}:{self.edits}", shown),
            fit="stretch",
            smooth=False,
            on_click=lambda: None,
            res_id="canvas",
            flex=1,
        )
        node.cls = "android.view.View"
        node.on_drag = lambda sx, sy, ex, ey: self.draw(node.frame, sx, sy, ex, ey)
        size = css.px(facts.CANVAS_SIZE + 2)
        return w.column(node, w=size, h=size, pad=(css.px(1),) * 4, style={"bg": "#000000"})

    def _palette(self, css: Css) -> list[Node]:
        per_row = 8  # 36-px buttons in a 300-px wide box
        rows = []
        colors = facts.AVAILABLE_COLORS
        for start in range(0, len(colors), per_row):
            buttons = [
                Node(
                    kind="box",
                    cls="android.widget.Button",
                    w=css.px(30),
                    h=css.px(30),
                    clickable=True,
                    focusable=True,
                    on_click=lambda c=color: self.pick(c),
                    style={"bg": color},
                )
                for color in colors[start : start + per_row]
            ]
            rows.append(
                w.row(w.spacer(), *buttons, w.spacer(), h=css.px(36), gap=css.px(6), align="center")
            )
        return rows

    def nodes(self, css: Css) -> list[Node]:
        swatches = [_box(css, 50, 50, color) for color in self.wanted]
        parts = [
            w.row(w.spacer(), *swatches, w.spacer(), h=css.px(60), gap=css.px(10), align="center"),
            _centered(self._canvas_node(css), h=css.px(facts.CANVAS_SIZE + 2)),
            w.spacer(h=css.px(30)),
            _text(css, "Available Colors:", 14, center=True),
            w.spacer(h=css.px(14)),
            *self._palette(css),
            w.spacer(h=css.px(20)),
            _centered(
                _button(css, "Clear", self.clear, 14, (10, 5)),
                w.spacer(w=css.px(10)),
                _button(css, "Submit", self.submit, 14, (10, 5)),
                h=css.px(36),
            ),
            w.spacer(h=css.px(14)),
        ]
        if self.result:
            parts.append(_text(css, self.result, 14, center=True))
        return parts


class TextPage(WebPage):
    """Any other document: its title and its text, one paragraph per line."""

    def __init__(self, title: str, lines: list[str]):
        self.title = title
        self.lines = lines

    def nodes(self, css: Css) -> list[Node]:
        return [w.label(line, size=css.px(16), max_lines=3) for line in self.lines[:200]]


_TAG = re.compile(r"<[^>]*>")
_BLOCK = re.compile(r"</?(?:p|div|br|h[1-6]|li|tr|pre)\b[^>]*>", re.IGNORECASE)  # line breaks
_TITLE = re.compile(r"<title>([^<]{0,200})</title>", re.IGNORECASE)


def _without_code(text: str) -> str:
    """The document less its <script> and <style> elements (one pass, no backtracking)."""
    kept, at, low = [], 0, text.lower()
    while True:
        starts = [i for i in (low.find("<script", at), low.find("<style", at)) if i >= 0]
        if not starts:
            return "".join(kept) + text[at:]
        start = min(starts)
        closing = "</script>" if low.startswith("<script", start) else "</style>"
        end = low.find(closing, start)
        kept.append(text[at:start])
        if end < 0:
            return "".join(kept)
        at = end + len(closing)


def open_document(text: str, fallback_title: str) -> WebPage:
    """The page a file shows: a task page by its tags, else its text."""
    page = facts.read_page(text)
    if page is not None:
        return {"maze": MazePage, "multiply": MultiplyPage, "draw": DrawPage}[page.kind](page.seed)
    found = _TITLE.search(text)
    start = text.lower().find("<body")
    body = _without_code(text[start:] if start >= 0 else text)
    body = _TAG.sub(" ", _BLOCK.sub("\n", body))
    lines = [" ".join(html.unescape(line).split()) for line in body.splitlines()]
    title = html.unescape(found.group(1)).strip() if found else fallback_title
    return TextPage(title, [line for line in lines if line])


def message_page(title: str, message: str, code: str) -> WebPage:
    """Chrome's own error pages (a missing file, no network)."""
    return TextPage(title, [title, message, code])
