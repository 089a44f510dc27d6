"""Writes the parts of docs/ that are facts of the code, so they cannot drift from it.

    python -m android_world.docs_gen            # rewrite docs/TASKS.md and the generated blocks
    python -m android_world.docs_gen --check    # exit 1 when a committed file is stale

- docs/TASKS.md, whole: every task of the sim suite (apps, ours or upstream's, complexity, step
  budget, difficulty, tags) from the task registry and the record of upstream's templates.
- docs/CONFIG.md, between its GENERATED markers: every key of the config schema (the pydantic
  models of `config.py`, the `models:` section and each registered agent's config) with type,
  default and description (the field's docstring).
- docs/MODEL_CONTRACT.md, between its GENERATED markers: the JSON schemas the roles ask for, the
  `response_format` forms, the role defaults, and the executor's two action dialects.

Hand-written text outside the markers is kept as it is. tests/project/test_docs_generated.py runs
`--check`.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import itertools
import json
import re
import sys
import textwrap
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pydantic

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
TASKS_DOC = DOCS / "TASKS.md"
CONFIG_DOC = DOCS / "CONFIG.md"
CONTRACT_DOC = DOCS / "MODEL_CONTRACT.md"
COMMAND = "python -m android_world.docs_gen"


# --------------------------------------------------------------------------------------------
# Reading a pydantic model


def _attribute_docstrings(model: type) -> dict[str, str]:
    """`name: T = v` followed by a string literal, for models that do not turn those into
    descriptions themselves (`use_attribute_docstrings`)."""
    try:
        source = textwrap.dedent(inspect.getsource(model))
    except (OSError, TypeError):
        return {}
    body = ast.parse(source).body[0]
    docs: dict[str, str] = {}
    statements = getattr(body, "body", [])
    for current, following in itertools.pairwise(statements):
        if (
            isinstance(current, ast.AnnAssign)
            and isinstance(current.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[current.target.id] = following.value.value
    return docs


def description(model: type[pydantic.BaseModel], name: str) -> str:
    """The field's description (its docstring), on one line."""
    field = model.model_fields[name]
    text = field.description
    if not text:
        for klass in model.__mro__:
            if isinstance(klass, type) and issubclass(klass, pydantic.BaseModel):
                text = _attribute_docstrings(klass).get(name)
                if text:
                    break
    return " ".join((text or "").split())


def type_name(annotation: Any) -> str:
    """A short, readable type: `int`, `str | None`, `auto | on | off`, `list[str]`."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return " \\| ".join(str(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return " \\| ".join(type_name(a) for a in args)
    if origin is typing.Annotated:
        return type_name(args[0])
    if origin in (list, tuple, dict, set):
        inner = ", ".join("..." if a is Ellipsis else type_name(a) for a in args)
        return f"{origin.__name__}[{inner}]"
    if annotation is type(None):
        return "null"
    if isinstance(annotation, type):
        if issubclass(annotation, pydantic.BaseModel):
            return "section"
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _yaml_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '""' if value == "" else value
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_yaml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_yaml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, pydantic.BaseModel):
        return "(see below)"
    return str(value)


def default_text(model: type[pydantic.BaseModel], name: str) -> str:
    field = model.model_fields[name]
    if field.is_required():
        return "(required)"
    return f"`{_yaml_value(field.get_default(call_default_factory=True))}`"


def _is_section(annotation: Any) -> type[pydantic.BaseModel] | None:
    """The model of a nested section (`X` or `X | None`), or None for a plain value."""
    candidates = typing.get_args(annotation) or (annotation,)
    if typing.get_origin(annotation) not in (typing.Union, types.UnionType, None):
        return None
    for candidate in candidates:
        if isinstance(candidate, type) and issubclass(candidate, pydantic.BaseModel):
            return candidate
    return None


def config_rows(
    model: type[pydantic.BaseModel], prefix: str
) -> Iterator[tuple[str, str, str, str]]:
    """(key, type, default, description) for every field, sections flattened with dots."""
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        section = _is_section(field.annotation)
        if section is not None:
            yield from config_rows(section, f"{key}.")
            continue
        yield key, type_name(field.annotation), default_text(model, name), description(model, name)


# --------------------------------------------------------------------------------------------
# docs/CONFIG.md


def _agent_models() -> list[tuple[str, type[pydantic.BaseModel]]]:
    """(agent name, config model) of every registered agent that declares one."""
    from android_world.agents import registry

    models = []
    for name in registry.list_agents():
        model = registry._entry(name).config_model
        if model is not None:
            models.append((name, model))
    return models


def _table(rows: list[tuple[str, str, str, str]], strip: str = "") -> list[str]:
    lines = ["| key | type | default | description |", "|---|---|---|---|"]
    for key, kind, default, text in rows:
        shown = key[len(strip) :] if strip and key.startswith(strip) else key
        lines.append(f"| `{shown}` | {kind} | {default} | {text.replace('|', chr(92) + '|')} |")
    return lines


def config_reference() -> str:
    from android_world.harness import config as config_lib
    from android_world.harness.model_config import PriceConfig, RoleModelConfig

    out: list[str] = []
    top = list(config_rows(config_lib.CelilConfig, ""))
    groups = [
        ("`env`", "env.", ("env.adb.",)),
        ("`env.adb`", "env.adb.", ()),
        ("`benchmark`", "benchmark.", ()),
    ]
    for title, prefix, skip in groups:
        rows = [r for r in top if r[0].startswith(prefix) and not r[0].startswith(skip)]
        out += [f"### {title}", "", *_table(rows), ""]
    models = [r for r in top if r[0].startswith("models.")]
    role_rows = list(config_rows(RoleModelConfig, ""))
    role_keys = {
        f"models.{role}.{k}"
        for role in ("maestro", "section_leader", "verifiers", "vision_fallback")
        for k, *_ in role_rows
    }
    shared = [r for r in models if r[0] not in role_keys and not r[0].startswith("models.prices")]
    shared += [
        (f"models.prices.<model>.{k}", t, d, text) for k, t, d, text in config_rows(PriceConfig, "")
    ]
    from android_world.harness.model_config import ModelsConfig

    roles = [
        (
            f"models.{name}",
            "section",
            default_text(ModelsConfig, name),
            description(ModelsConfig, name),
        )
        for name in ("maestro", "section_leader", "verifiers", "vision_fallback")
    ]
    out += ["### `models`", "", "Shared keys and the roles:", "", *_table(roles + shared), ""]
    out += ["Per role (`models.<role>.<key>`, the same keys for every role):", ""]
    out += [*_table(role_rows), ""]
    agent_rows = [r for r in top if r[0].startswith("agent.")]
    agent_rows.append(
        (
            "agent.configurations.<name>.registry_name",
            "str",
            "(required)",
            "The registered factory that builds this agent; every other key of the entry is "
            "passed to it and validated against its config (below).",
        )
    )
    out += ["### `agent`", "", *_table(agent_rows), ""]
    for name, model in _agent_models():
        rows = list(config_rows(model, f"agent.configurations.{name}."))
        out += [f"#### `agent.configurations.{name}`", ""]
        out += (
            [*_table(rows, strip=f"agent.configurations.{name}."), ""] if rows else ["No keys.", ""]
        )
    return "\n".join(out).rstrip() + "\n"


# --------------------------------------------------------------------------------------------
# docs/TASKS.md


def task_facts() -> dict[str, int]:
    """The counts the README states: apps on the simulated phone, tasks, own and upstream."""
    from android_world.env import device
    from android_world.task_evals.registry import TaskRegistry
    from android_world.task_evals.upstream_tasks import UPSTREAM_BY_NAME

    tasks = TaskRegistry().get_registry("sim")
    own = [name for name in tasks if name not in UPSTREAM_BY_NAME]
    return {
        "apps": len(device.APPS),
        "tasks": len(tasks),
        "own": len(own),
        "upstream": len(tasks) - len(own),
        "upstream_templates": len(UPSTREAM_BY_NAME),
    }


def _number(value: float) -> str:
    return f"{value:g}"


def task_table() -> str:
    from android_world.task_evals.registry import TaskRegistry
    from android_world.task_evals.upstream_tasks import UPSTREAM_BY_NAME

    tasks = TaskRegistry().get_registry("sim")
    facts = task_facts()
    lines = [
        "# The sim suite's tasks",
        "",
        f"Generated by `{COMMAND}` from the task registry; do not edit by hand (`--check`, run",
        "by the tests, fails when it is stale).",
        "",
        f"**{facts['tasks']} tasks** on the simulated phone's {facts['apps']} apps: "
        f"{facts['upstream']} named after upstream AndroidWorld's templates (*upstream*: "
        "upstream's goal template, complexity, parameter pools and success rule; where the sim "
        "cannot match exactly, docs/TASK_FIDELITY.md says so and why) and "
        f"{facts['own']} of our own (*own*, name starting with `Sim`).",
        "",
        "*steps* is the step budget, upstream's `int(10 * complexity)` on the default phone (a "
        'sim profile that costs steps adds them: docs/SIM_SUITE.md, "Sim profiles").',
        "",
        "| task | apps | origin | complexity | steps | difficulty | tags |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in sorted(tasks):
        task = tasks[name]
        origin = "upstream" if name in UPSTREAM_BY_NAME else "*own*"
        lines.append(
            f"| `{name}` | {', '.join(task.app_names)} | {origin} | "
            f"{_number(task.complexity)} | {int(10 * task.complexity)} | {task.difficulty} | "
            f"{', '.join(task.tags)} |"
        )
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# docs/MODEL_CONTRACT.md


def contract_reference() -> str:
    out = [*_schema_section(), *_structured_output_section(), *_role_defaults_section()]
    out += _action_space_section()
    return "\n".join(out).rstrip() + "\n"


def _schema_section() -> list[str]:
    from android_world.agents.custom.roles import celil_joint_votes, celil_maestro, celil_votes

    schemas = [
        ("PLAN_SCHEMA", "planner: a plan or a corrective plan", celil_maestro.PLAN_SCHEMA),
        (
            "DONE_SCHEMA",
            "planner: is this sub-goal (or the whole goal) done?",
            celil_maestro.DONE_SCHEMA,
        ),
        ("ANSWER_SCHEMA", "planner: the answer to a question task", celil_maestro.ANSWER_SCHEMA),
        ("VOTE_SCHEMA", "each verifier persona: one vote", celil_votes.VOTE_SCHEMA),
        (
            "JOINT_SCHEMA",
            "verifiers, `verifier_mode: joint`: every persona's vote in one answer",
            celil_joint_votes.JOINT_SCHEMA,
        ),
        ("INDEX_SCHEMA", "vision_fallback: the element to tap", celil_maestro.INDEX_SCHEMA),
    ]
    out = ["### The JSON schemas", ""]
    for name, use, schema in schemas:
        required = ", ".join(f"`{k}`" for k in schema.get("required", []))
        out += [
            f"`{name}` ({use}; required: {required}):",
            "",
            "```json",
            json.dumps(schema, indent=2),
            "```",
            "",
        ]
    return out


def _structured_output_section() -> list[str]:
    from android_world.agents.custom.model_clients import negotiation
    from android_world.agents.custom.roles import celil_votes

    example = celil_votes.VOTE_SCHEMA
    out = ["### How a schema is sent (`structured_output`)", ""]
    for form in negotiation.JSON_FORMS:
        payload = negotiation.response_format(form, example)
        shown = (
            "no `response_format`; the prompt's own example of the reply's shape (every planner "
            "and verifier prompt ends with one) is its one statement, and a prompt without one "
            "gets the schema written into it; a server reporting no usage has the added schema "
            "counted in the token estimate"
            if payload is None
            else (
                "`response_format`: `"
                + json.dumps(payload).replace(json.dumps(example), "<schema>")
                + "`"
            )
        )
        out.append(f"- `{form}`: {shown}")
    return out


def _role_defaults_section() -> list[str]:
    from android_world.agents.custom import celil_model_config

    out = ["", "### Role defaults", ""]
    out += [
        "| role | max_tokens | auto tries | gemini_model | ollama_model |",
        "|---|---|---|---|---|",
    ]
    for role, defaults in celil_model_config.ROLE_DEFAULTS.items():
        order = ", ".join(defaults["auto_order"])  # type: ignore[arg-type]
        out.append(
            f"| {role} | {defaults['max_output_tokens']} | {order} | {defaults['gemini_model']} | "
            f"{defaults['ollama_model']} |"
        )
    return out


def _action_space_section() -> list[str]:
    from android_world.agents.custom.dialects import uitars
    from android_world.env import json_action

    return [
        "",
        "### The executor's UI-TARS action space (`executor_format: uitars`)",
        "",
        "The prompt lists these calls (coordinates: `models.section_leader.coordinates`); the",
        f"parser also reads: {', '.join(f'`{n}`' for n in uitars.ACTION_NAMES)}.",
        "",
        "```",
        uitars.mobile_prompt("{instruction}")
        .split("## Action Space", 1)[1]
        .split("## Note", 1)[0]
        .strip(),
        "```",
        "",
        "### The executor's JSON actions (`executor_format: json`)",
        "",
        "`action_type` values `JSONAction` takes (android_world/env/json_action.py; the prompt "
        "offers the ones it lists): " + ", ".join(f"`{t}`" for t in json_action.ACTION_TYPES) + ".",
        "",
        *prompt_section(),
    ]


def _role_prompts() -> list[tuple[str, dict[str, str]]]:
    """Each model-backed role's prompt templates, as the roles hash them for manifest.json."""
    from android_world.agents.custom.roles import (
        celil_maestro,
        celil_quality_control,
        celil_section_leader,
    )

    return [
        ("planner (`models.maestro`)", celil_maestro.MaestroPlanner(None).prompt_templates()),
        (
            "executor, `executor_format: uitars`",
            celil_section_leader.UITarsActionGenerator(None).prompt_templates(),
        ),
        (
            "executor, `executor_format: json`",
            celil_section_leader.UITarsActionGenerator(
                None, executor_format="json"
            ).prompt_templates(),
        ),
        (
            "verifier personas (`models.verifiers`)",
            celil_quality_control.VerifierEnsemble(None).prompt_templates(),
        ),
        (
            "element picker (`models.vision_fallback`)",
            celil_maestro.VisionElementSelector(None).prompt_templates(),
        ),
    ]


def prompt_section() -> list[str]:
    out = [
        "### The prompts",
        "",
        "Each role's prompt templates, `{placeholders}` where the run puts the task, the plan, "
        "the screen and the history (their sha256 is in manifest.json, `agent_info`).",
        "",
    ]
    for role, templates in _role_prompts():
        for name, text in templates.items():
            out += [f"#### {role}: `{name}`", "", "````text", text.rstrip(), "````", ""]
    return out


# --------------------------------------------------------------------------------------------
# Writing and checking

BEGIN = "<!-- BEGIN GENERATED by python -m android_world.docs_gen: {name} -->"
END = "<!-- END GENERATED: {name} -->"


def splice(text: str, name: str, body: str) -> str:
    """`text` with the block between `name`'s markers replaced by `body`."""
    begin, end = BEGIN.format(name=name), END.format(name=name)
    pattern = re.compile(re.escape(begin) + r"\n.*?" + re.escape(end), re.DOTALL)
    if not pattern.search(text):
        raise ValueError(f"the markers of {name!r} are missing")
    return pattern.sub(lambda _: f"{begin}\n{body}{end}", text, count=1)


Target = tuple[Path, Callable[[str], str]]


def targets(docs: Path = DOCS) -> list[Target]:
    return [
        (docs / TASKS_DOC.name, lambda _old: task_table()),
        (docs / CONFIG_DOC.name, lambda old: splice(old, "config", config_reference())),
        (docs / CONTRACT_DOC.name, lambda old: splice(old, "contract", contract_reference())),
    ]


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a file is stale")
    parser.add_argument("--docs", type=Path, default=DOCS, help="the docs folder (docs/)")
    args = parser.parse_args(argv)
    stale = []
    for path, render in targets(args.docs):
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        try:
            new = render(old)
        except ValueError as error:
            print(f"{path}: {error}", file=sys.stderr)
            return 2
        if new == old:
            continue
        if args.check:
            stale.append(path)
        else:
            tmp = path.with_suffix(path.suffix + ".tmp")
            tmp.write_text(new, encoding="utf-8")
            tmp.replace(path)
            print(f"wrote {_shown(path)}")
    if stale:
        names = ", ".join(_shown(p) for p in stale)
        print(f"{names} stale; run: {COMMAND}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
