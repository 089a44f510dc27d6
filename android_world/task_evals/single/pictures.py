"""What the picture tasks share (the gallery's, and the recipes-from-a-picture one): where pictures
are written, upstream's storage clean-up, and how a person reaches a picture in the gallery.

Only device facts and the screen are used here (no simulated app), so the browser tasks, which
clear the same storage, import this module alone.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from typing import Any

from PIL import Image

from android_world.env import device, interface
from android_world.env.device_facts import gallery as gallery_facts
from android_world.env.json_action import JSONAction
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.single.files import clear_storage_files

GALLERY = "Simple Gallery Pro"
PICTURES = gallery_facts.GALLERY_DATA
TEXT_WRAP = 60  # upstream wraps the values it writes on a picture at 60 characters
NOISE_PICTURES = 10
PICTURE_NOTE = (
    "pictures use Pillow's bundled font (upstream: the first of Arial, Roboto, DejaVu Sans Bold,"
    " Liberation Sans found on the host), so the same text has other pixels"
)


def wrap_values(rows: list[dict[str, Any]], fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """Rows whose `fields` hold their text wrapped at 60 characters: written as a text block,
    they read as upstream writes rows on a picture (each value wrapped, the title not)."""
    return [
        {k: "\n".join(textwrap.wrap(v, TEXT_WRAP)) if k in fields else v for k, v in row.items()}
        for row in rows
    ]


def write_picture(env: interface.AsyncEnv, name: str, image: Image.Image) -> None:
    env.controller.write_file(f"{PICTURES}/{name}", gallery_facts.encode_image(image, name))


def open_picture(env: interface.AsyncEnv, name: str) -> Iterator[JSONAction]:
    """Open the gallery's DCIM folder and page through its pictures until the viewer's title is
    `name`: thumbnails show no names, so a person opens the first and swipes on."""
    yield ui.open_app(GALLERY)
    yield ui.click(env, ui.text_is(PICTURES.rsplit("/", 1)[-1]), "the DCIM folder")
    yield ui.click(env, ui.res_is("medium_thumbnail"), "the first thumbnail")
    for _ in range(64):
        if ui.find(ui.elements(env), ui.matching(text=name, res="android:id/title")) is not None:
            return
        photo = ui.require(env, ui.res_is("photo_view"), "the photo")
        before = _viewer_title(env)
        yield JSONAction(action_type="scroll", direction="right", index=photo)
        if _viewer_title(env) == before:
            break  # the last picture
    raise RuntimeError(f"Oracle could not find the picture {name!r} in the gallery.")


def _viewer_title(env: interface.AsyncEnv) -> str | None:
    items = ui.elements(env)
    index = ui.find(items, ui.res_is("android:id/title"), need_visible=False)
    return items[index].text if index is not None else None


def clear_shared_storage(env: interface.AsyncEnv) -> None:
    """Upstream's `clear_device_storage`: every file under shared storage, Download included."""
    clear_storage_files(env.controller)
    for folder in (device.DOWNLOAD_DATA, PICTURES):
        env.controller.make_dirs(folder)
