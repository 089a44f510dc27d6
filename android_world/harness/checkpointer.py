"""Saves each finished episode as soon as it ends, so a killed run resumes without redoing it.

Each episode is one JSON file `<Task>_<i>.json`, written to a temporary file and moved into place
with `os.replace`, so a reader sees either the old file or the new one, never half of one.
Episodes therefore must be JSON-serialisable (see `to_jsonable`, from `jsonable`). Given
`upstream_dir`, the same episode is also written in upstream's format (`<Task>_<i>.pkl.gz`, see
`upstream_checkpoints`) and episodes found only there (an upstream run) are loaded too: a pickle
is read only from the directory the caller names.
"""

from __future__ import annotations

import abc
import datetime
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from android_world.agents.custom.celil_secrets import redact
from android_world.harness import upstream_checkpoints
from android_world.harness.jsonable import to_jsonable

INSTANCE_SEPARATOR = "_"
Episode = dict[str, Any]
_SUFFIX = ".json"


def _process_umask() -> int:
    # Read once at import, while nothing else runs: os.umask can only be read by setting it.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# mkstemp creates 0600 files; results and reports are meant to be read like any other file.
_FILE_MODE = 0o666 & ~_process_umask()


def write_text_atomic(path: str | os.PathLike[str], text: str, durable: bool = True) -> None:
    """Write via a temp file in the same directory + os.replace (atomic on POSIX).

    Every run file goes through here (results, checkpoints, manifest, episode files, reports), so
    this is where the one redaction (celil_secrets) keeps URL credentials and keys out of them.

    The rename alone makes the write atomic for readers and against a killed process: the new
    file is whole or absent. `durable` adds an fsync before it (~8 ms a file on this project's
    disks), so the file also survives a power cut or an OS crash. Records that exist nowhere
    else keep it (checkpoints, manifest, config, an episode's own files); files rebuilt from
    the checkpoints on every resume and at the run's end (results.jsonl, summary.csv, the
    report pages) pass `durable=False`: after a crash they are stale at worst, never half."""
    text = redact(text)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, _FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_json_atomic(path: str | os.PathLike[str], obj: Any, durable: bool = True) -> None:
    write_text_atomic(
        path, json.dumps(to_jsonable(obj), indent=1, allow_nan=False) + "\n", durable=durable
    )


def read_json_object(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A run's JSON record (manifest.json) as a dict; missing, damaged or hand-edited into
    something else, it reads as empty, so a resume starts that record afresh instead of stopping."""
    try:
        loaded = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


class Checkpointer(abc.ABC):
    """Where finished episodes go and come back from."""

    @abc.abstractmethod
    def save_episodes(self, task_episodes: list[Episode], task_name: str) -> None:
        """Save the episodes of one task instance (`task_name` is `<Task>_<i>`)."""

    @abc.abstractmethod
    def load(self, fields: list[str] | None = None) -> list[Episode]:
        """Every saved episode, optionally projected to `fields`."""


class NullCheckpointer(Checkpointer):
    """Keeps nothing: for runs that need no resume."""

    def save_episodes(self, task_episodes: list[Episode], task_name: str) -> None:
        del task_episodes, task_name

    def load(self, fields: list[str] | None = None) -> list[Episode]:
        del fields
        return []


def _instance_sort_key(stem: str) -> tuple[str, int]:
    name, _, num = stem.rpartition(INSTANCE_SEPARATOR)
    return (name, int(num)) if num.isdigit() else (stem, -1)


class IncrementalCheckpointer(Checkpointer):
    """One JSON file per task instance in `directory`; saving again replaces that instance.

    With `upstream_dir`, each save also writes upstream's `<Task>_<i>.pkl.gz` there, and `load`
    adds the episodes of upstream's files whose instance has no JSON file (an upstream run being
    resumed or reported)."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        upstream_dir: str | os.PathLike[str] | None = None,
    ):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.upstream_dir = Path(upstream_dir) if upstream_dir is not None else None

    def path_for(self, task_name: str) -> Path:
        return self.directory / f"{task_name}{_SUFFIX}"

    def save_episodes(self, task_episodes: list[Episode], task_name: str) -> None:
        write_json_atomic(self.path_for(task_name), {"episodes": task_episodes})
        if self.upstream_dir is not None:
            upstream_checkpoints.write_episodes(self.upstream_dir, task_episodes, task_name)

    def load(self, fields: list[str] | None = None) -> list[Episode]:
        """Files that cannot be read (e.g. foreign files) are skipped, as upstream does."""
        episodes = self._load_json(fields)
        if self.upstream_dir is None:
            return episodes
        have = {ep.get("name") for ep in self._load_json(["name"])}
        for upstream in upstream_checkpoints.read_episodes(self.upstream_dir, skip=have):
            episode = upstream_checkpoints.to_ours(upstream)
            if episode["name"] in have:
                continue
            if fields is not None:
                episode = {k: episode[k] for k in fields if k in episode}
            episodes.append(episode)
        return episodes

    def _load_json(self, fields: list[str] | None) -> list[Episode]:
        episodes: list[Episode] = []
        files = [p for p in self.directory.glob(f"*{_SUFFIX}") if not p.name.startswith(".")]
        for path in sorted(files, key=lambda p: _instance_sort_key(p.stem)):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                loaded = data["episodes"]
            except (OSError, ValueError, KeyError, TypeError):
                continue
            for episode in loaded:
                if not isinstance(episode, dict):
                    continue
                if fields is not None:
                    episode = {k: episode[k] for k in fields if k in episode}
                episodes.append(episode)
        return episodes


def create_run_directory(location: str | os.PathLike[str]) -> Path:
    """`location/run_<YYYYmmddTHHMMSSffffff>` (created)."""
    stamp = datetime.datetime.now().strftime("%Y%m%dT%H%M%S%f")
    path = Path(location).expanduser() / f"run_{stamp}"
    path.mkdir(parents=True, exist_ok=False)
    return path
