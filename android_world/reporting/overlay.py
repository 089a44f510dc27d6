"""The action drawn on a step's screenshot, and the OCR boxes shown over it (screenshot pixels)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from android_world.reporting.formatting import as_number


def _box(value: Any) -> list[float] | None:
    """[x0, y0, x1, y1] from a list or a BoundingBox-like dict (x_min, x_max, y_min, y_max)."""
    if isinstance(value, Mapping):
        keys = ("x_min", "y_min", "x_max", "y_max")
        if all(as_number(value.get(k)) is not None for k in keys):
            return [float(value[k]) for k in keys]
        keys = ("left", "top", "right", "bottom")
        if all(as_number(value.get(k)) is not None for k in keys):
            return [float(value[k]) for k in keys]
        return None
    if (
        isinstance(value, (list, tuple))
        and len(value) == 4
        and all(as_number(v) is not None for v in value)
    ):
        x0, y0, x1, y1 = (float(v) for v in value)
        return [min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)]
    return None


_BOX_KEYS = ("target_box", "target_bbox", "element_box", "element_bbox", "bbox_pixels", "bbox")


def action_overlay(
    action: Mapping[str, Any] | None, data: Mapping[str, Any], size: tuple[int, int]
) -> dict[str, Any] | None:
    """What to draw for an action in screenshot pixels: a tap point, an element box, an arrow
    (scroll/swipe, finger direction) and a label. Scroll is content direction, so the finger
    moves the other way (DESIGN §2)."""
    if not isinstance(action, Mapping):
        return None
    kind = str(action.get("action_type") or "")
    width, height = size
    box = _action_box(action, data)
    x, y = _action_point(action, data, box)
    index = action.get("index")
    label_bits = [kind or "action"]
    if index is not None:
        label_bits.append(f"#{index}")
    overlay: dict[str, Any] = {"kind": kind, "box": box, "point": None, "arrow": None}
    if (
        kind in ("click", "long_press", "double_tap", "input_text")
        and x is not None
        and y is not None
    ):
        overlay["point"] = [x, y]
    if kind in ("scroll", "swipe"):
        direction = str(action.get("direction") or "")
        overlay["arrow"] = _finger_arrow(kind, direction, x, y, box, size)
        label_bits.append(direction)
    label_bits.append(_label_detail(kind, action))
    overlay["label"] = " ".join(b for b in label_bits if b)
    anchor_y = overlay["point"][1] if overlay["point"] else (box[3] if box else height * 0.8)
    overlay["label_y"] = min(max(anchor_y + 90, 90), height - 40)
    overlay["label_x"] = width / 2
    overlay["r"] = max(width, height) / 60
    overlay["stroke"] = max(width, height) / 300
    overlay["font"] = max(width, height) / 50
    return overlay


def _action_box(action: Mapping[str, Any], data: Mapping[str, Any]) -> list[float] | None:
    """The element's box, from the action first, then from the step data."""
    box = None
    for source in (action, data):
        for key in _BOX_KEYS:
            box = box or _box(source.get(key))
    return box


def _action_point(
    action: Mapping[str, Any], data: Mapping[str, Any], box: list[float] | None
) -> tuple[float | None, float | None]:
    """Where the finger went: the action's own x/y, else the executor's snapped point, else the
    centre of the element's box."""
    x, y = as_number(action.get("x")), as_number(action.get("y"))
    snapped = data.get("snapped")
    if (x is None or y is None) and isinstance(snapped, Mapping):
        x, y = as_number(snapped.get("x")), as_number(snapped.get("y"))
    if (x is None or y is None) and box is not None:
        x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return x, y


def _finger_arrow(
    kind: str,
    direction: str,
    x: float | None,
    y: float | None,
    box: list[float] | None,
    size: tuple[int, int],
) -> list[float] | None:
    """The finger's path for a scroll or swipe, kept inside the element's box when it has one;
    None for a direction the report does not know."""
    width, height = size
    cx, cy = (x, y) if x is not None and y is not None else (width / 2, height / 2)
    span_x, span_y = width * 0.25, height * 0.15
    if box is not None:
        span_x = min(span_x, max((box[2] - box[0]) / 2.5, 60))
        span_y = min(span_y, max((box[3] - box[1]) / 2.5, 60))
    moves = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
    dx, dy = moves.get(direction, (0, 0))
    if kind == "scroll":
        dx, dy = -dx, -dy
    if not (dx or dy):
        return None
    return [cx - dx * span_x, cy - dy * span_y, cx + dx * span_x, cy + dy * span_y]


def _label_detail(kind: str, action: Mapping[str, Any]) -> str:
    """The argument worth reading in the label (typed text, app, status, answer), or ''."""
    if kind in ("input_text", "answer"):
        return repr(str(action.get("text") or ""))[:60]
    if kind == "open_app":
        return str(action.get("app_name") or "")
    if kind == "status":
        return str(action.get("goal_status") or "")
    return ""


def ocr_boxes(data: Mapping[str, Any], step_events: Sequence[Mapping[str, Any]]) -> list[dict]:
    """OCR lines with boxes, from step data (`ocr_lines`) or an event that carries them."""
    sources: list[Any] = [data.get("ocr_lines"), data.get("ocr")]
    sources += [
        e.get("ocr_lines") or e.get("lines") for e in step_events if "ocr" in str(e.get("type"))
    ]
    sources += [e.get("ocr_lines") for e in step_events]
    for source in sources:
        if not isinstance(source, list):
            continue
        lines = []
        for line in source:
            if not isinstance(line, Mapping):
                continue
            box = _box(line.get("box") or line.get("bbox"))
            if box is not None:
                lines.append({"text": str(line.get("text") or ""), "box": box})
        if lines:
            return lines
    return []
