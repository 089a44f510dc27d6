"""The run directory's records shared by the serial and the parallel run: results, summary and
report in the suite's order, the manifest's parts, and the live view."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from absl import flags

from android_world.harness import config as config_lib
from android_world.harness import live_view, run_output, suite_utils
from android_world.harness.prepare import Prepared

FLAGS = flags.FLAGS


def instance_seeds(suite: suite_utils.Suite) -> dict[str, Any]:
    return {
        f"{task.name}_{i}": task.params.get("seed")
        for instances in suite.values()
        for i, task in enumerate(instances)
    }


def _ordered(episodes: list[dict[str, Any]], suite: suite_utils.Suite) -> list[dict[str, Any]]:
    order = {name: i for i, name in enumerate(instance_seeds(suite))}
    return sorted(
        episodes, key=lambda ep: (order.get(ep.get("name"), len(order)), str(ep.get("name")))
    )


def write_outputs(
    run_dir: Path,
    episodes: list[dict[str, Any]],
    prep: Prepared,
    report: bool = True,
    lines: run_output.ResultLines | None = None,
) -> suite_utils.Summary:
    """results.jsonl and summary.csv always; report.html when `report` (see ReportPacer).
    `lines` keeps the episodes' results lines between the calls of one run."""
    episodes = _ordered(episodes, prep.suite)
    run_output.write_results_jsonl(run_dir / "results.jsonl", episodes, lines)
    summary = suite_utils.process_episodes(episodes, task_classes=prep.task_classes)
    run_output.write_summary_csv(run_dir / "summary.csv", summary)
    if report:
        run_output._write_basic_report(run_dir, episodes, summary, prep.cfg.benchmark.suite_family)
    return summary


class ReportPacer:
    """When report.html is rebuilt during a run: after the first episode, then at most every
    `every_s` seconds. It is rebuilt from every episode folder, so rebuilding it after each of
    117 fast episodes cost an eighth of an offline run; the run's end always rebuilds it."""

    def __init__(self, every_s: float = 10.0, clock: Callable[[], float] = time.monotonic):
        self.every_s = every_s
        self._clock = clock
        self._last: float | None = None

    def due(self) -> bool:
        now = self._clock()
        if self._last is not None and now - self._last < self.every_s:
            return False
        self._last = now
        return True


def open_live_view(
    prep: Prepared, total: int, finished: list[dict[str, Any]]
) -> live_view.LiveView:
    """`--live`: the step-by-step view (harness/live_view.py); a person typing the human agent's
    actions gets plain lines, not a panel redrawn over the prompt."""
    return live_view.open_view(
        FLAGS.live if FLAGS.is_parsed() else False,
        total,
        finished,
        names=instance_seeds(prep.suite),
        interactive=prep.agent_registry_name == "human_agent",
    ).start()


def parallel_history(previous: dict[str, Any]) -> dict[str, Any]:
    """A resumed run keeps the restart/retry counts of its earlier parallel sessions."""
    sessions = previous.get("parallel")
    return {"parallel": sessions} if isinstance(sessions, list) else {}


def merged_servers(known: Any, learned: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """manifest.json's `model_servers` plus what a worker (or this process) learned since."""
    from android_world.agents.custom.model_clients import negotiation

    earlier = [e for e in known if isinstance(e, dict)] if isinstance(known, list) else []
    return negotiation.merge_snapshots(earlier, learned)


def env_manifest(cfg: config_lib.CelilConfig) -> dict[str, Any]:
    env: dict[str, Any] = {"type": cfg.env.type, "seed": cfg.env.seed, "render": cfg.env.render}
    if cfg.env.type == "adb":
        adb = cfg.env.adb
        env["adb"] = {
            "serial": adb.serial or f"emulator-{adb.console_port}",
            "avd": adb.emulator.avd or None,
        }
    return env


# In run_output so a worker process can use it without importing this module (and its flags).
