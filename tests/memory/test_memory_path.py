"""What is at the memory path: a regular file, a symlink to one, or a one-line error.

Nothing at the path is ever renamed, moved, truncated or blocked on: a FIFO, a directory, a
device, a damaged or foreign file, a newer schema. Each is a one-line EpisodicMemoryError from the
store, exit 2 from the run and from the review CLI, and the thing at the path stays as it was.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from android_world.agents.custom.memory import celil_memory_mode
from android_world.agents.custom.memory.celil_episodic import (
    CorruptMemoryError,
    EpisodicMemory,
    EpisodicMemoryError,
    MemoryPathError,
)
from android_world.harness import memory_review

ROOT = Path(__file__).resolve().parents[2]
GOAL = "Turn wifi on."
PLAN = ["Open the Settings app", "Turn Wi-Fi on"]
KEY = "agent.configurations.celil_agent"


def _one_line(message: str) -> None:
    assert message and "\n" not in message.strip() and "Traceback" not in message


def _tree(path: Path) -> dict[str, bytes | str]:
    """Everything under (and at) `path`, to show nothing changed."""
    if path.is_dir():
        return {str(p): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()} | {
            "dir": str(path)
        }
    return {str(path): path.read_bytes()}


def _review(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "android_world.harness.memory_review", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


# --- not a file ------------------------------------------------------------------------------


def test_a_fifo_is_refused_at_once_by_the_store_the_state_and_the_cli(tmp_path):
    fifo = tmp_path / "memory.db"
    os.mkfifo(fifo)
    # In a child process with a timeout: a regression would block forever, not fail.
    code = (
        "from android_world.agents.custom.memory.celil_episodic import EpisodicMemory, MemoryPathError\n"
        "try:\n"
        f"    EpisodicMemory({str(fifo)!r})\n"
        "except MemoryPathError as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert "is a FIFO (named pipe), not a file" in done.stdout, done.stderr
    _one_line(done.stdout)
    state = celil_memory_mode.memory_state(celil_memory_mode.MemoryPlan("shared", fifo, False))
    assert "FIFO" in str(state["error"])
    for command in ("list", "stats"):
        result = _review("--memory", str(fifo), command)
        assert result.returncode == 2 and "FIFO" in result.stderr
        _one_line(result.stderr)
    assert fifo.is_fifo()


def test_a_directory_is_an_error_and_is_never_renamed(tmp_path):
    folder = tmp_path / "memory.db"
    folder.mkdir()
    (folder / "mine.txt").write_text("a user's file")
    before = _tree(folder)
    with pytest.raises(MemoryPathError, match="is a directory, not a file") as info:
        EpisodicMemory(folder)
    _one_line(str(info.value))
    assert _tree(folder) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["memory.db"]


def test_a_device_and_a_socket_are_errors(tmp_path):
    device = tmp_path / "memory.db"
    device.symlink_to("/dev/null")  # a symlink to a character device
    with pytest.raises(MemoryPathError, match="character device"):
        EpisodicMemory(device)
    sock_path = tmp_path / "s.db"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        with pytest.raises(MemoryPathError, match="socket"):
            EpisodicMemory(sock_path)


def test_a_run_with_an_unusable_memory_path_exits_2_with_one_line(tmp_path):
    folder = tmp_path / "shared_memory"
    folder.mkdir()
    result = subprocess.run(
        [
            *(sys.executable, "-m", "android_world.harness.run", "--models", "offline"),
            *("--tasks", "SystemWifiTurnOn", "--output_path", str(tmp_path / "runs")),
            *("--set", "env.render=false", "--set", f"{KEY}.memory=shared"),
            *("--set", f"{KEY}.episodic_memory_path={folder}"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 2, result.stderr[-2000:]
    assert "is a directory, not a file" in result.stderr
    assert "Traceback" not in result.stderr
    assert folder.is_dir() and not list(tmp_path.glob("shared_memory.*"))
    runs = tmp_path / "runs"
    assert not runs.exists() or not list(runs.iterdir())  # stopped before a run directory


# --- symlinks ------------------------------------------------------------------------------------


def test_a_symlinked_memory_is_written_through_to_its_target(tmp_path):
    shared = tmp_path / "shared" / "team.db"
    shared.parent.mkdir()
    EpisodicMemory(shared).add_successful_plan(GOAL, PLAN)
    link = tmp_path / "mine" / "memory.db"
    link.parent.mkdir()
    link.symlink_to(shared)

    mem = EpisodicMemory(link)
    assert mem.path == shared.resolve()
    mem.add_successful_plan("Turn bluetooth off.", ["Open Settings", "Turn Bluetooth off"])
    assert link.is_symlink() and Path(os.readlink(link)) == shared
    assert EpisodicMemory(shared).count() == 2  # the shared target has the new plan
    assert sorted(p.name for p in link.parent.iterdir()) == ["memory.db"]  # no side files here
    # The CLI follows the link too, and says where the database is.
    listed = _review("--memory", str(link), "list")
    assert listed.returncode == 0 and "bluetooth" in listed.stdout


def test_a_dangling_symlink_creates_its_target(tmp_path):
    target = tmp_path / "store" / "memory.db"
    target.parent.mkdir()
    link = tmp_path / "memory.db"
    link.symlink_to(target)
    EpisodicMemory(link).add_successful_plan(GOAL, PLAN)
    assert link.is_symlink() and target.read_bytes()[:6] == b"SQLite"


def test_a_symlinked_json_export_writes_through(tmp_path):
    target = tmp_path / "exports" / "team.json"
    target.parent.mkdir()
    target.write_text("[]")
    link = tmp_path / "export.json"
    link.symlink_to(target)
    mem = EpisodicMemory(tmp_path / "mem.db")
    mem.add_successful_plan(GOAL, PLAN)
    assert memory_review.main(["--memory", str(mem.path), "export", str(link), "--force"]) == 0
    assert link.is_symlink() and len(json.loads(target.read_text())["entries"]) == 1


# --- damaged, foreign, newer ---------------------------------------------------------------------


def _damaged_sqlite(path: Path) -> None:
    mem = EpisodicMemory(path)
    for i in range(40):
        word = "".join(chr(ord("a") + int(c)) for c in str(i))
        mem.add_successful_plan(f"Water the {word} plant.", ["Find it " + "x" * 400])
    mem.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(path.read_bytes())
    page = 4096
    data[page : page * 3] = b"\xff" * (page * 2)  # garbage over the schema's pages
    path.write_bytes(bytes(data))


def _foreign_sqlite(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE contacts (name TEXT)")
    conn.commit()
    conn.close()


def _newer_sqlite(path: Path) -> None:
    mem = EpisodicMemory(path)
    mem.add_successful_plan(GOAL, PLAN)
    mem.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # all in the main file before the snapshot
    conn.close()


CASES = {
    # A NUL first: random bytes can start like JSON ("{" or "[") about 1 time in 100.
    "garbage": ("memory.db", lambda p: p.write_bytes(b"\0" + os.urandom(3000)), "neither"),
    "truncated json": (
        "memory.json",
        lambda p: p.write_text('{"schema_version": 1, "entries": ['),
        "not valid JSON",
    ),
    "newer json": (
        "memory.json",
        lambda p: p.write_text(json.dumps({"schema_version": 99, "entries": []})),
        "newer Celil",
    ),
    "foreign json": (
        "memory.json",
        lambda p: p.write_text('{"hello": 3}'),
        "not an episodic memory",
    ),
    "damaged sqlite": ("memory.db", _damaged_sqlite, "damaged"),
    "foreign sqlite": ("memory.db", _foreign_sqlite, "not a Celil memory"),
    "newer sqlite": ("memory.db", _newer_sqlite, "newer Celil"),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.slow
def test_a_damaged_foreign_or_newer_file_is_one_line_and_loses_nothing(tmp_path, case):
    name, make, words = CASES[case]
    path = tmp_path / name
    make(path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}

    with pytest.raises(EpisodicMemoryError) as info:
        mem = EpisodicMemory(path)
        mem.check()
        mem.entries(strict=True)
    assert words in str(info.value)
    _one_line(str(info.value))
    # The agent's own calls never raise: a warning, and nothing written.
    try:
        mem = EpisodicMemory(path)
    except EpisodicMemoryError:
        pass
    else:
        assert mem.find_similar_task(GOAL) is None
        assert mem.add_successful_plan(GOAL, PLAN) == ""
        assert mem.warnings
    for argv in (["list"], ["stats"], ["pin", "abc"]):
        result = _review("--memory", str(path), *argv)
        assert result.returncode == 2, (argv, result.stdout, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert [line for line in lines if not line.startswith("memory: ")] == [
            next(line for line in lines if line.startswith("error: "))
        ], result.stderr
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    assert _user_files(after) == _user_files(before)  # nothing renamed, rewritten or deleted


def _user_files(files: dict[str, bytes]) -> dict[str, bytes]:
    """SQLite's own side files (-wal, -shm) come and go with connections; the rest is data."""
    return {k: v for k, v in files.items() if not k.endswith(("-wal", "-shm"))}


def test_a_corrupt_error_is_a_memory_error():
    assert issubclass(CorruptMemoryError, EpisodicMemoryError)
    assert issubclass(MemoryPathError, EpisodicMemoryError)


def test_the_mount_type_of_a_path_is_its_longest_mount_point():
    from android_world.agents.custom.memory.celil_episodic_store import mount_type

    mounts = (
        "/dev/vda / ext4 rw 0 0\n"
        "server:/export /mnt/shared nfs4 rw 0 0\n"
        "/dev/vdb /mnt/shared/local ext4 rw 0 0\n"
        "//host/share /mnt/my\\040share cifs rw 0 0\n"
    )
    assert mount_type(Path("/mnt/shared/runs/m.db"), mounts) == "nfs4"
    assert mount_type(Path("/mnt/shared/local/m.db"), mounts) == "ext4"
    assert mount_type(Path("/mnt/sharedx/m.db"), mounts) == "ext4"
    assert mount_type(Path("/mnt/my share/m.db"), mounts) == "cifs"
