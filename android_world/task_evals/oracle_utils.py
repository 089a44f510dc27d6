"""The oracles' eyes and hands: find an element on the live screen, scroll until it is in view,
and build the action that taps it or types into it.

Every task's `oracle_actions` solves its task by these alone: they read only the element list
of `env.get_state()` (never app state), so a reference solution shows what an agent could do.
Elements are matched by predicates (`text_is`, `desc_is`, ..., or `matching(text=..., ...)` for
several at once); by default only elements fully inside the app's area count, as a tap on an
element half under a list edge is not what a user would do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from android_world.env import device, interface, representation_utils
from android_world.env.json_action import JSONAction

Element = representation_utils.UIElement
Match = Callable[[Element], bool]

# The app's area: below the status bar, above the navigation bar (sim and emulator alike).
CONTENT_TOP, CONTENT_BOTTOM = 110, device.SCREEN_HEIGHT - 132


# ---- what to look for ----------------------------------------------------------------------


def text_is(text: str) -> Match:
    wanted = text.strip().lower()
    return lambda e: (e.text or "").strip().lower() == wanted


def desc_is(desc: str) -> Match:
    wanted = desc.lower()
    return lambda e: (e.content_description or "").lower() == wanted


def hint_is(hint: str) -> Match:
    wanted = hint.lower()
    return lambda e: (e.hint_text or "").lower() == wanted


def res_is(res: str) -> Match:
    return lambda e: e.resource_name == res


def class_endswith(suffix: str) -> Match:
    return lambda e: (e.class_name or "").endswith(suffix)


def matching(
    *,
    text: str | None = None,
    desc: str | None = None,
    hint: str | None = None,
    res: str | None = None,
    class_suffix: str | None = None,
) -> Match:
    """An element meeting every criterion given (text, description, hint: case-insensitive)."""
    tests = [
        make(value)
        for make, value in (
            (text_is, text),
            (desc_is, desc),
            (hint_is, hint),
            (res_is, res),
            (class_endswith, class_suffix),
        )
        if value is not None
    ]
    return lambda e: all(test(e) for test in tests)


def describe(**criteria: str | None) -> str:
    return " and ".join(f"{k} {v!r}" for k, v in criteria.items() if v is not None)


# ---- looking ---------------------------------------------------------------------------------


def elements(env: interface.AsyncEnv) -> list[Element]:
    return env.get_state().ui_elements


def visible(element: Element) -> bool:
    """Fully tappable: a real height inside the app's area (not cut by a list edge)."""
    box = element.bbox_pixels
    return (
        box is not None
        and box.y_max - box.y_min >= 30
        and box.y_min >= CONTENT_TOP
        and box.y_max <= CONTENT_BOTTOM
    )


def find(items: list[Element], match: Match, *, need_visible: bool = True) -> int | None:
    """Index of the first element matching (and, by default, fully visible)."""
    for i, element in enumerate(items):
        if match(element) and (not need_visible or visible(element)):
            return i
    return None


def require(env: interface.AsyncEnv, match: Match, what: str) -> int:
    index = find(elements(env), match)
    if index is None:
        raise RuntimeError(f"Oracle could not find {what} on screen.")
    return index


def row_texts_near(items: list[Element], anchor: Element, tolerance: int = 110) -> list[Element]:
    """Elements with text on the same list row as `anchor` (vertical centres close together)."""
    assert anchor.bbox_pixels is not None
    y = anchor.bbox_pixels.center[1]
    return [
        e
        for e in items
        if e.text and e.bbox_pixels is not None and abs(e.bbox_pixels.center[1] - y) <= tolerance
    ]


def _texts_and_rows(items: list[Element]) -> tuple:
    return tuple((e.text, e.bbox_pixels.y_min if e.bbox_pixels else None) for e in items if e.text)


def scroll_to(
    env: interface.AsyncEnv,
    match: Match,
    what: str,
    *,
    max_scrolls: int = 8,
    container: Match | None = None,
) -> Iterator[JSONAction]:
    """Scroll (down, then back up once the end is reached) until `match` is fully visible.

    Returns the element's index: `index = yield from scroll_to(...)`. `container` picks the
    list to scroll (the whole screen by default).
    """
    direction = "down"
    for _ in range(max_scrolls + 1):
        items = elements(env)
        index = find(items, match)
        if index is not None:
            return index
        list_index = find(items, container, need_visible=False) if container else None
        before = _texts_and_rows(items)
        yield JSONAction(action_type="scroll", direction=direction, index=list_index)
        if _texts_and_rows(elements(env)) == before:  # the list's end: try the other way once
            if direction == "up":
                break
            direction = "up"
    raise RuntimeError(f"Oracle could not find {what}, even after scrolling.")


# ---- acting ----------------------------------------------------------------------------------


def click(env: interface.AsyncEnv, match: Match, what: str, *, long: bool = False) -> JSONAction:
    action = "long_press" if long else "click"
    return JSONAction(action_type=action, index=require(env, match, what))


def tap(
    env: interface.AsyncEnv, *, text: str | None = None, desc: str | None = None, long: bool = False
) -> JSONAction:
    """Click (or long-press) the element with this text or description."""
    return click(env, matching(text=text, desc=desc), describe(text=text, desc=desc), long=long)


def scroll_and_tap(env: interface.AsyncEnv, text: str, long: bool = False) -> Iterator[JSONAction]:
    index = yield from scroll_to(env, text_is(text), repr(text))
    yield JSONAction(action_type="long_press" if long else "click", index=index)


def tap_through(
    env: interface.AsyncEnv, labels: tuple[str, ...], max_scrolls: int = 4
) -> Iterator[JSONAction]:
    """Click each label in turn (a path through menus), scrolling to labels off screen."""
    for label in labels:
        index = yield from scroll_to(env, text_is(label), repr(label), max_scrolls=max_scrolls)
        yield JSONAction(action_type="click", index=index)


def type_into(env: interface.AsyncEnv, match: Match, text: str, what: str) -> JSONAction:
    return JSONAction(action_type="input_text", index=require(env, match, what), text=text)


def set_switch(env: interface.AsyncEnv, name: str, on: bool) -> Iterator[JSONAction]:
    """Click the switch described as `name` if it is not already in the wanted state."""
    items = elements(env)
    index = find(items, matching(desc=name, class_suffix="Switch"))
    if index is None:
        raise RuntimeError(f"Oracle could not find the {name!r} switch.")
    if bool(items[index].is_checked) != on:
        yield JSONAction(action_type="click", index=index)


def open_app(name: str) -> JSONAction:
    return JSONAction(action_type="open_app", app_name=name)


def done() -> JSONAction:
    return JSONAction(action_type="status", goal_status="complete")
