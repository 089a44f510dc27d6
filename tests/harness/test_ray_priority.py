"""Ray actors of a cluster Celil starts run at the driver's CPU priority (issue 30, scale-out):
Ray lowers its workers' priority by 15 unless told otherwise, which starved them on a busy host."""

from __future__ import annotations

import os

import pytest

from android_world.harness import parallel
from android_world.harness.ray_pool import RAY_NICENESS_ENV


def test_a_local_cluster_is_asked_for_unlowered_workers_unless_the_user_chose():
    environ: dict[str, str] = {}
    parallel.keep_worker_priority(environ)
    assert environ == {RAY_NICENESS_ENV: "0"}
    chosen = {RAY_NICENESS_ENV: "5"}
    parallel.keep_worker_priority(chosen)
    assert chosen == {RAY_NICENESS_ENV: "5"}


@pytest.mark.slow
def test_ray_actors_run_at_the_drivers_niceness(monkeypatch):
    ray = pytest.importorskip("ray", reason="Ray is not installed")
    monkeypatch.delenv(RAY_NICENESS_ENV, raising=False)
    parallel.keep_worker_priority()
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:

        @ray.remote
        class Probe:
            def niceness(self) -> int:
                return os.nice(0)

        probe = Probe.remote()
        assert ray.get(probe.niceness.remote(), timeout=120) == os.nice(0)
    finally:
        ray.shutdown()
