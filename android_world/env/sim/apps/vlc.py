"""VLC for Android (org.videolan.vlc): the media library, playlists, folder browsing and a player.

The media library indexes the videos and songs on shared storage into `Media` rows of its
database (`device_facts.vlc`), as VLC's scanner does when the app is in front: a file that
appears gets a row (title = its name without the extension), one that disappears is marked not
present. Tabs: Video (the library's videos, A-Z), Audio, Browse (Internal memory, folder by
folder) and Playlists.

Playlists: long-press videos to select them (in the order tapped), then "Add to playlist"; or a
video's "More options" menu. The dialog creates a playlist from its name field (the keyboard's
Enter or "Create") or adds to an existing one. Entries go to `PlaylistMediaRelation` with
positions counted from 0, in the order added.

Playing a video opens the player: it shows the frame at the playback position, which advances
with the phone's clock (`Phone.uptime_ms`, 5 s per agent step) while playing; Pause/Play and the
seek bar control it, and at the end VLC returns to where the video was opened. A video's frames
are the text its file carries (`device_facts.media`); the player draws that text on the frame
and, unlike a real SurfaceView, also exposes it in the accessibility tree (res id
`player_frame_text`), so agents reading either the pixels or the tree can watch it.
"""

from __future__ import annotations

import dataclasses

from android_world.env import device
from android_world.env.device_facts import media
from android_world.env.device_facts import vlc as facts
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, OrderedSelecting, Screen, folder_entries
from android_world.env.sim.widgets import Handler, Node

DB = facts.MEDIA_DB
STORAGE = device.EMULATOR_DATA
AUDIO_EXTENSIONS = (".mp3", ".m4a", ".ogg", ".flac", ".wav")
TABS = ("Video", "Audio", "Browse", "Playlists")
_SKIPPED_FOLDERS = ("Android",)  # app-private folders the scanner leaves out
# A frame is drawn light with dark text: on a dark frame tesseract reads nothing on the page
# (psm 3 returned no text at all for yellow on slate), and on a mid-grey one (200) the grey
# becomes black when the screen is binarised in greyscale, text and all. The video's text is
# what matters; upstream's frames are noise with yellow text, which OCR reads worse still.
_FRAME_BG = (225, 228, 234)
_FRAME_TEXT = (20, 20, 20)


@dataclasses.dataclass(frozen=True)
class MediaItem:
    id: int
    title: str
    filename: str
    path: str
    duration_ms: int
    is_video: bool


def _is_media(name: str) -> bool:
    return name.lower().endswith(facts.VIDEO_EXTENSIONS + AUDIO_EXTENSIONS)


class VlcApp(App):
    package = facts.PACKAGE

    def install(self) -> None:
        self.device.sqlite_execute(DB, facts.SCHEMA)
        self.device.make_dirs(facts.VIDEOS_DIR)

    def main_screen(self) -> Screen:
        return VlcMain(self)

    def time_passed(self) -> None:
        top = self.stack[-1] if self.stack else None
        if isinstance(top, Player) and top.finished():
            self.pop()

    # the media library --------------------------------------------------------------------
    def media_files(self, folder: str = STORAGE) -> list[str]:
        """Paths of the media files under `folder`, depth first."""
        found = []
        for name in self.device.list_dir(folder):
            path = f"{folder}/{name}"
            if self.device.is_dir(path):
                if not (folder == STORAGE and name in _SKIPPED_FOLDERS):
                    found += self.media_files(path)
            elif _is_media(name):
                found.append(path)
        return found

    def _ensure_schema(self) -> None:
        tables = self.device.sqlite_query(DB, "SELECT name FROM sqlite_master WHERE type = 'table'")
        if not {"Media", "Playlist", "PlaylistMediaRelation"} <= {t["name"] for t in tables}:
            self.device.sqlite_execute(DB, facts.SCHEMA)

    def scan(self) -> None:
        """Bring `Media` in line with the files on storage (writes only when they differ)."""
        if not self.device.exists(DB):
            self.device.sqlite_execute(DB, facts.SCHEMA)
        self._ensure_schema()
        rows = self.device.sqlite_query(DB, "SELECT id_media, mrl, is_present FROM Media")
        known = {r["mrl"]: r for r in rows}
        files = set(self.media_files())
        for path in sorted(files - known.keys()):
            name = path.rsplit("/", 1)[1]
            try:
                duration = media.read_media(self.device.read_file(path)).duration_ms
            except media.MediaError:
                duration = -1
            is_video = name.lower().endswith(facts.VIDEO_EXTENSIONS)
            self.device.sqlite_execute(
                DB,
                "INSERT INTO Media (type, duration, insertion_date, title, filename, mrl, "
                "is_present) VALUES (?, ?, ?, ?, ?, ?, 1)",
                (
                    facts.MEDIA_TYPE_VIDEO if is_video else 2,
                    duration,
                    int(self.device.device_time().timestamp()),
                    name.rsplit(".", 1)[0],
                    name,
                    path,
                ),
            )
        for mrl, row in known.items():
            present = mrl in files
            if bool(row["is_present"]) != present:
                self.device.sqlite_execute(
                    DB,
                    "UPDATE Media SET is_present = ? WHERE id_media = ?",
                    (int(present), row["id_media"]),
                )

    def library(self, videos: bool) -> list[MediaItem]:
        self.scan()
        rows = self.device.sqlite_query(
            DB,
            "SELECT id_media, title, filename, mrl, duration, type FROM Media "
            "WHERE is_present = 1 AND type = ? ORDER BY title COLLATE NOCASE, id_media",
            (facts.MEDIA_TYPE_VIDEO if videos else 2,),
        )
        return [_item(r) for r in rows]

    def item_for(self, path: str) -> MediaItem | None:
        self.scan()
        rows = self.device.sqlite_query(
            DB,
            "SELECT id_media, title, filename, mrl, duration, type FROM Media WHERE mrl = ?",
            (path,),
        )
        return _item(rows[0]) if rows else None

    # playlists ---------------------------------------------------------------------------
    def playlists(self) -> list[dict]:
        return self.device.sqlite_query(
            DB,
            "SELECT p.id_playlist, p.name, COUNT(r.media_id) AS n FROM Playlist p "
            "LEFT JOIN PlaylistMediaRelation r ON r.playlist_id = p.id_playlist "
            "GROUP BY p.id_playlist ORDER BY p.name COLLATE NOCASE",
        )

    def playlist_items(self, playlist_id: int) -> list[MediaItem]:
        rows = self.device.sqlite_query(
            DB,
            "SELECT m.id_media, m.title, m.filename, m.mrl, m.duration, m.type "
            "FROM PlaylistMediaRelation r JOIN Media m ON m.id_media = r.media_id "
            "WHERE r.playlist_id = ? ORDER BY r.position",
            (playlist_id,),
        )
        return [_item(r) for r in rows]

    def create_playlist(self, name: str) -> int:
        self.device.sqlite_execute(
            DB,
            "INSERT INTO Playlist (name, creation_date) VALUES (?, ?)",
            (name, int(self.device.device_time().timestamp())),
        )
        return self.device.sqlite_query(DB, "SELECT MAX(id_playlist) AS id FROM Playlist")[0]["id"]

    def add_to_playlist(self, playlist_id: int, items: list[MediaItem]) -> None:
        count = len(self.playlist_items(playlist_id))
        for position, item in enumerate(items, start=count):
            self.device.sqlite_execute(
                DB,
                "INSERT INTO PlaylistMediaRelation (media_id, mrl, playlist_id, position) "
                "VALUES (?, ?, ?, ?)",
                (item.id, item.path, playlist_id, position),
            )

    def rename_playlist(self, playlist_id: int, name: str) -> None:
        self.device.sqlite_execute(
            DB, "UPDATE Playlist SET name = ? WHERE id_playlist = ?", (name, playlist_id)
        )

    def delete_playlist(self, playlist_id: int) -> None:
        self.device.sqlite_execute(
            DB, "DELETE FROM PlaylistMediaRelation WHERE playlist_id = ?", (playlist_id,)
        )
        self.device.sqlite_execute(DB, "DELETE FROM Playlist WHERE id_playlist = ?", (playlist_id,))

    def remove_from_playlist(self, playlist_id: int, index: int) -> None:
        items = self.playlist_items(playlist_id)
        del items[index]
        self.device.sqlite_execute(
            DB, "DELETE FROM PlaylistMediaRelation WHERE playlist_id = ?", (playlist_id,)
        )
        self.add_to_playlist(playlist_id, items)

    def play(self, item: MediaItem) -> None:
        try:
            data = self.device.read_file(item.path)
            if item.filename.lower().endswith(".mp3"):
                song = media.read_song_tags(data)
                info = media.MediaInfo("mp3", song.duration_ms, "soun", ())
            else:
                info = media.read_media(data)
        except (media.MediaError, OSError):
            self.phone.toast("VLC could not read this file")
            return
        self.push(Player(self, item, info))


def _item(row: dict) -> MediaItem:
    return MediaItem(
        row["id_media"],
        row["title"] or row["filename"],
        row["filename"],
        row["mrl"],
        row["duration"],
        row["type"] == facts.MEDIA_TYPE_VIDEO,
    )


def _duration_label(item: MediaItem) -> str:
    return media.format_duration(item.duration_ms) if item.duration_ms >= 0 else ""


class _AddToPlaylist:
    """The "Add to playlist" dialog: create one from a name, or add to an existing one."""

    def __init__(self, screen: Screen, app: VlcApp, items: list[MediaItem], done: Handler) -> None:
        self.screen, self.app, self.items, self.done = screen, app, items, done
        self.name = ""

    def open(self) -> None:
        self.screen.show_dialog(self.build)

    def build(self) -> Node:
        rows = [
            w.list_row(
                p["name"],
                f"{p['n']} media",
                icon="menu",
                on_click=lambda p=p: self._add_to(p["id_playlist"], p["name"]),
                key=f"playlist_choice_{p['id_playlist']}",
            )
            for p in self.app.playlists()
        ]
        return w.dialog(
            "Add to playlist",
            body=[
                w.text_field(
                    self.name,
                    lambda text: setattr(self, "name", text),
                    hint="New playlist",
                    key="new_playlist_name",
                    on_enter=self._create,
                ),
                w.row(
                    w.spacer(flex=1),
                    w.button("Create", self._create, variant="filled", w=320),
                    h=140,
                ),
                *(
                    [w.label("Existing playlists", size=36, color="secondary", h=70)]
                    if rows
                    else []
                ),
                w.scroll_list("playlist_choices", *rows, h=min(600, 200 * len(rows)))
                if rows
                else None,
            ],
            buttons=[("Cancel", self.screen.dismiss)],
        )

    def _create(self) -> None:
        name = self.name.strip()
        if not name:
            self.app.phone.toast("Enter a playlist name")
            return
        self._add_to(self.app.create_playlist(name), name)

    def _add_to(self, playlist_id: int, name: str) -> None:
        self.app.add_to_playlist(playlist_id, self.items)
        self.screen.dismiss()
        self.done()
        self.app.phone.toast(f"Added to {name}")


class VlcMain(OrderedSelecting, Screen):
    activity = "org.videolan.vlc.gui.MainActivity"

    def __init__(self, app: VlcApp):
        super().__init__(app)
        self.vlc = app
        self.tab = 0
        self.selected: list[int] = []  # Media ids, in the order picked
        self.dialog: _AddToPlaylist | None = None

    def build(self) -> Node:
        tab = TABS[self.tab]
        items = self.vlc.library(videos=True) if tab == "Video" else []
        if tab == "Audio":
            items = self.vlc.library(videos=False)
        by_id = {i.id: i for i in items}
        self.selected = [i for i in self.selected if i in by_id]
        if self.selected:
            bar = w.app_bar(
                f"{len(self.selected)} selected",
                on_up=self.clear_selection,
                actions=[
                    w.icon_button("Play", "play", lambda: self._play_selection(by_id)),
                    w.icon_button("Add to playlist", "add", lambda: self._add_selection(by_id)),
                ],
            )
        else:
            bar = w.app_bar({"Video": "Videos"}.get(tab, tab))
        if tab in ("Video", "Audio"):
            body = self._media_list(items, "videos" if tab == "Video" else "audio")
        elif tab == "Browse":
            body = w.scroll_list(
                "browse_roots",
                w.list_row(
                    "Internal memory",
                    "sdk_gphone_x86_64",
                    icon="storage",
                    on_click=lambda: self.push(FolderBrowser(self.vlc, STORAGE)),
                    key="root_internal",
                ),
            )
        else:
            body = self._playlists()
        nav = w.tabs(TABS, self.tab, self._select_tab, bottom=True)
        return w.column(bar, body, nav, flex=1)

    def _select_tab(self, index: int) -> None:
        self.tab, self.selected = index, []

    def _media_list(self, items: list[MediaItem], key: str) -> Node:
        rows = [
            w.list_row(
                item.title,
                _duration_label(item),
                icon="video" if item.is_video else "sound",
                on_click=lambda i=item: self._tap(i),
                on_long_click=lambda i=item: self.toggle(i.id),
                selected=item.id in self.selected,
                trailing=w.icon_button("More options", "more", lambda i=item: self._item_menu(i)),
                key=f"media_{item.id}",
            )
            for item in items
        ]
        empty = "No videos" if key == "videos" else "No audio"
        return w.scroll_list(key, *(rows or [w.empty_state(empty)]))

    def _tap(self, item: MediaItem) -> None:
        if self.selected:
            self.toggle(item.id)
        else:
            self.vlc.play(item)

    def _item_menu(self, item: MediaItem) -> None:
        self.show_menu(
            [
                ("Play", lambda: self.vlc.play(item)),
                ("Add to playlist", lambda: self._open_add([item])),
                ("Information", lambda: self._information(item)),
            ]
        )

    def _information(self, item: MediaItem) -> None:
        self.show_dialog(
            lambda: w.dialog(
                item.title,
                f"File: {item.filename}\nLocation: {item.path.rsplit('/', 1)[0]}\n"
                f"Length: {_duration_label(item)}",
                buttons=[("OK", self.dismiss)],
            )
        )

    def _play_selection(self, by_id: dict[int, MediaItem]) -> None:
        first = by_id[self.selected[0]]
        self.clear_selection()
        self.vlc.play(first)

    def _add_selection(self, by_id: dict[int, MediaItem]) -> None:
        self._open_add([by_id[i] for i in self.selected])

    def _open_add(self, items: list[MediaItem]) -> None:
        self.dialog = _AddToPlaylist(self, self.vlc, items, self.clear_selection)
        self.dialog.open()

    def _playlists(self) -> Node:
        rows = [
            w.list_row(
                p["name"],
                f"{p['n']} media",
                icon="menu",
                on_click=lambda p=p: self.push(PlaylistView(self.vlc, p["id_playlist"])),
                key=f"playlist_{p['id_playlist']}",
            )
            for p in self.vlc.playlists()
        ]
        return w.scroll_list("playlists", *(rows or [w.empty_state("No playlists")]))


class FolderBrowser(Screen):
    """Browse > Internal memory: folders, then media files, A-Z."""

    activity = "org.videolan.vlc.gui.MainActivity"

    def __init__(self, app: VlcApp, folder: str):
        super().__init__(app)
        self.vlc, self.folder = app, folder

    def build(self) -> Node:
        rows = []
        for name, is_dir in folder_entries(self.device, self.folder):
            path = f"{self.folder}/{name}"
            if is_dir:
                rows.append(
                    w.list_row(
                        name,
                        icon="folder",
                        on_click=lambda p=path: self.push(FolderBrowser(self.vlc, p)),
                        key=f"dir_{name}",
                    )
                )
            elif _is_media(name):
                rows.append(
                    w.list_row(
                        name,
                        icon="video",
                        on_click=lambda p=path: self._open(p),
                        key=f"file_{name}",
                    )
                )
        title = "Internal memory" if self.folder == STORAGE else self.folder.rsplit("/", 1)[1]
        return w.column(
            w.app_bar(title, on_up=self.close),
            w.scroll_list("folder", *(rows or [w.empty_state("Empty folder")])),
            flex=1,
        )

    def _open(self, path: str) -> None:
        item = self.vlc.item_for(path)
        if item is not None:
            self.vlc.play(item)


class PlaylistView(Screen):
    activity = "org.videolan.vlc.gui.PlaylistActivity"

    def __init__(self, app: VlcApp, playlist_id: int):
        super().__init__(app)
        self.vlc, self.playlist_id = app, playlist_id
        self.new_name = ""

    def build(self) -> Node:
        found = [p for p in self.vlc.playlists() if p["id_playlist"] == self.playlist_id]
        if not found:
            return w.column(
                w.app_bar("Playlist", on_up=self.close), w.empty_state("Deleted"), flex=1
            )
        items = self.vlc.playlist_items(self.playlist_id)
        rows = [
            w.list_row(
                item.title,
                _duration_label(item),
                icon="video" if item.is_video else "sound",
                on_click=lambda i=item: self.vlc.play(i),
                trailing=w.icon_button(
                    "Remove from playlist",
                    "close",
                    lambda n=n: self.vlc.remove_from_playlist(self.playlist_id, n),
                ),
                key=f"entry_{n}",
            )
            for n, item in enumerate(items)
        ]
        return w.column(
            w.app_bar(
                found[0]["name"],
                on_up=self.close,
                actions=[w.icon_button("More options", "more", self._menu)],
            ),
            w.scroll_list("playlist_items", *(rows or [w.empty_state("This playlist is empty")])),
            flex=1,
        )

    def _menu(self) -> None:
        self.show_menu([("Rename", self._rename_dialog), ("Delete", self._delete)])

    def _rename_dialog(self) -> None:
        self.new_name = ""
        self.show_dialog(
            lambda: w.dialog(
                "Rename",
                body=[
                    w.text_field(
                        self.new_name,
                        lambda text: setattr(self, "new_name", text),
                        hint="Playlist name",
                        key="rename_playlist",
                    )
                ],
                buttons=[("Cancel", self.dismiss), ("OK", self._rename)],
            )
        )

    def _rename(self) -> None:
        if self.new_name.strip():
            self.vlc.rename_playlist(self.playlist_id, self.new_name.strip())
        self.dismiss()

    def _delete(self) -> None:
        self.vlc.delete_playlist(self.playlist_id)
        self.close()


class Player(Screen):
    """The video player: the frame at the playback position, with its controls."""

    activity = "org.videolan.vlc.gui.video.VideoPlayerActivity"

    def __init__(self, app: VlcApp, item: MediaItem, info: media.MediaInfo):
        super().__init__(app)
        self.vlc, self.item, self.info = app, item, info
        self.offset_ms = 0  # position when playback last (re)started
        self.since: int | None = app.phone.uptime_ms  # None while paused

    def position(self) -> int:
        running = self.vlc.phone.uptime_ms - self.since if self.since is not None else 0
        return min(self.info.duration_ms, self.offset_ms + running)

    def finished(self) -> bool:
        return self.since is not None and self.position() >= self.info.duration_ms

    def build(self) -> Node:
        position = self.position()
        text = self.info.text_at(position)
        frame = w.column(
            w.spacer(flex=1),
            w.label(
                text,
                size=96,
                bold=True,
                center=True,
                h=180,
                color=_FRAME_TEXT,
                res_id="player_frame_text",
            )
            if text
            else None,
            w.spacer(flex=1),
            cls="android.view.SurfaceView",
            res_id="player_surface",
            style={"bg": _FRAME_BG},
            flex=1,
        )
        playing = self.since is not None
        controls = w.column(
            w.seekbar(
                position, 0, max(1, self.info.duration_ms), self._seek, desc="Seek", key="seek"
            ),
            w.row(
                w.label(media.format_duration(position), size=36, w=200, res_id="player_time"),
                w.spacer(flex=1),
                w.icon_button(
                    "Pause" if playing else "Play", "pause" if playing else "play", self._toggle
                ),
                w.spacer(flex=1),
                w.label(
                    media.format_duration(self.info.duration_ms),
                    size=36,
                    w=200,
                    res_id="player_length",
                ),
                h=160,
                pad=(36, 0, 36, 0),
                align="center",
            ),
        )
        return w.column(w.app_bar(self.item.title, on_up=self.close), frame, controls, flex=1)

    def _toggle(self) -> None:
        if self.since is not None:
            self.offset_ms, self.since = self.position(), None
        else:
            if self.position() >= self.info.duration_ms:
                self.offset_ms = 0
            self.since = self.vlc.phone.uptime_ms

    def _seek(self, value: float) -> None:
        self.offset_ms = int(value)
        if self.since is not None:
            self.since = self.vlc.phone.uptime_ms
