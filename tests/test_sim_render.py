"""Rendered frames: shape, caching, and that OCR reads the Settings screen."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from android_world.env.json_action import JSONAction
from android_world.env.sim import SimEnv


@pytest.fixture
def env():
    e = SimEnv(seed=0, render=True)
    yield e
    e.close()


def test_frame_shape_dtype_and_read_only(env):
    pixels = env.get_state().pixels
    assert pixels.shape == (2400, 1080, 3) and pixels.dtype == np.uint8
    assert not pixels.flags.writeable  # frames are cached and shared: copy before drawing on them
    assert pixels.std() > 10  # not a blank frame


def test_blank_frame_when_not_rendering():
    e = SimEnv(render=False)
    try:
        pixels = e.get_state().pixels
        assert pixels.shape == (2400, 1080, 3) and int(pixels.min()) == 255
        assert e.screenshot().std() > 10
    finally:
        e.close()


def test_frames_follow_state_and_cache_repeats(env):
    env.execute_action(JSONAction(action_type="open_app", app_name="Settings"))
    first = env.get_state().pixels
    assert env.get_state().pixels is first  # same screen, cached frame
    env.controller.put_setting("global", "wifi_on", "0")  # status bar icon disappears
    second = env.get_state().pixels
    assert not np.array_equal(first, second)
    assert not np.array_equal(first[:110], second[:110])  # the status bar changed
    env.controller.put_setting("global", "wifi_on", "1")
    assert np.array_equal(env.get_state().pixels, first)
    # A full redraw with caches bypassed matches the composed frame.
    assert np.array_equal(env.renderer.draw(env.phone.frame().windows), first)


def _open_dialog(env):
    from android_world.env.sim import widgets as w

    env.execute_action(JSONAction(action_type="open_app", app_name="Settings"))
    screen = env.phone.current_screen()
    buttons = [("Cancel", screen.dismiss), ("Delete", screen.dismiss)]
    screen.show_dialog(lambda: w.dialog("Delete note?", "This cannot be undone.", buttons=buttons))
    env.phone.changed()


def test_dialog_fades_the_app_but_not_the_system_bars(env):
    env.execute_action(JSONAction(action_type="open_app", app_name="Settings"))
    plain = env.get_state().pixels
    _open_dialog(env)
    faded = env.get_state().pixels
    behind = (slice(600, 900), slice(0, 1080))  # list rows above the dialog
    assert faded[behind].std() < plain[behind].std() / 4
    assert np.array_equal(faded[:110], plain[:110])  # the status bar sits above the scrim


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract binary not installed")
def test_tesseract_reads_a_dialog_and_not_what_is_behind(env):
    pytesseract = pytest.importorskip("pytesseract")
    from PIL import Image

    os.environ["OMP_THREAD_LIMIT"] = "1"
    _open_dialog(env)
    words = pytesseract.image_to_string(Image.fromarray(env.get_state().pixels)).split()
    for word in ("15:34", "Delete", "note?", "This", "cannot", "undone.", "Cancel"):
        assert word in words, f"OCR missed {word!r}: {words}"
    assert "Network" not in words


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract binary not installed")
def test_tesseract_reads_settings_labels(env):
    pytesseract = pytest.importorskip("pytesseract")
    from PIL import Image

    os.environ["OMP_THREAD_LIMIT"] = "1"
    env.execute_action(JSONAction(action_type="open_app", app_name="Settings"))
    image = Image.fromarray(env.get_state().pixels).resize((540, 1200))
    text = pytesseract.image_to_string(image)
    for label in ("Settings", "Network & internet", "Connected devices", "Battery", "Display"):
        assert label in text, f"OCR missed {label!r}: {text!r}"
