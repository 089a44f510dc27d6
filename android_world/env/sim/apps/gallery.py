"""Simple Gallery Pro: folders of pictures, a thumbnail grid, a photo viewer, copy and move.

Every image file under shared storage shows, grouped by its folder (a folder tile: newest
picture, name, count). A folder opens a grid of thumbnails, newest first (files written in the
same second, as the frozen clock makes them, Z-A by name: the order a phone shows numbered files
written one after another). As in the real app, thumbnails and the photo carry no text: what a
picture says is on the screen only, for OCR or a vision model to read. The viewer's title is
the file name; swiping the photo sideways turns to the next or previous picture. Long-press
selects thumbnails. "Copy to" / "Move to" (the viewer's or the selection's overflow menu) asks
for a folder: the folders with pictures, or "Other folder" for a folder picker over the whole
storage ("OK" picks the folder shown). A name already there asks Skip or Overwrite.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable

from android_world.env import device
from android_world.env.device_facts import gallery as facts
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen, Selecting
from android_world.env.sim.controller import SimController
from android_world.env.sim.widgets import Bitmap, Node

ROOT = device.EMULATOR_DATA
ROOT_NAME = "Internal storage"
TITLE = "Simple Gallery"
THUMB = 360  # a thumbnail's side on the default screen (three across)
FOLDER_TILE = 540  # a folder tile's side (two across)
SWIPE_MIN = 60  # a sideways drag shorter than this is not a page turn


def folder_name(path: str) -> str:
    return "Internal" if path == ROOT else path.rsplit("/", 1)[-1]


def media_folders(controller: SimController) -> dict[str, list[str]]:
    """Folder path -> the image files directly in it, for every folder with one."""
    found: dict[str, list[str]] = {}
    pending = [ROOT]
    while pending:
        folder = pending.pop()
        for name in controller.list_dir(folder):
            path = f"{folder}/{name}"
            if controller.is_dir(path):
                if name not in facts.SKIPPED_FOLDERS and not name.startswith("."):
                    pending.append(path)
            elif facts.is_image(name):
                found.setdefault(folder, []).append(name)
    return found


def newest_first(controller: SimController, folder: str, names: list[str]) -> list[str]:
    def when(name: str) -> datetime.datetime:
        return controller.modified_time(f"{folder}/{name}")

    by_name = sorted(names, reverse=True)
    return sorted(by_name, key=when, reverse=True)  # stable: equal times stay Z-A


class GalleryApp(App):
    package = facts.PACKAGE
    opens = tuple(facts.IMAGE_FORMATS)

    def __init__(self, phone) -> None:
        super().__init__(phone)
        self._bitmaps: dict[str, tuple[str, Bitmap | None]] = {}

    def main_screen(self) -> Screen:
        return FolderGrid(self)

    def open_file(self, path: str) -> None:
        folder, name = path.rsplit("/", 1)
        self.stack = [Viewer(self, folder, name)]

    def stop(self) -> None:
        super().stop()
        self._bitmaps.clear()

    def bitmap(self, path: str) -> Bitmap | None:
        """The picture at `path`, decoded once per version of the file (None: not a picture)."""
        data = self.device.read_file(path)
        stamp = f"{path}@{self.device.modified_time(path).timestamp()}:{len(data)}"
        cached = self._bitmaps.get(path)
        if cached is None or cached[0] != stamp:
            image = facts.decode_image(data)
            cached = (stamp, Bitmap(stamp, image) if image is not None else None)
            self._bitmaps[path] = cached
        return cached[1]

    def media(self, folder: str) -> list[str]:
        names = [n for n in self.device.list_dir(folder) if facts.is_image(n)]
        names = [n for n in names if not self.device.is_dir(f"{folder}/{n}")]
        return newest_first(self.device, folder, names)


class _GalleryScreen(Screen):
    @property
    def gallery(self) -> GalleryApp:
        app = self.app
        assert isinstance(app, GalleryApp)
        return app

    def columns(self, side: int) -> int:
        return max(2, self.app.phone.width // side)

    def ask_folder(self, paths: list[str], move: bool) -> None:
        """Copy to / Move to: the folders with pictures, or any folder via "Other folder"."""
        verb = "Move" if move else "Copy"
        folders = sorted(media_folders(self.device), key=lambda p: folder_name(p).lower())

        def pick(folder: str) -> None:
            self.dismiss()
            transfer(self, paths, folder, move)

        def other() -> None:
            self.dismiss()
            self.push(FolderPicker(self.app, paths, move))

        rows = [
            w.list_row(
                folder_name(p),
                p.replace(ROOT, ROOT_NAME, 1),
                icon="folder",
                on_click=lambda p=p: pick(p),
                key=f"pick_{p}",
            )
            for p in folders
        ]
        self.show_dialog(
            lambda: w.dialog(
                "Select a folder",
                f"{verb} {len(paths)} item" + ("" if len(paths) == 1 else "s") + " to:",
                body=[w.scroll_list("picked_folders", *rows, h=min(3, len(rows)) * 200)],
                buttons=[("Cancel", self.dismiss), ("Other folder", other)],
            )
        )

    def confirm_delete(self, paths: list[str], after: Callable[[], None]) -> None:
        count = len(paths)
        name = paths[0].rsplit("/", 1)[-1] if count == 1 else f"{count} items"

        def delete() -> None:
            for path in paths:
                self.device.remove(path)
            self.dismiss()
            after()
            self.toast("Deleted")

        self.show_dialog(
            lambda: w.dialog(
                f"Are you sure you want to delete {name}?",
                buttons=[("Cancel", self.dismiss), ("Delete", delete)],
            )
        )


def transfer(screen: Screen, paths: list[str], folder: str, move: bool) -> None:
    """Copy (or move) `paths` into `folder`; names already there ask Skip or Overwrite."""
    device_ = screen.device
    sources = [p for p in paths if device_.exists(p) and p.rsplit("/", 1)[0] != folder]
    clashes = [p for p in sources if device_.exists(f"{folder}/{p.rsplit('/', 1)[-1]}")]

    def run(overwrite: bool) -> None:
        screen.dismiss()
        done = 0
        for src in sources:
            dst = f"{folder}/{src.rsplit('/', 1)[-1]}"
            if src in clashes and not overwrite:
                continue
            device_.write_file(dst, device_.read_file(src))
            if move:
                device_.remove(src)
            done += 1
        if done:
            screen.toast("Files moved successfully" if move else "Files copied successfully")

    if not clashes:
        run(False)
        return
    first = clashes[0].rsplit("/", 1)[-1]
    screen.show_dialog(
        lambda: w.dialog(
            "File conflict",
            f'"{first}" already exists'
            + (f" (and {len(clashes) - 1} more)" if clashes[1:] else ""),
            buttons=[("Skip", lambda: run(False)), ("Overwrite", lambda: run(True))],
        )
    )


class FolderGrid(_GalleryScreen):
    """MainActivity: a tile per folder with pictures."""

    def build(self) -> Node:
        folders = media_folders(self.device)
        order = sorted(
            folders,
            key=lambda f: (
                -max(self.device.modified_time(f"{f}/{n}").timestamp() for n in folders[f]),
                folder_name(f).lower(),
            ),
        )
        tiles = [self._tile(f, self.gallery.media(f)) for f in order]
        columns = self.columns(FOLDER_TILE)
        rows = [
            w.row(
                *tiles[i : i + columns],
                *[w.spacer() for _ in range(columns - len(tiles[i : i + columns]))],
                h=FOLDER_TILE + 150,
                gap=24,
            )
            for i in range(0, len(tiles), columns)
        ]
        body = (
            w.scroll_list("directories_grid", *rows, pad=(24, 24, 24, 24), gap=24)
            if rows
            else w.empty_state("No media files have been found")
        )
        return w.column(w.app_bar(TITLE), body, flex=1)

    def _tile(self, folder: str, names: list[str]) -> Node:
        cover = self.gallery.bitmap(f"{folder}/{names[0]}")
        return w.column(
            w.image_view(cover, fit="cover", h=FOLDER_TILE, res_id="dir_thumbnail"),
            w.label(folder_name(folder), res_id="dir_name", pad=(8, 0, 8, 0)),
            w.label(
                str(len(names)),
                size=w.SECONDARY_SIZE,
                color="secondary",
                res_id="photo_cnt",
                pad=(8, 0, 8, 0),
            ),
            clickable=True,
            focusable=True,
            on_click=lambda: self.push(MediaGrid(self.app, folder)),
            key=f"dir_{folder}",
        )


class MediaGrid(Selecting, _GalleryScreen):
    """MediaActivity: one folder's thumbnails."""

    activity = "com.simplemobiletools.gallery.pro.activities.MediaActivity"

    def __init__(self, app: App, folder: str):
        super().__init__(app)
        self.folder = folder
        self.selected: set[str] = set()

    def build(self) -> Node:
        names = self.gallery.media(self.folder)
        self.selected &= set(names)
        if not names:
            return w.column(
                w.app_bar(folder_name(self.folder), on_up=self.close),
                w.empty_state("No media files have been found"),
                flex=1,
            )
        columns = self.columns(THUMB)
        side = self.app.phone.width // columns
        thumbs = [self._thumb(name, side) for name in names]
        rows = [
            w.row(
                *thumbs[i : i + columns],
                *[w.spacer(w=side) for _ in range(columns - len(thumbs[i : i + columns]))],
                h=side,
            )
            for i in range(0, len(thumbs), columns)
        ]
        return w.column(self._bar(), w.scroll_list("media_grid", *rows), flex=1)

    def _bar(self) -> Node:
        if not self.selected:
            return w.app_bar(folder_name(self.folder), on_up=self.close)
        paths = [f"{self.folder}/{n}" for n in sorted(self.selected)]
        return w.app_bar(
            f"{len(self.selected)} selected",
            on_up=self.clear_selection,
            actions=[
                w.icon_button("Share", "share", lambda: None),
                w.icon_button(
                    "Delete", "delete", lambda: self.confirm_delete(paths, self.clear_selection)
                ),
                w.icon_button("More options", "more", lambda: self._selection_menu(paths)),
            ],
        )

    def _selection_menu(self, paths: list[str]) -> None:
        def then(move: bool) -> Callable[[], None]:
            def run() -> None:
                self.clear_selection()
                self.ask_folder(paths, move)

            return run

        self.show_menu(
            [
                ("Copy to", then(False)),
                ("Move to", then(True)),
                ("Select all", lambda: self.selected.update(self.gallery.media(self.folder))),
            ]
        )

    def _thumb(self, name: str, side: int) -> Node:
        node = w.image_view(
            self.gallery.bitmap(f"{self.folder}/{name}"),
            fit="cover",
            on_click=lambda: self._tap(name),
            on_long_click=lambda: self.toggle(name),
            selected=name in self.selected,
            res_id="medium_thumbnail",
            key=f"thumb_{name}",
            w=side,
            pad=(3, 3, 3, 3),
        )
        return node

    def _tap(self, name: str) -> None:
        if self.selected:
            self.toggle(name)
        else:
            self.push(Viewer(self.app, self.folder, name))


class Viewer(_GalleryScreen):
    """ViewPagerActivity: one picture at a time, fitted to the screen; its name is the title."""

    activity = "com.simplemobiletools.gallery.pro.activities.ViewPagerActivity"

    def __init__(self, app: App, folder: str, name: str):
        super().__init__(app)
        self.folder = folder
        self.name = name

    def _current(self, names: list[str]) -> str | None:
        """The picture shown; when it is gone (moved, deleted), the next one, else none."""
        if self.name in names:
            return self.name
        return names[0] if names else None

    def build(self) -> Node:
        names = self.gallery.media(self.folder)
        current = self._current(names)
        if current is None:
            return w.column(
                w.app_bar(folder_name(self.folder), on_up=self.close),
                w.empty_state("No media files have been found"),
                flex=1,
            )
        self.name = current
        path = f"{self.folder}/{current}"
        bar = w.app_bar(
            current,
            on_up=self.close,
            actions=[
                w.icon_button("Share", "share", lambda: None),
                w.icon_button(
                    "Delete", "delete", lambda: self.confirm_delete([path], lambda: None)
                ),
                w.icon_button("More options", "more", lambda: self._menu(path)),
            ],
        )
        photo = w.image_view(
            self.gallery.bitmap(path),
            on_click=lambda: None,
            on_drag=self._swipe,
            res_id="photo_view",
            flex=1,
            pad=(0, 24, 0, 24),
        )
        return w.column(bar, photo, flex=1)

    def _menu(self, path: str) -> None:
        self.show_menu(
            [
                ("Copy to", lambda: self.ask_folder([path], move=False)),
                ("Move to", lambda: self.ask_folder([path], move=True)),
                ("Properties", lambda: self._properties(path)),
            ]
        )

    def _swipe(self, sx: float, sy: float, ex: float, ey: float) -> None:
        """A sideways drag turns the page: leftwards to the next picture, rightwards back."""
        dx = ex - sx
        if abs(dx) < SWIPE_MIN or abs(dx) < abs(ey - sy):
            return
        names = self.gallery.media(self.folder)
        if self.name not in names:
            return
        i = names.index(self.name) + (1 if dx < 0 else -1)
        if 0 <= i < len(names):
            self.name = names[i]

    def _properties(self, path: str) -> None:
        data = self.device.read_file(path)
        bitmap = self.gallery.bitmap(path)
        size = f"{bitmap.image.width} x {bitmap.image.height}" if bitmap else "-"
        when = self.device.modified_time(path).strftime("%d.%m.%Y %H:%M")
        facts_shown = [
            ("Name", path.rsplit("/", 1)[-1]),
            ("Path", path),
            ("Size", f"{len(data) / 1024:.1f} KB"),
            ("Resolution", size),
            ("Last modified", when),
        ]
        body = [
            w.column(
                w.label(label, size=w.SECONDARY_SIZE, color="secondary"),
                w.label(value, max_lines=2),
                gap=4,
            )
            for label, value in facts_shown
        ]
        self.show_dialog(lambda: w.dialog("Properties", body=body, buttons=[("OK", self.dismiss)]))


class FolderPicker(_GalleryScreen):
    """The "Other folder" picker: any folder of the storage; "OK" picks the one shown."""

    activity = "com.simplemobiletools.gallery.pro.activities.MediaActivity"

    def __init__(self, app: App, paths: list[str], move: bool):
        super().__init__(app)
        self.paths = paths
        self.move = move
        self.path = ROOT

    def build(self) -> Node:
        names = self.device.list_dir(self.path)
        folders = sorted(
            (n for n in names if self.device.is_dir(f"{self.path}/{n}") and not n.startswith(".")),
            key=str.lower,
        )
        rows = [
            w.list_row(
                name,
                self._count(f"{self.path}/{name}"),
                icon="folder",
                on_click=lambda name=name: self._open(name),
                key=f"folder_{name}",
            )
            for name in folders
        ] or [w.empty_state("No folders here")]
        crumbs = " > ".join([ROOT_NAME, *self.path[len(ROOT) :].strip("/").split("/")]).rstrip(" >")
        return w.column(
            w.app_bar("Select a folder", on_up=self._up),
            w.label(
                crumbs, size=36, color="secondary", pad=(48, 0, 48, 0), h=90, res_id="breadcrumbs"
            ),
            w.divider(),
            w.scroll_list("filepicker_list", *rows),
            w.divider(),
            w.row(
                w.spacer(),
                w.button("Cancel", self.close, variant="text", w=260),
                w.button("OK", self._choose, variant="filled", w=260),
                h=170,
                gap=24,
                pad=(0, 0, 36, 0),
                align="center",
            ),
            flex=1,
        )

    def _count(self, path: str) -> str:
        count = len(self.device.list_dir(path))
        return f"{count} item" + ("" if count == 1 else "s")

    def _open(self, name: str) -> None:
        self.path = f"{self.path}/{name}"
        self.scroll_offsets.clear()

    def _up(self) -> None:
        if self.path == ROOT:
            self.close()
        else:
            self.path = self.path.rsplit("/", 1)[0]
            self.scroll_offsets.clear()

    def on_back(self) -> bool:
        self._up()
        return True

    def _choose(self) -> None:
        folder = self.path
        self.close()
        transfer(self.app.top, self.paths, folder, self.move)
