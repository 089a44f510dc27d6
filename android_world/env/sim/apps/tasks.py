"""Tasks (org.tasks, Tasks.org): a to-do list kept in the real app's `tasks` table.

The database is upstream's `/data/data/org.tasks/databases/database` with the columns upstream
reads and writes (`importance` 0 = high .. 3 = none; `dueDate`, `hideUntil`, `completed` in
epoch milliseconds, 0 meaning unset). As in the real app, the list hides completed tasks and
tasks whose "hide until" lies in the future until the overflow menu shows them; completed ones
then follow the open ones under a "Completed" header. Each row's check box is described by the
task's priority (the app colours it) and is checked when the task is done; tapping it completes
or reopens the task, tapping the row opens the editor (title, due date, priority, notes, Delete).
"""

from __future__ import annotations

import datetime
import uuid

from android_world.env.device_facts.tasks import (
    DB,
    PACKAGE,
    ROW_H,
    SCHEMA,
)
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen
from android_world.env.sim.widgets import Node

PRIORITIES = ("High", "Medium", "Low", "None")  # by importance 0..3
PRIORITY_COLOURS = ("#D93025", "#F9AB00", "#1A73E8", "#5F6368")
SORTS = ("Due date", "Priority", "Alphabetical", "Created")
UTC = datetime.UTC


def priority_desc(importance: int) -> str:
    """What a row's check box says: 'High priority', ..., 'No priority'."""
    name = PRIORITIES[max(0, min(3, int(importance)))]
    return "No priority" if name == "None" else f"{name} priority"


def to_datetime(ms: int) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(ms / 1000, tz=UTC)


def format_due(ms: int) -> str:
    """'Mon, Oct 16' or 'Mon, Oct 16, 11:00 AM' (a due time other than midnight)."""
    when = to_datetime(ms)
    text = when.strftime("%a, %b %-d")
    if (when.hour, when.minute) != (0, 0):
        text += when.strftime(", %-I:%M %p")
    return text


def sort_key(mode: str):
    far = 1 << 62

    def key(r: dict):
        due = r["dueDate"] or far
        if mode == "Priority":
            return (r["importance"], due, r["_id"])
        if mode == "Alphabetical":
            return ((r["title"] or "").lower(), r["_id"])
        if mode == "Created":
            return (-(r["created"] or 0), r["_id"])
        return (due, r["importance"], r["_id"])

    return key


class TasksApp(App):
    package = PACKAGE

    def install(self) -> None:
        self.device.sqlite_execute(DB, SCHEMA)

    def main_screen(self) -> Screen:
        return TaskList(self)


def _now_ms(screen: Screen) -> int:
    return int(screen.device.device_time().timestamp() * 1000)


class TaskList(Screen):
    """My Tasks: open tasks by the chosen order; completed and hidden ones on request."""

    def __init__(self, app: App):
        super().__init__(app)
        self.sort = SORTS[0]
        self.show_completed = False
        self.show_hidden = False

    def visible_tasks(self) -> tuple[list[dict], list[dict]]:
        now = _now_ms(self)
        rows = self.device.sqlite_query(DB, "SELECT * FROM tasks WHERE deleted = 0")
        if not self.show_hidden:
            rows = [r for r in rows if not r["hideUntil"] or r["hideUntil"] <= now]
        key = sort_key(self.sort)
        open_rows = sorted((r for r in rows if not r["completed"]), key=key)
        done = sorted((r for r in rows if r["completed"]), key=key) if self.show_completed else []
        return open_rows, done

    def build(self) -> Node:
        open_rows, done = self.visible_tasks()
        items: list[Node | None] = [self.row(r) for r in open_rows]
        if done:
            items.append(
                w.label(
                    "Completed",
                    size=w.SECONDARY_SIZE,
                    color="accent",
                    h=110,
                    pad=(48, 40, 48, 0),
                    res_id="header",
                )
            )
            items += [self.row(r) for r in done]
        bar = w.app_bar(
            "My Tasks",
            actions=[
                w.icon_button("Sort", "sort", self.pick_sort, res_id="menu_sort"),
                w.icon_button("More options", "more", self.more),
            ],
        )
        body = w.scroll_list(
            "task_list", *(items or [w.empty_state("No tasks")]), res_id="recycler_view"
        )
        return w.with_fab(
            w.column(bar, body, flex=1), w.fab("Create new task", self.new_task, res_id="fab")
        )

    def row(self, r: dict) -> Node:
        task_id, done = r["_id"], bool(r["completed"])
        box = w.checkbox(
            done, priority_desc(r["importance"]), lambda on: self.complete(task_id, on)
        )
        box.style["color"] = PRIORITY_COLOURS[max(0, min(3, int(r["importance"])))]
        box.res_id = "completeBox"
        texts = w.column(
            w.label(r["title"] or "", res_id="title"),
            w.label(
                format_due(r["dueDate"]),
                size=w.SECONDARY_SIZE,
                color="secondary",
                res_id="due_date",
            )
            if r["dueDate"]
            else None,
            flex=1,
            align="center",
        )
        return w.row(
            box,
            texts,
            kind="row",
            h=ROW_H,
            pad=(24, 0, 36, 0),
            gap=24,
            align="center",
            clickable=True,
            focusable=True,
            on_click=lambda: self.push(TaskEdit(self.app, task_id)),
            key=f"task_{task_id}",
        )

    def complete(self, task_id: int, on: bool) -> None:
        now = _now_ms(self)
        self.device.sqlite_execute(
            DB,
            "UPDATE tasks SET completed = ?, modified = ? WHERE _id = ?",
            (now if on else 0, now, task_id),
        )

    def new_task(self) -> None:
        self.push(TaskEdit(self.app, None))

    def more(self) -> None:
        self.show_menu(
            [
                ("Sort", self.pick_sort),
                (
                    "Hide completed" if self.show_completed else "Show completed",
                    self.flip_completed,
                ),
                ("Hide hidden" if self.show_hidden else "Show hidden", self.flip_hidden),
                ("Clear completed", self.clear_completed),
            ]
        )

    def flip_completed(self) -> None:
        self.show_completed = not self.show_completed

    def flip_hidden(self) -> None:
        self.show_hidden = not self.show_hidden

    def clear_completed(self) -> None:
        self.device.sqlite_execute(
            DB, "UPDATE tasks SET deleted = ? WHERE completed > 0 AND deleted = 0", (_now_ms(self),)
        )

    def pick_sort(self) -> None:
        def choose(mode: str):
            def run() -> None:
                self.sort = mode
                self.scroll_offsets.pop("task_list", None)
                self.dismiss()

            return run

        self.show_dialog(
            lambda: w.dialog(
                "Sort by",
                body=[w.radio_row(mode, self.sort == mode, choose(mode)) for mode in SORTS],
                buttons=[("Cancel", self.dismiss)],
            )
        )


class TaskEdit(Screen):
    """Create (task_id None) or edit a task: title, due date, priority, notes."""

    activity = "org.tasks.activities.TaskEditActivity"

    def __init__(self, app: App, task_id: int | None):
        super().__init__(app)
        self.task_id = task_id
        self.title, self.notes, self.importance, self.due = "", "", 2, 0
        if task_id is not None:
            rows = self.device.sqlite_query(DB, "SELECT * FROM tasks WHERE _id = ?", (task_id,))
            if rows:
                r = rows[0]
                self.title, self.notes = r["title"] or "", r["notes"] or ""
                self.importance, self.due = int(r["importance"]), int(r["dueDate"])

    def build(self) -> Node:
        actions = [w.icon_button("Save", "check", self.save, res_id="save")]
        if self.task_id is not None:
            actions.append(w.icon_button("More options", "more", self.more))
        priorities = [
            w.radio_row(
                priority_desc(i),
                self.importance == i,
                lambda i=i: setattr(self, "importance", i),
            )
            for i in range(4)
        ]
        return w.column(
            w.app_bar("", on_up=self.close, actions=actions),
            w.scroll_list(
                "task_edit",
                w.text_field(self.title, self.set_title, hint="Task name", key="title"),
                w.list_row(
                    "Due date",
                    format_due(self.due) if self.due else "No date",
                    icon="calendar",
                    on_click=self.pick_due,
                    key="due_date",
                ),
                w.label("Priority", size=w.SECONDARY_SIZE, color="accent", pad=(48, 20, 48, 0)),
                *priorities,
                w.text_field(
                    self.notes, self.set_notes, hint="Notes", key="notes", multiline=True, h=260
                ),
                pad=(0, 12, 0, 48),
            ),
            flex=1,
        )

    def set_title(self, text: str) -> None:
        self.title = text

    def set_notes(self, text: str) -> None:
        self.notes = text

    def pick_due(self) -> None:
        today = (
            self.device.device_time()
            .astimezone(UTC)
            .replace(hour=0, minute=0, second=0, microsecond=0)
        )
        options = (
            ("No date", 0),
            ("Today", today),
            ("Tomorrow", today + datetime.timedelta(days=1)),
            ("Next week", today + datetime.timedelta(days=7)),
        )

        def choose(value):
            def run() -> None:
                self.due = int(value.timestamp() * 1000) if value else 0
                self.dismiss()

            return run

        self.show_dialog(
            lambda: w.dialog(
                "Due date",
                body=[w.radio_row(name, False, choose(value)) for name, value in options],
                buttons=[("Cancel", self.dismiss)],
            )
        )

    def more(self) -> None:
        self.show_menu([("Delete", self.confirm_delete)])

    def confirm_delete(self) -> None:
        self.show_dialog(
            lambda: w.dialog(
                "Delete task?", buttons=[("Cancel", self.dismiss), ("Delete", self.delete)]
            )
        )

    def delete(self) -> None:
        self.device.sqlite_execute(
            DB, "UPDATE tasks SET deleted = ? WHERE _id = ?", (_now_ms(self), self.task_id)
        )
        self.dismiss()
        self.close()
        self.toast("Task deleted")

    def save(self) -> None:
        title = self.title.strip()
        if not title:
            self.close()  # the real app discards a task without a name
            return
        now = _now_ms(self)
        notes = self.notes.strip() or None
        if self.task_id is None:
            self.device.sqlite_execute(
                DB,
                "INSERT INTO tasks (title, importance, dueDate, notes, created, modified, remoteId)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (title, self.importance, self.due, notes, now, now, str(uuid.UUID(int=now))),
            )
        else:
            self.device.sqlite_execute(
                DB,
                "UPDATE tasks SET title = ?, importance = ?, dueDate = ?, notes = ?, modified = ?"
                " WHERE _id = ?",
                (title, self.importance, self.due, notes, now, self.task_id),
            )
        self.close()
