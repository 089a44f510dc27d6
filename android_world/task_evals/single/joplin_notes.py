"""Joplin questions (upstream's information-retrieval `Notes*` templates).

As upstream builds them from `tasks.textproto` and `joplin_app_utils`: the question's own notes
(parameters filled into their texts; `*_without_replacement` titles and texts never repeat), then
100 random notes from upstream's notebooks (`joplin_data`; three in ten in the question's own
notebook, a random half of them to-dos, a note meeting every exclusion condition drawn again),
shuffled, in Joplin's `notes`, `notes_normalized` and `folders` tables. Notebooks are created as
upstream's set-up first needs them. The oracles find a note through Joplin's search or walk a
notebook's list, and read the answer off the note's page or the list's check boxes.
"""

from __future__ import annotations

import json
import random
import re
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from android_world.env import device, interface
from android_world.env.device_facts import joplin as facts
from android_world.env.json_action import JSONAction
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals import upstream_pools
from android_world.task_evals.answer_check import MatchType
from android_world.task_evals.single import joplin_data
from android_world.task_evals.single.information_retrieval import Pool, _InformationRetrieval

APP_NAME = "joplin"
N_NOISE = 100
RELEVANT_FOLDER_SHARE = 0.3
# Upstream's notes are all created and last changed a day before the device's now.
YESTERDAY_MS = int((device.FROZEN_DEVICE_TIME.timestamp() - 86_400) * 1000)
Note = dict[str, Any]
_NUMBER = re.compile(r"\d+")


def note(folder: str, title: str, body: str, is_todo: bool = False, done: bool = False) -> Note:
    return {"folder": folder, "title": title, "body": body, "is_todo": is_todo, "done": done}


def random_note(relevant_folders: list[str]) -> Note:
    """Upstream's `_generate_random_note`: the question's notebook three times in ten, a to-do
    half the time (its done flag is drawn for every note), a note of that notebook's list."""
    if random.random() < RELEVANT_FOLDER_SHARE:
        folder = random.choice(relevant_folders)
        if folder not in joplin_data.NOTEBOOKS:
            raise ValueError(f"Unexpected folder name: {folder}")
    else:
        folder = random.choice(list(joplin_data.NOTEBOOKS))
    is_todo = random.choice([True, False])
    done = random.choice(["True", "False"]) == "True"
    title, body = random.choice(joplin_data.NOTEBOOKS[folder])
    return note(folder, title, body, is_todo, done)


def noise_notes(
    n: int, relevant_folders: list[str], excluded: Callable[[Note], bool]
) -> tuple[list[Note], list[str]]:
    """n random notes none of which is excluded, and every notebook a drawn note named, in the
    order they were first named (upstream creates a notebook for a note before filtering it)."""
    notes: list[Note] = []
    folders: list[str] = []
    for _ in range(10_000):
        if len(notes) == n:
            return notes, folders
        candidate = random_note(relevant_folders)
        if candidate["folder"] not in folders:
            folders.append(candidate["folder"])
        if not excluded(candidate):
            notes.append(candidate)
    raise ValueError("Could not draw noise notes outside the exclusions.")


def clear(env: interface.AsyncEnv) -> None:
    env.controller.sqlite_execute(facts.DB, facts.SCHEMA)
    for table in (facts.FOLDERS, facts.NOTES, facts.NORMALIZED):
        env.controller.sqlite_execute(facts.DB, f"DELETE FROM {table}")


def _insert(env: interface.AsyncEnv, table: str, rows: list[dict[str, Any]]) -> None:
    """Rows with the same columns, in one statement (one database write, not one a row)."""
    if not rows:
        return
    columns = list(rows[0])
    marks = ", ".join(["(" + ", ".join("?" * len(columns)) + ")"] * len(rows))
    names = ", ".join(f'"{c}"' for c in columns)
    values = tuple(row[c] for row in rows for c in columns)
    env.controller.sqlite_execute(facts.DB, f"INSERT INTO {table} ({names}) VALUES {marks}", values)


def write_notes(env: interface.AsyncEnv, notes: list[Note], folders: list[str]) -> None:
    """Notebooks, then the notes and their search copies.

    Ids look random, as upstream's uuid4s do, but are drawn from the notes themselves: the
    notebook list sorts equal titles and times by id, so uuid4 ids made the row order (and an
    agent's count of what it saw) change from one run of the same draw to the next.
    """
    stamps = dict.fromkeys(
        ("created_time", "updated_time", "user_created_time", "user_updated_time"), YESTERDAY_MS
    )
    draw = random.Random(json.dumps([folders, notes], sort_keys=True, default=str))

    def new_id() -> str:
        return uuid.UUID(int=draw.getrandbits(128), version=4).hex

    ids: dict[str, str] = {}
    for title in folders + [n["folder"] for n in notes]:
        if title not in ids:
            ids[title] = new_id()
    _insert(env, facts.FOLDERS, [{"id": i, "title": t, **stamps} for t, i in ids.items()])
    rows = [
        {
            "id": new_id(),
            "parent_id": ids[n["folder"]],
            "title": n["title"],
            "body": n["body"],
            **stamps,
            "is_todo": int(n["is_todo"]),
            "todo_completed": int(n["done"]),
        }
        for n in notes
    ]
    _insert(env, facts.NOTES, rows)
    _insert(env, facts.NORMALIZED, [facts.normalized(r) for r in rows])


# ---- reading the screen (oracles) -------------------------------------------------------------


def open_note(env: interface.AsyncEnv, title: str) -> Iterator[JSONAction]:
    """Find a note through Joplin's search and open it."""
    yield ui.open_app("Joplin")
    yield ui.tap(env, desc="Search")
    yield ui.type_into(env, ui.hint_is("Search..."), title, "the search field")
    index = yield from ui.scroll_to(
        env, ui.matching(text=title, res="android:id/title"), f"the note {title!r}"
    )
    yield JSONAction(action_type="click", index=index)


def note_lines(env: interface.AsyncEnv) -> list[str]:
    return [e.text or "" for e in ui.elements(env) if e.resource_name == "note_body"]


def read_note(env: interface.AsyncEnv) -> Iterator[JSONAction]:
    """The open note's text, line by line, scrolling to its end: `lines = yield from ...`."""
    lines = note_lines(env)
    for _ in range(10):
        yield JSONAction(action_type="scroll", direction="down")
        now = note_lines(env)
        overlap = next((k for k in range(len(now), 0, -1) if lines[-k:] == now[:k]), 0)
        if overlap == len(now):
            break  # nothing new came into view
        lines += now[overlap:]
    return lines


def listed_todos(env: interface.AsyncEnv) -> set[str]:
    """Titles of the to-dos (rows with a check box) fully in view."""
    items = ui.elements(env)
    found = set()
    for i, item in enumerate(items[:-1]):
        title = items[i + 1]
        is_todo = item.resource_name == "todo_checkbox" and title.resource_name == "note_title"
        if is_todo and ui.visible(title):
            found.add(title.text or "")
    return found


# ---- tasks ----------------------------------------------------------------------------------


class _NotesQuestion(_InformationRetrieval):
    app_names = (APP_NAME,)
    complexity = 1
    fidelity_notes: tuple[str, ...] = (
        "params: ours add `relevant` (the question's own notes, drawn at initialisation as"
        " upstream fills its task proto)",
        "noise: upstream's 100 random notes, drawn as upstream draws them; ten meeting notes"
        " whose attendees and action items upstream samples unseeded at import are sampled here"
        " from a generator seeded with their title",
    )

    def relevant_notes(self) -> list[Note]:
        return self.params["relevant"]

    def excluded(self, candidate: Note) -> bool:
        raise NotImplementedError

    def noise_and_folders(self) -> tuple[list[Note], list[str]]:
        folders = [n["folder"] for n in self.relevant_notes()]
        return noise_notes(N_NOISE, folders, self.excluded)

    def initial_rows(self) -> list[Note]:
        return self.initial_notes()[0]

    def initial_notes(self) -> tuple[list[Note], list[str]]:
        """The notes set-up writes (upstream's order: noise, then the question's own, shuffled)
        and the notebooks in the order they were first named."""
        notes, folders = self.noise_and_folders()
        notes += [dict(n) for n in self.relevant_notes()]
        random.shuffle(notes)
        return notes, folders

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        notes, folders = self.initial_notes()
        clear(env)
        write_notes(env, notes, folders)
        env.controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        clear(env)
        super().tear_down(env)

    def title_contained(self, candidate: Note) -> bool:
        """Upstream's CONTAINS on the title (lower case)."""
        return self.params["title"].lower() in candidate["title"].lower()


class NotesRecipeIngredientCount(_NotesQuestion):
    difficulty = "easy"
    tags = ("search", "parameterized")
    optimal_steps = 2
    template = (
        "What quantity of {ingredient} do I need for the recipe '{title}' in the Joplin app?"
        " Express your answer in the format <amount> <unit> where both the amount and unit exactly"
        " match the format in the recipe."
    )
    param_pools = {
        "title": upstream_pools.NOTES_RECIPE_TITLES,
        "ingredient_quantity": upstream_pools.NOTES_RECIPE_INGREDIENT_QUANTITIES,
        "ingredient": upstream_pools.NOTES_RECIPE_INGREDIENTS,
        "body": upstream_pools.NOTES_RECIPE_BODIES,
    }

    def draw_relevant(self) -> None:
        p = self.params
        p["relevant"] = [note("Recipes", p["title"], p["body"])]

    def expected(self) -> list[Any]:
        return [self.params["ingredient_quantity"]]

    def excluded(self, candidate: Note) -> bool:
        return self.title_contained(candidate)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from open_note(env, self.params["title"])
        lines = yield from read_note(env)
        suffix = f" {self.params['ingredient']}"
        found = [
            line.removeprefix("- ").removesuffix(suffix)
            for line in lines
            if line.startswith("- ") and line.endswith(suffix)
        ]
        yield from self.answer(found[:1])


class NotesMeetingAttendeeCount(_NotesQuestion):
    difficulty = "easy"
    tags = ("search", "parameterized")
    optimal_steps = 3
    match_type = MatchType.NUMBER
    template = (
        "How many attendees were present in the meeting titled '{title}' in the Joplin app?"
        " Express your answer as just a single number."
    )
    param_pools = {
        "title": upstream_pools.NOTES_MEETING_TITLES,
        "attendee_count": upstream_pools.NOTES_MEETING_ATTENDEE_COUNTS,
        "body": upstream_pools.NOTES_MEETING_BODIES,
    }

    def draw_relevant(self) -> None:
        p = self.params
        p["relevant"] = [note("Meeting Notes", p["title"], p["body"])]

    def expected(self) -> list[Any]:
        return [float(self.params["attendee_count"])]

    def excluded(self, candidate: Note) -> bool:
        return self.title_contained(candidate)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from open_note(env, self.params["title"])
        lines = yield from read_note(env)
        counts = [
            _NUMBER.search(line)
            for line in lines
            if re.search(r"attend|present|particip", line, re.IGNORECASE)
        ]
        yield from self.answer([m[0] for m in counts if m][:1])


class NotesIsTodo(_NotesQuestion):
    difficulty = "easy"
    tags = ("information_retrieval", "parameterized")
    optimal_steps = 2
    template = (
        "Is the note titled '{title}' in the Joplin app marked as a todo item? Respond with"
        " either 'True' if it is a todo or 'False' if not."
    )
    param_pools = {
        "title": upstream_pools.NOTES_IS_TODO_TITLES,
        "is_todo": upstream_pools.NOTES_IS_TODO_VALUES,
        "body": upstream_pools.NOTES_IS_TODO_BODIES,
        "folder": upstream_pools.NOTES_IS_TODO_FOLDERS,
    }

    def draw_relevant(self) -> None:
        p = self.params
        todo = p["is_todo"].lower() == "true"
        p["relevant"] = [note(p["folder"], p["title"], p["body"], todo)]

    def expected(self) -> list[Any]:
        return [self.params["is_todo"]]

    def excluded(self, candidate: Note) -> bool:
        return candidate["title"].lower() == self.params["title"].lower()

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from open_note(env, self.params["title"])
        items = ui.elements(env)
        todo = any(e.resource_name == "todo_checkbox" for e in items)
        yield from self.answer(["True" if todo else "False"])


class NotesTodoItemCount(_NotesQuestion):
    difficulty = "medium"
    tags = ("information_retrieval", "math_counting", "parameterized")
    optimal_steps = 5
    match_type = MatchType.NUMBER
    template = (
        "How many to-dos do I have in the '{folder}' folder in the Joplin app? Express your"
        " answer as just a single number."
    )
    param_pools = {
        "folder": upstream_pools.NOTES_TODO_COUNT_FOLDERS,
        "title": upstream_pools.NOTES_TODO_COUNT_TITLES,
        "body": upstream_pools.NOTES_TODO_COUNT_BODIES,
    }

    def draw_relevant(self) -> None:
        p = self.params
        titles = Pool(upstream_pools.NOTES_TODO_COUNT_TITLES, p["title"])
        bodies = Pool(upstream_pools.NOTES_TODO_COUNT_BODIES, p["body"])
        relevant = []
        for _ in range(3):
            title = titles.take()
            relevant.append(note(p["folder"], title, bodies.take(), True))
        p["relevant"] = relevant

    def expected(self) -> list[Any]:
        return [len(self.relevant_notes())]

    def excluded(self, candidate: Note) -> bool:
        return candidate["is_todo"] and candidate["folder"].lower() == self.params["folder"].lower()

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield ui.open_app("Joplin")
        yield ui.tap(env, desc="Show side menu")
        yield from ui.scroll_and_tap(env, self.params["folder"])
        todos = listed_todos(env)
        for _ in range(10):  # open to-dos lead the list; scroll while the last row is one
            before = [e.text for e in ui.elements(env) if e.text]
            yield JSONAction(action_type="scroll", direction="down")
            if [e.text for e in ui.elements(env) if e.text] == before:
                break
            todos |= listed_todos(env)
        yield from self.answer([str(len(todos))])
