"""The plugin's own factory: a configured CelilAgent from an env and a YAML file or dict.

Lives inside `custom/` so that an upstream AndroidWorld checkout, which has none of this harness's
config loader or registry, can build the agent in one line (the installer adds exactly that to
upstream's run.py):

    agent = factory.create_agent_or_exit(env)       # reads the YAML named by $CELIL_CONFIG

The YAML is this harness's run config (`models:` plus `agent.configurations.celil_agent`; other
sections are ignored) or a short file with `models:` and a top-level `celil_agent:` mapping. The
harness's registry entry (`agents/celil_factory.py`) calls `build_agent` with its own context,
so both paths build the same agent from the same keys. Every setup problem (missing tesseract,
a role with no model and no offline fallback, a backend that cannot work, a bad key) raises
`CelilSetupError`, one line naming the config key.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import importlib
import logging
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import pydantic
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
)

from android_world.agents.custom import celil_model_config, celil_startup
from android_world.agents.custom.celil_secrets import redact
from android_world.agents.custom.loop import celil_agent, celil_gate
from android_world.agents.custom.memory import celil_memory_mode
from android_world.agents.custom.model_clients.errors import ModelSetupError
from android_world.agents.custom.model_clients.ledger import UsageLedger
from android_world.agents.custom.model_clients.resolution import Resolution, resolve_role
from android_world.agents.custom.roles import celil_maestro, celil_perception, celil_quality_control
from android_world.env import interface

AGENT_NAME = "celil_agent"
OFFLINE_MODULE = "android_world.agents.custom.offline_roles.offline"
DEFAULT_MEMORY_PATH = "runs/celil_episodic_memory.db"
CONFIG_ENV = "CELIL_CONFIG"
"""Environment variable naming the Celil YAML when `create_agent` is given no config."""
RUN_DIR_ENV = "CELIL_RUN_DIR"
"""Directory of `memory: fresh` outside the harness (default: a new temporary directory)."""
RUN_CONFIG_SECTIONS = frozenset({"env", "benchmark", "models", "agent", "celil_agent"})
"""Top-level keys a plugin YAML may have (the harness's run-config sections plus `celil_agent`)."""

logger = logging.getLogger("celil")


class CelilSetupError(ValueError):
    """The configuration cannot build an agent; `path` is the config key at fault ("" if none)."""

    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)


def _log_info(message: str) -> None:
    logger.info("%s", message)


@dataclasses.dataclass
class BuildContext:
    """What building needs beyond the agent's keys (the harness's RunContext has the same fields)."""

    models: celil_model_config.ModelsConfig = dataclasses.field(
        default_factory=celil_model_config.ModelsConfig
    )
    run_dir: Path | None = None
    seed: int = 0
    log: Callable[[str], None] = _log_info


def _known_persona(name: str) -> str:
    """A misspelt persona would be ignored and its default prompt used without a word."""
    known = celil_quality_control.DEFAULT_PERSONAS
    if name in known:
        return name
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"unknown persona {name!r}{hint} (personas: {', '.join(known)})")


PersonaName = Annotated[str, AfterValidator(_known_persona)]


class CelilAgentConfig(BaseModel):
    """`agent.configurations.celil_agent` (models per role come from the `models:` section)."""

    # NaN and infinity pass every bound (NaN fails every comparison later, so `weights: [.nan,
    # 1, 1]` rejected every action): refused.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    maestro_verifier_model_name: str = "auto"
    """`auto`: planner and verifiers use the models configured for them; a model name routes
    both roles to that model instead."""
    threshold: float = Field(default=7.0, ge=0.0, le=10.0)
    """Weighted verifier score (0-10) an action needs to run."""
    irreversible_threshold: float = Field(default=8.5, ge=0.0, le=10.0)
    """Score a tap on delete/send/discard/clear/uninstall... needs; at least `threshold`."""
    weights: tuple[float, float, float] = (0.4, 0.5, 0.1)
    """Weights of the Pragmatist, Skeptic and Efficiency Expert."""
    unparseable_vote_score: float = Field(default=0.0, ge=0.0, le=10.0)
    """No longer used (kept so older configs load): a vote that cannot be read, or whose call
    failed, is absent from every score (issue 26); building says so when it is not 0."""
    verifier_mode: Literal["joint", "adaptive", "parallel", "lazy", "sequential"] = "joint"
    """joint: no vote where none can help (navigation, the goal's own words, a control the goal
    names, taps one step undoes); else the three personas answer in one request (one call, one
    screenshot) and the median vote decides; irreversible actions need the Skeptic and the
    Pragmatist both at the threshold; an answer that cannot be read is no vote, never a veto,
    and the personas are then asked one by one. adaptive: the same skips, the Skeptic first, a
    second persona only when it is not confidently for the action, a third to break a split,
    one request each. parallel: three calls at once; lazy: Efficiency Expert only if the gate
    is undecided; sequential: one call after another."""
    rejection_feedback: bool = True
    """A rejected proposal (or an unconfirmed "finished") goes back to the executor with the
    reasons; a second one in a row on the same sub-goal costs a replan; false replans at once."""
    verification: Literal["on", "off"] = "on"
    """off: no verifier is asked and every proposal runs (for ablations)."""
    persona_prompts: dict[PersonaName, str] = {}
    """Override a persona's instructions, keyed by persona name (Pragmatist, Skeptic,
    Efficiency Expert)."""
    max_rehearsals: int = Field(default=6, ge=0)
    """Replans allowed per episode; one more failure ends it with `status infeasible`."""
    loop_repeat_limit: int = Field(default=3, ge=2)
    """Identical actions in a row with no screen change that count as a loop."""
    history_steps: int = Field(default=3, ge=0)
    """Past steps shown in every role's context summary."""
    history_images: int = Field(default=1, ge=1)
    """Screenshots the executor sees: the current one plus this many minus one earlier ones of
    the sub-goal (the `uitars` dialect only; its history is otherwise its earlier answers, and
    every role's context has the recent steps, their outcomes and what changed)."""
    history_image_pixels: int = Field(default=200_704, ge=78_400)
    """Pixel cap of those earlier screenshots (the current one keeps `max_image_pixels`)."""
    history_turns: int = Field(default=8, ge=0)
    """Earlier executor turns (its thoughts and actions) shown to it within a sub-goal."""
    max_sub_goals: int = Field(default=12, ge=1)
    """Cap on the number of sub-goals in a plan."""
    progress_check: Literal["screen", "after_action", "always", "off"] = "screen"
    """When a sub-goal's progress is checked. screen: after each action, read off the screen
    without a model call (a switch's position, a field's text, the app in front); the planner
    is asked only to confirm the executor's "finished". after_action/always: the planner's
    check after each action / every step; off: only the executor's "finished"."""
    require_evidence: bool = True
    """A sub-goal is done only when the screen shows it; false reproduces the old loop (which
    trusted a finished executor), for comparisons."""
    ocr: Literal["auto", "always", "off"] = "auto"
    """auto: tesseract only when the accessibility tree carries little text."""
    memory: celil_memory_mode.MemoryMode = "fresh"
    """fresh: an empty memory in the run directory (results do not depend on earlier runs);
    shared: `episodic_memory_path`, read and extended; frozen: that file, read only; off."""
    episodic_memory_path: str | None = DEFAULT_MEMORY_PATH
    """The memory file of `shared` and `frozen` (SQLite; a JSON memory of an older Celil is
    migrated once into `<name>.db` beside it); empty or null disables episodic memory."""
    memory_retire_after: int | None = Field(default=3, ge=1)
    """Retrievals in a row whose episode failed before a remembered plan retires (never
    retrieved again; `memory_review restore` brings it back); null = never."""
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
    verifier_image_pixels: int = Field(default=250_880, ge=0)
    """Pixel cap of the screenshot a vote carries (at most `max_image_pixels`); the screen's
    text goes with it in full. 0: votes carry no screenshot."""
    planner_image_pixels: int = Field(default=250_880, ge=0)
    """Pixel cap of the screenshot the planner's calls carry (plans, answers; at most
    `max_image_pixels`): it reads the screen's text, sent in full, and points at nothing.
    0: the planner gets no screenshot."""
    second_opinion: Literal["off", "skip", "vote", "strict"] = "vote"
    """A model-free second opinion in the gate (a model executor and joint/adaptive verifiers
    only): the offline executor grounds the same sub-goal (or the offline plan's sub-goals) on
    the same screen, for free. skip: when one of its intent families proposes the very same
    action, no vote is asked. vote: also, when it proposes only other actions, a tap or scroll
    a skip rule would let through is voted on. strict: also, on such a disagreement every
    readable vote must pass. off: none of this (docs/BENCHMARKS.md, issue 30)."""
    second_opinion_irreversible: bool = True
    """With `second_opinion`, agreement also skips the vote on an irreversible act whose
    target the goal names (the irreversible guard's check); false: those are always voted on."""
    transition_pause: float | None = Field(default=None, ge=0.0)
    """Seconds to wait after an action before observing (null = poll until stable). The runner's
    `benchmark.transition_pause` overrides it."""

    @field_validator("weights")
    @classmethod
    def _weights(cls, value: tuple[float, float, float]) -> tuple[float, float, float]:
        if any(w < 0 for w in value) or sum(value) <= 0:
            raise ValueError("weights must be non-negative and not all zero")
        return value

    @field_validator("irreversible_threshold")
    @classmethod
    def _not_below_threshold(cls, value: float, info: ValidationInfo) -> float:
        """Below `threshold` it would say an irreversible action needs less than any other;
        the agent used to raise it silently, which hid the mistake."""
        threshold = info.data.get("threshold")
        if threshold is not None and value < threshold:
            raise ValueError(
                f"{value:g} is below threshold ({threshold:g}); an irreversible action needs at "
                "least the score any action needs: raise it or lower threshold"
            )
        return value


def coordinate_convention(params: CelilAgentConfig, leader: Resolution) -> str:
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


def _config_error(path: str, message: str) -> CelilSetupError:
    return CelilSetupError(path, message)


def _role_settings(context: BuildContext, role: str, params: CelilAgentConfig):
    """The role's settings as the agent uses them (`maestro_verifier_model_name` applied)."""
    settings = context.models.role_settings(role)
    name = params.maestro_verifier_model_name
    if role in ("maestro", "verifiers") and name and name != "auto":
        settings = dataclasses.replace(
            settings, model=name, gemini_model=name, ollama_model=name, openai_model=name
        )
    return settings


def _resolve(
    role: str,
    context: BuildContext,
    params: CelilAgentConfig,
    ledger: Any,
    console_line: Callable[[str], str] = str,
) -> Resolution:
    try:
        resolution = resolve_role(role, _role_settings(context, role, params), ledger)
    except ModelSetupError as error:
        raise _config_error("", f"models.{role}: {error}") from None
    context.log(console_line(resolution.line()))
    return resolution


def check_startup(params: CelilAgentConfig, models: celil_model_config.ModelsConfig) -> None:
    """Before anything runs: every configured role's model can work and the episodic memory
    file is usable, or CelilSetupError names the key to fix. Explicit backends get the checks
    `auto` makes before it picks one (server up and serving the model, key set; see
    celil_startup); `auto` with a configured openai_base_url and `replay` are resolved as the
    agent will resolve them. No model request is sent."""
    context = BuildContext(models=models)
    probed: dict[tuple, Any] = {}
    for role in models.roles():
        settings = _role_settings(context, role, params)
        try:
            celil_startup.check_role(settings, probed)
            if settings.backend == "replay" or (
                settings.backend == "auto" and settings.url_for("openai")
            ):
                # What check_role leaves: a recording that cannot be read, and `auto`, which
                # fails only on a configured OpenAI-compatible server it cannot use. Anything
                # else would only build clients, or repeat probes, the agent makes anyway.
                resolve_role(role, settings, None)
        except celil_startup.StartupCheckError as error:
            raise _config_error(error.key, error.message) from None
        except ModelSetupError as error:
            # `auto` refuses only a configured openai_base_url it cannot use.
            key = "models.openai_base_url" if settings.backend == "auto" else f"models.{role}"
            raise _config_error(key, redact(str(error))) from None
    try:  # the run directory does not exist yet: `fresh` is checked when the agent is built
        plan = celil_memory_mode.plan_memory(params.memory, params.episodic_memory_path or "", None)
    except celil_memory_mode.MemorySetupError as error:
        raise _config_error("memory", str(error)) from None
    if plan.path is not None:
        _check_memory_file(plan.path)


def _check_memory_file(path: Path) -> None:
    """A shared or frozen memory that cannot work (a directory, FIFO or device at the path; a
    damaged, foreign or newer file) stops the run before its directory exists. Read only:
    nothing is created or changed here."""
    from android_world.agents.custom.memory import celil_episodic

    try:
        memory = celil_episodic.EpisodicMemory(path, read_only=True)
        memory.check(create=False)
        memory.close()
    except celil_episodic.EpisodicMemoryError as error:
        raise _config_error("episodic_memory_path", str(error)) from None


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


def _planner(params: CelilAgentConfig, maestro: Resolution) -> Any:
    if maestro.wrapper is None:
        return _offline_role(
            "maestro", maestro.reason, "OfflinePlanner", max_sub_goals=params.max_sub_goals
        )
    return celil_maestro.MaestroPlanner(
        maestro.wrapper,
        max_sub_goals=params.max_sub_goals,
        use_screenshot=params.planner_image_pixels > 0,
        max_image_pixels=min(params.planner_image_pixels, params.max_image_pixels) or None,
    )


def _executor(params: CelilAgentConfig, leader: Resolution) -> Any:
    if leader.wrapper is None:
        return _offline_role("section_leader", leader.reason, "OfflineActionGenerator")
    from android_world.agents.custom.roles import celil_section_leader

    return celil_section_leader.UITarsActionGenerator(
        leader.wrapper,
        coordinate_convention=coordinate_convention(params, leader),
        max_image_pixels=params.max_image_pixels,
        executor_format=params.executor_format,
        history_images=params.history_images,
        history_image_pixels=params.history_image_pixels,
        history_turns=params.history_turns,
    )


SECOND_OPINION_MODULE = "android_world.agents.custom.offline_roles.offline_second_opinion"


def _second_opinion(
    params: CelilAgentConfig, leader: Resolution, verifier: Any
) -> celil_gate.SecondOpinionSettings | None:
    """The gate's model-free executor, when it can help: a model executor to compare with and
    model verifiers whose skip rules it can extend (joint, adaptive)."""
    if params.second_opinion == "off" or leader.wrapper is None:
        return None
    if not isinstance(verifier, celil_quality_control.VerifierEnsemble):
        return None
    if verifier.mode not in ("joint", "adaptive"):
        return None
    try:
        module = importlib.import_module(SECOND_OPINION_MODULE)
    except ModuleNotFoundError:
        raise _config_error(
            "second_opinion", f"needs the offline roles ({SECOND_OPINION_MODULE}); set it to off"
        ) from None
    return celil_gate.SecondOpinionSettings(
        mode=params.second_opinion,
        source=module.OfflineSecondOpinion(),
        irreversible=params.second_opinion_irreversible,
    )


def _verifier(params: CelilAgentConfig, verifiers: Resolution) -> Any:
    if params.verification == "off":
        return celil_quality_control.NoVerification()
    if verifiers.wrapper is None:
        return _offline_role(
            "verifiers",
            verifiers.reason,
            "OfflineVerifier",
            weights=params.weights,
            threshold=params.threshold,
            irreversible_threshold=params.irreversible_threshold,
        )
    try:
        return celil_quality_control.VerifierEnsemble(
            verifiers.wrapper,
            weights=params.weights,
            mode=params.verifier_mode,
            threshold=params.threshold,
            irreversible_threshold=params.irreversible_threshold,
            persona_prompts=params.persona_prompts,
            use_screenshot=params.verifier_image_pixels > 0,
            max_image_pixels=min(params.verifier_image_pixels, params.max_image_pixels) or None,
        )
    except ValueError as error:
        raise _config_error("persona_prompts", str(error)) from None


def _vision_selector(
    params: CelilAgentConfig,
    context: BuildContext,
    ledger: UsageLedger,
    leader: Resolution,
    console_line: Callable[[str], str],
) -> tuple[Any, Resolution | None]:
    """The element picker used when the executor's output is unusable, and its resolution."""
    if context.models.vision_fallback is not None:
        vision = _resolve("vision_fallback", context, params, ledger, console_line)
        if vision.wrapper is not None:
            selector = celil_maestro.VisionElementSelector(
                vision.wrapper, max_image_pixels=params.max_image_pixels
            )
        else:
            selector = _offline_role("vision_fallback", vision.reason, "OfflineElementSelector")
        return selector, vision
    if leader.wrapper is None:
        # No fallback model configured and the executor is offline: the offline picker is the
        # fallback that matches it (same word matching, no model).
        return _offline_role("vision_fallback", leader.reason, "OfflineElementSelector"), None
    return None, None


def build_agent(
    env: interface.AsyncEnv,
    params: CelilAgentConfig,
    context: BuildContext,
    *,
    console_line: Callable[[str], str] = str,
) -> celil_agent.CelilAgent:
    """The CelilAgent for validated `params`, with its models resolved from `context.models`.

    `context` is any object with `models`, `run_dir`, `seed` and `log` (the harness passes its
    RunContext); `console_line` formats each line before it is logged (the harness folds them
    to 80 columns). Every setup problem raises `CelilSetupError`.
    """
    perception = _perception(params, context, console_line)
    ledger = UsageLedger(prices=context.models.price_table())
    maestro = _resolve("maestro", context, params, ledger, console_line)
    leader = _resolve("section_leader", context, params, ledger, console_line)
    verifiers = _resolve("verifiers", context, params, ledger, console_line)
    planner = _planner(params, maestro)
    executor = _executor(params, leader)
    verifier = _verifier(params, verifiers)
    resolutions = [maestro, leader, verifiers]
    vision_selector, vision = _vision_selector(params, context, ledger, leader, console_line)
    resolutions += [vision] if vision is not None else []

    episodic, memory_info = _episodic_memory(params, context, console_line)
    screen_checker = _screen_checker()
    roles = _role_records(resolutions, context, vision_selector)
    agent = celil_agent.CelilAgent(
        env,
        perception,
        planner,
        executor,
        verifier,
        screen_checker=screen_checker,
        episodic_memory=episodic,
        vision_selector=vision_selector,
        ledger=ledger,
        name=AGENT_NAME,
        threshold=params.threshold,
        irreversible_threshold=params.irreversible_threshold,
        rejection_retries=params.rejection_feedback,
        max_rehearsals=params.max_rehearsals,
        loop_repeat_limit=params.loop_repeat_limit,
        history_steps=params.history_steps,
        progress_check=params.progress_check,
        require_evidence=params.require_evidence,
        provenance={
            "run": context.run_dir.name if context.run_dir else None,
            "seed": context.seed,
            "models": {k: f"{v['backend']}:{v['model']}" for k, v in roles.items()},
        },
        transition_pause=params.transition_pause,
        second_opinion=_second_opinion(params, leader, verifier),
        memory_reuse_similarity=params.memory_reuse_similarity,
        memory_reuse_success_rate=params.memory_reuse_success_rate,
    )
    role_objects = [planner, executor, verifier, vision_selector]
    agent.manifest_info = _manifest_info(params, leader, roles, role_objects, memory_info)
    return agent


def _manifest_info(
    params: CelilAgentConfig,
    leader: Resolution,
    roles: dict[str, dict[str, str]],
    role_objects: list[Any],
    memory_info: Any,
) -> dict[str, Any]:
    """What manifest.json records of the agent: roles, prompt hashes, coordinates, config."""
    planner, executor, verifier, vision_selector = role_objects
    by_role = {
        "maestro": planner,
        "section_leader": executor,
        "verifiers": verifier,
        "vision_fallback": vision_selector,
    }
    return {
        "roles": roles,
        "prompt_hashes": {
            role: prompt_hashes(obj) for role, obj in by_role.items() if role in roles
        },
        "coordinate_convention": coordinate_convention(params, leader),
        "config": params.model_dump(mode="json"),
        "memory": memory_info,
    }


def _screen_checker() -> Any:
    """The model-free reader of progress off the screen: the offline planner's checks, a
    separate instance from any offline planner role (it keeps no state of its own)."""
    return _offline_role("screen_checker", "the model-free screen check", "OfflinePlanner")


def _perception(
    params: CelilAgentConfig, context: BuildContext, console_line: Callable[[str], str]
) -> celil_perception.PerceptionModule:
    """The perception module (its OCR engine checked now), and a note for a retired key."""
    try:
        perception = celil_perception.PerceptionModule(ocr=params.ocr)
    except celil_perception.PerceptionError as error:
        raise _config_error("ocr", str(error)) from None

    if params.unparseable_vote_score != 0.0:  # the registry passes every key, so not fields_set
        context.log(
            console_line(
                "note: unparseable_vote_score no longer applies: an unreadable vote is absent "
                "(ignored in the score); remove it from the config"
            )
        )
    return perception


def _role_records(
    resolutions: list[Resolution], context: BuildContext, vision_selector: Any
) -> dict[str, dict[str, str]]:
    """Each role's backend, model and why, as manifest.json and the agent's provenance show it."""
    roles = {
        r.role: {"backend": r.backend, "model": r.model, "reason": r.reason} for r in resolutions
    }
    if context.models.vision_fallback is None and vision_selector is not None:
        roles["vision_fallback"] = {
            "backend": "offline",
            "model": "",
            "reason": "not configured; the executor is offline, so the offline element picker",
        }
    return roles


def _episodic_memory(
    params: CelilAgentConfig, context: BuildContext, console_line: Callable[[str], str] = str
) -> tuple[Any, dict[str, object]]:
    """The episodic store for `params.memory`, and its state for the manifest (logged once)."""
    try:
        plan = celil_memory_mode.plan_memory(
            params.memory,
            params.episodic_memory_path if params.episodic_memory_path is not None else "",
            context.run_dir,
        )
    except celil_memory_mode.MemorySetupError as error:
        raise _config_error("memory", str(error)) from None
    state = celil_memory_mode.memory_state(plan)
    if "error" in state:
        raise _config_error("episodic_memory_path", str(state["error"]))
    context.log(console_line(celil_memory_mode.memory_line(state)))
    if plan.path is None:
        return None, state
    from android_world.agents.custom.memory import celil_episodic

    try:
        store = celil_episodic.EpisodicMemory(
            plan.path,
            provenance={"run": context.run_dir.name if context.run_dir else None},
            read_only=plan.read_only,
            retire_after=params.memory_retire_after,
            similarity_threshold=celil_episodic.DEFAULT_SIMILARITY_THRESHOLD,
        )
        # Opened (and created, or migrated from JSON) now: a damaged or foreign file is a
        # start-up error, not a warning per episode.
        store.check()
    except celil_episodic.EpisodicMemoryError as error:
        raise _config_error("episodic_memory_path", str(error)) from None
    for note in store.notes:
        context.log(console_line(f"Memory: {note}"))
    store.close()  # each worker process opens its own connection on first use
    return store, state


# --------------------------------------------------------------------------------------------------
# Outside the harness: a YAML file or dict in, an agent out
# --------------------------------------------------------------------------------------------------


def _read_yaml(path: Path) -> Any:
    """The file's data as the harness reads its config (YAML 1.2 booleans, so `ocr: off` is the
    string; no key given twice; UTF-8 only); every problem is one CelilSetupError line."""
    try:
        import yaml

        from android_world.agents.custom import celil_yaml
    except ImportError:
        raise CelilSetupError(
            "", f"reading {path} needs PyYAML (pip install pyyaml), or pass the config as a dict"
        ) from None
    try:
        return celil_yaml.load(celil_yaml.read_text(path))
    except OSError as error:
        raise CelilSetupError(
            "", f"cannot read the Celil config {path}: {error.strerror}"
        ) from None
    except celil_yaml.ConfigTextError as error:
        raise CelilSetupError("", error.located(str(path))) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise CelilSetupError("", f"{path} is not valid YAML{where}") from None


def _agent_section(data: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The celil_agent keys and their config path: top-level `celil_agent:`, else the harness's
    `agent.configurations.celil_agent` (whose `registry_name` is the harness's, not a key)."""
    if "celil_agent" in data:
        section, path = data["celil_agent"], "celil_agent"
    else:
        agent = data.get("agent") or {}
        configurations = agent.get("configurations") if isinstance(agent, Mapping) else None
        section = (
            (configurations or {}).get(AGENT_NAME) if isinstance(configurations, Mapping) else None
        )
        path = f"agent.configurations.{AGENT_NAME}"
    if section is None:
        return path, {}
    if not isinstance(section, Mapping):
        raise CelilSetupError(path, f"must be a mapping of keys, got {type(section).__name__}")
    keys = dict(section)
    keys.pop("registry_name", None)
    return path, keys


def _validation_message(error: pydantic.ValidationError) -> tuple[str, str]:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "[key]")
    return where, str(first.get("msg", "invalid value")).removeprefix("Value error, ")


def load_config(
    source: str | os.PathLike[str] | Mapping[str, Any] | None = None,
) -> tuple[CelilAgentConfig, celil_model_config.ModelsConfig]:
    """Validated agent keys and `models:` section from a YAML path or a dict.

    None reads the file named by $CELIL_CONFIG; with that unset too, every key has its default
    (`backend: auto` roles, so a machine with no model runs the offline roles).
    """
    if source is None:
        source = os.environ.get(CONFIG_ENV) or {}
    data = _read_yaml(Path(source)) if isinstance(source, (str, os.PathLike)) else source
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise CelilSetupError("", f"the Celil config must be a mapping, got {type(data).__name__}")
    unknown = sorted(str(key) for key in data if key not in RUN_CONFIG_SECTIONS)
    if unknown:
        raise CelilSetupError(
            unknown[0],
            f"unknown section (expected {', '.join(sorted(RUN_CONFIG_SECTIONS))})",
        )
    path, keys = _agent_section(data)
    try:
        params = CelilAgentConfig.model_validate(keys)
    except pydantic.ValidationError as error:
        where, message = _validation_message(error)
        raise CelilSetupError(f"{path}.{where}" if where else path, message) from None
    try:
        models = celil_model_config.ModelsConfig.model_validate(data.get("models") or {})
    except pydantic.ValidationError as error:
        where, message = _validation_message(error)
        raise CelilSetupError(f"models.{where}" if where else "models", message) from None
    return params, models


def create_agent(
    env: interface.AsyncEnv,
    config: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    *,
    run_dir: str | os.PathLike[str] | None = None,
    seed: int = 0,
    log: Callable[[str], None] | None = None,
) -> celil_agent.CelilAgent:
    """A configured CelilAgent on `env` from a YAML path or dict ($CELIL_CONFIG when None).

    `run_dir` holds `memory: fresh` (default $CELIL_RUN_DIR, else a new temporary directory, so
    each process starts with an empty memory as the harness's runs do).
    """
    params, models = load_config(config)
    check_startup(params, models)  # a dead configured server stops here, not an hour in
    where = run_dir or os.environ.get(RUN_DIR_ENV)
    if where is None and params.memory == "fresh":
        where = tempfile.mkdtemp(prefix="celil_run_")
    context = BuildContext(
        models=models,
        run_dir=Path(where) if where else None,
        seed=seed,
        log=log or _log_info,
    )
    return build_agent(env, params, context)


def create_agent_or_exit(
    env: interface.AsyncEnv,
    config: str | os.PathLike[str] | Mapping[str, Any] | None = None,
) -> celil_agent.CelilAgent:
    """`create_agent` for a command line (upstream's run.py): each role's resolved backend and the
    memory line are printed (upstream's run.py shows only warnings from logging, and a role that
    fell back to the offline baseline must not go unnoticed); a setup problem ends the program
    with one line naming the config key instead of a traceback."""
    try:
        return create_agent(env, config, log=print)
    except CelilSetupError as error:
        raise SystemExit(f"{AGENT_NAME}: {error}") from None
