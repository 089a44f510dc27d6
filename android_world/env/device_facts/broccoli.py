"""Broccoli (com.flauschcode.broccoli): where recipes live, the edit form's fields, the card height.

The table is upstream's `recipes` in the `broccoli` database (text fields, `favorite` 0/1,
`recipeId` the key). `FORM_FIELDS` are the edit form's text fields in order, with each one's hint.
`CARD_H` is the height of one recipe card in the list on the simulated Pixel 6; a reference
solution tells the list's end by the blank space below the last card.
"""

from __future__ import annotations

PACKAGE = "com.flauschcode.broccoli"
DB = f"/data/data/{PACKAGE}/databases/broccoli"
TABLE = "recipes"
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS recipes ("
    "recipeId INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, title TEXT NOT NULL DEFAULT '', "
    "imageName TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '', "
    "servings TEXT NOT NULL DEFAULT '', preparationTime TEXT NOT NULL DEFAULT '', "
    "source TEXT NOT NULL DEFAULT '', ingredients TEXT NOT NULL DEFAULT '', "
    "directions TEXT NOT NULL DEFAULT '', favorite INTEGER NOT NULL DEFAULT 0)"
)
# The editable text fields, in the form's order, with the form's hint for each.
FORM_FIELDS: tuple[tuple[str, str], ...] = (
    ("title", "Title"),
    ("description", "Description"),
    ("source", "Source"),
    ("servings", "Servings"),
    ("preparationTime", "Time"),
    ("ingredients", "Ingredients"),
    ("directions", "Directions"),
)
CARD_H = 200  # with 8 px gaps, nine cards fit on one screen
