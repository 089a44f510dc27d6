"""JSON checkpoints: atomic, per instance, replaceable, no pickles."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re

import numpy as np

from android_world.harness import checkpointer


def test_save_load_roundtrip_sorted_by_instance_number(tmp_path):
    ckpt = checkpointer.IncrementalCheckpointer(tmp_path / "c")
    for i in (10, 2, 1):
        ckpt.save_episodes([{"name": f"Task_{i}", "score": i}], f"Task_{i}")
    ckpt.save_episodes([{"name": "Alpha_0", "score": 0}], "Alpha_0")
    assert [e["name"] for e in ckpt.load()] == ["Alpha_0", "Task_1", "Task_2", "Task_10"]
    assert ckpt.load(fields=["score"])[1] == {"score": 1}
    files = sorted(p.name for p in (tmp_path / "c").iterdir())
    assert files == ["Alpha_0.json", "Task_1.json", "Task_10.json", "Task_2.json"]


def test_saving_again_replaces_the_instance(tmp_path):
    ckpt = checkpointer.IncrementalCheckpointer(tmp_path)
    ckpt.save_episodes([{"name": "T_0", "error": "boom"}], "T_0")
    ckpt.save_episodes([{"name": "T_0", "error": None}], "T_0")
    assert ckpt.load() == [{"name": "T_0", "error": None}]


def test_unreadable_files_are_skipped(tmp_path):
    ckpt = checkpointer.IncrementalCheckpointer(tmp_path)
    ckpt.save_episodes([{"name": "T_0"}], "T_0")
    (tmp_path / "T_1.json").write_text("{not json")
    (tmp_path / "T_2.json").write_text('{"other": 1}')
    assert ckpt.load() == [{"name": "T_0"}]


def test_to_jsonable_drops_arrays_and_nan():
    @dataclasses.dataclass
    class D:
        x: int

    value = {
        "img": np.zeros((2, 3, 3), dtype=np.uint8),
        "scalar": np.float32(1.5),
        "nan": math.nan,
        "d": D(3),
        "t": (1, 2),
    }
    out = checkpointer.to_jsonable(value)
    json.dumps(out, allow_nan=False)
    assert out["img"].startswith("<array shape=(2, 3, 3)")
    assert out == out | {"scalar": 1.5, "nan": None, "d": {"x": 3}, "t": [1, 2]}


def test_atomic_write_leaves_no_temp_files(tmp_path):
    path = tmp_path / "x.json"
    checkpointer.write_json_atomic(path, {"a": 1})
    checkpointer.write_json_atomic(path, {"a": 2})
    assert json.loads(path.read_text()) == {"a": 2}
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


def test_null_checkpointer_keeps_nothing():
    ckpt = checkpointer.NullCheckpointer()
    ckpt.save_episodes([{"a": 1}], "T_0")
    assert ckpt.load() == []


def test_create_run_directory_name(tmp_path):
    path = checkpointer.create_run_directory(tmp_path / "runs")
    assert path.is_dir() and re.fullmatch(r"run_\d{8}T\d{12}", path.name)


def test_atomic_writes_get_the_usual_file_mode_not_mkstemps_0600(tmp_path):
    target = tmp_path / "results.jsonl"
    checkpointer.write_text_atomic(target, "x\n")
    mask = os.umask(0o022)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask


def _count_fsyncs(monkeypatch) -> list[int]:
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    return synced


def test_records_are_fsynced_and_files_rebuilt_from_them_are_only_renamed(tmp_path, monkeypatch):
    synced = _count_fsyncs(monkeypatch)
    ckpt = checkpointer.IncrementalCheckpointer(tmp_path / "checkpoints")
    ckpt.save_episodes([{"name": "T_0"}], "T_0")
    assert len(synced) == 1  # the checkpoint exists nowhere else
    from android_world.harness import run_output

    run_output.write_results_jsonl(tmp_path / "results.jsonl", [{"name": "T_0"}])
    checkpointer.write_text_atomic(tmp_path / "page.html", "<p>old</p>", durable=False)
    checkpointer.write_text_atomic(tmp_path / "page.html", "<p>new</p>", durable=False)
    assert len(synced) == 1
    assert (tmp_path / "page.html").read_text() == "<p>new</p>"
    assert json.loads((tmp_path / "results.jsonl").read_text())["name"] == "T_0"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "checkpoints",
        "page.html",
        "results.jsonl",
    ]


def test_the_sims_databases_commit_without_waiting_for_the_disk(tmp_path):
    from android_world.env.sim.controller import SimController

    controller = SimController.__new__(SimController)  # only the path mapping is needed
    controller.host_path = lambda path: tmp_path / path.lstrip("/")
    with controller._connect("/data/x.db") as conn:
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 0  # OFF
    conn.close()
