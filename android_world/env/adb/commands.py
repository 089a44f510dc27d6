"""Pure functions: build device shell commands and parse what they print.

Kept free of I/O so every quoting rule and every parser can be tested on canned text. The device
shell (mksh/toybox) parses each command we send through `adb shell`, so every argument we build is
quoted with POSIX single quotes, which mksh treats the same way as sh.
"""

from __future__ import annotations

import base64
import datetime
import json
import re
import shlex
from collections.abc import Sequence
from typing import Any

from android_world.env.adb.adb_runner import UntypeableTextError
from android_world.env.representation_utils import BoundingBox

quote = shlex.quote

# `input text` types printable ASCII only; it turns "%s" into a space.
_TYPEABLE = re.compile(r"[\x20-\x7e]*")
ADB_KEYBOARD_IME = "com.android.adbkeyboard/.AdbIME"

# Upstream's format for `date` (MMDDhhmmYY.ss), used to freeze the device clock.
ANDROID_DATE_FORMAT = "%m%d%H%M%y.%S"


# ---------------------------------------------------------------------------------------------
# input


def tap_command(x: float, y: float) -> str:
    return f"input tap {round(x)} {round(y)}"


def swipe_command(
    x1: float, y1: float, x2: float, y2: float, duration_ms: int | None = None
) -> str:
    cmd = f"input swipe {round(x1)} {round(y1)} {round(x2)} {round(y2)}"
    return cmd if duration_ms is None else f"{cmd} {duration_ms}"


def long_press_command(x: float, y: float) -> str:
    """A swipe that does not move, held for a second: upstream's long press."""
    return swipe_command(x, y, x, y, 1000)


def double_tap_command(x: float, y: float) -> str:
    """Both taps in one shell call: two adb round trips are too slow for a double tap."""
    return f"{tap_command(x, y)} && {tap_command(x, y)}"


def keyevent_command(*keycodes: str | int) -> str:
    return "input keyevent " + " ".join(str(k) for k in keycodes)


def is_typeable(text: str) -> bool:
    """True when `input text` (plus ENTER/TAB key events) can type all of `text`."""
    return all(_TYPEABLE.fullmatch(line) for line in re.split(r"[\n\t]", text))


def _input_text_args(segment: str) -> list[str]:
    """Arguments for `input text` that type `segment` (printable ASCII, no newline) exactly.

    Spaces are sent as %s; a literal "%s" is typed in two calls, since `input` would turn it into
    a space.
    """
    pieces = segment.split("%s")
    args: list[str] = []
    for i, piece in enumerate(pieces):
        if i < len(pieces) - 1:
            piece += "%"
        if i > 0:
            piece = "s" + piece
        if piece:
            args.append(piece.replace(" ", "%s"))
    return args


def untypeable_error(text: str) -> UntypeableTextError:
    bad = sorted({c for c in text if not (c in "\n\t" or " " <= c <= "~")})
    shown = "".join(bad)[:20]
    return UntypeableTextError(
        f"`adb shell input text` cannot type {shown!r}: install ADBKeyboard "
        f"(com.android.adbkeyboard) and run `adb shell ime set {ADB_KEYBOARD_IME}`"
    )


def input_text_commands(text: str) -> list[str]:
    """Shell commands that type `text` with `input text`; newline is ENTER and tab is TAB.

    Raises UntypeableTextError (a ValueError) for characters `input text` cannot type.
    """
    if not is_typeable(text):
        raise untypeable_error(text)
    commands: list[str] = []
    for token in re.split(r"([\n\t])", text):
        if token == "\n":
            commands.append(keyevent_command("KEYCODE_ENTER"))
        elif token == "\t":
            commands.append(keyevent_command("KEYCODE_TAB"))
        else:
            commands += [f"input text {quote(arg)}" for arg in _input_text_args(token)]
    return commands


def adb_keyboard_command(text: str) -> str:
    """Type any text through the ADBKeyboard IME; base64 avoids every quoting problem."""
    encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return f"am broadcast -a ADB_INPUT_B64 --es msg {encoded}"


# ---------------------------------------------------------------------------------------------
# gestures (upstream's geometry)


def _clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))


def scroll_points(
    direction: str, screen_size: tuple[int, int], region: BoundingBox | None = None
) -> tuple[int, int, int, int]:
    """Swipe (sx, sy, ex, ey) that scrolls content `direction`: the finger moves the other way.

    The gesture starts at the region's centre (the whole screen when no region) and ends at the
    edge the content moves away from, as upstream does.
    """
    width, height = screen_size
    if region is None:
        x_min, x_max, y_min, y_max = 0, width, 0, height
    else:
        x_min = _clamp(region.x_min, 0, width)
        x_max = _clamp(region.x_max, 0, width)
        y_min = _clamp(region.y_min, 0, height)
        y_max = _clamp(region.y_max, 0, height)
    cx, cy = (x_min + x_max) // 2, (y_min + y_max) // 2
    ends = {
        "down": (cx, y_min),
        "up": (cx, y_max),
        "right": (x_min, cy),
        "left": (x_max, cy),
    }
    if direction not in ends:
        raise ValueError(f"Invalid scroll direction: {direction}")
    ex, ey = ends[direction]
    return int(cx), int(cy), int(ex), int(ey)


def swipe_points(direction: str, screen_size: tuple[int, int]) -> tuple[int, int, int, int]:
    """Upstream's whole-screen swipe along the middle line, quirk included.

    `down`/`up` move the finger down/up; `left` moves it from x=0 to the right edge and `right`
    from the right edge to x=0, as upstream's actuation (and the simulated phone) do, so an agent
    sees the same gesture on every environment.
    """
    width, height = screen_size
    mx, my = width // 2, height // 2
    right, bottom = width - 1, height - 1
    points = {
        "down": (mx, 0, mx, bottom),
        "up": (mx, bottom, mx, 0),
        "left": (0, my, right, my),
        "right": (right, my, 0, my),
    }
    if direction not in points:
        raise ValueError(f"Invalid swipe direction: {direction}")
    return points[direction]


# ---------------------------------------------------------------------------------------------
# geometry and activity parsing


_WM_SIZE = re.compile(r"(Physical|Override) size:\s*(\d+)x(\d+)")


def parse_wm_size(output: str) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """`wm size` -> (physical, override); either may be None."""
    found: dict[str, tuple[int, int]] = {}
    for kind, w, h in _WM_SIZE.findall(output):
        found[kind] = (int(w), int(h))
    return found.get("Physical"), found.get("Override")


_VIEWPORT = re.compile(
    r"Viewport INTERNAL:.*?orientation=(\d+).*?logicalFrame=\[(-?\d+), (-?\d+), (-?\d+), (-?\d+)\]"
    r".*?physicalFrame=\[(-?\d+), (-?\d+), (-?\d+), (-?\d+)\]"
)
_SURFACE_ORIENTATION = re.compile(r"SurfaceOrientation:\s*(\d)")
_ROTATION = re.compile(r"mCurrentRotation=(?:ROTATION_)?(\d+)")


def parse_input_viewport(
    output: str,
) -> tuple[int, tuple[int, int, int, int], tuple[int, int, int, int]] | None:
    """`dumpsys input` -> (orientation, logicalFrame, physicalFrame) of the internal display."""
    match = _VIEWPORT.search(output)
    if not match:
        return None
    values = [int(v) for v in match.groups()]
    return values[0], tuple(values[1:5]), tuple(values[5:9])  # type: ignore[return-value]


def parse_orientation(output: str) -> int | None:
    """Orientation 0..3 from `dumpsys input` or `dumpsys window` output."""
    viewport = parse_input_viewport(output)
    if viewport is not None:
        return viewport[0]
    match = _SURFACE_ORIENTATION.search(output)
    if match:
        return int(match.group(1))
    match = _ROTATION.search(output)
    if match:
        value = int(match.group(1))
        return value // 90 if value >= 90 else value
    return None


_RESUMED = re.compile(
    r"(?:mResumedActivity|topResumedActivity|ResumedActivity)[:=]\s*ActivityRecord\{\S+ \S+ "
    r"([\w.$]+/[\w.$]+)"
)
_FOCUSED_APP = re.compile(r"mFocusedApp=.*?ActivityRecord\{\S+ \S+ ([\w.$]+/[\w.$]+)")


def parse_resumed_activity(output: str) -> str | None:
    """`dumpsys activity activities` -> the resumed `package/activity`, as the device prints it."""
    match = _RESUMED.search(output) or _FOCUSED_APP.search(output)
    return match.group(1) if match else None


def component(package: str, activity: str) -> str:
    """`am start -n` component from the app table's (package, activity)."""
    if "/" in activity:
        return activity
    return f"{package}/{activity}"


# ---------------------------------------------------------------------------------------------
# sqlite


def sql_literal(value: Any) -> str:
    """A Python value as a SQLite literal, for inlining parameters (the CLI cannot bind them)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, bytes | bytearray):
        return "X'" + bytes(value).hex() + "'"
    return "'" + str(value).replace("'", "''") + "'"


def bind_params(sql: str, params: Sequence[Any]) -> str:
    """Replace each `?` outside quotes/comments with the next parameter as a literal."""
    if not params:
        return sql
    out: list[str] = []
    remaining = list(params)
    i = 0
    while i < len(sql):
        ch = sql[i]
        if ch in "'\"`[":
            close = "]" if ch == "[" else ch
            j = i + 1
            while j < len(sql):
                if sql[j] == close:
                    if close != "]" and j + 1 < len(sql) and sql[j + 1] == close:
                        j += 2
                        continue
                    break
                j += 1
            out.append(sql[i : j + 1])
            i = j + 1
            continue
        if sql.startswith("--", i):
            j = sql.find("\n", i)
            j = len(sql) if j < 0 else j
            out.append(sql[i:j])
            i = j
            continue
        if ch == "?":
            if not remaining:
                raise ValueError(f"not enough parameters for SQL: {sql!r}")
            out.append(sql_literal(remaining.pop(0)))
            i += 1
            continue
        out.append(ch)
        i += 1
    if remaining:
        raise ValueError(f"{len(remaining)} unused parameter(s) for SQL: {sql!r}")
    return "".join(out)


def sqlite_command(db_path: str, sql: str, mode: str = "json") -> str:
    """`sqlite3` invocation for a shell; mode `json` (>= 3.33) or `quote` (older devices)."""
    flags = "-json" if mode == "json" else "-header -quote"
    return f"sqlite3 {flags} {quote(db_path)} {quote(sql)}"


def parse_sqlite_version(output: str) -> tuple[int, ...] | None:
    match = re.search(r"(\d+)\.(\d+)\.(\d+)", output)
    return tuple(int(g) for g in match.groups()) if match else None


def parse_sqlite_json(output: str) -> list[dict[str, Any]]:
    """`sqlite3 -json` prints nothing for no rows, else one JSON array (sometimes per statement)."""
    text = output.strip()
    if not text:
        return []
    rows: list[dict[str, Any]] = []
    decoder = json.JSONDecoder()
    pos = 0
    while pos < len(text):
        chunk, end = decoder.raw_decode(text, pos)
        rows += chunk
        pos = end
        while pos < len(text) and text[pos] in " \r\n\t":
            pos += 1
    return rows


_QUOTE_NUMBER = re.compile(r"-?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|Inf)")


def _quote_tokens(output: str) -> list[list[Any]]:
    """Tokenise `-quote` output into rows of Python values (strings keep their type)."""
    rows: list[list[Any]] = []
    row: list[Any] = []
    i, n = 0, len(output)
    pending = False  # a value has started on this row
    while i < n:
        ch = output[i]
        if ch == "'":
            j = i + 1
            parts = []
            while j < n:
                if output[j] == "'":
                    if j + 1 < n and output[j + 1] == "'":
                        parts.append("'")
                        j += 2
                        continue
                    break
                parts.append(output[j])
                j += 1
            row.append("".join(parts))
            pending = True
            i = j + 1
        elif ch == ",":
            i += 1
        elif ch in "\r\n":
            if pending:
                rows.append(row)
            row, pending = [], False
            i += 1
        elif output.startswith("NULL", i):
            row.append(None)
            pending = True
            i += 4
        elif output.startswith(("X'", "x'"), i):
            j = output.index("'", i + 2)
            row.append(bytes.fromhex(output[i + 2 : j]))
            pending = True
            i = j + 1
        else:
            match = _QUOTE_NUMBER.match(output, i)
            if not match or not match.group(0):
                raise ValueError(f"unexpected sqlite3 -quote output near {output[i : i + 20]!r}")
            token = match.group(0)
            number: Any
            if token.lstrip("-").isdigit():
                number = int(token)
            else:
                number = float(token)
            row.append(number)
            pending = True
            i = match.end()
    if pending:
        rows.append(row)
    return rows


def parse_sqlite_quote(output: str) -> list[dict[str, Any]]:
    """`sqlite3 -header -quote` output (header row of quoted names, then SQL literals) -> dicts."""
    rows = _quote_tokens(output)
    if not rows:
        return []
    header = [str(h) for h in rows[0]]
    result = []
    for values in rows[1:]:
        if values == header:  # a second statement's header
            continue
        result.append(dict(zip(header, values)))
    return result


# ---------------------------------------------------------------------------------------------
# time, files, clipboard


def android_date_arg(when: datetime.datetime) -> str:
    """`date -u` argument for `when` (naive times are taken as UTC)."""
    if when.tzinfo is not None:
        when = when.astimezone(datetime.UTC)
    return when.strftime(ANDROID_DATE_FORMAT)


def parse_epoch(output: str) -> datetime.datetime:
    match = re.search(r"-?\d+", output)
    if not match:
        raise ValueError(f"not an epoch time: {output.strip()[:80]!r}")
    return datetime.datetime.fromtimestamp(int(match.group(0)), tz=datetime.UTC)


_APP_DATA = re.compile(r"^(/data/(?:data|user/\d+)/[A-Za-z][\w.]*)/.+")


def app_data_dir(path: str) -> str | None:
    """`/data/data/<pkg>` for a path inside an app's private data, else None."""
    match = _APP_DATA.match(path)
    return match.group(1) if match else None


def is_uid_gid(text: str) -> bool:
    return re.fullmatch(r"\d+:\d+", text) is not None


def parse_stat_type(output: str) -> str | None:
    """`stat -c %F` -> 'directory', 'file' or None (missing)."""
    text = output.strip().lower()
    if not text or "no such file" in text:
        return None
    if text.startswith("directory"):
        return "directory"
    return "file"


_BROADCAST_DATA = re.compile(r'Broadcast completed: result=(-?\d+)(?:, data="(.*)")?', re.DOTALL)


def parse_broadcast_data(output: str) -> tuple[int, str | None] | None:
    """`am broadcast` -> (result code, data) from 'Broadcast completed: result=-1, data="..."'."""
    match = _BROADCAST_DATA.search(output.rstrip())
    if not match:
        return None
    return int(match.group(1)), match.group(2)
