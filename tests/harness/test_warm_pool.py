"""Workers started once and reused by several scheduler runs (harness/warm_pool.py)."""

from __future__ import annotations

import os
from pathlib import Path

import parallel_fakes
import pytest
from harness_fakes import TASKS
from test_parallel_scheduler import ScriptedPool, _jobs

from android_world.harness import config as config_lib
from android_world.harness import parallel, suite_utils
from android_world.harness.warm_pool import WarmPool


def _schedule(pool, workers=2):
    got = []
    stats = parallel.Scheduler(pool, workers, got.append, poll_sec=0).run(_jobs())
    return sorted(o.name for o in got), stats


def test_workers_started_once_serve_every_scheduler_run():
    inner = ScriptedPool()
    pool = WarmPool(inner)
    assert pool.warm_up(2) >= 0
    assert inner.started == [(0, 1), (1, 1)]
    first, _ = _schedule(pool)
    second, _ = _schedule(pool)
    assert first == second == sorted(j.name for j in _jobs())
    assert inner.started == [(0, 1), (1, 1)] and pool.started == 2  # no new worker
    assert pool.warm_up(2) < 1.0  # nothing left to start
    pool.warm_up(3)
    assert inner.started[-1] == (2, 1) and pool.started == 3  # only the missing one


def test_a_scheduler_run_without_warm_up_starts_its_workers_then_they_stay():
    inner = ScriptedPool()
    pool = WarmPool(inner)
    _schedule(pool)
    _schedule(pool)
    assert inner.started == [(0, 1), (1, 1)]


def test_a_dead_worker_is_replaced_and_its_replacement_reused():
    inner = ScriptedPool(script={("FakeAnswer_0", 1): "die"})
    pool = WarmPool(inner)
    pool.warm_up(2)
    names, stats = _schedule(pool)
    assert names == sorted(j.name for j in _jobs()) and stats.restarts == 1
    assert len(inner.started) == 3 and inner.stopped  # the dead one stopped, a new one started
    replaced = inner.started[-1]
    assert replaced[1] == 2  # the pool's second start of that slot
    inner.script = {}
    _schedule(pool)
    assert len(inner.started) == 3  # the replacement serves the next run


def test_events_of_a_replaced_worker_are_ignored():
    inner = ScriptedPool()
    pool = WarmPool(inner)
    pool.warm_up(1)
    pool.stop(0)
    pool.start(0, 1)  # a new worker in slot 0: the pool's generation 2
    inner.queue.append(parallel.Event("done", 0, None, 1))  # late, from the first worker
    events = [e for _ in range(3) for e in pool.events(0)]
    assert [(e.kind, e.gen) for e in events] == [("ready", 1), ("done", 0)]


def test_a_worker_that_cannot_start_fails_the_warm_up():
    pool = WarmPool(ScriptedPool(start_fail={1}))
    with pytest.raises(parallel.ParallelError, match="worker 1 could not start: no device"):
        pool.warm_up(2)


def _spec(tmp_path: Path) -> parallel.WorkerSpec:
    cfg, _ = config_lib.load_config(config_lib.DEFAULT_CONFIG_PATH, [])
    return parallel.WorkerSpec(
        cfg=cfg,
        agent_registry_name="oracle_agent",
        agent_kwargs={},
        run_dir=str(tmp_path),
        env_factory=parallel_fakes.make_env,
        save_screenshots=False,
        scratch_root=str(tmp_path),
    )


def _reuse_check(tmp_path: Path, inner) -> None:
    """Two scheduler runs of 4 episodes on one warm worker: every action from one process."""
    pool = WarmPool(inner)
    try:
        pool.warm_up(1, timeout=300)
        suite = suite_utils.create_suite(TASKS, 2, seed=0, tasks=["FakeWifiOn", "FakeAnswer"])
        for _ in range(2):
            got = []
            parallel.Scheduler(pool, 1, got.append, poll_sec=0.05).run(
                parallel.jobs_for(suite, set())
            )
            assert len(got) == 4 and all(o.episode.get("error") is None for o in got)
    finally:
        pool.close()
    pids = {p.name.split("-")[0] for p in (tmp_path / "markers").iterdir()}
    assert len(pids) == 1 and pool.started == 1


def test_local_worker_process_is_reused_across_scheduler_runs(tmp_path, monkeypatch):
    (tmp_path / "markers").mkdir()
    monkeypatch.setenv("PARALLEL_MARKER_DIR", str(tmp_path / "markers"))
    _reuse_check(tmp_path, parallel.LocalPool(_spec(tmp_path)))


@pytest.mark.slow
def test_ray_actor_is_reused_across_scheduler_runs(tmp_path, monkeypatch):
    ray = pytest.importorskip("ray", reason="Ray is not installed")
    (tmp_path / "markers").mkdir()
    monkeypatch.setenv("PARALLEL_MARKER_DIR", str(tmp_path / "markers"))
    tests = Path(__file__).resolve().parents[1]
    path = os.pathsep.join([str(tests.parent), str(tests)])
    ray.init(
        num_cpus=1,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={
            "env_vars": {"PYTHONPATH": path, "PARALLEL_MARKER_DIR": str(tmp_path / "markers")}
        },
    )
    try:
        _reuse_check(tmp_path, parallel.RayPool(_spec(tmp_path), "local", 1.0, 1))
    finally:
        ray.shutdown()
