"""The fake device behind the fake adb: adb's command line and a device shell, over a phone model.

`FakeDevice.handle(argv)` answers one `adb ...` invocation as adb and the device would (same
output formats, same exit codes, the same error text for a missing, unauthorized or offline
device), so AdbEnv's parsing and error handling are tested against realistic text. The phone
itself (`FakePhone`) is pluggable: `RecordingPhone` for unit tests, `SimPhone` for the simulated
phone.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import io
import json
import sqlite3
from collections.abc import Callable
from typing import Any, Protocol

from android_world.env import device
from android_world.env.representation_utils import AccessibilityNode
from support.fake_adb import dump
from support.fake_adb.shell import split_commands

KEYCODES = {
    "3": "KEYCODE_HOME",
    "4": "KEYCODE_BACK",
    "29": "KEYCODE_A",
    "61": "KEYCODE_TAB",
    "66": "KEYCODE_ENTER",
    "67": "KEYCODE_DEL",
    "113": "KEYCODE_CTRL_LEFT",
    "123": "KEYCODE_MOVE_END",
    "224": "KEYCODE_WAKEUP",
}


class FakePhone(Protocol):
    """What the fake device needs from a phone model."""

    controller: device.DeviceController

    def screen_size(self) -> tuple[int, int]: ...
    def screenshot_png(self) -> bytes: ...
    def ui_nodes(self) -> list[AccessibilityNode]: ...
    def tap(self, x: float, y: float) -> None: ...
    def long_press(self, x: float, y: float) -> None: ...
    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int) -> None: ...
    def key(self, keycode: str) -> None: ...
    def key_combination(self, keycodes: list[str]) -> None: ...
    def type_text(self, text: str) -> None: ...
    def launch(self, package: str) -> None: ...
    def force_stop(self, package: str) -> None: ...
    def foreground_activity(self) -> str: ...


def blank_png(size: tuple[int, int], color: tuple[int, int, int] = (240, 240, 240)) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


@dataclasses.dataclass
class RecordingPhone:
    """A phone that shows fixed nodes and records every input event, for unit tests."""

    controller: device.DeviceController
    nodes: list[AccessibilityNode] = dataclasses.field(default_factory=list)
    size: tuple[int, int] = (device.SCREEN_WIDTH, device.SCREEN_HEIGHT)
    foreground: str = device.HOME_ACTIVITY
    events: list[tuple[Any, ...]] = dataclasses.field(default_factory=list)
    _png: bytes | None = None

    def screen_size(self) -> tuple[int, int]:
        return self.size

    def screenshot_png(self) -> bytes:
        if self._png is None:
            self._png = blank_png(self.size)
        return self._png

    def ui_nodes(self) -> list[AccessibilityNode]:
        return list(self.nodes)

    def tap(self, x: float, y: float) -> None:
        self.events.append(("tap", x, y))

    def long_press(self, x: float, y: float) -> None:
        self.events.append(("long_press", x, y))

    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int) -> None:
        self.events.append(("swipe", x1, y1, x2, y2, duration_ms))

    def key(self, keycode: str) -> None:
        self.events.append(("key", keycode))
        if keycode == "KEYCODE_HOME":
            self.foreground = device.HOME_ACTIVITY

    def key_combination(self, keycodes: list[str]) -> None:
        self.events.append(("keys", *keycodes))

    def type_text(self, text: str) -> None:
        self.events.append(("text", text))

    def launch(self, package: str) -> None:
        self.events.append(("launch", package))
        app = device.find_app(package)
        activity = app.activity if app else ".Main"
        self.foreground = f"{package}/{activity}"

    def force_stop(self, package: str) -> None:
        self.events.append(("force_stop", package))

    def foreground_activity(self) -> str:
        return self.foreground


@dataclasses.dataclass
class Reply:
    rc: int = 0
    out: bytes = b""
    err: bytes = b""
    sleep: float = 0.0

    def tuple(self) -> tuple[int, bytes, bytes, float]:
        return self.rc, self.out, self.err, self.sleep


def _ok(text: str | bytes = "") -> Reply:
    return Reply(0, text.encode() if isinstance(text, str) else text)


def _fail(text: str, rc: int = 1) -> Reply:
    return Reply(rc, b"", text.encode())


_UIAUTOMATOR_TRAILER = "UI hierchary dumped to: {path}\n"  # sic: the real tool's spelling


@dataclasses.dataclass
class FakeDevice:
    """adb + device shell over a `FakePhone`; the fields are knobs for failure tests."""

    phone: FakePhone
    serial: str = "emulator-5554"
    state: str | None = "device"  # None: not listed by `adb devices`
    root: bool = True
    root_allowed: bool = True
    sqlite_version: str | None = "3.39.2"  # None: no sqlite3 binary
    screencap_error: str | None = None
    uiautomator_outputs: list[str] = dataclasses.field(default_factory=list)  # served first
    dev_tty_unsupported: bool = False
    hang: dict[str, float] = dataclasses.field(default_factory=dict)  # command prefix -> seconds
    packages: set[str] = dataclasses.field(default_factory=lambda: {a.package for a in device.APPS})
    ime: str = "com.google.android.inputmethod.latin/.LatinIME"
    rotation: int = 0
    override_size: tuple[int, int] | None = None
    keycombination_supported: bool = True
    on_emu_kill: Callable[[], None] | None = None
    shell_log: list[str] = dataclasses.field(default_factory=list)
    adb_log: list[str] = dataclasses.field(default_factory=list)  # every argv, joined
    _files: dict[str, bytes] = dataclasses.field(default_factory=dict)

    # adb ----------------------------------------------------------------------------------
    def handle(self, argv: list[str], stdin: bytes = b"") -> tuple[int, bytes, bytes, float]:
        del stdin
        self.adb_log.append(" ".join(argv))
        return self._adb(list(argv)).tuple()

    def _adb(self, argv: list[str]) -> Reply:
        serial = None
        while argv and argv[0].startswith("-"):
            flag = argv.pop(0)
            if flag in ("-s", "-P", "-H", "-t") and argv:
                value = argv.pop(0)
                if flag == "-s":
                    serial = value
        if not argv:
            return _fail("adb: usage: no command\n")
        command, args = argv[0], argv[1:]
        if command == "version":
            return _ok("Android Debug Bridge version 1.0.41\nVersion 35.0.2-fake\n")
        if command in ("start-server", "kill-server"):
            return _ok()
        if command == "devices":
            lines = ["List of devices attached"]
            if self.state is not None:
                state = self.state
                if state == "no permissions":
                    state = "no permissions (missing udev rules? user is in the plugdev group)"
                lines.append(f"{self.serial}\t{state}")
            return _ok("\n".join(lines) + "\n\n")
        problem = self._device_problem(serial)
        if problem is not None:
            return problem
        handler = getattr(self, f"_adb_{command.replace('-', '_')}", None)
        if handler is None:
            return _fail(f"adb: unknown command {command}\n")
        return handler(args)

    def _device_problem(self, serial: str | None) -> Reply | None:
        wanted = serial or self.serial
        if self.state is None or wanted != self.serial:
            return _fail(f"adb: device '{wanted}' not found\n")
        if self.state == "unauthorized":
            return _fail(
                "adb: device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\n"
                "Try 'adb kill-server' if that seems wrong.\n"
            )
        if self.state == "offline":
            return _fail("adb: device offline\n")
        if self.state == "no permissions":
            return _fail(
                "adb: insufficient permissions for device: user in plugdev group; are your "
                "udev rules wrong?\n"
            )
        return None

    def _adb_get_state(self, args: list[str]) -> Reply:
        return _ok("device\n")

    def _adb_wait_for_device(self, args: list[str]) -> Reply:
        return _ok()

    def _adb_root(self, args: list[str]) -> Reply:
        if not self.root_allowed:
            return _fail("adbd cannot run as root in production builds\n")
        self.root = True
        return _ok("restarting adbd as root\n")

    def _adb_emu(self, args: list[str]) -> Reply:
        if args[:1] == ["kill"]:
            self.state = None
            if self.on_emu_kill:
                self.on_emu_kill()
            return _ok("OK: killing emulator, bye bye\nOK\n")
        return _ok("OK\n")

    def _adb_push(self, args: list[str]) -> Reply:
        local, remote = args[-2], args[-1]
        if remote.startswith("/data/") and not self.root:
            return _fail(f"adb: error: failed to copy '{local}' to '{remote}': Permission denied\n")
        with open(local, "rb") as handle:
            self.phone.controller.write_file(remote, handle.read())
        return _ok(f"{local}: 1 file pushed, 0 skipped.\n")

    def _adb_pull(self, args: list[str]) -> Reply:
        remote, local = args[-2], args[-1]
        if not self.phone.controller.exists(remote):
            return _fail(f"adb: error: failed to stat remote object '{remote}': No such file\n")
        with open(local, "wb") as handle:
            handle.write(self.phone.controller.read_file(remote))
        return _ok(f"{remote}: 1 file pulled, 0 skipped.\n")

    def _adb_shell(self, args: list[str]) -> Reply:
        return self.run_shell(" ".join(args))

    def _adb_exec_out(self, args: list[str]) -> Reply:
        reply = self.run_shell(" ".join(args))
        # exec-out has no shell protocol: stderr arrives on stdout and the exit code is lost.
        return Reply(0, reply.out + reply.err, b"", reply.sleep)

    # device shell -------------------------------------------------------------------------
    def run_shell(self, line: str) -> Reply:
        self.shell_log.append(line)
        for prefix, seconds in self.hang.items():
            if line.startswith(prefix):
                return Reply(0, b"", b"", seconds)
        out, err = b"", b""
        rc = 0
        for op, argv in split_commands(line):
            if (op == "&&" and rc != 0) or (op == "||" and rc == 0):
                continue
            reply = self._command(argv)
            out += reply.out
            err += reply.err
            rc = reply.rc
        return Reply(rc, out, err)

    def _command(self, argv: list[str]) -> Reply:
        name, args = argv[0], argv[1:]
        handler = getattr(self, f"_sh_{name}", None)
        if handler is None:
            return _fail(f"/system/bin/sh: {name}: inaccessible or not found\n", rc=127)
        return handler(args)

    def _sh_echo(self, args: list[str]) -> Reply:
        return _ok(" ".join(args) + "\n")

    def _sh_id(self, args: list[str]) -> Reply:
        if args == ["-u"]:
            return _ok("0\n" if self.root else "2000\n")
        return _ok("uid=0(root)\n" if self.root else "uid=2000(shell)\n")

    def _sh_getprop(self, args: list[str]) -> Reply:
        return _ok("1\n" if args == ["sys.boot_completed"] else "\n")

    def _sh_setprop(self, args: list[str]) -> Reply:
        if not self.root and args and args[0].startswith("persist."):
            return _fail(f"Failed to set property '{args[0]}'\n")
        return _ok()

    def _sh_wm(self, args: list[str]) -> Reply:
        width, height = self.phone.screen_size()
        if self.rotation in (1, 3):
            width, height = height, width
        text = f"Physical size: {width}x{height}\n"
        if self.override_size:
            text += f"Override size: {self.override_size[0]}x{self.override_size[1]}\n"
        return _ok(text)

    def _sh_dumpsys(self, args: list[str]) -> Reply:
        width, height = self.phone.screen_size()
        logical = (height, width) if self.rotation in (1, 3) else (width, height)
        if args[:1] == ["input"]:
            return _ok(
                "INPUT MANAGER (dumpsys input)\n\nInput Manager State:\n  Viewports:\n"
                f"    Viewport INTERNAL: displayId=0, uniqueId=local:4619827259835644672, "
                f"port=0, orientation={self.rotation}, logicalFrame=[0, 0, {logical[0]}, "
                f"{logical[1]}], physicalFrame=[0, 0, {logical[0]}, {logical[1]}], "
                f"deviceSize=[{width}, {height}], isActive=[true]\n"
            )
        if args[:1] == ["activity"]:
            activity = self.phone.foreground_activity()
            return _ok(
                "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
                "Display #0 (activities from top to bottom):\n"
                f"  topResumedActivity=ActivityRecord{{8c1f2a u0 {activity} t42}}\n"
                f"  ResumedActivity: ActivityRecord{{8c1f2a u0 {activity} t42}}\n"
            )
        if args[:1] == ["window"]:
            return _ok(f"  mCurrentRotation=ROTATION_{self.rotation * 90}\n")
        return _ok()

    def _sh_screencap(self, args: list[str]) -> Reply:
        if self.screencap_error is not None:
            return _fail(self.screencap_error + "\n")
        return _ok(self.phone.screenshot_png())

    def _sh_uiautomator(self, args: list[str]) -> Reply:
        if args[:1] != ["dump"]:
            return _fail("Usage: uiautomator <subcommand> [options]\n")
        path = args[1] if len(args) > 1 else "/sdcard/window_dump.xml"
        if self.uiautomator_outputs:
            return _ok(self.uiautomator_outputs.pop(0))
        xml = dump.nodes_to_dump(self.phone.ui_nodes(), rotation=self.rotation)
        if path == "/dev/tty":
            if self.dev_tty_unsupported:
                return _fail("ERROR: could not create /dev/tty\n")
            return _ok(xml + _UIAUTOMATOR_TRAILER.format(path=path))
        self._files[path] = xml.encode()
        return _ok(_UIAUTOMATOR_TRAILER.format(path=path))

    def _sh_input(self, args: list[str]) -> Reply:
        if not args:
            return _fail("Usage: input [<source>] <command> [<arg>...]\n")
        kind, rest = args[0], args[1:]
        phone = self.phone
        if kind == "tap":
            phone.tap(float(rest[0]), float(rest[1]))
        elif kind == "swipe":
            x1, y1, x2, y2 = (float(v) for v in rest[:4])
            duration = int(rest[4]) if len(rest) > 4 else 300
            if (x1, y1) == (x2, y2) and duration >= 500:
                phone.long_press(x1, y1)
            else:
                phone.swipe(x1, y1, x2, y2, duration)
        elif kind == "keyevent":
            for code in rest:
                phone.key(KEYCODES.get(code, code))
        elif kind == "keycombination":
            if not self.keycombination_supported:
                return _fail("Error: Unknown command: keycombination\n")
            phone.key_combination([KEYCODES.get(code, code) for code in rest])
        elif kind == "text":
            phone.type_text(" ".join(rest).replace("%s", " "))
        else:
            return _fail(f"Error: Unknown command: {kind}\n")
        return _ok()

    def _sh_settings(self, args: list[str]) -> Reply:
        controller = self.phone.controller
        if args[:1] == ["get"] and len(args) == 3:
            value = controller.get_setting(args[1], args[2])
            return _ok(("null" if value is None else value) + "\n")
        if args[:1] == ["put"] and len(args) >= 4:
            controller.put_setting(args[1], args[2], args[3])
            return _ok()
        return _fail("usage: settings [--user <USER_ID> | current] get namespace key\n")

    def _sh_am(self, args: list[str]) -> Reply:
        if args[:2] == ["start", "-n"]:
            package = args[2].partition("/")[0]
            if package not in self.packages:
                return _ok(
                    f"Starting: Intent {{ cmp={args[2]} }}\nError type 3\nError: Activity class "
                    f"{{{args[2]}}} does not exist.\n"
                )
            self.phone.launch(package)
            return _ok(f"Starting: Intent {{ cmp={args[2]} }}\n")
        if args[:1] == ["force-stop"]:
            self.phone.force_stop(args[1])
            return _ok()
        if args[:1] == ["broadcast"]:
            return self._broadcast(args[1:])
        return _fail("Error: unknown am command\n")

    def _broadcast(self, args: list[str]) -> Reply:
        action = args[args.index("-a") + 1] if "-a" in args else ""
        extras = {args[i + 1]: args[i + 2] for i, a in enumerate(args) if a in ("-e", "--es")}
        done = "Broadcasting: Intent {{ act={act} flg=0x400000 }}\nBroadcast completed: result={r}"
        if action == "clipper.get" and "ca.zgrs.clipper" in self.packages:
            text = self.phone.controller.get_clipboard()
            return _ok(done.format(act=action, r=-1) + f', data="{text}"\n')
        if action == "clipper.set" and "ca.zgrs.clipper" in self.packages:
            self.phone.controller.set_clipboard(extras.get("text", ""))
            return _ok(done.format(act=action, r=-1) + ', data="Text is copied into clipboard."\n')
        if action == "ADB_INPUT_B64" and self.ime.startswith("com.android.adbkeyboard"):
            self.phone.type_text(base64.b64decode(extras.get("msg", "")).decode("utf-8"))
        return _ok(done.format(act=action, r=0) + "\n")

    def _sh_monkey(self, args: list[str]) -> Reply:
        package = args[args.index("-p") + 1]
        if package not in self.packages:
            return _ok("** No activities found to run, monkey aborted.\n")
        self.phone.launch(package)
        return _ok("Events injected: 1\n")

    def _sh_pm(self, args: list[str]) -> Reply:
        if args[:2] == ["list", "packages"]:
            wanted = args[2] if len(args) > 2 else ""
            return _ok("".join(f"package:{p}\n" for p in sorted(self.packages) if wanted in p))
        return _fail("Error: unknown pm command\n")

    # files --------------------------------------------------------------------------------
    def _denied(self, path: str) -> bool:
        return path.startswith("/data/") and not self.root

    def _sh_ls(self, args: list[str]) -> Reply:
        path = [a for a in args if not a.startswith("-")][-1]
        controller = self.phone.controller
        if self._denied(path):
            return _fail(f"ls: {path}: Permission denied\n")
        if not controller.exists(path):
            return _fail(f"ls: {path}: No such file or directory\n")
        if not controller.is_dir(path):
            return _ok(path + "\n")
        names = (
            [".", "..", *controller.list_dir(path)] if "-a" in args else controller.list_dir(path)
        )
        return _ok("".join(n + "\n" for n in names))

    def _sh_stat(self, args: list[str]) -> Reply:
        path = args[-1]
        controller = self.phone.controller
        if self._denied(path):
            return _fail(f"stat: '{path}': Permission denied\n")
        if not controller.exists(path):
            return _fail(f"stat: '{path}': No such file or directory\n")
        if "%u:%g" in args:
            return _ok("10123:10123\n")
        if "%Y" in args:
            return _ok(f"{int(controller.modified_time(path).timestamp())}\n")
        return _ok("directory\n" if controller.is_dir(path) else "regular file\n")

    def _sh_chown(self, args: list[str]) -> Reply:
        return _fail("chown: Operation not permitted\n") if not self.root else _ok()

    def _sh_restorecon(self, args: list[str]) -> Reply:
        return _ok()

    def _sh_cat(self, args: list[str]) -> Reply:
        path = args[-1]
        if path in self._files:
            return _ok(self._files[path])
        controller = self.phone.controller
        if self._denied(path):
            return _fail(f"cat: {path}: Permission denied\n")
        if not controller.exists(path) or controller.is_dir(path):
            return _fail(f"cat: {path}: No such file or directory\n")
        return _ok(controller.read_file(path))

    def _sh_rm(self, args: list[str]) -> Reply:
        for path in (a for a in args if not a.startswith("-")):
            if self._denied(path):
                return _fail(f"rm: {path}: Permission denied\n")
            self.phone.controller.remove(path)
        return _ok()

    def _sh_mkdir(self, args: list[str]) -> Reply:
        for path in (a for a in args if not a.startswith("-")):
            if self._denied(path):
                return _fail(f"mkdir: '{path}': Permission denied\n")
            self.phone.controller.make_dirs(path)
        return _ok()

    # time ---------------------------------------------------------------------------------
    def _sh_date(self, args: list[str]) -> Reply:
        controller = self.phone.controller
        if args == ["+%s"]:
            return _ok(f"{int(controller.device_time().timestamp())}\n")
        value = [a for a in args if not a.startswith("-")]
        if value:
            if not self.root:
                return _fail("date: cannot set date: Operation not permitted\n")
            when = datetime.datetime.strptime(value[0], "%m%d%H%M%y.%S")
            controller.set_device_time(when.replace(tzinfo=datetime.UTC))
            return _ok(when.strftime("%a %b %d %H:%M:%S UTC %Y") + "\n")
        return _ok(controller.device_time().strftime("%a %b %d %H:%M:%S UTC %Y") + "\n")

    # sqlite -------------------------------------------------------------------------------
    def _sh_sqlite3(self, args: list[str]) -> Reply:
        if self.sqlite_version is None:
            return _fail("/system/bin/sh: sqlite3: inaccessible or not found\n", rc=127)
        if args == ["-version"]:
            return _ok(f"{self.sqlite_version} 2022-07-21 15:24:47 fake\n")
        flags = [a for a in args if a.startswith("-")]
        db_path, sql = [a for a in args if not a.startswith("-")][:2]
        if self._denied(db_path):
            return _fail(
                f'Error: unable to open database "{db_path}": unable to open database file\n'
            )
        json_mode = "-json" in flags
        if json_mode and tuple(int(p) for p in self.sqlite_version.split(".")) < (3, 33, 0):
            return _fail(
                "sqlite3: Error: unknown option: -json\nUse -help for a list of options.\n"
            )
        controller = self.phone.controller
        statement = sql.strip().rstrip(";")
        is_query = statement.split(None, 1)[0].upper() in ("SELECT", "PRAGMA", "WITH")
        try:
            if is_query and ";" not in statement:
                rows = controller.sqlite_query(db_path, sql)
            else:
                controller.sqlite_execute(db_path, sql)
                rows = []
        except (sqlite3.Error, FileNotFoundError) as exc:
            return _fail(f"Error: in prepare, {exc}\n")
        if not rows:
            return _ok()
        if json_mode:
            return _ok(json.dumps(rows, separators=(",", ":")).replace("},{", "},\n{") + "\n")
        return _ok(_quote_rows(rows))


def _quote_value(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bytes):
        return "X'" + value.hex().upper() + "'"
    if isinstance(value, int | float):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def _quote_rows(rows: list[dict[str, Any]]) -> str:
    lines = [",".join(_quote_value(name) for name in rows[0])]
    lines += [",".join(_quote_value(v) for v in row.values()) for row in rows]
    return "\n".join(lines) + "\n"
