"""Files (DocumentsUI) tasks, upstream `single/files.py`, plus the file helpers the Markor tasks share.

Upstream's validators `ls` the target folder: a deleted file must be gone, a moved file must be
in the destination and not in the source. As upstream, the 1-20 look-alike files seeded beside
the target are not checked. Oracles browse the Files UI from the storage root, scrolling lists
until the wanted row is on screen.
"""

from __future__ import annotations

import datetime
import difflib
import os
import random
import string
from collections.abc import Iterator
from typing import Any

from android_world.env import device, interface
from android_world.env.json_action import JSONAction
from android_world.task_evals import task_eval, upstream_pools
from android_world.task_evals.oracle_utils import done, scroll_and_tap, tap

STORAGE = device.EMULATOR_DATA

# Folders of a fresh emulator's shared storage, with file names typical of each (upstream's).
STORAGE_FOLDERS: dict[str, tuple[str, ...]] = upstream_pools.EMULATOR_DIRECTORIES

_ADJECTIVES = upstream_pools.FILE_NAME_ADJECTIVES
_NOUNS = upstream_pools.FILE_NAME_NOUNS
_TAGS = upstream_pools.FILE_NAME_TAGS
# Upstream's noise: 1..20 look-alike files beside the target.
NOISE_MIN, NOISE_MAX = 1, 20
_FIRST_DATE = datetime.date(2023, 1, 1)
_LAST_DATE = datetime.date(2023, 10, 14)


# ---- names and files ------------------------------------------------------------------------


def random_string(length: int) -> str:
    return "".join(random.choices(string.ascii_letters + string.digits, k=length))


def modified_name(base: str) -> str:
    """`base` with a date, a random code or a tag added before or after the stem.

    Drawn in upstream's order (kind, side, then the mark), so a seed draws upstream's name."""
    stem, ext = os.path.splitext(base)
    kind = random.choice(("date", "code", "tag"))
    as_prefix = random.choice((True, False))
    if kind == "date":
        day = _FIRST_DATE + datetime.timedelta(
            days=random.randint(0, (_LAST_DATE - _FIRST_DATE).days)
        )
        mark = day.strftime("%Y_%m_%d")
    elif kind == "code":
        mark = random_string(4)
    else:
        mark = random.choice(_TAGS)
    return f"{mark}_{stem}{ext}" if as_prefix else f"{stem}_{mark}{ext}"


def random_file_name() -> str:
    """An adjective_noun name with a modification, no extension (upstream's style)."""
    return modified_name(f"{random.choice(_ADJECTIVES)}_{random.choice(_NOUNS)}")


def noise_names(
    target: str, candidates: tuple[str, ...] | list[str], low: int, high: int
) -> list[str]:
    """Between `low` and `high` names that look like the target's neighbours, never the target."""
    wanted = random.randint(low, high)
    ext = "." + target.rsplit(".", 1)[1] if "." in target else ""
    names: set[str] = set()
    while len(names) < wanted:
        base = random.choice(candidates) if random.random() < 0.85 else target
        name = modified_name(base)
        if "." not in name:
            source = random.choice(candidates)
            name += ("." + source.rsplit(".", 1)[1]) if "." in source else ext
        if name != target:
            names.add(name)
    return sorted(names)


def fuzzy_match(a: str, b: str) -> bool:
    """Upstream's text check: difflib ratio >= 0.9, case-insensitive."""
    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio() >= 0.9


def clear_storage_files(controller: device.DeviceController, root: str = STORAGE) -> None:
    """Delete every file under `root`, keeping the folders (upstream's clear_internal_storage)."""
    for name in controller.list_dir(root):
        path = f"{root}/{name}"
        if controller.is_dir(path):
            clear_storage_files(controller, path)
        else:
            controller.remove(path)


def clear_folder(controller: device.DeviceController, folder: str) -> None:
    """Empty a folder entirely (files and subfolders), creating it if needed."""
    for name in controller.list_dir(folder):
        controller.remove(f"{folder}/{name}")
    controller.make_dirs(folder)


def make_storage_folders(controller: device.DeviceController) -> None:
    for folder in STORAGE_FOLDERS:
        controller.make_dirs(f"{STORAGE}/{folder}")


def file_content(name: str) -> bytes:
    return f"{name}\n".encode()


# ---- tasks ----------------------------------------------------------------------------------


class _FilesTask(task_eval.TaskEval):
    """Seeds a folder with a target file and noise files; cleans storage on tear down."""

    app_names = ("files",)
    folder_param = "subfolder"

    def _seed(self, env: interface.AsyncEnv, folder: str) -> None:
        controller = env.controller
        clear_storage_files(controller)
        make_storage_folders(controller)
        directory = f"{STORAGE}/{folder}"
        self.noise = noise_names(
            self.params["file_name"], self.params["noise_candidates"], NOISE_MIN, NOISE_MAX
        )
        for name in [self.params["file_name"], *self.noise]:
            controller.write_file(f"{directory}/{name}", file_content(name))
        controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_storage_files(env.controller)


class FilesDeleteFile(_FilesTask):
    """Delete one file among look-alikes in a storage folder (only the target is checked)."""

    complexity = 2.2
    schema = {
        "type": "object",
        "properties": {"file_name": {"type": "string"}, "subfolder": {"type": "string"}},
        "required": ["file_name"],
    }
    template = (
        "Delete the file {file_name} from the Android filesystem located in the"
        " {subfolder} folder within the sdk_gphone_x86_64 storage area."
    )
    difficulty = "medium"
    tags = ("data_edit", "parameterized")
    optimal_steps = 4

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        subfolder = random.choice(sorted(STORAGE_FOLDERS))
        candidates = list(STORAGE_FOLDERS[subfolder])
        ext = "." + candidates[0].rsplit(".", 1)[1]
        return {
            "file_name": random_file_name() + ext,
            "subfolder": subfolder,
            "noise_candidates": candidates,
        }

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        self._seed(env, self.params["subfolder"])

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        folder = f"{STORAGE}/{self.params['subfolder']}"
        return 0.0 if env.controller.exists(f"{folder}/{self.params['file_name']}") else 1.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield JSONAction(action_type="open_app", app_name="Files")
        yield from scroll_and_tap(env, self.params["subfolder"])
        yield from scroll_and_tap(env, self.params["file_name"], long=True)
        yield tap(env, desc="Delete")
        yield tap(env, text="OK")
        yield done()


class FilesMoveFile(_FilesTask):
    """Move one file from a storage folder to another (upstream picks its name from the destination's kind)."""

    complexity = 2
    schema = {
        "type": "object",
        "properties": {
            "file_name": {"type": "string"},
            "source_folder": {"type": "string"},
            "destination_folder": {"type": "string"},
        },
        "required": ["file_name", "source_folder", "destination_folder"],
    }
    template = (
        "Move the file {file_name} from {source_folder} within the"
        " sdk_gphone_x86_64 storage area to the {destination_folder} within the"
        " same sdk_gphone_x86_64 storage area in the Android filesystem."
    )
    difficulty = "medium"
    tags = ("search", "screen_reading", "parameterized")
    optimal_steps = 10

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        source = random.choice(sorted(STORAGE_FOLDERS))
        destination = random.choice([f for f in sorted(STORAGE_FOLDERS) if f != source])
        return {
            "file_name": random.choice(STORAGE_FOLDERS[destination]),
            "source_folder": source,
            "destination_folder": destination,
            "noise_candidates": list(STORAGE_FOLDERS[source]),
        }

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        self._seed(env, self.params["source_folder"])

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        name = self.params["file_name"]
        in_source = env.controller.exists(f"{STORAGE}/{self.params['source_folder']}/{name}")
        in_destination = env.controller.exists(
            f"{STORAGE}/{self.params['destination_folder']}/{name}"
        )
        return 1.0 if in_destination and not in_source else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield JSONAction(action_type="open_app", app_name="Files")
        yield from scroll_and_tap(env, self.params["source_folder"])
        yield from scroll_and_tap(env, self.params["file_name"], long=True)
        yield tap(env, desc="More options")
        yield tap(env, text="Move to…")
        yield from scroll_and_tap(env, self.params["destination_folder"])
        yield tap(env, text="Move")
        yield done()
