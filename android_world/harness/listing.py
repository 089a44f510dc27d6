"""`--list` and `--dry_run`: what a run would use, read from the registries and the config."""

from __future__ import annotations

from android_world.agents import registry as agent_registry
from android_world.harness import config as config_lib
from android_world.harness import discover, suite_utils
from android_world.harness.prepare import Prepared, TaskRegistry, select_tasks, task_registry
from android_world.harness.run_console import agent_line


def profile_label(cfg: config_lib.CelilConfig) -> str:
    """` (profile landscape,dialogs; step budgets x2.2, +1 per app for its pop-up)` for a sim
    run with a profile, else ``."""
    if cfg.env.type != "sim" or not cfg.env.sim.profile:
        return ""
    from android_world.env import sim_profile

    note = sim_profile.parse(cfg.env.sim.profile).step_budget_note()
    budgets = f"; step budgets {note}" if note and cfg.env.sim.adjust_step_budget else ""
    return f" (profile {','.join(cfg.env.sim.profile)}{budgets})"


def list_text(
    kind: str, cfg: config_lib.CelilConfig, tasks_of: TaskRegistry = task_registry
) -> str:
    """`--list tasks|agents`: read from the registries and the config, no device touched."""
    if kind == "profiles":
        from android_world.env import sim_profile

        return sim_profile.list_text()
    if kind == "agents":
        configured = {k: c.registry_name for k, c in cfg.agent.configurations.items()}
        return discover.agents_table(
            configured, agent_registry.list_agents(), cfg.agent.active_agent
        )
    classes = select_tasks(tasks_of(cfg.benchmark.suite_family), cfg.benchmark)
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
        env=cfg.env.type + profile_label(cfg),
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
