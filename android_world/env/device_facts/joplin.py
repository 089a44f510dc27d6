"""Joplin (net.cozic.joplin): notebooks and notes in the app's sqlite database.

Upstream's note questions write `folders` (notebooks) and `notes`, plus `notes_normalized`, the
copy Joplin's search reads (titles lower-cased). Ids are 32 hex digits; a note's `parent_id` is its
notebook's id; a to-do is a note with `is_todo` 1 (`todo_completed` holds when it was ticked, 0 for
open). Times are epoch milliseconds.
"""

from __future__ import annotations

PACKAGE = "net.cozic.joplin"
DB = f"/data/data/{PACKAGE}/databases/joplin.sqlite"
NOTES, FOLDERS, NORMALIZED = "notes", "folders", "notes_normalized"

NOTE_COLUMNS = (
    "id",
    "parent_id",
    "title",
    "body",
    "created_time",
    "updated_time",
    "is_conflict",
    "latitude",
    "longitude",
    "altitude",
    "author",
    "source_url",
    "is_todo",
    "todo_due",
    "todo_completed",
    "source",
    "source_application",
    "application_data",
    "order",
    "user_created_time",
    "user_updated_time",
    "encryption_cipher_text",
    "encryption_applied",
    "markup_language",
    "is_shared",
    "share_id",
    "conflict_original_id",
    "master_key_id",
    "user_data",
)
NORMALIZED_COLUMNS = (
    "id",
    "parent_id",
    "title",
    "body",
    "latitude",
    "longitude",
    "altitude",
    "source_url",
    "is_todo",
    "todo_due",
    "todo_completed",
    "user_created_time",
    "user_updated_time",
)
FOLDER_COLUMNS = (
    "id",
    "title",
    "created_time",
    "updated_time",
    "user_created_time",
    "user_updated_time",
    "encryption_cipher_text",
    "encryption_applied",
    "parent_id",
    "is_shared",
    "share_id",
    "master_key_id",
    "icon",
    "user_data",
    "deleted_time",
)
SCHEMA = """
CREATE TABLE IF NOT EXISTS folders (id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT '',
  created_time INT NOT NULL DEFAULT 0, updated_time INT NOT NULL DEFAULT 0,
  user_created_time INT NOT NULL DEFAULT 0, user_updated_time INT NOT NULL DEFAULT 0,
  encryption_cipher_text TEXT NOT NULL DEFAULT '', encryption_applied INT NOT NULL DEFAULT 0,
  parent_id TEXT NOT NULL DEFAULT '', is_shared INT NOT NULL DEFAULT 0,
  share_id TEXT NOT NULL DEFAULT '', master_key_id TEXT NOT NULL DEFAULT '',
  icon TEXT NOT NULL DEFAULT '', user_data TEXT NOT NULL DEFAULT '',
  deleted_time INT NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS notes (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL DEFAULT '',
  title TEXT NOT NULL DEFAULT '', body TEXT NOT NULL DEFAULT '',
  created_time INT NOT NULL DEFAULT 0, updated_time INT NOT NULL DEFAULT 0,
  is_conflict INT NOT NULL DEFAULT 0, latitude NUMERIC NOT NULL DEFAULT 0,
  longitude NUMERIC NOT NULL DEFAULT 0, altitude NUMERIC NOT NULL DEFAULT 0,
  author TEXT NOT NULL DEFAULT '', source_url TEXT NOT NULL DEFAULT '',
  is_todo INT NOT NULL DEFAULT 0, todo_due INT NOT NULL DEFAULT 0,
  todo_completed INT NOT NULL DEFAULT 0, source TEXT NOT NULL DEFAULT '',
  source_application TEXT NOT NULL DEFAULT '', application_data TEXT NOT NULL DEFAULT '',
  "order" NUMERIC NOT NULL DEFAULT 0, user_created_time INT NOT NULL DEFAULT 0,
  user_updated_time INT NOT NULL DEFAULT 0, encryption_cipher_text TEXT NOT NULL DEFAULT '',
  encryption_applied INT NOT NULL DEFAULT 0, markup_language INT NOT NULL DEFAULT 1,
  is_shared INT NOT NULL DEFAULT 0, share_id TEXT NOT NULL DEFAULT '',
  conflict_original_id TEXT NOT NULL DEFAULT '', master_key_id TEXT NOT NULL DEFAULT '',
  user_data TEXT NOT NULL DEFAULT '', deleted_time INT NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS notes_normalized (id TEXT NOT NULL, parent_id TEXT NOT NULL DEFAULT '',
  title TEXT NOT NULL DEFAULT '', body TEXT NOT NULL DEFAULT '',
  latitude NUMERIC NOT NULL DEFAULT 0, longitude NUMERIC NOT NULL DEFAULT 0,
  altitude NUMERIC NOT NULL DEFAULT 0, source_url TEXT NOT NULL DEFAULT '',
  is_todo INT NOT NULL DEFAULT 0, todo_due INT NOT NULL DEFAULT 0,
  todo_completed INT NOT NULL DEFAULT 0, user_created_time INT NOT NULL DEFAULT 0,
  user_updated_time INT NOT NULL DEFAULT 0);
"""


def normalized(note: dict) -> dict:
    """The `notes_normalized` row of a note (what Joplin's search reads: the title lower-cased)."""
    row = {column: note[column] for column in NORMALIZED_COLUMNS if column in note}
    row["title"] = str(note.get("title", "")).lower()
    return row
