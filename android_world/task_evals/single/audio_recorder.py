"""Audio Recorder tasks, upstream `single/audio_recorder.py`.

Upstream checks the recorder's folder with `ls`: RecordAudio passes when exactly one non-empty
file is new or changed (name, size, time) since the task began; RecordAudioWithFileName when
`<file_name>.m4a` is in the folder. The drawn file name already ends in ".m4a" and the app adds
its extension to the name typed, so typing the name as the goal gives it yields
`<file_name>.m4a`: the file upstream looks for. Oracles use the app's record, stop and rename
buttons.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

from android_world.env import device, interface
from android_world.env.device_facts import audio_recorder as facts
from android_world.env.json_action import JSONAction
from android_world.task_evals import task_eval, upstream_pools
from android_world.task_evals.oracle_utils import done, hint_is, open_app, require, tap
from android_world.task_evals.single.files import clear_folder, clear_storage_files, modified_name

RECORDS = facts.RECORDS_DIR
CREATE_FILE_SCHEMA = {
    "type": "object",
    "properties": {"file_name": {"type": "string"}, "text": {"type": "string"}},
    "required": ["file_name", "text"],
}


@dataclasses.dataclass(frozen=True)
class ListedFile:
    """A regular file as `ls -l` lists it: what upstream compares before and after."""

    name: str
    size: int
    changed: float


def list_files(controller: device.DeviceController, folder: str) -> list[ListedFile]:
    if not controller.is_dir(folder):
        raise RuntimeError(
            f"Failed to inspect recordings directory, {folder}, for the Audio Recorder task. "
            "Check that the Audio Recorder app is installed."
        )
    found = []
    for name in controller.list_dir(folder):
        path = f"{folder}/{name}"
        if not controller.is_dir(path):
            found.append(
                ListedFile(
                    name,
                    len(controller.read_file(path)),
                    controller.modified_time(path).timestamp(),
                )
            )
    return found


def record_and_stop(env: interface.AsyncEnv) -> Iterator[JSONAction]:
    yield open_app("Audio Recorder")
    yield tap(env, desc="Record")
    yield tap(env, desc="Stop")


class _AudioRecorderTask(task_eval.TaskEval):
    app_names = ("audio recorder",)


class AudioRecorderRecordAudio(_AudioRecorderTask):
    complexity = 1.2
    schema = {"type": "object", "properties": {}, "required": []}
    template = "Record an audio clip using Audio Recorder app and save it."
    difficulty = "easy"
    tags = ("requires_setup",)
    optimal_steps = 6
    fidelity_notes = (
        "check: a file counts as changed by its name, size and modified time (upstream's `ls`"
        " lists access times); the sim's frozen clock stamps every write alike, so only a"
        " re-recording of the same name and size would slip through, which the app never writes",
    )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        self.before = list_files(env.controller, RECORDS)

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        after = [f for f in list_files(env.controller, RECORDS) if f.size > 0]
        changed = [f.name for f in after if f not in self.before]
        return 1.0 if len(changed) == 1 else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from record_and_stop(env)
        yield done()


class AudioRecorderRecordAudioWithFileName(_AudioRecorderTask):
    complexity = 2
    schema = CREATE_FILE_SCHEMA
    template = 'Record an audio clip and save it with name "{file_name}" using Audio Recorder app.'
    difficulty = "easy"
    tags = ("data_entry", "complex_ui_understanding", "parameterized")
    optimal_steps = 10

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        base = random.choice(upstream_pools.AUDIO_RECORDING_NAMES)
        return {"file_name": modified_name(base + facts.EXTENSION), "text": ""}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_storage_files(env.controller)
        clear_folder(env.controller, RECORDS)

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        wanted = f"{RECORDS}/{self.params['file_name']}{facts.EXTENSION}"
        return 1.0 if env.controller.exists(wanted) else 0.0

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_storage_files(env.controller)
        clear_folder(env.controller, RECORDS)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from record_and_stop(env)
        yield tap(env, desc="Rename")

        field = require(env, hint_is("Name"), "the rename dialog's name field")
        yield JSONAction(
            action_type="input_text", index=field, text=self.params["file_name"], clear_text=True
        )
        yield tap(env, text="OK")
        yield done()
