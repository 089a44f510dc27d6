"""One episode made shareable: an animated GIF of its steps, or its page as one self-contained file.

The report's episode page needs its folder (screenshots are separate files); people share an
episode in a chat or an issue, so `--export` inlines every screenshot into a single HTML file and
`--gif` draws each step's action on its screenshot, one frame per step. This module only draws and
packs what it is given (the episode folder, its steps as the report built them, a rendered page);
`android_world.reporting.report` reads the run directory and calls it, so the arrow runs one way.
"""

from __future__ import annotations

import base64
import io
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from android_world.agents.custom.celil_secrets import redact

GIF_WIDTH = 360
FRAME_MS = 900
_ACCENT = (255, 45, 85)
_GREY = (140, 140, 140)


def write_bytes_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _draw_overlay(draw: Any, overlay: Mapping[str, Any] | None, scale: float) -> None:
    """The report's overlay geometry (screenshot pixels), scaled to the frame."""
    if not overlay:
        return
    color = _GREY if overlay.get("not_executed") else _ACCENT
    width = max(2, round(4 * scale * 3))
    if overlay.get("box"):
        x0, y0, x1, y1 = (v * scale for v in overlay["box"])
        draw.rectangle([x0, y0, x1, y1], outline=color, width=width)
    if overlay.get("point"):
        x, y = (v * scale for v in overlay["point"])
        r = max(8.0, overlay.get("r", 18) * scale)
        draw.ellipse([x - r, y - r, x + r, y + r], outline=color, width=width)
        draw.ellipse([x - r / 4, y - r / 4, x + r / 4, y + r / 4], fill=color)
    if overlay.get("arrow"):
        x0, y0, x1, y1 = (v * scale for v in overlay["arrow"])
        draw.line([x0, y0, x1, y1], fill=color, width=width + 1)
        draw.ellipse([x1 - width * 2, y1 - width * 2, x1 + width * 2, y1 + width * 2], fill=color)


def _caption(step: Mapping[str, Any]) -> str:
    text = f"step {step.get('number')}: {step.get('description') or ''}"
    if step.get("rejected"):
        text += " (rejected)"
    return text if len(text) <= 58 else text[:57] + "…"


def gif_frames(episode_dir: Path, steps: Sequence[Mapping[str, Any]], width: int) -> list[Any]:
    from PIL import Image, ImageDraw

    frames = []
    for step in steps:
        if not step.get("screenshot"):
            continue
        with Image.open(episode_dir / str(step["screenshot"])) as shot:
            shot = shot.convert("RGB")
            scale = width / shot.width
            frame = shot.resize((width, max(1, round(shot.height * scale))))
        draw = ImageDraw.Draw(frame)
        _draw_overlay(draw, step.get("overlay"), scale)
        bar = 22
        draw.rectangle([0, frame.height - bar, frame.width, frame.height], fill=(0, 0, 0))
        draw.text((6, frame.height - bar + 5), _caption(step), fill=(255, 255, 255))
        frames.append(frame)
    return frames


def gif_bytes(
    episode_dir: Path, steps: Sequence[Mapping[str, Any]], width: int = GIF_WIDTH
) -> bytes | None:
    """The animated GIF of `steps` (the report's step dicts); None when no step has a screenshot."""
    frames = gif_frames(episode_dir, steps, width)
    if not frames:
        return None
    buffer = io.BytesIO()
    frames[0].save(
        buffer,
        format="GIF",
        save_all=True,
        append_images=frames[1:],
        duration=[FRAME_MS] * (len(frames) - 1) + [FRAME_MS * 3],
        loop=0,
        optimize=True,
    )
    return buffer.getvalue()


_LOCAL_IMAGE = re.compile(r'(src|href)="(step_\d+\.png)"')
_CRUMBS = re.compile(r'<nav class="crumbs">.*?</nav>', re.S)


def inline_images(page: str, episode_dir: Path) -> str:
    """Screenshots referenced by the page become data: URIs; a missing file stays a link."""

    def replace(match: re.Match[str]) -> str:
        path = episode_dir / match.group(2)
        try:
            data = base64.b64encode(path.read_bytes()).decode("ascii")
        except OSError:
            return match.group(0)
        return f'{match.group(1)}="data:image/png;base64,{data}"'

    return _LOCAL_IMAGE.sub(replace, page)


def shareable_page(page: str, episode_dir: Path) -> str:
    """The episode page as one file: no links into the run directory, secrets redacted, and the
    screenshots inlined (redacted first, before the screenshots make it megabytes)."""
    page = _CRUMBS.sub("", page)  # its links point into the run directory
    page = redact(page)
    return inline_images(page, episode_dir)
