"""Finds every task class, so adding a task means adding a class to a module under `single/`.

Families mirror upstream's `TaskRegistry.get_registry(family)`; this harness has one family of its
own, `sim` (the simulated phone's suite). Results on it are never AndroidWorld scores.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from android_world.task_evals import single, task_eval

SIM_FAMILY = "sim"
FAMILIES = (SIM_FAMILY,)


def _discover() -> dict[str, type[task_eval.TaskEval]]:
    found: dict[str, type[task_eval.TaskEval]] = {}
    for module_info in sorted(pkgutil.iter_modules(single.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{single.__name__}.{module_info.name}")
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(cls, task_eval.TaskEval)
                and cls.__module__ == module.__name__
                and not name.startswith("_")
                and not inspect.isabstract(cls)
            ):
                if name in found:
                    raise RuntimeError(f"Task {name} is defined twice.")
                found[name] = cls
    return dict(sorted(found.items()))


# Upstream AndroidWorld's families (its registry's names). They need upstream's task code and a
# real emulator with its apps, which this harness does not carry.
UPSTREAM_FAMILIES = (
    "android_world",
    "android",
    "information_retrieval",
    "miniwob",
    "miniwob_subset",
)


class TaskRegistry:
    """`get_registry(family)` -> {task name: task class}."""

    SIM_FAMILY = SIM_FAMILY
    ANDROID_WORLD_FAMILY = "android_world"
    ANDROID_FAMILY = "android"
    INFORMATION_RETRIEVAL_FAMILY = "information_retrieval"
    MINIWOB_FAMILY = "miniwob"
    MINIWOB_FAMILY_SUBSET = "miniwob_subset"

    def get_registry(self, family: str = SIM_FAMILY) -> dict[str, type[task_eval.TaskEval]]:
        if family in UPSTREAM_FAMILIES:
            raise ValueError(
                f"{family!r} is upstream AndroidWorld's task family; this harness runs 'sim' (its "
                "own simulated phone). To run upstream's tasks, install the Celil plugin in an "
                "upstream checkout (docs/UPSTREAM.md)."
            )
        if family not in FAMILIES:
            raise ValueError(f"Unknown task family {family!r}; known: {', '.join(FAMILIES)}.")
        return _discover()
