"""Run a benchmark: `celil-run [flags]` (from a checkout: `./run_benchmark.sh [flags]`).

Flags override config keys (`--set key.path=value` overrides any key). Every bad input ends with
one line on stderr and exit code 2. `--checkpoint_dir <run dir>` resumes a run: finished
episodes are kept, failed or unfinished ones are run again, and the run's own config.yaml is the
base config (flags still override it). `--check_device` and `--check_models` only check the
device or the models named by the config and exit with their result (0 = ready, 1 = a check
failed; `--check_models` exits 4 when no model is configured: every role runs offline).
`--goal "..."` runs one free-form goal (unscored: no task check) instead of tasks.

This module holds the flags and the entry point; the run itself lives beside it: prepare.py
(config, agent, tasks), execute.py (run directory, then serial_run.py or parallel_driver.py),
run_summary.py (the end), listing.py (`--list`, `--dry_run`), run_checks.py, run_console.py.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from absl import app, flags

import android_world
from android_world.agents.custom.celil_secrets import redact
from android_world.env import interface
from android_world.harness import config as config_lib
from android_world.harness import discover
from android_world.harness.execute import execute
from android_world.harness.listing import dry_run_text, list_text
from android_world.harness.prepare import (
    Prepared,
    force_models,
    load_run_config,
    perform_emulator_setup,
    prepare,
    task_registry,
)
from android_world.harness.run_checks import run_checks
from android_world.harness.run_console import (
    UsageError,
    agent_line,
    first_line,
    print_listing,
    quiet_third_party_logs,
    redact_logs,
)
from android_world.harness.run_summary import EXIT_ALL_MODEL_CALLS_FAILED
from android_world.harness.serial_run import agent_manifest

# Other code and tests use these names from here; `task_registry` and `make_env` are the seams
# tests replace on this module (main passes them on).
__all__ = [
    "EXIT_ALL_MODEL_CALLS_FAILED",
    "FLAGS",
    "Prepared",
    "UsageError",
    "agent_line",
    "agent_manifest",
    "force_models",
    "main",
    "make_env",
    "run_cli",
    "task_registry",
]

FLAGS = flags.FLAGS

flags.DEFINE_string("config", str(config_lib.DEFAULT_CONFIG_PATH), "Run config YAML file.")
flags.DEFINE_string("agent", None, "Agent (a key of agent.configurations, or a registered name).")
flags.DEFINE_string("agent_name", None, "Upstream AndroidWorld's name for --agent.")
flags.DEFINE_string(
    "agent_module", None, "Run an agent class from a file: path/to/file.py:ClassName."
)
flags.DEFINE_string("adb_path", None, "Path to the adb binary (env.adb.adb_path), as upstream.")
flags.DEFINE_boolean(
    "fixed_task_seed",
    None,
    "As upstream: every instance of a task gets the same parameters "
    "(benchmark.use_identical_params).",
)
flags.DEFINE_boolean(
    "perform_emulator_setup",
    False,
    "Upstream's one-time app installation; this harness installs no apps (docs/UPSTREAM.md).",
)
flags.DEFINE_string("env", None, "Environment: sim or adb.")
flags.DEFINE_string("suite_family", None, "Task family (sim).")
flags.DEFINE_string(
    "sim_profile", None, "Sim phone profile, e.g. small,dialogs,vendor,slow (--list profiles)."
)
flags.DEFINE_string(
    "goal",
    None,
    'Run one free-form goal instead of tasks, e.g. --goal "Turn on Wi-Fi": one episode, no task '
    "check (unscored: the agent's own claim is the outcome).",
)
flags.DEFINE_string(
    "app", None, "With --goal: the app the episode starts in (e.g. Camera); default: home screen."
)
flags.DEFINE_integer(
    "max_steps", None, "With --goal: the episode's step budget (default 30).", lower_bound=1
)
flags.DEFINE_string("tasks", None, "Comma-separated task names; default: every task.")
flags.DEFINE_string("tags", None, "Comma-separated tags: keep tasks carrying any of them.")
flags.DEFINE_string("difficulty", None, "Comma-separated difficulties (easy, medium, hard).")
flags.DEFINE_enum(
    "list", None, list(discover.LIST_KINDS), "List tasks, agents or profiles and exit."
)
flags.DEFINE_boolean(
    "dry_run", False, "Validate the config, agent and tasks, print what would run, and exit."
)
flags.DEFINE_integer("n_task_combinations", None, "Instances (parameter draws) per task.")
flags.DEFINE_integer("task_random_seed", None, "Seed of the task parameter draws.")
flags.DEFINE_string("output_path", None, "Parent directory of new run directories.")
flags.DEFINE_string("checkpoint_dir", None, "A run directory to resume (or, with --new, create).")
flags.DEFINE_boolean(
    "new", False, "Let --checkpoint_dir name a directory that does not exist yet (a new run)."
)
flags.DEFINE_multi_string("set", [], "Override a config key: dotted.key.path=value (YAML).")
flags.DEFINE_integer(
    "console_port", None, "adb: emulator console port; the serial is emulator-<port> (5554)."
)
flags.DEFINE_enum(
    "models",
    None,
    ["auto", "offline"],
    "Backend of every model role: offline = the no-model baseline roles; auto = resolve each "
    "role (Gemini key, Ollama, OpenAI-compatible server, else offline).",
)
flags.DEFINE_boolean("check_device", False, "Check the adb device (env.adb) and exit (0 = ready).")
flags.DEFINE_boolean(
    "check_models",
    False,
    "Call every configured model role once and exit: 0 = all passed, 1 = a check failed, "
    "4 = no model configured (every role offline).",
)
flags.DEFINE_integer(
    "workers", None, "Run episodes in N worker processes, one device each (benchmark.workers)."
)
flags.DEFINE_string(
    "ray_address",
    None,
    "Run the workers as Ray actors: auto, local, ray://host:port (benchmark.ray_address).",
)
flags.DEFINE_string(
    "durations_from",
    None,
    "An earlier run directory: its episodes' times order a parallel run, longest first "
    "(benchmark.durations_from).",
)
flags.DEFINE_boolean("version", False, "Print Celil's version and exit.")
flags.DEFINE_boolean("wide", False, "Print the summary table with every column at full width.")
flags.DEFINE_boolean(
    "live",
    True,
    "Show each step on stderr: a live panel on a terminal, one line per step when piped "
    "(--nolive: off).",
)
# `-h` as argparse tools accept it: absl's --help under another name, listed beside it.
app.define_help_flags()
flags.DEFINE_alias("h", "help", module_name=app.__name__)


def _fail(message: str) -> None:
    print(redact(f"error: {message}"), file=sys.stderr)
    sys.exit(2)


def _parse_flags(argv: list[str]) -> list[str]:
    try:
        return FLAGS(argv)
    except flags.Error as exc:
        _fail(str(exc).splitlines()[0])
    return []


def make_env(cfg: config_lib.CelilConfig) -> interface.AsyncEnv:
    """Build the device (a seam tests replace); each env's modules load only when used.

    A device that cannot be reached at start-up is bad input (one line, exit 2); once the run
    is going, a device error only fails the episode it happens in.
    """
    if cfg.env.type == "adb":
        try:
            from android_world.env.adb.adb_env import AdbEnv
            from android_world.env.adb.adb_runner import AdbError
        except ImportError as exc:
            raise UsageError(f"the adb environment cannot be loaded ({exc}).") from None
        try:
            return AdbEnv.from_config(cfg.env.adb.to_mapping())
        except AdbError as exc:
            raise UsageError(f"--env adb: {first_line(exc)}") from None
        except ValueError as exc:
            raise UsageError(f"env.adb: {first_line(exc)}") from None
    try:
        from android_world.env.sim.sim_env import SimEnv
    except ImportError as exc:
        raise UsageError(f"the simulated phone cannot be loaded ({exc}).") from None
    return SimEnv(
        seed=cfg.env.seed,
        render=cfg.env.render,
        profile=cfg.env.sim.profile,
        adjust_step_budget=cfg.env.sim.adjust_step_budget,
    )


def main(argv: Sequence[str]) -> None:
    quiet_third_party_logs()
    redact_logs()
    if FLAGS.version:
        print(f"celil {android_world.__version__}")
        return
    try:
        if FLAGS.check_device or FLAGS.check_models:
            cfg, _, _ = load_run_config(argv)
            sys.exit(run_checks(cfg))
        if FLAGS.list:
            cfg, _, _ = load_run_config(argv)
            print_listing(list_text(FLAGS.list, cfg, task_registry))
            return
        prep = prepare(argv, check_startup=not FLAGS.dry_run, tasks_of=task_registry)
        if FLAGS.perform_emulator_setup:
            perform_emulator_setup(prep.cfg)
        if FLAGS.dry_run:
            print(dry_run_text(prep))
            return
        execute(prep, make_env)
    except (UsageError, config_lib.ConfigError) as exc:
        _fail(str(exc))


def run_cli(argv: list[str] | None = None) -> None:
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    app.run(main, argv=argv, flags_parser=_parse_flags)


if __name__ == "__main__":
    run_cli()
