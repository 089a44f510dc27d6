"""Contacts tasks, upstream `single/contacts.py`.

`ContactsAddContact` reads the contacts provider (display name + number, digits only), as
upstream's `content query --uri content://contacts/phones` does; here that is a join over
`contacts2.db`. `ContactsNewContactDraft` checks the open "Create contact" form on screen:
fields found by their hint text, the phone label by its text and "<label> Phone" description.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

from android_world.env import interface, representation_utils
from android_world.env.json_action import JSONAction
from android_world.task_evals import task_eval, upstream_pools
from android_world.task_evals.oracle_utils import done, elements, find, require, tap, text_is
from android_world.task_evals.single.files import fuzzy_match

CONTACTS_DB = "/data/data/com.android.providers.contacts/databases/contacts2.db"
PERMISSION_FILE = "/data/data/com.google.android.contacts/shared_prefs/permissions.xml"

PHONES_SQL = """
SELECT r.display_name AS name, d.data1 AS number
FROM raw_contacts r JOIN data d ON d.raw_contact_id = r._id
JOIN mimetypes m ON m._id = d.mimetype_id
WHERE r.deleted = 0 AND m.mimetype = 'vnd.android.cursor.item/phone_v2'
"""

# Upstream's pools of random people's names.
GIVEN_NAMES = upstream_pools.COMMON_GIVEN_NAMES
FAMILY_NAMES = upstream_pools.COMMON_FAMILY_NAMES


def clean_phone_number(number: str) -> str:
    return re.sub(r"\D", "", number)


def random_name(excluding: str = "") -> str:
    """Upstream's `generate_random_name`: the family name is drawn first, then the given name.

    Upstream means to avoid the words of `excluding`, but its split has its arguments swapped and
    never does; drawing from the whole pools keeps its draws. Only a name identical to
    `excluding` is drawn again, so two people of one task never share a name."""
    while True:
        family = random.choice(FAMILY_NAMES)
        name = f"{random.choice(GIVEN_NAMES)} {family}"
        if name != excluding:
            return name


def random_number() -> str:
    """A +1 ten-digit number, as upstream draws them."""
    return "+1" + "".join(random.choice("0123456789") for _ in range(10))


def list_contacts(env: interface.AsyncEnv) -> list[tuple[str, str]]:
    """(display name, digits of the number) for every phone row of a live contact."""
    rows = env.controller.sqlite_query(CONTACTS_DB, PHONES_SQL)
    return [(row["name"] or "", clean_phone_number(row["number"] or "")) for row in rows]


def clear_contacts(env: interface.AsyncEnv) -> None:
    """Wipe contacts and the app's permission grant (what clearing both apps' data does)."""
    env.controller.sqlite_execute(CONTACTS_DB, "DELETE FROM data; DELETE FROM raw_contacts;")
    env.controller.remove(PERMISSION_FILE)


def seed_contact(env: interface.AsyncEnv, name: str, number: str) -> None:
    first, _, last = name.partition(" ")
    controller = env.controller
    controller.sqlite_execute(
        CONTACTS_DB,
        "INSERT INTO raw_contacts (account_name, account_type, display_name, display_name_alt, sort_key) VALUES ('Device', '', ?, ?, ?)",
        (name, f"{last}, {first}" if last else name, name.lower()),
    )
    new_id = controller.sqlite_query(CONTACTS_DB, "SELECT MAX(_id) AS id FROM raw_contacts")[0][
        "id"
    ]
    controller.sqlite_execute(
        CONTACTS_DB,
        "INSERT INTO data (raw_contact_id, mimetype_id, data1, data2, data3) SELECT ?, _id, ?, ?, ? FROM mimetypes WHERE mimetype = 'vnd.android.cursor.item/name'",
        (new_id, name, first, last),
    )
    controller.sqlite_execute(
        CONTACTS_DB,
        "INSERT INTO data (raw_contact_id, mimetype_id, data1, data2) SELECT ?, _id, ?, '2' FROM mimetypes WHERE mimetype = 'vnd.android.cursor.item/phone_v2'",
        (new_id, number),
    )


# ---- oracle helpers -------------------------------------------------------------------------


def open_contacts(env: interface.AsyncEnv) -> Iterator[JSONAction]:
    """Open Contacts and accept the permission prompt if it shows."""
    yield JSONAction(action_type="open_app", app_name="Contacts")
    if find(elements(env), text_is("Allow")) is not None:
        yield tap(env, text="Allow")


def field_index(env: interface.AsyncEnv, hint: str) -> int:
    return require(env, lambda e: e.hint_text == hint and bool(e.is_editable), f"the {hint} field")


def fill_form(env: interface.AsyncEnv, values: list[tuple[str, str]]) -> Iterator[JSONAction]:
    yield tap(env, desc="Create contact")
    for hint, text in values:
        yield JSONAction(action_type="input_text", index=field_index(env, hint), text=text)


# ---- tasks ----------------------------------------------------------------------------------


class _ContactsTask(task_eval.TaskEval):
    app_names = ("contacts",)

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_contacts(env)
        env.controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_contacts(env)


class ContactsAddContact(_ContactsTask):
    complexity = 1.2
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "number": {"type": "string"}},
        "required": ["name", "number"],
    }
    template = "Create a new contact for {name}. Their number is {number}."
    difficulty = "easy"
    tags = ("data_entry", "parameterized")
    optimal_steps = 5

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"name": random_name(), "number": random_number()}

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        wanted = (self.params["name"], clean_phone_number(self.params["number"]))
        return 1.0 if wanted in list_contacts(env) else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        first, _, last = self.params["name"].partition(" ")
        yield from open_contacts(env)
        yield from fill_form(
            env, [("First name", first), ("Last name", last), ("Phone", self.params["number"])]
        )
        yield tap(env, text="Save")
        yield done()


def contact_info_is_entered(
    elements: list[representation_utils.UIElement],
    first: str,
    last: str,
    phone: str,
    phone_label: str,
) -> bool:
    """Upstream's draft check: three filled fields by hint, and the label chip showing the label."""

    def has(predicate) -> representation_utils.UIElement | None:
        return next((e for e in elements if predicate(e)), None)

    first_el = has(lambda e: e.text and e.hint_text == "First name" and fuzzy_match(e.text, first))
    last_el = has(lambda e: e.text and e.hint_text == "Last name" and fuzzy_match(e.text, last))
    phone_el = has(
        lambda e: (
            e.text
            and e.hint_text == "Phone"
            and clean_phone_number(e.text) == clean_phone_number(phone)
        )
    )
    label_el = has(
        lambda e: e.text == phone_label and e.content_description == f"{phone_label} Phone"
    )
    if label_el is None and phone_el is not None and phone_el.bbox_pixels is not None:
        box = phone_el.bbox_pixels
        label_el = has(
            lambda e: (
                e.text == phone_label
                and e.bbox_pixels is not None
                and box.y_max <= e.bbox_pixels.y_min <= box.y_max + box.height
            )
        )
    return None not in (first_el, last_el, phone_el, label_el)


class ContactsNewContactDraft(_ContactsTask):
    """Fill the new-contact form but leave it unsaved; checked on the live screen."""

    fidelity_notes = (
        "checked on the on-screen elements; upstream also reads elements scrolled out of view"
        " (the sim's form fits on one screen)",
    )

    complexity = 1.2
    schema = {
        "type": "object",
        "properties": {
            "first": {"type": "string"},
            "last": {"type": "string"},
            "phone": {"type": "string"},
            "phone_label": {"type": "string"},
        },
        "required": ["first", "last", "phone", "phone_label"],
    }
    template = (
        "Go to the new contact screen and enter the following details: First"
        " Name: {first}, Last Name: {last}, Phone: {phone}, Phone Label:"
        " {phone_label}. Do NOT hit save."
    )
    difficulty = "easy"
    tags = ("screen_reading", "data_entry")
    optimal_steps = 6

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {
            "first": random.choice(upstream_pools.DRAFT_FIRST_NAMES),
            "last": random.choice(upstream_pools.DRAFT_LAST_NAMES),
            "phone": f"{random.randint(100, 999)}-{random.randint(100, 999)}-{random.randint(1000, 9999)}",
            "phone_label": random.choice(upstream_pools.DRAFT_PHONE_LABELS),
        }

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        p = self.params
        entered = contact_info_is_entered(
            env.get_state().ui_elements, p["first"], p["last"], p["phone"], p["phone_label"]
        )
        return 1.0 if entered else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        p = self.params
        yield from open_contacts(env)
        yield from fill_form(
            env, [("First name", p["first"]), ("Last name", p["last"]), ("Phone", p["phone"])]
        )
        yield tap(env, desc="Mobile Phone")
        yield tap(env, text=p["phone_label"])
        yield done()
