"""Simple SMS Messenger over Android's telephony provider: where messages live and how a row is
written.

Messages live in `mmssms.db` of `com.android.providers.telephony`: the `sms` table (type 1 =
inbox, 2 = sent; dates in epoch milliseconds), with `threads` and `canonical_addresses` kept
consistent, so tasks read and seed the same rows `content query --uri content://sms/...` shows on
a device. The sim app draws these rows; tasks seed and check them through `env.controller`.
"""

from __future__ import annotations

from typing import Any

from android_world.env import device as device_lib

PACKAGE = "com.simplemobiletools.smsmessenger"
DB = "/data/data/com.android.providers.telephony/databases/mmssms.db"
INBOX, SENT = 1, 2
SCHEMA = """
CREATE TABLE IF NOT EXISTS canonical_addresses (_id INTEGER PRIMARY KEY AUTOINCREMENT, address TEXT);
CREATE TABLE IF NOT EXISTS threads (
  _id INTEGER PRIMARY KEY AUTOINCREMENT, date INTEGER DEFAULT 0, message_count INTEGER DEFAULT 0,
  recipient_ids TEXT, snippet TEXT, snippet_cs INTEGER DEFAULT 0, read INTEGER DEFAULT 1,
  archived INTEGER DEFAULT 0, type INTEGER DEFAULT 0, error INTEGER DEFAULT 0,
  has_attachment INTEGER DEFAULT 0);
CREATE TABLE IF NOT EXISTS sms (
  _id INTEGER PRIMARY KEY AUTOINCREMENT, thread_id INTEGER, address TEXT, person INTEGER,
  date INTEGER, date_sent INTEGER DEFAULT 0, protocol INTEGER, read INTEGER DEFAULT 0,
  status INTEGER DEFAULT -1, type INTEGER, reply_path_present INTEGER, subject TEXT, body TEXT,
  service_center TEXT, locked INTEGER DEFAULT 0, sub_id INTEGER DEFAULT -1,
  error_code INTEGER DEFAULT -1, creator TEXT, seen INTEGER DEFAULT 0);
"""


def normalize_number(address: str) -> str:
    """Spaces, dashes and brackets dropped, as upstream compares numbers."""
    return "".join(ch for ch in address if ch not in " -()")


def ensure_schema(controller: device_lib.DeviceController) -> None:
    controller.sqlite_execute(DB, SCHEMA)


def clear_messages(controller: device_lib.DeviceController) -> None:
    """Upstream's `clear_sms_and_threads`: empty sms and threads."""
    ensure_schema(controller)
    controller.sqlite_execute(
        DB, "DELETE FROM sms; DELETE FROM threads; DELETE FROM canonical_addresses;"
    )


def thread_id_for(controller: device_lib.DeviceController, address: str) -> int:
    """The thread of a one-to-one conversation, created on first use (as the provider does)."""
    number = normalize_number(address)
    rows = controller.sqlite_query(
        DB, "SELECT _id FROM canonical_addresses WHERE address = ?", (number,)
    )
    if not rows:
        controller.sqlite_execute(
            DB, "INSERT INTO canonical_addresses (address) VALUES (?)", (number,)
        )
        rows = controller.sqlite_query(
            DB, "SELECT _id FROM canonical_addresses WHERE address = ?", (number,)
        )
    recipient = str(rows[0]["_id"])
    threads = controller.sqlite_query(
        DB, "SELECT _id FROM threads WHERE recipient_ids = ?", (recipient,)
    )
    if not threads:
        controller.sqlite_execute(
            DB, "INSERT INTO threads (recipient_ids) VALUES (?)", (recipient,)
        )
        threads = controller.sqlite_query(
            DB, "SELECT _id FROM threads WHERE recipient_ids = ?", (recipient,)
        )
    return int(threads[0]["_id"])


def insert_message(
    controller: device_lib.DeviceController,
    address: str,
    body: str,
    *,
    msg_type: int,
    date_ms: int,
    read: bool = True,
) -> None:
    """Add one message (received: INBOX, sent: SENT) and refresh its thread's summary."""
    ensure_schema(controller)
    thread = thread_id_for(controller, address)
    controller.sqlite_execute(
        DB,
        "INSERT INTO sms (thread_id, address, date, date_sent, read, seen, type, body, status) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            thread,
            address,
            date_ms,
            date_ms if msg_type == SENT else date_ms - 1000,
            int(read),
            int(read),
            msg_type,
            body,
            -1,
        ),
    )
    controller.sqlite_execute(
        DB,
        "UPDATE threads SET date = ?, snippet = ?, read = ?, "
        "message_count = (SELECT COUNT(*) FROM sms WHERE thread_id = ?) WHERE _id = ?",
        (date_ms, body, int(read), thread, thread),
    )


def messages(
    controller: device_lib.DeviceController, msg_type: int | None = None
) -> list[dict[str, Any]]:
    """Rows of the sms table, newest first (what `content query --uri content://sms/...` lists)."""
    ensure_schema(controller)
    if msg_type is None:
        return controller.sqlite_query(DB, "SELECT * FROM sms ORDER BY date DESC, _id DESC")
    return controller.sqlite_query(
        DB, "SELECT * FROM sms WHERE type = ? ORDER BY date DESC, _id DESC", (msg_type,)
    )
