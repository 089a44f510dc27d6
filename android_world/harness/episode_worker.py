"""The worker of a parallel run, the same in a process and in a Ray actor: one device, one agent,
episodes run into a scratch folder whose files go back to the driver."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from android_world.agents import registry as agent_registry
from android_world.harness import discover, live_view, run_output, suite_utils
from android_world.harness.parallel_jobs import (
    WORKER_ENV_VAR,
    Job,
    Outcome,
    WorkerSpec,
    quiet,
    read_folder,
)
from android_world.harness.worker_devices import adb_server_port, worker_config


def env_problem(env: Any) -> str | None:
    """Why the env cannot run another episode (an adb device gone offline), or None."""
    check = getattr(env, "check_connection", None)
    if not callable(check):
        return None
    try:
        check()
    except Exception as exc:
        return suite_utils._one_line(exc)
    return None


class EpisodeWorker:
    """One device, one agent; runs episodes into a scratch folder and hands back the files."""

    def __init__(self, spec: WorkerSpec, slot: int, log: Callable[[str], None] = quiet):
        self.spec = spec
        self.slot = slot
        self.name = f"{spec.name_prefix}-w{slot}"
        os.environ[WORKER_ENV_VAR] = self.name
        cfg = worker_config(spec.cfg, slot)
        port = adb_server_port(cfg, slot)
        if port is not None:
            os.environ["ANDROID_ADB_SERVER_PORT"] = str(port)
        if spec.agent_module:
            from android_world.agents import module_loader

            module_loader.register_module_agent(spec.agent_module)
        root = spec.scratch_root if spec.scratch_root and Path(spec.scratch_root).is_dir() else None
        self.scratch = Path(tempfile.mkdtemp(prefix=f"{self.name}-", dir=root))
        self.env = spec.env_factory(cfg)
        try:
            self.recorder = run_output.RecordingEnv(self.env)
            run_dir = Path(spec.run_dir)
            # On another host the run directory does not exist: memory: fresh stays per actor.
            context = agent_registry.RunContext(
                models=cfg.models,
                run_dir=run_dir if run_dir.is_dir() else self.scratch,
                seed=cfg.env.seed,
                log=log,
                console_line=discover.wrap_line,
            )
            params = spec.agent_params
            if params is None:
                params = agent_registry.validate_kwargs(spec.agent_registry_name, spec.agent_kwargs)
            self.agent = agent_registry.get_agent(
                spec.agent_registry_name, self.recorder, context=context, params=params
            )
            if cfg.benchmark.transition_pause is not None:
                self.agent.transition_pause = cfg.benchmark.transition_pause
            self.writer = run_output.RunWriter(self.scratch, self.recorder, spec.save_screenshots)
        except BaseException:
            self.close()
            raise

    def info(self) -> dict[str, Any]:
        """What the driver puts in manifest.json: the agent's resolved models and the device."""
        emulator = getattr(self.env, "_emulator", None)
        process = getattr(emulator, "process", None)
        return {
            "worker": self.name,
            "pid": os.getpid(),
            "host": os.uname().nodename,
            "agent_info": run_output.agent_manifest(self.agent),
            "emulator_pid": getattr(process, "pid", None),
            "device": getattr(getattr(self.env, "runner", None), "serial", None),
        }

    def run(self, job: Job, live: live_view.Emit | None = None) -> Outcome:
        """`live`, if given, receives the episode's live-view events as they happen."""
        task = job.task_cls(dict(job.params))
        observer: Any = self.writer
        if live is not None:
            observer = live_view.LiveObserver(self.writer, self.recorder, live, f"w{self.slot}")
        episode = suite_utils.run_task(
            task, self.agent, instance_id=job.instance_id, observer=observer, print_fn=quiet
        )
        episode = {k: v for k, v in episode.items() if k != "episode_data"}
        if job.attempt > 1:
            episode["attempts"] = job.attempt
            episode["retried_after"] = job.retried_after
        folder = self.writer.episode_dir(job.name)
        files = read_folder(folder)
        shutil.rmtree(folder, ignore_errors=True)
        return Outcome(
            job.name,
            episode,
            files,
            env_problem(self.env),
            self.name,
            run_output.model_servers(),
        )

    def close(self) -> None:
        with contextlib.suppress(Exception):
            if getattr(self, "writer", None) is not None:
                self.writer.close()
        with contextlib.suppress(Exception):
            self.env.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


def start_error(exc: BaseException) -> str:
    text = suite_utils._one_line(exc)
    if os.environ.get("CELIL_WORKER_TRACEBACK"):
        text += "\n" + traceback.format_exc()
    return text
