"""Run a benchmark: `celil-run [flags]` (from a checkout: `./run_benchmark.sh [flags]`).

Flags override config keys (`--set key.path=value` overrides any key). Every bad input ends with
one line on stderr and exit code 2. `--checkpoint_dir <run dir>` resumes a run: finished
episodes are kept, failed or unfinished ones are run again, and the run's own config.yaml is the
base config (flags still override it). `--check_device` and `--check_models` only check the
device or the models named by the config and exit with their result (0 = ready, 1 = a check
failed; `--check_models` exits 4 when no model is configured: every role runs offline).
`--goal "..."` runs one free-form goal (unscored: no task check) instead of tasks.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from absl import app, flags

import android_world
from android_world.agents import registry as agent_registry
from android_world.agents.custom.celil_secrets import redact
from android_world.env import interface
from android_world.harness import checkpointer as checkpointer_lib
from android_world.harness import config as config_lib
from android_world.harness import discover, live_view, parallel, run_facts, run_output, suite_utils
from android_world.task_evals import registry as task_registry_lib
from android_world.task_evals import task_eval

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

_FLAG_TO_KEY = {
    "agent": ["agent", "active_agent"],
    "env": ["env", "type"],
    "suite_family": ["benchmark", "suite_family"],
    "tasks": ["benchmark", "tasks"],
    "tags": ["benchmark", "tags"],
    "difficulty": ["benchmark", "difficulty"],
    "n_task_combinations": ["benchmark", "n_task_combinations"],
    "task_random_seed": ["benchmark", "task_random_seed"],
    "output_path": ["benchmark", "output_path"],
    "checkpoint_dir": ["benchmark", "checkpoint_dir"],
    "console_port": ["env", "adb", "console_port"],
    "agent_name": ["agent", "active_agent"],
    "adb_path": ["env", "adb", "adb_path"],
    "fixed_task_seed": ["benchmark", "use_identical_params"],
    "workers": ["benchmark", "workers"],
    "ray_address": ["benchmark", "ray_address"],
    "sim_profile": ["env", "sim", "profile"],
}


EXIT_ALL_MODEL_CALLS_FAILED = 3


class UsageError(Exception):
    """Bad input: printed as one line, exit code 2."""


def _fail(message: str) -> None:
    print(redact(f"error: {message}"), file=sys.stderr)
    sys.exit(2)


def _parse_flags(argv: list[str]) -> list[str]:
    try:
        return FLAGS(argv)
    except flags.Error as exc:
        _fail(str(exc).splitlines()[0])
    return []


@dataclasses.dataclass
class Prepared:
    """Everything checked before any device is touched."""

    cfg: config_lib.CelilConfig
    config_label: str
    agent_config_name: str
    agent_registry_name: str
    agent_kwargs: dict[str, Any]  # as the config wrote them (recorded in manifest.json)
    task_classes: dict[str, type[task_eval.TaskEval]]
    suite: suite_utils.Suite
    run_dir: Path | None
    resuming: bool
    # The kwargs validated once (the agent's config model), what every agent is built from.
    agent_params: agent_registry.AgentParams = dataclasses.field(default_factory=dict)
    flag_sources: dict[str, str] = dataclasses.field(default_factory=dict)

    def source_of(self, path: str) -> str:
        """The file, flag or `--set` item that set config key `path` (for error lines)."""
        return config_lib.source_of(path, self.config_label, list(FLAGS.set), self.flag_sources)


def _flag_overrides() -> list[tuple[list[str], Any, str]]:
    return [
        (key, FLAGS[name].value, f"--{name}")
        for name, key in _FLAG_TO_KEY.items()
        if FLAGS[name].value is not None
    ]


def task_registry(family: str) -> dict[str, type[task_eval.TaskEval]]:
    """The task classes of `family` (a seam tests replace)."""
    try:
        return task_registry_lib.TaskRegistry().get_registry(family)
    except ValueError as exc:
        raise UsageError(f"benchmark.suite_family: {exc}") from None


def force_models(cfg: config_lib.CelilConfig, backend: str | None) -> config_lib.CelilConfig:
    """`--models offline|auto`: the same backend for every configured role."""
    if backend is None:
        return cfg
    roles = {
        role: cfg.models.role_config(role).model_copy(update={"backend": backend})
        for role in cfg.models.roles()
    }
    return cfg.model_copy(update={"models": cfg.models.model_copy(update=roles)})


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
            raise UsageError(f"--env adb: {_first_line(exc)}") from None
        except ValueError as exc:
            raise UsageError(f"env.adb: {_first_line(exc)}") from None
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


def _profile_label(cfg: config_lib.CelilConfig) -> str:
    """` (profile landscape,dialogs; step budgets x2.2, +1 per app for its pop-up)` for a sim
    run with a profile, else ``."""
    if cfg.env.type != "sim" or not cfg.env.sim.profile:
        return ""
    from android_world.env import sim_profile

    note = sim_profile.parse(cfg.env.sim.profile).step_budget_note()
    budgets = f"; step budgets {note}" if note and cfg.env.sim.adjust_step_budget else ""
    return f" (profile {','.join(cfg.env.sim.profile)}{budgets})"


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def load_run_config(argv_rest: Sequence[str] = ()) -> tuple[config_lib.CelilConfig, Path, bool]:
    """(validated config, the file it came from, whether it is a resumed run's config)."""
    cfg, config_path, resuming, _ = _load_run_config(argv_rest)
    return cfg, config_path, resuming


def _load_run_config(
    argv_rest: Sequence[str],
) -> tuple[config_lib.CelilConfig, Path, bool, dict[str, str]]:
    """`load_run_config` and which flag set which key (for naming the flag in errors)."""
    if FLAGS.agent and FLAGS.agent_name and FLAGS.agent != FLAGS.agent_name:
        raise UsageError(f"--agent {FLAGS.agent} and --agent_name {FLAGS.agent_name} disagree")
    if len(argv_rest) > 1:
        raise UsageError(f"unexpected argument {argv_rest[1]!r} (flags look like --name=value)")
    checkpoint_dir = FLAGS.checkpoint_dir
    if checkpoint_dir and not FLAGS.new and not Path(checkpoint_dir).is_dir():
        raise UsageError(
            f"--checkpoint_dir {checkpoint_dir}: no such run directory "
            "(to start a new run there, add --new)"
        )
    config_path = Path(FLAGS.config)
    resuming = False
    if checkpoint_dir and (Path(checkpoint_dir) / "config.yaml").is_file():
        config_path, resuming = Path(checkpoint_dir) / "config.yaml", True
    elif not config_path.is_file():
        raise UsageError(
            f"config file not found: {config_path} (pass --config with an existing file)"
        )
    overrides = _flag_overrides()
    if FLAGS.agent_module:
        from android_world.agents import module_loader

        try:
            name = module_loader.register_module_agent(FLAGS.agent_module)
        except module_loader.AgentModuleError as exc:
            raise UsageError(str(exc)) from None
        if not (FLAGS.agent or FLAGS.agent_name):
            overrides.append((["agent", "active_agent"], name, "--agent_module"))
    cfg, _ = config_lib.load_config(config_path, list(FLAGS.set), overrides)
    sources = config_lib.override_sources(overrides)
    if FLAGS.models is not None:
        sources.update({f"models.{role}.backend": "--models" for role in cfg.models.roles()})
    return force_models(cfg, FLAGS.models), config_path, resuming, sources


def run_checks(cfg: config_lib.CelilConfig) -> int:
    """`--check_device` / `--check_models`: print their tables; a failed check (1) wins over
    "no model to check" (check_models.EXIT_NO_MODEL), which wins over 0."""
    codes = [0]
    if FLAGS.check_device:
        from android_world.env.adb.adb_runner import AdbError
        from android_world.env.adb.check_device import check_device

        try:
            codes.append(check_device(cfg.env.adb.to_mapping(), log=print))
        except (AdbError, ValueError) as exc:
            raise UsageError(f"--check_device: {_first_line(exc)}") from None
    if FLAGS.check_models:
        from android_world.harness.check_models import check_models

        conf = cfg.agent.configurations.get(cfg.agent.active_agent)
        executor_format = str((conf.kwargs() if conf else {}).get("executor_format", "uitars"))
        codes.append(
            check_models(cfg.models, log=print, wide=FLAGS.wide, executor_format=executor_format)
        )
    return 1 if 1 in codes else max(codes)


def prepare(argv_rest: Sequence[str] = (), check_startup: bool = True) -> Prepared:
    """Everything checked before a device is touched or a run directory is created: the config,
    the agent's keys (validated once), the task selection and, with `check_startup`, the
    agent's own start-up check (Celil: its model servers)."""
    cfg, config_path, resuming, flag_sources = _load_run_config(argv_rest)
    if resuming:
        _log(f"Resuming {FLAGS.checkpoint_dir} with its config.yaml (flags still override it).")
    elif FLAGS.checkpoint_dir:
        from android_world.harness import upstream_checkpoints

        found = len(upstream_checkpoints.files_in(FLAGS.checkpoint_dir))
        if found:
            _log(
                f"Resuming an upstream AndroidWorld run in {FLAGS.checkpoint_dir}: its {found} "
                "checkpoint file(s) (*.pkl.gz) hold finished episodes; the rest run here."
            )

    registered = agent_registry.list_agents()
    config_name, registry_name, kwargs = config_lib.resolve_agent(cfg, registered)

    def source(path: str) -> str:
        return config_lib.source_of(path, str(config_path), list(FLAGS.set), flag_sources)

    try:
        params = agent_registry.validate_kwargs(registry_name, kwargs)
    except agent_registry.UnknownAgentError as exc:
        path = f"agent.configurations.{config_name}.registry_name"
        raise UsageError(f"{source(path)}: {path}: {exc}") from None
    except agent_registry.AgentConfigError as exc:
        raise agent_key_error(config_name, exc, source) from None

    if FLAGS.goal is not None:
        classes, suite = goal_suite(cfg, flag_sources)
    else:
        if FLAGS.app is not None or FLAGS.max_steps is not None:
            raise UsageError("--app and --max_steps go with --goal (tasks bring their own)")
        classes, suite = task_suite(cfg)
    run_dir = Path(FLAGS.checkpoint_dir) if FLAGS.checkpoint_dir else None
    prep = Prepared(
        cfg,
        str(config_path),
        config_name,
        registry_name,
        kwargs,
        classes,
        suite,
        run_dir,
        resuming,
        agent_params=params,
        flag_sources=flag_sources,
    )
    if check_startup:
        startup_check(prep)
    return prep


def task_suite(
    cfg: config_lib.CelilConfig,
) -> tuple[dict[str, type[task_eval.TaskEval]], suite_utils.Suite]:
    """The benchmark's tasks: the family's registry, filtered, drawn."""
    classes = select_tasks(task_registry(cfg.benchmark.suite_family), cfg.benchmark)
    try:
        suite = suite_utils.create_suite(
            classes,
            n_task_combinations=cfg.benchmark.n_task_combinations,
            seed=cfg.benchmark.task_random_seed,
            tasks=cfg.benchmark.tasks or None,
            use_identical_params=cfg.benchmark.use_identical_params,
        )
    except suite_utils.UnknownTaskError as exc:
        raise UsageError(str(exc)) from None
    suite.suite_family = cfg.benchmark.suite_family
    if not suite:
        raise UsageError(f"suite family {cfg.benchmark.suite_family!r} has no tasks to run")
    return classes, suite


def goal_suite(
    cfg: config_lib.CelilConfig, flag_sources: dict[str, str]
) -> tuple[dict[str, type[task_eval.TaskEval]], suite_utils.Suite]:
    """`--goal`: a suite of one unscored task (android_world/task_evals/free_goal.py), so the
    episode runs, records and reports like any other."""
    from android_world.task_evals import free_goal

    chosen = [
        flag
        for flag in ("--tasks", "--tags", "--difficulty", "--n_task_combinations")
        if flag in flag_sources.values()
    ]
    if chosen:
        raise UsageError(f"--goal runs one goal instead of tasks: drop {', '.join(chosen)}")
    max_steps = FLAGS.max_steps or free_goal.DEFAULT_MAX_STEPS
    seed = suite_utils.instance_seed(cfg.benchmark.task_random_seed, free_goal.TASK_NAME, 0)
    try:
        task = free_goal.free_goal(FLAGS.goal, FLAGS.app, max_steps, seed=seed)
    except ValueError as exc:
        flag = "--app" if str(exc).startswith("unknown app") else "--goal"
        raise UsageError(f"{flag}: {exc}") from None
    suite = suite_utils.Suite({task.name: [task]})
    suite.suite_family = cfg.benchmark.suite_family
    return {task.name: free_goal.FreeGoal}, suite


def agent_key_error(
    config_name: str, exc: agent_registry.AgentConfigError, source: Callable[[str], str]
) -> UsageError:
    """One line naming the agent key at fault, its full config path and where it was set."""
    path = f"agent.configurations.{config_name}" + (f".{exc.path}" if exc.path else "")
    return UsageError(f"{source(path)}: {path}: {exc.message}")


def startup_check(prep: Prepared) -> None:
    """The agent's start-up check (Celil: every configured model can work), before any run
    directory or episode: a dead server costs one probe, not a run of failing calls."""
    cfg = prep.cfg
    context = agent_registry.RunContext(models=cfg.models, seed=cfg.env.seed, log=_log)
    try:
        agent_registry.check_startup(prep.agent_registry_name, prep.agent_params, context)
    except agent_registry.StartupError as exc:
        raise UsageError(f"{prep.source_of(exc.path)}: {exc.path}: {exc.message}") from None
    except agent_registry.AgentConfigError as exc:
        raise agent_key_error(prep.agent_config_name, exc, prep.source_of) from None


def perform_emulator_setup(cfg: config_lib.CelilConfig) -> None:
    """Upstream installs and prepares its apps once per emulator with this flag. The simulated
    phone needs nothing; on adb this harness installs no apps, so it says what to do instead of
    pretending to have done it."""
    if cfg.env.type == "sim":
        _log("--perform_emulator_setup: the simulated phone needs no set-up; continuing.")
        return
    raise UsageError(
        "--perform_emulator_setup: this harness installs no apps. Run upstream AndroidWorld's "
        "`python run.py --perform_emulator_setup` once on this emulator (its README), then run "
        "here without the flag; --check_device shows what the device has."
    )


def select_tasks(
    classes: dict[str, type[task_eval.TaskEval]], bench: config_lib.BenchmarkConfig
) -> dict[str, type[task_eval.TaskEval]]:
    """The task classes left after `benchmark.tags` / `benchmark.difficulty`."""
    if not bench.tags and not bench.difficulty:
        return classes
    infos = [discover.task_info(name, cls) for name, cls in classes.items()]
    try:
        kept = discover.filter_tasks(infos, bench.tags, bench.difficulty)
    except ValueError as exc:
        raise UsageError(f"--tags/--difficulty: {exc}") from None
    if not kept:
        raise UsageError(
            f"no task has tags {bench.tags or 'any'} and difficulty {bench.difficulty or 'any'}"
        )
    return {info.name: classes[info.name] for info in kept}


def list_text(kind: str, cfg: config_lib.CelilConfig) -> str:
    """`--list tasks|agents`: read from the registries and the config, no device touched."""
    if kind == "profiles":
        from android_world.env import sim_profile

        return sim_profile.list_text()
    if kind == "agents":
        configured = {k: c.registry_name for k, c in cfg.agent.configurations.items()}
        return discover.agents_table(
            configured, agent_registry.list_agents(), cfg.agent.active_agent
        )
    classes = select_tasks(task_registry(cfg.benchmark.suite_family), cfg.benchmark)
    suite = suite_utils.create_suite(classes, 1, seed=cfg.benchmark.task_random_seed)
    infos = [
        discover.task_info(name, classes[name], instances[0]) for name, instances in suite.items()
    ]
    return discover.tasks_table(infos)


def dry_run_text(prep: Prepared) -> str:
    cfg = prep.cfg
    models = {
        role: cfg.models.role_config(role).backend
        + (f":{cfg.models.role_config(role).model}" if cfg.models.role_config(role).model else "")
        for role in cfg.models.roles()
    }
    if prep.agent_registry_name != "celil_agent":
        models = {}
    goal_run = bool(prep.suite) and all(
        not suite_utils.is_scored(t) for ts in prep.suite.values() for t in ts
    )
    where = str(prep.run_dir) if prep.run_dir else f"{cfg.benchmark.output_path}/run_<timestamp>"
    if prep.resuming:
        where += " (resumed)"
    return discover.dry_run_text(
        config_label=prep.config_label,
        agent=agent_line(prep.agent_config_name, prep.agent_registry_name).removeprefix("Agent: "),
        env=cfg.env.type + _profile_label(cfg),
        suite_family=cfg.benchmark.suite_family,
        n_task_combinations=1 if goal_run else cfg.benchmark.n_task_combinations,
        task_names=[_goal_label(prep.suite)] if goal_run else list(prep.suite),
        models=models,
        run_dir=where,
    )


def _goal_label(suite: suite_utils.Suite) -> str:
    """`--dry_run --goal`: the goal, where it starts and its budget, not just "FreeGoal"."""
    task = next(t for ts in suite.values() for t in ts)
    start = f" in {task.app_names[0]}" if task.app_names else ""
    return f"{task.name}: {task.goal!r}{start}, {int(10 * task.complexity)} steps, unscored"


def _instance_seeds(suite: suite_utils.Suite) -> dict[str, Any]:
    return {
        f"{task.name}_{i}": task.params.get("seed")
        for instances in suite.values()
        for i, task in enumerate(instances)
    }


def _ordered(episodes: list[dict[str, Any]], suite: suite_utils.Suite) -> list[dict[str, Any]]:
    order = {name: i for i, name in enumerate(_instance_seeds(suite))}
    return sorted(
        episodes, key=lambda ep: (order.get(ep.get("name"), len(order)), str(ep.get("name")))
    )


def _write_outputs(
    run_dir: Path,
    episodes: list[dict[str, Any]],
    prep: Prepared,
) -> suite_utils.Summary:
    episodes = _ordered(episodes, prep.suite)
    run_output.write_results_jsonl(run_dir / "results.jsonl", episodes)
    summary = suite_utils.process_episodes(episodes, task_classes=prep.task_classes)
    run_output.write_summary_csv(run_dir / "summary.csv", summary)
    run_output._write_basic_report(run_dir, episodes, summary, prep.cfg.benchmark.suite_family)
    return summary


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
    manifest = _read_manifest(manifest_path)
    now = run_output.utc_now()
    resumed_at = manifest.get("resumed_at")
    manifest = run_output.build_manifest(
        started_at=manifest.get("started_at", now),
        resumed_at=[*(resumed_at if isinstance(resumed_at, list) else []), now] if manifest else [],
        finished_at=None,
        suite_family=cfg.benchmark.suite_family,
        note=run_output.SIM_DISCLAIMER if cfg.benchmark.suite_family == "sim" else None,
        env=_env_manifest(cfg),
        seeds={
            "env": cfg.env.seed,
            "task_random_seed": cfg.benchmark.task_random_seed,
            "instances": _instance_seeds(prep.suite),
        },
        agent={
            "configuration": prep.agent_config_name,
            "registry_name": prep.agent_registry_name,
            "kwargs": config_lib.redact(checkpointer_lib.to_jsonable(prep.agent_kwargs)),
        },
    ) | _parallel_history(manifest)
    manifest["reproducibility"] = run_facts.reproducibility(manifest, prep.suite, cfg, env)
    checkpointer_lib.write_json_atomic(manifest_path, manifest)

    # Regenerate from checkpoints first: a kill between checkpoint and results leaves no gap.
    _write_outputs(run_dir, checkpoint_store.load(), prep)

    interrupted = False
    if env is None:
        assert env_factory is not None
        interrupted = _execute_parallel(prep, cfg, run_dir, manifest, env_factory)
    else:
        interrupted = _execute_serial(prep, cfg, env, run_dir, manifest)
    return _finish(prep, cfg, run_dir, manifest, interrupted)


def _execute_serial(
    prep: Prepared,
    cfg: config_lib.CelilConfig,
    env: interface.AsyncEnv,
    run_dir: Path,
    manifest: dict[str, Any],
) -> bool:
    """The serial run: one env, one agent, the suite in order; True if interrupted."""
    from tqdm import tqdm

    interrupted = False
    manifest_path = run_dir / "manifest.json"
    checkpoint_store = run_output.checkpoint_store(run_dir)
    recorder = run_output.RecordingEnv(env)
    context = agent_registry.RunContext(
        models=cfg.models,
        run_dir=run_dir,
        seed=cfg.env.seed,
        log=_log,
        console_line=discover.wrap_line,
    )
    _log(agent_line(prep.agent_config_name, prep.agent_registry_name))
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
        manifest["reproducibility"] = run_facts.reproducibility(manifest, prep.suite, cfg, env)
        checkpointer_lib.write_json_atomic(manifest_path, manifest)

    # A sim that does not render gives blank frames: not worth a file per step.
    screenshots = cfg.benchmark.save_screenshots and (cfg.env.type != "sim" or cfg.env.render)
    writer = run_output.RunWriter(run_dir, recorder, screenshots)
    done_names = {
        ep["name"]
        for ep in checkpoint_store.load(["name", "error", "exception_info"])
        if not suite_utils.is_failed(ep)
    }
    total = sum(len(v) for v in prep.suite.values())
    already = len(done_names & set(_instance_seeds(prep.suite)))
    episodes_by_name = {ep["name"]: ep for ep in checkpoint_store.load() if "name" in ep}
    live = _live_view(prep, total, [e for n, e in episodes_by_name.items() if n in done_names])
    # Piped to a file, every progress frame would land on one endless line.
    quiet_bar = not sys.stderr.isatty() or live.uses_terminal
    with tqdm(
        total=total, initial=already, desc="episodes", unit="ep", file=sys.stderr, disable=quiet_bar
    ) as bar:

        def saved(ep: dict[str, Any]) -> None:
            episodes_by_name[ep["name"]] = ep
            _write_outputs(run_dir, list(episodes_by_name.values()), prep)
            bar.write(_episode_line(ep), file=sys.stderr)
            bar.update(1)
            live.episode_saved(ep)

        try:
            suite_utils.run(
                prep.suite,
                agent,
                checkpoint_store,
                observer=live.observe(writer, recorder),
                checkpoint_episode_data=False,
                on_episode_saved=saved,
                print_fn=lambda _msg: None,
            )
        except KeyboardInterrupt:
            interrupted = True
        finally:
            live.close()
    return interrupted


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
        history = manifest.get("parallel")
        self.sessions = list(history) if isinstance(history, list) else []
        self.started = run_output.utc_now()

    def outcome(self, outcome: parallel.Outcome) -> None:
        ep = outcome.episode
        if outcome.model_servers:  # learned in the worker, shown as a serial run shows it
            self.manifest["model_servers"] = _merged_servers(
                self.manifest.get("model_servers"), outcome.model_servers
            )
            self._write_manifest()
        if outcome.files:
            parallel.install_folder(self.run_dir / run_output.EPISODES, ep["name"], outcome.files)
        self.store.save_episodes([ep], ep["name"])
        self.episodes[ep["name"]] = ep
        _write_outputs(self.run_dir, list(self.episodes.values()), self.prep)
        self.bar.write(_episode_line(ep), file=sys.stderr)
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


def _execute_parallel(
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
    done = store.load(["name", "error", "exception_info", "is_successful", "usage"])
    jobs = parallel.jobs_for(prep.suite, {e["name"] for e in done if not suite_utils.is_failed(e)})
    total = sum(len(v) for v in prep.suite.values())
    spec = parallel.WorkerSpec(
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
    where = f"Ray ({bench.ray_address})" if bench.ray_address is not None else "processes"
    _log(agent_line(prep.agent_config_name, prep.agent_registry_name))
    _log(f"Workers: {bench.workers} {where}, {len(jobs)} episodes to run")
    live = _live_view(prep, total, done)
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
                )
                scheduler.run(jobs)
        except KeyboardInterrupt:
            return True
        except parallel.ParallelError as exc:
            raise UsageError(str(exc)) from None
        finally:
            live.close()
    return False


def _live_view(prep: Prepared, total: int, finished: list[dict[str, Any]]) -> live_view.LiveView:
    """`--live`: the step-by-step view (android_world/harness/live_view.py); a person typing the human
    agent's actions gets plain lines, not a panel redrawn over the prompt."""
    return live_view.open_view(
        FLAGS.live if FLAGS.is_parsed() else False,
        total,
        finished,
        names=_instance_seeds(prep.suite),
        interactive=prep.agent_registry_name == "human_agent",
    ).start()


def _parallel_history(previous: dict[str, Any]) -> dict[str, Any]:
    """A resumed run keeps the restart/retry counts of its earlier parallel sessions."""
    sessions = previous.get("parallel")
    return {"parallel": sessions} if isinstance(sessions, list) else {}


def _finish(
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
        manifest["model_servers"] = _merged_servers(manifest.get("model_servers"), adaptations)
    if not interrupted:
        manifest["finished_at"] = run_output.utc_now()
    checkpointer_lib.write_json_atomic(manifest_path, manifest)
    finished = checkpoint_store.load()
    summary = _write_outputs(run_dir, finished, prep)
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


def _merged_servers(known: Any, learned: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """manifest.json's `model_servers` plus what a worker (or this process) learned since."""
    from android_world.agents.custom.model_clients import negotiation

    earlier = [e for e in known if isinstance(e, dict)] if isinstance(known, list) else []
    return negotiation.merge_snapshots(earlier, learned)


def _read_manifest(path: Path) -> dict[str, Any]:
    """A damaged or hand-edited manifest is started afresh rather than stopping a resume."""
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _env_manifest(cfg: config_lib.CelilConfig) -> dict[str, Any]:
    env: dict[str, Any] = {"type": cfg.env.type, "seed": cfg.env.seed, "render": cfg.env.render}
    if cfg.env.type == "adb":
        adb = cfg.env.adb
        env["adb"] = {
            "serial": adb.serial or f"emulator-{adb.console_port}",
            "avd": adb.emulator.avd or None,
        }
    return env


# In run_output so a worker process can use it without importing this module (and its flags).
agent_manifest = run_output.agent_manifest


def agent_line(config_name: str, registry_name: str) -> str:
    """The console names the agent that runs: a config that silently ran another agent cost users
    whole runs."""
    if config_name == registry_name:
        return f"Agent: {config_name}"
    return f"Agent: {config_name} (registry name {registry_name})"


_episode_line = run_output.episode_line


def _log(message: str) -> None:
    """Console lines of the run (the banner names model servers): redacted like every file."""
    print(redact(message), file=sys.stderr)


class _RedactingFilter(logging.Filter):
    """Log records pass the same redaction (`--verbosity=1` logs every request's URL)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


def redact_logs() -> None:
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, _RedactingFilter) for f in handler.filters):
            handler.addFilter(_RedactingFilter())


# Model SDKs log every request at INFO ("HTTP Request: POST ...", "AFC is enabled ..."): most of
# a run's console otherwise. Their warnings and errors still show.
_CHATTY_LOGGERS = (
    "httpx",
    "httpx2",  # what the openai SDK (3.x) sends its requests with
    "httpcore",
    "httpcore2",
    "google_genai",
    "google.genai",
    "openai",
    "ollama",
    "urllib3",
)


def quiet_third_party_logs() -> None:
    """Off with `--verbosity=1` (absl's flag), which shows every request for debugging."""
    from absl import logging as absl_logging

    if absl_logging.get_verbosity() >= 1:
        return
    for name in _CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)


def _print_listing(text: str) -> None:
    """A listing piped into `head` or `grep -m1` ends quietly when the reader stops reading."""
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


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
            _print_listing(list_text(FLAGS.list, cfg))
            return
        prep = prepare(argv, check_startup=not FLAGS.dry_run)
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
