"""Harness-side registry entry for `celil_agent`: validated config keys in, a CelilAgent out.

The building itself lives in the plugin (`agents/custom/factory.py`), so upstream's run.py can
build the same agent without this harness. This module adds what only the harness has: the
registry entry, its RunContext (models section, run directory, seed, console log) and the
`AgentConfigError` the runner prints as one line naming the config key, with exit code 2.
"""

from __future__ import annotations

from typing import Any

from android_world.agents import registry
from android_world.agents.custom import factory
from android_world.agents.custom.factory import (
    AGENT_NAME,
    DEFAULT_MEMORY_PATH,
    OFFLINE_MODULE,
    CelilAgentConfig,
    coordinate_convention,
    prompt_hashes,
)
from android_world.agents.custom.loop import celil_agent
from android_world.env import interface

__all__ = [
    "AGENT_NAME",
    "DEFAULT_MEMORY_PATH",
    "OFFLINE_MODULE",
    "CelilAgentConfig",
    "build_celil_agent",
    "coordinate_convention",
    "prompt_hashes",
]


def build_celil_agent(
    env: interface.AsyncEnv,
    context: registry.RunContext | None = None,
    params: CelilAgentConfig | None = None,
    **kwargs: Any,
) -> celil_agent.CelilAgent:
    """The agent from validated `params` (the registry passes what it validated once), or from
    raw `kwargs` when called directly."""
    if params is None:
        params = CelilAgentConfig.model_validate(kwargs)
    elif kwargs:
        raise TypeError("build_celil_agent takes params or kwargs, not both")
    context = context or registry.RunContext()
    try:
        # The harness folds long role and memory lines to its console (RunContext.console_line).
        return factory.build_agent(env, params, context, console_line=context.console_line)
    except factory.CelilSetupError as error:
        raise registry.AgentConfigError(AGENT_NAME, error.path, error.message) from None


def check_celil_startup(params: CelilAgentConfig, context: registry.RunContext) -> None:
    """Before the run directory exists: every configured model role can work and the memory
    file is usable (see `factory.check_startup`). A `models.*` key at fault is a StartupError,
    one of the agent's own keys an AgentConfigError (the runner names each where it was set)."""
    try:
        factory.check_startup(params, context.models)
    except factory.CelilSetupError as error:
        if error.path.startswith("models"):
            raise registry.StartupError(error.path, error.message) from None
        raise registry.AgentConfigError(AGENT_NAME, error.path, error.message) from None


registry.register(
    AGENT_NAME,
    build_celil_agent,
    config_model=CelilAgentConfig,
    takes_params=True,
    startup_check=check_celil_startup,
)
