"""Audio Recorder, Retro Music, VLC, Simple Draw Pro and MarkorTranscribeVideo tasks: upstream's
facts and draws, their setup, their success rules (right and plausible wrong work), and the
oracles solving them in budget on seeds 0-2."""

from __future__ import annotations

import pytest
from sim_task_support import REGISTRY
from sim_task_support import make_task as make

from android_world.env import device
from android_world.env.device_facts import audio_recorder as rec
from android_world.env.device_facts import media, vlc
from android_world.env.device_facts import retro_music as retro
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals.single import retro_music as retro_tasks

# Upstream's complexities and apps (single/audio_recorder.py, retro_music.py, vlc.py,
# simple_draw_pro.py, markor.py).
UPSTREAM = {
    "AudioRecorderRecordAudio": (1.2, {"audio recorder"}),
    "AudioRecorderRecordAudioWithFileName": (2, {"audio recorder"}),
    "RetroCreatePlaylist": (2.4, {"retro music"}),
    "RetroPlayingQueue": (3.2, {"retro music"}),
    "RetroPlaylistDuration": (3, {"retro music"}),
    "RetroSavePlaylist": (5, {"retro music"}),
    "VlcCreatePlaylist": (2.8, {"vlc"}),
    "VlcCreateTwoPlaylists": (4.8, {"vlc"}),
    "MarkorTranscribeVideo": (2, {"markor", "vlc"}),
    "SimpleDrawProCreateDrawing": (1.8, {"simple draw pro"}),
}
TASKS = tuple(UPSTREAM)

# Draws recorded from upstream's own generate_random_params at d9c569f, `random.seed(0)` first:
# facts the same seed must reproduce here.
UPSTREAM_SEED_0 = {
    "AudioRecorderRecordAudioWithFileName": {"file_name": "qFzW_presentation.m4a", "text": ""},
    "RetroCreatePlaylist": {
        "playlist_name": "Sleepytime Songs 865",
        "files": [
            "Heartbeat Away.mp3",
            "Whispering Wind.mp3",
            "Voices in the Hall.mp3",
            "Eternal Flame.mp3",
        ],
    },
    "VlcCreatePlaylist": {
        "playlist_name": "Summer Highlights Ultimate Collection",
        "files": [
            "clip_66_4K_4Z8w.mp4",
            "UMp4_footage_18_export.mp4",
            "T3QD_moment_19_export.mp4",
            "7D1q_clip_56_4K.mp4",
            "episode_2_export_2023_01_01.mp4",
        ],
    },
    "SimpleDrawProCreateDrawing": {"file_name": "adipiscing_sure_ant_2023_09_19.svg", "text": ""},
    "MarkorTranscribeVideo": {
        "file_name": "highlight_52_raw_w3ni_transcription.txt",
        "messages": ["Louis", "Alice", "Hana"],
        "video_name": "highlight_52_raw_w3ni.mp4",
    },
}


@pytest.fixture(scope="module")
def env():
    sim = SimEnv(render=False)
    yield sim
    sim.close()


@pytest.mark.parametrize("name", TASKS)
def test_upstream_facts_and_reproducible_params(name):
    task = make(name, 7)
    complexity, apps = UPSTREAM[name]
    assert type(task).complexity == complexity and set(task.app_names) == apps
    assert make(name, 7).params == task.params and task.goal == make(name, 7).goal
    assert set(task.schema["required"]) <= set(task.params)


@pytest.mark.parametrize("name", sorted(UPSTREAM_SEED_0))
def test_seed_0_draws_upstreams_instance(name):
    params = make(name, 0).params
    for key, value in UPSTREAM_SEED_0[name].items():
        assert params[key] == value, key


def test_goals_read_as_upstreams():
    assert make("RetroPlayingQueue", 0).goal == (
        "Add the following songs, in order, Heartbeat Away, Whispering Wind, Voices in the Hall,"
        " Eternal Flame to my playing queue in Retro music."
    )
    two = make("VlcCreateTwoPlaylists", 3)
    assert ". And then, create a playlist titled " in two.goal
    assert two.goal.count("(located in Internal Memory/VLCVideos)") == 1
    assert len(make("RetroPlaylistDuration", 5).params["files"]) in (9, 10, 11)


# ---- setup -------------------------------------------------------------------------------------


def test_retro_setup_writes_tagged_songs_and_the_duration_task_adds_to_47_5_minutes(env):
    task = make("RetroPlaylistDuration", 3)
    task.initialize_task(env)
    try:
        names = env.controller.list_dir(retro.MUSIC_DIR)
        assert sorted(names) == sorted(task.params["files"] + task.params["noise_files"])
        tags = {
            n: media.read_song_tags(env.controller.read_file(f"{retro.MUSIC_DIR}/{n}"))
            for n in names
        }
        assert sum(tags[f].duration_ms for f in task.params["files"]) == 47.5 * 60 * 1000
        assert all(180_000 <= tags[f].duration_ms <= 300_000 for f in task.params["noise_files"])
        assert all(t.title == n.split(".")[0] and t.artist for n, t in tags.items())
    finally:
        task.tear_down(env)
    assert env.controller.list_dir(retro.MUSIC_DIR) == []


def test_vlc_and_transcription_setups_write_their_videos(env):
    task = make("VlcCreateTwoPlaylists", 1)
    task.initialize_task(env)
    try:
        wanted = {
            f for n in (1, 2) for key in ("files", "noise_files") for f in task.params[f"{key}{n}"]
        }
        assert set(env.controller.list_dir(vlc.VIDEOS_DIR)) == wanted
    finally:
        task.tear_down(env)
    task = make("MarkorTranscribeVideo", 2)
    task.initialize_task(env)
    try:
        video = env.controller.read_file(f"{device.DOWNLOAD_DATA}/{task.params['video_name']}")
        info = media.read_media(video)
        assert info.texts() == task.params["messages"]
        assert info.duration_ms == 8000 * len(task.params["messages"])
        assert len(env.controller.list_dir(device.DOWNLOAD_DATA)) == 1 + len(
            set(task.params["noise_files"]) - {task.params["video_name"]}
        )
    finally:
        task.tear_down(env)


# ---- success rules ------------------------------------------------------------------------------


def add_retro_playlist(env, name: str, titles: list[str], durations: list[int] | None = None):
    env.controller.sqlite_execute(
        retro.PLAYLIST_DB, "INSERT INTO PlaylistEntity (playlist_name) VALUES (?)", (name,)
    )
    (pid,) = [
        r["id"]
        for r in env.controller.sqlite_query(
            retro.PLAYLIST_DB, "SELECT MAX(playlist_id) AS id FROM PlaylistEntity"
        )
    ]
    for i, title in enumerate(titles):
        duration = durations[i] if durations else 200_000
        env.controller.sqlite_execute(
            retro.PLAYLIST_DB,
            "INSERT INTO SongEntity (playlist_creator_id, id, title, duration, data) VALUES (?, ?, ?, ?, ?)",
            (pid, 1000 + i, title, duration, f"{retro.MUSIC_DIR}/{title}.mp3"),
        )


def clear_retro(env):
    retro_tasks.clear_playlists(env.controller)
    retro_tasks.clear_queue(env.controller)


def test_audio_recorder_rules(env):
    task = make("AudioRecorderRecordAudio", 1)
    env.controller.write_file(f"{rec.RECORDS_DIR}/old.m4a", media.m4a_bytes(1000))
    task.initialize_task(env)
    try:
        assert task.is_successful(env) == 0.0
        env.controller.write_file(f"{rec.RECORDS_DIR}/empty.m4a", b"")
        assert task.is_successful(env) == 0.0  # an empty file is no recording
        env.controller.write_file(f"{rec.RECORDS_DIR}/old.m4a", media.m4a_bytes(9000))
        assert task.is_successful(env) == 1.0  # a changed recording counts
        env.controller.write_file(f"{rec.RECORDS_DIR}/Record-1.m4a", media.m4a_bytes(5000))
        assert task.is_successful(env) == 0.0  # two: not exactly one
    finally:
        task.tear_down(env)
        for name in env.controller.list_dir(rec.RECORDS_DIR):
            env.controller.remove(f"{rec.RECORDS_DIR}/{name}")
    named = make("AudioRecorderRecordAudioWithFileName", 4)
    named.initialize_task(env)
    try:
        file_name = named.params["file_name"]
        assert file_name.endswith(".m4a")
        env.controller.write_file(f"{rec.RECORDS_DIR}/{file_name}", media.m4a_bytes(5000))
        assert named.is_successful(env) == 0.0  # upstream wants the app's own extension added
        env.controller.write_file(f"{rec.RECORDS_DIR}/{file_name}.m4a", media.m4a_bytes(5000))
        assert named.is_successful(env) == 1.0
    finally:
        named.tear_down(env)
    assert env.controller.list_dir(rec.RECORDS_DIR) == []


def test_simple_draw_rule(env):
    task = make("SimpleDrawProCreateDrawing", 2)
    task.initialize_task(env)
    try:
        name = task.params["file_name"]
        env.controller.write_file(f"{device.DOWNLOAD_DATA}/{name}", b"x")
        env.controller.write_file(f"{device.PICTURES_DATA}/{name}.png", b"x")
        assert task.is_successful(env) == 0.0
        env.controller.write_file(f"{device.PICTURES_DATA}/{name}", b"x")
        assert task.is_successful(env) == 1.0
    finally:
        task.tear_down(env)


def test_retro_playlist_rules(env):
    task = make("RetroSavePlaylist", 6)
    task.initialize_task(env)
    try:
        name = task.params["playlist_name"]
        titles = [f.split(".")[0] for f in task.params["files"]]
        add_retro_playlist(env, name, titles[::-1])
        assert task.is_successful(env) == 0.0  # wrong order
        clear_retro(env)
        add_retro_playlist(env, name, [*titles, "Moments"])
        assert task.is_successful(env) == 0.0  # a song too many
        clear_retro(env)
        add_retro_playlist(env, name.upper(), titles)  # upstream's name match ignores case
        assert task.is_successful(env) == 0.5
        env.controller.write_text(f"{device.DOWNLOAD_DATA}/{name}.m3u", "#EXTM3U\n")
        assert task.is_successful(env) == 1.0
        clear_retro(env)
        assert task.is_successful(env) == 0.5  # the export alone is half
    finally:
        task.tear_down(env)


def test_retro_queue_rule(env):
    task = make("RetroPlayingQueue", 3)
    task.initialize_task(env)
    try:
        titles = [f.split(".")[0] for f in task.params["files"]]

        def queue(names):
            retro_tasks.clear_queue(env.controller)
            for title in names:
                env.controller.sqlite_execute(
                    retro.PLAYBACK_DB,
                    "INSERT INTO playing_queue (_id, title, duration, _data) VALUES (1, ?, 1, '')",
                    (title,),
                )

        queue(titles[::-1])
        assert task.is_successful(env) == 0.0
        queue([*titles, titles[0]])
        assert task.is_successful(env) == 0.0
        queue(titles)
        assert task.is_successful(env) == 1.0
    finally:
        task.tear_down(env)


def test_retro_duration_rule(env):
    task = make("RetroPlaylistDuration", 8)
    task.initialize_task(env)
    try:
        name = task.params["playlist_name"]
        add_retro_playlist(env, name, ["a", "b"], [22 * 60_000, 22 * 60_000])
        assert task.is_successful(env) == 0.0  # 44 minutes
        clear_retro(env)
        add_retro_playlist(env, name, ["a", "b"], [25 * 60_000, 25 * 60_000])
        assert task.is_successful(env) == 1.0  # 50 minutes: the bound is inclusive
        add_retro_playlist(env, "Other", ["c"], [1000])
        assert task.is_successful(env) == 0.0  # any other playlist fails it, as upstream
    finally:
        task.tear_down(env)


def add_vlc_playlist(env, name: str, files: list[str]) -> None:
    env.controller.sqlite_execute(
        vlc.MEDIA_DB, "INSERT INTO Playlist (name, creation_date) VALUES (?, 0)", (name,)
    )
    pid = env.controller.sqlite_query(vlc.MEDIA_DB, "SELECT MAX(id_playlist) AS id FROM Playlist")[
        0
    ]["id"]
    for position, file in enumerate(files):
        env.controller.sqlite_execute(
            vlc.MEDIA_DB,
            "INSERT INTO Media (type, title, filename, mrl) VALUES (1, ?, ?, ?)",
            (file, file, file),
        )
        mid = env.controller.sqlite_query(vlc.MEDIA_DB, "SELECT MAX(id_media) AS id FROM Media")[0][
            "id"
        ]
        env.controller.sqlite_execute(
            vlc.MEDIA_DB,
            "INSERT INTO PlaylistMediaRelation (media_id, mrl, playlist_id, position) VALUES (?, ?, ?, ?)",
            (mid, file, pid, position),
        )


def test_vlc_playlist_rules(env):
    task = make("VlcCreateTwoPlaylists", 5)
    task.initialize_task(env)
    try:
        p = task.params
        add_vlc_playlist(env, p["playlist_name1"], p["files1"][:-1])
        assert task.is_successful(env) == 0.0  # one file short
        add_vlc_playlist(env, p["playlist_name2"], p["files2"])
        assert task.is_successful(env) == 0.5
        add_vlc_playlist(env, p["playlist_name1"] + " ", p["files1"][-1:])  # appended as position 0
        assert task.is_successful(env) == 0.5
    finally:
        task.tear_down(env)
    single = make("VlcCreatePlaylist", 5)
    single.initialize_task(env)
    try:
        add_vlc_playlist(env, single.params["playlist_name"], single.params["files"])
        assert single.is_successful(env) == 1.0
    finally:
        single.tear_down(env)


def test_transcription_rule(env):
    task = make("MarkorTranscribeVideo", 4)
    task.initialize_task(env)
    try:
        path = f"{device.MARKOR_DATA}/{task.params['file_name']}"
        names = task.params["messages"]
        env.controller.write_text(path, ", ".join(names[::-1]))
        assert task.is_successful(env) == 0.0
        env.controller.write_text(path, ", ".join(names[:-1]))
        assert task.is_successful(env) == 0.0
        env.controller.write_text(path, ", ".join(names) + "\n")
        assert task.is_successful(env) == 1.0
    finally:
        task.tear_down(env)


# ---- oracles ------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", TASKS)
def test_oracle_solves_within_budget_and_nothing_passes_untouched(env, name, seed):
    task = make(name, seed)
    task.initialize_task(env)
    try:
        assert task.is_successful(env) == 0.0, "doing nothing must fail"
        actions = []
        for action in task.oracle_actions(env):
            env.execute_action(action)
            actions.append(action)
        assert len(actions) <= int(10 * task.complexity)
        assert actions[-1].action_type == "status" and actions[-1].goal_status == "complete"
        assert task.is_successful(env) == 1.0
    finally:
        task.tear_down(env)


def test_registry_has_the_media_tasks():
    assert set(TASKS) <= set(REGISTRY)
