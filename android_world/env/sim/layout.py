"""A tiny flexbox: gives every node its pixel frame, and scroll lists their viewport.

Columns stack children top to bottom, rows side by side; fixed sizes (`h`, `w`) first, then
`flex` children share what is left. Scroll lists lay children at their natural height shifted by
the screen's stored offset and drop children outside the viewport, like a RecyclerView, so the
accessibility tree only shows what a user could see.
"""

from __future__ import annotations

from android_world.env.sim.widgets import Node, Rect


def intersect(a: Rect, b: Rect) -> Rect:
    left, top = max(a[0], b[0]), max(a[1], b[1])
    right, bottom = min(a[2], b[2]), min(a[3], b[3])
    if right <= left or bottom <= top:
        return (left, top, left, top)
    return (left, top, right, bottom)


def is_empty(r: Rect) -> bool:
    return r[2] <= r[0] or r[3] <= r[1]


def natural_h(node: Node) -> int:
    """Height a node wants when nothing forces it: its `h`, else what its children need."""
    if node.h is not None:
        return node.h
    if not node.children:
        return 0
    pad = node.pad[1] + node.pad[3]
    if node.direction == "row":
        return pad + max(natural_h(c) for c in node.children)
    if node.direction == "overlay":
        return pad + max(natural_h(c) for c in node.children)
    return pad + sum(natural_h(c) for c in node.children) + node.gap * (len(node.children) - 1)


def min_h(node: Node) -> int:
    """The least height a node can be squeezed to: fixed sizes stay, flexible space and lists
    (which scroll) shrink to nothing. A screen whose root needs more than the window has is cut
    off, so the phone lets it scroll as a whole (see `Phone._content_box`)."""
    if node.h is not None:
        return node.h
    if not node.children or node.kind == "scroll":
        return 0
    pad = node.pad[1] + node.pad[3]
    if node.direction in ("row", "overlay"):
        return pad + max(min_h(c) for c in node.children)
    return pad + sum(min_h(c) for c in node.children) + node.gap * (len(node.children) - 1)


def layout(node: Node, rect: Rect, clip: Rect, offsets: dict[str, int]) -> None:
    """Assign `frame`, `bounds` and `clip` to `node` and its subtree, in place."""
    node.frame = rect
    node.clip = clip
    node.bounds = intersect(rect, clip)
    if not node.children:
        return
    left, top, right, bottom = rect
    pl, pt, pr, pb = node.pad
    inner = (left + pl, top + pt, right - pr, bottom - pb)
    if node.kind == "scroll":
        _layout_scroll(node, inner, clip, offsets)
    elif node.direction == "row":
        _layout_row(node, inner, clip, offsets)
    elif node.direction == "overlay":
        for child in node.children:
            layout(child, _centered(child, inner), clip, offsets)
    else:
        _layout_column(node, inner, clip, offsets)


def _centered(child: Node, area: Rect) -> Rect:
    width = child.w if child.w is not None else area[2] - area[0]
    height = child.h if child.h is not None else area[3] - area[1]
    if child.style.get("pin") == "bottom_right":  # FABs
        x, y = area[2] - width - 48, area[3] - height - 48
        return (x, y, x + width, y + height)
    x = area[0] + (area[2] - area[0] - width) // 2
    y = area[1] + (area[3] - area[1] - height) // 2
    return (x, y, x + width, y + height)


def _layout_column(node: Node, inner: Rect, clip: Rect, offsets: dict[str, int]) -> None:
    children = node.children
    avail = inner[3] - inner[1] - node.gap * (len(children) - 1)
    fixed = sum(natural_h(c) for c in children if not c.flex)
    total_flex = sum(c.flex for c in children)
    spare = max(0, avail - fixed)
    y = inner[1]
    if not total_flex and node.align == "center":
        y += spare // 2
    elif not total_flex and node.align == "end":
        y += spare
    width = inner[2] - inner[0]
    for child in children:
        height = int(spare * child.flex / total_flex) if child.flex else natural_h(child)
        if child.w is not None and child.w < width:
            x = inner[0] + (width - child.w) // 2
            frame = (x, y, x + child.w, y + height)
        else:
            frame = (inner[0], y, inner[2], y + height)
        layout(child, frame, clip, offsets)
        y += height + node.gap


def _layout_row(node: Node, inner: Rect, clip: Rect, offsets: dict[str, int]) -> None:
    children = node.children
    avail = inner[2] - inner[0] - node.gap * (len(children) - 1)
    fixed = sum(c.w for c in children if c.w is not None)
    weights = [c.flex or (1.0 if c.w is None else 0.0) for c in children]
    total = sum(weights)
    spare = max(0, avail - fixed)
    x = inner[0]
    if not total and node.align == "center":
        x += spare // 2
    elif not total and node.align == "end":
        x += spare
    height = inner[3] - inner[1]
    for child, weight in zip(children, weights, strict=True):
        width = child.w if child.w is not None else int(spare * weight / total)
        if child.h is not None and child.h < height:
            y = inner[1] + (height - child.h) // 2
            frame = (x, y, x + width, y + child.h)
        else:
            frame = (x, inner[1], x + width, inner[3])
        layout(child, frame, clip, offsets)
        x += width + node.gap


def _layout_scroll(node: Node, inner: Rect, clip: Rect, offsets: dict[str, int]) -> None:
    shown = (
        (inner[0], inner[1], inner[2], node.frame[3]) if node.style.get("show_padding") else inner
    )
    viewport = intersect(shown, clip)
    heights = [natural_h(c) for c in node.children]
    node.content_h = sum(heights) + node.gap * max(0, len(heights) - 1)
    max_offset = max(0, node.content_h - (inner[3] - inner[1]))
    offset = min(max(0, offsets.get(node.ident, 0)), max_offset)
    offsets[node.ident] = offset
    y = inner[1] - offset
    visible = []
    keep_all = bool(node.style.get("keep_all"))  # a ScrollView keeps what it clips
    for child, height in zip(node.children, heights, strict=True):
        frame = (inner[0], y, inner[2], y + height)
        if keep_all or not is_empty(intersect(frame, viewport)):
            layout(child, frame, viewport, offsets)
            visible.append(child)
        y += height + node.gap
    node.children = visible


def max_scroll(node: Node) -> int:
    """How far a laid-out scroll list can move."""
    inner_h = node.frame[3] - node.frame[1] - node.pad[1] - node.pad[3]
    return max(0, node.content_h - inner_h)


def offset_showing(
    scroll: Node, ident: str, viewport: Rect, offset: int, offsets: dict[str, int], margin: int = 24
) -> int:
    """The offset at which node `ident` of an (unlaid) scroll list sits inside the list's
    `viewport`, moving as little as possible from `offset`: what a ScrollView does for a field
    that takes the focus (`requestChildFocus`) while the keyboard's resize would hide it.
    `offset` unchanged when the list does not hold it."""
    heights = [natural_h(c) for c in scroll.children]
    content_h = sum(heights) + scroll.gap * max(0, len(heights) - 1)
    pad_top = scroll.pad[1]
    whole = (viewport[0] - scroll.pad[0], 0, viewport[2] + scroll.pad[2], content_h + pad_top)
    layout(scroll, whole, whole, {**offsets, scroll.ident: 0})  # every child, unscrolled
    node = next((n for n in scroll.walk() if n.ident == ident), None)
    if node is None:
        return offset
    top, bottom = node.frame[1] - pad_top, node.frame[3] - pad_top
    view_h = viewport[3] - viewport[1]
    if bottom + margin > offset + view_h:
        offset = bottom + margin - view_h
    return max(0, min(offset, top - margin))
