"""Upstream AndroidWorld's checkpoint format, both ways.

Upstream's `IncrementalCheckpointer` keeps one file per task instance, `<Task>_<i>.pkl.gz`: a
gzip'd pickle of a list of episode dicts with upstream's keys (`constants.EpisodeConstants`:
goal, task_template, instance_id, is_successful, episode_length, run_time, finish_dtime,
exception_info, aux_data, screen_config, seed, agent_name, episode_data). A run of ours writes
these beside its own JSON (in the run directory itself, where upstream's run.py writes them), so
upstream's checkpointer and tooling load our runs; and our report, compare and resume read a
directory of upstream's.

The pickles we write hold builtins only (str, numbers, None, lists, dicts, datetime): upstream
unpickles them without this package. Reading goes through `SafeUnpickler`, which builds only
plain values, datetimes, numpy arrays and scalars, and turns any other class named in the file
into an inert `Foreign` record instead of importing it, so a pickle cannot run code. Even so, a
pickle is read only from a directory the user names (`--checkpoint_dir`, a report's run
directory), never from one found by searching.
"""

from __future__ import annotations

import datetime
import gzip
import io
import math
import os
import pickle
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from android_world.harness.jsonable import to_jsonable

SUFFIX = ".pkl.gz"
INSTANCE_SEPARATOR = "_"
# Upstream's episode keys (android_world/constants.py, EpisodeConstants).
EPISODE_KEYS = (
    "goal",
    "task_template",
    "instance_id",
    "is_successful",
    "episode_length",
    "run_time",
    "finish_dtime",
    "exception_info",
    "aux_data",
    "screen_config",
    "seed",
    "agent_name",
    "episode_data",
)
# What upstream's `_get_screen_config` gives a task without its own screen attributes.
DEFAULT_SCREEN_CONFIG = {
    "width": 1080,
    "height": 2400,
    "orientation": "portrait",
    "config_name": "default",
}


# ---- writing --------------------------------------------------------------------------------


def _builtin(value: Any) -> Any:
    """A copy made of builtins only (plus datetime), so upstream unpickles it without us."""
    if value is None or isinstance(value, bool | int | float | str | bytes):
        return value
    if isinstance(value, datetime.datetime | datetime.date):
        return value
    if isinstance(value, Mapping):
        return {str(k): _builtin(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_builtin(v) for v in value]
    return to_jsonable(value)


def _finish_time(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return datetime.datetime.fromisoformat(value)
        except ValueError:
            return value
    return value


def _nan_if_none(value: Any) -> Any:
    return math.nan if value is None else value


def upstream_episode(episode: Mapping[str, Any]) -> dict[str, Any]:
    """One of our episodes with upstream's keys and types: a failed episode's score, length and
    steps are NaN (upstream's `_create_failed_result`), the finish time a datetime. Our own keys
    ride along (upstream's tooling ignores what it does not know)."""
    failed = episode.get("exception_info") is not None or episode.get("error") is not None
    exception = episode.get("exception_info") or episode.get("error")
    shaped: dict[str, Any] = {k: _builtin(v) for k, v in episode.items()}
    shaped.update(
        goal=episode.get("goal"),
        task_template=episode.get("task_template"),
        instance_id=episode.get("instance_id"),
        is_successful=math.nan if failed else _nan_if_none(episode.get("is_successful")),
        episode_length=math.nan if failed else _nan_if_none(episode.get("episode_length")),
        run_time=episode.get("run_time"),
        finish_dtime=_finish_time(episode.get("finish_dtime")),
        exception_info=None if exception is None else str(exception),
        aux_data=_builtin(episode.get("aux_data")),
        screen_config=_builtin(episode.get("screen_config") or DEFAULT_SCREEN_CONFIG),
        seed=episode.get("seed"),
        agent_name=episode.get("agent_name"),
        episode_data=math.nan if failed else _builtin(episode.get("episode_data")),
    )
    return shaped


def gzip_pickle(data: Any) -> bytes:
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=5) as out:
        out.write(pickle.dumps(data, protocol=4))
    return buffer.getvalue()


def write_episodes(
    directory: str | os.PathLike[str], episodes: Iterable[Mapping[str, Any]], task_name: str
) -> Path:
    """`<directory>/<task_name>.pkl.gz` with the episodes in upstream's shape, written
    atomically (upstream writes in place; a reader never sees half a file here)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{task_name}{SUFFIX}"
    data = gzip_pickle([upstream_episode(ep) for ep in episodes])
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# ---- reading --------------------------------------------------------------------------------


class Foreign:
    """A class a pickle names that is not plain data: kept as its name and state, never
    imported or run."""

    module = ""
    name = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args
        self.state: Any = kwargs or None

    def __setstate__(self, state: Any) -> None:
        self.state = state

    def __repr__(self) -> str:
        return f"<{self.module}.{self.name}>"


def _foreign(module: str, name: str) -> type[Foreign]:
    return type(name, (Foreign,), {"module": module, "name": name})


_SAFE_GLOBALS = {
    ("builtins", "set"),
    ("builtins", "frozenset"),
    ("builtins", "complex"),
    ("builtins", "slice"),
    ("builtins", "range"),
    ("builtins", "bytearray"),
    ("collections", "OrderedDict"),
    ("datetime", "datetime"),
    ("datetime", "date"),
    ("datetime", "time"),
    ("datetime", "timedelta"),
    ("datetime", "timezone"),
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"),
}


class SafeUnpickler(pickle.Unpickler):
    """Builds plain values, datetimes and numpy data; any other class becomes `Foreign`."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _SAFE_GLOBALS:
            if module.startswith("numpy"):
                import numpy  # numpy's own pickles: arrays and scalars

                if module == "numpy":
                    return getattr(numpy, name)
                core = getattr(numpy, "_core", None) or numpy.core
                return getattr(core.multiarray, name)
            return super().find_class(module, name)
        return _foreign(module, name)


def read_file(path: str | os.PathLike[str]) -> Any:
    with gzip.open(path, "rb") as handle:
        return SafeUnpickler(io.BytesIO(handle.read())).load()


def sort_key(filename: str) -> tuple[str, int]:
    """Upstream's order: by name, then by the instance number after the first separator."""
    name, sep, num = filename.partition(INSTANCE_SEPARATOR)
    if not sep:
        return (name, 0)
    try:
        return (name, int(num))
    except ValueError:
        return (name, 0)


def files_in(directory: str | os.PathLike[str]) -> list[Path]:
    directory = Path(directory)
    if not directory.is_dir():
        return []
    names = sorted(os.listdir(directory), key=sort_key)
    return [directory / n for n in names if n.endswith(SUFFIX) and not n.startswith(".")]


def has_checkpoints(directory: str | os.PathLike[str]) -> bool:
    return bool(files_in(directory))


def read_episodes(
    directory: str | os.PathLike[str],
    fields: list[str] | None = None,
    skip: Iterable[str] = (),
) -> list[dict[str, Any]]:
    """Upstream's `IncrementalCheckpointer.load`: every `*.pkl.gz` in upstream's order; a file
    that cannot be read, or lacks a requested field, is skipped whole, as upstream skips it.
    `skip`: instance names (`<Task>_<i>`) whose files are not read."""
    skipped = set(skip)
    episodes: list[dict[str, Any]] = []
    for path in files_in(directory):
        if path.name[: -len(SUFFIX)] in skipped:
            continue
        try:
            group = read_file(path)
            if not isinstance(group, list):
                continue
            rows = [ep for ep in group if isinstance(ep, dict)]
            if fields is not None:
                rows = [{f: ep[f] for f in fields} for ep in rows]
        except Exception:  # upstream logs and skips an unreadable file
            continue
        episodes.extend(rows)
    return episodes


def _none_if_nan(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _plain(value: Any) -> Any:
    return to_jsonable(value)


def to_ours(episode: Mapping[str, Any]) -> dict[str, Any]:
    """An upstream episode as ours: its instance name, NaN as missing, a failed one with its
    error's first line; step data as JSON-safe values (arrays described, not kept)."""
    template = str(episode.get("task_template") or "unknown")
    instance = episode.get("instance_id")
    instance = instance if isinstance(instance, int) else 0
    exception = episode.get("exception_info")
    exception = None if exception is None else str(exception)
    error = None
    if exception is not None:
        error = (exception.strip().splitlines() or ["exception"])[-1][:300]
    finish = episode.get("finish_dtime")
    ours: dict[str, Any] = {
        "name": f"{template}{INSTANCE_SEPARATOR}{instance}",
        "task_template": template,
        "instance_id": instance,
        "goal": episode.get("goal"),
        "is_successful": _none_if_nan(episode.get("is_successful")),
        "raw_score": _none_if_nan(episode.get("is_successful")),
        "done": None,
        "episode_length": _none_if_nan(episode.get("episode_length")),
        "run_time": _none_if_nan(episode.get("run_time")),
        "finish_dtime": finish.isoformat()
        if isinstance(finish, datetime.datetime)
        else _plain(finish),
        "exception_info": exception,
        "error": error,
        "seed": _plain(episode.get("seed")),
        "agent_name": _plain(episode.get("agent_name")),
        "aux_data": _plain(episode.get("aux_data")),
        "screen_config": _plain(episode.get("screen_config")),
        "source": "upstream",
    }
    if isinstance(ours["is_successful"], bool):
        ours["is_successful"] = float(ours["is_successful"])
    return ours
