"""Agents by name, so a run picks its agent from config instead of an if/elif in run.py.

A factory is called as `factory(env, context=context, **kwargs)`; `kwargs` are the keys of
`agent.configurations.<name>` in the config (minus `registry_name`). A factory may declare a
pydantic model for its kwargs (`register(..., config_model=M)`); the kwargs are then validated
against it before the factory runs, and an unknown or mistyped key is reported with its path.

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
from android_world.env import interface
from android_world.model_config import ModelsConfig

AgentFactory = Callable[..., base_agent.EnvironmentInteractingAgent]

# Modules that register agents when imported, if they exist in this checkout.
_OPTIONAL_AGENT_MODULES = ("android_world.agents.celil_factory",)


def _print_log(message: str) -> None:
    print(message)


@dataclasses.dataclass
class RunContext:
    """What a factory may need beyond its own kwargs."""

    models: ModelsConfig = dataclasses.field(default_factory=ModelsConfig)
    run_dir: Path | None = None
    seed: int = 0
    log: Callable[[str], None] = _print_log


@dataclasses.dataclass(frozen=True)
class _Entry:
    factory: AgentFactory
    config_model: type[pydantic.BaseModel] | None


class UnknownAgentError(ValueError):
    """The name is not registered; the message lists the agents and a did-you-mean."""


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
) -> None:
    """Register (or replace) an agent factory under `name`."""
    if not name or not isinstance(name, str):
        raise ValueError("An agent name must be a non-empty string.")
    _REGISTRY[name] = _Entry(factory, config_model)


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
    path = ".".join(str(p) for p in err.get("loc", ()))
    if err.get("type") == "extra_forbidden":
        known = sorted(model.model_fields)
        close = difflib.get_close_matches(str(err["loc"][-1]), known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return AgentConfigError(agent, path, f"unknown key{hint}; known keys: {', '.join(known)}")
    return AgentConfigError(agent, path, str(err.get("msg", "invalid value")))


def validate_kwargs(name: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Validated kwargs for agent `name` (unchanged if it declares no config model)."""
    entry = _entry(name)
    if entry.config_model is None:
        return dict(kwargs)
    try:
        validated = entry.config_model.model_validate(kwargs)
    except pydantic.ValidationError as exc:
        raise _first_error(name, entry.config_model, exc) from None
    return validated.model_dump()


def get_agent(
    name: str,
    env: interface.AsyncEnv,
    context: RunContext | None = None,
    **kwargs: Any,
) -> base_agent.EnvironmentInteractingAgent:
    """Build agent `name`; raises UnknownAgentError or AgentConfigError on bad input."""
    entry = _entry(name)
    kwargs = validate_kwargs(name, kwargs)
    agent = entry.factory(env, context=context or RunContext(), **kwargs)
    if not agent.name:
        agent.name = name
    return agent


def _random_factory(env, context: RunContext, **kwargs):
    from android_world.agents import random_agent

    seed = kwargs.pop("seed", None)
    return random_agent.RandomAgent(env, seed=context.seed if seed is None else seed, **kwargs)


def _human_factory(env, context: RunContext, **kwargs):
    from android_world.agents import human_agent

    del context
    return human_agent.HumanAgent(env, **kwargs)


def _oracle_factory(env, context: RunContext, **kwargs):
    from android_world.agents import oracle_agent

    del context
    return oracle_agent.OracleAgent(env, **kwargs)


def _register_all_agents() -> None:
    """Register the built-in agents and import optional agent modules; safe to call repeatedly."""
    global _REGISTERED_ALL
    if _REGISTERED_ALL:
        return
    _REGISTERED_ALL = True
    from android_world.agents import human_agent, oracle_agent, random_agent

    _REGISTRY.setdefault("random_agent", _Entry(_random_factory, random_agent.RandomAgentConfig))
    _REGISTRY.setdefault("human_agent", _Entry(_human_factory, human_agent.HumanAgentConfig))
    _REGISTRY.setdefault("oracle_agent", _Entry(_oracle_factory, oracle_agent.OracleAgentConfig))
    for module in _OPTIONAL_AGENT_MODULES:
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module)
