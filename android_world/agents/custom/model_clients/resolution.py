"""Which model a role gets: an explicit backend as configured, or `auto` (Gemini when a key is
set, then a reachable Ollama or OpenAI-compatible server, else the offline roles), with the
recorder wrapped around it and the executor's coordinate convention settled."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from android_world.agents.custom.celil_secrets import redact
from android_world.agents.custom.dialects.uitars import ABSOLUTE_RESIZED, RELATIVE_1000
from android_world.agents.custom.model_clients.call_types import CallResult, ModelRequest
from android_world.agents.custom.model_clients.client import CelilModel
from android_world.agents.custom.model_clients.errors import ModelSetupError
from android_world.agents.custom.model_clients.gemini import (
    GEMINI_KEY_ENVS,
    GeminiWrapper,
    gemini_key,
)
from android_world.agents.custom.model_clients.ledger import UsageLedger
from android_world.agents.custom.model_clients.ollama import OllamaWrapper
from android_world.agents.custom.model_clients.openai_compatible import OpenAICompatibleWrapper
from android_world.agents.custom.model_clients.probes import probe_ollama, probe_openai
from android_world.agents.custom.model_clients.replay import RecordingWrapper, ReplayWrapper
from android_world.agents.custom.model_clients.settings import (
    BACKENDS,
    DEFAULT_OLLAMA_HOST,
    RoleSettings,
)


class FallbackWrapper(CelilModel):
    """Primary first; on a non-safety failure (retries exhausted, model unavailable) the secondary.

    Used by `auto` on Gemini: the planner on the stronger model falls back to the cheaper one and the
    verifiers the other way round. Both attempts are in the ledger.
    """

    def __init__(self, primary: CelilModel, secondary: CelilModel) -> None:
        self.primary = primary
        self.secondary = secondary
        self.role = primary.role
        self.backend = primary.backend
        self.model = primary.model
        self.fallbacks = 0

    def call(self, request: ModelRequest) -> CallResult:
        result = self.primary.call(request)
        if result.ok or result.error_kind in ("safety", "replay_miss"):
            return result
        self.fallbacks += 1
        return self.secondary.call(request)

    def describe(self) -> str:
        return f"{self.primary.describe()} (fallback {self.secondary.model})"


@dataclasses.dataclass
class Resolution:
    """What a role got: backend, model, a one-line human reason (no secrets) and the wrapper.

    `wrapper` is None for `offline` (the offline roles live in offline.py).
    """

    role: str
    backend: str
    model: str
    reason: str
    wrapper: CelilModel | None = None
    coordinates: str = "absolute_resized"
    """How the model's points read (executor): `absolute_resized` or `relative_1000`; a config
    value of `auto` is settled here, by the backend that answers (see `default_coordinates`)."""

    def __post_init__(self) -> None:
        # Reasons name server URLs; they reach the console banner and manifest.json.
        self.reason = redact(self.reason)

    def line(self) -> str:
        model = f" {self.model}" if self.model else ""
        return f"{self.role}: {self.backend}{model} — {self.reason}"

    def to_dict(self) -> dict[str, str]:
        """For manifest.json's resolved model backends."""
        return {
            "role": self.role,
            "backend": self.backend,
            "model": self.model,
            "reason": self.reason,
            "coordinates": self.coordinates,
        }


def _common_kwargs(settings: RoleSettings, ledger: UsageLedger | None) -> dict[str, Any]:
    """What every network backend takes alike (see `BackendWrapper.__init__`)."""
    return {
        "ledger": ledger,
        "max_retries": settings.max_retries,
        "retry_initial_delay_s": settings.retry_initial_delay_s,
        "retry_max_delay_s": settings.retry_max_delay_s,
        "temperature": settings.temperature,
        "timeout_s": settings.timeout_s,
        "deadline_s": settings.request_deadline_s(),
        "max_output_tokens": settings.max_output_tokens,
        "images": settings.images,
    }


def _need_model(settings: RoleSettings, model: str, what: str, key: str) -> str:
    """A network backend cannot guess a model name: the error names the setting to fill in."""
    if not model:
        role = settings.role
        raise ModelSetupError(f"{role}: no {what} configured (models.{role}.{key})")
    return model


def _gemini(settings: RoleSettings, ledger: UsageLedger | None, model: str) -> CelilModel:
    return GeminiWrapper(
        settings.role,
        _need_model(settings, model, "Gemini model", "gemini_model"),
        api_key_env=settings.api_key_env,
        base_url=settings.url_for("gemini"),
        thinking_budget=settings.thinking_budget,
        **_common_kwargs(settings, ledger),
    )


def _ollama(settings: RoleSettings, ledger: UsageLedger | None, model: str) -> CelilModel:
    return OllamaWrapper(
        settings.role,
        _need_model(settings, model, "Ollama model", "ollama_model"),
        host=settings.url_for("ollama"),
        num_ctx=settings.num_ctx,
        **_common_kwargs(settings, ledger),
    )


def _openai(settings: RoleSettings, ledger: UsageLedger | None, model: str) -> CelilModel:
    """The server URL is checked first: without one no model name helps, and the message says
    where to set it."""
    role = settings.role
    base_url = settings.url_for("openai")
    if not base_url:
        raise ModelSetupError(
            f"{role}: backend openai needs a server URL: set models.openai_base_url "
            f"(or models.{role}.base_url), e.g. http://127.0.0.1:8000/v1"
        )
    return OpenAICompatibleWrapper(
        role,
        _need_model(settings, model, "model", "model"),
        base_url=base_url,
        api_key_env=settings.api_key_env,
        structured_output=settings.structured_output,
        **_common_kwargs(settings, ledger),
    )


def _replay(settings: RoleSettings, ledger: UsageLedger | None, model: str) -> CelilModel:
    """A replay serves recorded answers: it needs the recording, not a model name or network
    settings."""
    if not settings.replay_path:
        raise ModelSetupError(f"{settings.role}: backend replay needs models.replay_path")
    return ReplayWrapper(
        settings.role, settings.replay_path, strict=settings.replay_strict, ledger=ledger
    )


# One builder a backend, so each backend's required settings and their messages stand together.
_BUILDERS: dict[str, Callable[[RoleSettings, UsageLedger | None, str], CelilModel]] = {
    "gemini": _gemini,
    "ollama": _ollama,
    "openai": _openai,
    "replay": _replay,
}


def build_wrapper(
    backend: str,
    settings: RoleSettings,
    ledger: UsageLedger | None = None,
    model: str | None = None,
) -> CelilModel:
    """A wrapper for `backend` from settings (no probing, no recording). Raises ModelSetupError.

    `model` overrides the settings' model for the backend (Gemini's fallback model)."""
    builder = _BUILDERS.get(backend)
    if builder is None:
        raise ModelSetupError(
            f"{settings.role}: unknown backend '{backend}' (choose one of {', '.join(BACKENDS)})"
        )
    return builder(settings, ledger, model if model is not None else settings.model_for(backend))


def _gemini_wrapper(settings: RoleSettings, ledger: UsageLedger | None) -> CelilModel:
    primary = build_wrapper("gemini", settings, ledger)
    fallback = settings.gemini_fallback_model
    if fallback and fallback != primary.model:
        return FallbackWrapper(primary, build_wrapper("gemini", settings, ledger, model=fallback))
    return primary


def default_coordinates(backend: str) -> str:
    """The executor's point convention when the config leaves it on `auto`.

    UI-TARS-1.5 (what Ollama and OpenAI-compatible servers run for this role) writes pixels of the
    image it was sent. Gemini models are trained to point on a 0..1000 grid over the image and,
    asked for UI-TARS actions, write points on that grid, so absolute pixels would land in the top
    left of the screen.
    """
    return RELATIVE_1000 if backend == "gemini" else ABSOLUTE_RESIZED


def _resolved(
    settings: RoleSettings,
    backend: str,
    wrapper: CelilModel,
    reason: str,
    *,
    model_backend: str | None = None,
) -> Resolution:
    """The Resolution of a built wrapper: recording wrapped around it, coordinates settled.

    `model_backend` is the backend that produced the answers when that is not `backend` (replay
    answers as the recorded backend did, so it points like it)."""
    coordinates = settings.coordinates
    if coordinates == "auto":
        coordinates = default_coordinates(model_backend or backend)
    if settings.record_path:
        reason = f"{reason}; recording to {settings.record_path}"
        wrapper = RecordingWrapper(wrapper, settings.record_path, role=settings.role)
    return Resolution(settings.role, backend, wrapper.model, reason, wrapper, coordinates)


def _resolve_explicit(settings: RoleSettings, ledger: UsageLedger | None) -> Resolution:
    role, backend = settings.role, settings.backend
    if backend == "gemini":
        wrapper = _gemini_wrapper(settings, ledger)
        _, key_env = gemini_key(settings.api_key_env)
        return _resolved(settings, backend, wrapper, f"configured; key from {key_env}")
    wrapper = build_wrapper(backend, settings, ledger)
    if isinstance(wrapper, ReplayWrapper):
        if not wrapper.entry_count:
            # The recorded run made no calls for this role: it ran offline, so replay does too.
            reason = f"replay: no recorded calls for {role} in {settings.replay_path} (offline when recorded)"
            return Resolution(role, "offline", "", reason)
        reason = f"configured ({settings.replay_path}, recorded on {wrapper.recorded_backend})"
        return _resolved(settings, backend, wrapper, reason, model_backend=wrapper.recorded_backend)
    return _resolved(settings, backend, wrapper, f"configured ({settings.url_for(backend)})")


def _try_auto(
    candidate: str, settings: RoleSettings, ledger: UsageLedger | None
) -> Resolution | str:
    """`candidate` as the role's backend if it can work now, else why not (one phrase)."""
    if candidate == "gemini":
        _, key_env = gemini_key(settings.api_key_env)
        if not key_env:
            return f"no {settings.api_key_env or '/'.join(GEMINI_KEY_ENVS)}"
        if not settings.model_for("gemini"):
            return "no gemini_model"
        wrapper = _gemini_wrapper(settings, ledger)
        reason = f"auto: {key_env} is set"
        if isinstance(wrapper, FallbackWrapper):
            reason += f"; falls back to {wrapper.secondary.model}"
        return _resolved(settings, "gemini", wrapper, reason)
    if candidate == "ollama":
        host = settings.url_for("ollama") or DEFAULT_OLLAMA_HOST
        ok, why = probe_ollama(host, settings.model_for("ollama"), settings.probe_timeout_s)
        if not ok:
            return why
        return _resolved(
            settings, "ollama", build_wrapper("ollama", settings, ledger), f"auto: {why}"
        )
    if candidate == "openai":
        base_url = settings.url_for("openai")
        if not base_url:
            return "no openai_base_url configured"
        ok, why, model = probe_openai(
            base_url, settings.model_for("openai"), settings.api_key_env, settings.probe_timeout_s
        )
        if not ok:
            return why
        wrapper = build_wrapper("openai", settings, ledger, model=model)
        return _resolved(settings, "openai", wrapper, f"auto: {why}")
    return f"unknown auto backend '{candidate}'"


def resolve_role(
    role: str, settings: RoleSettings, ledger: UsageLedger | None = None
) -> Resolution:
    """Choose and build a role's model. Explicit backends are respected (and not probed).

    `auto` tries `settings.auto_order` (default gemini, ollama, openai): Gemini when a key is set,
    Ollama when reachable with the model pulled, an OpenAI-compatible server when configured and
    reachable; otherwise `offline`. Raises ModelSetupError for an explicit backend that cannot work.
    """
    if settings.role != role:
        settings = dataclasses.replace(settings, role=role)
    backend = settings.backend
    if backend == "offline":
        return Resolution(role, "offline", "", "configured offline (no model calls)")
    if backend not in BACKENDS:
        raise ModelSetupError(
            f"{role}: unknown backend '{backend}' (choose one of {', '.join(BACKENDS)})"
        )
    if backend != "auto":
        return _resolve_explicit(settings, ledger)
    skipped: list[str] = []
    configured_openai: str | None = None
    for candidate in settings.auto_order:
        outcome = _try_auto(candidate, settings, ledger)
        if isinstance(outcome, Resolution):
            return outcome
        skipped.append(outcome)
        if candidate == "openai" and settings.url_for("openai"):
            configured_openai = outcome
    if configured_openai is not None:
        # A server the user named and cannot be used is a mistake to fix, not a reason to run
        # the whole benchmark silently on the offline roles.
        raise ModelSetupError(
            f"{role}: models.openai_base_url is set but unusable: {configured_openai}; start or "
            "fix the server, or remove openai_base_url to let `auto` run offline"
        )
    reason = (
        "auto: no model available (" + "; ".join(skipped) + ")"
        if skipped
        else "auto: nothing to try"
    )
    return Resolution(role, "offline", "", redact(reason))
