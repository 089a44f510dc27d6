"""Device facts for the simulated phone, kept in a temporary folder laid out like a device.

Device paths map one-to-one under the folder (`/data/data/<pkg>/databases/x.db` is a real sqlite
file, `/storage/emulated/0/...` a real directory tree), so task code that reads files or
databases exercises the same SQL and paths as on a real device.
"""

from __future__ import annotations

import datetime
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from android_world.env import device

if TYPE_CHECKING:
    from android_world.env.sim.phone import Phone

NAMESPACES = ("system", "secure", "global")

# A freshly booted emulator's values for the settings the suite touches.
DEFAULT_SETTINGS: dict[str, dict[str, str]] = {
    "global": {
        "wifi_on": "1",
        "bluetooth_on": "0",
        "airplane_mode_on": "0",
        "mobile_data": "1",
        "auto_time": "0",
        "auto_time_zone": "0",
        "nfc_on": "0",
        "data_roaming": "0",
    },
    "system": {
        "screen_brightness": "102",
        "screen_brightness_mode": "0",
        "time_12_24": "24",
        "pointer_location": "0",
        "screen_off_timeout": "60000",
        "font_scale": "1.0",
        "vibrate_when_ringing": "0",
        "accelerometer_rotation": "0",
    },
    "secure": {
        "location_mode": "3",
        "ui_night_mode": "1",
        "dark_theme": "0",
        "enabled_accessibility_services": "",
    },
}


_QUERIES_KEPT = 256  # distinct sqlite_query answers kept at one data version


class SimController(device.DeviceController):
    """In-process `DeviceController`; `version` grows on every write so screens can refresh."""

    def __init__(self, data_dir: str | None = None):
        self._owns_dir = data_dir is None
        self.root = Path(data_dir or tempfile.mkdtemp(prefix="celil-sim-"))
        self.root.mkdir(parents=True, exist_ok=True)
        self._settings = {ns: dict(values) for ns, values in DEFAULT_SETTINGS.items()}
        self._clipboard = ""
        self._time = device.FROZEN_DEVICE_TIME
        self.version = 0
        self._queries: dict[tuple, list[dict[str, Any]]] = {}  # sqlite_query's, at `version`
        self.phone: Phone | None = None
        for path in (
            device.DOWNLOAD_DATA,
            device.DOCUMENTS_DATA,
            device.DCIM_DATA,
            device.PICTURES_DATA,
            device.MUSIC_DATA,
            f"{device.EMULATOR_DATA}/Movies",
            f"{device.EMULATOR_DATA}/Alarms",
        ):
            self.make_dirs(path)

    # paths ---------------------------------------------------------------------------------
    def host_path(self, path: str) -> Path:
        """The host file behind a device path; refuses paths that would leave the device."""
        for alias in ("/sdcard", "/data/media/0"):  # both name the shared storage
            if path == alias or path.startswith(alias + "/"):
                path = device.EMULATOR_DATA + path[len(alias) :]
        pure = PurePosixPath(path)
        if not pure.is_absolute() or ".." in pure.parts:
            raise ValueError(f"Device paths must be absolute without '..': {path!r}")
        return self.root.joinpath(*pure.parts[1:])

    def _touch(self) -> None:
        self.version += 1

    # settings ------------------------------------------------------------------------------
    def get_setting(self, namespace: str, key: str) -> str | None:
        return self._namespace(namespace).get(key)

    def put_setting(self, namespace: str, key: str, value: str) -> None:
        self._namespace(namespace)[key] = str(value)
        self._touch()

    def _namespace(self, namespace: str) -> dict[str, str]:
        if namespace not in NAMESPACES:
            raise ValueError(f"Unknown settings namespace {namespace!r}; use one of {NAMESPACES}.")
        return self._settings[namespace]

    # sqlite --------------------------------------------------------------------------------
    def _connect(self, db_path: str) -> sqlite3.Connection:
        host = self.host_path(db_path)
        host.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(host)
        # The phone lives in a temporary folder and a killed episode starts again on a new
        # phone, so waiting for the disk at each commit (~22 ms, several s of an offline suite)
        # buys nothing; commits stay atomic for the process and the file's contents the same.
        conn.execute("PRAGMA synchronous=OFF")
        return conn

    def sqlite_query(
        self, db_path: str, sql: str, params: tuple[Any, ...] = ()
    ) -> list[dict[str, Any]]:
        """The rows, each a new dict. A screen reads its app's database every time it is laid
        out (several times a step); the answer is kept until the phone's data next changes:
        every write goes through this controller and bumps `version`, and a query commits
        nothing (its connection closes without a commit)."""
        key = None
        if isinstance(params, tuple | list):  # named (mapping) parameters are not kept
            try:
                key = (self.version, db_path, sql, tuple(params))
                hash(key)
            except TypeError:  # unhashable parameters: not kept
                key = None
        known = self._queries.get(key) if key is not None else None
        if known is None:
            known = self._query(db_path, sql, params)
            if key is not None:
                stale = self._queries and next(iter(self._queries))[0] != self.version
                if stale or len(self._queries) >= _QUERIES_KEPT:
                    self._queries.clear()  # every key has one version: the data's, or stale
                self._queries[key] = known
        return [dict(row) for row in known]

    def _query(self, db_path: str, sql: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
        if not self.exists(db_path):
            raise FileNotFoundError(f"No database at {db_path}")
        with _closing(self._connect(db_path)) as conn:
            conn.row_factory = sqlite3.Row
            return [dict(row) for row in conn.execute(sql, params).fetchall()]

    def sqlite_execute(self, db_path: str, sql: str, params: tuple[Any, ...] = ()) -> None:
        with _closing(self._connect(db_path)) as conn:
            if params:
                conn.execute(sql, params)
            else:
                conn.executescript(sql)
            conn.commit()
        self._touch()

    # files ---------------------------------------------------------------------------------
    def list_dir(self, path: str) -> list[str]:
        host = self.host_path(path)
        return sorted(os.listdir(host)) if host.is_dir() else []

    def read_file(self, path: str) -> bytes:
        return self.host_path(path).read_bytes()

    def write_file(self, path: str, data: bytes) -> None:
        host = self.host_path(path)
        host.parent.mkdir(parents=True, exist_ok=True)
        host.write_bytes(data)
        # Stamped by the phone's clock, not the host's: a file written at the (frozen) device
        # time shows that time in the apps and to `modified_time`, as on a device.
        stamp = self._time.timestamp()
        os.utime(host, (stamp, stamp))
        self._touch()

    def remove(self, path: str) -> None:
        host = self.host_path(path)
        if host.is_dir():
            shutil.rmtree(host)
        elif host.exists():
            host.unlink()
        self._touch()

    def exists(self, path: str) -> bool:
        return self.host_path(path).exists()

    def is_dir(self, path: str) -> bool:
        return self.host_path(path).is_dir()

    def make_dirs(self, path: str) -> None:
        self.host_path(path).mkdir(parents=True, exist_ok=True)
        self._touch()

    def modified_time(self, path: str) -> datetime.datetime:
        stamp = self.host_path(path).stat().st_mtime
        return datetime.datetime.fromtimestamp(stamp, tz=datetime.UTC)

    def rename(self, src: str, dst: str) -> None:
        """Move a file or folder (what a file manager's Move does)."""
        target = self.host_path(dst)
        target.parent.mkdir(parents=True, exist_ok=True)
        self.host_path(src).rename(target)
        self._touch()

    # clipboard, apps, time -----------------------------------------------------------------
    def get_clipboard(self) -> str:
        return self._clipboard

    def set_clipboard(self, text: str) -> None:
        self._clipboard = text
        self._touch()

    def foreground_activity(self) -> str:
        return self._require_phone().foreground_activity()

    def launch_app(self, name_or_package: str) -> None:
        self._require_phone().launch(name_or_package)

    def close_recents(self) -> None:
        self._require_phone().close_all()

    def device_time(self) -> datetime.datetime:
        return self._time

    def set_device_time(self, when: datetime.datetime) -> None:
        self._time = when
        self._touch()

    def _require_phone(self) -> Phone:
        if self.phone is None:
            raise RuntimeError("This controller is not attached to a simulated phone.")
        return self.phone

    def cleanup(self) -> None:
        if self._owns_dir:
            shutil.rmtree(self.root, ignore_errors=True)


class _closing:
    """sqlite3 connections' own context manager commits but never closes; this closes."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        return self.conn

    def __exit__(self, *exc: object) -> None:
        self.conn.close()
