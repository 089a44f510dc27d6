"""Simple Draw Pro task, upstream `single/simple_draw_pro.py`.

Upstream checks with `ls` that a file of the drawn name is in Pictures. The name carries its
extension (.png, .svg or .jpg); Simple Draw adds the extension picked in its save dialog to the
name typed, so a solution types the name without it and picks the matching type. The oracle
draws a stroke, then saves through the app's dialog and folder picker.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from android_world.env import device, interface
from android_world.env.device_facts import simple_draw_pro as facts
from android_world.env.json_action import JSONAction
from android_world.task_evals import task_eval, upstream_pools
from android_world.task_evals.oracle_utils import (
    done,
    elements,
    find,
    hint_is,
    open_app,
    require,
    res_is,
    scroll_to,
    tap,
    text_is,
)
from android_world.task_evals.single.audio_recorder import CREATE_FILE_SCHEMA
from android_world.task_evals.single.files import clear_storage_files, random_file_name

PICTURES = device.PICTURES_DATA


class SimpleDrawProCreateDrawing(task_eval.TaskEval):
    app_names = ("simple draw pro",)
    complexity = 1.8
    schema = CREATE_FILE_SCHEMA
    template = (
        "Create a new drawing in Simple Draw Pro. Name it {file_name}. Save it in"
        " the Pictures folder within the sdk_gphone_x86_64 storage area."
    )
    difficulty = "easy"
    tags = ("data_entry", "parameterized")
    optimal_steps = 9

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        word = "".join(random.choices(upstream_pools.DRAWING_NAME_WORDS, k=1))
        stem = random_file_name()
        return {
            "file_name": f"{word}_{stem}{random.choice(upstream_pools.DRAWING_EXTENSIONS)}",
            "text": "",
        }

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_storage_files(env.controller)
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return 1.0 if env.controller.exists(f"{PICTURES}/{self.params['file_name']}") else 0.0

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_storage_files(env.controller)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        name, _, extension = self.params["file_name"].rpartition(".")
        yield open_app("Simple Draw Pro")
        canvas = require(env, res_is("my_canvas"), "the canvas")
        yield JSONAction(action_type="scroll", direction="down", index=canvas)  # a stroke
        yield tap(env, desc="Save")
        field = require(env, hint_is("Filename"), "the save dialog's file name")
        yield JSONAction(action_type="input_text", index=field, text=name, clear_text=True)
        if extension != facts.EXTENSIONS[0]:
            yield tap(env, text=extension.upper())
        yield tap(env, text=facts.STORAGE_NAME)  # the folder: opens the folder picker
        index = yield from scroll_to(
            env, text_is("Pictures"), "'Pictures'", container=res_is("pick_folders")
        )
        yield JSONAction(action_type="click", index=index)
        yield tap(env, text="OK")  # the picker: this folder
        if find(elements(env), text_is(f"{facts.STORAGE_NAME}/Pictures")) is None:
            raise RuntimeError("Oracle did not get the Pictures folder into the save dialog.")
        yield tap(env, text="OK")  # the save dialog
        yield done()
