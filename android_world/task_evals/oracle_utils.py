"""The oracles' eyes and hands: find an element on the live screen, scroll until it is in view,
and build the action that taps it or types into it.

Every task's `oracle_actions` solves its task by these alone: they read only the element list
of `env.get_state()` (never app state), so a reference solution shows what an agent could do.
Elements are matched by predicates (`text_is`, `desc_is`, ..., or `matching(text=..., ...)` for
several at once); by default only elements fully inside the app's area count, as a tap on an
element half under a list edge is not what a user would do.

Solutions are written once, in stock English, for every phone: a label also matches its vendor
variants (`env/vendor_labels.py`: "Wi-Fi" finds "WLAN", "Save" finds "Done"; an exact match
wins), the app's area is read from the live screen's system bars (any size, density or
orientation), and `first_launch_popup` finds the pop-up an app shows on its first start, which
the oracle agent closes before the solution goes on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from android_world.env import device, interface, representation_utils, vendor_labels
from android_world.env.json_action import JSONAction

Element = representation_utils.UIElement
Match = Callable[[Element], bool]

# The app's area on the default 1080x2400 screen: below the status bar, above the navigation
# bar (sim and emulator alike). Used when a screen shows no system bars to read it from.
CONTENT_TOP, CONTENT_BOTTOM = 110, device.SCREEN_HEIGHT - 132
SYSTEMUI = "com.android.systemui"
_NO_EDGE = 1_000_000


class _Match:
    """A predicate that also knows its strict form: `find` tries the strict one first, so a
    stock label on a stock phone never settles for a variant that happens to be on screen."""

    def __init__(self, exact: Match, loose: Match):
        self.exact, self.loose = exact, loose

    def __call__(self, element: Element) -> bool:
        return self.loose(element)


def _label_match(get: Callable[[Element], str | None], label: str) -> _Match:
    wanted = label.strip().lower()
    names = vendor_labels.equivalents(label)
    return _Match(
        lambda e: (get(e) or "").strip().lower() == wanted,
        lambda e: (get(e) or "").strip().lower() in names,
    )


# ---- what to look for ----------------------------------------------------------------------


def text_is(text: str) -> Match:
    """Text equal to `text` (case-insensitive), or to one of its vendor variants."""
    return _label_match(lambda e: e.text, text)


def desc_is(desc: str) -> Match:
    """Content description equal to `desc` (case-insensitive), or to a vendor variant."""
    return _label_match(lambda e: e.content_description, desc)


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
    strict = [getattr(test, "exact", test) for test in tests]
    return _Match(
        lambda e: all(test(e) for test in strict), lambda e: all(test(e) for test in tests)
    )


def describe(**criteria: str | None) -> str:
    return " and ".join(f"{k} {v!r}" for k, v in criteria.items() if v is not None)


# ---- looking ---------------------------------------------------------------------------------


# The app's area on the screen `elements` read last, with the elements read: what
# `visible(e)` without an area means for one of them, so a solution calling `visible` on the
# elements it just read gets the live screen's area (any other element: the default screen's).
_last_read: tuple[list[Element], frozenset[int], tuple[int, int]] = ([], frozenset(), (0, 0))


def elements(env: interface.AsyncEnv) -> list[Element]:
    global _last_read
    items = env.get_state().ui_elements
    _last_read = (
        items,
        frozenset(id(e) for e in items),
        content_area(items),
    )  # items: ids stay unique
    return items


def content_area(items: list[Element]) -> tuple[int, int]:
    """(top, bottom) of the app's area on this screen: under the status bar's icons, above the
    navigation bar, whatever the screen's size; the default screen's when no bar shows."""
    bars = [
        e.bbox_pixels for e in items if e.package_name == SYSTEMUI and e.bbox_pixels is not None
    ]
    if not bars:
        return CONTENT_TOP, CONTENT_BOTTOM
    screen_bottom = max(b.y_max for b in bars)
    status = [b.y_max for b in bars if b.center[1] < screen_bottom * 0.1]
    nav = [  # a bottom bar's buttons are wide; a landscape phone's side bar's are tall
        b.y_min
        for b in bars
        if b.y_max >= screen_bottom - 2
        and b.y_min > screen_bottom / 2
        and b.x_max - b.x_min >= b.y_max - b.y_min
    ]
    # No bar below the app (a landscape phone's is on the side): its area reaches the edge.
    return (max(status, default=CONTENT_TOP), min(nav, default=_NO_EDGE))


def visible(element: Element, area: tuple[int, int] | None = None) -> bool:
    """Fully tappable: a real height inside the app's area (not cut by a list edge)."""
    if area is None:
        area = _last_read[2] if id(element) in _last_read[1] else (CONTENT_TOP, CONTENT_BOTTOM)
    top, bottom = area
    box = element.bbox_pixels
    return (
        box is not None and box.y_max - box.y_min >= 30 and box.y_min >= top and box.y_max <= bottom
    )


def find(items: list[Element], match: Match, *, need_visible: bool = True) -> int | None:
    """Index of the first element matching (and, by default, fully visible); an exact label
    match wins over a vendor variant."""
    area = content_area(items) if need_visible else None
    for test in (getattr(match, "exact", None), match):
        if test is None:
            continue
        for i, element in enumerate(items):
            if test(element) and (not need_visible or visible(element, area)):
                return i
    return None


def require(env: interface.AsyncEnv, match: Match, what: str) -> int:
    """Index of the element to act on. One the window hides (under the keyboard, past the
    edge of a short or landscape screen) still counts: the oracle agent brings it into view
    before it acts (`reveal_step`)."""
    items = elements(env)
    index = find(items, match)
    if index is None:
        index = find(items, match, need_visible=False)
    if index is None:
        raise RuntimeError(f"Oracle could not find {what} on screen.")
    return index


def identity(element: Element) -> tuple:
    """What an element is, apart from where it is: to find it again after a scroll."""
    return (
        element.text,
        element.content_description,
        element.hint_text,
        element.resource_name,
        element.class_name,
    )


def clipped_out(element: Element) -> bool:
    """In the tree but shown nowhere: scrolled or panned out of the window (no visible box)."""
    box = element.bbox_pixels
    return box is not None and (box.y_max <= box.y_min or box.x_max <= box.x_min)


def locate(items: list[Element], key: tuple) -> int | None:
    """Index of the element with this identity on screen: fully visible first, else in part."""
    area = content_area(items)
    matches = [i for i, e in enumerate(items) if identity(e) == key and not clipped_out(e)]
    full = [i for i in matches if visible(items[i], area)]
    return (full or matches or [None])[0]


IME_PACKAGE = "com.google.android.inputmethod.latin"


def keyboard_hides_focus(items: list[Element]) -> bool:
    """The keyboard is up and cuts the focused field (a short window after Enter moved the
    focus down): what follows it is hidden until the keyboard goes."""
    ime = [e.bbox_pixels.y_min for e in items if e.package_name == IME_PACKAGE and e.bbox_pixels]
    if not ime:
        return False
    ime_top = min(ime)
    return any(
        e.is_focused
        and e.is_editable
        and e.bbox_pixels is not None
        and (e.bbox_pixels.y_max - e.bbox_pixels.y_min < 30 or e.bbox_pixels.y_max >= ime_top - 1)
        for e in items
    )


def reveal_step(items: list[Element], key: tuple, flip: bool = False) -> JSONAction | None:
    """One action toward showing a hidden element: hide the keyboard first (a panned window
    hides the top of the screen), then scroll toward it (`flip`: the other way, when that did
    not move anything). None when it is in view or nowhere."""
    if locate(items, key) is not None:
        return None
    top, bottom = content_area(items)
    hidden = [
        e.bbox_pixels
        for e in items
        if identity(e) == key and e.package_name not in (SYSTEMUI, IME_PACKAGE) and clipped_out(e)
    ]
    if not hidden or any(identity(e) == key and not clipped_out(e) for e in items):
        return None  # on screen, if only in part: tapping it is fine
    if any(e.package_name == IME_PACKAGE for e in items):
        return JSONAction(action_type="navigate_back")
    box = hidden[0]
    # A view clipped out of sight sits at (or past) the edge it went out by: below the middle
    # of the app's area means further down.
    below = box.y_max > bottom or box.y_min >= (top + bottom) / 2
    direction = ("up" if below else "down") if flip else ("down" if below else "up")
    return JSONAction(action_type="scroll", direction=direction)


def row_texts_near(items: list[Element], anchor: Element, tolerance: int = 110) -> list[Element]:
    """Elements with text on the same list row as `anchor` (vertical centres close together),
    nearest first: on a dense screen a neighbouring row cut by the list's edge can come close."""
    assert anchor.bbox_pixels is not None
    y = anchor.bbox_pixels.center[1]
    near = [
        e
        for e in items
        if e.text
        and e.bbox_pixels is not None
        and not clipped_out(e)  # scrolled out of sight: its box says nothing about its row
        and abs(e.bbox_pixels.center[1] - y) <= tolerance
    ]
    return sorted(near, key=lambda e: abs(e.bbox_pixels.center[1] - y))  # type: ignore[union-attr]


def _texts_and_rows(items: list[Element]) -> tuple:
    return tuple((e.text, e.bbox_pixels.y_min if e.bbox_pixels else None) for e in items if e.text)


def _screen_size(items: list[Element]) -> tuple[int, int]:
    boxes = [e.bbox_pixels for e in items if e.bbox_pixels is not None]
    return max(b.x_max for b in boxes), max(b.y_max for b in boxes)


def list_scroll(items: list[Element], list_index: int | None, direction: str) -> JSONAction:
    """The longest scroll of a list that lets no row pass unseen.

    A scroll on the list drags from its centre to its edge: half its height. On a short
    (landscape) screen a dialog's list is most of the screen's height, and a person drags over
    the whole list; a whole-screen scroll (from the screen's centre, half the screen) does that
    when it starts on the list and moves it at most its height less 60 px, so every row still
    shows at least 30 px of itself on one screen or the next (what `visible` asks)."""
    if list_index is None:
        return JSONAction(action_type="scroll", direction=direction)
    box = items[list_index].bbox_pixels
    if box is not None:
        width, height = _screen_size(items)
        on_list = box.x_min <= width / 2 <= box.x_max and box.y_min <= height / 2 <= box.y_max
        if on_list and height / 2 <= (box.y_max - box.y_min) - 60:
            return JSONAction(action_type="scroll", direction=direction)
    return JSONAction(action_type="scroll", direction=direction, index=list_index)


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
        yield list_scroll(items, list_index, direction)
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


# First-launch pop-ups, as stock Android and common apps word them, and the button that
# declines each (a decline never changes what a task checks).
_POPUP_TITLE = re.compile(
    r"allow .+ to send you notifications\?|what's new( in .+)?|enjoying .+\?|rate (this|the) app",
    re.IGNORECASE,
)
_POPUP_DECLINE = ("don't allow", "not now", "no thanks", "maybe later", "got it")


def first_launch_popup(items: list[Element]) -> int | None:
    """Index of the button that closes a first-launch pop-up on screen (None if none shows)."""
    if not any(_POPUP_TITLE.fullmatch((e.text or "").strip()) for e in items):
        return None
    for wanted in _POPUP_DECLINE:
        for i, element in enumerate(items):
            if (element.text or "").strip().lower() == wanted:
                return i
    return None


def open_app(name: str) -> JSONAction:
    return JSONAction(action_type="open_app", app_name=name)


def done() -> JSONAction:
    return JSONAction(action_type="status", goal_status="complete")
