"""Pro Expense (com.arduia.expense): where expenses live and how amounts are written.

The table is upstream's `expense` in `accounting.db`: amounts in cents, `category` an id into the
app's fixed category list (`CATEGORIES`), dates in epoch milliseconds. Amounts show as "$1,200.00"
and are typed as plain numbers; tasks read them off the screen with the app's own parser.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

PACKAGE = "com.arduia.expense"
DB = f"/data/data/{PACKAGE}/databases/accounting.db"
TABLE = "expense"
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS expense ("
    "expense_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, name TEXT, amount INTEGER NOT NULL, "
    "category INTEGER NOT NULL, note TEXT, created_date INTEGER NOT NULL, "
    "modified_date INTEGER NOT NULL)"
)

# The app's built-in categories, by id (upstream's `Expense.category_id_to_name`).
CATEGORIES: dict[int, str] = {
    1: "Others",
    2: "Income",
    3: "Food",
    4: "Housing",
    5: "Social",
    6: "Entertainment",
    7: "Transportation",
    8: "Clothes",
    9: "Health Care",
    10: "Education",
    11: "Donation",
}


def format_amount(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def parse_amount(text: str) -> int | None:
    """Cents from what a user types ("12.5", "$1,200.00"); None when it is not a number."""
    cleaned = text.strip().replace("$", "").replace(",", "").strip()
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        return None
    if not value.is_finite() or value <= 0:
        return None
    return int((value * 100).quantize(Decimal(1)))
