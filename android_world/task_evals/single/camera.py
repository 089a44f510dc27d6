"""Camera tasks, upstream `single/camera.py`: exactly one new picture must appear.

Upstream lists the photos folder before and after; the simulated camera (like camera2 on a
device) writes to `DCIM/Camera`, where photos are the `.jpg` files.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from android_world.env import device, interface
from android_world.env.json_action import JSONAction
from android_world.task_evals import task_eval
from android_world.task_evals.oracle_utils import done, tap
from android_world.task_evals.single.files import clear_folder

CAMERA_DIR = device.CAMERA_DATA


def photos(env: interface.AsyncEnv) -> set[str]:
    return {
        name
        for name in env.controller.list_dir(CAMERA_DIR)
        if name.lower().endswith((".jpg", ".jpeg"))
    }


class _CameraTask(task_eval.TaskEval):
    app_names = ("camera",)

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_folder(env.controller, CAMERA_DIR)
        env.controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_folder(env.controller, CAMERA_DIR)


class CameraTakePhoto(_CameraTask):
    complexity = 1
    fidelity_notes = (
        "photos folder: DCIM/Camera, where the sim camera writes, not upstream's /sdcard/Pictures;"
        " only .jpg files count there, so a video (same folder here) is not a photo",
    )
    schema: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
    template = "Take one photo."
    difficulty = "easy"
    optimal_steps = 2

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        self.before = photos(env)

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return 1.0 if len(photos(env) - self.before) == 1 else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield JSONAction(action_type="open_app", app_name="Camera")
        yield tap(env, desc="Shutter")
        yield done()


# ---- more of upstream's camera tasks (issue 15) ---------------------------------------------

VIDEO_EXTENSIONS = (".mp4", ".3gp", ".webm", ".mkv")
# Upstream lists /sdcard/Movies; camera2 on a device (and the sim) writes to DCIM/Camera.
VIDEO_DIRS = (CAMERA_DIR, f"{device.EMULATOR_DATA}/Movies")


def videos(env: interface.AsyncEnv) -> set[str]:
    return {
        f"{folder}/{name}"
        for folder in VIDEO_DIRS
        for name in env.controller.list_dir(folder)
        if name.lower().endswith(VIDEO_EXTENSIONS)
    }


class CameraTakeVideo(_CameraTask):
    """Exactly one new video must appear (a photo does not count)."""

    complexity = 1
    fidelity_notes = (
        "videos folder: DCIM/Camera (where the sim camera writes) and Movies (upstream's), video"
        " files only, so a photo in the same folder is not a video",
    )
    schema: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
    template = "Take one video."
    difficulty = "medium"
    optimal_steps = 3

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        self.before_videos = videos(env)

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return 1.0 if len(videos(env) - self.before_videos) == 1 else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield JSONAction(action_type="open_app", app_name="Camera")
        yield tap(env, desc="Video")
        yield tap(env, desc="Shutter")
        yield tap(env, desc="Stop")
        yield done()
