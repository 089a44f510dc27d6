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
    later = ["device", "screencap", "uiautomator", "root", "screen size"]
    for position, gate in enumerate((_check_adb, _check_device_listed)):
        rows.append(gate(runner))
        if rows[-1].status == FAIL:
            rows.extend(CheckRow(n, SKIP, "needs the checks above") for n in later[position:])
            return rows
    for check in (_check_screencap, _check_uiautomator, _check_root, _check_screen_size):
        rows.append(check(runner))
    return rows


def _check_adb(runner: AdbRunner) -> CheckRow:
    try:
        version = runner.run(["version"], with_serial=False)
        first = version.text.strip().splitlines()[0] if version.text.strip() else "adb"
        return CheckRow("adb found", PASS, f"{runner.adb_path}: {first}")
    except AdbError as exc:
        return CheckRow("adb found", FAIL, str(exc))


def _check_device_listed(runner: AdbRunner) -> CheckRow:
    try:
        listed = parse_devices(runner.run(["devices"], with_serial=False).text)
        problem = device_state_problem(listed, runner.serial)
    except AdbError as exc:
        problem = str(exc)
    if problem:
        return CheckRow("device", FAIL, problem)
    return CheckRow("device", PASS, f"{runner.serial} online and authorized")


def _check_screencap(runner: AdbRunner) -> CheckRow:
    try:
        result = runner.exec_out("screencap -p")
        pixels = decode_png(result.stdout)
        return CheckRow("screencap", PASS, f"{pixels.shape[1]}x{pixels.shape[0]} PNG")
    except (AdbError, ValueError, OSError) as exc:
        return CheckRow(
            "screencap",
            FAIL,
            f"{exc}: wake the screen (`adb shell input keyevent KEYCODE_WAKEUP`) and retry",
        )


def _check_uiautomator(runner: AdbRunner) -> CheckRow:
    try:
        output = runner.exec_out("uiautomator dump /dev/tty")
        nodes = uiautomator.parse_dump(output.text + "\n" + output.error_text)
        return CheckRow("uiautomator", PASS, f"{len(nodes)} nodes")
    except (AdbError, uiautomator.UiDumpError) as exc:
        hint = (
            "retry (the screen was changing)"
            if getattr(exc, "transient", False)
            else (
                "check `adb shell uiautomator dump /dev/tty` by hand; close other automation tools"
            )
        )
        return CheckRow("uiautomator", FAIL, f"{exc}: {hint}")


def _check_root(runner: AdbRunner) -> CheckRow:
    try:
        uid = runner.shell("id -u", check=False).text.strip()
    except AdbError as exc:
        return CheckRow("root", FAIL, str(exc))
    if uid == "0":
        return CheckRow("root", PASS, "adbd runs as root")
    return CheckRow(
        "root",
        WARN,
        "not root: run `adb root` (emulator images without Google Play); needed for "
        "sqlite3 on app databases and for freezing the clock",
    )


def _check_screen_size(runner: AdbRunner) -> CheckRow:
    try:
        physical, override = commands.parse_wm_size(runner.shell("wm size").text)
    except AdbError as exc:
        return CheckRow("screen size", FAIL, str(exc))
    if physical is None:
        return CheckRow(
            "screen size", FAIL, "`wm size` printed no size: is the device fully booted?"
        )
    shown = f"{physical[0]}x{physical[1]}"
    if override:
        shown += f" (override {override[0]}x{override[1]})"
    status = PASS if physical == (1080, 2400) and not override else WARN
    note = "" if status == PASS else "; tasks are calibrated on a Pixel 6 (1080x2400)"
    return CheckRow("screen size", status, shown + note)


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
