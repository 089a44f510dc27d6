"""Camera (camera2): a viewfinder, the shutter, and a photo/video mode switch.

Pictures and videos are written where the real app writes them, `DCIM/Camera`, named
`IMG_yyyyMMdd_HHmmss.jpg` / `VID_yyyyMMdd_HHmmss.mp4` from the phone's clock (a `_1`, `_2`
suffix when the frozen clock makes two names equal). Photos are tiny valid JPEGs.
"""

from __future__ import annotations

import io
from functools import cache

from PIL import Image

from android_world.env import device
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen
from android_world.env.sim.widgets import Node

PACKAGE = "com.android.camera2"
CAMERA_DIR = device.CAMERA_DATA
# A stand-in for an MP4: an `ftyp` box header is enough for `file`-style sniffing.
VIDEO_BYTES = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"


@cache
def jpeg_bytes() -> bytes:
    """A small, valid JPEG of a grey scene."""
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), (96, 110, 120)).save(buffer, format="JPEG", quality=70)
    return buffer.getvalue()


def unique_name(existing: set[str], stem: str, ext: str) -> str:
    name, n = f"{stem}{ext}", 0
    while name in existing:
        n += 1
        name = f"{stem}_{n}{ext}"
    return name


class CameraApp(App):
    package = PACKAGE

    def install(self) -> None:
        self.device.make_dirs(CAMERA_DIR)

    def main_screen(self) -> Screen:
        return Viewfinder(self)

    def capture(self, prefix: str, ext: str, data: bytes) -> str:
        stamp = self.device.device_time().strftime("%Y%m%d_%H%M%S")
        name = unique_name(set(self.device.list_dir(CAMERA_DIR)), f"{prefix}_{stamp}", ext)
        self.device.write_file(f"{CAMERA_DIR}/{name}", data)
        return name


class Viewfinder(Screen):
    activity = "com.android.camera.CameraActivity"

    def __init__(self, app: CameraApp):
        super().__init__(app)
        self.camera = app
        self.video = False
        self.recording = False
        self.last: str | None = None

    def build(self) -> Node:
        return w.column(
            self._top_bar(), self._preview(), self._mode_tabs(), self._controls(), flex=1
        )

    def _top_bar(self) -> Node:
        return w.row(
            w.icon_button("Settings", "menu", lambda: None),
            w.spacer(),
            w.label("REC", size=40, color="accent", w=140, h=100)
            if self.recording
            else w.spacer(w=140),
            w.icon_button("Switch to front camera", "refresh", lambda: None),
            h=160,
            pad=(24, 0, 24, 0),
            align="center",
        )

    @staticmethod
    def _preview() -> Node:
        return Node(
            kind="box",
            cls="android.view.TextureView",
            style={
                "bg": (190, 200, 206)
            },  # light: a dark block makes tesseract drop the mode labels
            flex=1,
            res_id="preview_content",
        )

    def _mode_tabs(self) -> Node:
        return w.row(
            w.spacer(),
            Node(
                kind="tab",
                cls="android.widget.TextView",
                text="Camera",
                desc="Camera",
                clickable=True,
                selected=not self.video,
                on_click=self._photo_mode,
                w=260,
            ),
            Node(
                kind="tab",
                cls="android.widget.TextView",
                text="Video",
                desc="Video",
                clickable=not self.recording,
                selected=self.video,
                on_click=self._video_mode,
                w=260,
            ),
            w.spacer(),
            h=130,
        )

    def _controls(self) -> Node:
        """Thumbnail of the last shot, the shutter (record/stop in video mode), mode options."""
        if self.video:
            shutter = w.icon_button(
                "Stop" if self.recording else "Shutter",
                "stop" if self.recording else "video",
                self._record,
                res_id="shutter_button",
            )
        else:
            shutter = w.icon_button("Shutter", "camera", self._snap, res_id="shutter_button")
        shutter.w = shutter.h = 200
        thumb = (
            w.icon_button(
                "Filmstrip",
                "file",
                lambda: self.toast(self.last or ""),
                res_id="rounded_thumbnail_view",
            )
            if self.last
            else w.spacer(w=144)
        )
        return w.row(
            w.spacer(),
            thumb,
            w.spacer(w=110),
            shutter,
            w.spacer(w=110),
            w.icon_button("Mode options", "more", lambda: None),
            w.spacer(),
            h=260,
            align="center",
        )

    def _photo_mode(self) -> None:
        if not self.recording:
            self.video = False

    def _video_mode(self) -> None:
        self.video = True

    def _snap(self) -> None:
        self.last = self.camera.capture("IMG", ".jpg", jpeg_bytes())

    def _record(self) -> None:
        if self.recording:
            self.last = self.camera.capture("VID", ".mp4", VIDEO_BYTES)
        self.recording = not self.recording

    def on_back(self) -> bool:
        if self.recording:
            self._record()
        return False
