"""encode_png (stop 39): new bytes, the frame's exact pixels, for every kind of frame it takes."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from android_world.env import json_action
from android_world.env.sim import SimEnv
from android_world.harness import png_writer


def _decoded(data: bytes) -> np.ndarray:
    image = Image.open(io.BytesIO(data))
    image.load()
    return np.asarray(image)


def _sim_frames() -> list[np.ndarray]:
    """Screens of the simulated phone: home, two apps, a scrolled list, a keyboard up."""
    env = SimEnv()
    frames = [env.get_state().pixels]
    for app in ("Contacts", "Settings"):
        env.execute_action(json_action.JSONAction(action_type="open_app", app_name=app))
        frames.append(env.get_state().pixels)
    env.execute_action(json_action.JSONAction(action_type="scroll", direction="down"))
    frames.append(env.get_state().pixels)
    env.execute_action(json_action.JSONAction(action_type="open_app", app_name="Markor"))
    frames.append(env.get_state().pixels)
    env.close()
    return frames


def test_sim_frames_decode_to_their_exact_pixels():
    frames = _sim_frames()
    assert len({f.tobytes() for f in frames}) >= 4  # different screens, not one frame five times
    for frame in frames:
        decoded = _decoded(png_writer.encode_png(frame))
        assert decoded.dtype == np.uint8 and decoded.shape == frame.shape
        assert np.array_equal(decoded, frame)


@pytest.mark.parametrize(
    "shape,mode",
    [
        ((1, 1, 3), "RGB"),
        ((5, 7, 3), "RGB"),
        ((64, 3, 3), "RGB"),
        ((7, 5), "L"),
        ((1, 9), "L"),
        ((3, 4, 4), "RGBA"),
    ],
)
def test_random_frames_of_every_colour_type_round_trip(shape, mode):
    frame = np.random.default_rng(sum(shape)).integers(0, 256, shape, dtype=np.uint8)
    image = Image.open(io.BytesIO(png_writer.encode_png(frame)))
    assert image.mode == mode
    assert np.array_equal(np.asarray(image), frame)


def test_differences_that_wrap_below_zero_and_above_255_decode_exactly():
    frame = np.zeros((4, 3, 3), dtype=np.uint8)
    frame[1::2] = 255  # rows alternate 0 and 255: "Up" differences of +255 and -255 (mod 256)
    assert np.array_equal(_decoded(png_writer.encode_png(frame)), frame)


def test_a_non_contiguous_or_wider_typed_frame_is_encoded_as_its_uint8_pixels():
    base = np.random.default_rng(3).integers(0, 256, (20, 30, 3), dtype=np.uint8)
    view = base[::2, ::3]  # strided: not contiguous
    assert np.array_equal(_decoded(png_writer.encode_png(view)), view)
    wide = base.astype(np.int64)
    assert np.array_equal(_decoded(png_writer.encode_png(wide)), base)


def test_deflated_data_split_over_several_idat_chunks_decodes(monkeypatch):
    monkeypatch.setattr(png_writer, "_CHUNK_LIMIT", 7)
    frame = np.random.default_rng(5).integers(0, 256, (9, 11, 3), dtype=np.uint8)
    data = png_writer.encode_png(frame)
    assert data.count(b"IDAT") > 3
    assert np.array_equal(_decoded(data), frame)


def test_other_shapes_still_go_to_pillow_as_before():
    grey_alpha = np.random.default_rng(7).integers(0, 256, (4, 4, 2), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(grey_alpha).save(buffer, format="PNG", compress_level=3)
    assert png_writer.encode_png(grey_alpha) == buffer.getvalue()
    assert np.array_equal(_decoded(buffer.getvalue()), grey_alpha)
