"""What the media tasks share: upstream's playlist check and the oracles' way through A-Z lists.

Upstream checks a VLC or Retro Music playlist the same way (`verify_playlist` in its sqlite
validators): the rows whose playlist name fuzzy-matches the wanted name must be exactly as many as
the wanted files, and file i must sit at position i among them. Media apps list songs and videos
A-Z by title and add a selection in the order it was picked, so an oracle picks the wanted rows in
the goal's order, scrolling toward each by comparing its title with the rows on screen.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from android_world.env import interface
from android_world.env.json_action import JSONAction
from android_world.task_evals.oracle_utils import (
    Element,
    elements,
    find,
    list_scroll,
    matching,
    res_is,
    visible,
)
from android_world.task_evals.single.files import fuzzy_match

_TITLE_RES = "android:id/title"


@dataclasses.dataclass(frozen=True)
class PlaylistRow:
    """One song or video of a playlist, as upstream's playlist queries return it."""

    playlist_name: str
    media_file_name: str
    order_in_playlist: int
    duration_ms: int | None = None


def verify_playlist(rows: list[PlaylistRow], name: str, files: list[str]) -> bool:
    """Upstream's rule: exactly len(files) rows under the name (fuzzy), file i at position i."""
    named = [r for r in rows if fuzzy_match(r.playlist_name, name)]
    if len(named) != len(files):
        return False
    return all(
        any(r.media_file_name == file and r.order_in_playlist == i for r in named)
        for i, file in enumerate(files)
    )


# ---- oracles ----------------------------------------------------------------------------------


def row_titles(items: list[Element], list_res: str) -> list[str]:
    """Titles of the rows fully shown in the list `list_res`, top to bottom."""
    index = find(items, res_is(list_res), need_visible=False)
    if index is None:
        return []
    box = items[index].bbox_pixels
    assert box is not None
    return [
        e.text
        for e in items
        if e.resource_name == _TITLE_RES
        and e.text
        and e.bbox_pixels is not None
        and box.y_min <= e.bbox_pixels.y_min
        and e.bbox_pixels.y_max <= box.y_max
        and visible(e)
    ]


def scroll_to_title(
    env: interface.AsyncEnv, title: str, list_res: str, max_scrolls: int = 12
) -> Iterator[JSONAction]:
    """Scroll an A-Z list toward `title` until its row is fully shown; returns its index."""
    flipped = False
    for _ in range(max_scrolls + 1):
        items = elements(env)
        index = find(items, matching(text=title, res=_TITLE_RES))
        if index is not None:
            return index
        shown = row_titles(items, list_res)
        above = bool(shown) and title.lower() < shown[0].lower()
        direction = "up" if above != flipped else "down"
        before = [(e.text, e.bbox_pixels) for e in items]
        yield list_scroll(items, find(items, res_is(list_res), need_visible=False), direction)
        if [(e.text, e.bbox_pixels) for e in elements(env)] == before:
            if flipped:
                break
            flipped = True  # at the list's end: the row must be the other way
    raise RuntimeError(f"Oracle could not find {title!r} in the list, even after scrolling.")


def select_in_order(
    env: interface.AsyncEnv, titles: list[str], list_res: str
) -> Iterator[JSONAction]:
    """Long-press the first row, then tap the others, in the order given."""
    for n, title in enumerate(titles):
        index = yield from scroll_to_title(env, title, list_res)
        yield JSONAction(action_type="long_press" if n == 0 else "click", index=index)
