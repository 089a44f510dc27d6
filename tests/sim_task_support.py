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
