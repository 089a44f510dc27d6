"""The driver of a parallel run (`--workers N` / `--ray_address`): it alone writes the run
directory while the workers run the episodes (android_world/harness/parallel.py)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from absl import flags

from android_world.agents.custom.celil_secrets import redact
from android_world.env import interface
from android_world.harness import checkpointer as checkpointer_lib
from android_world.harness import config as config_lib
from android_world.harness import live_view, parallel, run_facts, run_output, suite_utils
from android_world.harness.prepare import Prepared
from android_world.harness.run_console import UsageError, agent_line, log
from android_world.harness.run_records import (
    ReportPacer,
    merged_servers,
    open_live_view,
    write_outputs,
)

FLAGS = flags.FLAGS


class _ParallelRunDir:
    """The driver's side of a parallel run: everything that reaches the run directory, in the
    serial run's order (episode folder, checkpoint, results/summary/report)."""

    def __init__(
        self, prep: Prepared, run_dir: Path, manifest: dict[str, Any], bar: Any, live: Any = None
    ):
        self.prep, self.run_dir, self.manifest, self.bar = prep, run_dir, manifest, bar
        self.live = live or live_view.LiveView("off", live_view.Totals())
        self.store = run_output.checkpoint_store(run_dir)
        self.episodes = {ep["name"]: ep for ep in self.store.load() if "name" in ep}
        self.pacer = ReportPacer()
        self.lines = run_output.ResultLines()  # results.jsonl is rewritten after every episode
        history = manifest.get("parallel")
        self.sessions = list(history) if isinstance(history, list) else []
        self.started = run_output.utc_now()

    def outcome(self, outcome: parallel.Outcome) -> None:
        ep = outcome.episode
        if outcome.model_servers:  # learned in the worker, shown as a serial run shows it
            self.manifest["model_servers"] = merged_servers(
                self.manifest.get("model_servers"), outcome.model_servers
            )
            self._write_manifest()
        if outcome.files:
            parallel.install_folder(self.run_dir / run_output.EPISODES, ep["name"], outcome.files)
        self.store.save_episodes([ep], ep["name"])
        self.episodes[ep["name"]] = ep
        episodes = list(self.episodes.values())
        write_outputs(self.run_dir, episodes, self.prep, self.pacer.due(), self.lines)
        self.bar.write(run_output.episode_line(ep), file=sys.stderr)
        self.bar.update(1)
        self.live.episode_saved(ep)

    def stats(self, stats: parallel.Stats) -> None:
        """This session's restart/retry counts, after the earlier sessions' (a resume adds one)."""
        self.manifest["parallel"] = [*self.sessions, stats.as_dict() | {"started_at": self.started}]
        self._write_manifest()

    def ready(self, slot: int, info: dict[str, Any]) -> None:
        """The first worker up names the agent's resolved models, as the serial run does."""
        agent_info = info.get("agent_info") if isinstance(info, dict) else None
        if agent_info is None or "agent_info" in self.manifest:
            return
        self.manifest["agent_info"] = agent_info
        roles = agent_info.get("roles") or agent_info.get("models")
        if isinstance(roles, dict):
            self.manifest["models"] = roles
        self.manifest["reproducibility"] = run_facts.reproducibility(
            self.manifest, self.prep.suite, self.prep.cfg
        )
        self._write_manifest()

    def log(self, line: str) -> None:
        self.bar.write(redact(line), file=sys.stderr)

    def _write_manifest(self) -> None:
        checkpointer_lib.write_json_atomic(self.run_dir / "manifest.json", self.manifest)


def worker_spec(
    prep: Prepared,
    cfg: config_lib.CelilConfig,
    run_dir: Path,
    env_factory: Callable[[config_lib.CelilConfig], interface.AsyncEnv],
) -> parallel.WorkerSpec:
    """What every worker builds its agent and device from (pickled to it)."""
    bench = cfg.benchmark
    return parallel.WorkerSpec(
        cfg=cfg,
        agent_registry_name=prep.agent_registry_name,
        agent_kwargs=prep.agent_kwargs,
        agent_params=prep.agent_params,
        run_dir=str(run_dir),
        env_factory=env_factory,
        save_screenshots=bench.save_screenshots and (cfg.env.type != "sim" or cfg.env.render),
        agent_module=FLAGS.agent_module if FLAGS.is_parsed() else None,
        name_prefix=f"celil-{run_dir.name}",
        live=FLAGS.live if FLAGS.is_parsed() else False,
    )


def earlier_run_times(run_dir: str | None) -> list[dict[str, Any]]:
    """The episodes (template, run time) of an earlier run directory, ours or upstream's
    checkpoints: on a first run of a suite they are the only honest estimate of which episodes
    are long (sim tasks share one complexity, so complexity alone keeps suite order)."""
    if run_dir is None:
        return []
    return run_output.checkpoint_store(Path(run_dir)).load(["name", "task_template", "run_time"])


def execute_parallel(
    prep: Prepared,
    cfg: config_lib.CelilConfig,
    run_dir: Path,
    manifest: dict[str, Any],
    env_factory: Callable[[config_lib.CelilConfig], interface.AsyncEnv],
) -> bool:
    """`--workers N` / `--ray_address`: the same episodes in N workers; only this process writes
    the run directory (see android_world/harness/parallel.py). True if interrupted."""
    from tqdm import tqdm

    bench = cfg.benchmark
    store = run_output.checkpoint_store(run_dir)
    parallel.remove_stale_folders(run_dir / run_output.EPISODES)
    fields = ["name", "error", "exception_info", "is_successful", "usage"]
    done = store.load([*fields, "task_template", "run_time"])
    jobs = parallel.jobs_for(prep.suite, {e["name"] for e in done if not suite_utils.is_failed(e)})
    # Longest expected first: a template's time in this run so far (a resume's checkpoint) or in
    # the earlier run `durations_from` names, else upstream's complexity; equal estimates keep
    # suite order (and a template's instances).
    earlier = earlier_run_times(bench.durations_from)
    expected = parallel.expected_seconds(parallel.recorded_seconds([*earlier, *done]), jobs)
    total = sum(len(v) for v in prep.suite.values())
    spec = worker_spec(prep, cfg, run_dir, env_factory)
    where = f"Ray ({bench.ray_address})" if bench.ray_address is not None else "processes"
    log(agent_line(prep.agent_config_name, prep.agent_registry_name))
    log(f"Workers: {bench.workers} {where}, {len(jobs)} episodes to run")
    live = open_live_view(prep, total, done)
    quiet_bar = not sys.stderr.isatty() or live.uses_terminal
    with tqdm(
        total=total,
        initial=total - len(jobs),
        desc="episodes",
        unit="ep",
        file=sys.stderr,
        disable=quiet_bar,
    ) as bar:
        writer = _ParallelRunDir(prep, run_dir, manifest, bar, live)
        in_order = parallel.memory_writable(prep.agent_registry_name, prep.agent_kwargs)
        try:
            with parallel.open_pool(spec, cfg) as pool:
                scheduler = parallel.Scheduler(
                    pool,
                    bench.workers,
                    writer.outcome,
                    in_order_templates=in_order,
                    log=writer.log,
                    on_ready=writer.ready,
                    on_stats=writer.stats,
                    on_live=live.apply_from,
                    expected=expected,
                )
                scheduler.run(jobs)
        except KeyboardInterrupt:
            return True
        except parallel.ParallelError as exc:
            raise UsageError(str(exc)) from None
        finally:
            live.close()
    return False
