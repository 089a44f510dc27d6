"""What the sim task tests share: the task registry and a task built as the suite builds one."""

from __future__ import annotations

import random

from android_world.task_evals import registry, task_eval

REGISTRY = registry.TaskRegistry().get_registry()


def make_task(name: str, seed: int) -> task_eval.TaskEval:
    """Task `name` with the params a run would draw for `seed` (the module `random`, seeded)."""
    random.seed(seed)
    cls = REGISTRY[name]
    params = cls.generate_random_params()
    params["seed"] = seed
    return cls(params)


def prepared_task(name: str, seed: int) -> task_eval.TaskEval:
    """`make_task`, then what initialisation draws before it touches the device (a question's
    own rows and its date wording: `prepare()`), under the seeding set-up uses."""
    task = make_task(name, seed)
    random.seed(seed)
    task.prepare()  # type: ignore[attr-defined]
    return task
