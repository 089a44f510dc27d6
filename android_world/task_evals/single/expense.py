"""Pro Expense tasks (upstream `single/expense.py`), checked on the app's `expense` table.

Rows are plain dicts with upstream's columns (amount in cents, category id, dates in ms), so
params stay JSON-friendly. Adding and deleting use upstream's integrity rules: the wanted rows
appear (name and note fuzzy, amount and category exact) or disappear, and every other row is
untouched. Seeding follows upstream too: ExpenseDeleteSingle/Multiple seed only their targets (no
noise rows), ExpenseAddSingle seeds ten noise rows. Oracles use the shared screen helpers.
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Iterator
from typing import Any

from android_world.env import interface
from android_world.env.device_facts import expense as expense_facts
from android_world.env.json_action import JSONAction
from android_world.task_evals.oracle_utils import (
    click,
    desc_is,
    done,
    elements,
    hint_is,
    matching,
    open_app,
    res_is,
    scroll_to,
    text_is,
    type_into,
    visible,
)
from android_world.task_evals.single.table_tasks import (
    NOISE_ROW_OBJECTS,
    ROW_OBJECTS,
    Table,
    _AddRowsTask,
    _DeleteRowsTask,
    _TableTask,
    insert_rows,
)

APP_NAME = "pro expense"
DB = expense_facts.DB
CATEGORIES = expense_facts.CATEGORIES
TEXT_REPRESENTATION_TYPE = "text_representation_type"


# ---- data -----------------------------------------------------------------------------------

_EXPENSE_NAMES = {
    "Others": [
        "Emergency Repairs",
        "Pet Supplies",
        "Pet Care",
        "Household Items",
        "Stationery",
        "Unexpected Expenses",
        "Miscellaneous Gifts",
        "Subscriptions",
        "Membership Fees",
        "Legal Fees",
    ],
    "Income": [
        "Salary",
        "Freelance Payment",
        "Bonus",
        "Dividends",
        "Interest Income",
        "Rental Income",
        "Capital Gains",
        "Reimbursements",
        "Side Business",
        "Consulting Fees",
    ],
    "Food": [
        "Restaurant Meal",
        "Groceries",
        "Coffee",
        "Fast Food",
        "Fine Dining",
        "Bakery Items",
        "Snacks",
        "Food Delivery",
        "Specialty Foods",
        "Dining Out",
    ],
    "Housing": [
        "Rent Payment",
        "Mortgage",
        "Home Repairs",
        "Utilities",
        "Property Taxes",
        "Home Insurance",
        "Furnishing",
        "Cleaning Services",
        "Landscaping",
        "Pest Control",
    ],
    "Social": [
        "Dinner Party",
        "Gift for Friend",
        "Club Membership",
        "Wedding Gift",
        "Charity Donations",
        "Birthday Present",
        "Social Club Dues",
        "Event Tickets",
        "Night Out",
        "Party Supplies",
    ],
    "Entertainment": [
        "Concert Tickets",
        "Movie Night",
        "Theater Show",
        "Streaming Services",
        "Video Games",
        "Books",
        "Magazines",
        "Hobbies",
        "Museum Tickets",
        "Amusement Park",
    ],
    "Transportation": [
        "Taxi Fare",
        "Public Transit Pass",
        "Gas",
        "Parking Fees",
        "Car Maintenance",
        "Bike Repairs",
        "Car Insurance",
        "Public Transit",
        "Flight Tickets",
        "Ride-Sharing",
    ],
    "Clothes": [
        "New Jacket",
        "Shirt Purchase",
        "Shoes",
        "Dress",
        "Jeans",
        "Accessories",
        "Sportswear",
        "Undergarments",
        "Tailoring Services",
        "Laundry",
    ],
    "Health Care": [
        "Doctor Visits",
        "Medications",
        "Health Insurance",
        "Dental Care",
        "Eyecare",
        "Wellness Products",
        "Gym Membership",
        "Therapy Sessions",
        "Medical Tests",
    ],
    "Education": [
        "Tuition Fees",
        "School Supplies",
        "Textbooks",
        "Online Courses",
        "Seminars",
        "Workshops",
        "Educational Software",
        "Library Fees",
        "ProDev",
        "Tutoring Services",
    ],
    "Donation": [
        "Charity",
        "Fundraising Events",
        "Sponsorships",
        "Non-Profit Support",
        "Crowdfunding",
        "Religious",
        "Political",
        "Educational",
        "Medical Research",
        "Environmental",
    ],
}
_NOTES = [
    "Paid by card",
    "Urgent",
    "Monthly recurring",
    "Want to have",
    "A need",
    "Remember to transfer funds",
    "I may repeat this",
]
_FIELDS = ("name", "amount", "category", "note", "created_date", "modified_date")


def random_october_ms(start_day: int = 1, end_day: int = 15) -> int:
    """A moment this month up to today (upstream: Oct 1..15, random hour), in ms."""
    when = datetime.datetime(
        2023, 10, random.randint(start_day, end_day), random.randint(0, 23), tzinfo=datetime.UTC
    )
    return int(when.timestamp()) * 1000


def generate_expense(category: int | None = None) -> dict[str, Any]:
    """A realistic expense row (upstream's generator: $10-$500, a name fitting its category).

    Drawn in upstream's order (time, category, name, amount, note), so a seed draws its rows."""
    when = random_october_ms()
    category = category if category is not None else random.choice(list(CATEGORIES))
    return {
        "name": random.choice(_EXPENSE_NAMES[CATEGORIES[category]]),
        "amount": random.randint(1000, 50000),
        "category": category,
        "note": random.choice(_NOTES),
        "created_date": when,
        "modified_date": when,
    }


def unique_expenses(
    n: int, avoid: set[str] = frozenset(), category: int | None = None
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    names = set(avoid)
    while len(rows) < n:
        row = generate_expense(category)
        if row["name"] not in names:
            names.add(row["name"])
            rows.append(row)
    return rows


def random_rows(n: int, keep=lambda row: True) -> list[dict[str, Any]]:
    """Upstream's `get_random_items` without replacement: n rows, no two equal in every field."""
    rows: list[dict[str, Any]] = []
    for _ in range(10_000):
        if len(rows) == n:
            return rows
        candidate = generate_expense()
        if keep(candidate) and candidate not in rows:
            rows.append(candidate)
    raise ValueError(f"Could not draw {n} distinct expenses.")


def amount_dollars(cents: int) -> str:
    """Upstream's `Expense.amount_dollars` text, e.g. '$123.4'."""
    return f"${cents / 100}"


def rows_as_text(rows: list[dict[str, Any]], format_type: str) -> str:
    """Upstream's csv / text_block rendering of expenses for goals."""
    fields = ("name", "amount_dollars", "category_name", "note")

    def value(row: dict[str, Any], field: str) -> str:
        if field == "amount_dollars":
            return amount_dollars(row["amount"])
        if field == "category_name":
            return CATEGORIES[row["category"]]
        return str(row[field])

    if format_type == "csv":
        return (
            "|".join(fields) + "\n" + "\n".join("|".join(value(r, f) for f in fields) for r in rows)
        )
    blocks = []
    for r in rows:
        block = f"Expense: {r['name']}\n" + "".join(f" {f}: {value(r, f)}\n" for f in fields[1:])
        blocks.append(block)
    return "\n".join(blocks)


def add_via_form(env: interface.AsyncEnv, row: dict[str, Any]) -> Iterator[JSONAction]:
    """Fill and save the Add expense form for `row` (from the expense list)."""
    yield click(env, desc_is("Add expense"), "the Add expense button")
    yield type_into(env, hint_is("Name"), row["name"], "the Name field")
    yield type_into(env, hint_is("Amount"), f"{row['amount'] / 100:.2f}", "the Amount field")
    yield click(env, text_is("Category"), "the Category row")
    category = CATEGORIES[row["category"]]
    index = yield from scroll_to(
        env, text_is(category), category, container=res_is("category_list")
    )
    yield JSONAction(action_type="click", index=index)
    yield type_into(env, hint_is("Note"), row["note"], "the Note field")
    index = yield from scroll_to(env, text_is("Save"), "the Save button")
    yield JSONAction(action_type="click", index=index)


def clear(env: interface.AsyncEnv) -> None:
    env.controller.sqlite_execute(DB, expense_facts.SCHEMA)
    env.controller.sqlite_execute(DB, "DELETE FROM expense")


def add_rows(env: interface.AsyncEnv, rows: list[dict[str, Any]]) -> None:
    insert_rows(env, DB, "expense", _FIELDS, rows)


def list_rows(env: interface.AsyncEnv) -> list[dict[str, Any]]:
    return env.controller.sqlite_query(DB, "SELECT * FROM expense ORDER BY expense_id")


# ---- tasks ----------------------------------------------------------------------------------


class _Expense(_TableTask):
    app_names = (APP_NAME,)
    table = Table(clear, add_rows, list_rows, key="expense_id")


class _ExpenseDeleteMultiple(_DeleteRowsTask, _Expense):
    """Delete the named expenses; every other row must survive unchanged (upstream's rule)."""

    n_rows = 3
    n_rows_noise = 0
    complexity = 2
    difficulty = "easy"
    tags = ("data_edit", "parameterized")
    optimal_steps = 10

    @property
    def goal(self) -> str:
        names = ", ".join(r["name"] for r in self.params[ROW_OBJECTS])
        return f"Delete the following expenses from {APP_NAME}: {names}."

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        rows = unique_expenses(cls.n_rows + cls.n_rows_noise)
        if not cls.n_rows_noise:  # upstream's params carry no noise key then
            return {ROW_OBJECTS: rows}
        return {ROW_OBJECTS: rows[: cls.n_rows], NOISE_ROW_OBJECTS: rows[cls.n_rows :]}

    def find_targets(self, before: list[dict[str, Any]]) -> set[int]:
        """By name, as upstream finds them (names are unique in these tables)."""
        names = {r["name"] for r in self.params[ROW_OBJECTS]}
        return {r["expense_id"] for r in before if r["name"] in names}

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_app("Pro Expense")
        remaining = [r["name"] for r in self.params[ROW_OBJECTS]]
        if len(remaining) == 1:
            index = yield from scroll_to(env, text_is(remaining[0]), remaining[0])
            yield JSONAction(action_type="click", index=index)
            yield click(env, desc_is("Delete"), "the Delete icon")
        else:
            first = True
            while remaining:
                items = elements(env)
                hit = next(
                    (
                        (i, e.text)
                        for i, e in enumerate(items)
                        if e.text in remaining and visible(e)
                    ),
                    None,
                )
                if hit is None:
                    yield from scroll_to(
                        env, lambda e: e.text in remaining, "the expenses to delete"
                    )
                    continue
                index, name = hit
                yield JSONAction(action_type="long_press" if first else "click", index=index)
                first = False
                remaining.remove(name)
            yield click(env, desc_is("Delete"), "the Delete icon")
        yield click(
            env,
            matching(text="Delete", class_suffix="Button"),
            "the Delete button",
        )
        yield done()


class ExpenseDeleteSingle(_ExpenseDeleteMultiple):
    """Delete one expense; like upstream, the table holds only that row."""

    n_rows = 1
    n_rows_noise = 0
    complexity = 1
    difficulty = "easy"
    tags = ("screen_reading", "parameterized")
    optimal_steps = 3


class ExpenseDeleteMultiple(_ExpenseDeleteMultiple):
    n_rows = 3
    n_rows_noise = 0
    complexity = 2


class _ExpenseAdd(_AddRowsTask, _Expense):
    """Add the expenses the goal describes (csv or text block); upstream compares name and
    note fuzzily, amount and category exactly."""

    compare = ("name", "amount", "category", "note")
    free_form = ("name", "note")

    @property
    def goal(self) -> str:
        text = rows_as_text(self.params[ROW_OBJECTS], self.params[TEXT_REPRESENTATION_TYPE])
        return f"Add the following expenses into the {APP_NAME}:\n{text}"


class ExpenseAddSingle(_ExpenseAdd):
    """Add one expense described in csv or text-block form, with ten noise rows present."""

    n_rows_noise = 10
    complexity = 1.2
    difficulty = "easy"
    tags = ("parameterized", "data_entry", "search")
    optimal_steps = 6

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        [target] = random_rows(1)
        noise = random_rows(cls.n_rows_noise, keep=lambda row: row["name"] != target["name"])
        return {
            ROW_OBJECTS: [target],
            NOISE_ROW_OBJECTS: noise,
            TEXT_REPRESENTATION_TYPE: random.choice(["csv", "text_block"]),
        }

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield open_app("Pro Expense")
        yield from add_via_form(env, self.params[ROW_OBJECTS][0])
        yield done()
