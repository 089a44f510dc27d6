"""Retro Music tasks, upstream `single/retro_music.py`.

Upstream reads the app's databases (`device_facts.retro_music`): a playlist is the
`SongEntity` rows joined to their `PlaylistEntity`, numbered by `song_key` (the order added);
the queue is `SELECT title FROM playing_queue`. A playlist passes upstream's `verify_playlist`
(name fuzzy, exactly the songs, in order); the queue must equal the songs in order; the
duration task sums the songs of every playlist on the device and needs all of them to be under
the wanted name; the save task adds half a point for `<name>.m3u` in Download.

Songs are MP3 files in Music, one per drawn title, each with an artist and a length drawn from
the task's seed as upstream draws them. Oracles pick songs in the Songs tab by long-press and
taps, in the goal's order, then use the selection bar.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterator
from typing import Any

from android_world.env import device, interface
from android_world.env.device_facts import media
from android_world.env.device_facts import retro_music as facts
from android_world.env.json_action import JSONAction
from android_world.task_evals import task_eval, upstream_pools
from android_world.task_evals.oracle_utils import (
    done,
    elements,
    find,
    hint_is,
    list_scroll,
    open_app,
    require,
    res_is,
    tap,
    text_is,
    type_into,
)
from android_world.task_evals.single.files import clear_storage_files
from android_world.task_evals.single.media_common import (
    PlaylistRow,
    row_titles,
    select_in_order,
    verify_playlist,
)

SONGS_LIST = "songs"
SONG_MS = (3 * 60 * 1000, 5 * 60 * 1000)  # noise songs' lengths (upstream's)
TARGET_TOTAL_MS = int(47.5 * 60 * 1000)  # what the duration task's songs add up to
DURATION_RANGE_MS = (45 * 60 * 1000, 50 * 60 * 1000)

# Upstream's join: each playlist's songs numbered from 0 in the order they were added.
PLAYLIST_QUERY = """
    SELECT pe.playlist_name AS playlist_name, se.title AS media_file_name,
           se.duration AS duration_ms,
           ROW_NUMBER() OVER (PARTITION BY pe.playlist_name ORDER BY se.song_key) - 1
               AS order_in_playlist
    FROM PlaylistEntity pe JOIN SongEntity se ON pe.playlist_id = se.playlist_creator_id
    ORDER BY pe.playlist_name, order_in_playlist
"""
PLAYLIST_SCHEMA = {
    "type": "object",
    "properties": {
        "playlist_name": {"type": "string"},
        "files": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["playlist_name", "files"],
}


def playlist_name() -> str:
    """Upstream's draw: a number, then a theme."""
    number = random.randint(1, 999)
    return f"{random.choice(upstream_pools.RETRO_PLAYLIST_THEMES)} {number}"


def draw_songs(low: int, high: int) -> dict[str, Any]:
    """Upstream's draw: a playlist name, 15 songs, and how many of them the goal wants."""
    name = playlist_name()
    files = [f"{title}.mp3" for title in random.sample(upstream_pools.RETRO_SONGS, 15)]
    wanted = random.randint(low, high)
    return {"playlist_name": name, "files": files[:wanted], "noise_files": files[wanted:]}


def parts_with_sum(total: int, count: int) -> list[int]:
    """`count` non-negative integers adding up to `total` (upstream's cut points)."""
    cuts = sorted(random.randint(0, total) for _ in range(count - 1))
    edges = [0, *cuts, total]
    return [b - a for a, b in itertools.pairwise(edges)]


def stem(file_name: str) -> str:
    return file_name.split(".")[0]


def playlist_rows(env: interface.AsyncEnv) -> list[PlaylistRow]:
    return [
        PlaylistRow(**row) for row in env.controller.sqlite_query(facts.PLAYLIST_DB, PLAYLIST_QUERY)
    ]


def clear_playlists(controller: device.DeviceController) -> None:
    controller.sqlite_execute(facts.PLAYLIST_DB, "DELETE FROM PlaylistEntity", ())
    controller.sqlite_execute(facts.PLAYLIST_DB, "DELETE FROM SongEntity", ())


def clear_queue(controller: device.DeviceController) -> None:
    for table in ("playing_queue", "original_playing_queue"):
        controller.sqlite_execute(facts.PLAYBACK_DB, f"DELETE FROM {table}", ())


def write_song(controller: device.DeviceController, file: str, duration_ms: int) -> None:
    """A song as upstream writes it: title = the name before its first dot, a drawn artist."""
    artist = random.choice(upstream_pools.COMMON_GIVEN_NAMES)
    controller.write_file(
        f"{facts.MUSIC_DIR}/{file}", media.mp3_bytes(stem(file), artist, duration_ms)
    )


def write_song_drawn(controller: device.DeviceController, file: str) -> None:
    """A song of 3-5 minutes: the artist is drawn first, then the length, as upstream's call."""
    artist = random.choice(upstream_pools.COMMON_GIVEN_NAMES)
    duration = random.randint(*SONG_MS)
    controller.write_file(
        f"{facts.MUSIC_DIR}/{file}", media.mp3_bytes(stem(file), artist, duration)
    )


def create_playlist_from_selection(env: interface.AsyncEnv, name: str) -> Iterator[JSONAction]:
    yield tap(env, desc="Add to playlist")
    yield tap(env, text="New playlist")
    yield type_into(env, hint_is("Playlist name"), name, "the new playlist's name")
    yield tap(env, text="Create")


class RetroCreatePlaylist(task_eval.TaskEval):
    app_names = ("retro music",)
    complexity = 2.4
    schema = PLAYLIST_SCHEMA
    template = ""  # the goal is built in code, as upstream's
    difficulty = "medium"
    tags = ("data_entry", "repetition", "parameterized")
    optimal_steps = 12
    fidelity_notes = (
        "setup: the playing queue is emptied too (upstream leaves it as the last task left it)",
    )

    @property
    def goal(self) -> str:
        names = ", ".join(stem(f) for f in self.params["files"])
        return (
            f'Create a playlist in Retro Music titled "{self.params["playlist_name"]}" with the'
            f" following songs, in order: {names}"
        )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return draw_songs(2, 5)

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_storage_files(env.controller)
        clear_playlists(env.controller)
        clear_queue(env.controller)
        for file in self.params["files"] + self.params["noise_files"]:
            write_song_drawn(env.controller, file)
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        wanted = [stem(f) for f in self.params["files"]]
        return float(verify_playlist(playlist_rows(env), self.params["playlist_name"], wanted))

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_storage_files(env.controller)
        clear_playlists(env.controller)
        clear_queue(env.controller)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_app("Retro Music")
        yield from select_in_order(env, [stem(f) for f in self.params["files"]], SONGS_LIST)
        yield from create_playlist_from_selection(env, self.params["playlist_name"])
        yield done()


class RetroPlayingQueue(RetroCreatePlaylist):
    complexity = 3.2
    difficulty = "easy"
    tags = ("parameterized",)
    optimal_steps = 16

    @property
    def goal(self) -> str:
        names = ", ".join(stem(f) for f in self.params["files"])
        return f"Add the following songs, in order, {names} to my playing queue in Retro music."

    def is_successful(self, env: interface.AsyncEnv) -> float:
        task_eval.TaskEval.is_successful(self, env)
        rows = env.controller.sqlite_query(facts.PLAYBACK_DB, "SELECT title FROM playing_queue;")
        return float([r["title"] for r in rows] == [stem(f) for f in self.params["files"]])

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_app("Retro Music")
        yield from select_in_order(env, [stem(f) for f in self.params["files"]], SONGS_LIST)
        yield tap(env, desc="Add to playing queue")
        yield done()


class RetroSavePlaylist(RetroCreatePlaylist):
    complexity = 5
    difficulty = "hard"
    tags = ("search", "repetition", "parameterized")
    optimal_steps = 25

    @property
    def goal(self) -> str:
        return super().goal + ". Then export the playlist to the Downloads directory on the device."

    def is_successful(self, env: interface.AsyncEnv) -> float:
        exported = (
            f"{device.DOWNLOAD_DATA}/{self.params['playlist_name']}{facts.PLAYLIST_EXTENSION}"
        )
        return (super().is_successful(env) + float(env.controller.exists(exported))) / 2.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_app("Retro Music")
        yield from select_in_order(env, [stem(f) for f in self.params["files"]], SONGS_LIST)
        yield from create_playlist_from_selection(env, self.params["playlist_name"])
        yield tap(env, text="Playlists")
        row = require(env, text_is(self.params["playlist_name"]), "the new playlist")
        yield JSONAction(action_type="click", index=row)
        yield tap(env, desc="More options")
        yield tap(env, text="Save as file")
        yield tap(env, text="Save")  # the save screen opens on Downloads with the playlist's name
        yield done()


class RetroPlaylistDuration(RetroCreatePlaylist):
    complexity = 3
    difficulty = "medium"
    tags = ("math_counting", "complex_ui_understanding", "repetition", "parameterized")
    optimal_steps = 15
    fidelity_notes = (
        "setup: song lengths are drawn from the task's seed like every other setup draw;"
        " upstream's setup skips the reseed, so its lengths follow the suite's random state",
        "setup: the playing queue is emptied too (upstream leaves it as the last task left it)",
    )

    @property
    def goal(self) -> str:
        return (
            f'Create a playlist in Retro Music titled "{self.params["playlist_name"]}" with a'
            " duration between 45 and 50 minutes using the provided songs."
        )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return draw_songs(9, 11)

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        task_eval.TaskEval.initialize_task(self, env)
        clear_playlists(env.controller)
        clear_queue(env.controller)
        lengths = parts_with_sum(TARGET_TOTAL_MS, len(self.params["files"]))
        for file, duration in zip(self.params["files"], lengths, strict=True):
            write_song(env.controller, file, duration)
        for file in self.params["noise_files"]:
            write_song_drawn(env.controller, file)
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        task_eval.TaskEval.is_successful(self, env)
        total = 0
        for row in playlist_rows(env):
            if row.playlist_name != self.params["playlist_name"]:
                return 0.0
            total += row.duration_ms or 0
        low, high = DURATION_RANGE_MS
        return float(low <= total <= high)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_app("Retro Music")
        lengths = yield from read_song_lengths(env)
        chosen = pick_songs_for(lengths, DURATION_RANGE_MS)
        in_list_order = [title for title in lengths if title in chosen]
        yield from select_in_order(env, in_list_order, SONGS_LIST)
        yield from create_playlist_from_selection(env, self.params["playlist_name"])
        yield done()


_LENGTH = re.compile(r"(?:(\d+):)?(\d+):(\d\d)$")


def read_song_lengths(env: interface.AsyncEnv) -> Iterator[JSONAction]:
    """Scroll the Songs list to its end, reading each row's title and length (its summary);
    returns {title: seconds} in list order, and leaves the list scrolled to its top."""
    lengths: dict[str, int] = {}
    scrolls = 0
    while True:
        items = elements(env)
        titles = row_titles(items, SONGS_LIST)
        for title in titles:
            summary = _summary_of(items, title)
            match = _LENGTH.search(summary)
            if match:
                hours, minutes, seconds = (int(g or 0) for g in match.groups())
                lengths[title] = hours * 3600 + minutes * 60 + seconds
        list_index = find(items, res_is(SONGS_LIST), need_visible=False)
        before = [(e.text, e.bbox_pixels) for e in items]
        yield list_scroll(items, list_index, "down")
        scrolls += 1
        if [(e.text, e.bbox_pixels) for e in elements(env)] == before or scrolls > 12:
            break
    return lengths


def _summary_of(items, title: str) -> str:
    """The summary line right under a row's title."""
    for i, element in enumerate(items):
        if element.text == title and element.resource_name == "android:id/title":
            following = items[i + 1] if i + 1 < len(items) else None
            if following is not None and following.resource_name == "android:id/summary":
                return following.text or ""
    return ""


def pick_songs_for(lengths: dict[str, int], bounds_ms: tuple[int, int]) -> set[str]:
    """The fewest songs whose lengths (whole seconds as shown) add up safely inside the bounds:
    a margin of a second per song covers the rounding of each shown length."""
    titles = list(lengths)
    low, high = bounds_ms[0] // 1000, bounds_ms[1] // 1000
    for size in range(1, len(titles) + 1):
        for combo in itertools.combinations(titles, size):
            total = sum(lengths[t] for t in combo)
            if low + size <= total <= high - size:
                return set(combo)
    raise RuntimeError("Oracle found no set of songs inside the wanted duration.")
