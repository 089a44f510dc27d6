"""One role's model settings as plain data: the harness converts its config into these, so the
plugin never imports the harness's config loader."""

from __future__ import annotations

import dataclasses
import os

ROLES = ("maestro", "section_leader", "verifiers", "vision_fallback")
BACKENDS = ("auto", "gemini", "ollama", "openai", "replay", "offline")
DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"


@dataclasses.dataclass(frozen=True)
class RoleSettings:
    """One role's model settings, mirroring the harness's `RoleModelConfig` after defaults are applied.

    The plugin never imports harness config, so the harness hands over this plain object. Model names
    are per backend because `backend: auto` may land on any of them; `model` is what an explicit
    backend uses (falling back to that backend's field when empty).
    """

    role: str = "maestro"
    backend: str = "auto"
    model: str = ""
    gemini_model: str = ""
    gemini_fallback_model: str = ""
    ollama_model: str = ""
    openai_model: str = ""
    base_url: str | None = None
    gemini_base_url: str | None = None
    ollama_host: str | None = None
    openai_base_url: str | None = None
    api_key_env: str | None = None
    temperature: float = 0.0
    timeout_s: float = 60.0
    deadline_s: float | None = None
    """Total seconds one request may take (connect and every read); None: twice `timeout_s`."""
    max_retries: int = 3
    max_output_tokens: int = 2048
    retry_initial_delay_s: float = 1.0
    retry_max_delay_s: float = 30.0
    num_ctx: int = 16384
    thinking_budget: int | None = None
    auto_order: tuple[str, ...] = ("gemini", "ollama", "openai")
    probe_timeout_s: float = 2.0
    record_path: str | None = None
    replay_path: str | None = None
    replay_strict: bool = False
    coordinates: str = "auto"
    structured_output: str = "auto"
    images: str = "auto"

    def request_deadline_s(self) -> float:
        """The total deadline of one request: `deadline_s`, else twice the read timeout (time to
        connect and to wait for the first byte, each up to `timeout_s`, plus the transfer)."""
        return self.deadline_s if self.deadline_s is not None else 2 * self.timeout_s

    def model_for(self, backend: str) -> str:
        """The model name to use on `backend` (explicit `model` wins for an explicit backend)."""
        per_backend = {
            "gemini": self.gemini_model,
            "ollama": self.ollama_model,
            "openai": self.openai_model,
        }.get(backend, "")
        if self.backend == backend and self.model:
            return self.model
        return per_backend or self.model

    def url_for(self, backend: str) -> str | None:
        """The server URL for `backend` (a role's `base_url` applies to its explicit backend)."""
        if self.backend == backend and self.base_url:
            return self.base_url
        if backend == "gemini":
            return self.gemini_base_url
        if backend == "ollama":
            return self.ollama_host or os.environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST
        if backend == "openai":
            return self.openai_base_url
        return None
