"""Upstream's Broccoli tasks whose recipes come from another app (`single/recipe.py`): a Markor
note (RecipeAddMultipleRecipesFromMarkor, ...Markor2) or a picture in Simple Gallery Pro
(RecipeAddMultipleRecipesFromImage).

Draws, seeding and the check are those of the other add-recipe tasks: ten (Markor2: forty)
noise recipes are in the app already, and exactly the wanted recipes must be added. The note
holds the wanted recipes in the goal's csv or text-block form (Markor2: all 43, shuffled at
set-up, of which the ones taking the goal's preparation time are wanted); the picture holds
them as text blocks wrapped at 60 characters. The Markor solutions read the note's text off the
screen (the editor's text is in the accessibility tree, as on a phone); the picture's solution
opens the picture and takes what it says from the params (see `single/gallery.py`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

from android_world.env import interface
from android_world.env.json_action import JSONAction
from android_world.task_evals import gallery_images
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.single import recipe_data as data
from android_world.task_evals.single.files import clear_folder
from android_world.task_evals.single.markor import NOTEBOOK
from android_world.task_evals.single.markor_more import editor_text
from android_world.task_evals.single.pictures import (
    PICTURE_NOTE,
    clear_shared_storage,
    open_picture,
    wrap_values,
    write_picture,
)
from android_world.task_evals.single.recipe import (
    _GOAL_FIELDS,
    TEXT_REPRESENTATION_TYPE,
    Recipe,
    _RecipeAddRecipes,
    add_recipes,
    random_recipes,
    rows_as_text,
)
from android_world.task_evals.single.table_tasks import NOISE_ROW_OBJECTS, ROW_OBJECTS

RECIPES_FILE = "recipes.txt"
_BLOCK_FIELD = re.compile(r" (\w+): (.*)")


def recipes_in_text(text: str) -> list[Recipe]:
    """The recipes a note lists in either of the goals' forms: csv (`|`-separated, a header
    line first) or text blocks ("Recipe: <title>" then " <field>: <value>" lines)."""
    lines = text.replace("\r", "").split("\n")
    if lines and lines[0].strip() == "|".join(_GOAL_FIELDS):
        found = []
        for line in lines[1:]:
            values = line.split("|")
            if len(values) == len(_GOAL_FIELDS):
                found.append(dict(zip(_GOAL_FIELDS, values, strict=True)))
        return [_as_row(r) for r in found]
    recipes: list[dict[str, str]] = []
    for line in lines:
        if line.startswith("Recipe: "):
            recipes.append({"title": line[len("Recipe: ") :].strip()})
        elif recipes and (match := _BLOCK_FIELD.fullmatch(line)):
            recipes[-1][match.group(1)] = match.group(2).strip()
    return [_as_row(r) for r in recipes if set(_GOAL_FIELDS) <= set(r)]


def _as_row(fields: dict[str, str]) -> Recipe:
    return {**{f: fields[f] for f in _GOAL_FIELDS}, "source": "", "favorite": 0}


def open_note(env: interface.AsyncEnv) -> Iterator[JSONAction]:
    yield ui.open_app("Markor")
    yield from ui.scroll_and_tap(env, RECIPES_FILE)


class RecipeAddMultipleRecipesFromMarkor(_RecipeAddRecipes):
    """recipes.txt in Markor lists the three recipes to add."""

    app_names = ("broccoli app", "markor")
    complexity = 6
    n_rows = 3
    n_rows_noise = 10
    difficulty = "hard"
    tags = ("data_entry", "multi_app", "screen_reading", "memorization", "parameterized")
    optimal_steps = 24

    @property
    def goal(self) -> str:
        return f"Add the recipes from {RECIPES_FILE} in Markor to the Broccoli recipe app."

    def note_rows(self) -> list[Recipe]:
        return list(self.params[ROW_OBJECTS])

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_folder(env.controller, NOTEBOOK)
        text = rows_as_text(self.note_rows(), self.params[TEXT_REPRESENTATION_TYPE])
        env.controller.write_text(f"{NOTEBOOK}/{RECIPES_FILE}", text)
        env.controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_folder(env.controller, NOTEBOOK)

    def wanted(self, listed: list[Recipe]) -> list[Recipe]:
        return listed

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from open_note(env)
        listed = recipes_in_text(editor_text(env))
        yield from add_recipes(env, self.wanted(listed))
        yield ui.done()


class RecipeAddMultipleRecipesFromMarkor2(RecipeAddMultipleRecipesFromMarkor):
    """recipes.txt lists 43 recipes (shuffled at set-up); the three taking the goal's
    preparation time are the ones to add. The forty others are in the app already."""

    n_rows = 3
    n_rows_noise = 40
    complexity = 6
    difficulty = "hard"
    tags = (
        "parameterized",
        "screen_reading",
        "complex_ui_understanding",
        "repetition",
        "multi_app",
        "data_entry",
        "information_retrieval",
    )
    optimal_steps = 26

    @property
    def goal(self) -> str:
        return (
            f"Add the recipes from {RECIPES_FILE} in Markor that take {self.params['prep_time']}"
            " to prepare into the Broccoli recipe app."
        )

    def note_rows(self) -> list[Recipe]:
        rows = list(self.params[ROW_OBJECTS]) + list(self.params[NOISE_ROW_OBJECTS])
        random.shuffle(rows)  # at set-up, as upstream (the task's seed fixes it)
        return rows

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        prep_time = random.choice(data.PREP_TIMES)
        targets = random_recipes(cls.n_rows, lambda r: r["preparationTime"] == prep_time)
        noise = random_recipes(cls.n_rows_noise, lambda r: r["preparationTime"] != prep_time)
        return {
            ROW_OBJECTS: targets,
            NOISE_ROW_OBJECTS: noise,
            TEXT_REPRESENTATION_TYPE: random.choice(["csv", "text_block"]),
            "prep_time": prep_time,
        }

    def wanted(self, listed: list[Recipe]) -> list[Recipe]:
        return [r for r in listed if r["preparationTime"] == self.params["prep_time"]]


class RecipeAddMultipleRecipesFromImage(_RecipeAddRecipes):
    """recipes.jpg in DCIM shows the three recipes to add, as text blocks."""

    app_names = ("broccoli app", "simple gallery pro")
    complexity = 6
    n_rows = 3
    n_rows_noise = 10
    difficulty = "hard"
    tags = (
        "transcription",
        "screen_reading",
        "data_entry",
        "complex_ui_understanding",
        "parameterized",
    )
    optimal_steps = 13
    fidelity_notes = (PICTURE_NOTE,)
    PICTURE = "recipes.jpg"

    @property
    def goal(self) -> str:
        return (
            f"Add the recipes from {self.PICTURE} in Simple Gallery Pro to the Broccoli recipe app."
        )

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_shared_storage(env)
        shown = wrap_values(
            self.params[ROW_OBJECTS], tuple(f for f in _GOAL_FIELDS if f != "title")
        )
        text = rows_as_text(shown, "text_block")
        write_picture(env, self.PICTURE, gallery_images.text_image(text))
        env.controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_shared_storage(env)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from open_picture(env, self.PICTURE)
        # What the picture lists, as a person reads it off the screen: the params' recipes.
        yield from add_recipes(env, self.params[ROW_OBJECTS])
        yield ui.done()
