"""The serial run: one device, one agent, the suite in order."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from android_world.agents import registry as agent_registry
from android_world.env import interface
from android_world.harness import checkpointer as checkpointer_lib
from android_world.harness import config as config_lib
from android_world.harness import discover, run_facts, run_output, suite_utils
from android_world.harness.prepare import Prepared, agent_key_error
from android_world.harness.run_console import UsageError, agent_line, log
from android_world.harness.run_records import (
    ReportPacer,
    instance_seeds,
    open_live_view,
    write_outputs,
)

# In run_output so a worker process can use it without importing the run command (and its flags).
agent_manifest = run_output.agent_manifest


def build_agent(
    prep: Prepared,
    cfg: config_lib.CelilConfig,
    recorder: run_output.RecordingEnv,
    run_dir: Path,
    manifest: dict[str, Any],
) -> Any:
    """The agent on the recording env; what it says of itself (its resolved models) goes into
    the manifest before the first episode."""
    context = agent_registry.RunContext(
        models=cfg.models,
        run_dir=run_dir,
        seed=cfg.env.seed,
        log=log,
        console_line=discover.wrap_line,
    )
    log(agent_line(prep.agent_config_name, prep.agent_registry_name))
    try:
        agent = agent_registry.get_agent(
            prep.agent_registry_name, recorder, context=context, params=prep.agent_params
        )
    except agent_registry.UnknownAgentError as exc:
        raise UsageError(str(exc)) from None
    except agent_registry.AgentConfigError as exc:
        raise agent_key_error(prep.agent_config_name, exc, prep.source_of) from None
    # null keeps each agent's own pause (upstream's runner does not override agents either).
    if cfg.benchmark.transition_pause is not None:
        agent.transition_pause = cfg.benchmark.transition_pause
    info = agent_manifest(agent)
    if info is not None:
        manifest["agent_info"] = info
        roles = info.get("roles") or info.get("models")
        if isinstance(roles, dict):
            manifest["models"] = roles
        manifest["reproducibility"] = run_facts.reproducibility(
            manifest, prep.suite, cfg, recorder.wrapped
        )
        checkpointer_lib.write_json_atomic(run_dir / "manifest.json", manifest)
    return agent


class LandedCheckpoints(checkpointer_lib.Checkpointer):
    """The run's checkpoints as `suite_utils.run` sees them: an episode's checkpoint (what marks
    it done for a resumed run) is written only after its frames, episode.json and summary.json
    are on disk (harness/episode_landing.py)."""

    def __init__(self, store: checkpointer_lib.Checkpointer, writer: run_output.RunWriter):
        self.store = store
        self.writer = writer

    def save_episodes(self, task_episodes: list[dict[str, Any]], task_name: str) -> None:
        self.writer.after_landing(lambda: self.store.save_episodes(task_episodes, task_name))

    def load(self, fields: list[str] | None = None) -> list[dict[str, Any]]:
        return self.store.load(fields)


def execute_serial(
    prep: Prepared,
    cfg: config_lib.CelilConfig,
    env: interface.AsyncEnv,
    run_dir: Path,
    manifest: dict[str, Any],
) -> bool:
    """The serial run: one env, one agent, the suite in order; True if interrupted."""
    from tqdm import tqdm

    interrupted = False
    checkpoint_store = run_output.checkpoint_store(run_dir)
    recorder = run_output.RecordingEnv(env)
    agent = build_agent(prep, cfg, recorder, run_dir, manifest)

    # A sim that does not render gives blank frames: not worth a file per step.
    screenshots = cfg.benchmark.save_screenshots and (cfg.env.type != "sim" or cfg.env.render)
    # An episode's records are written once its frames are (episode_landing), not waited for.
    writer = run_output.RunWriter(run_dir, recorder, screenshots, wait_for_frames=False)
    done_names = {
        ep["name"]
        for ep in checkpoint_store.load(["name", "error", "exception_info"])
        if not suite_utils.is_failed(ep)
    }
    total = sum(len(v) for v in prep.suite.values())
    already = len(done_names & set(instance_seeds(prep.suite)))
    episodes_by_name = {ep["name"]: ep for ep in checkpoint_store.load() if "name" in ep}
    live = open_live_view(prep, total, [e for n, e in episodes_by_name.items() if n in done_names])
    # Piped to a file, every progress frame would land on one endless line.
    quiet_bar = not sys.stderr.isatty() or live.uses_terminal
    pacer = ReportPacer()
    lines = run_output.ResultLines()
    with tqdm(
        total=total, initial=already, desc="episodes", unit="ep", file=sys.stderr, disable=quiet_bar
    ) as bar:

        def saved(ep: dict[str, Any]) -> None:
            episodes_by_name[ep["name"]] = ep
            write_outputs(run_dir, list(episodes_by_name.values()), prep, pacer.due(), lines)
            bar.write(run_output.episode_line(ep), file=sys.stderr)
            bar.update(1)
            live.episode_saved(ep)

        try:
            suite_utils.run(
                prep.suite,
                agent,
                LandedCheckpoints(checkpoint_store, writer),
                observer=live.observe(writer, recorder),
                checkpoint_episode_data=False,
                on_episode_saved=lambda ep: writer.after_landing(lambda: saved(ep)),
                print_fn=lambda _msg: None,
            )
        except KeyboardInterrupt:
            interrupted = True
        finally:
            writer.close()  # the frames still queued, even when interrupted
            live.close()
    return interrupted
