"""Simple Gallery Pro and Chrome in the sim, driven through `SimEnv.execute_action` only.

The gallery lists the device's picture files as pixels (no text in the tree), pages through them
and copies or moves them; Files offers "Open with"; Chrome opens local pages after its first run
and the task pages behave as upstream's do for a seed (values recorded from upstream's pages run
in Chromium).
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from android_world.env import device
from android_world.env.device_facts import chrome as chrome_facts
from android_world.env.device_facts import gallery as gallery_facts
from android_world.env.json_action import JSONAction
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.single.browser import maze_path
from android_world.task_evals.single.files import clear_storage_files

DCIM = gallery_facts.GALLERY_DATA


@pytest.fixture()
def env():
    sim = SimEnv(render=False)
    yield sim
    sim.close()


def act(env: SimEnv, **kw) -> None:
    env.execute_action(JSONAction(**kw))


def tap(env: SimEnv, text: str | None = None, *, desc: str | None = None, res: str | None = None):
    match = ui.matching(text=text, desc=desc, res=res)
    env.execute_action(ui.click(env, match, ui.describe(text=text, desc=desc, res=res)))


def texts(env: SimEnv) -> list[str]:
    return [e.text for e in env.get_state().ui_elements if e.text]


def title(env: SimEnv) -> str | None:
    items = env.get_state().ui_elements
    return next((e.text for e in items if e.resource_name == "android:id/title"), None)


def picture(env: SimEnv, path: str, color=(200, 30, 30), size=(120, 80)) -> bytes:
    data = gallery_facts.encode_image(Image.new("RGB", size, color), path)
    env.controller.write_file(path, data)
    return data


def open_folder(env: SimEnv, name: str = "DCIM") -> None:
    act(env, action_type="open_app", app_name="Simple Gallery Pro")
    tap(env, name)


# ---- gallery ------------------------------------------------------------------------------------


def test_gallery_shows_picture_folders_and_thumbnails_without_text(env):
    picture(env, f"{DCIM}/a.jpg")
    picture(env, f"{DCIM}/b.png")
    picture(env, f"{device.PICTURES_DATA}/c.jpg")
    env.controller.write_text(f"{DCIM}/notes.txt", "not a picture")
    env.controller.write_text(f"{device.DOWNLOAD_DATA}/broken.jpg", "not JPEG bytes")
    act(env, action_type="open_app", app_name="gallery")
    assert env.controller.foreground_package() == gallery_facts.PACKAGE
    shown = texts(env)
    for folder, count in (("DCIM", "2"), ("Pictures", "1"), ("Download", "1")):
        assert folder in shown and count in shown
    tap(env, "DCIM")
    items = env.get_state().ui_elements
    thumbs = [e for e in items if e.resource_name == "medium_thumbnail"]
    assert len(thumbs) == 2
    assert all(not e.text and not e.content_description for e in thumbs)
    assert env.screenshot().shape == (device.SCREEN_HEIGHT, device.SCREEN_WIDTH, 3)
    act(env, action_type="navigate_back")
    tap(env, "Download")  # an undecodable .jpg gets a placeholder, not a crash
    tap(env, res="medium_thumbnail")
    assert title(env) == "broken.jpg"
    assert env.screenshot().any()


def test_viewer_title_is_the_name_and_a_sideways_swipe_turns_pages(env):
    for name in ("old_expenses_0.jpg", "old_expenses_1.jpg", "expenses.jpg"):
        picture(env, f"{DCIM}/{name}")
    open_folder(env)
    tap(env, res="medium_thumbnail")
    # Written in the same (frozen) second: newest first means Z-A by name.
    seen = [title(env)]
    for _ in range(3):
        photo = ui.require(env, ui.res_is("photo_view"), "photo")
        act(env, action_type="scroll", direction="right", index=photo)
        seen.append(title(env))
    assert seen == ["old_expenses_1.jpg", "old_expenses_0.jpg", "expenses.jpg", "expenses.jpg"]
    act(env, action_type="swipe", direction="left")  # finger rightwards (upstream's quirk)
    assert title(env) == "old_expenses_0.jpg"
    photo = ui.require(env, ui.res_is("photo_view"), "photo")
    act(env, action_type="scroll", direction="down", index=photo)  # vertical: no page turn
    assert title(env) == "old_expenses_0.jpg"


def test_viewer_draws_the_pictures_pixels(env):
    picture(env, f"{DCIM}/red.png", color=(255, 0, 0), size=(300, 200))
    open_folder(env)
    tap(env, res="medium_thumbnail")
    box = next(
        e.bbox_pixels for e in env.get_state().ui_elements if e.resource_name == "photo_view"
    )
    x, y = (int(v) for v in box.center)
    assert tuple(env.screenshot()[y, x]) == (255, 0, 0)


def copy_to(env: SimEnv, folder: str, move: bool = False) -> None:
    """More options, Copy to (Move to), Other folder, the folder, OK."""
    tap(env, desc="More options")
    tap(env, "Move to" if move else "Copy to")
    tap(env, "Other folder")
    tap(env, folder)
    tap(env, "OK")


def test_copy_to_another_folder_keeps_the_original_and_the_bytes(env):
    data = picture(env, f"{DCIM}/receipt_x.jpg")
    open_folder(env)
    tap(env, res="medium_thumbnail")
    copy_to(env, "Download")
    assert env.controller.read_file(f"{device.DOWNLOAD_DATA}/receipt_x.jpg") == data
    assert env.controller.exists(f"{DCIM}/receipt_x.jpg")
    assert "Files copied successfully" in texts(env)


def test_a_name_already_there_asks_skip_or_overwrite_and_move_removes_the_source(env):
    new = picture(env, f"{DCIM}/r.jpg", color=(0, 0, 255))
    old = picture(env, f"{device.DOWNLOAD_DATA}/r.jpg", color=(0, 255, 0))
    open_folder(env)
    tap(env, res="medium_thumbnail")
    copy_to(env, "Download")
    assert "File conflict" in texts(env)
    tap(env, "Skip")
    assert env.controller.read_file(f"{device.DOWNLOAD_DATA}/r.jpg") == old
    copy_to(env, "Download", move=True)
    tap(env, "Overwrite")
    assert env.controller.read_file(f"{device.DOWNLOAD_DATA}/r.jpg") == new
    assert not env.controller.exists(f"{DCIM}/r.jpg")


def test_selection_copies_to_a_folder_with_pictures(env):
    for name in ("a.jpg", "b.jpg", "c.jpg"):
        picture(env, f"{DCIM}/{name}")
    picture(env, f"{device.PICTURES_DATA}/p.jpg")
    open_folder(env)

    def thumbs() -> list[int]:
        items = env.get_state().ui_elements
        return [i for i, e in enumerate(items) if e.resource_name == "medium_thumbnail"]

    act(env, action_type="long_press", index=thumbs()[0])
    act(env, action_type="click", index=thumbs()[1])  # the bar changed: indices too
    assert title(env) == "2 selected"
    tap(env, desc="More options")
    tap(env, "Copy to")
    tap(env, "Pictures")
    assert sorted(env.controller.list_dir(device.PICTURES_DATA)) == ["b.jpg", "c.jpg", "p.jpg"]


def test_files_opens_a_picture_with_the_gallery(env):
    picture(env, f"{device.DOWNLOAD_DATA}/shot.jpg")
    act(env, action_type="open_app", app_name="Files")
    tap(env, "Download")
    tap(env, "shot.jpg")
    assert "Open with Simple Gallery Pro" in texts(env)
    tap(env, "Just once")
    assert env.controller.foreground_package() == gallery_facts.PACKAGE
    assert title(env) == "shot.jpg"


# ---- Chrome -------------------------------------------------------------------------------------


def write_page(env: SimEnv, kind: str, seed: int) -> None:
    env.controller.write_text(chrome_facts.TASK_PAGE, chrome_facts.page_html(kind, seed))


def open_page(env: SimEnv, kind: str, seed: int) -> None:
    write_page(env, kind, seed)
    act(env, action_type="open_app", app_name="Chrome")
    tap(env, desc="Open the home page")
    tap(env, res="com.android.chrome:id/url_bar")
    field = ui.require(env, ui.hint_is("Search or type URL"), "the address bar")
    act(env, action_type="input_text", index=field, text=chrome_facts.TASK_PAGE)


def test_files_opens_task_html_with_chrome_after_its_first_run(env):
    clear_storage_files(env.controller)
    write_page(env, "maze", 0)
    env.controller.remove(chrome_facts.DATA_DIR)  # `pm clear`
    act(env, action_type="open_app", app_name="Files")
    tap(env, "Download")
    tap(env, "task.html")
    assert "Open with Chrome" in texts(env)
    tap(env, "Just once")
    assert "Welcome to Chrome" in texts(env)
    tap(env, "Accept & continue")
    assert "Turn on sync?" in texts(env)
    tap(env, "No thanks")
    assert env.controller.foreground_activity() == (
        f"{chrome_facts.PACKAGE}/{chrome_facts.ACTIVITY}"
    )
    shown = texts(env)
    assert "file:///storage/emulated/0/Download/task.html" in shown
    assert {"X", "Up", "Down", "Left", "Right"} <= set(shown)
    env.controller.close_recents()
    act(env, action_type="open_app", app_name="Chrome")  # the first run is not shown again
    assert "Welcome to Chrome" not in texts(env)


def test_address_bar_opens_files_and_shows_chrome_error_pages(env):
    open_page(env, "multiply", 0)
    assert {"3", "Click Me"} <= set(texts(env))
    for address, expected in (
        ("https://example.com", "No internet"),
        ("/storage/emulated/0/Download/missing.html", "Your file couldn't be accessed"),
    ):
        tap(env, res="com.android.chrome:id/url_bar")
        field = ui.require(env, ui.res_is("com.android.chrome:id/url_bar"), "address")
        act(env, action_type="input_text", index=field, text=address)
        assert expected in texts(env)
    env.controller.write_text(
        f"{device.DOWNLOAD_DATA}/note.html",
        "<html><head><title>Note</title><script>var x = '<b>hidden</b>';</script></head>"
        "<body><p>Hello page</p></body></html>",
    )
    tap(env, res="com.android.chrome:id/url_bar")
    field = ui.require(env, ui.res_is("com.android.chrome:id/url_bar"), "address")
    act(env, action_type="input_text", index=field, text=f"{device.DOWNLOAD_DATA}/note.html")
    assert "Hello page" in texts(env) and "hidden" not in " ".join(texts(env))


# Read from upstream's own pages (single/browser.py) run in Chromium for these seeds: the maze's
# rows, the five numbers the multiply page shows, the draw page's three colours.
UPSTREAM_PAGES = {
    0: (("    ", "##  ", "## #", "## $"), (3, 3, 9, 7, 4), ("#00ffff", "#008000", "#9400d3")),
    1: ((" ###", " ###", " ###", "   $"), (3, 4, 6, 8, 1), ("#00ffff", "#808000", "#ff1493")),
    12345: (("    ", "    ", "    ", "  #$"), (1, 1, 6, 7, 10), ("#ff0000", "#00ff00", "#ff1493")),
    4294967295: (
        ("    ", "##  ", "## #", "## $"),
        (3, 2, 2, 7, 8),
        ("#00ffff", "#ff00ff", "#0000ff"),
    ),
}


@pytest.mark.parametrize("seed", sorted(UPSTREAM_PAGES))
def test_pages_draw_upstreams_puzzle_for_a_seed(seed):
    maze, numbers, colors = UPSTREAM_PAGES[seed]
    assert chrome_facts.maze(seed) == maze
    assert chrome_facts.multiply_numbers(seed) == numbers
    assert chrome_facts.draw_colors(seed) == colors


def test_page_files_name_their_kind_and_seed():
    for kind in chrome_facts.PAGE_KINDS:
        page = chrome_facts.read_page(chrome_facts.page_html(kind, 42))
        assert page == chrome_facts.Page(kind, 42)
    assert chrome_facts.read_page("<html><body>hi</body></html>") is None
    assert chrome_facts.read_page('<meta name="celil-page" content="maze">') is None
    with pytest.raises(ValueError):
        chrome_facts.page_html("chess", 1)


def test_maze_walls_block_and_the_goal_shows_success(env):
    open_page(env, "maze", 1)  # open column on the left, then along the bottom
    tap(env, "Right")  # a wall: the X stays
    tap(env, "Up")  # off the grid: stays
    assert "Success!" not in texts(env)
    for move in maze_path(chrome_facts.maze(1)):
        assert "Success!" not in texts(env)
        tap(env, move.capitalize())
    shown = texts(env)
    assert "Success!" in shown and "Up" not in shown


def test_multiply_page_checks_the_product(env):
    open_page(env, "multiply", 12345)
    shown = []
    for _ in range(5):
        shown.append(next(int(t) for t in texts(env) if t.isdigit()))
        tap(env, "Click Me")
    assert tuple(shown) == chrome_facts.multiply_numbers(12345)
    assert "Click Me" not in texts(env)
    field = ui.require(env, ui.hint_is("Enter the product"), "answer")
    act(env, action_type="input_text", index=field, text="419")
    tap(env, "Submit")
    assert "Success!" not in texts(env)
    act(env, action_type="input_text", index=field, text="420", clear_text=True)
    tap(env, "Submit")
    assert "Success!" in texts(env)


def palette(env: SimEnv) -> list[int]:
    return [
        i
        for i, e in enumerate(env.get_state().ui_elements)
        if (e.class_name or "").endswith("Button") and not e.text and not e.content_description
    ]


def stroke(env: SimEnv, color: str, direction: str) -> None:
    act(env, action_type="click", index=palette(env)[chrome_facts.AVAILABLE_COLORS.index(color)])
    canvas = ui.require(env, ui.res_is("canvas"), "canvas")
    act(env, action_type="scroll", direction=direction, index=canvas)


def test_draw_page_paints_strokes_and_looks_for_the_three_colours(env):
    open_page(env, "draw", 0)
    wanted = chrome_facts.draw_colors(0)
    assert len(palette(env)) == len(chrome_facts.AVAILABLE_COLORS)
    canvas = ui.require(env, ui.res_is("canvas"), "canvas")
    act(env, action_type="click", index=canvas)  # a tap draws nothing
    for color, direction in zip(wanted[:2], ("down", "up"), strict=True):
        stroke(env, color, direction)
    tap(env, "Submit")
    assert "Success!" not in texts(env)
    stroke(env, wanted[2], "left")
    tap(env, "Submit")
    assert "Success!" in texts(env)
    pixels = env.screenshot()
    box = env.get_state().ui_elements[ui.require(env, ui.res_is("canvas"), "canvas")].bbox_pixels
    drawn = pixels[int(box.y_min) : int(box.y_max), int(box.x_min) : int(box.x_max)]
    packed = drawn.astype(np.uint32) @ np.array([1 << 16, 1 << 8, 1], dtype=np.uint32)
    found = {f"#{int(v):06x}" for v in np.unique(packed)}
    assert set(wanted) <= found
    tap(env, "Clear")
    tap(env, "Submit")
    assert "Success!" not in texts(env)


def canvas_box(env: SimEnv):
    return env.get_state().ui_elements[ui.require(env, ui.res_is("canvas"), "canvas")].bbox_pixels


def test_zoom_resizes_the_page_and_a_drag_on_the_canvas_draws_instead_of_scrolling(env):
    open_page(env, "draw", 0)
    before = canvas_box(env)
    tap(env, desc="Customize and control Google Chrome")
    tap(env, "Zoom")
    tap(env, desc="Decrease zoom")
    assert "90%" in texts(env)
    assert canvas_box(env).height < before.height
    for _ in range(3):  # 100, 110, 125
        tap(env, desc="Increase zoom")
    assert "125%" in texts(env)
    act(env, action_type="navigate_back")  # the zoom sheet closes
    assert "125%" not in texts(env)
    tall = canvas_box(env)
    canvas = ui.require(env, ui.res_is("canvas"), "canvas")
    act(env, action_type="scroll", direction="down", index=canvas)
    assert canvas_box(env) == tall  # the page did not move: the stroke went on the canvas
    x = int(tall.center[0])
    band = env.screenshot()[int(tall.y_min) + 10 : int(tall.center[1]) - 10, x - 4 : x + 5]
    assert (band.max(axis=2).min(axis=1) < 80).all()  # a black line from the centre up
