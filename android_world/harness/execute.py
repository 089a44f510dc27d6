"""Running a prepared suite: the device, the run directory with its config and manifest, then
the serial or the parallel run, then the finish."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path

from android_world.env import interface
from android_world.harness import checkpointer as checkpointer_lib
from android_world.harness import config as config_lib
from android_world.harness import parallel, run_facts, run_output, suite_utils
from android_world.harness.parallel_driver import execute_parallel
from android_world.harness.prepare import Prepared
from android_world.harness.run_console import UsageError
from android_world.harness.run_records import (
    env_manifest,
    instance_seeds,
    parallel_history,
    write_outputs,
)
from android_world.harness.run_summary import finish
from android_world.harness.serial_run import execute_serial


def execute(prep: Prepared, env_factory: Callable[[config_lib.CelilConfig], interface.AsyncEnv]):
    """Run the prepared suite; returns (run_dir, summary)."""
    cfg = prep.cfg
    if parallel.wanted(
        cfg
    ):  # each worker builds its own device (android_world/harness/parallel.py)
        try:
            parallel.prepare_devices(cfg, cfg.benchmark.workers)
            if cfg.benchmark.ray_address is not None:
                parallel.import_ray()
        except parallel.ParallelError as exc:
            raise UsageError(str(exc)) from None
        return _execute(prep, None, env_factory)
    # The device first: one that cannot be reached is a one-line error, and leaves no run dir.
    env = env_factory(cfg)
    try:
        return _execute(prep, env)
    finally:
        env.close()


def _execute(
    prep: Prepared,
    env: interface.AsyncEnv | None,
    env_factory: Callable[[config_lib.CelilConfig], interface.AsyncEnv] | None = None,
):
    run_dir, created = _open_run_dir(prep)
    try:
        return run_dir, _run_in(prep, run_dir, env, env_factory)
    except UsageError:
        # A start-up failure (the agent could not be built, the workers could not start) in a
        # directory this invocation created leaves no run directory holding an empty report.
        if created and not _has_episodes(run_dir):
            shutil.rmtree(run_dir, ignore_errors=True)
        raise


def _open_run_dir(prep: Prepared) -> tuple[Path, bool]:
    """The run directory, made if needed; True when this invocation created it."""
    output_path = prep.cfg.benchmark.output_path
    try:
        if prep.run_dir is None:
            return checkpointer_lib.create_run_directory(output_path), True
        existed = prep.run_dir.exists()
        prep.run_dir.mkdir(parents=True, exist_ok=True)
        return prep.run_dir, not existed
    except OSError as exc:
        where = prep.run_dir or output_path
        raise UsageError(f"cannot create the run directory under {where}: {exc.strerror}") from None


def _has_episodes(run_dir: Path) -> bool:
    checkpoints = run_dir / run_output.CHECKPOINTS
    return checkpoints.is_dir() and any(checkpoints.iterdir())


def _run_in(
    prep: Prepared,
    run_dir: Path,
    env: interface.AsyncEnv | None,
    env_factory: Callable[[config_lib.CelilConfig], interface.AsyncEnv] | None,
) -> suite_utils.Summary:
    """Write the run's config and manifest, run the episodes, finish the outputs."""
    cfg = prep.cfg.model_copy(
        update={"benchmark": prep.cfg.benchmark.model_copy(update={"checkpoint_dir": str(run_dir)})}
    )
    checkpoint_store = run_output.checkpoint_store(run_dir)
    checkpointer_lib.write_text_atomic(run_dir / "config.yaml", config_lib.dump_yaml(cfg))

    manifest_path = run_dir / "manifest.json"
    manifest = checkpointer_lib.read_json_object(manifest_path)
    now = run_output.utc_now()
    resumed_at = manifest.get("resumed_at")
    manifest = run_output.build_manifest(
        started_at=manifest.get("started_at", now),
        resumed_at=[*(resumed_at if isinstance(resumed_at, list) else []), now] if manifest else [],
        finished_at=None,
        suite_family=cfg.benchmark.suite_family,
        note=run_output.SIM_DISCLAIMER if cfg.benchmark.suite_family == "sim" else None,
        env=env_manifest(cfg),
        seeds={
            "env": cfg.env.seed,
            "task_random_seed": cfg.benchmark.task_random_seed,
            "instances": instance_seeds(prep.suite),
        },
        agent={
            "configuration": prep.agent_config_name,
            "registry_name": prep.agent_registry_name,
            "kwargs": config_lib.redact(checkpointer_lib.to_jsonable(prep.agent_kwargs)),
        },
    ) | parallel_history(manifest)
    if prep.free_goal is not None:
        manifest["free_goal"] = dataclasses.asdict(prep.free_goal)
    manifest["reproducibility"] = run_facts.reproducibility(manifest, prep.suite, cfg, env)
    checkpointer_lib.write_json_atomic(manifest_path, manifest)

    # Regenerate from checkpoints first: a kill between checkpoint and results leaves no gap.
    write_outputs(run_dir, checkpoint_store.load(), prep)

    interrupted = False
    if env is None:
        assert env_factory is not None
        interrupted = execute_parallel(prep, cfg, run_dir, manifest, env_factory)
    else:
        interrupted = execute_serial(prep, cfg, env, run_dir, manifest)
    return finish(prep, cfg, run_dir, manifest, interrupted)
