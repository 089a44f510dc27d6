"""Simple Gallery Pro: where pictures live, which files it shows, and how picture files are made.

The gallery shows every image file under shared storage, grouped by the folder it is in;
upstream's tasks put theirs in `GALLERY_DATA` (`/sdcard/DCIM`). A task writes a picture as real
image bytes (`encode_image`), so the sim gallery decodes and draws the same pixels a phone's
gallery would, and OCR reads its text off the screen.
"""

from __future__ import annotations

import io
from pathlib import PurePosixPath

from PIL import Image

from android_world.env import device

PACKAGE = "com.simplemobiletools.gallery.pro"
ACTIVITY = "com.simplemobiletools.gallery.pro.activities.MainActivity"
GALLERY_DATA = device.DCIM_DATA  # upstream's GALLERY_DATA, /sdcard/DCIM

# Pillow format names by file extension, for the pictures the gallery lists.
IMAGE_FORMATS = {
    ".jpg": "JPEG",
    ".jpeg": "JPEG",
    ".png": "PNG",
    ".gif": "GIF",
    ".webp": "WEBP",
    ".bmp": "BMP",
}
# Folders a gallery never scans (app-private data, hidden folders).
SKIPPED_FOLDERS = frozenset({"Android"})


def is_image(name: str) -> bool:
    return PurePosixPath(name).suffix.lower() in IMAGE_FORMATS


def encode_image(image: Image.Image, name: str) -> bytes:
    """The bytes of `image` saved as its file name's format (a .jpg is a JPEG)."""
    fmt = IMAGE_FORMATS.get(PurePosixPath(name).suffix.lower())
    if fmt is None:
        raise ValueError(f"{name!r} is not an image file name ({', '.join(IMAGE_FORMATS)}).")
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format=fmt)
    return buffer.getvalue()


def decode_image(data: bytes) -> Image.Image | None:
    """The picture in `data`, or None when it is not one a gallery can open."""
    try:
        with Image.open(io.BytesIO(data)) as opened:
            return opened.convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError):
        return None
