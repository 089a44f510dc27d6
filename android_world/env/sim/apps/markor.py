"""Markor: a plain-text/Markdown notebook whose notes are real files.

The notebook is `/storage/emulated/0/Documents/Markor`; folders and notes are directories and
files there, exactly what upstream's validators `ls` and `cat`. The "+" button opens Markor's
"New file" dialog (name, type, extension; "Folder" creates a folder with that name instead),
then the editor; leaving the editor (Back, "Navigate up" or the save icon) writes the file.
Long-press selects entries; the selection bar deletes them after a confirmation.
"""

from __future__ import annotations

from android_world.env import device
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen, Selecting, folder_entries
from android_world.env.sim.widgets import Node

PACKAGE = "net.gsantner.markor"
NOTEBOOK = device.MARKOR_DATA
FILE_TYPES = (("Markdown", ".md"), ("Plain Text", ".txt"), ("todo.txt", ".txt"))


def note_file_name(name: str, extension: str) -> str:
    """The file a "New file" dialog creates: the name as typed if it has an extension."""
    name = name.strip()
    if "." in name.strip(".") or not extension:
        return name
    return name + (extension if extension.startswith(".") else "." + extension)


class MarkorApp(App):
    package = PACKAGE

    def install(self) -> None:
        self.device.make_dirs(NOTEBOOK)

    def main_screen(self) -> Screen:
        return FileBrowser(self, NOTEBOOK)


class FileBrowser(Selecting, Screen):
    """The "Files" tab: folders first, then notes, A-Z; long-press to select."""

    activity = "net.gsantner.markor.activity.MainActivity"

    def __init__(self, app: App, folder: str):
        super().__init__(app)
        self.folder = folder
        self.selected: set[str] = set()
        self.new_name = ""
        self.new_type = 0
        self.new_ext = ".md"
        self.sort = "Name"
        self.rename_to = ""
        self.move_target = NOTEBOOK

    @property
    def title(self) -> str:
        return "Markor" if self.folder == NOTEBOOK else self.folder.rsplit("/", 1)[-1]

    def entries(self) -> list[tuple[str, bool]]:
        if not self.device.is_dir(self.folder):
            self.device.make_dirs(self.folder)
        entries = folder_entries(self.device, self.folder)
        if self.sort == "Name":
            return entries
        folders = [e for e in entries if e[1]]
        files = [e for e in entries if not e[1]]
        if self.sort == "Date modified":  # newest first, as Markor lists by date
            files.sort(
                key=lambda e: self.device.modified_time(f"{self.folder}/{e[0]}"), reverse=True
            )
        else:  # Size: largest first
            files.sort(
                key=lambda e: len(self.device.read_file(f"{self.folder}/{e[0]}")), reverse=True
            )
        return folders + files

    def build(self) -> Node:
        entries = self.entries()
        self.selected &= {name for name, _ in entries}
        if self.selected:
            bar = w.app_bar(
                f"{len(self.selected)} selected",
                on_up=self.clear_selection,
                actions=[
                    w.icon_button(
                        "Select all", "check", lambda: self.selected.update(n for n, _ in entries)
                    ),
                    w.icon_button("Delete", "delete", self._confirm_delete),
                    w.icon_button("More options", "more", self._selection_menu),
                ],
            )
        else:
            bar = w.app_bar(
                self.title,
                on_up=self.close if self.folder != NOTEBOOK else None,
                actions=[
                    w.icon_button("Search", "search", lambda: None),
                    w.icon_button("Sort by", "sort", self._sort_menu),
                    w.icon_button("More options", "more", self._overflow),
                ],
            )
        rows = [self._row(name, is_dir) for name, is_dir in entries]
        if not rows:
            rows = [w.empty_state("No files yet")]
        path = self.folder.replace(device.EMULATOR_DATA, "/storage/emulated/0")
        listing = w.column(
            bar,
            w.label(
                path, size=32, color="secondary", pad=(48, 0, 48, 0), h=70, res_id="breadcrumb"
            ),
            w.scroll_list("markor_files", *rows, res_id="recycler_view"),
            flex=1,
        )
        nav = w.tabs(("Files", "To-Do", "QuickNote", "More"), 0, lambda _: None, bottom=True)
        fab = w.fab("Create a new file or folder", self._new_file_dialog, res_id="fab_add_new_item")
        return w.column(w.with_fab(listing, fab), nav, flex=1)

    def _row(self, name: str, is_dir: bool) -> Node:
        path = f"{self.folder}/{name}"
        if is_dir:
            summary = self.device.device_time().strftime("%b %-d, %Y")
        else:  # files show when they were last modified, to the minute, and their size
            when = self.device.modified_time(path).strftime("%b %-d, %Y %H:%M")
            summary = f"{when}, {_size_label(len(self.device.read_file(path)))}"
        return w.list_row(
            name,
            summary,
            icon="folder" if is_dir else "file",
            on_click=lambda: self._tap(name, is_dir),
            on_long_click=lambda: self.toggle(name),
            selected=name in self.selected,
            key=f"entry_{name}",
        )

    # selection ------------------------------------------------------------------------------
    def _tap(self, name: str, is_dir: bool) -> None:
        if self.selected:
            self.toggle(name)
        elif is_dir:
            self.push(FileBrowser(self.app, f"{self.folder}/{name}"))
        else:
            self.push(NoteEditor(self.app, f"{self.folder}/{name}"))

    def _selection_menu(self) -> None:
        items = [("Rename", self._rename_dialog)] if len(self.selected) == 1 else []
        self.show_menu([*items, ("Move", self._move_dialog), ("Share", lambda: None)])

    def _sort_menu(self) -> None:
        def choose(order: str):
            return lambda: setattr(self, "sort", order)

        self.show_menu([(order, choose(order)) for order in ("Name", "Date modified", "Size")])

    # rename and move -----------------------------------------------------------------------
    def _rename_dialog(self) -> None:
        (self.rename_to,) = self.selected
        self.show_dialog(
            lambda: w.dialog(
                "Rename",
                body=[
                    w.text_field(
                        self.rename_to,
                        lambda text: setattr(self, "rename_to", text),
                        hint="Name",
                        key="rename_name",
                    )
                ],
                buttons=[("Cancel", self.dismiss), ("OK", self._rename)],
            )
        )

    def _rename(self) -> None:
        (old,) = self.selected
        new = self.rename_to.strip()
        if not new or "/" in new:
            self.toast("Please enter a valid name")
            return
        if new != old:
            if self.device.exists(f"{self.folder}/{new}"):
                self.toast("A file with this name already exists")
                return
            self.device.rename(f"{self.folder}/{old}", f"{self.folder}/{new}")
        self.selected.clear()
        self.dismiss()

    def _move_dialog(self) -> None:
        """A folder chooser over the notebook: tap a folder to open it, OK moves here."""
        self.move_target = NOTEBOOK
        self.show_dialog(self._move_chooser)

    def _move_chooser(self) -> Node:
        here = self.move_target
        rows = []
        if here != NOTEBOOK:
            parent = here.rsplit("/", 1)[0]
            rows.append(
                w.list_row(
                    "..",
                    "Parent folder",
                    icon="folder",
                    on_click=lambda: setattr(self, "move_target", parent),
                    key="move_parent",
                )
            )
        for name, is_dir in folder_entries(self.device, here):
            if is_dir:
                rows.append(
                    w.list_row(
                        name,
                        icon="folder",
                        on_click=lambda n=name: setattr(self, "move_target", f"{here}/{n}"),
                        key=f"move_{name}",
                    )
                )
        shown = "Markor" + here[len(NOTEBOOK) :]
        return w.dialog(
            "Move to",
            body=[
                w.label(shown, color="secondary", pad=(48, 0, 48, 0), res_id="move_path"),
                w.scroll_list("move_folders", *rows, h=900, res_id="move_folders"),
            ],
            buttons=[("Cancel", self.dismiss), ("OK", self._move)],
        )

    def _move(self) -> None:
        target = self.move_target
        moving = [n for n in self.selected if f"{self.folder}/{n}" != target]
        if target == self.folder or any(target.startswith(f"{self.folder}/{n}/") for n in moving):
            self.toast("Choose another folder")
            return
        clashes = [n for n in moving if self.device.exists(f"{target}/{n}")]
        if clashes:
            self.toast(f"{clashes[0]} already exists there")
            return
        for name in moving:
            self.device.rename(f"{self.folder}/{name}", f"{target}/{name}")
        self.selected.clear()
        self.dismiss()

    def _confirm_delete(self) -> None:
        names = sorted(self.selected, key=str.lower)
        what = "this file" if len(names) == 1 else f"these {len(names)} files"
        self.show_dialog(
            lambda: w.dialog(
                "Delete",
                f"Do you really want to delete {what}?\n" + "\n".join(names[:5]),
                buttons=[("Cancel", self.dismiss), ("OK", self._delete)],
            )
        )

    def _delete(self) -> None:
        for name in self.selected:
            self.device.remove(f"{self.folder}/{name}")
        self.selected.clear()
        self.dismiss()

    def _overflow(self) -> None:
        self.show_menu(
            [("Settings", lambda: None), ("Import", lambda: None), ("About", lambda: None)]
        )

    # new file dialog -------------------------------------------------------------------------
    def _new_file_dialog(self) -> None:
        self.new_name, self.new_type, self.new_ext = "", 0, FILE_TYPES[0][1]
        self.show_dialog(self._new_file)

    def _new_file(self) -> Node:
        return w.dialog(
            "New file",
            body=[
                w.text_field(self.new_name, self._set_name, hint="Name", key="new_file_name"),
                w.row(
                    w.label("File type", color="secondary", w=260, h=110),
                    w.button(
                        FILE_TYPES[self.new_type][0],
                        self._choose_type,
                        variant="tonal",
                        desc="File type",
                        h=110,
                    ),
                    h=120,
                    gap=12,
                    pad=(36, 0, 36, 0),
                ),
                w.row(
                    w.label("Extension", color="secondary", w=260, h=110),
                    w.text_field(
                        self.new_ext, self._set_ext, hint="Extension", key="new_file_dialog__ext"
                    ),
                    h=150,
                    gap=12,
                    pad=(36, 0, 0, 0),
                ),
            ],
            buttons=[
                ("Cancel", self.dismiss),
                ("Folder", self._create_folder),
                ("OK", self._create_file),
            ],
        )

    def _set_name(self, text: str) -> None:
        self.new_name = text

    def _set_ext(self, text: str) -> None:
        self.new_ext = text

    def _choose_type(self) -> None:
        # The menu replaces the dialog while open; choosing reopens the dialog.
        def pick(i: int) -> None:
            self.new_type, self.new_ext = i, FILE_TYPES[i][1]
            self.show_dialog(self._new_file)

        self.show_menu([(label, lambda i=i: pick(i)) for i, (label, _) in enumerate(FILE_TYPES)])

    def _create_folder(self) -> None:
        name = self.new_name.strip()
        if not name:
            self.toast("Please enter a name")
            return
        self.device.make_dirs(f"{self.folder}/{name}")
        self.dismiss()

    def _create_file(self) -> None:
        name = note_file_name(self.new_name, self.new_ext)
        if not name:
            self.toast("Please enter a name")
            return
        path = f"{self.folder}/{name}"
        if not self.device.exists(path):
            self.device.write_text(path, "")
        self.dismiss()
        self.push(NoteEditor(self.app, path))


def _size_label(size: int) -> str:
    return f"{size} bytes" if size < 1024 else f"{size / 1024:.1f} KB"


class NoteEditor(Screen):
    """The document editor: the whole note in one multiline field; leaving it saves."""

    activity = "net.gsantner.markor.activity.DocumentActivity"

    def __init__(self, app: App, path: str):
        super().__init__(app)
        self.path = path
        self.text = self.device.read_text(path) if self.device.exists(path) else ""
        self.focus = "note_text" if not self.text else None  # a new note opens with the keyboard

    def build(self) -> Node:
        name = self.path.rsplit("/", 1)[-1]
        return w.column(
            w.app_bar(
                name,
                on_up=self._leave,
                actions=[
                    w.icon_button("Save", "save", self.save),
                    w.icon_button("View mode", "display", lambda: None),
                    w.icon_button(
                        "More options",
                        "more",
                        lambda: self.show_menu([("Share", lambda: None), ("Search", lambda: None)]),
                    ),
                ],
            ),
            w.text_field(
                self.text,
                self._set_text,
                hint="Write something…",
                key="note_text",
                multiline=True,
                flex=1,
                res_id="document__fragment__edit__highlighting_editor",
            ),
            flex=1,
        )

    def _set_text(self, text: str) -> None:
        self.text = text

    def save(self) -> None:
        """Markor writes only a changed document, so opening a note keeps its modified time."""
        current = self.device.read_text(self.path) if self.device.exists(self.path) else None
        if current != self.text:
            self.device.write_text(self.path, self.text)

    def _leave(self) -> None:
        self.save()
        self.close()

    def on_back(self) -> bool:
        self.save()
        return False
