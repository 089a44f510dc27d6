"""Scale-out: a suite's episodes run in N workers, each owning one device (DESIGN §7).

Why this shape:

- An episode is already an independent unit (task class, params, seed, agent config in; one
  result and one episode folder out), so a worker is just the serial loop's body in another
  process: `suite_utils.run_task` with its own env, agent and `RunWriter`.
- Processes (spawn) or Ray actors, never threads: envs and agents are not thread-safe, and a
  worker whose device hangs or crashes must be killable without taking the run with it.
- Only the driver writes the run directory's shared files. A worker writes its episode folder in
  its own scratch directory and sends the files back with the result; the driver installs the
  folder, then the checkpoint, then results.jsonl/summary/report, in the serial run's order. So a
  run killed at any moment resumes exactly like a serial one, and Ray actors on other hosts need
  no shared file system. (Celil's episodic memory is the one exception: workers share its SQLite
  store, one transaction per change, see `celil_episodic_store` and docs/SCALE_OUT.md.)
- The driver hands out the episodes longest expected first (a template's time recorded earlier
  in the run, else upstream's complexity; equal estimates keep suite order), so the long ones do
  not start last and leave the other workers idle at the end.
- The driver dispatches one episode at a time to an idle worker, and never waits on one result:
  it waits on all in-flight results at once (`multiprocessing.connection.wait`, `ray.wait`), so a
  slow device holds up only its own worker.
- A worker that dies (process killed, actor lost, device gone) is restarted; its episode is run
  again once and recorded as an error with the reason if that also dies. The counts go to
  manifest.json ("parallel") and the retried episode carries `attempts`/`retried_after`.
- Same answers as a serial run: each episode's task is rebuilt from the same params and seed,
  and when the agent's episodic memory is writable the instances of one task template run in
  suite order (as serially), so instance i can reuse what instance i-1 stored.

Where the parts live: parallel_jobs.py (what goes to a worker and back), worker_devices.py (each
worker's device), episode_worker.py (the worker), process_pool.py and ray_pool.py (how workers
are started and heard from), scheduler.py (the driver's scheduler); this module picks the pool.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

from android_world.harness import config as config_lib
from android_world.harness.episode_worker import EpisodeWorker, env_problem
from android_world.harness.parallel_jobs import (
    MAX_ATTEMPTS,
    MAX_START_FAILURES,
    RAY_INSTALL,
    RAY_NAMESPACE,
    WORKER_ENV_VAR,
    EnvFactory,
    Event,
    Job,
    Outcome,
    ParallelError,
    Pool,
    WorkerSpec,
    install_folder,
    jobs_for,
    read_folder,
    remove_stale_folders,
)
from android_world.harness.process_pool import LocalPool, start_method
from android_world.harness.ray_pool import (
    RayEpisodeWorker,
    RayPool,
    actor_env,
    import_ray,
    keep_worker_priority,
)
from android_world.harness.scheduler import (
    Estimate,
    Scheduler,
    Stats,
    expected_seconds,
    failed_episode,
    longest_first,
    recorded_seconds,
)
from android_world.harness.worker_devices import (
    adb_server_port,
    check_devices,
    clone_name,
    prepare_devices,
    reap_local_emulator,
    worker_config,
)

# The names run code, tests and benchmarks use from here (the parts live in the modules above).
__all__ = [
    "MAX_ATTEMPTS",
    "MAX_START_FAILURES",
    "RAY_INSTALL",
    "RAY_NAMESPACE",
    "WORKER_ENV_VAR",
    "EnvFactory",
    "EpisodeWorker",
    "Estimate",
    "Event",
    "Job",
    "LocalPool",
    "Outcome",
    "ParallelError",
    "Pool",
    "RayEpisodeWorker",
    "RayPool",
    "Scheduler",
    "Stats",
    "WorkerSpec",
    "actor_env",
    "adb_server_port",
    "check_devices",
    "clone_name",
    "env_problem",
    "expected_seconds",
    "failed_episode",
    "import_ray",
    "install_folder",
    "jobs_for",
    "keep_worker_priority",
    "longest_first",
    "make_pool",
    "memory_writable",
    "open_pool",
    "prepare_devices",
    "read_folder",
    "reap_local_emulator",
    "recorded_seconds",
    "remove_stale_folders",
    "start_method",
    "wanted",
    "worker_config",
]


def wanted(cfg: config_lib.CelilConfig) -> bool:
    return cfg.benchmark.workers > 1 or cfg.benchmark.ray_address is not None


def memory_writable(registry_name: str, kwargs: dict[str, Any]) -> bool:
    """Whether episodes can see what earlier ones stored (Celil's memory: fresh|shared)."""
    if registry_name != "celil_agent":
        return False
    return kwargs.get("memory", "fresh") in ("fresh", "shared")


def make_pool(spec: WorkerSpec, cfg: config_lib.CelilConfig) -> Pool:
    bench = cfg.benchmark
    if bench.ray_address is not None:
        return RayPool(spec, bench.ray_address, bench.ray_num_cpus, bench.workers)
    return LocalPool(spec)


@contextlib.contextmanager
def open_pool(spec: WorkerSpec, cfg: config_lib.CelilConfig) -> Iterator[Pool]:
    """The pool, closed at the end: workers finish and stop their devices; after an error or
    Ctrl-C they are killed at once (an episode can take minutes)."""
    scratch = tempfile.mkdtemp(prefix="celil-scratch-")
    spec = dataclasses.replace(spec, scratch_root=spec.scratch_root or scratch)
    try:
        pool = make_pool(spec, cfg)
        try:
            yield pool
        except BaseException:
            pool.close(kill=True)
            raise
        pool.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
