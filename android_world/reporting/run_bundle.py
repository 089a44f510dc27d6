"""One shareable archive of a run: `python -m android_world.reporting.report RUN --bundle`.

A number someone else can check needs the config it ran with, the manifest (versions, seeds,
observation mode, image size, step budgets, prompt hashes), the per-episode results and the
trajectories. The bundle holds exactly those text files, as `<run name>/...` in a tar.gz:

    config.yaml, manifest.json, results.jsonl, summary.csv, summary_by_tag.csv,
    episodes/<Task>_<i>/{episode.json, feedback.jsonl, summary.json}

Screenshots, pages, checkpoints (pickles) and the episodic memory database stay out: the first
two are rebuilt by `python -m android_world.reporting.report` on the unpacked folder, the rest are binary
and cannot be checked for secrets. Every file passes the project's one redaction
(`celil_secrets`): secret-named keys in JSON and YAML, URL credentials, key-shaped strings and
the keys this process knows from the environment. The archive is written atomically.
"""

from __future__ import annotations

import io
import json
import os
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from android_world.agents.custom.celil_secrets import redact, redact_value

RUN_FILES = (
    "config.yaml",
    "manifest.json",
    "results.jsonl",
    "summary.csv",
    "summary_by_tag.csv",
)
EPISODE_FILES = ("episode.json", "feedback.jsonl", "summary.json")


def bundle_files(run_dir: Path) -> Iterator[tuple[str, Path]]:
    """(name inside the run, path) of every file the bundle holds, in a stable order."""
    for name in RUN_FILES:
        if (run_dir / name).is_file():
            yield name, run_dir / name
    episodes = run_dir / "episodes"
    if not episodes.is_dir():
        return
    for folder in sorted(p for p in episodes.iterdir() if p.is_dir()):
        for name in EPISODE_FILES:
            if (folder / name).is_file():
                yield f"episodes/{folder.name}/{name}", folder / name


def clean_text(name: str, text: str) -> str:
    """`text` with secrets removed; a file with nothing to remove keeps its exact bytes."""
    if name.endswith(".json"):
        return _clean_structured(text, json.loads, _dump_json)
    if name.endswith(".jsonl"):
        lines = text.splitlines(keepends=True)
        return "".join(_clean_structured(line, json.loads, _dump_json_line) for line in lines)
    if name.endswith((".yaml", ".yml")):
        return _clean_structured(text, yaml.safe_load, _dump_yaml)
    return redact(text)


def _clean_structured(text: str, load: Any, dump: Any) -> str:
    try:
        value = load(text)
    except (ValueError, yaml.YAMLError):
        return redact(text)  # not parseable (a line cut by a kill): the text rules still apply
    if value is None:
        return redact(text)
    cleaned = redact_value(value)
    return text if cleaned == value else dump(cleaned, text)


def _dump_json(value: Any, _original: str) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False) + "\n"


def _dump_json_line(value: Any, original: str) -> str:
    return json.dumps(value, ensure_ascii=False) + ("\n" if original.endswith("\n") else "")


def _dump_yaml(value: Any, _original: str) -> str:
    return yaml.safe_dump(value, sort_keys=False, default_flow_style=False)


def write_bundle(run_dir: Path, out: Path | None = None) -> tuple[Path, int]:
    """Write `out` (default ./<run name>.tar.gz); returns it and the number of files packed."""
    run_dir = Path(run_dir)
    target = out or Path(f"{run_dir.resolve().name}.tar.gz")
    root = run_dir.resolve().name
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    count = 0
    try:
        with os.fdopen(fd, "wb") as handle, tarfile.open(fileobj=handle, mode="w:gz") as tar:
            for name, path in bundle_files(run_dir):
                text = path.read_text(encoding="utf-8", errors="replace")
                data = clean_text(name, text).encode("utf-8")
                info = tarfile.TarInfo(f"{root}/{name}")
                info.size = len(data)
                info.mtime = int(path.stat().st_mtime)
                info.mode = 0o644
                tar.addfile(info, io.BytesIO(data))
                count += 1
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target, count
