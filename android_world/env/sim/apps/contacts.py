"""Contacts, laid out like Google Contacts: search bar, A-Z list, details page, create form.

Contacts live in the contacts provider's database (`contacts2.db`), reduced to the three
tables that matter for the suite: `raw_contacts` (one row per person, `display_name`),
`mimetypes`, and `data` (one row per name or phone number, value in `data1`, phone type in
`data2` with Android's codes: 1 Home, 2 Mobile, 3 Work, 7 Other). Tasks read the same rows
through the controller, as upstream reads `content://contacts/phones`.

The first launch after the app's data was cleared asks for the contacts permission; the
grant is a file in the app's shared_prefs, so clearing the app data asks again.
"""

from __future__ import annotations

from typing import Any

from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen
from android_world.env.sim.widgets import Node

PACKAGE = "com.google.android.contacts"
CONTACTS_DB = "/data/data/com.android.providers.contacts/databases/contacts2.db"
PERMISSION_FILE = f"/data/data/{PACKAGE}/shared_prefs/permissions.xml"
NAME_MIMETYPE = "vnd.android.cursor.item/name"
PHONE_MIMETYPE = "vnd.android.cursor.item/phone_v2"
PHONE_TYPES = {"Home": 1, "Mobile": 2, "Work": 3, "Other": 7}
PHONE_LABELS = {code: label for label, code in PHONE_TYPES.items()}

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS raw_contacts (
    _id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_name TEXT, account_type TEXT,
    display_name TEXT, display_name_alt TEXT, sort_key TEXT,
    starred INTEGER NOT NULL DEFAULT 0, deleted INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS mimetypes (_id INTEGER PRIMARY KEY AUTOINCREMENT, mimetype TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS data (
    _id INTEGER PRIMARY KEY AUTOINCREMENT,
    raw_contact_id INTEGER NOT NULL, mimetype_id INTEGER NOT NULL,
    data1 TEXT, data2 TEXT, data3 TEXT
);
INSERT OR IGNORE INTO mimetypes (mimetype) VALUES ('{NAME_MIMETYPE}');
INSERT OR IGNORE INTO mimetypes (mimetype) VALUES ('{PHONE_MIMETYPE}');
"""

# One row per (contact, phone), the shape of content://contacts/phones.
PHONES_QUERY = f"""
SELECT r._id AS id, r.display_name AS display_name, d.data1 AS number, d.data2 AS type
FROM raw_contacts r JOIN data d ON d.raw_contact_id = r._id
JOIN mimetypes m ON m._id = d.mimetype_id
WHERE r.deleted = 0 AND m.mimetype = '{PHONE_MIMETYPE}'
"""


def insert_contact(device: Any, first: str, last: str, phone: str, phone_type: int = 2) -> None:
    """What saving the form does: a raw contact, its structured name and its phone row."""
    display = " ".join(part for part in (first.strip(), last.strip()) if part) or phone.strip()
    alt = ", ".join(part for part in (last.strip(), first.strip()) if part) or display
    device.sqlite_execute(
        CONTACTS_DB,
        "INSERT INTO raw_contacts (account_name, account_type, display_name, display_name_alt, sort_key) VALUES (?, ?, ?, ?, ?)",
        ("Device", "", display, alt, display.lower()),
    )
    new_id = device.sqlite_query(CONTACTS_DB, "SELECT MAX(_id) AS id FROM raw_contacts")[0]["id"]
    device.sqlite_execute(
        CONTACTS_DB,
        "INSERT INTO data (raw_contact_id, mimetype_id, data1, data2, data3) "
        "SELECT ?, _id, ?, ?, ? FROM mimetypes WHERE mimetype = ?",
        (new_id, display, first.strip(), last.strip(), NAME_MIMETYPE),
    )
    if phone.strip():
        device.sqlite_execute(
            CONTACTS_DB,
            "INSERT INTO data (raw_contact_id, mimetype_id, data1, data2) SELECT ?, _id, ?, ? FROM mimetypes WHERE mimetype = ?",
            (new_id, phone.strip(), str(phone_type), PHONE_MIMETYPE),
        )


class ContactsApp(App):
    package = PACKAGE

    def install(self) -> None:
        self.device.sqlite_execute(CONTACTS_DB, SCHEMA)

    def main_screen(self) -> Screen:
        return ContactList(self)

    # data ----------------------------------------------------------------------------------
    def contacts(self) -> list[dict[str, Any]]:
        """Live contacts, A-Z, each with its phone rows."""
        if not self.device.exists(CONTACTS_DB):
            self.install()
        people = self.device.sqlite_query(
            CONTACTS_DB, "SELECT _id AS id, display_name FROM raw_contacts WHERE deleted = 0"
        )
        phones = self.device.sqlite_query(CONTACTS_DB, PHONES_QUERY)
        for person in people:
            person["phones"] = [p for p in phones if p["id"] == person["id"]]
        return sorted(people, key=lambda p: (p["display_name"] or "").lower())

    @property
    def permission_granted(self) -> bool:
        return self.device.exists(PERMISSION_FILE)

    def grant_permission(self) -> None:
        self.device.write_text(
            PERMISSION_FILE,
            '<?xml version="1.0" encoding="utf-8"?>\n<map><boolean name="READ_CONTACTS" value="true" /></map>\n',
        )


def _initials(name: str) -> str:
    return (name[:1] or "#").upper()


class ContactList(Screen):
    """PeopleActivity: search bar, alphabetical list with letter headers, "Create contact" FAB."""

    def __init__(self, app: ContactsApp):
        super().__init__(app)
        self.contacts_app = app
        if not app.permission_granted:
            self.show_dialog(self._permission_dialog, dismissable=False)

    def _permission_dialog(self) -> Node:
        return w.dialog(
            body=[
                Node(kind="icon", cls="android.widget.ImageView", h=110, style={"glyph": "person"}),
                w.label(
                    "Allow Contacts to access your contacts?",
                    size=50,
                    center=True,
                    max_lines=2,
                    res_id="permission_message",
                ),
            ],
            buttons=[("Don't allow", self.dismiss), ("Allow", self._allow)],
        )

    def _allow(self) -> None:
        self.contacts_app.grant_permission()
        self.dismiss()

    def build(self) -> Node:
        search = Node(
            kind="search",
            cls="android.widget.TextView",
            text="Search contacts",
            clickable=True,
            on_click=lambda: self.push(ContactSearch(self.contacts_app)),
            res_id="open_search_bar_text_view",
            h=140,
        )
        header = w.row(search, h=170, pad=(36, 15, 36, 15))
        if not self.contacts_app.permission_granted:
            body: Node = w.column(
                w.spacer(h=200),
                w.label(
                    "Contacts needs access to show your contacts",
                    color="secondary",
                    center=True,
                    max_lines=2,
                ),
                w.row(w.spacer(), w.button("Allow access", self._allow, w=420), w.spacer(), h=160),
                flex=1,
            )
        else:
            people = self.contacts_app.contacts()
            rows: list[Node] = []
            letter = ""
            for person in people:
                initial = _initials(person["display_name"] or "")
                # The section letter sits left of its first contact, as in Google Contacts (a
                # letter alone on its line is also what tesseract misses).
                section = initial if initial != letter else ""
                letter = initial
                rows.append(self._row(person, section))
            if not rows:
                rows.append(w.empty_state("No contacts yet"))
            body = w.scroll_list("contact_list", *rows, res_id="contact_list")
        content = w.column(
            header,
            w.label("Contacts", size=36, color="secondary", pad=(60, 0, 0, 0), h=70),
            body,
            flex=1,
        )
        return w.with_fab(
            content,
            w.fab("Create contact", self._create, glyph="add", res_id="floating_action_button"),
        )

    def _row(self, person: dict[str, Any], section: str) -> Node:
        return w.row(
            w.label(section, size=44, color="accent", bold=True, center=True, w=100)
            if section
            else w.spacer(w=100),
            w.list_row(
                person["display_name"],
                icon="person",
                on_click=lambda pid=person["id"]: self.push(ContactDetails(self.contacts_app, pid)),
                key=f"contact_{person['id']}",
            ),
            h=w.ROW_H,
        )

    def _create(self) -> None:
        self.push(ContactEditor(self.contacts_app))


class ContactSearch(Screen):
    """The search page: a query field and the contacts whose name or number matches."""

    def __init__(self, app: ContactsApp):
        super().__init__(app)
        self.contacts_app = app
        self.query = ""
        self.focus = "search_query"

    def build(self) -> Node:
        query = self.query.strip().lower()
        digits = "".join(ch for ch in query if ch.isdigit())
        matches = [
            p
            for p in self.contacts_app.contacts()
            if query
            and (
                query in (p["display_name"] or "").lower()
                or (
                    digits
                    and any(
                        digits in "".join(c for c in ph["number"] if c.isdigit())
                        for ph in p["phones"]
                    )
                )
            )
        ]
        rows = [
            w.list_row(
                p["display_name"],
                p["phones"][0]["number"] if p["phones"] else "",
                icon="person",
                on_click=lambda pid=p["id"]: self.push(ContactDetails(self.contacts_app, pid)),
                key=f"result_{p['id']}",
            )
            for p in matches
        ]
        if query and not rows:
            rows = [w.empty_state("No contacts found")]
        return w.column(
            w.row(
                w.icon_button("Navigate up", "back", self.close),
                w.text_field(
                    self.query, self._set_query, hint="Search contacts", key="search_query"
                ),
                h=180,
                pad=(12, 15, 24, 15),
                align="center",
            ),
            w.divider(),
            w.scroll_list("search_results", *rows),
            flex=1,
        )

    def _set_query(self, text: str) -> None:
        self.query = text


class ContactDetails(Screen):
    """QuickContactActivity: big avatar and name, call/text buttons, the phone numbers."""

    activity = "com.android.contacts.quickcontact.QuickContactActivity"

    def __init__(self, app: ContactsApp, contact_id: int):
        super().__init__(app)
        self.contacts_app = app
        self.contact_id = contact_id

    def build(self) -> Node:
        person = next((p for p in self.contacts_app.contacts() if p["id"] == self.contact_id), None)
        if person is None:
            return w.column(
                w.app_bar("", on_up=self.close), w.empty_state("Contact not found"), flex=1
            )
        phone_rows = [
            w.list_row(
                ph["number"],
                PHONE_LABELS.get(int(ph["type"] or 2), "Mobile"),
                icon="phone",
                on_click=lambda: None,
                key=f"phone_{i}",
            )
            for i, ph in enumerate(person["phones"])
        ]
        return w.column(
            w.app_bar(
                "",
                on_up=self.close,
                actions=[
                    w.icon_button("Edit contact", "edit", lambda: None),
                    w.icon_button("Favorites", "star", lambda: None),
                    w.icon_button("More options", "more", self._more),
                ],
            ),
            Node(
                kind="icon",
                cls="android.widget.ImageView",
                desc="Contact photo",
                h=260,
                style={"glyph": "person"},
            ),
            w.label(person["display_name"], size=64, center=True, h=110, res_id="large_title"),
            w.row(
                w.button("Call", lambda: None, w=260),
                w.button("Text", lambda: None, w=260),
                w.button("Video", lambda: None, w=260),
                h=160,
                gap=30,
                align="center",
                pad=(0, 20, 0, 20),
            ),
            w.label("Contact info", size=40, bold=True, pad=(48, 0, 0, 0), h=90),
            w.scroll_list("contact_info", *phone_rows),
            flex=1,
        )

    def _more(self) -> None:
        self.show_menu([("Delete", self._confirm_delete), ("Share", lambda: None)])

    def _confirm_delete(self) -> None:
        self.show_dialog(
            lambda: w.dialog(
                "Delete this contact?",
                buttons=[("Cancel", self.dismiss), ("Delete", self._delete)],
            )
        )

    def _delete(self) -> None:
        self.device.sqlite_execute(
            CONTACTS_DB, "UPDATE raw_contacts SET deleted = 1 WHERE _id = ?", (self.contact_id,)
        )
        self.dismiss()
        self.close()


class ContactEditor(Screen):
    """ "Create contact": first and last name, a phone number with its label, Save."""

    activity = "com.android.contacts.activities.ContactEditorActivity"

    def __init__(self, app: ContactsApp):
        super().__init__(app)
        self.contacts_app = app
        self.first = ""
        self.last = ""
        self.phone = ""
        self.phone_label = "Mobile"
        self.email = ""

    def build(self) -> Node:
        return w.column(
            w.app_bar(
                "Create contact",
                on_up=self._cancel,
                actions=[
                    w.button(
                        "Save",
                        self._save,
                        variant="filled",
                        w=220,
                        h=110,
                        res_id="editor_menu_save_button",
                    )
                ],
            ),
            w.label("Saving to Device", size=34, color="secondary", pad=(60, 0, 0, 0), h=70),
            w.row(
                Node(
                    kind="icon",
                    cls="android.widget.ImageView",
                    desc="Add contact photo",
                    w=220,
                    style={"glyph": "camera"},
                ),
                h=200,
                align="center",
            ),
            w.text_field(self.first, self._set("first"), hint="First name", key="first_name"),
            w.text_field(self.last, self._set("last"), hint="Last name", key="last_name"),
            w.text_field(self.phone, self._set("phone"), hint="Phone", key="phone"),
            w.row(
                w.button(
                    self.phone_label,
                    self._choose_label,
                    variant="outlined",
                    desc=f"{self.phone_label} Phone",
                    w=360,
                    h=120,
                    res_id="spinner",
                ),
                w.spacer(),
                h=130,
                pad=(36, 0, 36, 0),
            ),
            w.text_field(self.email, self._set("email"), hint="Email", key="email"),
            flex=1,
        )

    def _set(self, attr: str):
        def put(text: str) -> None:
            setattr(self, attr, text)

        return put

    def _choose_label(self) -> None:
        self.show_menu(
            [(label, lambda label=label: self._set_label(label)) for label in PHONE_TYPES]
        )

    def _set_label(self, label: str) -> None:
        self.phone_label = label

    def _has_input(self) -> bool:
        return any(v.strip() for v in (self.first, self.last, self.phone, self.email))

    def _save(self) -> None:
        if not self._has_input():
            self.toast("Contact is empty")
            self.close()
            return
        insert_contact(
            self.device, self.first, self.last, self.phone, PHONE_TYPES[self.phone_label]
        )
        self.close()

    def _cancel(self) -> None:
        if self._has_input():
            self.show_dialog(
                lambda: w.dialog(
                    "Discard changes?",
                    buttons=[("Cancel", self.dismiss), ("Discard", self._discard)],
                )
            )
        else:
            self.close()

    def _discard(self) -> None:
        self.dismiss()
        self.close()

    def on_back(self) -> bool:
        if self._has_input():
            self._cancel()
            return True
        return False
