"""Broccoli (com.flauschcode.broccoli): a recipe collection kept in the real app's Room database.

The table is upstream's `recipes` in the `broccoli` database (text fields, `favorite` 0/1,
`recipeId` the key). As in the real app, the list shows recipe cards (title, description,
source) sorted by title without regard to case, a recipe opens to its details, and Edit and
Delete live in the details' overflow menu; the FAB creates a recipe. The list's search also
looks through the directions (the real app's full-text index leaves them out): without it no
one could find "the recipes that use X in the directions" within upstream's step budget.
"""

from __future__ import annotations

from android_world.env.device_facts.broccoli import (
    CARD_H,
    DB,
    FORM_FIELDS,
    PACKAGE,
    SCHEMA,
)
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen
from android_world.env.sim.widgets import Node

_MULTILINE = {"ingredients", "directions"}
SEARCHED = ("title", "description", "source", "ingredients", "directions")


def matches(recipe: dict, term: str) -> bool:
    """The list's search: every word of the term appears in some searched field."""
    text = " ".join(str(recipe.get(f) or "") for f in SEARCHED).lower()
    return all(word in text for word in term.lower().split())


def get_recipe(screen: Screen, recipe_id: int) -> dict | None:
    rows = screen.device.sqlite_query(DB, "SELECT * FROM recipes WHERE recipeId = ?", (recipe_id,))
    return rows[0] if rows else None


class BroccoliApp(App):
    package = PACKAGE

    def install(self) -> None:
        self.device.sqlite_execute(DB, SCHEMA)

    def main_screen(self) -> Screen:
        return RecipeList(self)


class RecipeList(Screen):
    """All recipes as cards, A-Z; the search icon opens a filter field above the list."""

    def __init__(self, app: App):
        super().__init__(app)
        self.searching = False
        self.term = ""

    def recipes(self) -> list[dict]:
        rows = self.device.sqlite_query(
            DB, "SELECT * FROM recipes ORDER BY title COLLATE NOCASE, recipeId"
        )
        if self.searching and self.term.strip():
            rows = [r for r in rows if matches(r, self.term)]
        return rows

    def build(self) -> Node:
        if self.searching:
            bar = w.row(
                w.icon_button("Collapse", "back", self.stop_search),
                w.text_field(self.term, self.set_term, hint="Search", key="search_src_text"),
                h=w.APP_BAR_H,
                pad=(12, 15, 24, 15),
                align="center",
                kind="appbar",
                res_id="app_bar",
            )
        else:
            bar = w.app_bar(
                "Recipes",
                actions=[w.icon_button("Search", "search", self.start_search, res_id="search")],
            )
        rows = self.recipes()
        if rows:
            items = [self.card(r) for r in rows]
        elif self.searching:
            items = [w.empty_state("No recipes found.")]
        else:
            items = [w.empty_state("Create your first recipe and start your collection!")]
        # The list stays on screen when empty, its empty view inside (as short lists do here).
        body = w.scroll_list(
            "recipe_list", *items, gap=8, pad=(24, 12, 24, 0), res_id="recycler_view"
        )
        content = w.column(bar, body, flex=1)
        return w.with_fab(content, w.fab("New recipe", self.new_recipe, res_id="fab"))

    def card(self, r: dict) -> Node:
        recipe_id = r["recipeId"]
        return w.row(
            w.column(
                w.label(r["title"] or "", size=46, bold=True, res_id="card_text_view_title"),
                w.label(
                    r["description"] or "",
                    size=w.SECONDARY_SIZE,
                    color="secondary",
                    max_lines=2,
                    res_id="card_text_view_description",
                ),
                w.label(
                    r["source"],
                    size=w.SECONDARY_SIZE,
                    color="accent",
                    res_id="card_text_view_source",
                )
                if r["source"]
                else None,
                flex=1,
                gap=6,
                align="center",
            ),
            kind="row",
            h=CARD_H,
            pad=(36, 0, 36, 0),
            clickable=True,
            focusable=True,
            on_click=lambda: self.push(RecipeDetails(self.app, recipe_id)),
            key=f"recipe_{recipe_id}",
            style={"bg": "surface"},
        )

    def start_search(self) -> None:
        self.searching, self.term = True, ""
        self.focus = "search_src_text"

    def stop_search(self) -> None:
        self.searching, self.term = False, ""
        self.focus = None

    def set_term(self, text: str) -> None:
        self.term = text
        self.scroll_offsets.pop("recipe_list", None)

    def on_back(self) -> bool:
        if self.searching:
            self.stop_search()
            return True
        return False

    def new_recipe(self) -> None:
        self.push(RecipeEdit(self.app, None))


class RecipeDetails(Screen):
    """One recipe: servings, time, description, ingredients and directions."""

    activity = "com.flauschcode.broccoli.recipe.details.RecipeDetailsActivity"

    def __init__(self, app: App, recipe_id: int):
        super().__init__(app)
        self.recipe_id = recipe_id

    def build(self) -> Node:
        r = get_recipe(self, self.recipe_id)
        if r is None:
            return w.column(
                w.app_bar("", on_up=self.close), w.empty_state("No recipes found."), flex=1
            )
        liked = bool(r["favorite"])
        bar = w.app_bar(
            r["title"],
            on_up=self.close,
            actions=[
                w.icon_button(
                    "Remove from favorites" if liked else "Mark as favorite",
                    "star",
                    self.toggle_favorite,
                ),
                w.icon_button("More options", "more", self.more),
            ],
        )
        parts: list[Node] = []
        for name, label in (("servings", "Servings"), ("preparationTime", "Time")):
            if r[name]:
                parts.append(self.field(label, r[name], name))
        if r["source"]:
            parts.append(self.field("Source", r["source"], "source"))
        for name, label in (
            ("description", "Description"),
            ("ingredients", "Ingredients"),
            ("directions", "Directions"),
        ):
            if r[name]:
                parts.append(self.field(label, r[name], name))
        return w.column(
            bar, w.scroll_list("recipe_details", *parts, gap=24, pad=(48, 24, 48, 48)), flex=1
        )

    @staticmethod
    def field(title: str, value: str, res: str) -> Node:
        lines = w._lines(value, per_line=44)
        return w.column(
            w.label(title, size=w.SECONDARY_SIZE, color="accent", res_id=f"{res}_label"),
            w.label(value, max_lines=lines, res_id=f"recipe_details_{res}"),
            gap=6,
        )

    def toggle_favorite(self) -> None:
        self.device.sqlite_execute(
            DB,
            "UPDATE recipes SET favorite = 1 - favorite WHERE recipeId = ?",
            (self.recipe_id,),
        )

    def more(self) -> None:
        self.show_menu(
            [
                ("Share", lambda: None),
                ("Edit", lambda: self.push(RecipeEdit(self.app, self.recipe_id))),
                ("Delete", self.confirm_delete),
            ]
        )

    def confirm_delete(self) -> None:
        self.show_dialog(
            lambda: w.dialog(
                "Delete this recipe?", buttons=[("Cancel", self.dismiss), ("Delete", self.delete)]
            )
        )

    def delete(self) -> None:
        self.device.sqlite_execute(DB, "DELETE FROM recipes WHERE recipeId = ?", (self.recipe_id,))
        self.dismiss()
        self.close()
        self.toast("The recipe has been deleted.")


class RecipeEdit(Screen):
    """Create (recipe_id None) or edit a recipe; Save checks for a title, as the app does."""

    activity = "com.flauschcode.broccoli.recipe.crud.CreateAndEditRecipeActivity"

    def __init__(self, app: App, recipe_id: int | None):
        super().__init__(app)
        self.recipe_id = recipe_id
        self.values = {name: "" for name, _ in FORM_FIELDS}
        if recipe_id is not None:
            r = get_recipe(self, recipe_id)
            if r is not None:
                self.values = {name: r[name] or "" for name, _ in FORM_FIELDS}

    def build(self) -> Node:
        title = "New Recipe" if self.recipe_id is None else "Edit Recipe"
        fields = [
            w.text_field(
                self.values[name],
                self.setter(name),
                hint=hint,
                key=f"new_recipe_{name}",
                multiline=name in _MULTILINE,
                h=260 if name in _MULTILINE else None,
            )
            for name, hint in FORM_FIELDS
        ]
        return w.column(
            w.app_bar(
                title,
                on_up=self.close,
                actions=[w.icon_button("Save", "check", self.save, res_id="action_save")],
            ),
            w.scroll_list("recipe_form", *fields, gap=12, pad=(24, 12, 24, 48)),
            flex=1,
        )

    def setter(self, name: str):
        def set_value(text: str) -> None:
            self.values[name] = text

        return set_value

    def save(self) -> None:
        values = {name: value.strip() for name, value in self.values.items()}
        if not values["title"]:
            self.toast("Please add a title.")
            return
        names = [name for name, _ in FORM_FIELDS]
        if self.recipe_id is None:
            self.device.sqlite_execute(
                DB,
                f"INSERT INTO recipes ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                tuple(values[n] for n in names),
            )
        else:
            assignments = ", ".join(f"{n} = ?" for n in names)
            self.device.sqlite_execute(
                DB,
                f"UPDATE recipes SET {assignments} WHERE recipeId = ?",
                (*[values[n] for n in names], self.recipe_id),
            )
        self.close()
        self.toast("The recipe has been saved.")
