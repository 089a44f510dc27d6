"""N emulators for `--workers N`: per-worker AVD copies, and the clean-up of emulators whose worker
was killed.

Each worker owns one emulator, started by its own `AdbEnv` (emulator.py) on its own console port
(5554 + 2·i), gRPC port (8554 + i) and, with `env.adb.adb_server_port`, its own adb server, so one
worker's `adb kill-server` or install cannot break another's. An AVD cannot boot twice, so the
instances either share it read-only (`-read-only`, the default: nothing a run does survives the
emulator) or boot per-worker copies (`instances: clone`), made here once before the workers start.
A worker that dies cannot stop its emulator: the driver kills it by the process id the worker
reported (emulators run in their own session, so the whole group goes).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
from pathlib import Path

# Files an emulator writes while running; a copy must not inherit them (the copy would look busy).
_RUNTIME_FILES = re.compile(r"(\.lock$|^hardware-qemu\.ini|^snapshots$|^tmpAdbCmds)")


class AvdCloneError(Exception):
    """An AVD cannot be copied (missing, or its .ini has no path); one line for the user."""


def avd_home(environ: dict[str, str] | None = None) -> Path:
    """Where AVDs live: $ANDROID_AVD_HOME, else $ANDROID_USER_HOME/avd, else ~/.android/avd."""
    environ = dict(os.environ) if environ is None else environ
    if environ.get("ANDROID_AVD_HOME"):
        return Path(environ["ANDROID_AVD_HOME"])
    if environ.get("ANDROID_USER_HOME"):
        return Path(environ["ANDROID_USER_HOME"]) / "avd"
    return Path(environ.get("HOME", str(Path.home()))) / ".android" / "avd"


def _ini_values(text: str) -> dict[str, str]:
    values = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key.strip()] = value.strip()
    return values


def clone_avd(source: str, target: str, home: Path) -> bool:
    """Copy AVD `source` to `target` in `home` (its <name>.ini and <name>.avd/); False when the
    copy exists already (kept: it may hold the state a previous run set up)."""
    src_ini = home / f"{source}.ini"
    if not src_ini.is_file():
        raise AvdCloneError(
            f"AVD {source!r} not found in {home} (no {src_ini.name}); check `emulator -list-avds`"
        )
    values = _ini_values(src_ini.read_text(encoding="utf-8"))
    src_dir = Path(values.get("path", "")) if values.get("path") else home / f"{source}.avd"
    if not src_dir.is_dir():
        raise AvdCloneError(f"AVD {source!r}: its folder {src_dir} does not exist")
    dst_ini, dst_dir = home / f"{target}.ini", home / f"{target}.avd"
    if dst_ini.is_file() and dst_dir.is_dir():
        return False
    shutil.copytree(
        src_dir,
        dst_dir,
        ignore=lambda _dir, names: [n for n in names if _RUNTIME_FILES.search(n)],
        dirs_exist_ok=True,
    )
    lines = []
    for line in src_ini.read_text(encoding="utf-8").splitlines():
        key = line.partition("=")[0].strip()
        if key == "path":
            line = f"path={dst_dir}"
        elif key == "path.rel":
            line = f"path.rel=avd/{dst_dir.name}"
        lines.append(line)
    dst_ini.write_text("\n".join(lines) + "\n", encoding="utf-8")
    config = dst_dir / "config.ini"
    if config.is_file():  # the name the emulator shows; the copy's own
        text = config.read_text(encoding="utf-8")
        text = re.sub(r"(?m)^AvdId=.*$", f"AvdId={target}", text)
        text = re.sub(r"(?m)^avd\.ini\.displayname=.*$", f"avd.ini.displayname={target}", text)
        config.write_text(text, encoding="utf-8")
    return True


def prepare_clones(avd: str, workers: int, name_of, home: Path | None = None) -> list[str]:
    """The per-worker copies of `avd` (made when missing); their names, worker by worker."""
    home = home or avd_home()
    names = [name_of(avd, slot) for slot in range(workers)]
    for name in names:
        clone_avd(avd, name, home)
    return names


def reap(pid: int | None) -> bool:
    """Kill the emulator a dead worker started (its process group); True if one was running."""
    if not pid:
        return False
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
            return True
        return False
    return True
