"""System settings tasks (upstream `single/system.py` and `composite/system.py`).

Checks read the settings table through `env.controller` exactly as upstream reads `adb shell
settings get`: Wi-Fi is `global wifi_on` ('1' or '2' = on), Bluetooth `global bluetooth_on`,
brightness `system screen_brightness` (255 max, 1 min). Oracles walk the Settings UI as a user
would, reading the live element list before each action.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from android_world.env import interface
from android_world.env.json_action import JSONAction
from android_world.task_evals import oracle_utils, task_eval
from android_world.task_evals.oracle_utils import done, find, matching, set_switch, tap_through
from android_world.task_evals.single import open_app

_ON_OFF_SCHEMA = {
    "type": "object",
    "properties": {"on_or_off": {"type": "string", "enum": ["on", "off"]}},
    "required": ["on_or_off"],
}

WIFI_PATH = ("Network & internet", "Internet")
WIFI_SWITCH = "Wi-Fi"
BLUETOOTH_PATH = ("Connected devices", "Connection preferences", "Bluetooth")
BLUETOOTH_SWITCH = "Use Bluetooth"
DISPLAY_PATH = ("Display",)


# ---- device facts ---------------------------------------------------------------------------


def wifi_is_on(env: interface.AsyncEnv) -> bool:
    return (env.controller.get_setting("global", "wifi_on") or "").strip() in ("1", "2")


def set_wifi(env: interface.AsyncEnv, on: bool) -> None:
    env.controller.put_setting("global", "wifi_on", "1" if on else "0")


def bluetooth_is_on(env: interface.AsyncEnv) -> bool:
    return (env.controller.get_setting("global", "bluetooth_on") or "").strip() == "1"


def set_bluetooth(env: interface.AsyncEnv, on: bool) -> None:
    env.controller.put_setting("global", "bluetooth_on", "1" if on else "0")


def brightness(env: interface.AsyncEnv) -> int:
    return int((env.controller.get_setting("system", "screen_brightness") or "-1").strip())


def set_brightness(env: interface.AsyncEnv, max_or_min: str) -> None:
    env.controller.put_setting("system", "screen_brightness", "255" if max_or_min == "max" else "1")


def open_settings() -> JSONAction:
    return oracle_utils.open_app("Settings")


# ---- brightness -----------------------------------------------------------------------------


class _SystemBrightnessToggle(task_eval.TaskEval):
    """Set the brightness slider to an end; upstream checks 255 (max) or 1 (min)."""

    app_names = ("settings",)
    complexity = 1
    schema = {
        "type": "object",
        "properties": {"max_or_min": {"type": "string", "enum": ["max", "min"]}},
        "required": ["max_or_min"],
    }
    template = "Turn brightness to the {max_or_min} value."
    difficulty = "easy"
    optimal_steps = 3
    _start = "max"  # brightness at initialisation

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        set_brightness(env, self._start)
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        wanted = 255 if self.params["max_or_min"] == "max" else 1
        return 1.0 if brightness(env) == wanted else 0.0

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"max_or_min": random.choice(["max", "min"])}

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_settings()
        yield from tap_through(env, DISPLAY_PATH)
        elements = env.get_state().ui_elements
        index = find(elements, matching(class_suffix="SeekBar", desc="Brightness level"))
        if index is None:
            raise RuntimeError("Oracle could not find the brightness slider.")
        box = elements[index].bbox_pixels
        assert box is not None
        x = box.x_max - 1 if self.params["max_or_min"] == "max" else box.x_min
        yield JSONAction(action_type="click", x=int(x), y=int(box.center[1]))
        yield done()


class SystemBrightnessMax(_SystemBrightnessToggle):
    """Precondition: brightness at minimum."""

    _start = "min"

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"max_or_min": "max"}


class SystemBrightnessMin(_SystemBrightnessToggle):
    """Precondition: brightness at maximum."""

    _start = "max"

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"max_or_min": "min"}


class SystemBrightnessMaxVerify(_SystemBrightnessToggle):
    """Precondition: brightness already at maximum."""

    _start = "max"
    tags = ("verification",)
    optimal_steps = 2

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"max_or_min": "max"}


class SystemBrightnessMinVerify(_SystemBrightnessToggle):
    """Precondition: brightness already at minimum."""

    _start = "min"
    tags = ("verification",)

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"max_or_min": "min"}


# ---- Wi-Fi ----------------------------------------------------------------------------------


class _SystemWifiToggle(task_eval.TaskEval):
    """Turn Wi-Fi on or off; on is '1' or '2' (2 = on while in airplane mode), off is '0'."""

    app_names = ("settings",)
    complexity = 1
    schema = _ON_OFF_SCHEMA
    template = "Turn wifi {on_or_off}."
    difficulty = "easy"
    tags = ("screen_reading",)
    optimal_steps = 3
    _start_on = True

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        set_wifi(env, self._start_on)
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        status = (env.controller.get_setting("global", "wifi_on") or "").strip()
        if self.params["on_or_off"] == "on":
            return 1.0 if status in ("1", "2") else 0.0
        return 1.0 if status == "0" else 0.0

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"on_or_off": random.choice(["on", "off"])}

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_settings()
        yield from tap_through(env, WIFI_PATH)
        yield from set_switch(env, WIFI_SWITCH, self.params["on_or_off"] == "on")
        yield done()


class SystemWifiTurnOn(_SystemWifiToggle):
    """Precondition: Wi-Fi is off."""

    _start_on = False

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"on_or_off": "on"}


class SystemWifiTurnOff(_SystemWifiToggle):
    """Precondition: Wi-Fi is on."""

    _start_on = True

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"on_or_off": "off"}


class SystemWifiTurnOnVerify(_SystemWifiToggle):
    """Precondition: Wi-Fi is already on."""

    _start_on = True
    tags = ("verification",)

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"on_or_off": "on"}


class SystemWifiTurnOffVerify(_SystemWifiToggle):
    """Precondition: Wi-Fi is already off."""

    _start_on = False
    tags = ("verification",)

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"on_or_off": "off"}


# ---- Bluetooth ------------------------------------------------------------------------------


class _SystemBluetoothToggle(task_eval.TaskEval):
    """Turn Bluetooth on or off: `global bluetooth_on` must be '1' or '0'."""

    app_names = ("settings",)
    complexity = 1
    schema = _ON_OFF_SCHEMA
    template = "Turn bluetooth {on_or_off}."
    difficulty = "easy"
    optimal_steps = 2
    _start_on = True

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        set_bluetooth(env, self._start_on)
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        status = (env.controller.get_setting("global", "bluetooth_on") or "").strip()
        return 1.0 if status == ("1" if self.params["on_or_off"] == "on" else "0") else 0.0

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"on_or_off": random.choice(["on", "off"])}

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_settings()
        yield from tap_through(env, BLUETOOTH_PATH)
        yield from set_switch(env, BLUETOOTH_SWITCH, self.params["on_or_off"] == "on")
        yield done()


class SystemBluetoothTurnOn(_SystemBluetoothToggle):
    """Precondition: Bluetooth is off."""

    _start_on = False
    tags = ("screen_reading",)

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"on_or_off": "on"}


class SystemBluetoothTurnOff(_SystemBluetoothToggle):
    """Precondition: Bluetooth is on."""

    _start_on = True

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"on_or_off": "off"}


class SystemBluetoothTurnOnVerify(_SystemBluetoothToggle):
    """Precondition: Bluetooth is already on."""

    _start_on = True
    tags = ("verification",)

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"on_or_off": "on"}


class SystemBluetoothTurnOffVerify(_SystemBluetoothToggle):
    """Precondition: Bluetooth is already off."""

    _start_on = False
    tags = ("verification",)

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"on_or_off": "off"}


# ---- composites (upstream composite/system.py) ----------------------------------------------


class TurnOffWifiAndTurnOnBluetooth(task_eval.TaskEval):
    """Two settings in one goal; the score is the fraction done (0, 0.5 or 1)."""

    app_names = ("settings",)
    complexity = 2
    schema = {"type": "object", "properties": {}, "required": []}
    template = "Turn off WiFi, then enable bluetooth"
    difficulty = "medium"
    optimal_steps = 5

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        set_wifi(env, True)
        set_bluetooth(env, False)
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return ((not wifi_is_on(env)) + bluetooth_is_on(env)) / 2.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_settings()
        yield from tap_through(env, WIFI_PATH)
        yield from set_switch(env, WIFI_SWITCH, False)
        for _ in WIFI_PATH:
            yield JSONAction(action_type="navigate_back")
        yield from tap_through(env, BLUETOOTH_PATH)
        yield from set_switch(env, BLUETOOTH_SWITCH, True)
        yield done()


class TurnOnWifiAndOpenApp(task_eval.TaskEval):
    """Wi-Fi on, then an app in front; the score is the fraction done."""

    fidelity_notes = (
        "app pool lacks upstream's 'dialer' (OpenAppTaskEval's; no phone app): a draw of it is"
        " drawn again from the other four, so those draws are not upstream's",
    )
    app_names = ("settings",)
    complexity = 2
    schema = {
        "type": "object",
        "properties": {"app_name": {"type": "string"}},
        "required": ["app_name"],
    }
    template = "Turn on Wifi, then open the {app_name} app"
    difficulty = "easy"
    tags = ("parameterized",)
    optimal_steps = 4

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return open_app.OpenAppTaskEval.generate_random_params()

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        set_wifi(env, False)
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        app_open = open_app.foreground_is(env, self.params["app_name"])
        return (wifi_is_on(env) + app_open) / 2.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_settings()
        yield from tap_through(env, WIFI_PATH)
        yield from set_switch(env, WIFI_SWITCH, True)
        yield JSONAction(action_type="open_app", app_name=self.params["app_name"])
        yield done()
