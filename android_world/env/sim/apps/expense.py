"""Pro Expense (com.arduia.expense): an expense log kept in the real app's Room database.

The table is upstream's `expense` in `accounting.db`: amounts in cents, `category` an id into
the app's fixed category list, dates in epoch milliseconds. The list shows the newest expense
first and grows past the screen, so deleting or totalling by hand needs scrolling. A long press
starts multi-selection (delete several at once), as in the real app.
"""

from __future__ import annotations

import datetime

from android_world.env.device_facts.expense import (
    CATEGORIES,
    DB,
    PACKAGE,
    SCHEMA,
    format_amount,
    parse_amount,
)
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen, Selecting
from android_world.env.sim.widgets import Node


def format_date(ms: int) -> str:
    when = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)
    return when.strftime("%b %d, %Y")


class ExpenseApp(App):
    package = PACKAGE

    def install(self) -> None:
        self.device.sqlite_execute(DB, SCHEMA)

    def main_screen(self) -> Screen:
        return ExpenseList(self)


class ExpenseList(Selecting, Screen):
    """Home: total, then every expense (newest first); long press selects."""

    def __init__(self, app: App):
        super().__init__(app)
        self.selected: set[int] = set()

    def rows(self) -> list[dict]:
        return self.device.sqlite_query(
            DB, "SELECT * FROM expense ORDER BY created_date DESC, expense_id DESC"
        )

    def build(self) -> Node:
        rows = self.rows()
        ids = {r["expense_id"] for r in rows}
        self.selected &= ids
        total = sum(r["amount"] for r in rows if r["category"] != 2)
        if self.selected:
            bar = w.app_bar(
                f"{len(self.selected)} selected",
                on_up=self.clear_selection,
                actions=[w.icon_button("Delete", "delete", self.confirm_delete_selected)],
            )
        else:
            bar = w.app_bar(
                "Pro Expense",
                actions=[w.icon_button("More options", "more", self.more)],
            )
        items = [self.row(r) for r in rows]
        content = w.column(
            bar,
            w.column(
                w.label("Total expenses", size=w.SECONDARY_SIZE, color="secondary"),
                w.label(format_amount(total), size=64, bold=True, h=90),
                h=190,
                pad=(48, 20, 48, 10),
                kind="box",
                style={"bg": "surface"},
            ),
            w.scroll_list(
                "expense_list",
                *items,
                pad=(0, 0, 0, 240),
                res_id="rvExpense",
                clip_to_padding=False,
            )
            if items
            else w.empty_state("No expenses yet"),
            flex=1,
        )
        if self.selected:
            return content
        return w.with_fab(content, w.fab("Add expense", self.add, res_id="fab"))

    def row(self, r: dict) -> Node:
        expense_id = r["expense_id"]
        summary = f"{CATEGORIES.get(r['category'], 'Others')} · {format_date(r['created_date'])}"
        selecting = bool(self.selected)
        return w.list_row(
            r["name"] or "(no name)",
            summary,
            on_click=(lambda: self.toggle(expense_id))
            if selecting
            else (lambda: self.open(expense_id)),
            on_long_click=lambda: self.toggle(expense_id),
            trailing=w.label(format_amount(r["amount"]), w=260, res_id="tvAmount"),
            selected=expense_id in self.selected,
            key=f"expense_{expense_id}",
        )

    def open(self, expense_id: int) -> None:
        self.push(ExpenseDetail(self.app, expense_id))

    def add(self) -> None:
        self.push(ExpenseEntry(self.app, None))

    def more(self) -> None:
        self.show_menu(
            [("Select all", self.select_all), ("Settings", lambda: None), ("About", lambda: None)]
        )

    def select_all(self) -> None:
        self.selected = {r["expense_id"] for r in self.rows()}

    def confirm_delete_selected(self) -> None:
        n = len(self.selected)
        noun = "expense" if n == 1 else "expenses"
        self.show_dialog(
            lambda: w.dialog(
                "Delete",
                f"Delete {n} {noun}? This cannot be undone.",
                buttons=[("Cancel", self.dismiss), ("Delete", self.delete_selected)],
            )
        )

    def delete_selected(self) -> None:
        for expense_id in sorted(self.selected):
            self.device.sqlite_execute(
                DB, "DELETE FROM expense WHERE expense_id = ?", (expense_id,)
            )
        self.selected = set()
        self.dismiss()
        self.toast("Deleted")


class ExpenseDetail(Screen):
    """One expense, with Edit and Delete in the app bar."""

    def __init__(self, app: App, expense_id: int):
        super().__init__(app)
        self.expense_id = expense_id

    def build(self) -> Node:
        rows = self.device.sqlite_query(
            DB, "SELECT * FROM expense WHERE expense_id = ?", (self.expense_id,)
        )
        bar = w.app_bar(
            "Expense",
            on_up=self.close,
            actions=[
                w.icon_button("Edit", "edit", self.edit),
                w.icon_button("Delete", "delete", self.confirm_delete),
            ]
            if rows
            else [],
        )
        if not rows:
            return w.column(bar, w.empty_state("This expense no longer exists"), flex=1)
        r = rows[0]
        fields = [
            ("Name", r["name"] or ""),
            ("Amount", format_amount(r["amount"])),
            ("Category", CATEGORIES.get(r["category"], "Others")),
            ("Note", r["note"] or "-"),
            ("Date", format_date(r["created_date"])),
        ]
        items = [
            w.column(
                w.label(title, size=w.SECONDARY_SIZE, color="accent"),
                w.label(value, max_lines=2),
                h=190,
                pad=(48, 20, 48, 0),
            )
            for title, value in fields
        ]
        return w.column(bar, w.scroll_list("expense_detail", *items), flex=1)

    def edit(self) -> None:
        self.push(ExpenseEntry(self.app, self.expense_id))

    def confirm_delete(self) -> None:
        self.show_dialog(
            lambda: w.dialog(
                "Delete",
                "Delete this expense? This cannot be undone.",
                buttons=[("Cancel", self.dismiss), ("Delete", self.delete)],
            )
        )

    def delete(self) -> None:
        self.device.sqlite_execute(
            DB, "DELETE FROM expense WHERE expense_id = ?", (self.expense_id,)
        )
        self.dismiss()
        self.close()
        self.toast("Deleted")


class ExpenseEntry(Screen):
    """Add (expense_id None) or edit an expense: name, amount, category, note."""

    def __init__(self, app: App, expense_id: int | None):
        super().__init__(app)
        self.expense_id = expense_id
        self.name = self.amount = self.note = ""
        self.category: int | None = None
        self.created_ms: int | None = None
        if expense_id is not None:
            rows = self.device.sqlite_query(
                DB, "SELECT * FROM expense WHERE expense_id = ?", (expense_id,)
            )
            if rows:
                r = rows[0]
                self.name, self.note = r["name"] or "", r["note"] or ""
                self.amount = f"{r['amount'] / 100:.2f}"
                self.category, self.created_ms = r["category"], r["created_date"]

    def build(self) -> Node:
        title = "Add Expense" if self.expense_id is None else "Edit Expense"
        when = self.created_ms if self.created_ms is not None else _now_ms(self)
        category = (
            CATEGORIES.get(self.category, "Select category") if self.category else "Select category"
        )
        return w.column(
            w.app_bar(title, on_up=self.close),
            w.scroll_list(
                "expense_form",
                w.text_field(self.name, self._set("name"), hint="Name", key="edtName"),
                w.text_field(self.amount, self._set("amount"), hint="Amount", key="edtAmount"),
                w.list_row(
                    "Category", category, on_click=self.pick_category, icon="apps", key="category"
                ),
                w.text_field(self.note, self._set("note"), hint="Note", key="edtNote"),
                w.list_row("Date", format_date(when), icon="calendar", key="date"),
                w.row(
                    w.button("Save", self.save, variant="filled", res_id="btnSave"),
                    h=160,
                    pad=(48, 20, 48, 20),
                ),
            ),
            flex=1,
        )

    def _set(self, attr: str):
        def setter(text: str) -> None:
            setattr(self, attr, text)

        return setter

    def pick_category(self) -> None:
        def choose(cid: int):
            def run() -> None:
                self.category = cid
                self.dismiss()

            return run

        def builder() -> Node:
            rows = [
                w.radio_row(name, self.category == cid, choose(cid))
                for cid, name in CATEGORIES.items()
            ]
            return w.dialog(
                "Category",
                body=[w.scroll_list("category_list", *rows, h=1190, res_id="category_list")],
                buttons=[("Cancel", self.dismiss)],
            )

        self.show_dialog(builder)

    def save(self) -> None:
        cents = parse_amount(self.amount)
        if not self.name.strip():
            self.toast("Enter a name")
            return
        if cents is None:
            self.toast("Enter a valid amount")
            return
        if self.category is None:
            self.toast("Select a category")
            return
        now = _now_ms(self)
        if self.expense_id is None:
            self.device.sqlite_execute(
                DB,
                "INSERT INTO expense (name, amount, category, note, created_date, modified_date) VALUES (?, ?, ?, ?, ?, ?)",
                (self.name.strip(), cents, self.category, self.note.strip(), now, now),
            )
        else:
            self.device.sqlite_execute(
                DB,
                "UPDATE expense SET name = ?, amount = ?, category = ?, note = ?, modified_date = ? WHERE expense_id = ?",
                (self.name.strip(), cents, self.category, self.note.strip(), now, self.expense_id),
            )
        self.close()
        self.toast("Saved")


def _now_ms(screen: Screen) -> int:
    return int(screen.device.device_time().timestamp() * 1000)
