"""VLC tasks, upstream `single/vlc.py`, and Markor's video transcription (upstream `single/markor.py`).

Upstream reads VLC's media library (`device_facts.vlc`): a playlist is its
`PlaylistMediaRelation` rows joined to `Playlist` and `Media`, in `position` order, checked with
`verify_playlist` (name fuzzy, exactly the files by file name, file i at position i). Two
playlists score half each. Videos are MP4 files (`device_facts.media`) in VLCVideos, each showing
a random 10-character string for 20-180 s, as upstream writes them.

MarkorTranscribeVideo puts a video of 2-4 names, 8 s each, in Download among 5-20 other videos;
the Markor note must fuzzy-match the names joined by commas. Its oracle watches the video in VLC
(reading each frame's text as playback advances), then writes the note in Markor.

Oracles pick videos in VLC's Video tab (A-Z by title, the file name without its extension) by
long-press and taps in the goal's order, then "Add to playlist", whose name field creates the
playlist on Enter.
"""

from __future__ import annotations

import random
import string
from collections.abc import Iterator
from typing import Any

from android_world.env import device, interface
from android_world.env.device_facts import media
from android_world.env.device_facts import vlc as facts
from android_world.env.json_action import JSONAction
from android_world.task_evals import task_eval, upstream_pools
from android_world.task_evals.oracle_utils import (
    desc_is,
    done,
    elements,
    find,
    hint_is,
    open_app,
    res_is,
    tap,
    type_into,
)
from android_world.task_evals.single.audio_recorder import CREATE_FILE_SCHEMA
from android_world.task_evals.single.files import (
    clear_folder,
    clear_storage_files,
    fuzzy_match,
    modified_name,
)
from android_world.task_evals.single.markor import (
    NOTEBOOK,
    _MarkorTask,
    editor_index,
    new_file_dialog,
    open_markor,
)
from android_world.task_evals.single.media_common import (
    PlaylistRow,
    scroll_to_title,
    select_in_order,
    verify_playlist,
)

VIDEOS = facts.VIDEOS_DIR
VIDEOS_LIST = "videos"
NOISE_SECONDS = (20, 180)
TRANSCRIBE_SECONDS = 8  # each name's time on screen in the video to transcribe
_FRAME_TEXT = "player_frame_text"

PLAYLIST_QUERY = """
    SELECT Playlist.name AS playlist_name, Media.filename AS media_file_name,
           PlaylistMediaRelation.position AS order_in_playlist
    FROM PlaylistMediaRelation
    INNER JOIN Playlist ON Playlist.id_playlist = PlaylistMediaRelation.playlist_id
    INNER JOIN Media ON Media.id_media = PlaylistMediaRelation.media_id
    ORDER BY Playlist.name, PlaylistMediaRelation.position
"""


# ---- upstream's draws -------------------------------------------------------------------------


def random_string(length: int) -> str:
    return "".join(random.choices(string.ascii_letters + string.digits, k=length))


def video_file_name() -> str:
    """`<prefix>_<1-99>_<suffix>.mp4`, modified as upstream's file names are."""
    prefix = random.choice(upstream_pools.VIDEO_NAME_PREFIXES)
    suffix = random.choice(upstream_pools.VIDEO_NAME_SUFFIXES)
    number = random.randint(1, 99)
    return modified_name(f"{prefix}_{number}_{suffix}.mp4")


def vlc_playlist_name() -> str:
    theme = random.choice(upstream_pools.VLC_PLAYLIST_THEMES)
    return f"{theme} {random.choice(upstream_pools.VLC_PLAYLIST_QUALIFIERS)}"


def write_noise_video(controller: device.DeviceController, folder: str, file: str) -> None:
    """A video of one random string shown for 20-180 s (drawn: the string, then the time)."""
    text = random_string(10)
    seconds = random.randint(*NOISE_SECONDS)
    controller.write_file(f"{folder}/{file}", media.video_bytes([(text, seconds * 1000)]))


# ---- device facts -----------------------------------------------------------------------------


def playlist_rows(env: interface.AsyncEnv) -> list[PlaylistRow]:
    return [
        PlaylistRow(**row) for row in env.controller.sqlite_query(facts.MEDIA_DB, PLAYLIST_QUERY)
    ]


def clear_library(controller: device.DeviceController) -> None:
    for table in ("Playlist", "Media", "PlaylistMediaRelation"):
        controller.sqlite_execute(facts.MEDIA_DB, f"DELETE FROM {table}", ())


def title_of(file_name: str) -> str:
    """What VLC lists a video as: its file name without the extension."""
    return file_name.rsplit(".", 1)[0]


PLAYLIST_SCHEMA = {
    "type": "object",
    "properties": {
        "playlist_name": {"type": "string"},
        "files": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["playlist_name", "files"],
}


class _VlcTask(task_eval.TaskEval):
    """Starts from empty storage and an empty VLCVideos folder, and leaves them so."""

    app_names = ("vlc",)

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_storage_files(env.controller)
        clear_folder(env.controller, VIDEOS)

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_storage_files(env.controller)
        clear_folder(env.controller, VIDEOS)


def create_playlist_oracle(
    env: interface.AsyncEnv, name: str, files: list[str]
) -> Iterator[JSONAction]:
    yield from select_in_order(env, [title_of(f) for f in files], VIDEOS_LIST)
    yield tap(env, desc="Add to playlist")
    yield type_into(env, hint_is("New playlist"), name, "the new playlist's name")  # Enter creates


class VlcCreatePlaylist(_VlcTask):
    complexity = 2.8
    schema = PLAYLIST_SCHEMA
    template = ""  # the goal is built in code, as upstream's
    difficulty = "medium"
    tags = ("data_edit", "repetition", "parameterized")
    optimal_steps = 14

    @property
    def goal(self) -> str:
        return (
            f'Create a playlist titled "{self.params["playlist_name"]}" with the following files'
            f" in VLC (located in Internal Memory/VLCVideos), in order:"
            f" {', '.join(self.params['files'])}"
        )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        name = vlc_playlist_name()
        count = random.randint(2, 5)
        files = [video_file_name() for _ in range(count)]
        return {
            "playlist_name": name,
            "files": files,
            "noise_files": [video_file_name() for _ in range(count)],
        }

    def setup_files(self, env: interface.AsyncEnv) -> None:
        for file in self.params["files"] + self.params["noise_files"]:
            write_noise_video(env.controller, VIDEOS, file)

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_library(env.controller)
        self.setup_files(env)
        env.controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_library(env.controller)

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return self.playlist_score(env)

    def playlist_score(self, env: interface.AsyncEnv) -> float:
        rows = playlist_rows(env)
        return float(verify_playlist(rows, self.params["playlist_name"], self.params["files"]))

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_app("VLC")
        yield from create_playlist_oracle(env, self.params["playlist_name"], self.params["files"])
        yield done()


class VlcCreateTwoPlaylists(task_eval.TaskEval):
    app_names = ("vlc",)
    complexity = 4.8
    schema = {
        "type": "object",
        "properties": {
            "playlist_name1": {"type": "string"},
            "files1": {"type": "array", "items": {"type": "string"}},
            "playlist_name2": {"type": "string"},
            "files2": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["playlist_name1", "files1", "playlist_name2", "files2"],
    }
    template = ""  # the goal is built in code, as upstream's
    difficulty = "medium"
    tags = ("data_entry", "requires_setup", "parameterized")
    optimal_steps = 24

    def __init__(self, params: dict[str, Any]):
        super().__init__(params)
        self.first, self.second = (
            VlcCreatePlaylist(
                {
                    "playlist_name": params[f"playlist_name{n}"],
                    "files": params[f"files{n}"],
                    "noise_files": params[f"noise_files{n}"],
                }
            )
            for n in (1, 2)
        )

    @property
    def goal(self) -> str:
        first = (
            f'Create a playlist titled "{self.params["playlist_name1"]}" with the following files'
            " in VLC (located in Internal Memory/VLCVideos), in order:"
            f" {', '.join(self.params['files1'])}"
        )
        second = (
            f'create a playlist titled "{self.params["playlist_name2"]}" with the following files'
            f" in VLC, in order: {', '.join(self.params['files2'])}"
        )
        return f"{first}. And then, {second}."

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        first = VlcCreatePlaylist.generate_random_params()
        second = VlcCreatePlaylist.generate_random_params()
        params: dict[str, Any] = {}
        for n, drawn in ((1, first), (2, second)):
            params[f"playlist_name{n}"] = drawn["playlist_name"]
            params[f"files{n}"] = drawn["files"]
            params[f"noise_files{n}"] = drawn["noise_files"]
        return params

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        self.first.initialize_task(env)  # clears storage and the library, writes its videos
        self.second.setup_files(env)
        env.controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        self.first.tear_down(env)

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return (self.first.playlist_score(env) + self.second.playlist_score(env)) / 2

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_app("VLC")
        for n in (1, 2):
            name, files = self.params[f"playlist_name{n}"], self.params[f"files{n}"]
            yield from create_playlist_oracle(env, name, files)
        yield done()


class MarkorTranscribeVideo(_MarkorTask):
    complexity = 2
    schema = CREATE_FILE_SCHEMA
    app_names = ("markor", "vlc")
    template = (
        "Transcribe the contents of video {video_name} by watching it in VLC"
        " player (located in Download) and writing the sequence of strings shown"
        " on each frame to the text file {file_name} in Markor as a comma"
        ' separated list. For example, if the first frame shows the text "edna"'
        ' and the second frame shows the text "pineapple", then the text file'
        ' should contain only the following text: "edna, pineapple".'
    )
    difficulty = "hard"
    tags = (
        "multi_app",
        "transcription",
        "requires_setup",
        "memorization",
        "screen_reading",
        "parameterized",
    )
    optimal_steps = 10
    fidelity_notes = (
        "video: the sim's player shows each frame's text in the accessibility tree as well as"
        " on the frame (a real VLC shows pixels only), light with dark text so OCR reads it",
    )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        count = random.randint(2, 4)
        messages = list(random.sample(upstream_pools.COMMON_GIVEN_NAMES, count))
        video = video_file_name()
        noise_count = random.randint(5, 20)
        return {
            "file_name": f"{video.split('.')[0]}_transcription.txt",
            "text": ",".join(messages),
            "messages": messages,
            "video_name": video,
            "noise_files": [video_file_name() for _ in range(noise_count)],
        }

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        controller = env.controller
        clear_storage_files(controller)
        shown = [(m, TRANSCRIBE_SECONDS * 1000) for m in self.params["messages"]]
        controller.write_file(
            f"{device.DOWNLOAD_DATA}/{self.params['video_name']}", media.video_bytes(shown)
        )
        for file in self.params["noise_files"]:
            write_noise_video(controller, device.DOWNLOAD_DATA, file)
        controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        path = f"{NOTEBOOK}/{self.params['file_name']}"
        if not env.controller.exists(path):
            return 0.0
        content = env.controller.read_text(path).replace("\r", "").strip()
        return 1.0 if fuzzy_match(content, self.params["text"]) else 0.0

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_storage_files(env.controller)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_app("VLC")
        index = yield from scroll_to_title(env, title_of(self.params["video_name"]), VIDEOS_LIST)
        yield JSONAction(action_type="click", index=index)
        seen = yield from watch_video(env)
        yield open_markor()
        yield from new_file_dialog(env, self.params["file_name"])
        yield tap(env, text="OK")
        yield JSONAction(action_type="input_text", index=editor_index(env), text=", ".join(seen))
        yield tap(env, desc="Save")
        yield done()


def watch_video(env: interface.AsyncEnv, max_waits: int = 40) -> Iterator[JSONAction]:
    """Wait while the player is open, noting each new text a frame shows; returns them.

    Stops at the end, or as soon as the position shown plus one wait's worth of playback (as
    the position labels measured it) reaches the length: nothing new could show before then."""
    seen: list[str] = []
    last_position = None
    for _ in range(max_waits):
        items = elements(env)
        if find(items, desc_is("Seek"), need_visible=False) is None:
            return seen  # playback ended: VLC went back to the list
        frame = find(items, res_is(_FRAME_TEXT), need_visible=False)
        text = items[frame].text if frame is not None else None
        if text and (not seen or seen[-1] != text):
            seen.append(text)
        position, length = _seconds(items, "player_time"), _seconds(items, "player_length")
        if (
            position is not None
            and length is not None
            and last_position is not None
            and position > last_position
            and position + (position - last_position) >= length
        ):
            return seen
        last_position = position
        yield JSONAction(action_type="wait")
    raise RuntimeError("Oracle watched the video for too long.")


def _seconds(items, res: str) -> int | None:
    """A `m:ss` label's value in seconds."""
    index = find(items, res_is(res), need_visible=False)
    text = items[index].text if index is not None else ""
    minutes, _, seconds = (text or "").partition(":")
    return int(minutes) * 60 + int(seconds) if minutes.isdigit() and seconds.isdigit() else None
