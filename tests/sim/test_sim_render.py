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


# ---- the incremental renderer matches the reference, and never rewrites a frame ----------------

REPLAYED = (
    "ContactsAddContact",  # permission dialog, form, keyboard
    "ExpenseDeleteMultiple",  # selection, dimmed confirm dialog, toast
    "MarkorCreateNote",  # dialog with fields over the keyboard, editor
    "SimpleCalendarAddOneEvent",  # date and time pickers
)


def _replay(name: str, env: SimEnv):
    import random

    from android_world.task_evals.registry import TaskRegistry

    cls = TaskRegistry().get_registry()[name]
    random.seed(3)
    task = cls({**cls.generate_random_params(), "seed": 3})
    env.reset(go_home=True)
    task.initialize_task(env)
    for action in task.oracle_actions(env):
        env.execute_action(action)
        yield env.get_state().pixels
        if action.action_type == "status":
            break
    task.tear_down(env)


def test_incremental_frames_equal_the_reference_and_stay_unchanged(env):
    kept = []
    for name in REPLAYED:
        for pixels in _replay(name, env):
            reference = env.renderer.draw(env.phone.frame().windows)
            assert np.array_equal(pixels, reference), f"{name}: strips differ from a full redraw"
            assert not pixels.flags.writeable
            kept.append((pixels, pixels.copy()))
    assert env.renderer.strips_reused > env.renderer.strips_drawn / 2  # strips were reused
    assert all(np.array_equal(p, copy) for p, copy in kept)  # later frames never wrote into them


def test_a_small_change_redraws_a_few_strips(env):
    env.execute_action(JSONAction(action_type="open_app", app_name="Settings"))
    env.get_state()
    drawn = env.renderer.strips_drawn
    env.controller.put_setting("global", "bluetooth_on", "1")  # one status bar icon appears
    env.get_state()
    assert 1 <= env.renderer.strips_drawn - drawn <= 2


def test_windows_that_do_not_tile_the_screen_are_drawn_on_a_page():
    from android_world.env.sim import widgets as w
    from android_world.env.sim.layout import layout
    from android_world.env.sim.phone import Window
    from android_world.env.sim.render import Renderer

    root = w.column(w.label("Floating"), w.button("OK", lambda: None), kind="dialog")
    layout(root, (100, 300, 900, 700), (0, 0, 1080, 2400), {})
    windows = [Window(root, "test")]
    renderer = Renderer()
    pixels = renderer.render(windows)
    assert np.array_equal(pixels, renderer.draw(windows))
    assert pixels[:300].min() == 255  # a white page around the window
    assert pixels[300:700, 100:900].min() < 100  # with the window's text on it


# ---- text and icons ----------------------------------------------------------------------------


def test_bold_text_has_more_ink_and_zero_is_not_the_letter_o():
    from android_world.env.sim import render

    regular, bold = render._mask_array("Total", 44), render._mask_array("Total", 44, bold=True)
    assert int(bold.sum()) > 1.2 * int(regular.sum())
    assert not np.array_equal(render._mask_array("0", 90), render._mask_array("O", 90))


def test_every_icon_an_app_names_has_a_drawing():
    """Icons fall back to a letter in a circle; every name the apps use must have a drawing."""
    import re
    from pathlib import Path

    from android_world.env.sim import render

    sources = Path(render.__file__).parent
    used = set()
    for path in [*sources.glob("*.py"), *sources.glob("apps/*.py")]:
        text = path.read_text()
        used |= set(re.findall(r'icon_button\(\s*f?"[^"]*",\s*"(\w+)"', text))
        used |= set(re.findall(r'(?:glyph|icon)="(\w+)"', text))
        used |= set(re.findall(r'"glyph":\s*"(\w+)"', text))
    assert len(used) > 30
    assert used <= set(render.GLYPHS), f"no drawing for {sorted(used - set(render.GLYPHS))}"


def test_icons_are_distinct_drawings():
    from PIL import Image

    from android_world.env.sim import render

    seen = {}
    for name in render.GLYPHS:
        image = Image.new("RGB", (144, 144), render.WHITE)
        render._Canvas(image).glyph(name, (0, 0, 144, 144), (0, 0, 0), (0, 0, 144, 144))
        pixels = np.asarray(image)
        assert pixels.min() == 0, f"{name} draws nothing"
        seen.setdefault(pixels.tobytes(), []).append(name)
    same = [names for names in seen.values() if len(names) > 1]
    assert all(
        set(names) <= {"back", "left"} or set(names) <= {"clock", "alarm", "timer", "stopwatch"}
        for names in same
    ), same
