"""Agents by name, so a run picks its agent from config instead of an if/elif in run.py.

A factory is called as `factory(env, context=context, **kwargs)`; `kwargs` are the keys of
`agent.configurations.<name>` in the config (minus `registry_name`). A factory may declare a
pydantic model for its kwargs (`register(..., config_model=M)`); the kwargs are then validated
against it before the factory runs, and an unknown or mistyped key is reported with its path.
They are validated once: `validate_kwargs` returns the model instance, and `get_agent(...,
params=instance)` builds from it without validating again; a factory registered with
`takes_params=True` receives that instance as `params=` (others get its fields as kwargs).
A factory may also register a `startup_check(params, context)`, which the runner calls before it
creates the run directory (Celil's checks its model servers there).

Hook for agents built elsewhere: `_register_all_agents()` imports
`android_world.agents.celil_factory` when that module exists; that module registers its agent(s)
at import time with `register(...)`. Any other module can do the same.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic

from android_world.agents import base_agent
from android_world.agents.custom.celil_model_config import ModelsConfig
from android_world.env import interface

AgentFactory = Callable[..., base_agent.EnvironmentInteractingAgent]

# Modules that register agents when imported, if they exist in this checkout.
_OPTIONAL_AGENT_MODULES = ("android_world.agents.celil_factory",)


def _print_log(message: str) -> None:
    print(message)


def _as_is(line: str) -> str:
    return line


@dataclasses.dataclass
class RunContext:
    """What a factory may need beyond its own kwargs.

    `console_line` formats a line before a factory logs it: the harness that owns the console
    passes its folding (80 columns), so agents never import the harness for it."""

    models: ModelsConfig = dataclasses.field(default_factory=ModelsConfig)
    run_dir: Path | None = None
    seed: int = 0
    log: Callable[[str], None] = _print_log
    console_line: Callable[[str], str] = _as_is


AgentParams = pydantic.BaseModel | dict[str, Any]
"""An agent's validated config: its config model's instance, or the kwargs when it has none."""
StartupCheck = Callable[[AgentParams, "RunContext"], None]


@dataclasses.dataclass(frozen=True)
class _Entry:
    factory: AgentFactory
    config_model: type[pydantic.BaseModel] | None
    takes_params: bool = False
    startup_check: StartupCheck | None = None


class UnknownAgentError(ValueError):
    """The name is not registered; the message lists the agents and a did-you-mean."""


class StartupError(ValueError):
    """An agent's start-up check failed; `path` is the run-config key at fault (dotted, from the
    top of the config, e.g. `models.openai_base_url`), `message` says what and what to do."""

    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)


class AgentConfigError(ValueError):
    """An agent's kwargs do not fit its config model; `path` is the key path within the kwargs."""

    def __init__(self, agent: str, path: str, message: str):
        self.agent = agent
        self.path = path
        self.message = message
        super().__init__(f"{agent}: {path}: {message}" if path else f"{agent}: {message}")


_REGISTRY: dict[str, _Entry] = {}
_REGISTERED_ALL = False


def register(
    name: str,
    factory: AgentFactory,
    config_model: type[pydantic.BaseModel] | None = None,
    *,
    takes_params: bool = False,
    startup_check: StartupCheck | None = None,
) -> None:
    """Register (or replace) an agent factory under `name` (see the module docstring)."""
    if not name or not isinstance(name, str):
        raise ValueError("An agent name must be a non-empty string.")
    if takes_params and config_model is None:
        raise ValueError("takes_params needs a config_model (the params' type).")
    _REGISTRY[name] = _Entry(factory, config_model, takes_params, startup_check)


def list_agents() -> list[str]:
    _register_all_agents()
    return sorted(_REGISTRY)


def unknown_agent_message(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=2, cutoff=0.5)
    hint = (" Did you mean " + " or ".join(repr(c) for c in close) + "?") if close else ""
    return f"Unknown agent {name!r}.{hint} Known agents: {', '.join(known) or '(none)'}."


def _entry(name: str) -> _Entry:
    _register_all_agents()
    if name not in _REGISTRY:
        raise UnknownAgentError(unknown_agent_message(name, sorted(_REGISTRY)))
    return _REGISTRY[name]


def _first_error(agent: str, model: type[pydantic.BaseModel], exc: pydantic.ValidationError):
    err = exc.errors()[0]
    path = ".".join(str(p) for p in err.get("loc", ()) if p != "[key]")
    if err.get("type") == "extra_forbidden":
        known = sorted(model.model_fields)
        close = difflib.get_close_matches(str(err["loc"][-1]), known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return AgentConfigError(agent, path, f"unknown key{hint}; known keys: {', '.join(known)}")
    message = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
    return AgentConfigError(agent, path, message)


def validate_kwargs(name: str, kwargs: dict[str, Any]) -> AgentParams:
    """Agent `name`'s config, validated: an instance of its config model (pass it on as it is,
    to `get_agent(params=...)` and `check_startup`), or the kwargs when it declares none."""
    entry = _entry(name)
    if entry.config_model is None:
        return dict(kwargs)
    try:
        return entry.config_model.model_validate(kwargs)
    except pydantic.ValidationError as exc:
        raise _first_error(name, entry.config_model, exc) from None


def check_startup(name: str, params: AgentParams, context: RunContext) -> None:
    """Run agent `name`'s start-up check, if it registered one; raises StartupError."""
    entry = _entry(name)
    if entry.startup_check is not None:
        entry.startup_check(params, context)


def get_agent(
    name: str,
    env: interface.AsyncEnv,
    context: RunContext | None = None,
    *,
    params: AgentParams | None = None,
    **kwargs: Any,
) -> base_agent.EnvironmentInteractingAgent:
    """Build agent `name` from `params` (what `validate_kwargs` returned) or from raw `kwargs`
    (validated here); raises UnknownAgentError or AgentConfigError on bad input."""
    entry = _entry(name)
    if params is None:
        params = validate_kwargs(name, kwargs)
    elif kwargs:
        raise TypeError("get_agent takes validated params or raw kwargs, not both")
    elif entry.config_model is not None and not isinstance(params, entry.config_model):
        params = validate_kwargs(name, dict(params))
    context = context or RunContext()
    if isinstance(params, pydantic.BaseModel):
        if entry.takes_params:
            agent = entry.factory(env, context=context, params=params)
        else:  # the documented contract of such factories: the keys as kwargs
            agent = entry.factory(env, context=context, **params.model_dump())
    else:
        agent = entry.factory(env, context=context, **params)
    if not agent.name:
        agent.name = name
    return agent


def _random_factory(env, context: RunContext, params):
    from android_world.agents import random_agent

    seed = context.seed if params.seed is None else params.seed
    return random_agent.RandomAgent(env, name=params.name, seed=seed, p_complete=params.p_complete)


def _human_factory(env, context: RunContext, params):
    from android_world.agents import human_agent

    del context
    return human_agent.HumanAgent(env, name=params.name, max_elements=params.max_elements)


def _oracle_factory(env, context: RunContext, params):
    from android_world.agents import oracle_agent

    del context
    return oracle_agent.OracleAgent(env, name=params.name)


def _register_all_agents() -> None:
    """Register the built-in agents and import optional agent modules; safe to call repeatedly."""
    global _REGISTERED_ALL
    if _REGISTERED_ALL:
        return
    _REGISTERED_ALL = True
    from android_world.agents import human_agent, oracle_agent, random_agent

    for name, factory, config_model in (
        ("random_agent", _random_factory, random_agent.RandomAgentConfig),
        ("human_agent", _human_factory, human_agent.HumanAgentConfig),
        ("oracle_agent", _oracle_factory, oracle_agent.OracleAgentConfig),
    ):
        _REGISTRY.setdefault(name, _Entry(factory, config_model, takes_params=True))
    for module in _OPTIONAL_AGENT_MODULES:
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module)
