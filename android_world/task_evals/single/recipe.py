"""Broccoli recipe tasks (upstream `single/recipe.py`), checked on the app's `recipes` table.

Rows are plain dicts with upstream's `Recipe` columns. Goals, complexities, row counts and
success rules are upstream's: deleting must remove exactly the target rows and leave every other
row as it was (`table_tasks.removal_ok`); a duplicate task accepts the removal of either copy;
adding must add exactly the described recipe (text fields fuzzy, `favorite` exact) and change
nothing else (`table_tasks.addition_ok`). Random recipes come from upstream's generator pools
(`recipe_data`). Oracles read the live screen through `oracle_utils` only.

Kept differences (see `RecipeDeleteMultipleRecipesWithConstraint`): the ingredient is matched
in the directions without regard to case, and drawn only from upstream's ingredients that some
recipe uses, since upstream's case-sensitive test and exotic ingredients leave a third of its
draws with nothing to delete (doing nothing would pass). Duplicate tasks redraw noise that would
itself be an exact duplicate, so the answer is unique.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from android_world.env import interface
from android_world.env.device_facts import broccoli as broccoli_facts
from android_world.env.json_action import JSONAction
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.single import recipe_data as data
from android_world.task_evals.single.table_tasks import (
    NOISE_ROW_OBJECTS,
    ROW_OBJECTS,
    Table,
    _AddRowsTask,
    _DeleteDuplicateTask,
    _DeleteRowsTask,
    _TableTask,
    insert_rows,
)

APP_NAME = "broccoli app"
DB = broccoli_facts.DB
TEXT_REPRESENTATION_TYPE = "text_representation_type"
_INSERTED = (
    "title",
    "description",
    "servings",
    "preparationTime",
    "source",
    "ingredients",
    "directions",
    "favorite",
    "imageName",
)
_GOAL_FIELDS = ("title", "description", "servings", "preparationTime", "ingredients", "directions")
# The detail screen's fields an exact duplicate must share (besides title and description).
_DETAIL_FIELDS = ("servings", "preparationTime", "source", "ingredients", "directions")

Recipe = dict[str, Any]


# ---- data -----------------------------------------------------------------------------------


def random_recipe() -> Recipe:
    """Upstream's `_generate_random_recipe`: a base recipe with random details."""
    title, directions = random.choice(data.RECIPES)
    # Upstream's order of draws: description, servings, time, directions, ingredients.
    description = random.choice(data.DESCRIPTIONS)
    servings = random.choice(data.SERVINGS)
    preparation_time = random.choice(data.PREP_TIMES)
    directions = f"{directions} {random.choice(data.DIRECTION_ADDITIONS)}"
    return {
        "title": title,
        "description": description,
        "servings": servings,
        "preparationTime": preparation_time,
        "source": "",
        "ingredients": random.choice(data.INGREDIENT_NOTES),
        "directions": directions,
        "favorite": 0,
        "imageName": "",
    }


def random_recipes(
    n: int, keep: Callable[[Recipe], bool] = lambda r: True, distinct: bool = True
) -> list[Recipe]:
    """Upstream's `get_random_items`: n recipes passing `keep`, pairwise different if
    `distinct` (whole rows, so titles may repeat)."""
    found: list[Recipe] = []
    for _ in range(10_000):
        if len(found) == n:
            return found
        candidate = random_recipe()
        if keep(candidate) and not (distinct and candidate in found):
            found.append(candidate)
    if len(found) == n:
        return found
    raise ValueError(f"Could not draw {n} recipes.")


def uses(ingredient: str) -> Callable[[Recipe], bool]:
    """Upstream's test of a recipe using an ingredient: the ingredient as written inside the
    lowercased directions (so a capitalised one, "Parmesan", is never found)."""
    return lambda r: ingredient in r["directions"].lower()


def usable_ingredients() -> list[str]:
    """The ingredients of upstream's pool that some recipe's directions can contain (upstream's
    test); drawing any other gives an instance with no target."""
    texts = [f"{d} {a}".lower() for _, d in data.RECIPES for a in data.DIRECTION_ADDITIONS]
    return [i for i in data.COMMON_INGREDIENTS if any(i in t for t in texts)]


def rows_as_text(rows: list[Recipe], format_type: str) -> str:
    """Upstream's csv (`|`-separated) or text-block rendering of recipes for goals."""
    if format_type == "csv":
        lines = ["|".join(_GOAL_FIELDS)] + ["|".join(str(r[f]) for f in _GOAL_FIELDS) for r in rows]
        return "\n".join(lines)
    blocks = []
    for r in rows:
        body = "".join(f" {f}: {r[f]}\n" for f in _GOAL_FIELDS if f != "title")
        blocks.append(f"Recipe: {r['title']}\n{body}")
    return "\n".join(blocks)


def clear(env: interface.AsyncEnv) -> None:
    env.controller.sqlite_execute(DB, broccoli_facts.SCHEMA)
    env.controller.sqlite_execute(DB, "DELETE FROM recipes")


def add_rows(env: interface.AsyncEnv, rows: list[Recipe]) -> None:
    """Ids follow list order (upstream's targets come last)."""
    insert_rows(env, DB, "recipes", _INSERTED, rows)


def list_rows(env: interface.AsyncEnv) -> list[Recipe]:
    return env.controller.sqlite_query(DB, "SELECT * FROM recipes ORDER BY recipeId")


# ---- reading the screen (oracles) -------------------------------------------------------------

Card = tuple[str, str]  # (title, description) as a list card shows them
Window = list[tuple[Card, int]]  # the cards fully on screen, with their tops, top to bottom


def cards_on_screen(env: interface.AsyncEnv) -> list[tuple[int, Card, int]]:
    """(title element index, (title, description), top y) of every fully visible card."""
    items = ui.elements(env)
    found = []
    for i, e in enumerate(items):
        if e.resource_name == "card_text_view_title" and ui.visible(e):
            desc = ""
            nxt = items[i + 1] if i + 1 < len(items) else None
            if nxt is not None and nxt.resource_name == "card_text_view_description":
                desc = nxt.text or ""
            found.append((i, (e.text or "", desc), e.bbox_pixels.y_min))
    # A title cut by the list's top edge reports a shorter box: not a reliable position.
    full = max((items[i].bbox_pixels.height for i, _, _ in found), default=0)
    return [c for c in found if items[c[0]].bbox_pixels.height >= full - 2]


def list_ends_on_screen(env: interface.AsyncEnv) -> bool:
    """Blank space taller than a card below the last card: nothing more to scroll to."""
    items = ui.elements(env)
    lists = [e for e in items if e.resource_name == "recycler_view" and e.bbox_pixels]
    texts = [
        e.bbox_pixels.y_max
        for e in items
        if (e.resource_name or "").startswith("card_text_view") and e.bbox_pixels
    ]
    if not lists or not texts:
        return True
    bottom = lists[0].bbox_pixels.y_max
    # Where the next card's title would start (cards are evenly spaced): inside the list, yet
    # nothing there, means no next card. (Titles cut by the top edge report a later top.)
    tops = sorted(
        e.bbox_pixels.y_min
        for e in items
        if e.resource_name == "card_text_view_title" and e.bbox_pixels and not ui.clipped_out(e)
    )
    if len(tops) >= 2 and tops[-1] + (tops[-1] - tops[-2]) < bottom - 2:
        return True
    return bottom - max(texts) > broccoli_facts.CARD_H


def stopped_short(before: list[tuple[Card, int]], after: list[tuple[Card, int]], drag: int) -> bool:
    """Whether a scroll moved the cards less than the swipe (the list's end): no card seen
    after it sits where a full swipe would have brought a card seen before it. Look-alike
    cards can make a short move look full; then this says False (one more scroll tells)."""
    if not before:
        return False
    low, high = before[0][1] - 3, before[-1][1] + 3
    checked = [(c, y + drag) for c, y in after if low <= y + drag <= high]
    return bool(checked) and not all(
        any(c == b and abs(y - w) <= 3 for b, w in before) for c, y in checked
    )


def left_behind(previous: Window, now: Window, drag: int) -> list[Card]:
    """Look-alikes (two or more) that the screen before a full swipe showed all of, though it
    could not tell: they ended it, and this screen shows their title's run end with every card
    of theirs here one the screen before showed too (`drag` up)."""
    titles = [c[0] for c, _ in now]
    found = []
    for card in dict.fromkeys(c for c, _ in previous):
        mine = [y for c, y in now if c == card]
        last = max((i for i, t in enumerate(titles) if t == card[0]), default=None)
        if (
            sum(c == card for c, _ in previous) < 2
            or [c[0] for c, _ in previous].index(card[0]) == 0
            or last is None
            or last == len(titles) - 1
            or not all(any(c == card and abs(y + drag - w) <= 3 for c, w in previous) for y in mine)
        ):
            continue
        found.append(card)
    return found


def drag_length(env: interface.AsyncEnv) -> int:
    """A scroll without a target swipes from the screen's middle to its edge: half its height."""
    return max((e.bbox_pixels.y_max for e in ui.elements(env) if e.bbox_pixels), default=0) // 2


def closed_groups(
    env: interface.AsyncEnv, previous: list[str] | None, at_end: bool = False
) -> list[Card]:
    """Look-alike cards (two or more) that this screen shows all of: same-titled cards sit
    together (the list is A-Z), so a title with another title (even on a card cut by the
    list's edge) or the list's top or end on both sides has no look-alike off screen.
    `previous`: the titles of the screen before this one's scroll (None: the list's top); it
    overlaps this one, so a title it ends without, or shows after another, starts here."""
    cards = [card for _, card, _ in cards_on_screen(env)]
    titles = [  # every card title on screen, in part too, top to bottom
        e.text or ""
        for e in sorted(ui.elements(env), key=lambda e: e.bbox_pixels.y_min if e.bbox_pixels else 0)
        if e.resource_name == "card_text_view_title" and not ui.clipped_out(e)
    ]
    ends = at_end or list_ends_on_screen(env)
    groups = []
    for card in dict.fromkeys(cards):
        if cards.count(card) < 2:
            continue
        spots = [i for i, t in enumerate(titles) if t == card[0]]
        before = previous or []
        above = (
            previous is None
            or spots[0] > 0
            or (card[0] not in before and bool(before))
            or (card[0] in before and before.index(card[0]) > 0)
        )
        below = ends or spots[-1] < len(titles) - 1
        if above and below:
            groups.append(card)
    return sorted(groups, key=lambda c: -cards.count(c))


def scan_titles(
    env: interface.AsyncEnv,
    visit: Callable[[Window | None, bool], Iterator[JSONAction]] | None = None,
) -> Iterator[JSONAction]:
    """Scroll the recipe list once, top to bottom; return (for each card's title and
    description, the most such cards seen on one screen; whether the list needed scrolling;
    whether `visit` ended the scan; whether the scan saw the whole list).

    Windows overlap by a few cards and same-titled cards sit together (the list is A-Z), so
    look-alike cards share some screen: counting per screen never counts a card twice. A screen
    of nothing but look-alikes (five or more) ends the scan: no group can show more on one
    screen, so it leads the candidates (a landscape screen holds four cards, and four random
    look-alikes, none the copy, do occur); so does a scroll that moved the list less than the
    swipe (its end). `visit(previous, at_end)` runs on every screen before scrolling on (with
    the cards and places of the screen before, None at the top); True ends the scan.
    """
    counts: dict[Card, int] = {}
    window = cards_on_screen(env)
    scrolled = False
    previous: Window | None = None
    at_end = False
    for _ in range(16):
        cards = [card for _, card, _ in window]
        for card in cards:
            counts[card] = max(counts.get(card, 0), cards.count(card))
        if visit is not None and (yield from visit(previous if scrolled else None, at_end)):
            return counts, scrolled, True, False
        if at_end or list_ends_on_screen(env):
            return counts, scrolled, False, True
        if len(cards) >= 5 and len(set(cards)) == 1:
            break
        yield JSONAction(action_type="scroll", direction="down")
        after = cards_on_screen(env)
        placed = [(c, y) for _, c, y in window], [(c, y) for _, c, y in after]
        if placed[0] == placed[1]:
            return counts, scrolled, False, True
        at_end = stopped_short(*placed, drag_length(env))
        scrolled, window, previous = True, after, placed[0]
    return counts, scrolled, False, False


def read_details(env: interface.AsyncEnv) -> tuple[str, ...]:
    """The open recipe's detail fields, as the details screen shows them."""
    items = ui.elements(env)
    values = {
        e.resource_name.removeprefix("recipe_details_"): e.text or ""
        for e in items
        if (e.resource_name or "").startswith("recipe_details_")
    }
    return tuple(values.get(f, "") for f in _DETAIL_FIELDS)


def delete_open_recipe(env: interface.AsyncEnv) -> Iterator[JSONAction]:
    yield ui.tap(env, desc="More options")
    yield ui.tap(env, text="Delete")
    yield ui.click(
        env, ui.matching(text="Delete", class_suffix="Button"), "the dialog's Delete button"
    )


def search(env: interface.AsyncEnv, term: str) -> Iterator[JSONAction]:
    yield ui.tap(env, desc="Search")
    yield ui.type_into(env, ui.hint_is("Search"), term, "the search field")


# ---- tasks ----------------------------------------------------------------------------------


class _Recipe(_TableTask):
    app_names = (APP_NAME,)
    table = Table(clear, add_rows, list_rows, key="recipeId")


class _RecipeDeleteMultipleRecipes(_DeleteRowsTask, _Recipe):
    """Delete the named recipes: exactly they disappear, every other row stays as it was."""

    complexity = 2
    n_rows = 3
    n_rows_noise = 0
    difficulty = "medium"
    tags = ("data_edit", "parameterized")
    optimal_steps = 12

    @property
    def goal(self) -> str:
        titles = ", ".join(r["title"] for r in self.params[ROW_OBJECTS])
        return f"Delete the following recipes from Broccoli app: {titles}."

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        recipes: list[Recipe] = []
        while len(recipes) < cls.n_rows + cls.n_rows_noise:
            candidate = random_recipe()
            if all(candidate["title"] != r["title"] for r in recipes):
                recipes.append(candidate)
        if cls.n_rows_noise:
            return {
                ROW_OBJECTS: recipes[cls.n_rows_noise :],
                NOISE_ROW_OBJECTS: recipes[: cls.n_rows_noise],
            }
        return {ROW_OBJECTS: recipes}

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield ui.open_app("Broccoli")
        # The list is A-Z, so deleting in that order only ever scrolls onwards.
        for title in sorted((r["title"] for r in self.params[ROW_OBJECTS]), key=str.casefold):
            # 30 cards take a dozen swipes on a landscape screen (four cards a screen).
            index = yield from ui.scroll_to(env, ui.text_is(title), repr(title), max_scrolls=16)
            yield JSONAction(action_type="click", index=index)
            yield from delete_open_recipe(env)
        yield ui.done()


class RecipeDeleteSingleRecipe(_RecipeDeleteMultipleRecipes):
    difficulty = "easy"
    tags = ("data_edit", "search", "parameterized")
    optimal_steps = 5
    complexity = 1
    n_rows = 1
    n_rows_noise = 0


class RecipeDeleteSingleWithRecipeWithNoise(_RecipeDeleteMultipleRecipes):
    difficulty = "easy"
    tags = ("search", "screen_reading", "data_edit", "parameterized")
    optimal_steps = 10
    complexity = 2
    n_rows = 1
    n_rows_noise = 29


class RecipeDeleteMultipleRecipes(_RecipeDeleteMultipleRecipes):
    difficulty = "easy"
    tags = ("data_edit", "parameterized")
    optimal_steps = 12
    complexity = 2.4
    n_rows = 3
    n_rows_noise = 0


class RecipeDeleteMultipleRecipesWithNoise(_RecipeDeleteMultipleRecipes):
    difficulty = "medium"
    tags = ("parameterized", "search", "complex_ui_understanding", "repetition")
    optimal_steps = 17
    complexity = 3.4
    n_rows = 3
    n_rows_noise = 29


class RecipeDeleteMultipleRecipesWithConstraint(_RecipeDeleteMultipleRecipes):
    """Delete the recipes whose directions mention an ingredient (found by reading them)."""

    difficulty = "hard"
    tags = ("screen_reading", "repetition", "parameterized")
    optimal_steps = 20

    complexity = 4
    n_rows = 3
    n_rows_noise = 29

    @property
    def goal(self) -> str:
        ingredient = self.params["ingredient"]
        return f"Delete the recipes from Broccoli app that use {ingredient} in the directions."

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        ingredient = random.choice(data.COMMON_INGREDIENTS)
        noise = random_recipes(cls.n_rows_noise, lambda r: not uses(ingredient)(r))
        # Upstream: as many targets as can be drawn, down to none when no recipe uses it.
        targets: list[Recipe] = []
        if ingredient in usable_ingredients():
            targets = random_recipes(cls.n_rows, uses(ingredient))
        return {ROW_OBJECTS: targets, NOISE_ROW_OBJECTS: noise, "ingredient": ingredient}

    def expected_initial_rows(self) -> int | None:
        return None  # upstream does not check the count here

    def expected_targets(self) -> int:
        """Upstream draws as many targets as it can: none for an ingredient no recipe uses."""
        return len(self.params[ROW_OBJECTS])

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        # Upstream's test of "uses": the ingredient as written in the lowercased directions, so
        # a capitalised one ("Parmesan") is used by no recipe and nothing is to be deleted.
        ingredient = self.params["ingredient"]
        yield ui.open_app("Broccoli")
        yield from search(env, ingredient.lower())
        position = 0  # results before it were read and kept
        for _ in range(20):
            cards = cards_on_screen(env)
            if position >= len(cards):
                break
            yield JSONAction(action_type="click", index=cards[position][0])
            directions = read_details(env)[_DETAIL_FIELDS.index("directions")]
            if ingredient in directions.lower():
                yield from delete_open_recipe(env)
            else:
                yield JSONAction(action_type="navigate_back")
                position += 1
        yield ui.done()


class _RecipeDeleteDuplicates(_DeleteDuplicateTask, _Recipe):
    """Delete one copy of the exactly duplicated recipe; either copy may go."""

    complexity = 1
    n_rows = 1
    n_rows_noise = 5
    difficulty = "medium"
    tags = ("data_edit", "screen_reading")
    optimal_steps = 7

    goal_text = (
        "Delete all but one of any recipes in the Broccoli app that are exact duplicates,"
        " ensuring at least one instance of each unique recipe remains"
    )

    @property
    def goal(self) -> str:
        return self.goal_text

    @classmethod
    def draw(cls) -> tuple[Recipe, list[Recipe]]:
        rows = random_recipes(cls.n_rows + cls.n_rows_noise)
        target = rows.pop()
        return target, rows

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        target, noise = cls.draw()
        return {ROW_OBJECTS: [target, dict(target)], NOISE_ROW_OBJECTS: noise}

    @staticmethod
    def add_variants(
        target: Recipe, noise: list[Recipe], total: int, same: Callable[[Recipe], bool]
    ) -> None:
        """Upstream's near-duplicates: rows like the target (by `same`) but not equal to it;
        also never equal to each other, so the target pair is the only exact duplicate."""
        while len(noise) < total:
            value = random_recipes(1, same, distinct=False)[0]
            if value != target and value not in noise:
                noise.append(value)

    # Try look-alike cards as soon as a screen shows all of them: where the noise is random,
    # look-alikes are most likely the copies; decoy look-alikes (the harder variants) make
    # ranking them by number after the scan the better bet.
    eager = False

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield ui.open_app("Broccoli")
        tried: set[Card] = set()

        def visit(previous: Window | None, at_end: bool) -> Iterator[JSONAction]:
            if not self.eager:
                return False
            titles = None if previous is None else [c[0] for c, _ in previous]
            # The whole list on one screen: every look-alike group is known, and the task has
            # one pair, so once the others are ruled out a last group of two is that pair.
            whole = previous is None and (at_end or list_ends_on_screen(env))
            groups = [c for c in closed_groups(env, titles, at_end) if c not in tried]
            for i, card in enumerate(groups):
                tried.add(card)
                last = whole and i == len(groups) - 1
                if (
                    yield from self.find_copy(env, card, bottom_up=previous is not None, last=last)
                ):
                    return True
            if previous is None or at_end:
                return False
            now = [(c, y) for _, c, y in cards_on_screen(env)]
            for card in left_behind(previous, now, drag_length(env)):
                if card not in tried:  # all of them were on the screen before: go back to it
                    tried.add(card)
                    yield JSONAction(action_type="scroll", direction="up")
                    if (yield from self.find_copy(env, card)):
                        return True
                    yield JSONAction(action_type="scroll", direction="down")
            return False

        counts, scrolled, found, whole = yield from scan_titles(env, visit)
        # Titles with look-alike cards, the most repeated first: the likeliest copies.
        candidates = [
            c for c in sorted(counts, key=lambda c: -counts[c]) if counts[c] > 1 and c not in tried
        ]
        searched = False
        for i, (title, description) in enumerate([] if found else candidates):
            if scrolled:  # narrow the list to these look-alikes, so they fit on one screen
                if not searched:
                    yield ui.tap(env, desc="Search")
                yield JSONAction(
                    action_type="input_text",
                    index=ui.require(env, ui.hint_is("Search"), "the search field"),
                    text=f"{title} {description}",
                    clear_text=True,
                )
                searched = True
            last = whole and i == len(candidates) - 1  # the others ruled out: the pair's group
            found = yield from self.find_copy(
                env, (title, description), overflow=scrolled, last=last
            )
            if found:
                break
        if not found:  # never a "complete" for a task left undone
            raise RuntimeError("Oracle found no two recipes with the same details.")
        yield ui.done()

    @staticmethod
    def find_copy(
        env: interface.AsyncEnv,
        card: Card,
        overflow: bool = False,
        bottom_up: bool = False,
        last: bool = False,
    ) -> Iterator[JSONAction]:
        """Open the cards that look like `card` one by one; delete the first whose details
        repeat an earlier one's. True if one was deleted.

        `overflow`: the (searched) list may be longer than the screen; then scroll to its end
        and compare from the bottom up (`bottom_up`: the list was scrolled to these cards), the
        nearest first, as copies sit side by side in the A-Z list. `last`: every other group
        was ruled out, so two look-alikes here are the pair: delete one without comparing.
        """
        if overflow and any(e.package_name == ui.IME_PACKAGE for e in ui.elements(env)):
            yield JSONAction(action_type="navigate_back")  # the keyboard hides most of the list
        longer = False  # the list runs on above this screen
        while overflow and not list_ends_on_screen(env):
            before = [(c, y) for _, c, y in cards_on_screen(env)]
            yield JSONAction(action_type="scroll", direction="down")
            if [(c, y) for _, c, y in cards_on_screen(env)] == before:  # look-alikes: by place
                break
            bottom_up = longer = True
        count = sum(c == card for _, c, _ in cards_on_screen(env))
        if last and count == 2 and not longer:
            first = next(c for c in cards_on_screen(env) if c[1] == card)
            yield JSONAction(action_type="click", index=first[0])
            yield from delete_open_recipe(env)
            return True
        seen: list[tuple[str, ...]] = []
        for position in range(count):
            same = [c for c in cards_on_screen(env) if c[1] == card]
            if bottom_up:
                same.reverse()
            if (yield from open_and_compare(env, same[position][0], seen)):
                return True
        if not longer:
            return False
        return (yield from compare_upward(env, card, seen))


def compare_upward(
    env: interface.AsyncEnv, card: Card, seen: list[tuple[str, ...]]
) -> Iterator[JSONAction]:
    """The searched list is longer than the screen and its last screen held no copy: walk it
    up, opening each look-alike not opened yet; True once a copy is found and deleted.

    Look-alike cards cannot be told apart by sight, so each keeps its place on the list: the
    walk scrolls on a card's description (a drag of half its height, less than half a card's
    pitch), so how far the list moved is the one shift under half a pitch that maps the cards
    before onto the cards after."""
    opened = [y for _, c, y in cards_on_screen(env) if c == card]  # places on the first screen
    shift = 0
    for _ in range(64):
        before = cards_on_screen(env)
        if not before:
            return False
        descriptions = [
            i
            for i, e in enumerate(ui.elements(env))
            if e.resource_name == "card_text_view_description" and ui.visible(e)
        ]
        if not descriptions:
            return False
        yield JSONAction(action_type="scroll", direction="up", index=descriptions[0])
        after = cards_on_screen(env)
        moved = list_shift([y for _, _, y in before], [y for _, _, y in after])
        if not moved:
            return False  # the list's top
        shift += moved
        for index, other, y in after:
            place = y - shift
            if other != card or any(abs(place - p) <= 3 for p in opened):
                continue
            opened.append(place)
            if (yield from open_and_compare(env, index, seen)):
                return True
    return False


def open_and_compare(
    env: interface.AsyncEnv, index: int, seen: list[tuple[str, ...]]
) -> Iterator[JSONAction]:
    """Open the card at `index`: a copy of one opened before is deleted (True); otherwise its
    details join `seen` and the list is shown again."""
    yield JSONAction(action_type="click", index=index)
    details = read_details(env)
    if details in seen:
        yield from delete_open_recipe(env)
        return True
    seen.append(details)
    yield JSONAction(action_type="navigate_back")
    return False


def list_shift(before: list[int], after: list[int], most: int = 100) -> int:
    """How far a small scroll up moved the cards (0 if not at all): the smallest downward
    move of at most `most` px that takes some card's top before to some card's top after."""
    moves = sorted({b - a for a in before for b in after if 0 <= b - a <= most})
    return moves[0] if moves else 0


class RecipeDeleteDuplicateRecipes(_RecipeDeleteDuplicates):
    difficulty = "easy"
    eager = True  # random noise: look-alikes are rarely decoys
    tags = ("search", "data_edit", "screen_reading", "repetition", "parameterized")
    optimal_steps = 4
    complexity = 1
    n_rows_noise = 5


class RecipeDeleteDuplicateRecipes2(_RecipeDeleteDuplicates):
    """Noise includes near-duplicates of the target (same title, other details)."""

    difficulty = "medium"
    tags = ("repetition", "data_edit", "parameterized")
    optimal_steps = 11

    complexity = 2.4
    n_rows_noise = 10

    @classmethod
    def draw(cls) -> tuple[Recipe, list[Recipe]]:
        noise = random_recipes(7)
        target = noise.pop()
        cls.add_variants(target, noise, cls.n_rows_noise, lambda r: r["title"] == target["title"])
        return target, noise


class RecipeDeleteDuplicateRecipes3(_RecipeDeleteDuplicates):
    """More noise, three look-alikes at the top of the list, and near-duplicates that share
    the target's title and description: only the details tell them apart."""

    difficulty = "medium"
    tags = ("data_edit", "parameterized")
    optimal_steps = 16

    complexity = 3.4
    n_rows_noise = 30

    @classmethod
    def draw(cls) -> tuple[Recipe, list[Recipe]]:
        top = "Avocado Toast with Egg"
        noise = random_recipes(22, lambda r: r["title"] != top)
        target = noise.pop()
        noise += random_recipes(3, lambda r: r["title"] == top)
        cls.add_variants(
            target,
            noise,
            cls.n_rows_noise,
            lambda r: r["title"] == target["title"] and r["description"] == target["description"],
        )
        return target, noise


class _RecipeAddRecipes(_AddRowsTask, _Recipe):
    """Add recipes described in the goal, with ten other recipes already present; upstream
    compares every text field fuzzily and `favorite` exactly."""

    complexity = 3
    n_rows = 3
    n_rows_noise = 10
    difficulty = "medium"
    tags = ("data_entry", "parameterized")
    optimal_steps = 10
    compare = tuple(f for f in _INSERTED if f != "imageName")  # upstream leaves the image out
    free_form = tuple(f for f in compare if f != "favorite")

    @property
    def goal(self) -> str:
        text = rows_as_text(self.params[ROW_OBJECTS], self.params[TEXT_REPRESENTATION_TYPE])
        return f"Add the following recipes into the Broccoli app:\n{text}"

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        targets = random_recipes(cls.n_rows)
        # Upstream's filter: a noise recipe differs in title from at least one target.
        noise = random_recipes(
            cls.n_rows_noise, lambda r: any(r["title"] != t["title"] for t in targets)
        )
        return {
            ROW_OBJECTS: targets,
            NOISE_ROW_OBJECTS: noise,
            TEXT_REPRESENTATION_TYPE: random.choice(["csv", "text_block"]),
        }

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from add_recipes(env, self.params[ROW_OBJECTS])
        yield ui.done()


def add_recipes(env: interface.AsyncEnv, recipes: list[Recipe]) -> Iterator[JSONAction]:
    """Open Broccoli and fill and save the New recipe form once per recipe."""
    yield ui.open_app("Broccoli")
    for recipe in recipes:
        yield ui.tap(env, desc="New recipe")
        for field, hint in broccoli_facts.FORM_FIELDS:
            if not recipe[field]:
                continue
            index = yield from ui.scroll_to(
                env, ui.hint_is(hint), hint, container=ui.res_is("recipe_form")
            )
            yield JSONAction(action_type="input_text", index=index, text=recipe[field])
        yield ui.tap(env, desc="Save")


class RecipeAddSingleRecipe(_RecipeAddRecipes):
    difficulty = "easy"
    tags = ("data_entry", "parameterized")
    optimal_steps = 12
    complexity = 2.4
    n_rows = 1
    n_rows_noise = 10


class RecipeAddMultipleRecipes(_RecipeAddRecipes):
    difficulty = "medium"
    tags = ("data_entry", "parameterized")
    optimal_steps = 34
    complexity = 6
    n_rows = 3
    n_rows_noise = 10
