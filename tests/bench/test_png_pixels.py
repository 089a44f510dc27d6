"""benchmarks/png_pixels.py: same pixels under other bytes pass, one changed pixel or a missing
file fails."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import png_pixels
from PIL import Image

from android_world.harness import png_writer


def _pillow_png(frame: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(frame).save(buffer, format="PNG", compress_level=3)
    return buffer.getvalue()


def _runs(tmp_path: Path, frames: list[np.ndarray]) -> tuple[Path, Path]:
    a, b = (
        tmp_path / "a" / "run_1" / "episodes" / "T_0",
        tmp_path / "b" / "run_2" / "episodes" / "T_0",
    )
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    for i, frame in enumerate(frames):
        (a / f"step_{i:03d}.png").write_bytes(_pillow_png(frame))
        (b / f"step_{i:03d}.png").write_bytes(png_writer.encode_png(frame))
    return tmp_path / "a", tmp_path / "b"


def test_other_bytes_same_pixels_pass_and_a_changed_pixel_fails(tmp_path, capsys):
    rng = np.random.default_rng(1)
    frames = [rng.integers(0, 256, (12, 9, 3), dtype=np.uint8) for _ in range(3)]
    a, b = _runs(tmp_path, frames)
    assert png_pixels.main([str(a), str(b)]) == 0
    found = png_pixels.compare(a, b)
    assert found["same_pixels"] == 3 and found["same_bytes"] < 3
    changed = frames[1].copy()
    changed[5, 4, 2] ^= 1
    (png_pixels.run_dir(b) / "episodes" / "T_0" / "step_001.png").write_bytes(
        png_writer.encode_png(changed)
    )
    assert png_pixels.main([str(a), str(b)]) == 1
    assert "step_001.png" in capsys.readouterr().out


def test_a_missing_file_fails(tmp_path):
    frames = [np.zeros((4, 4, 3), dtype=np.uint8)]
    a, b = _runs(tmp_path, frames)
    next(png_pixels.run_dir(b).rglob("*.png")).unlink()
    assert png_pixels.main([str(a), str(b)]) == 1
