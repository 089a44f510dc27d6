"""The run's preparation, before any device is touched: the config (file, flags, `--set`),
the agent's keys validated once, the task selection (or `--goal`) and the agent's start-up
check. Reads the run command's flags (defined in android_world/harness/run.py) from absl."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from absl import flags

from android_world.agents import registry as agent_registry
from android_world.harness import checkpointer as checkpointer_lib
from android_world.harness import config as config_lib
from android_world.harness import discover, suite_utils
from android_world.harness.run_console import UsageError, log
from android_world.task_evals import registry as task_registry_lib
from android_world.task_evals import task_eval

FLAGS = flags.FLAGS

FLAG_TO_KEY = {
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
    "durations_from": ["benchmark", "durations_from"],
    "sim_profile": ["env", "sim", "profile"],
}


TaskRegistry = Callable[[str], dict[str, type[task_eval.TaskEval]]]


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
    free_goal: FreeGoalSpec | None = None  # `--goal` runs, recorded for their resume

    def source_of(self, path: str) -> str:
        """The file, flag or `--set` item that set config key `path` (for error lines)."""
        return config_lib.source_of(path, self.config_label, list(FLAGS.set), self.flag_sources)


def flag_overrides() -> list[tuple[list[str], Any, str]]:
    return [
        (key, FLAGS[name].value, f"--{name}")
        for name, key in FLAG_TO_KEY.items()
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
    overrides = flag_overrides()
    if FLAGS.agent_module:
        from android_world.agents import module_loader

        try:
            name = module_loader.register_module_agent(FLAGS.agent_module)
        except module_loader.AgentModuleError as exc:
            raise UsageError(str(exc)) from None
        if not (FLAGS.agent or FLAGS.agent_name):
            overrides.append((["agent", "active_agent"], name, "--agent_module"))
    cfg, _ = config_lib.load_config(config_path, list(FLAGS.set), overrides)
    earlier = cfg.benchmark.durations_from
    if earlier is not None and not Path(earlier).is_dir():
        raise UsageError(f"benchmark.durations_from {earlier}: no such run directory")
    sources = config_lib.override_sources(overrides)
    if FLAGS.models is not None:
        sources.update({f"models.{role}.backend": "--models" for role in cfg.models.roles()})
    return force_models(cfg, FLAGS.models), config_path, resuming, sources


def prepare(
    argv_rest: Sequence[str] = (),
    check_startup: bool = True,
    tasks_of: TaskRegistry = task_registry,
) -> Prepared:
    """Everything checked before a device is touched or a run directory is created: the config,
    the agent's keys (validated once), the task selection and, with `check_startup`, the
    agent's own start-up check (Celil: its model servers). `tasks_of` is the run command's
    task-registry seam."""
    cfg, config_path, resuming, flag_sources = _load_run_config(argv_rest)
    _announce_resume(resuming)
    config_name, registry_name, kwargs, params = _validated_agent(cfg, config_path, flag_sources)
    free_goal_spec = requested_free_goal(resuming)
    if free_goal_spec is not None:
        classes, suite = goal_suite(cfg, flag_sources, free_goal_spec)
    else:
        if FLAGS.app is not None or FLAGS.max_steps is not None:
            raise UsageError("--app and --max_steps go with --goal (tasks bring their own)")
        classes, suite = task_suite(cfg, tasks_of)
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
        free_goal=free_goal_spec,
    )
    if check_startup:
        startup_check(prep)
    return prep


def _announce_resume(resuming: bool) -> None:
    """Say which run is being resumed: ours (its config.yaml) or an upstream checkpoint dir."""
    if resuming:
        log(f"Resuming {FLAGS.checkpoint_dir} with its config.yaml (flags still override it).")
    elif FLAGS.checkpoint_dir:
        from android_world.harness import upstream_checkpoints

        found = len(upstream_checkpoints.files_in(FLAGS.checkpoint_dir))
        if found:
            log(
                f"Resuming an upstream AndroidWorld run in {FLAGS.checkpoint_dir}: its {found} "
                "checkpoint file(s) (*.pkl.gz) hold finished episodes; the rest run here."
            )


def _validated_agent(
    cfg: config_lib.CelilConfig, config_path: Path, flag_sources: dict[str, str]
) -> tuple[str, str, dict[str, Any], agent_registry.AgentParams]:
    """(config name, registry name, kwargs, validated params) of the active agent; a bad key is
    a usage error that names where it was set."""
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
    return config_name, registry_name, kwargs, params


def task_suite(
    cfg: config_lib.CelilConfig, tasks_of: TaskRegistry = task_registry
) -> tuple[dict[str, type[task_eval.TaskEval]], suite_utils.Suite]:
    """The benchmark's tasks: the family's registry, filtered, drawn."""
    classes = select_tasks(tasks_of(cfg.benchmark.suite_family), cfg.benchmark)
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


@dataclasses.dataclass(frozen=True)
class FreeGoalSpec:
    """What `--goal`, `--app` and `--max_steps` asked for; recorded in manifest.json as
    `free_goal` so that resuming the run directory runs the same goal, not the task suite."""

    goal: str
    app: str | None = None
    max_steps: int | None = None

    @classmethod
    def from_manifest(cls, recorded: Any) -> FreeGoalSpec | None:
        """The recorded goal, or None when the run was a task suite (or the entry is damaged)."""
        if not isinstance(recorded, dict) or not isinstance(recorded.get("goal"), str):
            return None
        app, max_steps = recorded.get("app"), recorded.get("max_steps")
        return cls(
            recorded["goal"],
            app if isinstance(app, str) else None,
            max_steps if isinstance(max_steps, int) and max_steps >= 1 else None,
        )


def recorded_free_goal(run_dir: str | None) -> FreeGoalSpec | None:
    if not run_dir:
        return None
    manifest = checkpointer_lib.read_json_object(Path(run_dir) / "manifest.json")
    return FreeGoalSpec.from_manifest(manifest.get("free_goal"))


def requested_free_goal(resuming: bool) -> FreeGoalSpec | None:
    """The goal of this run: the flags', or on a resume the one the run directory recorded.

    A resume that names another goal is refused: its finished episode answered the recorded one.
    """
    recorded = recorded_free_goal(FLAGS.checkpoint_dir) if resuming else None
    if FLAGS.goal is None:
        if recorded is not None and (FLAGS.app is not None or FLAGS.max_steps is not None):
            raise UsageError(
                f"{FLAGS.checkpoint_dir} ran --goal {recorded.goal!r}: "
                "its --app and --max_steps are recorded too (drop them to resume)"
            )
        return recorded
    asked = FreeGoalSpec(FLAGS.goal, FLAGS.app, FLAGS.max_steps)
    if recorded is not None and asked.goal != recorded.goal:
        raise UsageError(
            f"{FLAGS.checkpoint_dir} ran --goal {recorded.goal!r}; "
            "resume it without --goal, or start a new run for another goal"
        )
    return asked


def goal_suite(
    cfg: config_lib.CelilConfig, flag_sources: dict[str, str], spec: FreeGoalSpec
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
    max_steps = spec.max_steps or free_goal.DEFAULT_MAX_STEPS
    seed = suite_utils.instance_seed(cfg.benchmark.task_random_seed, free_goal.TASK_NAME, 0)
    try:
        task = free_goal.free_goal(spec.goal, spec.app, max_steps, seed=seed)
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
    context = agent_registry.RunContext(models=cfg.models, seed=cfg.env.seed, log=log)
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
        log("--perform_emulator_setup: the simulated phone needs no set-up; continuing.")
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
