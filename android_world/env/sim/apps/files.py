"""Files (DocumentsUI): browse the shared storage, select, delete and move files.

The storage root is shown as "sdk_gphone_x86_64", as on the emulator upstream uses, and maps
to `/storage/emulated/0`; every list is read from the directory tree on each frame, so what
tasks write appears at once and what the user deletes or moves is gone from the device.
Long-press starts a selection; the selection bar has Delete (with a confirmation) and an
overflow menu whose "Move to…" opens a folder chooser with a "Move" button. Tapping a file
offers Android's "Open with" for the apps that open its type (`App.opens`: Chrome for .html,
the gallery for pictures): "Just once" or "Always" opens it there.
"""

from __future__ import annotations

from android_world.env import device
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen, Selecting, folder_entries
from android_world.env.sim.widgets import Node

PACKAGE = "com.google.android.documentsui"
ROOT = device.EMULATOR_DATA
ROOT_NAME = "sdk_gphone_x86_64"


def display_name(path: str) -> str:
    return ROOT_NAME if path == ROOT else path.rsplit("/", 1)[-1]


def crumbs(path: str) -> str:
    """ "sdk_gphone_x86_64 > Download > x" for a device path under the root."""
    rest = path[len(ROOT) :].strip("/")
    return " > ".join([ROOT_NAME, *([p for p in rest.split("/")] if rest else [])])


def breadcrumb(path: str) -> Node:
    return w.label(
        crumbs(path), size=36, color="secondary", pad=(48, 0, 48, 0), h=90, res_id="breadcrumb"
    )


def size_label(size: int) -> str:
    if size < 1000:
        return f"{size} bytes"
    if size < 1_000_000:
        return f"{size / 1000:.1f} kB"
    return f"{size / 1_000_000:.1f} MB"


class FilesApp(App):
    package = PACKAGE

    def main_screen(self) -> Screen:
        return Browser(self, ROOT)


class _Listing(Screen):
    """What the browser and the folder chooser share: reading and ordering a folder."""

    def __init__(self, app: App, path: str):
        super().__init__(app)
        self.path = path

    def entries(self) -> list[tuple[str, bool]]:
        return folder_entries(self.device, self.path)

    def summary(self, name: str, is_dir: bool) -> str:
        path = f"{self.path}/{name}"
        date = self.device.device_time().strftime("%b %-d")
        if is_dir:
            return date
        return f"{date}, {size_label(len(self.device.read_file(path)))}"


class Browser(Selecting, _Listing):
    """FilesActivity showing one folder; tapping a folder opens it, Back goes up."""

    activity = "com.android.documentsui.files.FilesActivity"

    def __init__(self, app: App, path: str):
        super().__init__(app, path)
        self.selected: set[str] = set()
        self.chosen: App | None = None  # the app picked in an "Open with" chooser

    def build(self) -> Node:
        entries = self.entries()
        self.selected &= {name for name, _ in entries}
        if self.selected:
            bar = w.app_bar(
                f"{len(self.selected)} selected",
                on_up=self.clear_selection,
                actions=[
                    w.icon_button("Share", "share", lambda: None),
                    w.icon_button("Delete", "delete", self._confirm_delete),
                    w.icon_button("More options", "more", self._selection_menu),
                ],
            )
        else:
            bar = w.app_bar(
                display_name(self.path),
                actions=[
                    w.icon_button("Search", "search", lambda: None),
                    w.icon_button("More options", "more", self._overflow),
                ],
            )
            bar.children[0] = w.icon_button("Show roots", "menu", self._roots)
        rows = [
            w.list_row(
                name,
                self.summary(name, is_dir),
                icon="folder" if is_dir else "file",
                on_click=lambda name=name, is_dir=is_dir: self._tap(name, is_dir),
                on_long_click=lambda name=name: self.toggle(name),
                selected=name in self.selected,
                key=f"doc_{name}",
            )
            for name, is_dir in entries
        ]
        if not rows:
            rows = [w.empty_state("No items")]
        return w.column(
            bar,
            breadcrumb(self.path),
            w.divider(),
            w.scroll_list("dir_list", *rows, res_id="dir_list"),
            flex=1,
        )

    def _tap(self, name: str, is_dir: bool) -> None:
        if self.selected:
            self.toggle(name)
        elif is_dir:
            self.push(Browser(self.app, f"{self.path}/{name}"))
        else:
            self._open_with(f"{self.path}/{name}")

    def _open_with(self, path: str) -> None:
        """Android's "Open with" chooser: the apps that take this file type; with one, its
        name in the title. A choice is made, then "Just once" or "Always" opens the file."""
        apps = self.app.phone.apps_opening(path)
        if not apps:
            self.toast(f"No app can open {path.rsplit('/', 1)[-1]}")
            return
        self.chosen = apps[0] if len(apps) == 1 else None

        def choose(app: App) -> None:
            self.chosen = app

        def open_it() -> None:
            if self.chosen is not None:
                self.dismiss()
                self.app.phone.launch(self.chosen.package, opening=path)

        def build() -> Node:
            if len(apps) == 1:
                return w.dialog(
                    f"Open with {apps[0].label}",
                    buttons=[("Always", open_it), ("Just once", open_it)],
                )
            rows = [
                w.list_row(
                    app.label,
                    on_click=lambda app=app: choose(app),
                    selected=app is self.chosen,
                    key=f"open_with_{app.package}",
                )
                for app in apps
            ]
            return w.dialog(
                "Open with", body=rows, buttons=[("Always", open_it), ("Just once", open_it)]
            )

        self.show_dialog(build)

    def _roots(self) -> None:
        self.show_menu(
            [
                ("Recent", lambda: self._open_root(ROOT)),
                ("Images", lambda: self._open_root(device.PICTURES_DATA)),
                ("Downloads", lambda: self._open_root(device.DOWNLOAD_DATA)),
                (ROOT_NAME, lambda: self._open_root(ROOT)),
            ]
        )

    def _open_root(self, path: str) -> None:
        self.app.stack = [Browser(self.app, ROOT)]
        if path != ROOT:
            self.app.push(Browser(self.app, path))

    def _overflow(self) -> None:
        self.show_menu(
            [
                ("New folder", self._new_folder),
                ("Select all", self._select_all),
                ("Sort by…", lambda: None),
            ]
        )

    def _select_all(self) -> None:
        self.selected = {name for name, _ in self.entries()}

    def _new_folder(self) -> None:
        self.folder_name = ""
        self.show_dialog(
            lambda: w.dialog(
                "New folder",
                body=[
                    w.text_field(
                        self.folder_name,
                        self._set_folder_name,
                        hint="Folder name",
                        key="folder_name",
                    )
                ],
                buttons=[("Cancel", self.dismiss), ("OK", self._make_folder)],
            )
        )

    def _set_folder_name(self, text: str) -> None:
        self.folder_name = text

    def _make_folder(self) -> None:
        if self.folder_name.strip():
            self.device.make_dirs(f"{self.path}/{self.folder_name.strip()}")
        self.dismiss()

    def _selection_menu(self) -> None:
        self.show_menu(
            [
                ("Select all", self._select_all),
                ("Copy to…", lambda: None),
                ("Move to…", self._move_to),
                ("Compress", lambda: None),
                ("Rename", lambda: None),
            ]
        )

    def _confirm_delete(self) -> None:
        count = len(self.selected)
        message = "Delete this file?" if count == 1 else f"Delete {count} items?"
        self.show_dialog(
            lambda: w.dialog(message, buttons=[("Cancel", self.dismiss), ("OK", self._delete)])
        )

    def _delete(self) -> None:
        for name in self.selected:
            self.device.remove(f"{self.path}/{name}")
        count = len(self.selected)
        self.selected.clear()
        self.dismiss()
        self.toast("Deleted 1 item" if count == 1 else f"Deleted {count} items")

    def _move_to(self) -> None:
        items = [f"{self.path}/{name}" for name in sorted(self.selected)]
        self.selected.clear()
        self.push(FolderChooser(self.app, ROOT, items))


class FolderChooser(_Listing):
    """The "Move to…" picker: folders open, files are greyed out, "Move" moves here."""

    activity = "com.android.documentsui.picker.PickActivity"

    def __init__(self, app: App, path: str, items: list[str]):
        super().__init__(app, path)
        self.items = items

    def build(self) -> Node:
        rows = []
        for name, is_dir in self.entries():
            if is_dir:
                rows.append(
                    w.list_row(
                        name,
                        self.summary(name, True),
                        icon="folder",
                        on_click=lambda name=name: self._open(name),
                        key=f"pick_{name}",
                    )
                )
            else:
                row = w.list_row(name, icon="file", key=f"pick_{name}")
                row.enabled = False
                for node in row.walk():
                    if node.kind == "text":
                        node.style["color"] = "hint"
                rows.append(row)
        if not rows:
            rows = [w.empty_state("No items")]
        count = len(self.items)
        return w.column(
            w.app_bar(
                display_name(self.path),
                on_up=self._up,
                subtitle=f"Move {count} item" + ("" if count == 1 else "s") + " to…",
            ),
            breadcrumb(self.path),
            w.divider(),
            w.scroll_list("pick_list", *rows),
            w.divider(),
            w.row(
                w.spacer(),
                w.button("Cancel", self._cancel, variant="text", w=260),
                w.button("Move", self._move, variant="filled", w=260, res_id="button1"),
                h=170,
                gap=24,
                pad=(0, 0, 36, 0),
                align="center",
            ),
            flex=1,
        )

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

    def _cancel(self) -> None:
        self.close()

    def _move(self) -> None:
        moved = 0
        for src in self.items:
            dst = f"{self.path}/{src.rsplit('/', 1)[-1]}"
            if (
                src == dst
                or dst.startswith(src + "/")
                or not self.device.exists(src)
                or self.device.exists(dst)
            ):
                continue
            _move(self.device, src, dst)
            moved += 1
        self.close()
        self.toast(f"Moved {moved} item" + ("" if moved == 1 else "s"))


def _move(controller: device.DeviceController, src: str, dst: str) -> None:
    """Rename when the controller can, else copy and remove (what `mv` does across mounts)."""
    rename = getattr(controller, "rename", None)
    if rename is not None:
        rename(src, dst)
        return
    controller.write_file(dst, controller.read_file(src))
    controller.remove(src)
