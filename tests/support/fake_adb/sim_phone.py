"""The simulated phone as the fake adb's device: input events become the sim's touches and keys.

This lets the same tasks run over `AdbEnv` (adb argv -> device shell -> sim) and directly on
`SimEnv`, so a difference in scores points at the adb layer. Behaviour a real device has and the
sim's action API does not is mapped here: a tap on nothing or typing with no focused field is
silently ignored (Android does not complain), Ctrl+A then Delete clears the field, and
`am force-stop` closes the apps (the sim has no per-app process to kill).
"""

from __future__ import annotations

import contextlib
import io

from android_world.env import device
from android_world.env.representation_utils import AccessibilityNode
from android_world.env.sim.sim_env import SimEnv


class SimPhone:
    """`FakePhone` over a `SimEnv`; renders real screenshots only when the env renders."""

    def __init__(self, env: SimEnv):
        self.env = env
        self.controller: device.DeviceController = env.controller
        self._select_all = False
        self._blank_png: bytes | None = None

    def screen_size(self) -> tuple[int, int]:
        return self.env.device_screen_size

    def screenshot_png(self) -> bytes:
        from PIL import Image

        if not self.env.render and self._blank_png is not None:
            return self._blank_png
        pixels = self.env.screenshot() if self.env.render else self.env.get_state().pixels
        image = Image.fromarray(pixels)
        if not self.env.render:
            image = image.quantize(colors=2)  # a palette PNG of a blank frame decodes fastest
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", compress_level=1)
        data = buffer.getvalue()
        if not self.env.render:
            self._blank_png = data
        return data

    def ui_nodes(self) -> list[AccessibilityNode]:
        return list(self.env.phone.frame().forest)

    def _event(self) -> None:
        self._select_all = False

    def tap(self, x: float, y: float) -> None:
        self._event()
        with contextlib.suppress(ValueError):  # nothing there: a real screen ignores the touch
            self.env.phone.tap(x, y)

    def long_press(self, x: float, y: float) -> None:
        self._event()
        with contextlib.suppress(ValueError):
            self.env.phone.tap(x, y, long=True)

    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int) -> None:
        self._event()
        self.env.phone.drag(x1, y1, x2, y2)

    def key(self, keycode: str) -> None:
        phone = self.env.phone
        if keycode == "KEYCODE_DEL" and self._select_all:
            self._select_all = False
            with contextlib.suppress(ValueError):
                phone.clear_text()
            return
        self._event()
        if keycode == "KEYCODE_HOME":
            phone.go_home()
        elif keycode == "KEYCODE_BACK":
            phone.back()
        elif keycode == "KEYCODE_ENTER":
            phone.press_enter()
        elif keycode == "KEYCODE_DEL":
            backspace = getattr(phone, "_backspace", None)
            if backspace is not None:
                with contextlib.suppress(ValueError):
                    backspace()

    def key_combination(self, keycodes: list[str]) -> None:
        self._select_all = keycodes == ["KEYCODE_CTRL_LEFT", "KEYCODE_A"]

    def type_text(self, text: str) -> None:
        self._event()
        with contextlib.suppress(ValueError):  # no focused field: the keystrokes go nowhere
            self.env.phone.type_text(text)

    def launch(self, package: str) -> None:
        self._event()
        self.env.phone.launch(package)

    def force_stop(self, package: str) -> None:
        del package  # the sim has no per-app process: stopping any app closes them all
        self._event()
        self.env.phone.close_all()

    def foreground_activity(self) -> str:
        return self.env.phone.foreground_activity()
