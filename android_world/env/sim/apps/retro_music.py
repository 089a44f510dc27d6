"""Retro Music (code.name.monkey.retromusic): songs from the media store, playlists, the queue.

Songs are the MP3 files under Music, read as the media store reads them (ID3 title and artist,
length: `device_facts.media`). Tabs: Songs (A-Z, with artist and length), Albums, Artists,
Playlists. Long-press songs to select them (in the order tapped): the selection bar adds them to
the playing queue or to a playlist. A song's "More options" menu does the same for one song
(Play next, Add to playing queue, Add to playlist, Details). Tapping a song plays the list it is
in, which becomes the queue, as in the real app.

Playlists and the queue live in the real app's databases (`device_facts.retro_music`): a
playlist's songs are `SongEntity` rows in the order added; the queue is `playing_queue`. A
playlist's "Save as file" opens the system's save screen (Downloads by default) and writes an
M3U list there.
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Callable

from android_world.env import device
from android_world.env.device_facts import media
from android_world.env.device_facts import retro_music as facts
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, OrderedSelecting, Screen, folder_entries
from android_world.env.sim.widgets import Handler, Node

PLAYLIST_DB = facts.PLAYLIST_DB
PLAYBACK_DB = facts.PLAYBACK_DB
TABS = ("Songs", "Albums", "Artists", "Playlists")
UNKNOWN_ARTIST = "<unknown>"


@dataclasses.dataclass(frozen=True)
class Song:
    id: int  # the media store's id
    title: str
    artist: str
    album: str
    duration_ms: int
    path: str


def song_id(path: str) -> int:
    """A stable media-store id for a file path."""
    return zlib.crc32(path.encode()) & 0x7FFFFFFF


class RetroMusicApp(App):
    package = facts.PACKAGE

    def __init__(self, phone) -> None:
        super().__init__(phone)
        self._scanned: dict[tuple[str, bytes], Song] = {}
        self.current = 0  # index of the song playing in the queue
        self.playing = False

    def install(self) -> None:
        self.device.sqlite_execute(PLAYLIST_DB, facts.PLAYLIST_SCHEMA)
        self.device.sqlite_execute(PLAYBACK_DB, facts.PLAYBACK_SCHEMA)
        self.device.make_dirs(facts.MUSIC_DIR)

    def main_screen(self) -> Screen:
        return Library(self)

    def stop(self) -> None:
        super().stop()
        self.current, self.playing = 0, False

    # the media store ---------------------------------------------------------------------
    def songs(self) -> list[Song]:
        """Every song under Music, A-Z by title."""
        found = [self._song(path) for path in self._song_paths(facts.MUSIC_DIR)]
        return sorted(found, key=lambda s: (s.title.lower(), s.path))

    def _song_paths(self, folder: str) -> list[str]:
        paths = []
        for name, is_dir in folder_entries(self.device, folder):
            path = f"{folder}/{name}"
            if is_dir:
                paths += self._song_paths(path)
            elif name.lower().endswith(facts.SONG_EXTENSIONS):
                paths.append(path)
        return paths

    def _song(self, path: str) -> Song:
        data = self.device.read_file(path)
        key = (path, data)
        if key not in self._scanned:
            stem = path.rsplit("/", 1)[1].rsplit(".", 1)[0]
            try:
                tags = media.read_song_tags(data, fallback_title=stem)
            except media.MediaError:
                tags = media.SongTags(stem, "", 0)
            folder = path.rsplit("/", 2)[-2]  # the media store's album for untagged files
            self._scanned[key] = Song(
                song_id(path),
                tags.title,
                tags.artist or UNKNOWN_ARTIST,
                folder,
                tags.duration_ms,
                path,
            )
        return self._scanned[key]

    # playlists ---------------------------------------------------------------------------
    def playlists(self) -> list[dict]:
        return self.device.sqlite_query(
            PLAYLIST_DB,
            "SELECT p.playlist_id, p.playlist_name, COUNT(s.song_key) AS n, "
            "COALESCE(SUM(s.duration), 0) AS total FROM PlaylistEntity p "
            "LEFT JOIN SongEntity s ON s.playlist_creator_id = p.playlist_id "
            "GROUP BY p.playlist_id ORDER BY p.playlist_name COLLATE NOCASE",
        )

    def playlist_songs(self, playlist_id: int) -> list[dict]:
        return self.device.sqlite_query(
            PLAYLIST_DB,
            "SELECT * FROM SongEntity WHERE playlist_creator_id = ? ORDER BY song_key",
            (playlist_id,),
        )

    def create_playlist(self, name: str) -> int:
        self.device.sqlite_execute(
            PLAYLIST_DB, "INSERT INTO PlaylistEntity (playlist_name) VALUES (?)", (name,)
        )
        rows = self.device.sqlite_query(
            PLAYLIST_DB, "SELECT MAX(playlist_id) AS id FROM PlaylistEntity"
        )
        return rows[0]["id"]

    def add_to_playlist(self, playlist_id: int, songs: list[Song]) -> int:
        """Add songs not yet in the playlist, in order; how many were added."""
        present = {row["id"] for row in self.playlist_songs(playlist_id)}
        added = 0
        for song in songs:
            if song.id in present:
                continue
            present.add(song.id)
            self.device.sqlite_execute(
                PLAYLIST_DB,
                "INSERT INTO SongEntity (playlist_creator_id, id, title, duration, data, "
                "album_name, artist_name) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    playlist_id,
                    song.id,
                    song.title,
                    song.duration_ms,
                    song.path,
                    song.album,
                    song.artist,
                ),
            )
            added += 1
        return added

    def remove_from_playlist(self, song_key: int) -> None:
        self.device.sqlite_execute(
            PLAYLIST_DB, "DELETE FROM SongEntity WHERE song_key = ?", (song_key,)
        )

    def rename_playlist(self, playlist_id: int, name: str) -> None:
        self.device.sqlite_execute(
            PLAYLIST_DB,
            "UPDATE PlaylistEntity SET playlist_name = ? WHERE playlist_id = ?",
            (name, playlist_id),
        )

    def delete_playlist(self, playlist_id: int) -> None:
        self.device.sqlite_execute(
            PLAYLIST_DB, "DELETE FROM SongEntity WHERE playlist_creator_id = ?", (playlist_id,)
        )
        self.device.sqlite_execute(
            PLAYLIST_DB, "DELETE FROM PlaylistEntity WHERE playlist_id = ?", (playlist_id,)
        )

    def export_playlist(self, playlist_id: int, path: str) -> None:
        rows = self.playlist_songs(playlist_id)
        entries = [(r["title"], r["artist_name"], r["duration"], r["data"]) for r in rows]
        self.device.write_text(path, facts.m3u_text(entries))

    # the playing queue ---------------------------------------------------------------------
    def queue(self) -> list[dict]:
        if not self.device.exists(PLAYBACK_DB):
            self.device.sqlite_execute(PLAYBACK_DB, facts.PLAYBACK_SCHEMA)
        return self.device.sqlite_query(
            PLAYBACK_DB, "SELECT rowid AS pos, * FROM playing_queue ORDER BY rowid"
        )

    def _write_queue(self, songs: list[tuple]) -> None:
        self.device.sqlite_execute(PLAYBACK_DB, "DELETE FROM playing_queue", ())
        self.device.sqlite_execute(PLAYBACK_DB, "DELETE FROM original_playing_queue", ())
        for table in ("playing_queue", "original_playing_queue"):
            for row in songs:
                self.device.sqlite_execute(
                    PLAYBACK_DB,
                    f"INSERT INTO {table} (_id, title, duration, _data, album, artist) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    row,
                )

    @staticmethod
    def _queue_row(song: Song) -> tuple:
        return (song.id, song.title, song.duration_ms, song.path, song.album, song.artist)

    @staticmethod
    def _kept(row: dict) -> tuple:
        return (
            row["_id"],
            row["title"],
            row["duration"],
            row["_data"],
            row["album"],
            row["artist"],
        )

    def play_list(self, songs: list[Song], index: int) -> None:
        """Play `songs` from `index`: they become the queue."""
        self._write_queue([self._queue_row(s) for s in songs])
        self.current, self.playing = index, True

    def enqueue(self, songs: list[Song]) -> None:
        rows = [self._kept(r) for r in self.queue()]
        if not rows:
            self.current, self.playing = 0, False
        self._write_queue(rows + [self._queue_row(s) for s in songs])

    def play_next(self, songs: list[Song]) -> None:
        rows = [self._kept(r) for r in self.queue()]
        at = min(len(rows), self.current + 1) if rows else 0
        self._write_queue(rows[:at] + [self._queue_row(s) for s in songs] + rows[at:])

    def clear_queue(self) -> None:
        self._write_queue([])
        self.current, self.playing = 0, False

    def remove_from_queue(self, index: int) -> None:
        rows = [self._kept(r) for r in self.queue()]
        del rows[index]
        if index < self.current:
            self.current -= 1
        self._write_queue(rows)
        self.current = min(self.current, max(0, len(rows) - 1))


def _song_summary(artist: str, duration_ms: int) -> str:
    return f"{artist} • {media.format_duration(duration_ms)}"


class _RetroScreen(Screen):
    """Song rows, song menus and the add-to-playlist dialogs every list screen shares."""

    def __init__(self, app: RetroMusicApp):
        super().__init__(app)
        self.retro = app
        self.adding: list[Song] = []  # songs the open playlist dialog adds
        self.new_name = ""
        self.after_add: Handler = lambda: None

    def song_rows(
        self,
        songs: list[Song],
        selected: list[int] | None = None,
        on_tap: Callable[[int], None] | None = None,
        on_long: Callable[[Song], None] | None = None,
    ) -> list[Node]:
        """Rows that play their list on a tap, unless `on_tap` (row index) says otherwise."""
        return [
            w.list_row(
                song.title,
                _song_summary(song.artist, song.duration_ms),
                icon="sound",
                on_click=(lambda i=i: on_tap(i))
                if on_tap
                else (lambda i=i: self.retro.play_list(songs, i)),
                on_long_click=(lambda s=song: on_long(s)) if on_long else None,
                selected=selected is not None and song.id in selected,
                trailing=w.icon_button("More options", "more", lambda s=song: self.song_menu(s)),
                key=f"song_{song.id}",
            )
            for i, song in enumerate(songs)
        ]

    def song_menu(self, song: Song) -> None:
        self.show_menu(
            [
                ("Play next", lambda: self._queued(self.retro.play_next, [song])),
                ("Add to playing queue", lambda: self._queued(self.retro.enqueue, [song])),
                ("Add to playlist", lambda: self.add_to_playlist([song])),
                ("Details", lambda: self._details(song)),
            ]
        )

    def _queued(self, how: Callable[[list[Song]], None], songs: list[Song]) -> None:
        how(songs)
        self.toast(
            "Added to playing queue"
            if len(songs) == 1
            else f"Added {len(songs)} songs to playing queue"
        )

    def _details(self, song: Song) -> None:
        self.show_dialog(
            lambda: w.dialog(
                "Details",
                f"Title: {song.title}\nArtist: {song.artist}\nLength: "
                f"{media.format_duration(song.duration_ms)}\nFile path: {song.path}",
                buttons=[("OK", self.dismiss)],
            )
        )

    # adding to a playlist -----------------------------------------------------------------
    def add_to_playlist(self, songs: list[Song], after: Handler | None = None) -> None:
        self.adding, self.after_add = list(songs), after or (lambda: None)
        self.show_dialog(self._choose_playlist)

    def _choose_playlist(self) -> Node:
        rows = [
            w.list_row("New playlist", icon="add", on_click=self._new_playlist, key="new_playlist")
        ]
        rows += [
            w.list_row(
                p["playlist_name"],
                f"{p['n']} songs",
                icon="menu",
                on_click=lambda p=p: self._add_to(p["playlist_id"], p["playlist_name"]),
                key=f"choose_{p['playlist_id']}",
            )
            for p in self.retro.playlists()
        ]
        return w.dialog(
            "Add to playlist",
            body=[w.scroll_list("choose_playlist", *rows, h=min(900, 200 * len(rows)))],
            buttons=[("Cancel", self.dismiss)],
        )

    def _new_playlist(self) -> None:
        self.new_name = ""
        self.show_dialog(self._name_dialog)

    def _name_dialog(self) -> Node:
        return w.dialog(
            "New playlist",
            body=[
                w.text_field(
                    self.new_name,
                    lambda text: setattr(self, "new_name", text),
                    hint="Playlist name",
                    key="playlist_name",
                )
            ],
            buttons=[("Cancel", self.dismiss), ("Create", self._create)],
        )

    def _create(self) -> None:
        name = self.new_name.strip()
        if not name:
            self.toast("Playlist name can't be empty")
            return
        if any(p["playlist_name"] == name for p in self.retro.playlists()):
            self.toast("A playlist with this name already exists")
            return
        self._add_to(self.retro.create_playlist(name), name)

    def _add_to(self, playlist_id: int, name: str) -> None:
        added = self.retro.add_to_playlist(playlist_id, self.adding)
        self.dismiss()
        self.after_add()
        self.toast(f"Added {added} song(s) to {name}" if self.adding else f"Created {name}")


class Library(OrderedSelecting, _RetroScreen):
    activity = "code.name.monkey.retromusic.activities.MainActivity"

    def __init__(self, app: RetroMusicApp):
        super().__init__(app)
        self.tab = 0
        self.selected: list[int] = []

    def build(self) -> Node:
        songs = self.retro.songs()
        by_id = {s.id: s for s in songs}
        tab = TABS[self.tab]
        self.selected = [i for i in self.selected if i in by_id] if tab == "Songs" else []
        if self.selected:
            picked = [by_id[i] for i in self.selected]
            bar = w.app_bar(
                f"{len(self.selected)} selected",
                on_up=self.clear_selection,
                actions=[
                    w.icon_button("Add to playing queue", "menu", lambda: self._enqueue(picked)),
                    w.icon_button(
                        "Add to playlist",
                        "add",
                        lambda: self.add_to_playlist(picked, self.clear_selection),
                    ),
                ],
            )
        else:
            actions = (
                [w.icon_button("New playlist", "add", self._empty_playlist)]
                if tab == "Playlists"
                else []
            )
            bar = w.app_bar("Retro Music", actions=actions)
        if tab == "Songs":
            rows = self.song_rows(
                songs,
                self.selected,
                on_tap=lambda i: self._tap(songs, i),
                on_long=lambda s: self.toggle(s.id),
            )
            body = w.scroll_list("songs", *(rows or [w.empty_state("No songs")]))
        elif tab == "Playlists":
            body = self._playlists()
        else:
            body = self._groups(songs, album=tab == "Albums")
        mini = self._mini_player()
        nav = w.tabs(TABS, self.tab, self._select_tab, bottom=True)
        return w.column(bar, body, mini, nav, flex=1)

    def _mini_player(self) -> Node | None:
        """The song playing (or next), above the tabs, while the queue is not empty."""
        queue = self.retro.queue()
        if not queue:
            return None
        now = queue[min(self.retro.current, len(queue) - 1)]
        return w.row(
            w.column(
                w.label(now["title"], res_id="mini_player_title"),
                w.label(now["artist"], size=w.SECONDARY_SIZE, color="secondary"),
                flex=1,
                align="center",
            ),
            w.icon_button(
                "Pause" if self.retro.playing else "Play",
                "pause" if self.retro.playing else "play",
                self._toggle_play,
            ),
            h=190,
            pad=(48, 0, 24, 0),
            clickable=True,
            on_click=lambda: self.push(PlayingQueue(self.retro)),
            res_id="mini_player",
            style={"bg": "tonal"},
        )

    def _select_tab(self, index: int) -> None:
        self.tab, self.selected = index, []

    def _tap(self, songs: list[Song], index: int) -> None:
        if self.selected:
            self.toggle(songs[index].id)
        else:
            self.retro.play_list(songs, index)

    def _enqueue(self, songs: list[Song]) -> None:
        self._queued(self.retro.enqueue, songs)
        self.clear_selection()

    def _toggle_play(self) -> None:
        self.retro.playing = not self.retro.playing

    def _empty_playlist(self) -> None:
        self.adding, self.after_add = [], lambda: None
        self._new_playlist()

    def _groups(self, songs: list[Song], album: bool) -> Node:
        groups: dict[str, list[Song]] = {}
        for song in songs:
            groups.setdefault(song.album if album else song.artist, []).append(song)
        rows = [
            w.list_row(
                name,
                f"{len(members)} songs",
                icon="sound" if album else "person",
                on_click=lambda n=name, m=members: self.push(
                    SongGroup(self.retro, n, [s.path for s in m])
                ),
                key=f"group_{name}",
            )
            for name, members in sorted(groups.items(), key=lambda g: g[0].lower())
        ]
        return w.scroll_list("groups", *(rows or [w.empty_state("Nothing here")]))

    def _playlists(self) -> Node:
        rows = [
            w.list_row(
                p["playlist_name"],
                f"{p['n']} songs",
                icon="menu",
                on_click=lambda p=p: self.push(PlaylistDetail(self.retro, p["playlist_id"])),
                trailing=w.icon_button(
                    "More options",
                    "more",
                    lambda p=p: playlist_menu(self, self.retro, p["playlist_id"]),
                ),
                key=f"playlist_{p['playlist_id']}",
            )
            for p in self.retro.playlists()
        ]
        return w.scroll_list("playlists", *(rows or [w.empty_state("No playlists")]))


def playlist_menu(screen: Screen, app: RetroMusicApp, playlist_id: int) -> None:
    """A playlist's "More options": play, queue, rename, delete, save as file."""

    def songs() -> list[Song]:
        by_path = {s.path: s for s in app.songs()}
        return [by_path[r["data"]] for r in app.playlist_songs(playlist_id) if r["data"] in by_path]

    def name() -> str:
        found = [p for p in app.playlists() if p["playlist_id"] == playlist_id]
        return found[0]["playlist_name"] if found else ""

    screen.show_menu(
        [
            ("Play", lambda: app.play_list(songs(), 0) if songs() else None),
            ("Add to playing queue", lambda: app.enqueue(songs())),
            ("Rename", lambda: _rename_dialog(screen, app, playlist_id, name())),
            ("Delete", lambda: _delete_dialog(screen, app, playlist_id, name())),
            ("Save as file", lambda: screen.push(SaveAs(app, playlist_id, name()))),
        ]
    )


def _rename_dialog(screen: Screen, app: RetroMusicApp, playlist_id: int, current: str) -> None:
    draft = {"name": current}

    def rename() -> None:
        if draft["name"].strip():
            app.rename_playlist(playlist_id, draft["name"].strip())
        screen.dismiss()

    screen.show_dialog(
        lambda: w.dialog(
            "Rename playlist",
            body=[
                w.text_field(
                    draft["name"],
                    lambda text: draft.__setitem__("name", text),
                    hint="Playlist name",
                    key="rename_playlist",
                )
            ],
            buttons=[("Cancel", screen.dismiss), ("Rename", rename)],
        )
    )


def _delete_dialog(screen: Screen, app: RetroMusicApp, playlist_id: int, name: str) -> None:
    def delete() -> None:
        app.delete_playlist(playlist_id)
        screen.dismiss()
        if isinstance(screen, PlaylistDetail):
            screen.close()

    screen.show_dialog(
        lambda: w.dialog(
            "Delete playlist",
            f"Delete the playlist {name}?",
            buttons=[("Cancel", screen.dismiss), ("Delete", delete)],
        )
    )


class SongGroup(_RetroScreen):
    """An album's or an artist's songs."""

    def __init__(self, app: RetroMusicApp, title: str, paths: list[str]):
        super().__init__(app)
        self.title, self.paths = title, paths

    def build(self) -> Node:
        songs = [s for s in self.retro.songs() if s.path in self.paths]
        return w.column(
            w.app_bar(self.title, on_up=self.close),
            w.scroll_list("group_songs", *self.song_rows(songs)),
            flex=1,
        )


class PlaylistDetail(_RetroScreen):
    activity = "code.name.monkey.retromusic.activities.PlaylistDetailActivity"

    def __init__(self, app: RetroMusicApp, playlist_id: int):
        super().__init__(app)
        self.playlist_id = playlist_id

    def build(self) -> Node:
        found = [p for p in self.retro.playlists() if p["playlist_id"] == self.playlist_id]
        if not found:
            return w.column(
                w.app_bar("Playlist", on_up=self.close), w.empty_state("Deleted"), flex=1
            )
        info = found[0]
        rows = self.playlist_songs()
        by_path = {s.path: s for s in self.retro.songs()}
        playable = [by_path[r["data"]] for r in rows if r["data"] in by_path]
        items = [
            w.list_row(
                r["title"],
                _song_summary(r["artist_name"], r["duration"]),
                icon="sound",
                on_click=lambda n=n: (
                    self.retro.play_list(playable, n) if n < len(playable) else None
                ),
                trailing=w.icon_button(
                    "Remove from playlist",
                    "close",
                    lambda k=r["song_key"]: self.retro.remove_from_playlist(k),
                ),
                key=f"entry_{r['song_key']}",
            )
            for n, r in enumerate(rows)
        ]
        header = w.label(
            f"{info['n']} songs • {media.format_duration(info['total'])}",
            size=w.SECONDARY_SIZE,
            color="secondary",
            pad=(48, 0, 48, 0),
            h=80,
            res_id="playlist_info",
        )
        return w.column(
            w.app_bar(
                info["playlist_name"],
                on_up=self.close,
                actions=[
                    w.icon_button(
                        "More options",
                        "more",
                        lambda: playlist_menu(self, self.retro, self.playlist_id),
                    )
                ],
            ),
            header,
            w.scroll_list("playlist_songs", *(items or [w.empty_state("No songs")])),
            flex=1,
        )

    def playlist_songs(self) -> list[dict]:
        return self.retro.playlist_songs(self.playlist_id)


class PlayingQueue(Screen):
    activity = "code.name.monkey.retromusic.activities.PlayingQueueActivity"

    def __init__(self, app: RetroMusicApp):
        super().__init__(app)
        self.retro = app

    def build(self) -> Node:
        queue = self.retro.queue()
        rows = [
            w.list_row(
                row["title"],
                _song_summary(row["artist"], row["duration"]),
                icon="play" if i == self.retro.current else "sound",
                on_click=lambda i=i: self._jump(i),
                selected=i == self.retro.current,
                trailing=w.icon_button(
                    "Remove from playing queue",
                    "close",
                    lambda i=i: self.retro.remove_from_queue(i),
                ),
                key=f"queue_{i}",
            )
            for i, row in enumerate(queue)
        ]
        return w.column(
            w.app_bar(
                "Playing queue",
                on_up=self.close,
                actions=[w.icon_button("Clear playing queue", "delete", self._clear)],
            ),
            w.scroll_list("queue", *(rows or [w.empty_state("The queue is empty")])),
            flex=1,
        )

    def _jump(self, index: int) -> None:
        self.retro.current, self.retro.playing = index, True

    def _clear(self) -> None:
        self.retro.clear_queue()
        self.close()


class SaveAs(Screen):
    """The system's save screen (DocumentsUI's "Save to"): a folder, a file name, Save."""

    activity = "com.android.documentsui.picker.PickActivity"

    def __init__(self, app: RetroMusicApp, playlist_id: int, name: str):
        super().__init__(app)
        self.retro, self.playlist_id = app, playlist_id
        self.folder = device.DOWNLOAD_DATA
        self.file_name = f"{name}{facts.PLAYLIST_EXTENSION}"

    def build(self) -> Node:
        if self.folder == device.EMULATOR_DATA:
            title = "sdk_gphone_x86_64"
        elif self.folder == device.DOWNLOAD_DATA:
            title = "Downloads"
        else:
            title = self.folder.rsplit("/", 1)[1]
        rows = [
            w.list_row(
                name, icon="folder", on_click=lambda n=name: self._enter(n), key=f"dir_{name}"
            )
            for name, is_dir in folder_entries(self.device, self.folder)
            if is_dir
        ]
        return w.column(
            w.app_bar(title, subtitle="Save to", on_up=self._up),
            w.scroll_list("folders", *(rows or [w.empty_state("No folders")])),
            w.text_field(
                self.file_name,
                lambda text: setattr(self, "file_name", text),
                hint="File name",
                key="file_name",
            ),
            w.row(
                w.spacer(flex=1),
                w.button("Cancel", self.close, variant="text", w=260),
                w.button("Save", self._save, variant="filled", w=260),
                h=160,
                pad=(0, 0, 36, 0),
                gap=24,
            ),
            flex=1,
        )

    def _enter(self, name: str) -> None:
        self.folder = f"{self.folder}/{name}"

    def _up(self) -> None:
        if self.folder == device.EMULATOR_DATA:
            self.close()
        else:
            self.folder = self.folder.rsplit("/", 1)[0]

    def _save(self) -> None:
        name = self.file_name.strip()
        if not name or "/" in name:
            self.toast("Enter a file name")
            return
        self.retro.export_playlist(self.playlist_id, f"{self.folder}/{name}")
        self.toast(f"Saved playlist to {name}")
        self.close()
