"""More of upstream's Markor tasks (`single/markor.py`): newest note, delete all, move, rename
with an edit, paste from the clipboard, merge three notes.

Facts follow upstream: notes are files in the notebook, created as `echo` creates them (the
content and a newline); checks `ls`/`cat`/`stat` the notebook through the controller. A note's
"change time" is its modified time, which the sim stamps with the phone's clock, so seeding
notes while advancing the clock (as upstream does) spreads their times. Oracles read the
Markor screen only: names and modified times from the list, note text from the editor.
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Iterator
from typing import Any

from android_world.env import interface
from android_world.env.json_action import JSONAction
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.single.files import (
    clear_storage_files,
    fuzzy_match,
    noise_names,
    random_file_name,
    random_string,
)
from android_world.task_evals.single.markor import (
    NOTE_TITLES,
    NOTEBOOK,
    _MarkorTask,
    editor_index,
    open_markor,
    random_sentence,
)

# Upstream's MarkorMoveNote folder pool.
SUBFOLDERS = (
    "BookNotes",
    "CodeSnippets",
    "DailyNotes",
    "FitnessPlans",
    "MeetingMinutes",
    "PersonalJournal",
    "RecipeCollections",
    "StudyGuides",
    "TravelItineraries",
    "WorkProjects",
)

# What the Markor list shows under a note's name: "Oct 15, 2023 15:34, 40 bytes".
ROW_TIME_FORMAT = "%b %d, %Y %H:%M"


def random_note() -> tuple[str, str]:
    """Upstream's `_generate_random_note()`: (a modified adjective_noun with .md or .txt, a
    sentence)."""
    name = random_file_name() + random.choice((".md", ".txt"))
    return name, random_sentence()


def random_note_name() -> str:
    """Upstream's `_generate_random_note().name`: its sentence is drawn too (and dropped), as
    upstream does, so a seed draws upstream's names."""
    return random_note()[0]


def echo_to(env: interface.AsyncEnv, path: str, content: str = "") -> str:
    """Upstream's `file_utils.create_file`: `echo '<content>' > path` (20 random characters when
    no content is given), so the file holds the content and a newline. Returns the content."""
    content = content or random_string(20)
    env.controller.write_text(path, content + "\n")
    return content


def regular_files(env: interface.AsyncEnv, folder: str = NOTEBOOK) -> list[tuple[str, float]]:
    """(name, modified time) of the regular files directly in `folder`, oldest first (upstream's
    `get_file_list_with_metadata`, sorted by change time)."""
    controller = env.controller
    found = [
        (name, controller.modified_time(f"{folder}/{name}").timestamp())
        for name in controller.list_dir(folder)
        if not controller.is_dir(f"{folder}/{name}")
    ]
    return sorted(found, key=lambda item: (item[1], item[0]))


def read_note(env: interface.AsyncEnv, name: str, folder: str = NOTEBOOK) -> str | None:
    """What `cat` prints, carriage returns dropped; None if the note is missing."""
    path = f"{folder}/{name}"
    if not env.controller.exists(path) or env.controller.is_dir(path):
        return None
    return env.controller.read_text(path).replace("\r", "")


# ---- oracle helpers (screen only) ------------------------------------------------------------


def _row_reach(title: ui.Element) -> int:
    """How far from a row's title its other texts sit: a line and a half of the title, so the
    rows are read alike at every screen density."""
    box = title.bbox_pixels
    return int(1.5 * (box.y_max - box.y_min)) if box is not None else 60


def note_rows(env: interface.AsyncEnv) -> list[tuple[int, str, str]]:
    """(index of the title, name, summary) of every note row fully on screen."""
    items = ui.elements(env)
    rows = []
    for i, element in enumerate(items):
        if element.resource_name != "android:id/title" or not ui.visible(element):
            continue
        below = [
            e
            for e in ui.row_texts_near(items, element, tolerance=_row_reach(element))
            if e.resource_name == "android:id/summary"
        ]
        if below:
            rows.append((i, element.text or "", below[0].text or ""))
    return rows


def row_time(summary: str) -> datetime.datetime | None:
    """The modified time in a note row's summary, None for folders (date only)."""
    try:
        return datetime.datetime.strptime(summary.rsplit(", ", 1)[0], ROW_TIME_FORMAT)
    except ValueError:
        return None


def select_note(env: interface.AsyncEnv, name: str) -> Iterator[JSONAction]:
    """Scroll to a note and long-press it (Markor's selection mode)."""
    index = yield from ui.scroll_to(env, ui.text_is(name), repr(name))
    yield JSONAction(action_type="long_press", index=index)


def rename_selected(env: interface.AsyncEnv, new_name: str) -> Iterator[JSONAction]:
    yield ui.tap(env, desc="More options")
    yield ui.tap(env, text="Rename")
    field = ui.require(env, ui.hint_is("Name"), "the Rename dialog's name field")
    yield JSONAction(action_type="input_text", index=field, text=new_name, clear_text=True)
    yield ui.tap(env, text="OK")


def replace_editor_text(env: interface.AsyncEnv, text: str) -> JSONAction:
    """Clear the note and type `text`; the Enter that input_text adds ends it with a newline."""
    return JSONAction(action_type="input_text", index=editor_index(env), text=text, clear_text=True)


def editor_text(env: interface.AsyncEnv) -> str:
    return ui.elements(env)[editor_index(env)].text or ""


# ---- tasks -----------------------------------------------------------------------------------


class MarkorDeleteNewestNote(_MarkorTask):
    """2-6 notes written while the clock jumps -500..+500 minutes between them; the one with
    the latest modified time must go, and the others must keep their names and times."""

    complexity = 1
    difficulty = "easy"
    tags = ("data_edit", "parameterized")
    optimal_steps = 4
    fidelity_notes = (
        "a clock jump that lands on a time already used is drawn again (the sim clock moves in"
        " whole minutes; upstream's running clock never repeats a time)",
        "on adb, files are pushed with the host's time, not stamped by the device clock",
    )
    schema: dict[str, Any] = {}
    template = "Delete the newest note in Markor."

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        controller = env.controller
        used_times: set[datetime.datetime] = set()
        for _ in range(random.randint(2, 6)):
            echo_to(env, f"{NOTEBOOK}/{random_note_name()}", random_sentence())
            used_times.add(controller.device_time())
            # Sim only: the clock moves in whole minutes, so a jump back onto a time already
            # used would tie two notes (upstream's real clock never repeats a time).
            while True:
                moved = controller.device_time() + datetime.timedelta(
                    minutes=random.randint(-500, 500)
                )
                if moved not in used_times:
                    break
            controller.set_device_time(moved)
        self.initial = regular_files(env)
        controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        now = regular_files(env)
        if len(now) != len(self.initial) - 1:
            return 0.0
        return 1.0 if now == self.initial[: len(now)] else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_markor()
        # Newest first: the newest note may be anywhere in a list longer than the screen (a
        # landscape phone shows two or three rows).
        yield ui.tap(env, desc="Sort by")
        yield ui.tap(env, text="Date modified")
        dated = [(row_time(summary), i) for i, _, summary in note_rows(env)]
        dated = [(when, i) for when, i in dated if when is not None]
        if not dated:
            raise RuntimeError("Oracle found no notes with a modified time on screen.")
        yield JSONAction(action_type="long_press", index=max(dated)[1])
        yield ui.tap(env, desc="Delete")
        yield ui.tap(env, text="OK")
        yield ui.done()


class MarkorDeleteAllNotes(_MarkorTask):
    complexity = 1.4
    difficulty = "easy"
    tags = ("data_edit", "repetition", "parameterized")
    optimal_steps = 7
    schema: dict[str, Any] = {}
    template = "Delete all my notes in Markor."

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        # Upstream: noise files around a random 5-character name, at most randint(2, 6) of them.
        for name in noise_names(random_string(5), NOTE_TITLES, 1, random.randint(2, 6)):
            echo_to(env, f"{NOTEBOOK}/{name}")
        if not regular_files(env):
            raise RuntimeError("MarkorDeleteAllNotes: no note was created.")
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return 0.0 if regular_files(env) else 1.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_markor()
        rows = note_rows(env)
        if not rows:
            raise RuntimeError("Oracle found no notes on screen.")
        yield JSONAction(action_type="long_press", index=rows[0][0])
        yield ui.tap(env, desc="Select all")
        yield ui.tap(env, desc="Delete")
        yield ui.tap(env, text="OK")
        yield ui.done()


class MarkorMoveNote(_MarkorTask):
    """Upstream's `MoveFile` in the notebook: the note (among 1-20 look-alikes) must be in the
    destination folder and no longer in the source folder."""

    complexity = 1.4
    difficulty = "medium"
    tags = ("parameterized", "complex_ui_understanding")
    optimal_steps = 7
    schema = {
        "type": "object",
        "properties": {
            "file_name": {"type": "string"},
            "source_folder": {"type": "string"},
            "destination_folder": {"type": "string"},
        },
        "required": ["file_name", "source_folder", "destination_folder"],
    }
    template = "In Markor, move the note {file_name} from {source_folder} to {destination_folder}."

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        source = random.choice(SUBFOLDERS)
        destination = random.choice([f for f in SUBFOLDERS if f != source])
        return {
            "file_name": random_note_name(),
            "source_folder": source,
            "destination_folder": destination,
            "noise_candidates": list(NOTE_TITLES),
        }

    def _path(self, which: str) -> str:
        return f"{NOTEBOOK}/{self.params[which]}/{self.params['file_name']}"

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_storage_files(env.controller)
        source = f"{NOTEBOOK}/{self.params['source_folder']}"
        candidates = self.params.get("noise_candidates") or list(NOTE_TITLES)
        for name in noise_names(self.params["file_name"], candidates, 1, 20):
            echo_to(env, f"{source}/{name}")
        echo_to(env, self._path("source_folder"))
        env.controller.make_dirs(f"{NOTEBOOK}/{self.params['destination_folder']}")
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        moved = env.controller.exists(self._path("destination_folder"))
        left = env.controller.exists(self._path("source_folder"))
        return 1.0 if moved and not left else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_markor()
        yield from ui.scroll_and_tap(env, self.params["source_folder"])
        yield from select_note(env, self.params["file_name"])
        yield ui.tap(env, desc="More options")
        yield ui.tap(env, text="Move")
        yield ui.tap(env, text=self.params["destination_folder"])
        yield ui.tap(env, text="OK")
        yield ui.done()


class MarkorCreateNoteFromClipboard(_MarkorTask):
    app_names = ("markor", "clipper")
    complexity = 1.4
    difficulty = "medium"
    tags = ("data_entry", "parameterized")
    optimal_steps = 7
    schema = {
        "type": "object",
        "properties": {"file_name": {"type": "string"}, "file_content": {"type": "string"}},
        "required": ["file_name", "file_content"],
    }
    template = (
        "Create a note in Markor named {file_name}. Perform a paste operation in the note and "
        "save the note."
    )

    def __init__(self, params: dict[str, Any]):
        if not params.get("file_content"):
            params["file_content"] = random_string(20)
        super().__init__(params)

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"file_name": random_note_name(), "file_content": random_string(10)}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        env.controller.set_clipboard(self.params["file_content"])
        if env.controller.get_clipboard() != self.params["file_content"]:
            raise RuntimeError("MarkorCreateNoteFromClipboard: the clipboard was not set.")
        clear_storage_files(env.controller)
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        content = read_note(env, self.params["file_name"])
        if content is None:
            return 0.0
        return 1.0 if fuzzy_match(content.strip(), self.params["file_content"]) else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_markor()
        yield ui.tap(env, desc="Create a new file or folder")
        yield ui.type_into(env, ui.hint_is("Name"), self.params["file_name"], "the name field")
        yield ui.tap(env, text="OK")
        yield JSONAction(action_type="long_press", index=editor_index(env))
        yield ui.tap(env, text="Paste")
        yield ui.tap(env, desc="Save")
        yield ui.done()


class MarkorMergeNotes(_MarkorTask):
    """Three notes of 20 random characters; the new note must hold them in order, separated by
    blank lines (after stripping: exactly five lines, the 2nd and 4th empty)."""

    complexity = 7.8
    difficulty = "hard"
    tags = ("data_edit", "data_entry", "parameterized")
    optimal_steps = 39
    fidelity_notes = (
        "the three note names are drawn distinct, so no seeded note overwrites another",
    )
    schema = {
        "type": "object",
        "properties": {
            key: {"type": "string"}
            for key in (
                "file1_name",
                "file2_name",
                "file3_name",
                "new_file_name",
                "file1_content",
                "file2_content",
                "file3_content",
            )
        },
        "required": [
            "file1_name",
            "file2_name",
            "file3_name",
            "new_file_name",
            "file1_content",
            "file2_content",
            "file3_content",
        ],
    }
    template = (
        "Merge the contents of Markor notes {file1_name}, {file2_name} and {file3_name} (in "
        "the same order) into a new Markor note named {new_file_name} and save it. Add a new "
        "line between the content of each note."
    )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        names: list[str] = []
        while len(names) < 3:  # distinct, so no note overwrites another
            name = random_note_name()
            if name not in names:
                names.append(name)
        return {
            "file1_name": names[0],
            "file2_name": names[1],
            "file3_name": names[2],
            "new_file_name": random_string(8),
            "file1_content": random_string(20),
            "file2_content": random_string(20),
            "file3_content": random_string(20),
        }

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_storage_files(env.controller)
        for i in (1, 2, 3):
            echo_to(
                env, f"{NOTEBOOK}/{self.params[f'file{i}_name']}", self.params[f"file{i}_content"]
            )
        env.controller.close_recents()

    def expected(self) -> str:
        parts = [self.params[f"file{i}_content"] for i in (1, 2, 3)]
        return "\n\n".join(parts) + "\n"

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        content = read_note(env, self.params["new_file_name"])
        if content is None or not fuzzy_match(content.strip(), self.expected()):
            return 0.0
        lines = content.strip().split("\n")
        return 1.0 if len(lines) == 5 and not lines[1] and not lines[3] else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_markor()
        texts = []
        for i in (1, 2, 3):
            yield from ui.scroll_and_tap(env, self.params[f"file{i}_name"])
            texts.append(editor_text(env).strip())
            yield ui.tap(env, desc="Navigate up")
        yield ui.tap(env, desc="Create a new file or folder")
        yield ui.type_into(env, ui.hint_is("Name"), self.params["new_file_name"], "the name field")
        # The note is named exactly as asked: delete the extension Markor would append.
        ext = ui.require(env, ui.hint_is("Extension"), "the Extension field")
        suffix = ui.elements(env)[ext].text or ""
        if suffix:
            yield JSONAction(action_type="click", index=ext)
            for _ in suffix:
                yield ui.tap(env, desc="Delete")
        yield ui.tap(env, text="OK")
        yield replace_editor_text(env, "\n\n".join(texts))
        yield ui.tap(env, desc="Save")
        yield ui.done()


class _MarkorEditAndRename(_MarkorTask):
    """Edit a note's text and rename it. Set-up writes the note (params["original_content"],
    if any) and 20 noise notes; the old name must be gone and the renamed note must hold what
    `renamed_ok` wants. The oracle edits in the editor (`edited_text`), then renames."""

    fidelity_notes = ("no noise note is given the new name (upstream could, by chance)",)

    def renamed_ok(self, content: str | None) -> bool:
        """Whether the renamed note's text (None: no such note) is what the goal asked for."""
        raise NotImplementedError

    def edited_text(self, env: interface.AsyncEnv) -> str:
        """The text the oracle types over the open note's."""
        raise NotImplementedError

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        original = self.params["original_name"]
        echo_to(env, f"{NOTEBOOK}/{original}", self.params.get("original_content", ""))
        for name in noise_names(original, NOTE_TITLES, 1, 20):
            if name != self.params["new_name"]:
                echo_to(env, f"{NOTEBOOK}/{name}")
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        if env.controller.exists(f"{NOTEBOOK}/{self.params['original_name']}"):
            return 0.0
        return 1.0 if self.renamed_ok(read_note(env, self.params["new_name"])) else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_markor()
        yield from ui.scroll_and_tap(env, self.params["original_name"])
        yield replace_editor_text(env, self.edited_text(env))
        yield ui.tap(env, desc="Navigate up")  # leaving the editor saves the note
        yield from select_note(env, self.params["original_name"])
        yield from rename_selected(env, self.params["new_name"])
        yield ui.done()


class MarkorChangeNoteContent(_MarkorEditAndRename):
    """Replace a note's text and rename it; the old name must be gone, the new one must hold
    the new text (fuzzy)."""

    complexity = 1.2
    difficulty = "medium"
    tags = ("data_entry", "requires_setup", "parameterized")
    optimal_steps = 5
    schema = {
        "type": "object",
        "properties": {
            "original_name": {"type": "string"},
            "new_name": {"type": "string"},
            "updated_content": {"type": "string"},
        },
        "required": ["original_name", "new_name", "updated_content"],
    }
    template = (
        'Update the content of {original_name} to "{updated_content}" in Markor and change its '
        "name to {new_name}."
    )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {
            "original_name": random_note_name(),
            "new_name": random_note_name(),
            "updated_content": random_string(20),
        }

    def renamed_ok(self, content: str | None) -> bool:
        return content is not None and fuzzy_match(content.strip(), self.params["updated_content"])

    def edited_text(self, env: interface.AsyncEnv) -> str:
        return self.params["updated_content"]


class MarkorAddNoteHeader(_MarkorEditAndRename):
    """Put a line and a blank line above a note's text and rename it; the renamed note must be
    exactly `header`, a blank line, the original text and a newline."""

    complexity = 1.2
    difficulty = "medium"
    tags = ("data_entry", "parameterized")
    optimal_steps = 6
    schema = {
        "type": "object",
        "properties": {
            "original_name": {"type": "string"},
            "new_name": {"type": "string"},
            "header": {"type": "string"},
            "original_content": {"type": "string"},
        },
        "required": ["original_name", "new_name", "header", "original_content"],
    }
    template = (
        "Update the Markor note {original_name} by adding the following text, along with a new "
        'blank line before the existing content: "{header}", and rename it to {new_name}.'
    )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {
            "original_name": random_note_name(),
            "original_content": random_sentence(),
            "new_name": random_note_name(),
            "header": random_string(20),
        }

    def renamed_ok(self, content: str | None) -> bool:
        return content == f"{self.params['header']}\n\n{self.params['original_content']}\n"

    def edited_text(self, env: interface.AsyncEnv) -> str:
        shown = editor_text(env).rstrip("\n")  # the note as the editor shows it
        return f"{self.params['header']}\n\n{shown}"
