"""The differential behind docs/TASK_FIDELITY.md: our task classes against upstream's recorded facts.

Upstream's side is tests/fixtures/upstream_facts.json (per template: module, apps, complexity,
schema, goal template, task_metadata.json's entry, a textproto question's parameter pools; and
every module-level pool of upstream's task modules), written by tests/upstream/record_upstream.py
from a checkout. Our side is read from the classes when the table is built. Each function here
compares one aspect and says what differs, in words for the table; none needs a checkout.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import pkgutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from android_world.task_evals import task_eval

FACTS = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "upstream_facts.json"


@dataclasses.dataclass(frozen=True)
class UpstreamFacts:
    source: Mapping[str, Any]
    templates: Mapping[str, Mapping[str, Any]]
    pools: Mapping[str, Any]


def load(path: Path = FACTS) -> UpstreamFacts:
    data = json.loads(path.read_text(encoding="utf-8"))
    return UpstreamFacts(data["source"], data["templates"], data["pools"])


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def complexity_note(cls: type[task_eval.TaskEval], facts: Mapping[str, Any]) -> list[str]:
    ours, theirs = _number(cls.complexity), _number(facts.get("complexity"))
    if ours is None or theirs is None or ours == theirs:
        return []
    return [f"complexity: ours {ours:g}, upstream {theirs:g}"]


def apps_note(cls: type[task_eval.TaskEval], facts: Mapping[str, Any]) -> list[str]:
    ours, theirs = cls.app_names, facts.get("app_names")
    if not isinstance(ours, tuple | list) or not isinstance(theirs, list) or not theirs:
        return []  # upstream's questions name their app per instance
    if set(ours) == set(theirs):
        return []
    return [f"apps: ours {', '.join(ours) or '-'}; upstream {', '.join(theirs)}"]


def template_note(cls: type[task_eval.TaskEval], facts: Mapping[str, Any]) -> list[str]:
    """A string template upstream declares, against ours (goals built in code: by the draws)."""
    theirs = facts.get("template")
    ours = cls.__dict__.get("template", getattr(cls, "template", None))
    if not isinstance(theirs, str) or not theirs or not isinstance(ours, str) or ours == theirs:
        return []
    return [f"template: ours {ours!r}; upstream {theirs!r}"]


def schema_note(cls: type[task_eval.TaskEval], facts: Mapping[str, Any]) -> list[str]:
    """Properties and required keys of the params' JSON schema, ours against upstream's."""
    theirs = facts.get("schema")
    ours = cls.schema if isinstance(cls.schema, Mapping) else None
    if not isinstance(theirs, Mapping) or "__error__" in theirs or ours is None:
        return []
    notes = []
    ours_props = set((ours.get("properties") or {}).keys())
    theirs_props = set((theirs.get("properties") or {}).keys())
    if theirs_props - ours_props:
        notes.append(f"schema lacks upstream's {', '.join(sorted(theirs_props - ours_props))}")
    if ours_props - theirs_props:
        notes.append(f"schema adds {', '.join(sorted(ours_props - theirs_props))}")
    if set(ours.get("required") or ()) != set(theirs.get("required") or ()):
        notes.append(
            f"schema requires {', '.join(sorted(ours.get('required') or ())) or 'nothing'}; "
            f"upstream {', '.join(sorted(theirs.get('required') or ())) or 'nothing'}"
        )
    return notes


def metadata_note(cls: type[task_eval.TaskEval], facts: Mapping[str, Any]) -> list[str]:
    """Difficulty, tags and optimal steps (upstream's task_metadata.json) against the class's."""
    meta = facts.get("metadata")
    if not isinstance(meta, Mapping):
        return []
    notes = []
    if meta.get("difficulty") and cls.difficulty != meta["difficulty"]:
        notes.append(f"metadata difficulty: ours {cls.difficulty}, upstream {meta['difficulty']}")
    theirs_tags = {t for t in meta.get("tags") or () if t}
    if {t for t in cls.tags or () if t} != theirs_tags:
        notes.append(
            f"metadata tags: ours {', '.join(sorted(cls.tags or ())) or '-'}; "
            f"upstream {', '.join(sorted(theirs_tags)) or '-'}"
        )
    steps = _number(meta.get("optimal_steps"))
    if steps is not None and float(cls.optimal_steps) != steps:
        notes.append(f"metadata optimal steps: ours {cls.optimal_steps}, upstream {steps:g}")
    return notes


def param_pools_note(cls: type[task_eval.TaskEval], facts: Mapping[str, Any]) -> list[str]:
    """A textproto question's parameter pools (names, order and values) against ours."""
    theirs = facts.get("param_pools")
    ours = getattr(cls, "param_pools", None)
    if not isinstance(theirs, Mapping) or not isinstance(ours, Mapping) or not ours:
        return []
    notes = []
    if list(ours) != list(theirs):
        notes.append(f"pools: ours draw {', '.join(ours)}; upstream {', '.join(theirs)}")
    for name, values in theirs.items():
        mine = list(ours.get(name, ()))
        if mine != list(values):
            notes.append(f"pools: {name} {pool_difference(mine, list(values))}")
    return notes


def pool_difference(ours: Sequence[Any], theirs: Sequence[Any]) -> str:
    """How two pools differ, in words: same, reordered, or the values only one side has."""
    if list(ours) == list(theirs):
        return "same"
    if sorted(map(str, ours)) == sorted(map(str, theirs)):
        return "same values, another order"
    only_ours = [v for v in dict.fromkeys(ours) if v not in theirs]
    only_theirs = [v for v in dict.fromkeys(theirs) if v not in ours]
    parts = [f"{len(ours)} values vs upstream's {len(theirs)}"]
    if only_theirs:
        parts.append(f"lacks {_few(only_theirs)}")
    if only_ours:
        parts.append(f"adds {_few(only_ours)}")
    return "; ".join(parts)


def _few(values: Sequence[Any], n: int = 3) -> str:
    shown = ", ".join(repr(v) for v in values[:n])
    return shown + (f" (+{len(values) - n})" if len(values) > n else "")


# ---- module-level pools ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class PoolMatch:
    ours: str  # module:NAME
    upstream: str  # module:NAME, or "" when none overlaps enough
    verdict: str


def _values(value: Any) -> list[Any]:
    if isinstance(value, Mapping):
        return list(value)
    return list(value)


def _is_pool(value: Any) -> bool:
    plain = (str, int, float)
    if isinstance(value, Mapping):
        return len(value) >= 3 and all(isinstance(k, plain) for k in value)
    if isinstance(value, list | tuple):
        return len(value) >= 3 and all(isinstance(v, plain) for v in value)
    return False


def our_pools(package: str = "android_world.task_evals") -> dict[str, Any]:
    """Module-level pools (lists, tuples, dicts of plain values) of our task modules."""
    root = importlib.import_module(package)
    found: dict[str, Any] = {}
    names = [package + ".upstream_pools"] + [
        info.name
        for info in pkgutil.walk_packages(root.__path__, package + ".")
        if ".single." in info.name
    ]
    for name in names:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if attr.startswith("__") or not attr.isupper() or not _is_pool(value):
                continue
            found[f"{name.removeprefix(package + '.')}:{attr}"] = value
    return found


def match_pools(
    ours: Mapping[str, Any], theirs: Mapping[str, Any], threshold: float = 0.6
) -> list[PoolMatch]:
    """Each of our pools against upstream's most similar one (by shared values); ours that
    share too little with any upstream pool are our own and left out. Aliases (one object
    under two names) are compared once."""
    matches: list[PoolMatch] = []
    seen_ids: set[int] = set()
    upstream_sets = {name: set(map(str, _values(v))) for name, v in theirs.items()}
    for name, value in sorted(ours.items()):
        if id(value) in seen_ids:
            continue
        seen_ids.add(id(value))
        mine = _values(value)
        mine_set = set(map(str, mine))
        best, score = "", 0.0
        for other, values in upstream_sets.items():
            if not values:
                continue
            overlap = len(mine_set & values) / len(mine_set | values)
            if overlap > score:
                best, score = other, overlap
        if score < threshold:
            continue
        verdict = pool_difference([str(v) for v in mine], [str(v) for v in _values(theirs[best])])
        matches.append(PoolMatch(name, best, verdict))
    return matches


def notes_for(cls: type[task_eval.TaskEval], facts: Mapping[str, Any]) -> list[str]:
    """Every difference this module finds for one task."""
    return [
        *template_note(cls, facts),
        *complexity_note(cls, facts),
        *apps_note(cls, facts),
        *schema_note(cls, facts),
        *metadata_note(cls, facts),
        *param_pools_note(cls, facts),
    ]


def names(values: Iterable[str]) -> str:
    return ", ".join(sorted(values))
