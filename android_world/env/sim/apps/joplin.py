"""Joplin (net.cozic.joplin): notebooks of notes and to-dos, kept in the app's sqlite database.

The main page lists the notes of the chosen notebook ("All notes" at first), most recently
updated first, open to-dos on top (Joplin's defaults); a to-do's row starts with its check box.
"Show side menu" opens the notebooks; "Search" finds notes by title or text. A note opens on its
own page (title, the to-do's check box, the text as written); "Edit" changes title and text, and
the "+" button makes a new note or to-do in the current notebook. Every change is written to
`notes` and `notes_normalized` (the copy Joplin's search reads).
"""

from __future__ import annotations

import uuid

from android_world.env.device_facts import joplin as facts
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen
from android_world.env.sim.widgets import Node

ALL_NOTES = "All notes"


class JoplinApp(App):
    package = facts.PACKAGE

    def install(self) -> None:
        self.device.sqlite_execute(facts.DB, facts.SCHEMA)

    def main_screen(self) -> Screen:
        return NoteList(self)

    # data ----------------------------------------------------------------------------------
    def query(self, sql: str, params: tuple = ()) -> list[dict]:
        self.device.sqlite_execute(facts.DB, facts.SCHEMA)
        return self.device.sqlite_query(facts.DB, sql, params)

    def folders(self) -> list[dict]:
        return self.query("SELECT id, title FROM folders ORDER BY title COLLATE NOCASE, id")

    def notes(self, folder_id: str | None) -> list[dict]:
        """A notebook's notes (all of them for None): open to-dos first, then newest first."""
        where, params = ("WHERE parent_id = ?", (folder_id,)) if folder_id else ("", ())
        rows = self.query(f"SELECT * FROM notes {where}", params)
        return sorted(
            rows,
            key=lambda r: (
                not (r["is_todo"] and not r["todo_completed"]),
                -(r["user_updated_time"] or 0),
                (r["title"] or "").lower(),
                r["id"],
            ),
        )

    def note(self, note_id: str) -> dict | None:
        rows = self.query("SELECT * FROM notes WHERE id = ?", (note_id,))
        return rows[0] if rows else None

    def now_ms(self) -> int:
        return int(self.device.device_time().timestamp() * 1000)

    def save_note(self, row: dict) -> None:
        """Insert or update a note and its search copy."""
        columns = [c for c in facts.NOTE_COLUMNS if c in row]
        names = ", ".join(f'"{c}"' for c in columns)
        self.device.sqlite_execute(
            facts.DB,
            f"INSERT OR REPLACE INTO notes ({names}) VALUES ({', '.join('?' * len(columns))})",
            tuple(row[c] for c in columns),
        )
        self.device.sqlite_execute(
            facts.DB, "DELETE FROM notes_normalized WHERE id = ?", (row["id"],)
        )
        copy = facts.normalized(row)
        names = ", ".join(f'"{c}"' for c in copy)
        self.device.sqlite_execute(
            facts.DB,
            f"INSERT INTO notes_normalized ({names}) VALUES ({', '.join('?' * len(copy))})",
            tuple(copy.values()),
        )

    def set_done(self, note_id: str, done: bool) -> None:
        note = self.note(note_id)
        if note is not None:
            stamp = self.now_ms()
            self.save_note(
                {**note, "todo_completed": stamp if done else 0, "user_updated_time": stamp}
            )


def todo_box(app: JoplinApp, note: dict) -> Node:
    done = bool(note["todo_completed"])
    box = w.checkbox(done, "", lambda on: app.set_done(note["id"], on))
    box.res_id = "todo_checkbox"
    return box


class NoteList(Screen):
    activity = "net.cozic.joplin.MainActivity"

    def __init__(self, app: App):
        super().__init__(app)
        self.folder_id: str | None = None

    @property
    def joplin(self) -> JoplinApp:
        return self.app  # type: ignore[return-value]

    def folder_title(self) -> str:
        found = [f["title"] for f in self.joplin.folders() if f["id"] == self.folder_id]
        if self.folder_id and not found:
            self.folder_id = None  # the notebook is gone
        return found[0] if found else ALL_NOTES

    def build(self) -> Node:
        title = self.folder_title()
        notes = self.joplin.notes(self.folder_id)
        rows = [self.row(n) for n in notes] or [w.empty_state("There are currently no notes.")]
        bar = w.row(
            w.icon_button("Show side menu", "menu", self.open_side_menu),
            w.column(
                w.label(title, size=w.TITLE_SIZE, res_id="android:id/title"),
                flex=1,
                align="center",
                pad=(110, 0, 0, 0),  # tesseract reads a title close to the menu icon as one word
            ),
            w.icon_button("Search", "search", lambda: self.push(SearchScreen(self.app))),
            kind="appbar",
            h=w.APP_BAR_H,
            pad=(12, 0, 12, 0),
            align="center",
        )
        return w.with_fab(
            w.column(bar, w.scroll_list("note_list", *rows), flex=1),
            w.fab("Add", self.add_menu),
        )

    def row(self, note: dict) -> Node:
        note_id = note["id"]
        return w.row(
            todo_box(self.joplin, note) if note["is_todo"] else None,
            w.label(note["title"] or "Untitled", res_id="note_title", max_lines=2),
            kind="row",
            h=w.ROW_H,
            pad=(36 if note["is_todo"] else 48, 0, 36, 0),
            gap=12,
            align="center",
            clickable=True,
            focusable=True,
            on_click=lambda: self.push(NoteView(self.app, note_id)),
            key=f"note_{note_id}",
        )

    def open_side_menu(self) -> None:
        self.push(SideMenu(self.app, self))

    def add_menu(self) -> None:
        self.show_menu(
            [("New to-do", lambda: self.new_note(True)), ("New note", lambda: self.new_note(False))]
        )

    def new_note(self, todo: bool) -> None:
        folder = self.folder_id or next((f["id"] for f in self.joplin.folders()), None)
        if folder is None:
            self.toast("Create a notebook first")
            return
        self.push(NoteEditor(self.app, None, folder, todo))


class SideMenu(Screen):
    """The side menu: "All notes", then the notebooks A-Z."""

    activity = "net.cozic.joplin.MainActivity"

    def __init__(self, app: App, notes: NoteList):
        super().__init__(app)
        self.notes = notes

    def build(self) -> Node:
        joplin: JoplinApp = self.app  # type: ignore[assignment]
        rows = [w.list_row(ALL_NOTES, icon="file", on_click=lambda: self.pick(None))]
        rows.append(w.label("NOTEBOOKS", size=w.SECONDARY_SIZE, color="accent", pad=(48, 24, 0, 0)))
        rows += [
            w.list_row(
                f["title"], icon="folder", on_click=lambda f=f: self.pick(f["id"]), key=f["id"]
            )
            for f in joplin.folders()
        ]
        return w.column(
            w.app_bar("Joplin", on_up=self.close), w.scroll_list("side_menu", *rows), flex=1
        )

    def pick(self, folder_id: str | None) -> None:
        self.notes.folder_id = folder_id
        self.notes.scroll_offsets.pop("note_list", None)
        self.close()


class NoteView(Screen):
    activity = "net.cozic.joplin.MainActivity"

    def __init__(self, app: App, note_id: str):
        super().__init__(app)
        self.note_id = note_id

    def build(self) -> Node:
        joplin: JoplinApp = self.app  # type: ignore[assignment]
        note = joplin.note(self.note_id)
        if note is None:
            return w.column(w.app_bar("", on_up=self.close), w.empty_state("Note deleted"), flex=1)
        body = note["body"] or ""
        lines = [
            w.label(line, max_lines=w._lines(line, 40), pad=(48, 0, 48, 0), res_id="note_body")
            for line in body.split("\n")
        ]
        title_row = w.row(
            todo_box(joplin, note) if note["is_todo"] else None,
            w.label(note["title"] or "Untitled", size=w.TITLE_SIZE, flex=1, res_id="note_title"),
            h=160,
            pad=(36, 0, 36, 0),
            gap=12,
            align="center",
        )
        return w.column(
            w.app_bar(
                "",
                on_up=self.close,
                actions=[
                    w.icon_button("Edit", "edit", lambda: self.push(NoteEditor.of(self.app, note)))
                ],
            ),
            w.scroll_list("note_view", title_row, w.divider(), *lines, gap=4, pad=(0, 0, 0, 48)),
            flex=1,
        )


class NoteEditor(Screen):
    """A new note or to-do, or an existing note's title and text; "Save" writes it."""

    activity = "net.cozic.joplin.MainActivity"

    def __init__(self, app: App, note: dict | None, folder_id: str, todo: bool):
        super().__init__(app)
        self.note, self.folder_id, self.todo = note, folder_id, todo
        self.title = note["title"] if note else ""
        self.body = note["body"] if note else ""
        self.focus = "title"

    @classmethod
    def of(cls, app: App, note: dict) -> NoteEditor:
        return cls(app, note, note["parent_id"], bool(note["is_todo"]))

    def build(self) -> Node:
        return w.column(
            w.app_bar(
                "New to-do" if self.todo and not self.note else "",
                on_up=self.close,
                actions=[w.icon_button("Save", "check", self.save)],
            ),
            w.text_field(self.title, self.set_title, hint="Title", key="title"),
            w.text_field(
                self.body,
                self.set_body,
                hint="Your note...",
                key="body",
                multiline=True,
                flex=1,
            ),
            flex=1,
        )

    def set_title(self, text: str) -> None:
        self.title = text

    def set_body(self, text: str) -> None:
        self.body = text

    def save(self) -> None:
        joplin: JoplinApp = self.app  # type: ignore[assignment]
        stamp = joplin.now_ms()
        if self.note is not None:
            row = {**self.note, "title": self.title, "body": self.body}
        else:
            row = {
                "id": uuid.UUID(int=joplin.rng.getrandbits(128)).hex,
                "parent_id": self.folder_id,
                "is_todo": int(self.todo),
                "todo_completed": 0,
                "created_time": stamp,
                "user_created_time": stamp,
                "title": self.title,
                "body": self.body,
            }
        row.update(updated_time=stamp, user_updated_time=stamp)
        joplin.save_note(row)
        self.close()


class SearchScreen(Screen):
    """Notes whose title or text holds the query (case-insensitive)."""

    activity = "net.cozic.joplin.MainActivity"

    def __init__(self, app: App):
        super().__init__(app)
        self.query = ""
        self.focus = "search_field"

    def build(self) -> Node:
        joplin: JoplinApp = self.app  # type: ignore[assignment]
        wanted = self.query.strip().lower()
        found = (
            [
                n
                for n in joplin.notes(None)
                if wanted in (n["title"] or "").lower() or wanted in (n["body"] or "").lower()
            ]
            if wanted
            else []
        )
        rows = [
            w.list_row(
                n["title"] or "Untitled",
                on_click=lambda n=n: self.push(NoteView(self.app, n["id"])),
                key=f"found_{n['id']}",
            )
            for n in found
        ]
        if wanted and not rows:
            rows = [w.empty_state("No notes found")]
        return w.column(
            w.row(
                w.icon_button("Navigate up", "back", self.close),
                w.text_field(
                    self.query,
                    self.set_query,
                    hint="Search...",
                    key="search_field",
                    on_enter=self.hide_keyboard,
                ),
                kind="appbar",
                h=w.APP_BAR_H,
                pad=(12, 15, 24, 15),
            ),
            w.scroll_list("search_results", *rows),
            flex=1,
        )

    def set_query(self, text: str) -> None:
        self.query = text

    def hide_keyboard(self) -> None:
        self.focus = None
