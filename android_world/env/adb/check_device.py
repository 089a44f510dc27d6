"""`--check_device`: is this machine and device ready for `--env adb`? One table, one fix per row.

Each check runs only if what it needs passed (no point asking for a screenshot from a device that
is not listed). Root is reported but does not fail the check on its own: only tasks that read app
databases or freeze the clock need it, and the row says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from android_world.env.adb import commands, uiautomator
from android_world.env.adb.adb_env import decode_png
from android_world.env.adb.adb_runner import (
    AdbConfig,
    AdbError,
    AdbRunner,
    device_state_problem,
    parse_devices,
)

PASS, FAIL, WARN, SKIP = "pass", "FAIL", "warn", "skip"


@dataclasses.dataclass
class CheckRow:
    name: str
    status: str
    detail: str


def _run_checks(runner: AdbRunner) -> list[CheckRow]:
    rows: list[CheckRow] = []

    def add(name: str, status: str, detail: str) -> bool:
        rows.append(CheckRow(name, status, detail))
        return status in (PASS, WARN)

    def skip_rest(names: list[str]) -> list[CheckRow]:
        rows.extend(CheckRow(n, SKIP, "needs the checks above") for n in names)
        return rows

    later = ["device", "screencap", "uiautomator", "root", "screen size"]
    try:
        version = runner.run(["version"], with_serial=False)
        first = version.text.strip().splitlines()[0] if version.text.strip() else "adb"
        add("adb found", PASS, f"{runner.adb_path}: {first}")
    except AdbError as exc:
        add("adb found", FAIL, str(exc))
        return skip_rest(later)

    try:
        listed = parse_devices(runner.run(["devices"], with_serial=False).text)
        problem = device_state_problem(listed, runner.serial)
    except AdbError as exc:
        problem = str(exc)
    if problem:
        add("device", FAIL, problem)
        return skip_rest(later[1:])
    add("device", PASS, f"{runner.serial} online and authorized")

    try:
        result = runner.exec_out("screencap -p")
        pixels = decode_png(result.stdout)
        add("screencap", PASS, f"{pixels.shape[1]}x{pixels.shape[0]} PNG")
    except (AdbError, ValueError, OSError) as exc:
        add(
            "screencap",
            FAIL,
            f"{exc}: wake the screen (`adb shell input keyevent KEYCODE_WAKEUP`) and retry",
        )

    try:
        output = runner.exec_out("uiautomator dump /dev/tty")
        nodes = uiautomator.parse_dump(output.text + "\n" + output.error_text)
        add("uiautomator", PASS, f"{len(nodes)} nodes")
    except (AdbError, uiautomator.UiDumpError) as exc:
        hint = (
            "retry (the screen was changing)"
            if getattr(exc, "transient", False)
            else (
                "check `adb shell uiautomator dump /dev/tty` by hand; close other automation tools"
            )
        )
        add("uiautomator", FAIL, f"{exc}: {hint}")

    try:
        uid = runner.shell("id -u", check=False).text.strip()
        if uid == "0":
            add("root", PASS, "adbd runs as root")
        else:
            add(
                "root",
                WARN,
                "not root: run `adb root` (emulator images without Google Play); needed for "
                "sqlite3 on app databases and for freezing the clock",
            )
    except AdbError as exc:
        add("root", FAIL, str(exc))

    try:
        physical, override = commands.parse_wm_size(runner.shell("wm size").text)
        if physical is None:
            add("screen size", FAIL, "`wm size` printed no size: is the device fully booted?")
        else:
            shown = f"{physical[0]}x{physical[1]}"
            if override:
                shown += f" (override {override[0]}x{override[1]})"
            status = PASS if physical == (1080, 2400) and not override else WARN
            note = "" if status == PASS else "; tasks are calibrated on a Pixel 6 (1080x2400)"
            add("screen size", status, shown + note)
    except AdbError as exc:
        add("screen size", FAIL, str(exc))
    return rows


def format_table(rows: list[CheckRow]) -> str:
    width = max(len(r.name) for r in rows)
    lines = [f"{'check'.ljust(width)}  result  detail / fix"]
    lines += [f"{r.name.ljust(width)}  {r.status.ljust(6)}  {r.detail}" for r in rows]
    return "\n".join(lines)


def check_device(
    adb_config: AdbConfig | Mapping[str, Any] | None,
    log: Callable[[str], None] = print,
    runner: AdbRunner | None = None,
) -> int:
    """Print the readiness table; 0 when nothing failed, 1 otherwise."""
    config = adb_config if isinstance(adb_config, AdbConfig) else AdbConfig.from_mapping(adb_config)
    runner = runner or AdbRunner.from_config(config)
    rows = _run_checks(runner)
    log(format_table(rows))
    failed = [r for r in rows if r.status == FAIL]
    log("device ready" if not failed else f"{len(failed)} check(s) failed")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    """`python -m android_world.env.adb.check_device [--serial S] [--adb_path P] [--console_port N]`."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adb_path", default="")
    parser.add_argument("--serial", default="")
    parser.add_argument("--console_port", type=int, default=5554)
    args = parser.parse_args(argv)
    return check_device(
        {"adb_path": args.adb_path, "serial": args.serial, "console_port": args.console_port}
    )


if __name__ == "__main__":
    raise SystemExit(main())
