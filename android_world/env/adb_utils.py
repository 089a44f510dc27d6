"""Upstream AndroidWorld's `env/adb_utils` functions that agents call, on this harness's envs.

Upstream's agents pass `env.controller` (upstream's AndroidEnv) to these functions. Here a
controller knows the env that owns it (`owner_env`), so the same calls work on the simulated phone
and on a device over adb. Only what agents use is provided; device set-up lives in `env/adb/`.
"""

from __future__ import annotations

from typing import Any

from android_world.env import interface, json_action


def owning_env(env: Any) -> interface.AsyncEnv:
    """The AsyncEnv behind `env`: the env itself, or the env a controller belongs to."""
    if isinstance(env, interface.AsyncEnv):
        return env
    owner = getattr(env, "owner_env", None)
    if owner is not None:
        return owner
    raise TypeError(
        f"{type(env).__name__} is neither an AsyncEnv nor the controller of one "
        "(pass env or env.controller of a harness env)"
    )


def get_orientation(env: Any) -> int:
    """0 portrait, 1 landscape, 2 reverse portrait, 3 reverse landscape (upstream's convention)."""
    return int(owning_env(env).orientation)


def get_physical_frame_boundary(env: Any) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) of the physical display in portrait coordinates."""
    left, top, right, bottom = owning_env(env).physical_frame_boundary
    return int(left), int(top), int(right), int(bottom)


def get_logical_screen_size(env: Any) -> tuple[int, int]:
    width, height = owning_env(env).logical_screen_size
    return int(width), int(height)


def get_current_activity(env: Any) -> tuple[str | None, str | None]:
    """(activity, package)-like pair as upstream returns it; the package may be None."""
    activity = owning_env(env).foreground_activity_name or None
    package = activity.split("/", 1)[0] if activity and "/" in activity else None
    return activity, package


def press_home_button(env: Any) -> None:
    owning_env(env).execute_action(json_action.JSONAction(action_type=json_action.NAVIGATE_HOME))


def press_back_button(env: Any) -> None:
    owning_env(env).execute_action(json_action.JSONAction(action_type=json_action.NAVIGATE_BACK))


def press_enter_button(env: Any) -> None:
    owning_env(env).execute_action(json_action.JSONAction(action_type=json_action.KEYBOARD_ENTER))


def tap_screen(x: int, y: int, env: Any) -> None:
    owning_env(env).execute_action(json_action.JSONAction(action_type="click", x=int(x), y=int(y)))


def type_text(text: str, env: Any, timeout_sec: float | None = None) -> None:
    """Types into the focused field, as upstream's `adb shell input text` does."""
    del timeout_sec
    owning_env(env).execute_action(json_action.JSONAction(action_type="input_text", text=text))


def launch_app(app_name: str, env: Any) -> str | None:
    """Opens `app_name`; returns the name, or None when the env knows no such app."""
    try:
        owning_env(env).execute_action(
            json_action.JSONAction(action_type=json_action.OPEN_APP, app_name=app_name)
        )
    except ValueError:
        return None
    return app_name
