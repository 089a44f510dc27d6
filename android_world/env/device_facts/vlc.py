"""VLC for Android (org.videolan.vlc): its media library database and video folder.

The media library indexes the videos on shared storage (`Media`: one row per file, `filename`
its name with the extension) and keeps playlists (`Playlist`) and their entries
(`PlaylistMediaRelation`: `position` counts from 0). Upstream's tasks read these three tables
at upstream's path and store videos in `VIDEOS_DIR` (its `VlcApp.videos_path`). Columns are the
subset of the real medialibrary schema that the sim and the tasks use.
"""

from __future__ import annotations

from android_world.env import device

PACKAGE = "org.videolan.vlc"
MEDIA_DB = f"/data/data/{PACKAGE}/app_db/vlc_media.db"
VIDEOS_DIR = f"{device.EMULATOR_DATA}/VLCVideos"
VIDEO_EXTENSIONS = (".mp4", ".mkv", ".avi", ".webm", ".3gp", ".mov")

SCHEMA = """
CREATE TABLE IF NOT EXISTS Media (
    id_media INTEGER PRIMARY KEY AUTOINCREMENT,
    type INTEGER,
    duration INTEGER DEFAULT -1,
    last_position REAL DEFAULT -1,
    play_count INTEGER DEFAULT 0,
    insertion_date INTEGER,
    title TEXT COLLATE NOCASE,
    filename TEXT COLLATE NOCASE,
    mrl TEXT,
    is_present BOOLEAN NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS Playlist (
    id_playlist INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT COLLATE NOCASE,
    creation_date UNSIGNED INT NOT NULL
);
CREATE TABLE IF NOT EXISTS PlaylistMediaRelation (
    media_id INTEGER,
    mrl TEXT,
    playlist_id INTEGER,
    position INTEGER
);
"""
MEDIA_TYPE_VIDEO = 1
