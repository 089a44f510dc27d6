"""Simple SMS Messenger, over Android's telephony provider database.

Messages live where Android keeps them, `mmssms.db` of `com.android.providers.telephony`: the
`sms` table (type 1 = inbox, 2 = sent; dates in epoch milliseconds), with `threads` and
`canonical_addresses` kept consistent, so tasks read and seed the same rows `content query
--uri content://sms/...` shows on a device. The app lists conversations (most recent first),
opens a thread with a "Type a message" box and a Send button, and starts new conversations
from the floating button.
"""

from __future__ import annotations

import datetime
import sqlite3
from typing import Any

from android_world.env import device as device_lib
from android_world.env.device_facts.sms import (
    DB,
    INBOX,
    PACKAGE,
    SENT,
    ensure_schema,
    insert_message,
    messages,
    normalize_number,
)
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen
from android_world.env.sim.widgets import Node

# The contacts provider's phone rows (see apps/contacts.py): Simple SMS Messenger shows a
# conversation under its contact's name, and offers contacts as you type a recipient.
CONTACTS_DB = "/data/data/com.android.providers.contacts/databases/contacts2.db"
CONTACT_PHONES = """
SELECT r.display_name AS name, d.data1 AS number
FROM raw_contacts r JOIN data d ON d.raw_contact_id = r._id
JOIN mimetypes m ON m._id = d.mimetype_id
WHERE r.deleted = 0 AND m.mimetype = 'vnd.android.cursor.item/phone_v2'
"""


def contact_phones(controller: device_lib.DeviceController) -> list[tuple[str, str]]:
    """(name, number) of every contact phone; none when the contacts database is absent."""
    if not controller.exists(CONTACTS_DB):
        return []
    try:
        rows = controller.sqlite_query(CONTACTS_DB, CONTACT_PHONES)
    except sqlite3.Error:  # a half-made contacts db: show numbers, as the app does
        return []
    return [(r["name"] or "", r["number"] or "") for r in rows]


def contact_name(controller: device_lib.DeviceController, address: str) -> str | None:
    wanted = normalize_number(address)
    for name, number in contact_phones(controller):
        if name and normalize_number(number) == wanted:
            return name
    return None


def _when(ms: int, now: datetime.datetime) -> str:
    moment = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)
    if moment.date() == now.astimezone(datetime.UTC).date():
        return moment.strftime("%H:%M")
    return moment.strftime("%b %d")


class SmsApp(App):
    package = PACKAGE

    def install(self) -> None:
        ensure_schema(self.device)

    def main_screen(self) -> Screen:
        return ConversationList(self)


class ConversationList(Screen):
    def build(self) -> Node:
        latest: dict[int, dict[str, Any]] = {}
        unread: set[int] = set()
        for m in messages(self.device):  # newest first
            latest.setdefault(m["thread_id"], m)
            if m["type"] == INBOX and not m["read"]:
                unread.add(m["thread_id"])
        now = self.device.device_time()
        rows = [
            w.list_row(
                contact_name(self.device, m["address"]) or m["address"],
                m["body"] or "",
                on_click=lambda a=m["address"]: self.push(ThreadScreen(self.app, a)),
                trailing=w.label(
                    _when(m["date"], now), size=w.SECONDARY_SIZE, color="secondary", w=170
                ),
                key=f"thread_{tid}",
            )
            for tid, m in latest.items()
        ]
        content = w.column(
            w.app_bar(
                "SMS Messenger",
                actions=[
                    w.icon_button(
                        "Search", "search", lambda: self.toast("Search is not available")
                    ),
                    w.icon_button("More options", "more", self.more),
                ],
            ),
            w.scroll_list(
                "conversations_list", *rows, pad=(0, 0, 0, 240), res_id="conversations_list"
            )
            if rows
            else w.empty_state("No stored conversations have been found"),
            flex=1,
        )
        return w.with_fab(
            content, w.fab("New conversation", self.new_conversation, res_id="conversations_fab")
        )

    def more(self) -> None:
        self.show_menu([("Settings", lambda: None), ("About", lambda: None)])

    def new_conversation(self) -> None:
        self.push(NewConversation(self.app))


class NewConversation(Screen):
    """Type a number, then confirm (Enter or the check button) to open its thread."""

    def __init__(self, app: App):
        super().__init__(app)
        self.number = ""
        self.forward = ""  # a forwarded message's text, put in the new thread's draft
        self.focus = "new_conversation_address"

    def build(self) -> Node:
        query = self.number.strip().lower()
        matches = [
            (name, number)
            for name, number in contact_phones(self.device)
            if query and (query in name.lower() or query in normalize_number(number))
        ]
        suggestions = [
            w.list_row(
                name,
                number,
                icon="person",
                on_click=lambda n=number: self._open(n),
                key=f"suggest_{number}",
            )
            for name, number in sorted(matches)
        ]
        return w.column(
            w.app_bar("New conversation", on_up=self.close),
            w.row(
                w.text_field(
                    self.number,
                    self._set,
                    hint="Add Contact or Number…",
                    key="new_conversation_address",
                    on_enter=self.confirm,
                ),
                w.icon_button("Confirm", "check", self.confirm, res_id="new_conversation_confirm"),
                h=170,
                pad=(0, 10, 12, 10),
            ),
            w.scroll_list("suggestions", *suggestions, res_id="suggestions_list")
            if suggestions
            else w.spacer(flex=1),
            flex=1,
        )

    def _set(self, text: str) -> None:
        self.number = text

    def confirm(self) -> None:
        number = self.number.strip()
        if not number:
            self.toast("Please enter a phone number")
            return
        named = [n for name, n in contact_phones(self.device) if name.lower() == number.lower()]
        self._open(named[0] if named else number)

    def _open(self, number: str) -> None:
        thread = ThreadScreen(self.app, number)
        thread.draft = self.forward
        self.app.replace(thread)


class ThreadScreen(Screen):
    """One conversation; the newest message is at the bottom, above the compose box."""

    activity = "com.simplemobiletools.smsmessenger.activities.ThreadActivity"

    def __init__(self, app: App, address: str):
        super().__init__(app)
        self.address = address
        self.draft = ""
        self.scroll_offsets["thread_messages"] = 10**6  # open at the newest message
        number = normalize_number(address)
        for m in messages(self.device, INBOX):
            if normalize_number(m["address"]) == number and not m["read"]:
                self.device.sqlite_execute(
                    DB, "UPDATE sms SET read = 1, seen = 1 WHERE _id = ?", (m["_id"],)
                )

    def build(self) -> Node:
        number = normalize_number(self.address)
        thread = [
            m for m in reversed(messages(self.device)) if normalize_number(m["address"]) == number
        ]
        now = self.device.device_time()
        bubbles = [self._bubble(m, now) for m in thread]
        return w.column(
            w.app_bar(
                contact_name(self.device, self.address) or self.address,
                on_up=self.close,
                actions=[w.icon_button("More options", "more", lambda: None)],
            ),
            w.scroll_list(
                "thread_messages",
                *bubbles,
                gap=24,
                pad=(0, 24, 0, 24),
                res_id="thread_messages_list",
            )
            if bubbles
            else w.spacer(flex=1),
            w.divider(),
            w.row(
                w.text_field(
                    self.draft, self._set, hint="Type a message", key="thread_type_message"
                ),
                w.icon_button("Send", "send", self.send, res_id="thread_send_message"),
                h=170,
                pad=(0, 10, 12, 10),
            ),
            flex=1,
        )

    def _message_menu(self, body: str) -> None:
        def copy() -> None:
            self.device.set_clipboard(body)
            self.toast("Copied to clipboard")

        def forward() -> None:
            screen = NewConversation(self.app)
            screen.forward = body
            self.push(screen)

        self.show_menu([("Copy to clipboard", copy), ("Forward", forward)])

    def _bubble(self, m: dict[str, Any], now: datetime.datetime) -> Node:
        body = m["body"] or ""
        lines = max(1, min(6, -(-len(body) // 30)))
        sent = m["type"] == SENT
        bubble = w.column(
            w.label(body, max_lines=lines, res_id="thread_message_body"),
            w.label(_when(m["date"], now), size=32, color="secondary"),
            kind="box",
            w=760,
            pad=(36, 18, 36, 12),
            style={"bg": "tonal" if sent else "surface2"},
            long_clickable=True,
            on_long_click=lambda: self._message_menu(body),
        )
        parts = [w.spacer(flex=1), bubble] if sent else [bubble, w.spacer(flex=1)]
        return w.row(*parts, h=lines * 61 + 30 + 46 + 18, pad=(36, 0, 36, 0))

    def _set(self, text: str) -> None:
        self.draft = text

    def send(self) -> None:
        body = self.draft.strip()
        if not body:
            return
        when = int(self.device.device_time().timestamp() * 1000)
        insert_message(self.device, self.address, body, msg_type=SENT, date_ms=when, read=True)
        self.draft = ""
        self.focus = None
        self.scroll_offsets["thread_messages"] = 10**6
