"""Records facts about upstream AndroidWorld's task suite as JSON: the draws and the templates.

Run with upstream's Python (tests/upstream/fetch_upstream.sh builds one in .cache/upstream/venv),
from a checkout of upstream, no device needed:

    cd .cache/upstream/android_world && PYTHONPATH=. ../venv/bin/python /path/to/record_upstream.py \\
        --draws /path/to/tests/fixtures/upstream_draws.json \\
        --facts /path/to/tests/fixtures/upstream_facts.json

`python -m android_world.task_evals.fidelity --upstream CHECKOUT` runs it for you.

What it writes is values only, never upstream's code:

- draws: for each seed and instance, upstream's own `suite_utils.create_suite` builds every
  template of the `android_world` family (its seeding: one `random.seed` per instance from a hash of
  seed, name and index); each instance's params and goal are written as JSON. Objects upstream
  keeps in params are written as `{"__type__": <class>, <field>: <value>...}` with only the fields
  that differ from the class's defaults (the defaults are written once, under `row_defaults`);
  images as their size, mode and a digest of their pixels.
- facts: for each template its module, apps, complexity, schema, goal template and the metadata of
  upstream's task_metadata.json; and every module-level pool (a list, tuple, set or dict of plain
  values) of upstream's task modules, for the pool comparison.

Only the standard library and upstream are imported here: this file must not depend on the
harness (it runs in upstream's environment).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import enum
import hashlib
import importlib
import inspect
import json
import os
import pkgutil
import random
import subprocess
import sys
import time
from typing import Any

FORMAT_VERSION = 1
DEFAULT_SEEDS = (0, 1, 30)  # 30: upstream run.py's default --task_random_seed
DEFAULT_INSTANCES = 3
FAMILY = "android_world"
FULL_ROWS = False  # --rows: write set-up rows in full instead of their digest


def _type_name(value: Any) -> str:
    return type(value).__name__


def _image_fact(image: Any) -> dict[str, Any]:
    return {
        "__type__": "PIL.Image",
        "size": list(image.size),
        "mode": image.mode,
        "sha256": hashlib.sha256(image.tobytes()).hexdigest()[:16],
    }


class Encoder:
    """Plain JSON for upstream's parameter values, remembering each row class's defaults."""

    def __init__(self) -> None:
        self.row_defaults: dict[str, dict[str, Any]] = {}

    def _defaults(self, value: Any) -> dict[str, Any]:
        name = _type_name(value)
        if name not in self.row_defaults:
            found: dict[str, Any] = {}
            for field in dataclasses.fields(value):
                if field.default is not dataclasses.MISSING:
                    found[field.name] = self.encode(field.default)
                elif field.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
                    found[field.name] = self.encode(field.default_factory())  # type: ignore[misc]
            self.row_defaults[name] = found
        return self.row_defaults[name]

    def encode(self, value: Any) -> Any:
        if value is None or isinstance(value, bool | int | str):
            return value
        if isinstance(value, float):
            return value if value == value and abs(value) != float("inf") else repr(value)
        if isinstance(value, enum.Enum):
            return self.encode(value.value)
        if isinstance(value, dict):
            return {str(k): self.encode(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.encode(v) for v in value]
        if isinstance(value, set | frozenset):
            return sorted((self.encode(v) for v in value), key=repr)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            defaults = self._defaults(value)
            row: dict[str, Any] = {"__type__": _type_name(value)}
            for field in dataclasses.fields(value):
                encoded = self.encode(getattr(value, field.name))
                if field.name not in defaults or defaults[field.name] != encoded:
                    row[field.name] = encoded
            return row
        if isinstance(value, datetime.datetime | datetime.date | datetime.time):
            return {"__type__": _type_name(value), "iso": value.isoformat()}
        if hasattr(value, "tobytes") and hasattr(value, "size") and hasattr(value, "mode"):
            return _image_fact(value)
        if hasattr(value, "DESCRIPTOR"):  # a protocol buffer
            from google.protobuf import json_format

            return {"__type__": _type_name(value), **json_format.MessageToDict(value)}
        return {"__type__": _type_name(value), "repr": repr(value)}


def _goal(task: Any) -> str | None:
    try:
        return str(task.goal)
    except Exception as exc:  # a goal that needs a device
        return f"<no goal: {type(exc).__name__}>"


class _Capture:
    """Stands in for the device while an information-retrieval task initialises: the rows its
    set-up would write are kept instead (upstream writes them over adb)."""

    def __init__(self) -> None:
        self.rows: list[Any] = []
        self.interaction_cache = ""
        self.controller = None

    def keep(self, rows: Any, *unused: Any, **unused_kw: Any) -> None:
        self.rows.extend(rows)


def _patched(target: Any, name: str, value: Any, saved: list[tuple[Any, str, Any]]) -> None:
    saved.append((target, name, getattr(target, name)))
    setattr(target, name, value)


def record_init(task: Any, encoder: Encoder) -> dict[str, Any] | None:
    """What an information-retrieval task's `initialize_task` draws (after upstream seeds
    `random` with the instance's seed): the params with the goal's date reworded, the goal, and
    the rows it would write; None for other tasks (their set-up needs a device)."""
    if not hasattr(type(task), "task_template"):
        return None
    from android_world.task_evals.information_retrieval import (
        activity_app_utils,
        calendar_utils,
        task_app_utils,
    )

    from android_world.task_evals import task_eval

    fake = _Capture()
    noop = lambda *args, **kwargs: None  # noqa: E731
    saved: list[tuple[Any, str, Any]] = []
    try:
        _patched(task_eval.TaskEval, "initialize_device_time", noop, saved)
        _patched(task_eval.TaskEval, "_initialize_apps", noop, saved)
        _patched(calendar_utils.utils, "clear_calendar_db", noop, saved)
        _patched(calendar_utils.utils, "add_events", fake.keep, saved)
        _patched(task_app_utils, "clear_task_db", noop, saved)
        _patched(task_app_utils, "add_tasks", fake.keep, saved)
        _patched(activity_app_utils, "clear_db", noop, saved)
        _patched(activity_app_utils, "_add_activities", fake.keep, saved)
        try:
            task.initialize_task(fake)
        except Exception as exc:  # e.g. Joplin's set-up reads the device: rows unknown
            return {"error": f"{type(exc).__name__}", "params": encoder.encode(task.params)}
    finally:
        for target, name, value in reversed(saved):
            setattr(target, name, value)
    rows = [
        {k: v for k, v in row.items() if k not in UNSEEDED_FIELDS} if isinstance(row, dict) else row
        for row in encoder.encode(fake.rows)
    ]
    return {
        "params": encoder.encode(task.params),
        "goal": _goal(task),
        "rows": rows if FULL_ROWS else rows_digest(rows),
    }


# Row fields upstream fills from outside `random` (Tasks' sync id and OpenTracks' track uuid are
# uuid4s): not facts of a seed, so left out of the rows and their digest.
UNSEEDED_FIELDS = ("remoteId", "uuid")


def rows_digest(rows: list[Any]) -> dict[str, Any]:
    """The rows' count and a digest of their canonical JSON (sorted keys, no spaces): the
    rows themselves would make the fixture ten times larger (`--rows` keeps them)."""
    canonical = json.dumps(rows, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return {"count": len(rows), "sha256": hashlib.sha256(canonical.encode()).hexdigest()[:16]}


def record_draws(
    registry: dict[str, Any], seeds: list[int], instances: int, encoder: Encoder
) -> dict[str, Any]:
    from android_world import suite_utils

    by_seed: dict[str, Any] = {}
    for seed in seeds:
        suite = suite_utils.create_suite(registry, n_task_combinations=instances, seed=seed)
        time.sleep(1.1)  # a draw that reads the wall clock (to the second) then differs
        again = suite_utils.create_suite(registry, n_task_combinations=instances, seed=seed)
        tasks: dict[str, Any] = {}
        for name, made in suite.items():
            rows = []
            for task, twin in zip(made, again[name], strict=True):
                params = encoder.encode(task.params)
                row = {
                    "params": params,
                    "goal": _goal(task),
                    "deterministic": params == encoder.encode(twin.params),
                }
                init = record_init(task, encoder)
                if init is not None:
                    row["init"] = init
                rows.append(row)
            tasks[name] = rows
        by_seed[str(seed)] = tasks
    return by_seed


def _is_pool(value: Any) -> bool:
    plain = (str, int, float)
    if isinstance(value, list | tuple | set | frozenset):
        return len(value) >= 2 and all(isinstance(v, plain) for v in value)
    if isinstance(value, dict) and len(value) >= 2:
        return all(
            isinstance(k, plain)
            and (
                isinstance(v, plain)
                or (isinstance(v, list | tuple) and all(isinstance(x, plain) for x in v))
            )
            for k, v in value.items()
        )
    return False


def record_pools(encoder: Encoder) -> dict[str, Any]:
    """Module-level pools of upstream's task modules: `module:NAME` -> the values, in order."""
    import android_world.task_evals as package

    pools: dict[str, Any] = {}
    prefix = package.__name__ + "."
    for info in pkgutil.walk_packages(package.__path__, prefix):
        short = info.name[len(prefix) :]
        if short.endswith("_test") or "miniwob" in short or "robustness" in short:
            continue
        try:
            module = importlib.import_module(info.name)
        except Exception:  # a module that needs what this environment lacks
            continue
        for attr, value in vars(module).items():
            if attr.startswith("__") or inspect.ismodule(value) or not _is_pool(value):
                continue
            if isinstance(value, set | frozenset):
                value = sorted(value, key=repr)
            pools[f"{short}:{attr}"] = encoder.encode(value)
    return dict(sorted(pools.items()))


def _metadata(checkout: str) -> dict[str, Any]:
    path = os.path.join(checkout, "android_world", "task_metadata.json")
    with open(path, encoding="utf-8") as handle:
        rows = json.load(handle)
    return {row["task_name"]: {k: v for k, v in row.items() if k != "task_name"} for row in rows}


def _module_of(cls: type) -> str:
    if isinstance(getattr(cls, "task_template", None), property):  # built from the textproto
        return "information_retrieval/proto/tasks.textproto"
    return cls.__module__.removeprefix("android_world.task_evals.").replace(".", "/") + ".py"


def record_facts(registry: dict[str, Any], checkout: str, encoder: Encoder) -> dict[str, Any]:
    metadata = _metadata(checkout)
    templates: dict[str, Any] = {}
    for name, cls in sorted(registry.items()):
        try:
            schema = encoder.encode(cls.schema)
        except Exception as exc:
            schema = {"__error__": type(exc).__name__}
        template = getattr(cls, "template", None)
        proto = getattr(cls, "task_template", None)
        complexity = encoder.encode(cls.complexity)
        class_complexity = None
        if isinstance(proto, property):  # information retrieval: the textproto's task
            task = proto.fget(None)
            template = task.prompt
            pools = {p.name: list(p.possible_values) for p in task.task_params}
            # An instance takes the textproto's complexity (what its step budget uses); the
            # registry's override stays on the class only.
            class_complexity, complexity = complexity, encoder.encode(task.complexity)
        else:
            pools = None
        templates[name] = {
            "module": _module_of(cls),
            "app_names": encoder.encode(getattr(cls, "app_names", ())),
            "complexity": complexity,
            "schema": schema,
            "template": template if isinstance(template, str) else None,
            "metadata": metadata.get(name),
        }
        if pools is not None:
            templates[name]["param_pools"] = pools
        if class_complexity is not None and class_complexity != complexity:
            templates[name]["class_complexity"] = class_complexity
    return templates


def _commit(checkout: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", checkout, "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        return done.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _dumps(value: Any, depth: int, indent: int = 0) -> str:
    """JSON with one line per value below `depth` levels: diffs stay readable, the file small."""
    if depth <= 0 or not isinstance(value, dict) or not value:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    pad = " " * (indent + 1)
    items = [
        f"{pad}{json.dumps(key)}: {_dumps(item, depth - 1, indent + 1)}"
        for key, item in value.items()
    ]
    return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"


def _write(path: str, data: dict[str, Any], depth: int) -> None:
    text = _dumps(data, depth) + "\n"
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    partial = path + ".partial"
    with open(partial, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(partial, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--draws", required=True, help="where the draws JSON goes")
    parser.add_argument("--facts", required=True, help="where the templates' facts JSON goes")
    parser.add_argument("--seeds", default=",".join(map(str, DEFAULT_SEEDS)))
    parser.add_argument("--instances", type=int, default=DEFAULT_INSTANCES)
    parser.add_argument("--rows", action="store_true", help="set-up rows in full (debugging)")
    args = parser.parse_args(argv)
    global FULL_ROWS
    FULL_ROWS = args.rows
    checkout = os.getcwd()
    if not os.path.isfile(os.path.join(checkout, "android_world", "registry.py")):
        print(
            f"{checkout} is not an upstream AndroidWorld checkout (run from one)", file=sys.stderr
        )
        return 2
    from android_world import registry as registry_lib

    registry = registry_lib.TaskRegistry().get_registry(FAMILY)
    commit = _commit(checkout)
    encoder = Encoder()
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    state = random.getstate()
    draws = record_draws(registry, seeds, args.instances, encoder)
    random.setstate(state)
    facts = record_facts(registry, checkout, encoder)
    pools = record_pools(encoder)
    source = {"repo": "google-research/android_world", "commit": commit, "family": FAMILY}
    _write(
        args.draws,
        {
            "format": FORMAT_VERSION,
            "source": source,
            "seeds": seeds,
            "instances": args.instances,
            "row_defaults": dict(sorted(encoder.row_defaults.items())),
            "draws": draws,
        },
        depth=3,
    )
    _write(
        args.facts,
        {"format": FORMAT_VERSION, "source": source, "templates": facts, "pools": pools},
        depth=2,
    )
    print(
        f"recorded {len(registry)} templates x {len(seeds)} seeds x {args.instances} instances "
        f"from {commit[:12]}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
