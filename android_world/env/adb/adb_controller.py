"""Device facts over adb: the `DeviceController` tasks use, implemented with `adb shell`.

What needs root: app databases under /data/data and setting the clock. On an emulator image
without Google Play (`google_apis`), `adb root` restarts adbd as root; with `auto_root` we do that
once, the first time it is needed. Production builds (Play images, phones) refuse, and we say so.

Clipboard: Android 10+ has no shell command that reads or writes the clipboard (`cmd clipboard`
is not exposed to the shell user). We use the Clipper app (package `ca.zgrs.clipper`,
`am broadcast -a clipper.set/clipper.get`) when it is installed; otherwise a clear error.
"""

from __future__ import annotations

import datetime
import os
import tempfile
from typing import Any

from android_world.env import device
from android_world.env.adb import commands
from android_world.env.adb.adb_runner import AdbError, AdbRunner

quote = commands.quote

CLIPPER_PACKAGE = "ca.zgrs.clipper"
_ROOT_FIX = "run `adb root` (works on emulator images without Google Play, e.g. google_apis)"


class AdbDeviceController(device.DeviceController):
    """`DeviceController` over one adb device; see the module docstring for what needs root."""

    def __init__(self, runner: AdbRunner, auto_root: bool = True):
        self._runner = runner
        self._auto_root = auto_root
        self._is_root: bool | None = None
        self._sqlite_mode: str | None = None

    @property
    def runner(self) -> AdbRunner:
        return self._runner

    def _shell(self, command: str, check: bool = True) -> str:
        return self._runner.shell(command, check=check).text

    # root ---------------------------------------------------------------------------------
    def is_root(self) -> bool:
        if self._is_root is None:
            self._is_root = self._shell("id -u", check=False).strip() == "0"
        return self._is_root

    def ensure_root(self, why: str) -> None:
        """Become root (once, if allowed) or raise AdbError naming `why` and the fix."""
        if self.is_root():
            return
        if self._auto_root:
            result = self._runner.run(["root"], check=False)
            said = (result.text + result.error_text).lower()
            if "cannot run as root" not in said:
                self._runner.run(["wait-for-device"], check=False)
                self._is_root = None
                if self.is_root():
                    return
        raise AdbError(f"{why} needs root on {self._runner.serial}: {_ROOT_FIX}")

    # settings -----------------------------------------------------------------------------
    def get_setting(self, namespace: str, key: str) -> str | None:
        value = self._shell(f"settings get {quote(namespace)} {quote(key)}").strip()
        return None if value == "null" else value

    def put_setting(self, namespace: str, key: str, value: str) -> None:
        self._shell(f"settings put {quote(namespace)} {quote(key)} {quote(str(value))}")

    # sqlite -------------------------------------------------------------------------------
    def _sqlite(self, db_path: str, sql: str) -> str:
        self.ensure_root("sqlite3 on app databases")
        mode = self._detect_sqlite_mode()
        result = self._runner.shell(commands.sqlite_command(db_path, sql, mode), check=False)
        output = result.text
        errors = result.error_text + ("" if result.returncode == 0 else output)
        if result.returncode != 0 or errors.strip().startswith(("Error", "Parse error")):
            first = next((ln for ln in errors.splitlines() if ln.strip()), "no output")
            raise AdbError(f"sqlite3 on {db_path} failed: {first.strip()[:200]}")
        return output

    def _detect_sqlite_mode(self) -> str:
        if self._sqlite_mode is None:
            result = self._runner.shell("sqlite3 -version", check=False)
            text = result.text + result.error_text
            version = commands.parse_sqlite_version(text)
            if result.returncode != 0 or version is None:
                raise AdbError(
                    f"sqlite3 is not available on {self._runner.serial}: use an emulator image "
                    "that ships it (Android emulator system images do; most phones do not)"
                )
            self._sqlite_mode = "json" if version >= (3, 33, 0) else "quote"
        return self._sqlite_mode

    def sqlite_query(
        self, db_path: str, sql: str, params: tuple[Any, ...] = ()
    ) -> list[dict[str, Any]]:
        output = self._sqlite(db_path, commands.bind_params(sql, params))
        if self._sqlite_mode == "json":
            return commands.parse_sqlite_json(output)
        return commands.parse_sqlite_quote(output)

    def sqlite_execute(self, db_path: str, sql: str, params: tuple[Any, ...] = ()) -> None:
        self.make_dirs(os.path.dirname(db_path))
        self._sqlite(db_path, commands.bind_params(sql, params))
        self._give_back_to_app(db_path)

    def _give_back_to_app(self, path: str) -> None:
        """Files we create as root under /data/data/<pkg> must belong to the app again (owner
        and SELinux label), or the app cannot open its own database afterwards."""
        app_dir = commands.app_data_dir(path)
        if app_dir is None:
            return
        owner = self._runner.shell(f"stat -c %u:%g {quote(app_dir)}", check=False).text.strip()
        if not commands.is_uid_gid(owner):
            return
        target = quote(os.path.dirname(path))
        self._shell(f"chown -R {owner} {target} ; restorecon -R {target}", check=False)

    # files --------------------------------------------------------------------------------
    def _needs_root(self, path: str) -> bool:
        return path == "/data" or path.startswith("/data/")

    def _maybe_root(self, path: str) -> None:
        if self._needs_root(path):
            self.ensure_root(f"access to {path}")

    def list_dir(self, path: str) -> list[str]:
        self._maybe_root(path)
        result = self._runner.shell(f"ls -1 -a {quote(path)}", check=False)
        if result.returncode != 0:
            return []
        names = [n.strip() for n in result.text.splitlines()]
        return sorted(n for n in names if n and n not in (".", ".."))

    def _stat(self, path: str) -> str | None:
        self._maybe_root(path)
        result = self._runner.shell(f"stat -c %F {quote(path)}", check=False)
        if result.returncode != 0:
            return None
        return commands.parse_stat_type(result.text)

    def exists(self, path: str) -> bool:
        return self._stat(path) is not None

    def is_dir(self, path: str) -> bool:
        return self._stat(path) == "directory"

    def modified_time(self, path: str) -> datetime.datetime:
        self._maybe_root(path)
        result = self._runner.shell(f"stat -c %Y {quote(path)}", check=False)
        if result.returncode != 0:
            raise FileNotFoundError(path)
        return commands.parse_epoch(result.text)

    def read_file(self, path: str) -> bytes:
        kind = self._stat(path)
        if kind is None:
            raise FileNotFoundError(path)
        if kind == "directory":
            raise IsADirectoryError(path)
        result = self._runner.exec_out(f"cat {quote(path)}")
        if result.returncode != 0:
            raise AdbError(f"could not read {path} on {self._runner.serial}: {result.error_text}")
        return result.stdout

    def write_file(self, path: str, data: bytes) -> None:
        self._maybe_root(path)
        self.make_dirs(os.path.dirname(path))
        with tempfile.TemporaryDirectory(prefix="celil_push_") as tmp:
            local = os.path.join(tmp, os.path.basename(path) or "data")
            with open(local, "wb") as handle:
                handle.write(data)
            self._runner.run(["push", local, path])
        self._give_back_to_app(path)

    def pull(self, path: str, local_path: str) -> None:
        self._maybe_root(path)
        self._runner.run(["pull", path, local_path])

    def push(self, local_path: str, path: str) -> None:
        self._maybe_root(path)
        self._runner.run(["push", local_path, path])

    def remove(self, path: str) -> None:
        self._maybe_root(path)
        self._shell(f"rm -rf {quote(path)}")

    def make_dirs(self, path: str) -> None:
        if not path or path == "/":
            return
        self._maybe_root(path)
        self._shell(f"mkdir -p {quote(path)}")

    # clipboard ----------------------------------------------------------------------------
    def _require_clipper(self) -> None:
        listed = self._shell(f"pm list packages {CLIPPER_PACKAGE}", check=False)
        if f"package:{CLIPPER_PACKAGE}" not in listed:
            raise AdbError(
                f"clipboard over adb needs the Clipper app ({CLIPPER_PACKAGE}) on "
                f"{self._runner.serial}: install it with `adb install clipper.apk` "
                "(Android has no shell clipboard command)"
            )

    def get_clipboard(self) -> str:
        self._require_clipper()
        parsed = commands.parse_broadcast_data(self._shell("am broadcast -a clipper.get"))
        if parsed is None:
            raise AdbError("Clipper did not answer clipper.get: open the Clipper app once")
        return parsed[1] or ""

    def set_clipboard(self, text: str) -> None:
        self._require_clipper()
        self._shell(f"am broadcast -a clipper.set -e text {quote(text)}")

    # apps ---------------------------------------------------------------------------------
    def foreground_activity(self) -> str:
        output = self._shell("dumpsys activity activities")
        activity = commands.parse_resumed_activity(output)
        if activity is None:
            output = self._shell("dumpsys window windows", check=False)
            activity = commands.parse_resumed_activity(output)
        return activity or ""

    def launch_app(self, name_or_package: str) -> None:
        app = device.find_app(name_or_package)
        if app is not None:
            result = self._runner.shell(
                f"am start -n {quote(commands.component(app.package, app.activity))}", check=False
            )
            said = result.text + result.error_text
            if result.returncode == 0 and "Error" not in said:
                return
            package = app.package
        elif "." in name_or_package and " " not in name_or_package.strip():
            package = name_or_package.strip()
        else:
            raise ValueError(f"Unknown app: {name_or_package}")
        result = self._runner.shell(
            f"monkey -p {quote(package)} -c android.intent.category.LAUNCHER 1", check=False
        )
        said = result.text + result.error_text
        if result.returncode != 0 or "No activities found" in said or "aborted" in said:
            raise AdbError(
                f"could not launch {package} on {self._runner.serial}: is it installed? "
                "(see `adb shell pm list packages`)"
            )

    def close_recents(self) -> None:
        stops = " ; ".join(f"am force-stop {quote(app.package)}" for app in device.APPS)
        self._shell(f"{stops} ; input keyevent KEYCODE_HOME")

    # time ---------------------------------------------------------------------------------
    def device_time(self) -> datetime.datetime:
        return commands.parse_epoch(self._shell("date +%s"))

    def set_device_time(self, when: datetime.datetime) -> None:
        """Freeze the clock as upstream does: no network time, 24-hour format, UTC, then `date`."""
        self.ensure_root("setting the device time")
        self._shell(
            "settings put global auto_time 0 ; settings put global auto_time_zone 0 ; "
            "settings put system time_12_24 24 ; setprop persist.sys.timezone UTC"
        )
        self._shell(f"date -u {commands.android_date_arg(when)}")
