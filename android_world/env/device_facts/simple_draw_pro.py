"""Simple Draw Pro (com.simplemobiletools.draw.pro): how it saves a drawing.

The save dialog takes a file name, an extension (PNG, SVG or JPG) and a folder; the file is
`<folder>/<name>.<extension>` (the extension is always added to the name typed). PNG and JPG are
images of the canvas, SVG a document of its strokes. A new save suggests the storage root as the
folder, which the folder picker shows under the device's name, as Simple Mobile Tools' apps do.
"""

from __future__ import annotations

from android_world.env import device

PACKAGE = "com.simplemobiletools.draw.pro"
EXTENSIONS = ("png", "svg", "jpg")
DEFAULT_FOLDER = device.EMULATOR_DATA
STORAGE_NAME = "sdk_gphone_x86_64"  # how the emulator's internal storage is labelled
CANVAS_SIZE = (1080, 1800)  # the saved image, in pixels


def drawing_file_name(name: str, extension: str) -> str:
    return f"{name.strip()}.{extension}"
