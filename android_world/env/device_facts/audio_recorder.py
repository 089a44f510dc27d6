"""Audio Recorder (com.dimowner.audiorecorder): where its recordings live and how they are named.

Recordings are M4A files (`media.m4a_bytes`) in the app's folder on shared storage, upstream's
`AUDIORECORDER_DATA`. A new recording is named `Record-<n>` (the lowest n not in the folder);
renaming keeps the extension: the name typed becomes `<name>.m4a`, whatever it ends with.
"""

from __future__ import annotations

from android_world.env import device

PACKAGE = "com.dimowner.audiorecorder"
RECORDS_DIR = f"{device.EMULATOR_DATA}/Android/data/{PACKAGE}/files/Music/records"
EXTENSION = ".m4a"
NAME_PREFIX = "Record-"


def record_file_name(name: str) -> str:
    """The file a recording saved (or renamed) as `name` gets."""
    return f"{name.strip()}{EXTENSION}"


def next_record_name(existing: list[str]) -> str:
    """The default name of the next recording, given the folder's file names."""
    n = 1
    while record_file_name(f"{NAME_PREFIX}{n}") in existing:
        n += 1
    return f"{NAME_PREFIX}{n}"
