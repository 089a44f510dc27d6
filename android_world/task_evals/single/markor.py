"""Markor tasks, upstream `single/markor.py`: notes and folders are files in the notebook.

Checks `ls`/`cat` `/storage/emulated/0/Documents/Markor` through the controller, as upstream's
file validators do: a created note must exist with text that fuzzy-matches (ratio >= 0.9), an
edited note must fuzzy-match the expected text, a deleted note must be gone (its look-alike
neighbours are not checked, as upstream). Oracles use the Markor UI, reading the screen.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from android_world.env import device, interface
from android_world.env.json_action import JSONAction
from android_world.task_evals import task_eval, upstream_pools
from android_world.task_evals.oracle_utils import (
    class_endswith,
    done,
    elements,
    find,
    hint_is,
    scroll_and_tap,
    tap,
    type_into,
)
from android_world.task_evals.single.files import (
    NOISE_MAX,
    NOISE_MIN,
    clear_folder,
    clear_storage_files,
    fuzzy_match,
    noise_names,
    random_file_name,
    random_string,
)

NOTEBOOK = device.MARKOR_DATA

# Upstream's look-alike note names and note texts.
NOTE_TITLES = upstream_pools.MARKOR_NOTE_TITLES
SENTENCES = upstream_pools.RANDOM_SENTENCES


def random_sentence() -> str:
    return random.choice(SENTENCES)


def open_markor() -> JSONAction:
    return JSONAction(action_type="open_app", app_name="Markor")


def editor_index(env: interface.AsyncEnv) -> int:
    index = find(elements(env), class_endswith("EditText"))
    if index is None:
        raise RuntimeError("Oracle could not find the note editor.")
    return index


def new_file_dialog(env: interface.AsyncEnv, name: str) -> Iterator[JSONAction]:
    """Open Markor's "New file" dialog and type the name (the caller picks OK or Folder)."""
    yield tap(env, desc="Create a new file or folder")
    yield type_into(env, hint_is("Name"), name, "the name field of the New file dialog")


class _MarkorTask(task_eval.TaskEval):
    """Every Markor task starts from an empty notebook and leaves one behind."""

    app_names = ("markor",)

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_folder(env.controller, NOTEBOOK)

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_folder(env.controller, NOTEBOOK)

    def _seed_noise(self, env: interface.AsyncEnv, target: str, low: int, high: int) -> list[str]:
        names = noise_names(target, NOTE_TITLES, low, high)
        for name in names:
            env.controller.write_text(f"{NOTEBOOK}/{name}", random_sentence())
        return names


class MarkorCreateNote(_MarkorTask):
    complexity = 1.6
    schema = {
        "type": "object",
        "properties": {"file_name": {"type": "string"}, "text": {"type": "string"}},
        "required": ["file_name", "text"],
    }
    template = "Create a new note in Markor named {file_name} with the following text: {text}"
    difficulty = "medium"
    tags = ("data_entry", "parameterized")
    optimal_steps = 8

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {
            "file_name": random_file_name() + random.choice((".md", ".txt")),
            "text": random_sentence(),
        }

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_storage_files(env.controller)
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        path = f"{NOTEBOOK}/{self.params['file_name']}"
        if not env.controller.exists(path):
            return 0.0
        content = env.controller.read_text(path).replace("\r", "").strip()
        return 1.0 if fuzzy_match(content, self.params["text"]) else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_markor()
        yield from new_file_dialog(env, self.params["file_name"])
        yield tap(env, text="OK")
        yield JSONAction(
            action_type="input_text", index=editor_index(env), text=self.params["text"]
        )
        yield tap(env, desc="Save")
        yield done()


class MarkorCreateFolder(_MarkorTask):
    complexity = 1
    fidelity_notes = (
        "folder name: folder_<stamp> drawn from the seeded random, not upstream's host wall clock,"
        " so a seed always gives the same goal",
    )
    schema = {
        "type": "object",
        "properties": {"folder_name": {"type": "string"}},
        "required": ["folder_name"],
    }
    template = "Create a new folder in Markor named {folder_name}."
    difficulty = "easy"
    tags = ("data_entry", "parameterized")
    optimal_steps = 4

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        stamp = f"2023{random.randint(1, 12):02d}{random.randint(1, 28):02d}_{random.randint(0, 23):02d}{random.randint(0, 59):02d}{random.randint(0, 59):02d}"
        return {"folder_name": f"folder_{stamp}"}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        self._seed_noise(env, "file", NOISE_MIN, NOISE_MAX)
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return 1.0 if env.controller.exists(f"{NOTEBOOK}/{self.params['folder_name']}") else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_markor()
        yield from new_file_dialog(env, self.params["folder_name"])
        yield tap(env, text="Folder")
        yield done()


class MarkorDeleteNote(_MarkorTask):
    """The note sits among 1-20 look-alikes; only the note itself is checked (upstream's rule)."""

    complexity = 1
    schema = {
        "type": "object",
        "properties": {"file_name": {"type": "string"}, "subfolder": {"type": "string"}},
        "required": ["file_name"],
    }
    template = "Delete the note in Markor named {file_name}."
    difficulty = "easy"
    tags = ("data_edit", "requires_setup", "parameterized")
    optimal_steps = 5

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"file_name": random_file_name(), "noise_candidates": list(NOTE_TITLES)}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        env.controller.write_text(f"{NOTEBOOK}/{self.params['file_name']}", random_sentence())
        self.noise = self._seed_noise(env, self.params["file_name"], NOISE_MIN, NOISE_MAX)
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return 0.0 if env.controller.exists(f"{NOTEBOOK}/{self.params['file_name']}") else 1.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_markor()
        yield from scroll_and_tap(env, self.params["file_name"], long=True)
        yield tap(env, desc="Delete")
        yield tap(env, text="OK")
        yield done()


_EDIT_TEMPLATES = {
    "header": "Edit {file_name} in Markor. Add to the top of the note {header}",
    "footer": "Edit {file_name} in Markor. Add to the bottom of the note {footer}",
    "replace": "Edit {file_name} in Markor. Replace the text with {replace_text}",
}


class MarkorEditNote(_MarkorTask):
    """Add a header or footer line to a note, or replace its text (upstream's three variants)."""

    complexity = 1.2
    schema = {
        "type": "object",
        "properties": {
            "file_name": {"type": "string"},
            "header": {"type": "string"},
            "footer": {"type": "string"},
            "replace_text": {"type": "string"},
            "edit_type": {"type": "string", "enum": ["header", "footer", "replace"]},
        },
        "required": ["file_name", "edit_type"],
    }
    difficulty = "easy"
    tags = ("data_edit", "transcription", "parameterized")
    optimal_steps = 4

    @property
    def template(self) -> str:  # type: ignore[override]
        return _EDIT_TEMPLATES.get(
            self.params.get("edit_type", ""), "Invalid edit_type for {file_name} in Markor."
        )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        file_name = f"note_{random_string(5)}{random.choice(('.md', '.txt'))}"
        edit_type = random.choice(("header", "footer", "replace"))  # upstream's order
        params: dict[str, Any] = {"file_name": file_name, "edit_type": edit_type}
        if edit_type == "replace":
            params["replace_text"] = "\n".join(random_sentence() for _ in range(3))
        else:
            params[edit_type] = random_sentence()
        return params

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        self._seed_noise(env, self.params["file_name"], NOISE_MIN, NOISE_MAX)
        self.original_content = random_sentence()
        env.controller.write_text(f"{NOTEBOOK}/{self.params['file_name']}", self.original_content)
        env.controller.close_recents()

    def expected_content(self) -> str:
        edit_type = self.params["edit_type"]
        if edit_type == "header":
            return self.params["header"] + "\n" + self.original_content
        if edit_type == "footer":
            return self.original_content + "\n" + self.params["footer"]
        return self.params["replace_text"]

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        path = f"{NOTEBOOK}/{self.params['file_name']}"
        if not env.controller.exists(path):
            return 0.0
        content = env.controller.read_text(path).replace("\r", "").strip()
        return 1.0 if fuzzy_match(content, self.expected_content()) else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_markor()
        yield from scroll_and_tap(env, self.params["file_name"])
        index = editor_index(env)
        shown = (env.get_state().ui_elements[index].text or "").strip()
        edit_type = self.params["edit_type"]
        if edit_type == "header":
            action = JSONAction(
                action_type="input_text",
                index=index,
                text=f"{self.params['header']}\n{shown}",
                clear_text=True,
            )
        elif edit_type == "footer":
            action = JSONAction(
                action_type="input_text", index=index, text=f"\n{self.params['footer']}"
            )
        else:
            action = JSONAction(
                action_type="input_text",
                index=index,
                text=self.params["replace_text"],
                clear_text=True,
            )
        yield action
        yield tap(env, desc="Save")
        yield done()
