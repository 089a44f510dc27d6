"""`SimEnv`: the simulated phone behind upstream AndroidWorld's `AsyncEnv` interface.

Actions follow upstream's actuation: indices are resolved against a fresh element list at
execution time and turned into a touch at the element's centre; `input_text` taps the target,
types and presses Enter; `scroll` names the content direction (the finger moves the other way)
from the centre of the screen or of the element; `swipe` names the finger direction across the
whole screen, with upstream's left/right quirk (see `_SWIPES`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

import numpy as np

from android_world.env import device, interface, json_action, representation_utils, sim_profile
from android_world.env.sim.controller import SimController
from android_world.env.sim.phone import STEP_MS, Frame, Phone
from android_world.env.sim.render import Renderer, blank_frame

WIDTH, HEIGHT = device.SCREEN_WIDTH, device.SCREEN_HEIGHT

# Upstream's swipe gestures over the whole screen, at the mid-line: (start, end) as fractions of
# the screen. Quirk kept on purpose: "left" moves the finger from x=0 to x=W (rightwards) and
# "right" from W to 0, exactly as upstream's actuation does.
_SWIPES = {
    "down": ((0.5, 0.0), (0.5, 1.0)),
    "up": ((0.5, 1.0), (0.5, 0.0)),
    "left": ((0.0, 0.5), (1.0, 0.5)),
    "right": ((1.0, 0.5), (0.0, 0.5)),
}


# Actions that never move the screen (and so start no transition).
_STILL = (json_action.ANSWER, json_action.STATUS, json_action.UNKNOWN, json_action.WAIT)


@dataclasses.dataclass
class _Transition:
    """A screen still animating after an action: the frames an observer sees before it settles."""

    before: Frame  # what was on screen when the action ran
    remaining: int
    started: float


class SimEnv(interface.AsyncEnv):
    """An in-process phone running the simulated apps: a Pixel 6 (1080x2400) by default, or
    the screen and behaviour of a `profile` (see `env/sim_profile.py`). Deterministic for a seed."""

    interaction_cache: str = ""  # a plain settable attribute, as upstream's AsyncAndroidEnv

    def __init__(
        self,
        seed: int = 0,
        render: bool = True,
        data_dir: str | None = None,
        profile: sim_profile.SimProfile | str | None = None,
        adjust_step_budget: bool = True,
    ):
        self.seed = seed
        self.render = render
        self.profile = (
            profile if isinstance(profile, sim_profile.SimProfile) else sim_profile.parse(profile)
        )
        screen = self.profile.screen
        self.width, self.height = screen.width, screen.height
        self._scale = screen.scale
        self._controller = SimController(data_dir)
        self._controller.owner_env = self  # upstream-style calls pass env.controller (adb_utils)
        self.phone = Phone(self._controller, seed, self.profile)
        self.renderer = Renderer(size=screen.design_size, out_size=(screen.width, screen.height))
        self._blank = blank_frame((screen.width, screen.height))
        self._transition: _Transition | None = None
        self.interaction_cache = ""
        self._closed = False
        self.adjust_step_budget = adjust_step_budget

    # AsyncEnv ------------------------------------------------------------------------------
    @property
    def controller(self) -> SimController:
        return self._controller

    def reset(self, go_home: bool = False) -> interface.State:
        if go_home:
            self.phone.go_home()
        self.interaction_cache = ""
        return self.get_state()

    def get_state(self, wait_to_stabilize: bool = False) -> interface.State:
        frame = self._observed_frame(wait_to_stabilize)
        pixels = self.renderer.render(frame.windows) if self.render else self._blank
        return interface.State(pixels=pixels, forest=frame.forest, ui_elements=list(frame.elements))

    def _observed_frame(self, wait_to_stabilize: bool) -> Frame:
        """The settled frame, or while a `slow` profile's screen animates, a transitional one:
        first the screen as it was before the action, then the new screen sliding up into
        place, each frame different from the last. Waiting for a stable screen (upstream's
        `wait_to_stabilize`, polling until the tree stops changing) ends up on the settled
        frame, as does the profile's settle time passing."""
        moving = self._transition
        if moving is None:
            return self.phone.frame()
        elapsed = time.monotonic() - moving.started
        if wait_to_stabilize or moving.remaining <= 0 or elapsed >= self.profile.latency_seconds:
            self._transition = None
            return self.phone.frame()
        k = moving.remaining
        moving.remaining -= 1
        if k == self.profile.latency_frames:
            return moving.before
        step = (self.phone.content_bottom - self.phone.content_top) // (2 * k + 4)
        return self.phone.shifted_frame(k * step)

    def screenshot(self) -> np.ndarray:
        """A rendered frame even when the env was built with render=False."""
        return self.renderer.render(self.phone.frame().windows)

    def ask_question(self, question: str, timeout_seconds: float = -1.0) -> str | None:
        raise NotImplementedError("The simulated phone has no human operator to ask.")

    def execute_action(self, action: json_action.JSONAction) -> None:
        self.phone.pass_time(STEP_MS)  # the step that chose this action took a while
        if not self.profile.latency_frames:
            self._execute(action)
            return
        if action.action_type == json_action.WAIT:  # time passes: the screen settles
            self._transition = None
        before = self.phone.frame()
        versions = (self.phone.version, self._controller.version)
        try:
            self._execute(action)
        finally:
            if action.action_type not in _STILL and versions != (
                self.phone.version,
                self._controller.version,
            ):
                self._transition = _Transition(
                    before, self.profile.latency_frames, time.monotonic()
                )

    def _execute(self, action: json_action.JSONAction) -> None:
        kind = action.action_type
        if kind == json_action.ANSWER:
            self.interaction_cache = action.text or ""
            return
        if kind in (json_action.STATUS, json_action.UNKNOWN, json_action.WAIT):
            return
        phone = self.phone
        if kind in (json_action.CLICK, json_action.DOUBLE_TAP, json_action.LONG_PRESS):
            x, y = self._design(*self._target(action))
            phone.tap(x, y, long=kind == json_action.LONG_PRESS)
            if kind == json_action.DOUBLE_TAP:
                phone.tap(x, y)
        elif kind == json_action.INPUT_TEXT:
            self._input_text(action)
        elif kind == json_action.KEYBOARD_ENTER:
            phone.press_enter()
        elif kind == json_action.NAVIGATE_HOME:
            phone.go_home()
        elif kind == json_action.NAVIGATE_BACK:
            phone.back()
        elif kind == json_action.SCROLL:
            self._scroll(action)
        elif kind == json_action.SWIPE:
            if not action.direction:
                raise ValueError("swipe needs a direction: up, down, left or right.")
            (sx, sy), (ex, ey) = _SWIPES[action.direction]
            width, height = self.width - 1, self.height - 1
            start = self._design(sx * width, sy * height)
            phone.drag(*start, *self._design(ex * width, ey * height))
        elif kind == json_action.OPEN_APP:
            if not action.app_name:
                raise ValueError("open_app needs an app_name.")
            phone.launch(action.app_name)
        else:  # pragma: no cover - JSONAction rejects other types
            raise ValueError(f"Unsupported action type {kind!r}")

    def _element_box(self, index: int) -> representation_utils.BoundingBox:
        """The box of the element at `index` in a fresh element list, as upstream resolves it."""
        elements = self.phone.frame().elements
        if not 0 <= index < len(elements):
            raise ValueError(
                f"Index {index} is out of range; the screen has {len(elements)} elements (0..{len(elements) - 1})."
            )
        box = elements[index].bbox_pixels
        if box is None:
            raise ValueError(f"Element {index} has no bounding box.")
        return box

    def _target(self, action: json_action.JSONAction) -> tuple[float, float]:
        """The touch point: the centre of the element at `index` (fresh list), or (x, y)."""
        if action.index is not None:
            return self._element_box(int(action.index)).center
        if action.x is not None and action.y is not None:
            x, y = int(action.x), int(action.y)
            if not (0 <= x < self.width and 0 <= y < self.height):
                raise ValueError(f"Point ({x}, {y}) is off the {self.width}x{self.height} screen.")
            return float(x), float(y)
        raise ValueError(f"{action.action_type} needs an index or both x and y.")

    def _input_text(self, action: json_action.JSONAction) -> None:
        if not action.text:
            return  # upstream logs a warning and does nothing
        if action.index is not None or (action.x is not None and action.y is not None):
            self.phone.tap(*self._design(*self._target(action)))
        if action.clear_text:
            self.phone.clear_text()
        self.phone.type_text(action.text)
        self.phone.press_enter()

    def _scroll(self, action: json_action.JSONAction) -> None:
        direction = action.direction
        if not direction:
            raise ValueError("scroll needs a direction: up, down, left or right.")
        if action.index:  # upstream quirk: index 0 scrolls the whole screen
            box = self._element_box(int(action.index))
            left, top = max(0, box.x_min), max(0, box.y_min)
            right, bottom = min(self.width, box.x_max), min(self.height, box.y_max)
        else:
            left, top, right, bottom = 0, 0, self.width, self.height
        cx, cy = (left + right) / 2, (top + bottom) / 2
        end = {"down": (cx, top), "up": (cx, bottom), "right": (left, cy), "left": (right, cy)}[
            direction
        ]
        self.phone.drag(*self._design(cx, cy), *self._design(*end))

    def _design(self, x: float, y: float) -> tuple[float, float]:
        """A point on the screen in the phone's design pixels (see env/sim_profile.py)."""
        if self._scale == 1.0:
            return x, y
        return x / self._scale, y / self._scale

    # step budget --------------------------------------------------------------------------
    @property
    def step_budget_scale(self) -> float:
        return self.profile.step_budget_scale if self.adjust_step_budget else 1.0

    def step_budget(self, upstream_budget: int, app_names: Sequence[str] = ()) -> int:
        """The runner's budget for a task on this phone (suite_utils.run_task asks): the
        profile's (`SimProfile.step_budget`), unless `adjust_step_budget` is off."""
        if not self.adjust_step_budget:
            return upstream_budget
        packages = [info.package for info in map(device.find_app, app_names) if info]
        return self.profile.step_budget(upstream_budget, packages)

    # geometry and misc ---------------------------------------------------------------------
    @property
    def foreground_activity_name(self) -> str:
        return self.phone.foreground_activity()

    @property
    def device_screen_size(self) -> tuple[int, int]:
        return (self.width, self.height)

    @property
    def logical_screen_size(self) -> tuple[int, int]:
        return (self.width, self.height)

    @property
    def orientation(self) -> int:
        return 1 if self.profile.screen.landscape else 0

    @property
    def physical_frame_boundary(self) -> tuple[int, int, int, int]:
        return (0, 0, self.width, self.height)

    def hide_automation_ui(self) -> None:
        self._controller.put_setting("system", "pointer_location", "0")

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._controller.cleanup()
