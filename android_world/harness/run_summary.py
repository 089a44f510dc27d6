"""The end of a run: the manifest marked finished, the last outputs, the console summary and
the exit code."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from absl import flags

from android_world.agents.custom.celil_secrets import redact
from android_world.harness import checkpointer as checkpointer_lib
from android_world.harness import config as config_lib
from android_world.harness import discover, run_output, suite_utils
from android_world.harness.prepare import Prepared
from android_world.harness.run_records import merged_servers, write_outputs

FLAGS = flags.FLAGS

EXIT_ALL_MODEL_CALLS_FAILED = 3


def finish(
    prep: Prepared,
    cfg: config_lib.CelilConfig,
    run_dir: Path,
    manifest: dict[str, Any],
    interrupted: bool,
) -> suite_utils.Summary:
    manifest_path = run_dir / "manifest.json"
    checkpoint_store = run_output.checkpoint_store(run_dir)
    # The manifest says finished before the last report is written, so that report does too.
    adaptations = run_output.model_servers()
    if adaptations:
        manifest["model_servers"] = merged_servers(manifest.get("model_servers"), adaptations)
    if not interrupted:
        manifest["finished_at"] = run_output.utc_now()
    checkpointer_lib.write_json_atomic(manifest_path, manifest)
    finished = checkpoint_store.load()
    summary = write_outputs(run_dir, finished, prep)
    if finished and all(suite_utils.is_unscored(ep) for ep in finished):  # --goal
        for ep in finished:
            for line in run_output.goal_lines(ep):
                print(discover.wrap_line(line))
    else:
        title = f"Suite family: {cfg.benchmark.suite_family}"
        if cfg.benchmark.suite_family == "sim":
            title += f"\n{run_output.SIM_DISCLAIMER}"
        print(suite_utils.format_summary(summary, title=title, wide=FLAGS.wide))
        outcomes = suite_utils.outcome_line(finished)
        if outcomes:
            print(discover.wrap_line(outcomes))
        claims = suite_utils.claims_line(finished)
        if claims:
            print(discover.wrap_line(claims))
    print(f"Run directory: {run_dir}")
    if (run_dir / "report.html").is_file():
        print(f"Report: {run_dir / 'report.html'}")
    for line in suite_utils.model_error_lines(finished):
        print(redact(line), file=sys.stderr)
    if interrupted:
        print(f"Interrupted. Resume with: --checkpoint_dir {run_dir}", file=sys.stderr)
        sys.exit(130)
    if suite_utils.all_model_calls_failed(finished):
        print(
            "error: every model call failed, so these results say nothing about the model "
            "(exit code 3); check the server with --check_models",
            file=sys.stderr,
        )
        sys.exit(EXIT_ALL_MODEL_CALLS_FAILED)
    return summary
