"""Retro Music (code.name.monkey.retromusic): its playlist and playback-state databases.

Playlists are Room tables in `playlist.db`: `PlaylistEntity` (id, name) and `SongEntity` (a copy
of each song's media-store row per playlist, `playlist_creator_id` naming the playlist and
`song_key` growing as songs are added, which orders a playlist). The playing queue is the
`playing_queue` table of `music_playback_state.db` (media-store columns, queue order = rowid).
Songs come from the media store: MP3 files under `MUSIC_DIR` (`media.mp3_bytes`). A playlist
"saved as file" is an M3U list (`#EXTM3U`, then `#EXTINF:<seconds>,<artist> - <title>` and the
song's path per song). Columns are the subset of the real schemas that the sim and tasks use.
"""

from __future__ import annotations

from android_world.env import device

PACKAGE = "code.name.monkey.retromusic"
PLAYLIST_DB = f"/data/data/{PACKAGE}/databases/playlist.db"
PLAYBACK_DB = f"/data/data/{PACKAGE}/databases/music_playback_state.db"
MUSIC_DIR = device.MUSIC_DATA
SONG_EXTENSIONS = (".mp3",)
PLAYLIST_EXTENSION = ".m3u"

PLAYLIST_SCHEMA = """
CREATE TABLE IF NOT EXISTS PlaylistEntity (
    playlist_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    playlist_name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS SongEntity (
    song_key INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    playlist_creator_id INTEGER NOT NULL,
    id INTEGER NOT NULL,
    title TEXT NOT NULL,
    track_number INTEGER NOT NULL DEFAULT 0,
    year INTEGER NOT NULL DEFAULT 0,
    duration INTEGER NOT NULL,
    data TEXT NOT NULL,
    date_modified INTEGER NOT NULL DEFAULT 0,
    album_id INTEGER NOT NULL DEFAULT 0,
    album_name TEXT NOT NULL DEFAULT '',
    artist_id INTEGER NOT NULL DEFAULT 0,
    artist_name TEXT NOT NULL DEFAULT '',
    composer TEXT,
    album_artist TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS index_SongEntity_playlist_creator_id_id
    ON SongEntity (playlist_creator_id, id);
"""

_QUEUE_COLUMNS = """(
    _id INTEGER NOT NULL,
    title TEXT NOT NULL,
    track INTEGER NOT NULL DEFAULT 0,
    year INTEGER NOT NULL DEFAULT 0,
    duration INTEGER NOT NULL,
    _data TEXT NOT NULL,
    date_modified INTEGER NOT NULL DEFAULT 0,
    album_id INTEGER NOT NULL DEFAULT 0,
    album TEXT NOT NULL DEFAULT '',
    artist_id INTEGER NOT NULL DEFAULT 0,
    artist TEXT NOT NULL DEFAULT '',
    composer TEXT,
    album_artist TEXT
)"""
PLAYBACK_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS playing_queue {_QUEUE_COLUMNS};
CREATE TABLE IF NOT EXISTS original_playing_queue {_QUEUE_COLUMNS};
"""


def m3u_text(entries: list[tuple[str, str, int, str]]) -> str:
    """An exported playlist: (title, artist, duration ms, path) per song, in order."""
    lines = ["#EXTM3U"]
    for title, artist, duration_ms, path in entries:
        lines += [f"#EXTINF:{duration_ms // 1000},{artist} - {title}", path]
    return "\n".join(lines) + "\n"
