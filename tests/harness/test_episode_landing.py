"""An episode's records land after its frames, without the serial run waiting (issue 30).

The writer thread is held back with an event, so the tests see the moment at which a SIGKILL
could strike: the next episode running, the previous one's frames not yet written.
"""

from __future__ import annotations

import concurrent.futures
import json
import shutil
import threading
from pathlib import Path
from typing import Any

import harness_fakes as fakes
import pytest

from android_world.harness import checkpointer, episode_landing, png_writer, run_output, suite_utils
from android_world.harness.serial_run import LandedCheckpoints

TIMING_KEYS = {"run_time", "finish_dtime", "runtime", "finished_at"}


class HeldWriter(png_writer.PngWriter):
    """Writes a frame whose path contains `hold` only once `release` is set; fails the ones
    whose path contains `fail`."""

    def __init__(self, hold: str = "", fail: str = "") -> None:
        super().__init__()
        self.hold, self.fail = hold, fail
        self.release = threading.Event()
        self.holding = (
            threading.Event()
        )  # set once the thread waits: every earlier frame is written

    def _write(self, frame, path: Path) -> None:
        if self.hold and self.hold in str(path):
            self.holding.set()
            assert self.release.wait(20)
        if self.fail and self.fail in str(path):
            raise OSError(28, "No space left on device")
        super()._write(frame, path)


class Snapshot:
    """An observer around the writer that copies the run directory when `at` starts, as a
    SIGKILL at that moment would leave it."""

    def __init__(self, writer: run_output.RunWriter, at: str, copy_to: Path) -> None:
        self.writer, self.at, self.copy_to = writer, at, copy_to
        self.started: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.writer, name)

    def start_episode(self, task, instance_name: str) -> None:
        self.writer.start_episode(task, instance_name)
        self.started.append(instance_name)
        if instance_name == self.at:
            shutil.copytree(self.writer.run_dir, self.copy_to)


def _serial(run_dir: Path, observer_for=None, png=None, n=3, order=None):
    """The serial run's wiring (serial_run.execute_serial) on the fake device."""
    recorder = run_output.RecordingEnv(fakes.FakeEnv())
    agent = fakes.ScriptedAgent(recorder, done_after=2)
    writer = run_output.RunWriter(run_dir, recorder, True, clock=lambda: 1.0, wait_for_frames=False)
    writer._png = png
    store = checkpointer.IncrementalCheckpointer(run_dir / "checkpoints", upstream_dir=run_dir)
    if order is not None:
        save = store.save_episodes
        store.save_episodes = lambda eps, name: (
            order.append(("checkpoint", name)),
            save(eps, name),
        )
    suite = suite_utils.create_suite(
        fakes.TASKS, tasks=["FakeWifiOn"], n_task_combinations=n, seed=0
    )
    observer = observer_for(writer) if observer_for else writer
    saved: list[str] = []
    try:
        suite_utils.run(
            suite,
            agent,
            LandedCheckpoints(store, writer),
            observer=observer,
            checkpoint_episode_data=False,
            on_episode_saved=lambda ep: writer.after_landing(lambda: saved.append(ep["name"])),
            print_fn=lambda m: m,
        )
    finally:
        writer.close()
    return observer, saved


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIMING_KEYS}
    return [_untimed(v) for v in value] if isinstance(value, list) else value


def _episode_files(run_dir: Path) -> dict[str, Any]:
    """Every file of the run, JSON without its timing keys, PNGs as bytes."""
    files: dict[str, Any] = {}
    for path in sorted(run_dir.rglob("*")):
        if path.is_dir() or path.suffix == ".gz":
            continue
        rel = str(path.relative_to(run_dir))
        if path.suffix == ".json":
            files[rel] = _untimed(json.loads(path.read_text()))
        else:
            files[rel] = path.read_bytes()
    return files


def test_records_land_after_the_frames_and_a_kill_meanwhile_reruns_the_episode(tmp_path):
    plain = tmp_path / "plain"
    _serial(plain)
    run_dir, killed = tmp_path / "run", tmp_path / "killed"
    held = HeldWriter(hold="FakeWifiOn_1")
    order: list[tuple[str, str]] = []

    def observer_for(writer):
        snap = Snapshot(writer, "FakeWifiOn_2", killed)
        start = snap.start_episode

        def start_then_release(task, name):
            if name == "FakeWifiOn_2":
                assert held.holding.wait(20)  # episode 0's frames are written, 1's are held
            start(task, name)
            if name == "FakeWifiOn_2":
                held.release.set()  # the "kill" has been taken; let the run go on

        snap.start_episode = start_then_release
        return snap

    _, saved = _serial(run_dir, observer_for, held, order=order)
    assert saved == ["FakeWifiOn_0", "FakeWifiOn_1", "FakeWifiOn_2"]
    assert [name for kind, name in order] == saved  # checkpoints in the suite's order
    # While episode 2 ran, episode 1's frames were not written: nothing marked it done.
    assert (killed / "checkpoints" / "FakeWifiOn_0.json").exists()
    assert (killed / "episodes" / "FakeWifiOn_0" / "episode.json").exists()
    assert not (killed / "checkpoints" / "FakeWifiOn_1.json").exists()
    assert not (killed / "FakeWifiOn_1.pkl.gz").exists()
    assert not (killed / "episodes" / "FakeWifiOn_1" / "episode.json").exists()
    # Resumed from that state, the run does episodes 1 and 2 again, and ends as if never killed.
    resumed, _ = _serial(killed, lambda w: Snapshot(w, "none", tmp_path / "unused"))
    assert resumed.started == ["FakeWifiOn_1", "FakeWifiOn_2"]
    assert _episode_files(killed) == _episode_files(plain) == _episode_files(run_dir)


def test_a_frame_that_fails_is_recorded_on_its_step(tmp_path, capsys):
    _serial(tmp_path, png=HeldWriter(fail="FakeWifiOn_1/step_001"))
    steps = json.loads((tmp_path / "episodes" / "FakeWifiOn_1" / "episode.json").read_text())[
        "steps"
    ]
    assert steps[0]["screenshot"] == "step_000.png"
    assert steps[1]["screenshot"] is None
    assert steps[1]["screenshot_error"] == "OSError: [Errno 28] No space left on device"
    assert not (tmp_path / "episodes" / "FakeWifiOn_1" / "step_001.png").exists()
    assert "step_001.png: not written" in capsys.readouterr().err
    assert (tmp_path / "checkpoints" / "FakeWifiOn_2.json").exists()  # the run went on


def test_a_record_that_cannot_be_written_stops_the_run_and_no_later_checkpoint_lands(
    tmp_path, monkeypatch
):
    real = run_output.write_json_atomic

    def failing(path, obj, durable=True):
        if "FakeWifiOn_1" in str(path):
            raise OSError(28, "No space left on device")
        real(path, obj, durable)

    monkeypatch.setattr(run_output, "write_json_atomic", failing)
    with pytest.raises(OSError, match="No space left"):
        _serial(tmp_path, png=HeldWriter())
    assert (tmp_path / "checkpoints" / "FakeWifiOn_0.json").exists()
    assert not (tmp_path / "checkpoints" / "FakeWifiOn_1.json").exists()
    assert not (tmp_path / "checkpoints" / "FakeWifiOn_2.json").exists()


def _future(done: bool) -> concurrent.futures.Future[None]:
    future: concurrent.futures.Future[None] = concurrent.futures.Future()
    if done:
        future.set_result(None)
    return future


def test_queue_lands_in_order_and_never_waits_in_land_ready():
    queue, log = episode_landing.LandingQueue(), []
    first, second = _future(False), _future(True)
    queue.add([(Path("a.png"), first)], lambda failed: log.append(("a", failed)))
    queue.then(lambda: log.append("a-checkpoint"))
    queue.add([(Path("b.png"), second)], lambda failed: log.append(("b", failed)))
    queue.then(lambda: log.append("b-checkpoint"))
    queue.land_ready()
    assert log == [] and queue.waiting == 2  # b's frames are written, but a comes first
    first.set_exception(OSError("disk"))
    queue.land_ready()
    assert log == [
        ("a", {Path("a.png"): "OSError: disk"}),
        "a-checkpoint",
        ("b", {}),
        "b-checkpoint",
    ]
    queue.then(lambda: log.append("now"))  # nothing waits: at once
    assert log[-1] == "now"


def test_queue_keeps_an_error_for_a_safe_point_and_raises_it_once():
    queue, log = episode_landing.LandingQueue(), []

    def broken(_failed):
        raise OSError("disk full")

    queue.add([], broken)
    queue.then(lambda: log.append("checkpoint"))
    queue.add([], lambda failed: log.append("next"))
    queue.land_ready()  # inside a step: kept, not raised
    assert log == []
    with pytest.raises(OSError, match="disk full"):
        queue.raise_pending()
    queue.land_all()  # already raised: the close after it stays quiet, and lands nothing more
    assert log == []


def test_an_interrupted_action_is_done_again_at_close():
    queue, log = episode_landing.LandingQueue(), []
    calls = {"n": 0}

    def interrupted_once():
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyboardInterrupt
        log.append("checkpoint")

    queue.add([], lambda failed: log.append("records"))
    queue.then(interrupted_once)
    with pytest.raises(KeyboardInterrupt):
        queue.land_ready()
    queue.land_all()
    assert log == ["records", "checkpoint"] and queue.waiting == 0


def test_a_steps_feedback_lines_are_in_the_file_when_the_step_ends(tmp_path):
    from android_world.agents import base_agent

    writer = run_output.RunWriter(tmp_path, None, False, clock=lambda: 1.0)
    writer.start_episode(None, "Task_0")
    path = tmp_path / "episodes" / "Task_0" / "feedback.jsonl"
    writer.on_step_start(0)
    writer.event_sink({"type": "a"})
    writer.event_sink({"type": "b"})
    writer.on_step_end(0, base_agent.AgentInteractionResult(False, {}))
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert lines == [{"ts": 1.0, "type": "a", "step": 0}, {"ts": 1.0, "type": "b", "step": 0}]
    writer.end_steps()
    writer.event_sink({"type": "after"})
    writer.finish_episode({"name": "Task_0"}, {})
    assert json.loads(path.read_text().splitlines()[-1]) == {
        "ts": 1.0,
        "type": "after",
        "step": None,
    }
    writer.close()
