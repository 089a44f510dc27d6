"""The background screenshot writer: same bytes, in order, bounded, flushed, atomic."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import harness_fakes as fakes
import numpy as np
import pytest
from PIL import Image

from android_world.harness import png_writer, run_output, suite_utils

ROOT = Path(__file__).resolve().parents[2]


def _frame(value: int, shape=(40, 30, 3)) -> np.ndarray:
    frame = np.full(shape, value, dtype=np.uint8)
    frame[0, 0] = (value * 7) % 256  # not a flat image: the filters have something to do
    frame.setflags(write=False)
    return frame


def test_files_have_the_bytes_of_the_step_path_encoding(tmp_path):
    writer = png_writer.PngWriter(cache_size=4)
    frames = [_frame(v) for v in (10, 200, 10, 10, 200)]
    for i, frame in enumerate(frames):
        writer.submit(frame, tmp_path / f"step_{i:03d}.png")
    assert writer.close() == {}
    for i, frame in enumerate(frames):
        direct = tmp_path / f"direct_{i}.png"
        run_output.save_png(frame, direct)
        assert (tmp_path / f"step_{i:03d}.png").read_bytes() == direct.read_bytes()
        assert np.array_equal(np.asarray(Image.open(direct)), frame)
    # The repeated frames were encoded once.
    assert (writer.cache.hits, writer.cache.misses) == (3, 2)


def test_a_read_only_frame_seen_before_is_not_hashed_again(tmp_path, monkeypatch):
    hashed: list[int] = []
    real_key = png_writer.frame_key
    monkeypatch.setattr(png_writer, "frame_key", lambda a: (hashed.append(id(a)), real_key(a))[1])
    cache = png_writer.EncodedCache(size=4)
    shown, other = _frame(10), _frame(200)
    equal_copy = shown.copy()  # same pixels, another object: hashed, then found by digest
    equal_copy.setflags(write=False)
    outputs = [cache.encoded(f) for f in (shown, other, shown, equal_copy, shown)]
    assert outputs[0] == outputs[2] == outputs[3] == outputs[4] == png_writer.encode_png(shown)
    assert hashed == [id(shown), id(other), id(equal_copy)]
    assert (cache.keys_reused, cache.hits, cache.misses) == (2, 3, 2)


def test_a_recycled_object_id_is_not_taken_for_the_frame_that_had_it():
    cache = png_writer.EncodedCache(size=4)
    first = _frame(10)
    encoded_first = cache.encoded(first)
    stale_id = id(first)
    del first  # its id may now be given to a new array with other pixels
    for value in range(20, 60):
        frame = _frame(value)
        data = cache.encoded(frame)
        assert data == png_writer.encode_png(frame)
        if id(frame) == stale_id:
            assert data != encoded_first
        del frame


def test_a_writable_frame_is_copied_so_later_changes_do_not_reach_the_file(tmp_path):
    writer = png_writer.PngWriter()
    gate = threading.Event()
    original_write = writer._write
    writer._write = lambda frame, path: (gate.wait(5), original_write(frame, path))[1]
    frame = np.zeros((8, 8, 3), dtype=np.uint8)
    writer.submit(frame, tmp_path / "a.png")
    frame[:] = 255  # the caller reuses its buffer before the file is written
    gate.set()
    writer.close()
    assert np.asarray(Image.open(tmp_path / "a.png")).max() == 0


def test_frames_are_written_in_submission_order(tmp_path):
    writer = png_writer.PngWriter()
    order: list[str] = []
    original_write = writer._write

    def slow_first(frame, path):
        if path.name == "step_000.png":
            time.sleep(0.2)
        original_write(frame, path)
        order.append(path.name)

    writer._write = slow_first
    names = [f"step_{i:03d}.png" for i in range(5)]
    for i, name in enumerate(names):
        writer.submit(_frame(i), tmp_path / name)
    writer.close()
    assert order == names


def test_submit_blocks_while_max_pending_frames_wait(tmp_path):
    writer = png_writer.PngWriter(max_pending=2)
    gate = threading.Event()
    original_write = writer._write
    writer._write = lambda frame, path: (gate.wait(5), original_write(frame, path))[1]
    writer.submit(_frame(1), tmp_path / "1.png")
    writer.submit(_frame(2), tmp_path / "2.png")
    third = threading.Thread(target=writer.submit, args=(_frame(3), tmp_path / "3.png"))
    third.start()
    third.join(0.3)
    assert third.is_alive()  # blocked: two frames are already waiting
    gate.set()
    third.join(5)
    assert not third.is_alive()
    assert writer.close() == {}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["1.png", "2.png", "3.png"]


def test_flush_reports_a_failed_write_and_the_others_land(tmp_path):
    writer = png_writer.PngWriter()
    writer.submit(_frame(1), tmp_path / "ok_1.png")
    writer.submit(_frame(2), tmp_path / "missing" / "bad.png")
    writer.submit(_frame(3), tmp_path / "ok_3.png")
    failed = writer.flush()
    assert list(failed) == [tmp_path / "missing" / "bad.png"]
    assert failed[tmp_path / "missing" / "bad.png"].startswith("FileNotFoundError")
    assert (tmp_path / "ok_1.png").exists() and (tmp_path / "ok_3.png").exists()
    assert writer.flush() == {}  # reported once
    writer.close()
    writer.close()  # twice is fine
    with pytest.raises(RuntimeError):
        writer.submit(_frame(4), tmp_path / "late.png")


def test_a_failed_write_leaves_no_file_under_its_name(tmp_path, monkeypatch):
    writer = png_writer.PngWriter()

    def replace_fails(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(png_writer.os, "replace", replace_fails)
    writer.submit(_frame(1), tmp_path / "step_000.png")
    assert "disk full" in writer.close()[tmp_path / "step_000.png"]
    assert not (tmp_path / "step_000.png").exists()


def _child(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    script = textwrap.dedent(
        """
        import os, sys, threading, time
        from pathlib import Path
        import numpy as np
        from android_world.harness import png_writer
        out = Path(sys.argv[1])
        def frame(v):
            f = np.full((64, 48, 3), v, dtype=np.uint8); f.setflags(write=False); return f
        writer = png_writer.PngWriter()
        """
    ) + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_crash_mid_write_keeps_earlier_frames_and_leaves_no_partial_file(tmp_path):
    proc = _child(
        tmp_path,
        """
        for i in range(3):
            writer.submit(frame(i * 50), out / f"step_{i:03d}.png")
        writer.flush()
        real = png_writer.write_bytes_atomic
        def dies_mid_write(path, data):
            tmp = path.with_name(f".{path.name}.tmp")
            tmp.write_bytes(data[: len(data) // 2])  # half the file, then the process dies
            os._exit(9)
        png_writer.write_bytes_atomic = dies_mid_write
        writer.submit(frame(200), out / "step_003.png")
        time.sleep(30)
        """,
    )
    assert proc.returncode == 9, proc.stderr
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [".step_003.png.tmp", "step_000.png", "step_001.png", "step_002.png"]
    for i in range(3):
        assert np.asarray(Image.open(tmp_path / f"step_{i:03d}.png")).max() == i * 50


def test_an_interrupted_run_still_writes_the_frames_it_queued(tmp_path):
    proc = _child(
        tmp_path,
        """
        gate = threading.Event()
        real = writer._write
        writer._write = lambda f, p: (gate.wait(0.5), real(f, p))[1]
        for i in range(4):
            writer.submit(frame(i), out / f"step_{i:03d}.png")
        raise KeyboardInterrupt  # no flush, no close: the interpreter's exit finishes the queue
        """,
    )
    assert proc.returncode != 0 and "KeyboardInterrupt" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"step_{i:03d}.png" for i in range(4)]


def test_episode_json_names_only_screenshots_that_were_written(tmp_path, monkeypatch, capsys):
    env = fakes.FakeEnv()
    recorder = run_output.RecordingEnv(env)
    agent = fakes.ScriptedAgent(recorder, done_after=3)
    writer = run_output.RunWriter(tmp_path, recorder, True, clock=lambda: 1.0)
    real = png_writer.PngWriter._write

    def second_fails(self, frame, path):
        if path.name == "step_001.png":
            raise OSError("disk full")
        real(self, frame, path)

    monkeypatch.setattr(png_writer.PngWriter, "_write", second_fails)
    suite = suite_utils.create_suite(fakes.TASKS, tasks=["FakeWifiOn"], seed=0)
    [episode] = suite_utils.run(suite, agent, observer=writer, print_fn=lambda m: m)
    writer.close()
    assert episode["error"] is None  # a lost screenshot does not fail the agent's episode
    folder = tmp_path / "episodes" / "FakeWifiOn_0"
    steps = json.loads((folder / "episode.json").read_text())["steps"]
    assert [s["screenshot"] for s in steps] == ["step_000.png", None, "step_002.png"]
    assert steps[1]["screenshot_error"] == "OSError: disk full"
    assert sorted(p.name for p in folder.glob("*.png")) == ["step_000.png", "step_002.png"]
    assert "step_001.png: not written (OSError: disk full)" in capsys.readouterr().err
