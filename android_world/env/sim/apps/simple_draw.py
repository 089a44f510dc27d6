"""Simple Draw Pro (com.simplemobiletools.draw.pro): a canvas, a few colours, save as a file.

Drag on the canvas to draw a stroke (a tap leaves a dot); the palette picks the colour, Undo
removes the last stroke, "Clear" in the menu empties the canvas. Save opens Simple Draw's save
dialog: the folder (the storage root at first; tapping it opens the folder picker, which shows
internal storage under the device's name), the file name and the extension (PNG, SVG, JPG). The
file is `<folder>/<name>.<extension>` (`device_facts.simple_draw_pro`): a real PNG or JPG of the
canvas, or an SVG of its strokes.
"""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from android_world.env import device
from android_world.env.device_facts import simple_draw_pro as facts
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen, folder_entries
from android_world.env.sim.widgets import Node

PALETTE = (
    ("Black", (20, 20, 20)),
    ("Red", (217, 48, 37)),
    ("Blue", (26, 115, 232)),
    ("Green", (24, 128, 56)),
)
BRUSH_WIDTH = 12

Stroke = tuple[tuple[int, int, int], int, tuple[tuple[int, int], ...]]  # colour, width, points


class SimpleDrawApp(App):
    package = facts.PACKAGE

    def main_screen(self) -> Screen:
        return DrawingScreen(self)


def drawing_bytes(strokes: list[Stroke], extension: str, size: tuple[int, int]) -> bytes:
    """The canvas as a PNG, JPG or SVG file; strokes are in canvas pixels of `size`."""
    if extension == "svg":
        lines = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{size[0]}" height="{size[1]}">',
            f'<rect width="{size[0]}" height="{size[1]}" fill="#ffffff"/>',
        ]
        for color, width, points in strokes:
            hex_color = "#{:02x}{:02x}{:02x}".format(*color)
            path = " ".join(f"{x},{y}" for x, y in points)
            lines.append(
                f'<polyline points="{path}" fill="none" stroke="{hex_color}" '
                f'stroke-width="{width}" stroke-linecap="round"/>'
            )
        return ("\n".join([*lines, "</svg>"]) + "\n").encode()
    image = Image.new("RGB", size, (255, 255, 255))
    pen = ImageDraw.Draw(image)
    for color, width, points in strokes:
        if len(points) == 1:
            (x, y), r = points[0], width // 2
            pen.ellipse((x - r, y - r, x + r, y + r), fill=color)
        else:
            pen.line(list(points), fill=color, width=width, joint="curve")
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG" if extension == "jpg" else "PNG")
    return buffer.getvalue()


class DrawingScreen(Screen):
    activity = "com.simplemobiletools.draw.pro.activities.MainActivity"

    def __init__(self, app: SimpleDrawApp):
        super().__init__(app)
        self.strokes: list[Stroke] = []  # in canvas-local design pixels
        self.color = PALETTE[0][1]
        self.canvas_box: tuple[int, int, int, int] = (0, 0, 1, 1)
        self.folder = facts.DEFAULT_FOLDER
        self.file_name = ""
        self.extension = facts.EXTENSIONS[0]
        self.picking = facts.DEFAULT_FOLDER  # the folder picker's current folder

    def build(self) -> Node:
        canvas = Node(
            kind="canvas",
            cls="com.simplemobiletools.draw.pro.views.MyCanvas",
            res_id="my_canvas",
            clickable=True,
            flex=1,
            on_change=self._stroke,
            style={"strokes": tuple(self._on_screen())},
        )
        swatches = [
            w.icon_button(name, "palette", lambda c=color: setattr(self, "color", c))
            for name, color in PALETTE
        ]
        for node, (_, color) in zip(swatches, PALETTE, strict=True):
            node.selected = color == self.color
        return w.column(
            w.app_bar(
                "Simple Draw",
                actions=[
                    w.icon_button("Undo", "refresh", self._undo if self.strokes else None),
                    w.icon_button("Save", "save", self._open_save),
                    w.icon_button("More options", "more", self._menu),
                ],
            ),
            canvas,
            w.row(*swatches, h=170, gap=40, pad=(48, 0, 48, 0), align="center"),
            flex=1,
        )

    # drawing -------------------------------------------------------------------------------
    def _on_screen(self) -> list[Stroke]:
        left, top = self.canvas_box[0], self.canvas_box[1]
        return [
            (color, width, tuple((x + left, y + top) for x, y in points))
            for color, width, points in self.strokes
        ]

    def _stroke(self, points: list[tuple[float, float]]) -> None:
        box = self._live_canvas_box()
        left, top, right, bottom = box
        local = tuple(
            (int(min(max(x, left), right - 1)) - left, int(min(max(y, top), bottom - 1)) - top)
            for x, y in points
        )
        self.strokes.append((self.color, BRUSH_WIDTH, local))

    def _live_canvas_box(self) -> tuple[int, int, int, int]:
        frame = self.app.phone.frame()
        for node in frame.nodes:
            if node.kind == "canvas":
                self.canvas_box = node.frame
        return self.canvas_box

    def _undo(self) -> None:
        if self.strokes:
            self.strokes.pop()

    def _menu(self) -> None:
        self.show_menu([("Clear", self.strokes.clear)])

    # saving --------------------------------------------------------------------------------
    def _open_save(self) -> None:
        if not self.file_name:
            self.file_name = "image_" + self.device.device_time().strftime("%Y_%m_%d_%H_%M_%S")
        self.show_dialog(self._save_dialog)

    def _folder_label(self, folder: str) -> str:
        return facts.STORAGE_NAME + folder.removeprefix(device.EMULATOR_DATA)

    def _save_dialog(self) -> Node:
        return w.dialog(
            "Save as",
            body=[
                w.label("Path", size=w.SECONDARY_SIZE, color="secondary", h=60),
                w.list_row(
                    self._folder_label(self.folder),
                    icon="folder",
                    on_click=self._open_picker,
                    key="save_path",
                    h=150,
                ),
                w.text_field(
                    self.file_name,
                    lambda text: setattr(self, "file_name", text),
                    hint="Filename",
                    key="save_file_name",
                ),
                *[
                    w.radio_row(
                        ext.upper(),
                        self.extension == ext,
                        lambda e=ext: setattr(self, "extension", e),
                    )
                    for ext in facts.EXTENSIONS
                ],
            ],
            buttons=[("Cancel", self.dismiss), ("OK", self._save)],
        )

    def _save(self) -> None:
        name = self.file_name.strip()
        if not name or "/" in name:
            self.toast("Filename is not valid")
            return
        box = self._live_canvas_box()
        size = (max(1, box[2] - box[0]), max(1, box[3] - box[1]))
        path = f"{self.folder}/{facts.drawing_file_name(name, self.extension)}"
        self.device.write_file(path, drawing_bytes(self.strokes, self.extension, size))
        self.dismiss()
        self.toast("File saved successfully")

    def _open_picker(self) -> None:
        self.picking = self.folder
        self.show_dialog(self._picker)

    def _picker(self) -> Node:
        here = self.picking
        rows = [
            w.list_row(
                name, icon="folder", on_click=lambda n=name: self._pick_into(n), key=f"pick_{name}"
            )
            for name, is_dir in folder_entries(self.device, here)
            if is_dir
        ]
        return w.dialog(
            "Select a folder",
            body=[
                w.row(
                    w.icon_button("Parent folder", "back", self._pick_parent)
                    if here != device.EMULATOR_DATA
                    else None,
                    w.label(
                        self._folder_label(here),
                        size=w.SECONDARY_SIZE,
                        flex=1,
                        res_id="breadcrumbs",
                    ),
                    h=150,
                    align="center",
                ),
                w.scroll_list("pick_folders", *(rows or [w.empty_state("No folders")]), h=900),
            ],
            buttons=[("Cancel", lambda: self.show_dialog(self._save_dialog)), ("OK", self._picked)],
        )

    def _pick_into(self, name: str) -> None:
        self.picking = f"{self.picking}/{name}"

    def _pick_parent(self) -> None:
        self.picking = self.picking.rsplit("/", 1)[0]

    def _picked(self) -> None:
        self.folder = self.picking
        self.show_dialog(self._save_dialog)
