"""`AdbEnv`: the AsyncEnv contract on a real emulator or phone, through the `adb` binary only.

No android_env, no gRPC, no accessibility-forwarder APK: screenshots come from `screencap`, the UI
tree from `uiautomator dump` (upstream's fallback for physical devices, slower but dependable),
actions from `input`. Action semantics are upstream's (see `execute_action`), so agents see the
same behaviour here as on upstream's live environment and on the simulated phone.
"""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from android_world.env import interface, json_action, representation_utils
from android_world.env.adb import commands, uiautomator
from android_world.env.adb.adb_controller import AdbDeviceController
from android_world.env.adb.adb_runner import (
    AdbConfig,
    AdbError,
    AdbRunner,
    device_state_problem,
    parse_devices,
)

logger = logging.getLogger(__name__)

_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_KEYCOMBINATION_SELECT_ALL_DELETE = "input keycombination 113 29 && input keyevent 67"


def decode_png(data: bytes) -> np.ndarray:
    """PNG bytes -> (H, W, 3) uint8 RGB; ValueError when it is not a PNG."""
    from PIL import Image

    start = data.find(_PNG_MAGIC)
    if start < 0:
        raise ValueError("not a PNG")
    with Image.open(io.BytesIO(data[start:])) as image:
        if image.mode == "RGBA":  # what screencap writes: drop alpha without a full convert
            return np.asarray(image)[:, :, :3].copy()
        if image.mode != "RGB":
            image = image.convert("RGB")
        return np.asarray(image, dtype=np.uint8)


class AdbEnv(interface.AsyncEnv):
    """An Android device over adb; see the module docstring."""

    # Upstream's trick: a class attribute satisfies the abstract property, instances assign it.
    interaction_cache = ""  # type: ignore[assignment]

    def __init__(
        self,
        config: AdbConfig | Mapping[str, Any] | None = None,
        *,
        runner: AdbRunner | None = None,
        sleep: Callable[[float], None] = time.sleep,
        input_pause_sec: float = 1.0,
        check_connection: bool = True,
    ):
        if not isinstance(config, AdbConfig):
            config = AdbConfig.from_mapping(config)
        self._config = config
        self._runner = runner or AdbRunner.from_config(config)
        self._sleep = sleep
        self._input_pause_sec = input_pause_sec
        self._emulator = None
        self._physical_size: tuple[int, int] | None = None
        self.interaction_cache = ""
        if config.emulator is not None:
            from android_world.env.adb import emulator

            self._emulator = emulator.ensure_running(config, self._runner, sleep=sleep)
        if check_connection:
            try:
                self.check_connection()
            except Exception:
                # An emulator we started must not outlive a constructor that failed.
                self.close()
                raise
        self._controller = AdbDeviceController(self._runner, auto_root=config.auto_root)
        self._controller.owner_env = self  # upstream-style calls pass env.controller (adb_utils)

    @classmethod
    def from_config(cls, values: Mapping[str, Any] | None, **kwargs: Any) -> AdbEnv:
        return cls(AdbConfig.from_mapping(values), **kwargs)

    @property
    def runner(self) -> AdbRunner:
        return self._runner

    @property
    def controller(self) -> AdbDeviceController:
        return self._controller

    def check_connection(self) -> None:
        """Raise AdbError with the fix unless our serial is listed by `adb devices` as ready."""
        result = self._runner.run(["devices"], with_serial=False)
        problem = device_state_problem(parse_devices(result.text), self._runner.serial)
        if problem is not None:
            raise AdbError(problem)

    # observation --------------------------------------------------------------------------
    def screenshot(self) -> np.ndarray:
        result = self._runner.exec_out("screencap -p")
        try:
            return decode_png(result.stdout)
        except (ValueError, OSError) as exc:
            said = (result.error_text or result.text).strip().splitlines()
            detail = said[0][:120] if said else f"{len(result.stdout)} bytes, not a PNG"
            raise AdbError(
                f"screencap failed on {self._runner.serial} ({detail}): wake the screen with "
                "`adb shell input keyevent KEYCODE_WAKEUP` and check `adb exec-out screencap -p`"
            ) from exc

    def _dump_once(self) -> list[representation_utils.AccessibilityNode]:
        result = self._runner.exec_out("uiautomator dump /dev/tty")
        output = result.text + "\n" + result.error_text
        try:
            return uiautomator.parse_dump(output)
        except uiautomator.UiDumpError as exc:
            if exc.transient:
                raise
        # Some builds cannot write to /dev/tty: dump to a file and read it back.
        path = "/sdcard/window_dump.xml"
        first = self._runner.shell(f"uiautomator dump {path}", check=False)
        said = first.text + "\n" + first.error_text
        if uiautomator.is_transient_failure(said):
            raise uiautomator.UiDumpError(said.strip(), transient=True)
        return uiautomator.parse_dump(self._runner.exec_out(f"cat {path}").text)

    def ui_nodes(self) -> list[representation_utils.AccessibilityNode]:
        """The UI tree, retrying uiautomator's transient failures."""
        attempts = max(1, self._config.uiautomator_retries)
        last: Exception | None = None
        for attempt in range(attempts):
            try:
                return self._dump_once()
            except uiautomator.UiDumpError as exc:
                last = exc
                if not exc.transient:
                    break
                self._sleep(min(0.25 * (attempt + 1), 1.0))
        raise AdbError(
            f"uiautomator dump failed on {self._runner.serial} ({last}): the screen kept changing "
            "or another automation client holds the UI bridge; close it and check "
            "`adb shell uiautomator dump /dev/tty`"
        )

    def ui_elements(self) -> list[representation_utils.UIElement]:
        return uiautomator.nodes_to_elements(self.ui_nodes())

    def get_state(self, wait_to_stabilize: bool = False) -> interface.State:
        if wait_to_stabilize:
            return interface.get_stable_state(self)
        nodes = self.ui_nodes()
        pixels = self.screenshot()
        return interface.State(
            pixels=pixels,
            forest=nodes,
            ui_elements=uiautomator.nodes_to_elements(nodes),
            auxiliaries={},
        )

    def reset(self, go_home: bool = False) -> interface.State:
        if go_home:
            self._runner.shell(commands.keyevent_command("KEYCODE_HOME"))
        self.interaction_cache = ""
        return self.get_state()

    def ask_question(self, question: str, timeout_seconds: float = -1.0) -> str | None:
        raise NotImplementedError("AdbEnv has no human operator to ask.")

    # actions ------------------------------------------------------------------------------
    def execute_action(self, action: json_action.JSONAction) -> None:
        """Upstream's semantics; element indices resolve against a fresh dump taken now."""
        kind = action.action_type
        if kind == json_action.ANSWER:
            self.interaction_cache = action.text or ""
            if action.text:
                self.display_message(action.text, header="Agent answered:")
            return
        if kind == json_action.STATUS:
            return
        if kind in (json_action.CLICK, json_action.DOUBLE_TAP, json_action.LONG_PRESS):
            x, y = self._target(action, self._elements_if_indexed(action), kind)
            if kind == json_action.CLICK:
                command = commands.tap_command(x, y)
            elif kind == json_action.DOUBLE_TAP:
                command = commands.double_tap_command(x, y)
            else:
                command = commands.long_press_command(x, y)
            self._runner.shell(command)
        elif kind == json_action.INPUT_TEXT:
            self._input_text(action)
        elif kind == json_action.KEYBOARD_ENTER:
            self._runner.shell(commands.keyevent_command("KEYCODE_ENTER"))
        elif kind == json_action.NAVIGATE_HOME:
            self._runner.shell(commands.keyevent_command("KEYCODE_HOME"))
        elif kind == json_action.NAVIGATE_BACK:
            self._runner.shell(commands.keyevent_command("KEYCODE_BACK"))
        elif kind == json_action.SCROLL:
            self._scroll(action)
        elif kind == json_action.SWIPE:
            if not action.direction:
                raise ValueError("swipe needs a direction.")
            points = commands.swipe_points(action.direction, self.logical_screen_size)
            self._runner.shell(commands.swipe_command(*points, duration_ms=500))
        elif kind == json_action.OPEN_APP:
            if not action.app_name:
                raise ValueError("open_app needs an app_name.")
            self._controller.launch_app(action.app_name)
        elif kind == json_action.WAIT:
            self._sleep(1.0)
        else:
            logger.warning("Unknown action type: %s", action)

    def _elements_if_indexed(
        self, action: json_action.JSONAction
    ) -> list[representation_utils.UIElement]:
        return self.ui_elements() if action.index is not None else []

    @staticmethod
    def _target(
        action: json_action.JSONAction,
        elements: list[representation_utils.UIElement],
        kind: str,
    ) -> tuple[float, float]:
        if action.index is not None:
            index = int(action.index)
            if not 0 <= index < len(elements):
                raise ValueError(
                    f"Invalid element index: {index}, must be between 0 and {len(elements) - 1}."
                )
            bbox = elements[index].bbox_pixels
            if bbox is None:
                raise ValueError(f"Element {index} has no bounding box.")
            return bbox.center
        if action.x is not None and action.y is not None:
            return float(action.x), float(action.y)
        raise ValueError(f"{kind} needs an index or x and y.")

    def _input_text(self, action: json_action.JSONAction) -> None:
        text = action.text
        if not text:
            logger.warning("input_text without text: %s", action)
            return
        if action.index is not None or (action.x is not None and action.y is not None):
            x, y = self._target(action, self._elements_if_indexed(action), "input_text")
            self._runner.shell(commands.tap_command(x, y))
            self._sleep(self._input_pause_sec)
        if action.clear_text:
            self._clear_field()
        if commands.is_typeable(text):
            self._runner.shell(" && ".join(commands.input_text_commands(text)))
        elif self._adb_keyboard_active():
            self._runner.shell(commands.adb_keyboard_command(text))
        else:
            raise commands.untypeable_error(text)
        self._runner.shell(commands.keyevent_command("KEYCODE_ENTER"))

    def _clear_field(self) -> None:
        result = self._runner.shell(_KEYCOMBINATION_SELECT_ALL_DELETE, check=False)
        if result.returncode != 0 or "Error" in result.text + result.error_text:
            # Before Android 13 there is no keycombination: go to the end and delete backwards.
            deletes = " ".join(["67"] * 100)
            self._runner.shell(f"input keyevent KEYCODE_MOVE_END && input keyevent {deletes}")
        self._sleep(self._input_pause_sec)

    def _adb_keyboard_active(self) -> bool:
        ime = self._controller.get_setting("secure", "default_input_method") or ""
        return ime.startswith("com.android.adbkeyboard")

    def _scroll(self, action: json_action.JSONAction) -> None:
        if not action.direction:
            raise ValueError("scroll needs a direction.")
        region = None
        if action.index:  # upstream: index 0 (and None) means the whole screen
            elements = self.ui_elements()
            index = int(action.index)
            if not 0 <= index < len(elements):
                raise ValueError(
                    f"Invalid element index: {index}, must be between 0 and {len(elements) - 1}."
                )
            region = elements[index].bbox_pixels
        points = commands.scroll_points(action.direction, self.logical_screen_size, region)
        self._runner.shell(commands.swipe_command(*points))

    # geometry -----------------------------------------------------------------------------
    def _viewport(self) -> tuple[int, tuple[int, int, int, int], tuple[int, int, int, int]] | None:
        return commands.parse_input_viewport(self._runner.shell("dumpsys input", check=False).text)

    @property
    def device_screen_size(self) -> tuple[int, int]:
        if self._physical_size is None:
            physical, override = commands.parse_wm_size(self._runner.shell("wm size").text)
            size = physical or override
            if size is None:
                raise AdbError(
                    f"`wm size` printed no size on {self._runner.serial}: is the device booted?"
                )
            self._physical_size = size
        return self._physical_size

    @property
    def logical_screen_size(self) -> tuple[int, int]:
        viewport = self._viewport()
        if viewport is not None:
            left, top, right, bottom = viewport[1]
            if right > left and bottom > top:
                return right - left, bottom - top
        physical, override = commands.parse_wm_size(self._runner.shell("wm size").text)
        width, height = override or physical or self.device_screen_size
        if self.orientation in (1, 3):
            width, height = height, width
        return width, height

    @property
    def orientation(self) -> int:
        found = commands.parse_orientation(self._runner.shell("dumpsys input", check=False).text)
        if found is None:
            window = self._runner.shell("dumpsys window displays", check=False).text
            found = commands.parse_orientation(window)
        return found or 0

    @property
    def physical_frame_boundary(self) -> tuple[int, int, int, int]:
        viewport = self._viewport()
        if viewport is not None and viewport[2][2] > viewport[2][0]:
            return viewport[2]
        width, height = self.device_screen_size
        return 0, 0, width, height

    @property
    def foreground_activity_name(self) -> str:
        return self._controller.foreground_activity()

    def hide_automation_ui(self) -> None:
        self._runner.shell(
            "settings put system pointer_location 0 ; settings put system show_touches 0"
        )

    def close(self) -> None:
        if self._emulator is not None:
            try:
                self._emulator.stop()
            except Exception as exc:  # closing must not mask the episode's own outcome
                logger.warning("could not stop the emulator: %s", exc)
            self._emulator = None
