"""Audio Recorder, Retro Music, VLC and Simple Draw Pro on the sim, driven through execute_action,
and the media files behind them (real containers that third-party readers accept)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from mutagen.mp3 import MP3
from mutagen.mp4 import MP4
from PIL import Image

from android_world.env import device
from android_world.env.device_facts import audio_recorder as rec
from android_world.env.device_facts import media, vlc
from android_world.env.device_facts import retro_music as retro
from android_world.env.json_action import JSONAction
from android_world.env.sim.phone import STEP_MS
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals import oracle_utils as ui


@pytest.fixture
def env():
    sim = SimEnv(render=False)
    yield sim
    sim.close()


def act(env, **kw) -> None:
    env.execute_action(JSONAction(**kw))


def tap(env, long=False, **criteria) -> None:
    index = ui.find(env.get_state().ui_elements, ui.matching(**criteria))
    assert index is not None, f"{criteria} not on screen"
    act(env, action_type="long_press" if long else "click", index=index)


def type_in(env, hint, text, clear=False) -> None:
    index = ui.find(env.get_state().ui_elements, ui.hint_is(hint))
    assert index is not None, f"no field {hint!r}"
    act(env, action_type="input_text", index=index, text=text, clear_text=clear)


def texts(env) -> list[str]:
    return [e.text for e in env.get_state().ui_elements if e.text]


# ---- media files ------------------------------------------------------------------------------


def test_media_files_are_real_containers_with_their_lengths():
    song = media.mp3_bytes("Night Drive", "Maria", 183_456)
    tags = media.read_song_tags(song)
    assert tags == media.SongTags("Night Drive", "Maria", 183_456)
    assert MP3(io.BytesIO(song)).info.length == pytest.approx(183.456, abs=0.05)
    recording = media.m4a_bytes(12_000)
    assert media.read_media(recording).duration_ms == 12_000
    parsed = MP4(io.BytesIO(recording))
    assert parsed.info.length == pytest.approx(12.0, abs=0.03) and parsed.info.codec == "mp4a.40.2"
    video = media.read_media(media.video_bytes([("Alice", 8000), ("Bob", 8000)]))
    assert (video.duration_ms, video.handler, video.texts()) == (16_000, "text", ["Alice", "Bob"])
    assert [video.text_at(t) for t in (0, 7_999, 8_000, 15_999, 16_000)] == [
        "Alice",
        "Alice",
        "Bob",
        "Bob",
        "",
    ]


@pytest.mark.parametrize("damage", [b"", b"\x00" * 40, "truncate", "oversize"])
def test_damaged_media_is_a_clear_error(damage):
    data = media.video_bytes([("Alice", 8000)])
    if damage == "truncate":
        data = data[:-4]
    elif damage == "oversize":  # a box claiming more bytes than the file has
        at = data.index(b"moov") - 4
        data = data[:at] + (10**9).to_bytes(4, "big") + data[at + 4 :]
    elif isinstance(damage, bytes):
        data = damage
    with pytest.raises(media.MediaError):
        media.read_media(data)
    with pytest.raises(media.MediaError):
        media.read_song_tags(b"not an mp3" * 20)


# ---- Audio Recorder ---------------------------------------------------------------------------


def test_recorder_records_for_as_long_as_steps_take_and_renames_keeping_the_extension(env):
    act(env, action_type="open_app", app_name="Audio Recorder")
    assert env.controller.list_dir(rec.RECORDS_DIR) == []
    tap(env, desc="Record")
    assert "Recording…" in texts(env)
    act(env, action_type="wait")
    tap(env, desc="Stop")  # two steps after the start
    assert env.controller.list_dir(rec.RECORDS_DIR) == ["Record-1.m4a"]
    data = env.controller.read_file(f"{rec.RECORDS_DIR}/Record-1.m4a")
    assert media.read_media(data).duration_ms == 2 * STEP_MS
    assert "0:10" in texts(env) and "Record-1" in texts(env)
    tap(env, desc="Rename")
    type_in(env, "Name", "talk.m4a", clear=True)
    tap(env, text="OK")
    assert env.controller.list_dir(rec.RECORDS_DIR) == ["talk.m4a.m4a"]
    tap(env, desc="Record")
    tap(env, desc="Pause")
    act(env, action_type="wait")  # paused time does not count
    tap(env, desc="Resume")
    tap(env, desc="Stop")
    assert env.controller.list_dir(rec.RECORDS_DIR) == ["Record-1.m4a", "talk.m4a.m4a"]
    assert (
        media.read_media(env.controller.read_file(f"{rec.RECORDS_DIR}/Record-1.m4a")).duration_ms
        == 2 * STEP_MS  # record..pause and resume..stop, not the paused step
    )


def test_recorder_list_deletes_and_a_closed_app_drops_the_take(env):
    env.controller.write_file(f"{rec.RECORDS_DIR}/memo.m4a", media.m4a_bytes(65_000))
    act(env, action_type="open_app", app_name="Audio Recorder")
    tap(env, desc="Records")
    assert "memo" in texts(env) and "1:05" in texts(env)
    tap(env, desc="More options")
    tap(env, text="Delete")
    tap(env, text="Delete")
    assert env.controller.list_dir(rec.RECORDS_DIR) == []
    act(env, action_type="navigate_back")
    tap(env, desc="Record")
    env.controller.close_recents()
    assert env.controller.list_dir(rec.RECORDS_DIR) == []


# ---- Retro Music ------------------------------------------------------------------------------


def seed_songs(
    env,
    songs=(
        ("Night Drive", "Maria", 200_000),
        ("Moments", "Li", 190_000),
        ("Bright Lights", "Ana", 250_000),
    ),
):
    for title, artist, ms in songs:
        env.controller.write_file(
            f"{retro.MUSIC_DIR}/{title}.mp3", media.mp3_bytes(title, artist, ms)
        )


def playlist(env) -> list[tuple[str, str, int]]:
    rows = env.controller.sqlite_query(
        retro.PLAYLIST_DB,
        "SELECT p.playlist_name, s.title, s.duration FROM SongEntity s JOIN PlaylistEntity p "
        "ON p.playlist_id = s.playlist_creator_id ORDER BY s.song_key",
    )
    return [(r["playlist_name"], r["title"], r["duration"]) for r in rows]


def queue(env) -> list[str]:
    return [
        r["title"]
        for r in env.controller.sqlite_query(retro.PLAYBACK_DB, "SELECT title FROM playing_queue")
    ]


def test_retro_lists_songs_a_to_z_with_artist_and_length(env):
    seed_songs(env)
    act(env, action_type="open_app", app_name="Retro Music")
    shown = texts(env)
    assert [t for t in shown if t in ("Bright Lights", "Moments", "Night Drive")] == [
        "Bright Lights",
        "Moments",
        "Night Drive",
    ]
    assert "Ana • 4:10" in shown
    tap(env, text="Artists")
    assert {"Ana", "Li", "Maria"} <= set(texts(env))
    tap(env, text="Albums")
    assert "Music" in texts(env)


def test_retro_selection_adds_in_the_order_picked_and_playlists_export(env):
    seed_songs(env)
    act(env, action_type="open_app", app_name="Retro Music")
    tap(env, text="Night Drive", long=True)
    tap(env, text="Bright Lights")
    assert "2 selected" in texts(env)
    tap(env, desc="Add to playlist")
    tap(env, text="New playlist")
    type_in(env, "Playlist name", "Gym 12")
    tap(env, text="Create")
    assert playlist(env) == [
        ("Gym 12", "Night Drive", 200_000),
        ("Gym 12", "Bright Lights", 250_000),
    ]
    tap(env, desc="More options")  # the first row's menu: Bright Lights
    tap(env, text="Add to playlist")
    tap(env, text="Gym 12")  # already in it: not added twice
    assert len(playlist(env)) == 2
    tap(env, text="Playlists")
    tap(env, text="Gym 12")
    assert "2 songs • 7:30" in texts(env)
    tap(env, desc="More options")
    tap(env, text="Save as file")
    assert "Downloads" in texts(env) and "Gym 12.m3u" in texts(env)
    tap(env, text="Save")
    exported = env.controller.read_text(f"{device.DOWNLOAD_DATA}/Gym 12.m3u").splitlines()
    assert exported[:3] == [
        "#EXTM3U",
        "#EXTINF:200,Maria - Night Drive",
        f"{retro.MUSIC_DIR}/Night Drive.mp3",
    ]


def test_retro_queue_tap_plays_the_list_and_add_appends(env):
    seed_songs(env)
    act(env, action_type="open_app", app_name="Retro Music")
    tap(env, text="Moments", long=True)
    tap(env, text="Night Drive")
    tap(env, desc="Add to playing queue")
    assert queue(env) == ["Moments", "Night Drive"]
    assert "Moments" in texts(env)  # the mini player
    tap(env, desc="More options")  # Bright Lights
    tap(env, text="Play next")
    assert queue(env) == ["Moments", "Bright Lights", "Night Drive"]
    tap(env, text="Night Drive")  # playing a song: the whole list becomes the queue
    assert queue(env) == ["Bright Lights", "Moments", "Night Drive"]
    tap(env, res="mini_player_title")
    tap(env, desc="Clear playing queue")
    assert queue(env) == []


# ---- VLC --------------------------------------------------------------------------------------


def test_vlc_indexes_videos_and_builds_playlists_in_order(env):
    for name in ("b_clip.mp4", "a_clip.mp4", "c_clip.mp4"):
        env.controller.write_file(f"{vlc.VIDEOS_DIR}/{name}", media.video_bytes([("x", 30_000)]))
    act(env, action_type="open_app", app_name="VLC")
    assert [t for t in texts(env) if t.endswith("_clip")] == ["a_clip", "b_clip", "c_clip"]
    assert "0:30" in texts(env)
    media_rows = env.controller.sqlite_query(
        vlc.MEDIA_DB, "SELECT filename, duration FROM Media ORDER BY filename"
    )
    assert [(r["filename"], r["duration"]) for r in media_rows] == [
        ("a_clip.mp4", 30_000),
        ("b_clip.mp4", 30_000),
        ("c_clip.mp4", 30_000),
    ]
    tap(env, text="c_clip", long=True)
    tap(env, text="a_clip")
    tap(env, desc="Add to playlist")
    type_in(env, "New playlist", "Road Trips Series")  # Enter creates it
    rows = env.controller.sqlite_query(
        vlc.MEDIA_DB,
        "SELECT p.name, m.filename, r.position FROM PlaylistMediaRelation r JOIN Playlist p "
        "ON p.id_playlist = r.playlist_id JOIN Media m ON m.id_media = r.media_id ORDER BY r.position",
    )
    assert [(r["name"], r["filename"], r["position"]) for r in rows] == [
        ("Road Trips Series", "c_clip.mp4", 0),
        ("Road Trips Series", "a_clip.mp4", 1),
    ]
    env.controller.remove(f"{vlc.VIDEOS_DIR}/b_clip.mp4")
    tap(env, text="Playlists")
    assert "2 media" in texts(env)
    present = env.controller.sqlite_query(
        vlc.MEDIA_DB, "SELECT is_present FROM Media WHERE filename = 'b_clip.mp4'"
    )
    assert present == [{"is_present": 0}]


def test_vlc_player_shows_each_frame_as_time_passes_and_returns_at_the_end(env):
    env.controller.write_file(
        f"{device.DOWNLOAD_DATA}/talk.mp4", media.video_bytes([("Alice", 8000), ("Bob", 8000)])
    )
    act(env, action_type="open_app", app_name="VLC")
    tap(env, text="Browse")
    tap(env, text="Internal memory")
    tap(env, text="Download")
    tap(env, text="talk.mp4")
    frames = []
    for _ in range(4):
        frame = ui.find(env.get_state().ui_elements, ui.res_is("player_frame_text"))
        frames.append(env.get_state().ui_elements[frame].text if frame is not None else None)
        act(env, action_type="wait")
    assert frames == ["Alice", "Alice", "Bob", "Bob"]  # 0, 5, 10, 15 s
    assert (
        "Download" in texts(env)
        and ui.find(env.get_state().ui_elements, ui.desc_is("Seek")) is None
    )
    tap(env, text="talk.mp4")
    tap(env, desc="Pause")
    act(env, action_type="wait")
    act(env, action_type="wait")
    assert "0:05" in texts(env) and "Alice" in texts(env)  # paused a step in: it stays there


def test_vlc_player_frame_reads_by_ocr():
    pytesseract = pytest.importorskip("pytesseract")
    sim = SimEnv()
    try:
        sim.controller.write_file(
            f"{device.DOWNLOAD_DATA}/talk.mp4", media.video_bytes([("Jennifer", 8000)])
        )
        act(sim, action_type="open_app", app_name="VLC")
        tap(sim, text="talk")
        text = pytesseract.image_to_string(sim.get_state().pixels, config="--psm 3")
    except pytesseract.TesseractNotFoundError:
        pytest.skip("tesseract is not installed")
    finally:
        sim.close()
    assert "Jennifer" in text


# ---- Simple Draw Pro --------------------------------------------------------------------------


def test_draw_strokes_and_save_a_real_picture_where_the_picker_says(env):
    act(env, action_type="open_app", app_name="Simple Draw Pro")
    canvas = ui.find(env.get_state().ui_elements, ui.res_is("my_canvas"))
    act(env, action_type="scroll", direction="down", index=canvas)
    tap(env, desc="Red")
    act(env, action_type="swipe", direction="left")
    tap(env, desc="Save")
    type_in(env, "Filename", "sketch", clear=True)
    tap(env, text="JPG")
    tap(env, text="sdk_gphone_x86_64")
    tap(env, text="Download")
    assert "sdk_gphone_x86_64/Download" in texts(env)
    tap(env, text="OK")
    tap(env, text="OK")
    image = Image.open(io.BytesIO(env.controller.read_file(f"{device.DOWNLOAD_DATA}/sketch.jpg")))
    assert image.format == "JPEG"
    pixels = np.asarray(image.convert("RGB")).reshape(-1, 3).astype(int)
    red = ((pixels[:, 0] > 180) & (pixels[:, 1] < 90) & (pixels[:, 2] < 90)).sum()
    dark = (pixels.max(axis=1) < 60).sum()
    assert red > 100 and dark > 100  # both strokes made it into the file
    tap(env, desc="Save")
    tap(env, text="SVG")
    tap(env, text="OK")
    svg = env.controller.read_text(f"{device.DOWNLOAD_DATA}/sketch.svg")
    assert svg.count("<polyline") == 2 and 'stroke="#d93025"' in svg
