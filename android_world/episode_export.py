"""One episode out of its run directory: an animated GIF of its steps, or one self-contained page.

The report's episode page needs its folder (screenshots are separate files); people share an
episode in a chat or an issue, so `--export` inlines every screenshot into a single HTML file and
`--gif` draws each step's action on its screenshot, one frame per step. Both read only the run
directory's files, like the report.
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

from android_world import report
from android_world.agents.custom.celil_secrets import redact

GIF_WIDTH = 360
FRAME_MS = 900
_ACCENT = (255, 45, 85)
_GREY = (140, 140, 140)


def _row(run_dir: Path, name: str) -> Mapping[str, Any]:
    rows = report.result_rows(run_dir)
    for row in rows:
        if str(row.get("name")) == name:
            return row
    known = ", ".join(str(r.get("name")) for r in rows[:8]) or "none"
    more = ", …" if len(rows) > 8 else ""
    raise report.ReportError(f"no episode {name!r} in {run_dir} (episodes: {known}{more})")


def _write_bytes_atomic(path: Path, data: bytes) -> None:
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


def write_gif(
    run_dir: Path, name: str, out: Path | None = None, width: int = GIF_WIDTH
) -> Path | None:
    """episodes/<name>/episode.gif (or `out`); None when the episode saved no screenshots."""
    run_dir = report.check_run_dir(run_dir)
    episode = report.load_episode(run_dir, _row(run_dir, name))
    episode_dir = run_dir / report.EPISODES / name
    frames = gif_frames(episode_dir, episode.steps, width)
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
    target = out or episode_dir / "episode.gif"
    _write_bytes_atomic(target, buffer.getvalue())
    return target


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


def export_episode(run_dir: Path, name: str, out: Path | None = None) -> Path:
    """One HTML file holding the episode page and its screenshots (default ./<name>.html)."""
    run_dir = report.check_run_dir(run_dir)
    manifest = report.read_json(run_dir / "manifest.json") or {}
    header = report.run_header(run_dir, manifest, report.result_rows(run_dir))
    episode = report.load_episode(run_dir, _row(run_dir, name))
    page = report.render_episode(header, episode, None, None)
    page = _CRUMBS.sub("", page)  # its links point into the run directory
    page = redact(page)  # before the screenshots make it megabytes
    page = inline_images(page, run_dir / report.EPISODES / name)
    target = out or Path(f"{name}.html")
    _write_bytes_atomic(target, page.encode("utf-8"))
    return target
