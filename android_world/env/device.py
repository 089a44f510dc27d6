"""Device facts: the one API through which tasks initialise and check a device.

The simulated phone implements it in process (real sqlite files and a real directory tree in a
temporary folder); the adb environment implements it with `adb shell`. Task code written against
this class therefore runs unchanged on both. Paths are device paths (`/storage/emulated/0/...`,
`/data/data/<package>/databases/<db>`).
"""

from __future__ import annotations

import abc
import dataclasses
import datetime
import re
from typing import Any

# Device time is frozen for every task, as upstream does, so dates in goals are reproducible.
FROZEN_DEVICE_TIME = datetime.datetime(2023, 10, 15, 15, 34, 0, tzinfo=datetime.UTC)

SCREEN_WIDTH = 1080
SCREEN_HEIGHT = 2400

EMULATOR_DATA = "/storage/emulated/0"
DOWNLOAD_DATA = f"{EMULATOR_DATA}/Download"
DOCUMENTS_DATA = f"{EMULATOR_DATA}/Documents"
MARKOR_DATA = f"{EMULATOR_DATA}/Documents/Markor"
DCIM_DATA = f"{EMULATOR_DATA}/DCIM"
CAMERA_DATA = f"{EMULATOR_DATA}/DCIM/Camera"
PICTURES_DATA = f"{EMULATOR_DATA}/Pictures"
MUSIC_DATA = f"{EMULATOR_DATA}/Music"


@dataclasses.dataclass(frozen=True)
class AppInfo:
    """An app as the launcher and `open_app` know it."""

    label: str
    package: str
    activity: str
    name_pattern: str  # matched case-insensitively from the start of the requested name


# The app-name table used by `open_app`, with upstream's package names. Patterns accept the
# usual aliases; the first match wins.
APPS: tuple[AppInfo, ...] = (
    AppInfo("Settings", "com.android.settings", ".Settings", r"settings|system settings"),
    AppInfo(
        "Contacts",
        "com.google.android.contacts",
        "com.android.contacts.activities.PeopleActivity",
        r"contacts",
    ),
    AppInfo("Clock", "com.google.android.deskclock", "com.android.deskclock.DeskClock", r"clock"),
    AppInfo(
        "Markor", "net.gsantner.markor", "net.gsantner.markor.activity.MainActivity", r"markor"
    ),
    AppInfo(
        "Files",
        "com.google.android.documentsui",
        "com.android.documentsui.files.FilesActivity",
        r"files|file manager",
    ),
    AppInfo(
        "Pro Expense",
        "com.arduia.expense",
        "com.arduia.expense.ui.MainActivity",
        r"pro expense|pro expense app|expense",
    ),
    AppInfo(
        "Simple Calendar Pro",
        "com.simplemobiletools.calendar.pro",
        "com.simplemobiletools.calendar.pro.activities.MainActivity",
        r"simple calendar pro|simple calendar|calendar",
    ),
    AppInfo(
        "Simple SMS Messenger",
        "com.simplemobiletools.smsmessenger",
        "com.simplemobiletools.smsmessenger.activities.MainActivity",
        r"simple sms messenger|simple sms|sms messenger|messages|messaging|sms",
    ),
    AppInfo("Camera", "com.android.camera2", "com.android.camera.CameraLauncher", r"camera"),
    AppInfo(
        "Broccoli",
        "com.flauschcode.broccoli",
        "com.flauschcode.broccoli.MainActivity",
        r"broccoli|broccoli app|broccoli recipe app|broccoli recipe|recipe app|recipes?",
    ),
    AppInfo(
        "Tasks",
        "org.tasks",
        "com.todoroo.astrid.activity.MainActivity",
        r"tasks|tasks app|tasks\.org:?|tasks\.org app",
    ),
    AppInfo(
        "Audio Recorder",
        "com.dimowner.audiorecorder",
        "com.dimowner.audiorecorder.app.welcome.WelcomeActivity",
        r"audio recorder",
    ),
    AppInfo(
        "Retro Music",
        "code.name.monkey.retromusic",
        "code.name.monkey.retromusic.activities.MainActivity",
        r"retro music|retro|retro player",
    ),
    AppInfo(
        "VLC", "org.videolan.vlc", "org.videolan.vlc.gui.MainActivity", r"vlc|vlc app|vlc player"
    ),
    AppInfo(
        "Simple Draw Pro",
        "com.simplemobiletools.draw.pro",
        "com.simplemobiletools.draw.pro.activities.MainActivity",
        r"simple draw pro|simple draw",
    ),
    AppInfo(
        "Simple Gallery Pro",
        "com.simplemobiletools.gallery.pro",
        "com.simplemobiletools.gallery.pro.activities.MainActivity",
        r"simple gallery pro|simple gallery|gallery",
    ),
    AppInfo(
        "Chrome",
        "com.android.chrome",
        "com.google.android.apps.chrome.Main",
        r"google chrome|chrome",
    ),
    AppInfo(
        "OsmAnd", "net.osmand", "net.osmand.plus.activities.MapActivity", r"osmand|osmand maps"
    ),
    AppInfo(
        "OpenTracks",
        "de.dennisguse.opentracks",
        "de.dennisguse.opentracks.TrackListActivity",
        r"open tracks sports tracker|activity tracker|open tracks|opentracks",
    ),
    AppInfo("Joplin", "net.cozic.joplin", "net.cozic.joplin.MainActivity", r"joplin|joplin app"),
)

HOME_PACKAGE = "com.google.android.apps.nexuslauncher"
HOME_ACTIVITY = f"{HOME_PACKAGE}/.NexusLauncherActivity"


def find_app(name: str) -> AppInfo | None:
    """Resolve an app name (or a package name) the way `open_app` does: case-insensitive."""
    wanted = name.strip().lower()
    for app in APPS:
        if wanted == app.package.lower():
            return app
    for app in APPS:
        if re.fullmatch(app.name_pattern, wanted) or wanted == app.label.lower():
            return app
    for app in APPS:
        if re.match(app.name_pattern, wanted):
            return app
    return None


class DeviceError(RuntimeError):
    """A device-facts operation failed (e.g. adb unreachable, no root for sqlite)."""


class DeviceController(abc.ABC):
    """Read and set what tasks check. See the module docstring."""

    # settings ---------------------------------------------------------------------------
    @abc.abstractmethod
    def get_setting(self, namespace: str, key: str) -> str | None:
        """`settings get <namespace> <key>`; None when unset. Namespaces: system, secure, global."""

    @abc.abstractmethod
    def put_setting(self, namespace: str, key: str, value: str) -> None:
        """`settings put <namespace> <key> <value>`."""

    # sqlite -----------------------------------------------------------------------------
    @abc.abstractmethod
    def sqlite_query(
        self, db_path: str, sql: str, params: tuple[Any, ...] = ()
    ) -> list[dict[str, Any]]:
        """Rows as dicts (column name -> value)."""

    @abc.abstractmethod
    def sqlite_execute(self, db_path: str, sql: str, params: tuple[Any, ...] = ()) -> None:
        """Run a statement (or a script when params is empty and sql has several)."""

    # files ------------------------------------------------------------------------------
    @abc.abstractmethod
    def list_dir(self, path: str) -> list[str]:
        """Entry names (not paths) in a device directory, sorted; [] if it does not exist."""

    @abc.abstractmethod
    def read_file(self, path: str) -> bytes: ...

    @abc.abstractmethod
    def write_file(self, path: str, data: bytes) -> None:
        """Create parent directories as needed."""

    @abc.abstractmethod
    def remove(self, path: str) -> None:
        """Remove a file or a directory tree; a missing path is not an error."""

    @abc.abstractmethod
    def exists(self, path: str) -> bool: ...

    @abc.abstractmethod
    def is_dir(self, path: str) -> bool: ...

    @abc.abstractmethod
    def make_dirs(self, path: str) -> None: ...

    @abc.abstractmethod
    def modified_time(self, path: str) -> datetime.datetime:
        """When a file was last written (`stat -c %Y`), in UTC; what "newest note" tasks compare."""

    # clipboard, apps, time --------------------------------------------------------------
    @abc.abstractmethod
    def get_clipboard(self) -> str: ...

    @abc.abstractmethod
    def set_clipboard(self, text: str) -> None: ...

    @abc.abstractmethod
    def foreground_activity(self) -> str:
        """`package/activity` of the app in front."""

    @abc.abstractmethod
    def launch_app(self, name_or_package: str) -> None:
        """Open an app by name (see `find_app`) or package; unknown is a ValueError."""

    @abc.abstractmethod
    def close_recents(self) -> None:
        """Close all apps and return to the home screen."""

    @abc.abstractmethod
    def device_time(self) -> datetime.datetime: ...

    @abc.abstractmethod
    def set_device_time(self, when: datetime.datetime) -> None: ...

    # conveniences built on the primitives ------------------------------------------------
    def read_text(self, path: str) -> str:
        return self.read_file(path).decode("utf-8", errors="replace")

    def write_text(self, path: str, text: str) -> None:
        self.write_file(path, text.encode("utf-8"))

    def foreground_package(self) -> str:
        return self.foreground_activity().split("/", 1)[0]
