"""Harness-side factory for `celil_agent`: config keys + resolved models in, a CelilAgent out.

The plugin never reads config or builds model clients (DESIGN §1); this module does both and
hands the agent plain objects. The registry imports it automatically, which registers the agent.
Every setup problem (missing tesseract, a role with no model and no offline fallback, a backend
that cannot work) becomes an `AgentConfigError`, which the runner prints as one line naming the
config key, with exit code 2.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from android_world import discover
from android_world.agents import memory_mode, registry
from android_world.agents.custom import (
    celil_agent,
    celil_maestro,
    celil_models,
    celil_perception,
    celil_quality_control,
)
from android_world.env import interface

AGENT_NAME = "celil_agent"
OFFLINE_MODULE = "android_world.agents.custom.offline"
DEFAULT_MEMORY_PATH = "runs/celil_episodic_memory.json"


class CelilAgentConfig(BaseModel):
    """`agent.configurations.celil_agent` (models per role come from the `models:` section)."""

    model_config = ConfigDict(extra="forbid")

    maestro_verifier_model_name: str = "auto"
    """`auto`: planner and verifiers use the models configured for them; a model name routes
    both roles to that model instead."""
    threshold: float = Field(default=7.0, ge=0.0, le=10.0)
    """Weighted verifier score (0-10) an action needs to run."""
    irreversible_threshold: float = Field(default=8.5, ge=0.0, le=10.0)
    """Score a tap on delete/send/discard/clear/uninstall... needs (never below `threshold`)."""
    weights: tuple[float, float, float] = (0.4, 0.5, 0.1)
    """Weights of the Pragmatist, Skeptic and Efficiency Expert."""
    unparseable_vote_score: float = Field(default=0.0, ge=0.0, le=10.0)
    """Score of a vote whose answer cannot be read (or whose call failed)."""
    verifier_mode: Literal["parallel", "lazy", "sequential"] = "parallel"
    """parallel: three calls at once; lazy: Efficiency Expert only if the gate is undecided;
    sequential: one call after another (servers that cannot serve concurrent requests)."""
    persona_prompts: dict[str, str] = {}
    """Override a persona's instructions, keyed by persona name."""
    max_rehearsals: int = Field(default=6, ge=0)
    """Replans allowed per episode; one more failure ends it with `status infeasible`."""
    loop_repeat_limit: int = Field(default=3, ge=2)
    """Identical actions in a row with no screen change that count as a loop."""
    history_steps: int = Field(default=3, ge=0)
    """Past steps shown in every role's context summary."""
    max_sub_goals: int = Field(default=12, ge=1)
    """Cap on the number of sub-goals in a plan."""
    progress_check: Literal["after_action", "always", "off"] = "after_action"
    """When the planner's cheap "is this sub-goal done?" check runs."""
    ocr: Literal["auto", "always", "off"] = "auto"
    """auto: tesseract only when the accessibility tree carries little text."""
    memory: memory_mode.MemoryMode = "fresh"
    """fresh: an empty memory in the run directory (results do not depend on earlier runs);
    shared: `episodic_memory_path`, read and extended; frozen: that file, read only; off."""
    episodic_memory_path: str | None = DEFAULT_MEMORY_PATH
    """The memory file of `shared` and `frozen`; empty or null disables episodic memory."""
    executor_format: Literal["uitars", "json"] = "uitars"
    """What the section leader model speaks: UI-TARS `Action: click(...)` or JSON actions."""
    coordinate_convention: Literal["absolute_resized", "relative_1000"] | None = None
    """How the executor model writes points: absolute_resized (UI-TARS-1.5, pixels of the image
    sent) or relative_1000 (UI-TARS v1, a 0-1000 grid). null (default): use
    `models.section_leader.coordinates`, the one place the convention is normally set; a value
    here overrides it for this agent configuration only."""
    memory_reuse_similarity: float | None = Field(default=0.95, ge=0.0, le=1.0)
    """A remembered plan at least this similar (goal template, 0-1) whose success rate is at
    least `memory_reuse_success_rate` is used as it is, without a planner call; a less similar
    one is only offered to the planner. null: always ask the planner."""
    memory_reuse_success_rate: float = Field(default=0.8, ge=0.0, le=1.0)
    """Success rate a remembered plan needs to be reused without the planner."""
    max_image_pixels: int = Field(default=1_003_520, ge=78_400)
    """Pixel cap of screenshots sent to models (smart-resized for UI-TARS)."""
    transition_pause: float | None = Field(default=1.0, ge=0.0)
    """Seconds to wait after an action before observing (null = poll until stable). The runner's
    `benchmark.transition_pause` overrides it."""

    @field_validator("weights")
    @classmethod
    def _weights(cls, value: tuple[float, float, float]) -> tuple[float, float, float]:
        if any(w < 0 for w in value) or sum(value) <= 0:
            raise ValueError("weights must be non-negative and not all zero")
        return value


def coordinate_convention(params: CelilAgentConfig, leader: celil_models.Resolution) -> str:
    """The agent key when set, else `models.section_leader.coordinates` as resolved for the
    backend that answers (`auto` settles there), so the convention has one source."""
    if params.coordinate_convention is not None:
        return params.coordinate_convention
    resolved = getattr(leader, "coordinates", None)
    if resolved in ("absolute_resized", "relative_1000"):
        return resolved
    return "absolute_resized"


def prompt_hashes(role_object: Any) -> dict[str, str]:
    """sha256 of each prompt template a role sends, so a run records which wording it used.

    Roles without `prompt_templates()` (the offline roles send no prompts) hash to nothing.
    """
    templates = getattr(role_object, "prompt_templates", None)
    if not callable(templates):
        return {}
    return {
        name: hashlib.sha256(text.encode("utf-8")).hexdigest()
        for name, text in sorted(templates().items())
    }


def _config_error(path: str, message: str) -> registry.AgentConfigError:
    return registry.AgentConfigError(AGENT_NAME, path, message)


def _role_settings(context: registry.RunContext, role: str, params: CelilAgentConfig):
    settings = context.models.role_settings(role)
    name = params.maestro_verifier_model_name
    if role in ("maestro", "verifiers") and name and name != "auto":
        settings = dataclasses.replace(
            settings, model=name, gemini_model=name, ollama_model=name, openai_model=name
        )
    return settings


def _resolve(
    role: str, context: registry.RunContext, params: CelilAgentConfig, ledger: Any
) -> celil_models.Resolution:
    try:
        resolution = celil_models.resolve_role(role, _role_settings(context, role, params), ledger)
    except celil_models.ModelSetupError as error:
        raise _config_error("", f"models.{role}: {error}") from None
    context.log(discover.wrap_line(resolution.line()))
    return resolution


def _offline_module(role: str, reason: str) -> Any:
    try:
        return importlib.import_module(OFFLINE_MODULE)
    except ModuleNotFoundError:
        raise _config_error(
            "",
            f"no model for role '{role}' ({reason}) and the offline roles module "
            f"({OFFLINE_MODULE}) is not installed; configure models.{role} "
            "(e.g. backend: gemini with GOOGLE_API_KEY set, or a running Ollama server)",
        ) from None


def _offline_role(role: str, reason: str, class_name: str, **kwargs: Any) -> Any:
    module = _offline_module(role, reason)
    cls = getattr(module, class_name, None)
    if cls is None:
        raise _config_error(
            "", f"{OFFLINE_MODULE} has no {class_name}, needed for role '{role}' ({reason})"
        )
    try:
        return cls(**kwargs)
    except TypeError:
        return cls()


def build_celil_agent(
    env: interface.AsyncEnv, context: registry.RunContext | None = None, **kwargs: Any
) -> celil_agent.CelilAgent:
    params = CelilAgentConfig.model_validate(kwargs)
    context = context or registry.RunContext()
    try:
        perception = celil_perception.PerceptionModule(ocr=params.ocr)
    except celil_perception.PerceptionError as error:
        raise _config_error("ocr", str(error)) from None

    ledger = celil_models.UsageLedger(prices=context.models.price_table())
    maestro = _resolve("maestro", context, params, ledger)
    leader = _resolve("section_leader", context, params, ledger)
    verifiers = _resolve("verifiers", context, params, ledger)

    if maestro.wrapper is None:
        planner = _offline_role(
            "maestro", maestro.reason, "OfflinePlanner", max_sub_goals=params.max_sub_goals
        )
    else:
        planner = celil_maestro.MaestroPlanner(
            maestro.wrapper,
            max_sub_goals=params.max_sub_goals,
            max_image_pixels=params.max_image_pixels,
        )

    if leader.wrapper is None:
        executor = _offline_role("section_leader", leader.reason, "OfflineActionGenerator")
    else:
        from android_world.agents.custom import celil_section_leader

        executor = celil_section_leader.UITarsActionGenerator(
            leader.wrapper,
            coordinate_convention=coordinate_convention(params, leader),
            max_image_pixels=params.max_image_pixels,
            executor_format=params.executor_format,
        )

    if verifiers.wrapper is None:
        verifier = _offline_role(
            "verifiers",
            verifiers.reason,
            "OfflineVerifier",
            weights=params.weights,
            threshold=params.threshold,
            irreversible_threshold=params.irreversible_threshold,
        )
    else:
        try:
            verifier = celil_quality_control.VerifierEnsemble(
                verifiers.wrapper,
                weights=params.weights,
                unparseable_vote_score=params.unparseable_vote_score,
                mode=params.verifier_mode,
                threshold=params.threshold,
                irreversible_threshold=params.irreversible_threshold,
                persona_prompts=params.persona_prompts,
                max_image_pixels=params.max_image_pixels,
            )
        except ValueError as error:
            raise _config_error("persona_prompts", str(error)) from None

    resolutions = [maestro, leader, verifiers]
    vision_selector = None
    if context.models.vision_fallback is not None:
        vision = _resolve("vision_fallback", context, params, ledger)
        resolutions.append(vision)
        if vision.wrapper is not None:
            vision_selector = celil_maestro.VisionElementSelector(
                vision.wrapper, max_image_pixels=params.max_image_pixels
            )
        else:
            vision_selector = _offline_role(
                "vision_fallback", vision.reason, "OfflineElementSelector"
            )
    elif leader.wrapper is None:
        # No fallback model configured and the executor is offline: the offline picker is the
        # fallback that matches it (same word matching, no model).
        vision_selector = _offline_role("vision_fallback", leader.reason, "OfflineElementSelector")

    episodic, memory_info = _episodic_memory(params, context)

    roles = {
        r.role: {"backend": r.backend, "model": r.model, "reason": r.reason} for r in resolutions
    }
    if context.models.vision_fallback is None and vision_selector is not None:
        roles["vision_fallback"] = {
            "backend": "offline",
            "model": "",
            "reason": "not configured; the executor is offline, so the offline element picker",
        }
    role_objects = {
        "maestro": planner,
        "section_leader": executor,
        "verifiers": verifier,
        "vision_fallback": vision_selector,
    }
    agent = celil_agent.CelilAgent(
        env,
        perception,
        planner,
        executor,
        verifier,
        episodic_memory=episodic,
        vision_selector=vision_selector,
        ledger=ledger,
        name=AGENT_NAME,
        threshold=params.threshold,
        irreversible_threshold=params.irreversible_threshold,
        max_rehearsals=params.max_rehearsals,
        loop_repeat_limit=params.loop_repeat_limit,
        history_steps=params.history_steps,
        progress_check=params.progress_check,
        provenance={
            "run": context.run_dir.name if context.run_dir else None,
            "seed": context.seed,
            "models": {k: f"{v['backend']}:{v['model']}" for k, v in roles.items()},
        },
        transition_pause=params.transition_pause,
        memory_reuse_similarity=params.memory_reuse_similarity,
        memory_reuse_success_rate=params.memory_reuse_success_rate,
    )
    agent.manifest_info = {
        "roles": roles,
        "prompt_hashes": {
            role: prompt_hashes(obj) for role, obj in role_objects.items() if role in roles
        },
        "coordinate_convention": coordinate_convention(params, leader),
        "config": params.model_dump(mode="json"),
        "memory": memory_info,
    }
    return agent


def _episodic_memory(
    params: CelilAgentConfig, context: registry.RunContext
) -> tuple[Any, dict[str, object]]:
    """The episodic store for `params.memory`, and its state for the manifest (logged once)."""
    try:
        plan = memory_mode.plan_memory(
            params.memory,
            params.episodic_memory_path if params.episodic_memory_path is not None else "",
            context.run_dir,
        )
    except memory_mode.MemorySetupError as error:
        raise _config_error("memory", str(error)) from None
    state = memory_mode.memory_state(plan)
    context.log(discover.wrap_line(memory_mode.memory_line(state)))
    if plan.path is None:
        return None, state
    from android_world.agents.custom import celil_episodic

    store = celil_episodic.EpisodicMemory(
        plan.path,
        provenance={"run": context.run_dir.name if context.run_dir else None},
        read_only=plan.read_only,
    )
    return store, state


registry.register(AGENT_NAME, build_celil_agent, config_model=CelilAgentConfig)
