"""Upstream's browser tasks (`single/browser.py`): a local page, task.html in Download, opened
from the file manager with Chrome, with a puzzle to solve on it.

Set-up is upstream's: shared storage and Chrome's data are cleared (so Chrome shows its
first-run screens again), automatic time is turned on, and the page is written for the drawn
seed (`device_facts.chrome`: our own page, with upstream's puzzle for that seed). Success is
upstream's: Chrome is in front and some element on screen reads "Success!".

The reference solutions open the page as the goal says (Files, Download, task.html, "Just
once"), go through Chrome's first run, then solve the page: the multiply page's numbers are
read off the screen; the maze's walls and the draw page's colours are pictures (no text in the
tree), so the solutions take them from the seed, which fixes what the page shows, as a person
would see them. When the draw page does not fit the screen (its canvas takes every drag, so the
page cannot be scrolled past it), the solution zooms the page out first.
"""

from __future__ import annotations

import collections
import random
from collections.abc import Iterator
from typing import Any

from android_world.env import device, interface
from android_world.env.device_facts import chrome as facts
from android_world.env.json_action import JSONAction
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals import task_eval
from android_world.task_evals.single.pictures import clear_shared_storage

SEED = "browser_task_seed"
_PREAMBLE = (
    "Open the file task.html in Downloads in the file manager; when prompted open it with Chrome."
)
_STROKES = ("down", "right", "up", "left")  # one stroke per colour, each from the canvas's centre


class _BrowserTask(task_eval.TaskEval):
    """The page named by `page_kind`, for a seed drawn as upstream draws it."""

    app_names = ("chrome",)
    complexity = 2
    schema = {
        "type": "object",
        "properties": {SEED: {"type": "number"}},
        "required": [SEED],
    }
    template = ""  # goals are built in `goal`, as upstream does
    page_kind = ""
    fidelity_notes = (
        "the page is our own (same puzzle for a seed, same texts and behaviour), and the sim's"
        " clock stays at the task's time: with automatic time on, a phone would take the"
        " network's",
    )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {SEED: random.randint(0, 2**32 - 1)}

    @property
    def seed(self) -> int:
        return int(self.params[SEED])

    def initialize_device_time(self, env: interface.AsyncEnv) -> None:
        """Upstream turns automatic date and time on for these tasks (not the fixed date)."""
        env.controller.put_setting("global", "auto_time", "1")
        env.controller.put_setting("global", "auto_time_zone", "1")

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_shared_storage(env)
        env.controller.close_recents()
        env.controller.remove(facts.DATA_DIR)  # `pm clear`: the first run comes back
        env.controller.write_text(facts.TASK_PAGE, facts.page_html(self.page_kind, self.seed))

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_shared_storage(env)
        env.controller.remove(facts.DATA_DIR)
        env.controller.put_setting("global", "auto_time", "0")
        env.controller.put_setting("global", "auto_time_zone", "0")

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        if env.controller.foreground_package() != facts.PACKAGE:
            return 0.0
        shown = env.get_state().ui_elements
        return 1.0 if any(e.text == facts.SUCCESS_TEXT for e in shown) else 0.0

    # reference solution ------------------------------------------------------------------
    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from open_task_page(env)
        yield from self.solve(env)
        yield ui.done()

    def solve(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        raise NotImplementedError
        yield  # pragma: no cover


def open_task_page(env: interface.AsyncEnv) -> Iterator[JSONAction]:
    """Files, Download, task.html, "Just once", then Chrome's first run if it shows."""
    yield ui.open_app("Files")
    yield from ui.scroll_and_tap(env, device.DOWNLOAD_DATA.rsplit("/", 1)[-1])
    yield from ui.scroll_and_tap(env, facts.TASK_PAGE.rsplit("/", 1)[-1])
    yield ui.tap(env, text="Just once")
    for button in ("Accept & continue", "No thanks"):
        if ui.find(ui.elements(env), ui.text_is(button)) is not None:
            yield ui.tap(env, text=button)


def _page_elements(env: interface.AsyncEnv) -> list[tuple[int, ui.Element]]:
    """(index, element) of the page's own elements, below Chrome's toolbar, in tree order."""
    items = ui.elements(env)
    web = ui.find(items, ui.class_endswith("WebView"), need_visible=False)
    if web is None:
        raise RuntimeError("Oracle found no web page on screen.")
    return [(i, e) for i, e in enumerate(items) if i > web and e.package_name == facts.PACKAGE]


class BrowserMaze(_BrowserTask):
    page_kind = "maze"
    complexity = 2
    difficulty = "easy"
    tags = (
        "game_playing",
        "multi_app",
        "complex_ui_understanding",
        "memorization",
        "parameterized",
    )
    optimal_steps = 9

    @property
    def goal(self) -> str:
        return (
            f"{_PREAMBLE} Then navigate the X to the bottom-right cell, by using the direction"
            " buttons."
        )

    def solve(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        # The walls are black cells on the page (a picture): the seed fixes them.
        for move in maze_path(facts.maze(self.seed)):
            yield ui.tap(env, text=move.capitalize())


def maze_path(layout: tuple[str, ...]) -> list[str]:
    """The fewest direction buttons from the top-left cell to the goal (breadth first)."""
    start = (0, 0)
    came: dict[tuple[int, int], tuple[tuple[int, int], str] | None] = {start: None}
    queue = collections.deque([start])
    while queue:
        at = queue.popleft()
        if layout[at[0]][at[1]] == facts.GOAL:
            path = []
            while came[at] is not None:
                at, move = came[at]  # type: ignore[misc]
                path.append(move)
            return path[::-1]
        for move in facts.MOVES:
            nxt = facts.maze_step(layout, at, move)
            if nxt not in came:
                came[nxt] = (at, move)
                queue.append(nxt)
    raise RuntimeError("The maze has no way to its goal.")


class BrowserMultiply(_BrowserTask):
    page_kind = "multiply"
    complexity = 2.2
    difficulty = "hard"
    tags = ("math_counting", "memorization", "screen_reading")
    optimal_steps = 11

    @property
    def goal(self) -> str:
        return (
            f"{_PREAMBLE} Then click the button 5 times, remember the numbers displayed, and enter"
            " their product in the form."
        )

    def solve(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        product = 1
        for _ in range(facts.MULTIPLY_CLICKS):
            product *= shown_number(env)
            yield ui.tap(env, text="Click Me")
        yield ui.type_into(env, ui.hint_is("Enter the product"), str(product), "the answer field")
        yield ui.tap(env, text="Submit")


def shown_number(env: interface.AsyncEnv) -> int:
    """The number the multiply page shows (its one text that is a number)."""
    for _, element in _page_elements(env):
        if (element.text or "").isdigit():
            return int(element.text or "")
    raise RuntimeError("Oracle found no number on the page.")


class BrowserDraw(_BrowserTask):
    page_kind = "draw"
    complexity = 2
    difficulty = "easy"
    tags = ("game_playing", "parameterized")
    optimal_steps = 5

    @property
    def goal(self) -> str:
        return (
            f"{_PREAMBLE} Then create a drawing using the three colors shown at the top and hit"
            " submit."
        )

    def solve(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from fit_page(env)
        # The three colours are swatches at the top of the page (a picture): the seed fixes them.
        for color, stroke in zip(facts.draw_colors(self.seed), _STROKES, strict=False):
            swatches = palette(env)
            yield JSONAction(
                action_type="click", index=swatches[facts.AVAILABLE_COLORS.index(color)]
            )
            canvas = ui.require(env, ui.res_is("canvas"), "the canvas")
            yield JSONAction(action_type="scroll", direction=stroke, index=canvas)
        yield ui.tap(env, text="Submit")


def palette(env: interface.AsyncEnv) -> list[int]:
    """Indices of the palette's colour buttons (buttons without a label), in page order."""
    return [
        i
        for i, e in _page_elements(env)
        if (e.class_name or "").endswith("Button") and not e.text and not e.content_description
    ]


def _page_fits(env: interface.AsyncEnv) -> bool:
    """The canvas, every palette button and Submit lie whole inside the page's window."""
    items = ui.elements(env)
    web = ui.find(items, ui.class_endswith("WebView"), need_visible=False)
    wanted = [items[i] for i in palette(env)]
    for match in (ui.res_is("canvas"), ui.text_is("Submit")):
        index = ui.find(items, match, need_visible=False)
        if index is not None:
            wanted.append(items[index])
    if web is None or len(wanted) != len(facts.AVAILABLE_COLORS) + 2:
        return False
    window = items[web].bbox_pixels
    return window is not None and all(  # one cut by the window's edge ends on that edge
        (box := e.bbox_pixels) is not None
        and not ui.clipped_out(e)
        and window.y_min < box.y_min
        and box.y_max < window.y_max
        for e in wanted
    )


def fit_page(env: interface.AsyncEnv, max_steps: int = 8) -> Iterator[JSONAction]:
    """Zoom the page out (Chrome's menu, Zoom, "Decrease zoom") until the canvas, the palette and
    Submit all show at once, then close the zoom bar."""
    if _page_fits(env):
        return
    yield ui.tap(env, desc="Customize and control Google Chrome")
    yield ui.tap(env, text="Zoom")
    for _ in range(max_steps):
        yield ui.tap(env, desc="Decrease zoom")
        if _page_fits(env):
            yield JSONAction(action_type="navigate_back")  # the bar away: the page grows
            return
    raise RuntimeError("Oracle could not zoom the page to fit the screen.")
