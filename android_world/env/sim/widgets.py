"""Nodes and reusable widgets: the building blocks every simulated app draws its screens with.

A screen is rebuilt from scratch on every observation (immediate mode), so widgets are plain
functions returning `Node` trees; handlers are closures over the app's state. The layout engine
(`layout.py`) gives every node its pixel bounds, the phone turns nodes into accessibility nodes
and the renderer draws them by `kind`. See `android_world/env/sim/apps/__init__.py` for the
authoring guide.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import Image

Handler = Callable[[], None]
DragHandler = Callable[[float, float, float, float], None]  # from (x, y) to (x, y)
TapHandler = Callable[[float, float, bool], None]  # at (x, y); True for a long press
Rect = tuple[int, int, int, int]  # left, top, right, bottom

# Sizes shared by the widgets so every app looks like the same phone.
APP_BAR_H = 180
ROW_H = 170
ROW_2LINE_H = 200
FIELD_H = 150
BUTTON_H = 120
TITLE_SIZE = 56
BODY_SIZE = 42
SECONDARY_SIZE = 36


@dataclasses.dataclass(eq=False)
class Node:
    """One view of a screen.

    Layout fields: `h`/`w` fix a size in pixels, `flex` shares the space left in the parent's
    main axis, `direction` is how children are stacked ("column", "row", "overlay"), `pad` is
    (left, top, right, bottom), `gap` the space between children, `align` places children on the
    main axis ("start", "center", "end"). `key` gives a node a stable identity across rebuilds
    (focus, scroll offsets); it defaults to `res_id`.
    """

    kind: str = "box"
    cls: str = "android.view.ViewGroup"
    text: str = ""
    desc: str = ""
    hint: str = ""
    res_id: str = ""
    key: str = ""
    children: list[Node] = dataclasses.field(default_factory=list)
    # layout
    h: int | None = None
    w: int | None = None
    flex: float = 0.0
    direction: str = "column"
    pad: tuple[int, int, int, int] = (0, 0, 0, 0)
    gap: int = 0
    align: str = "start"
    # accessibility flags
    clickable: bool = False
    long_clickable: bool = False
    checkable: bool = False
    checked: bool = False
    editable: bool = False
    focusable: bool = False
    focused: bool = False
    scrollable: bool = False
    selected: bool = False
    enabled: bool = True
    # behaviour
    on_click: Handler | None = None
    on_long_click: Handler | None = None
    on_change: Callable[[Any], None] | None = None  # new text (fields) or value (seekbars)
    on_enter: Handler | None = None  # IME action on a single-line field
    on_drag: DragHandler | None = None  # a finger moving from a point on it (canvas, pager)
    on_tap_at: TapHandler | None = None  # a touch that matters where it lands (a map)
    multiline: bool = False
    value: float = 0.0  # seekbars and pickers
    min_value: float = 0.0
    max_value: float = 1.0
    style: dict[str, Any] = dataclasses.field(default_factory=dict)
    # filled by the layout engine
    frame: Rect = (0, 0, 0, 0)  # full geometry, may extend past a scroll viewport
    bounds: Rect = (0, 0, 0, 0)  # visible part, what accessibility reports
    clip: Rect = (0, 0, 0, 0)
    content_h: int = 0  # scroll containers: height of all children

    @property
    def ident(self) -> str:
        return self.key or self.res_id

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()


@dataclasses.dataclass(frozen=True)
class Bitmap:
    """Pixels an image node draws (a photo, a web page's canvas). `key` names the content: two
    bitmaps with one key are the same pixels (frames share cached strips), so new pixels need a
    new key (a file's path with its time and size, a canvas with its edit count)."""

    key: str
    image: Image.Image = dataclasses.field(repr=False, compare=False)


# ---- layout primitives ---------------------------------------------------------------------


def column(*children: Node | None, **kw: Any) -> Node:
    """Children stacked top to bottom."""
    kw.setdefault("cls", "android.widget.LinearLayout")
    return Node(kind=kw.pop("kind", "box"), direction="column", children=_keep(children), **kw)


def row(*children: Node | None, **kw: Any) -> Node:
    """Children side by side; children without `w` share the width (flex 1 by default)."""
    kw.setdefault("cls", "android.widget.LinearLayout")
    return Node(kind=kw.pop("kind", "box"), direction="row", children=_keep(children), **kw)


def spacer(h: int = 0, w: int | None = None, flex: float = 0.0) -> Node:
    return Node(kind="space", cls="android.view.View", h=h, w=w, flex=flex)


def label(
    text: str,
    *,
    size: int = BODY_SIZE,
    color: str = "text",
    bold: bool = False,
    center: bool = False,
    max_lines: int = 1,
    h: int | None = None,
    flex: float = 0.0,
    res_id: str = "",
    desc: str = "",
    **kw: Any,
) -> Node:
    """A TextView. Height defaults to the text's line height times `max_lines`."""
    height = h if h is not None else (None if flex else int(size * 1.45) * max_lines)
    return Node(
        kind="text",
        cls="android.widget.TextView",
        text=text,
        desc=desc,
        res_id=res_id,
        h=height,
        flex=flex,
        style={"size": size, "color": color, "bold": bold, "center": center, "lines": max_lines},
        **kw,
    )


def divider() -> Node:
    return Node(kind="divider", cls="android.view.View", h=2)


def _keep(children: Sequence[Node | None]) -> list[Node]:
    return [c for c in children if c is not None]


# ---- controls ------------------------------------------------------------------------------


def icon_button(desc: str, glyph: str, on_click: Handler | None, *, res_id: str = "") -> Node:
    """A 144-px square image button; `glyph` names a drawn icon (see render.GLYPHS)."""
    return Node(
        kind="icon",
        cls="android.widget.ImageButton",
        desc=desc,
        res_id=res_id,
        w=144,
        h=144,
        clickable=on_click is not None,
        focusable=True,
        on_click=on_click,
        style={"glyph": glyph},
    )


def app_bar(
    title: str,
    *,
    on_up: Handler | None = None,
    actions: Sequence[Node] = (),
    subtitle: str = "",
) -> Node:
    """Top app bar: optional "Navigate up" arrow, the title, and trailing icon buttons."""
    up = icon_button("Navigate up", "back", on_up) if on_up else spacer(w=48)
    texts = column(
        label(title, size=TITLE_SIZE, res_id="android:id/title"),
        label(subtitle, size=SECONDARY_SIZE, color="secondary") if subtitle else None,
        flex=1,
        align="center",
    )
    return row(
        up,
        texts,
        *actions,
        kind="appbar",
        h=APP_BAR_H,
        pad=(12, 0, 12, 0),
        align="center",
        res_id="app_bar",
    )


def list_row(
    title: str,
    summary: str = "",
    *,
    on_click: Handler | None = None,
    on_long_click: Handler | None = None,
    icon: str | None = None,
    trailing: Node | None = None,
    selected: bool = False,
    key: str = "",
    res_id: str = "",
    h: int | None = None,
) -> Node:
    """A clickable list item: optional leading icon, title, optional summary, trailing widget."""
    lead = (
        Node(kind="icon", cls="android.widget.ImageView", w=120, style={"glyph": icon})
        if icon
        else None
    )
    texts = column(
        label(title, res_id="android:id/title"),
        label(summary, size=SECONDARY_SIZE, color="secondary", res_id="android:id/summary")
        if summary
        else None,
        flex=1,
        align="center",
    )
    return row(
        lead,
        texts,
        trailing,
        kind="row",
        h=h or (ROW_2LINE_H if summary else ROW_H),
        pad=(48 if not icon else 24, 0, 36, 0),
        gap=24,
        clickable=on_click is not None or on_long_click is not None,
        long_clickable=on_long_click is not None,
        focusable=True,
        on_click=on_click,
        on_long_click=on_long_click,
        selected=selected,
        key=key,
        res_id=res_id,
    )


def switch(checked: bool, desc: str = "", on_toggle: Callable[[bool], None] | None = None) -> Node:
    """A Switch; `on_toggle(new_state)` runs when it (or its row) is tapped."""
    handler = (lambda: on_toggle(not checked)) if on_toggle else None
    return Node(
        kind="switch",
        cls="android.widget.Switch",
        desc=desc,
        w=150,
        h=96,
        checkable=True,
        checked=checked,
        clickable=handler is not None,
        focusable=True,
        on_click=handler,
        res_id="android:id/switch_widget",
    )


def switch_row(
    title: str, checked: bool, on_toggle: Callable[[bool], None], summary: str = "", key: str = ""
) -> Node:
    """A settings row whose tap flips the trailing switch, as in Android Settings."""
    return list_row(
        title,
        summary,
        on_click=lambda: on_toggle(not checked),
        trailing=switch(checked, title, on_toggle),
        key=key or title,
    )


def checkbox(
    checked: bool, desc: str = "", on_toggle: Callable[[bool], None] | None = None
) -> Node:
    handler = (lambda: on_toggle(not checked)) if on_toggle else None
    return Node(
        kind="checkbox",
        cls="android.widget.CheckBox",
        desc=desc,
        w=110,
        h=110,
        checkable=True,
        checked=checked,
        clickable=handler is not None,
        on_click=handler,
    )


def checkbox_row(
    title: str, checked: bool, on_toggle: Callable[[bool], None], summary: str = ""
) -> Node:
    return list_row(
        title,
        summary,
        on_click=lambda: on_toggle(not checked),
        trailing=checkbox(checked, title, on_toggle),
        key=title,
    )


def radio_row(title: str, selected: bool, on_select: Handler) -> Node:
    dot = Node(
        kind="radio",
        cls="android.widget.RadioButton",
        text=title,
        w=110,
        h=110,
        checkable=True,
        checked=selected,
        clickable=True,
        on_click=on_select,
    )
    return list_row(title, on_click=on_select, trailing=dot, key=title)


def button(
    text: str,
    on_click: Handler | None,
    *,
    variant: str = "tonal",
    w: int | None = None,
    h: int = BUTTON_H,
    desc: str = "",
    res_id: str = "",
    enabled: bool = True,
) -> Node:
    """A Button. Variants: "filled", "tonal" (default, best for OCR), "outlined", "text"."""
    return Node(
        kind="button",
        cls="android.widget.Button",
        text=text,
        desc=desc,
        res_id=res_id,
        w=w,
        h=h,
        clickable=on_click is not None and enabled,
        enabled=enabled,
        focusable=True,
        on_click=on_click,
        style={"variant": variant},
    )


def fab(
    desc: str, on_click: Handler, *, glyph: str = "add", text: str = "", res_id: str = "fab"
) -> Node:
    """Floating action button; the phone pins it to the bottom right of the screen content."""
    return Node(
        kind="fab",
        cls="android.widget.ImageButton" if not text else "android.widget.Button",
        desc=desc,
        text=text,
        res_id=res_id,
        w=200 if not text else 420,
        h=200,
        clickable=True,
        focusable=True,
        on_click=on_click,
        style={"glyph": glyph},
    )


def text_field(
    value: str,
    on_change: Callable[[str], None],
    *,
    hint: str = "",
    key: str,
    on_enter: Handler | None = None,
    multiline: bool = False,
    h: int | None = None,
    flex: float = 0.0,
    desc: str = "",
    res_id: str = "",
    password: bool = False,
) -> Node:
    """An EditText. Tapping focuses it and shows the keyboard; typing calls `on_change(text)`.

    `key` must be unique on the screen: focus survives rebuilds through it. Enter on a
    single-line field calls `on_enter` if given, else moves focus to the next field (or hides
    the keyboard after the last one); on a multiline field Enter inserts a newline.
    """
    return Node(
        kind="field",
        cls="android.widget.EditText",
        text=value,
        hint=hint,
        desc=desc,
        key=key,
        res_id=res_id or key,
        h=h if h is not None else (None if flex else FIELD_H),
        flex=flex,
        clickable=True,
        long_clickable=True,
        editable=True,
        focusable=True,
        on_change=on_change,
        on_enter=on_enter,
        multiline=multiline,
        style={"password": password},
    )


def seekbar(
    value: float,
    lo: float,
    hi: float,
    on_change: Callable[[float], None],
    *,
    desc: str = "",
    key: str = "",
    text: str = "",
) -> Node:
    """A horizontal slider. A tap or a drag ending at x sets the value for x (clamped)."""
    return Node(
        kind="seekbar",
        cls="android.widget.SeekBar",
        desc=desc,
        text=text,
        key=key or desc,
        h=140,
        clickable=True,
        focusable=True,
        value=value,
        min_value=lo,
        max_value=hi,
        on_change=on_change,
    )


def scroll_list(
    key: str,
    *children: Node | None,
    gap: int = 0,
    pad: tuple[int, int, int, int] = (0, 0, 0, 0),
    flex: float = 1.0,
    h: int | None = None,
    res_id: str = "",
    clip_to_padding: bool = True,
) -> Node:
    """A vertically scrolling list (RecyclerView): fills the remaining height by default.

    Only children at least partly inside the viewport are in the tree; scroll offsets are kept
    per screen under `key`, so the list stays where the user left it. `clip_to_padding=False`
    (Android's `clipToPadding="false"`, what a list padded to clear a FAB uses) shows rows
    through the bottom padding: the padding only lets the last row scroll above the FAB.
    """
    return Node(
        kind="scroll",
        cls="androidx.recyclerview.widget.RecyclerView",
        key=key,
        res_id=res_id or key,
        children=_keep(children),
        flex=flex if h is None else 0.0,
        h=h,
        gap=gap,
        pad=pad,
        scrollable=True,
        focusable=True,
        style={} if clip_to_padding else {"show_padding": True},
    )


def number_picker(
    value: int,
    lo: int,
    hi: int,
    on_change: Callable[[int], None],
    *,
    desc: str,
    key: str,
    fmt: str = "{:02d}",
) -> Node:
    """A NumberPicker: "Increase"/"Decrease" buttons around an editable value (wraps around)."""
    span = hi - lo + 1

    def set_text(text: str) -> None:
        digits = "".join(ch for ch in text if ch.isdigit())
        if digits:
            on_change(min(hi, max(lo, int(digits[-len(str(hi)) :]))))

    return column(
        icon_button(f"Increase {desc}", "up", lambda: on_change(lo + (value - lo + 1) % span)),
        Node(
            kind="field",
            cls="android.widget.EditText",
            text=fmt.format(value),
            desc=desc,
            key=key,
            res_id=key,
            h=130,
            clickable=True,
            editable=True,
            focusable=True,
            on_change=set_text,
            style={"center": True, "borderless": True, "size": 56},
        ),
        icon_button(f"Decrease {desc}", "down", lambda: on_change(lo + (value - lo - 1) % span)),
        cls="android.widget.NumberPicker",
        w=200,
        h=418,
        align="center",
    )


def tabs(
    labels: Sequence[str],
    selected: int,
    on_select: Callable[[int], None],
    *,
    bottom: bool = False,
    h: int = 140,
    res_id: str = "",
) -> Node:
    """A TabLayout, or with `bottom` a BottomNavigationView; each tab is a clickable label (the
    selected one underlined)."""
    items = [
        Node(
            kind="tab",
            cls="android.widget.TextView",
            text=text,
            desc=text,
            clickable=True,
            selected=i == selected,
            on_click=(lambda i=i: on_select(i)),
            res_id=res_id,
        )
        for i, text in enumerate(labels)
    ]
    cls = (
        "com.google.android.material.bottomnavigation.BottomNavigationView"
        if bottom
        else "android.widget.HorizontalScrollView"
    )
    return row(*items, cls=cls, h=h)


def dialog(
    title: str = "",
    message: str = "",
    *,
    body: Sequence[Node] = (),
    buttons: Sequence[tuple[str, Handler]] = (),
) -> Node:
    """An AlertDialog: title, message, custom body nodes and a row of text buttons."""
    parts: list[Node | None] = [
        label(title, size=52, res_id="android:id/alertTitle") if title else None,
        label(
            message,
            size=BODY_SIZE,
            color="secondary",
            max_lines=_lines(message),
            res_id="android:id/message",
        )
        if message
        else None,
        *body,
    ]
    if buttons:
        parts.append(
            row(
                spacer(flex=1),
                *[
                    button(
                        text,
                        handler,
                        variant="text",
                        w=max(200, 40 * len(text) + 60),
                        res_id=f"android:id/button{i + 1}",
                    )
                    for i, (text, handler) in enumerate(reversed(buttons))
                ][::-1],
                h=150,
                gap=12,
            )
        )
    return column(
        *parts,
        kind="dialog",
        cls="android.widget.FrameLayout",
        pad=(64, 64, 48, 36),
        gap=24,
        res_id="dialog",
    )


def menu(items: Sequence[tuple[str, Handler]]) -> Node:
    """A popup menu (overflow): one clickable text row per item."""
    rows = [
        Node(
            kind="menuitem",
            cls="android.widget.TextView",
            text=text,
            h=150,
            clickable=True,
            focusable=True,
            on_click=handler,
            res_id="android:id/title",
            style={"size": BODY_SIZE},
        )
        for text, handler in items
    ]
    return column(
        *rows, kind="menu", cls="android.widget.ListView", w=620, pad=(0, 18, 0, 18), res_id="menu"
    )


def _lines(text: str, per_line: int = 38) -> int:
    """Rough line count for wrapped dialog text (42 px font on an ~850 px wide panel)."""
    return max(1, sum(max(1, -(-len(part) // per_line)) for part in text.split("\n")))


def image_view(
    bitmap: Bitmap | None,
    *,
    fit: str = "contain",
    smooth: bool = True,
    on_click: Handler | None = None,
    on_long_click: Handler | None = None,
    on_drag: DragHandler | None = None,
    selected: bool = False,
    desc: str = "",
    res_id: str = "",
    key: str = "",
    **kw: Any,
) -> Node:
    """An ImageView showing `bitmap` scaled into its box: `fit="contain"` shows it whole (a
    photo viewer), `"cover"` fills the box and crops (a thumbnail), `"stretch"` fills it (a
    canvas). `smooth=False` keeps hard pixel edges. A None bitmap draws a placeholder (a file
    that is not a picture). Like a real ImageView it has no text: what the picture says is
    read off the screen."""
    return Node(
        kind="image",
        cls="android.widget.ImageView",
        desc=desc,
        res_id=res_id,
        key=key,
        clickable=on_click is not None or on_long_click is not None,
        long_clickable=on_long_click is not None,
        on_click=on_click,
        on_long_click=on_long_click,
        on_drag=on_drag,
        selected=selected,
        style={"bitmap": bitmap, "fit": fit, "smooth": smooth},
        **kw,
    )


def empty_state(text: str) -> Node:
    return label(text, color="secondary", center=True, h=300)


def with_fab(content: Node, fab_node: Node) -> Node:
    """Screen content with a floating action button pinned over its bottom-right corner."""
    fab_node.style["pin"] = "bottom_right"
    return Node(
        kind="box",
        cls="android.widget.FrameLayout",
        direction="overlay",
        children=[content, fab_node],
        flex=1,
    )
