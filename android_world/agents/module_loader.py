"""`--agent_module path/to/file.py:ClassName`: run an agent class from a file the user provides.

Meant for upstream AndroidWorld's agents (T3A, M3A, SeeAct, or your own in their style), which
this harness does not ship: their modules import upstream's names (`env.adb_utils`,
`env.actuation`, `agents.infer`), which exist here with upstream's meaning. Pointed at an agent in
an upstream checkout (`.../android_world/agents/m3a.py:M3A`), the helper modules it imports that
this harness lacks (`m3a_utils`, `seeact_utils`) are loaded from beside it, as if copied in. An
agent whose constructor takes an `llm` gets the model configured for the planner role
(`models.maestro`), so upstream's agents and Celil run on the same model and the same ledger.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any

from android_world.agents import base_agent, infer_clients, registry

_PACKAGE = "android_world.agents"


class AgentModuleError(ValueError):
    """The module or class cannot be loaded or built; the message is one line for the user."""


def parse_spec(spec: str) -> tuple[Path, str]:
    path_text, sep, class_name = spec.rpartition(":")
    if not sep or not path_text or not class_name.isidentifier():
        raise AgentModuleError(f"--agent_module {spec!r}: expected path/to/file.py:ClassName")
    path = Path(path_text)
    if not path.is_file():
        raise AgentModuleError(f"--agent_module: no such file {path}")
    return path, class_name


def _package_imports(path: Path) -> list[str]:
    """Names the file imports from `android_world.agents` (`from android_world.agents import x`,
    `import android_world.agents.x`), in order."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == _PACKAGE and not node.level:
            names += [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            names += [
                a.name.removeprefix(_PACKAGE + ".")
                for a in node.names
                if a.name.startswith(_PACKAGE + ".")
            ]
    return list(dict.fromkeys(names))


def provide_helpers(path: Path) -> list[str]:
    """Upstream's agents import helper modules of their own package (M3A and T3A `m3a_utils`,
    SeeAct `seeact_utils`) that this harness does not ship. Each one the agent file imports that
    `android_world.agents` lacks here, and that sits beside the file (an upstream checkout's
    `android_world/agents/`), is loaded from there under its upstream name, as if copied into the
    package; its own helpers first. Modules this harness has (infer, base_agent, agent_utils...)
    are never replaced. Returns the names provided."""
    package = importlib.import_module(_PACKAGE)
    provided: list[str] = []
    for name in _package_imports(path):
        full = f"{_PACKAGE}.{name}"
        helper = path.parent / f"{name}.py"
        if full in sys.modules or not helper.is_file():
            continue
        if importlib.util.find_spec(full) is not None:
            continue  # ours
        loader_spec = importlib.util.spec_from_file_location(full, helper)
        if loader_spec is None or loader_spec.loader is None:
            continue
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[full] = module
        try:
            provided += provide_helpers(helper)
            loader_spec.loader.exec_module(module)
        except AgentModuleError:
            sys.modules.pop(full, None)
            raise
        except Exception as exc:  # the user's files: an import error is theirs to fix
            sys.modules.pop(full, None)
            raise AgentModuleError(
                f"--agent_module: importing {helper} (upstream's {name}, beside the agent) "
                f"failed: {type(exc).__name__}: {exc}"
            ) from None
        setattr(package, name, module)
        provided.append(name)
    return provided


def load_class(spec: str) -> type:
    path, class_name = parse_spec(spec)
    module_name = f"celil_agent_module_{abs(hash(path.resolve())):x}"
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise AgentModuleError(f"--agent_module: cannot load {path}")
    provide_helpers(path)
    infer_clients.plug()  # the agent may build infer.Gpt4Wrapper or GeminiGcpWrapper
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = module
    try:
        loader_spec.loader.exec_module(module)
    except Exception as exc:  # the user's file: any import error is theirs to fix
        raise AgentModuleError(
            f"--agent_module: importing {path} failed: {type(exc).__name__}: {exc}"
        ) from None
    cls = getattr(module, class_name, None)
    if not (inspect.isclass(cls) and issubclass(cls, base_agent.EnvironmentInteractingAgent)):
        raise AgentModuleError(
            f"--agent_module: {path} has no agent class {class_name!r} "
            "(a subclass of base_agent.EnvironmentInteractingAgent)"
        )
    return cls


def _planner_model(context: registry.RunContext) -> Any:
    from android_world.agents.custom.model_clients.errors import ModelSetupError
    from android_world.agents.custom.model_clients.resolution import resolve_role

    settings = context.models.role_settings("maestro")
    ledger = context.models.make_ledger()
    try:
        resolution = resolve_role("maestro", settings, ledger)
    except ModelSetupError as exc:
        raise registry.AgentConfigError("agent_module", "llm", str(exc)) from None
    context.log(resolution.line())
    if resolution.wrapper is None:
        raise registry.AgentConfigError(
            "agent_module",
            "llm",
            f"the agent needs a model (its constructor takes `llm`); models.maestro resolved "
            f"to offline ({resolution.reason})",
        )
    return resolution.wrapper


def register_module_agent(spec: str) -> str:
    """Load the class and register a factory for it; returns the registry name (the class name)."""
    cls = load_class(spec)
    parameters = inspect.signature(cls.__init__).parameters

    def factory(env: Any, context: registry.RunContext | None = None, **kwargs: Any):
        context = context or registry.RunContext()
        if "llm" in parameters and "llm" not in kwargs:
            kwargs["llm"] = _planner_model(context)
        try:
            return cls(env, **kwargs)
        except TypeError as exc:
            raise registry.AgentConfigError(cls.__name__, "", f"cannot build it: {exc}") from None

    registry.register(cls.__name__, factory)
    return cls.__name__
