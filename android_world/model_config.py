"""Schema of the `models:` section of the run config.

Lives on the harness side: the Celil plugin never reads config, it receives built model wrappers.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Backend = Literal["auto", "gemini", "ollama", "openai", "replay", "offline"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RoleModelConfig(_Strict):
    """One role's model. Secrets are never stored here: `api_key_env` names a variable."""

    backend: Backend = "auto"
    model: str = ""
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float = 0.0
    timeout_s: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=3, ge=0)
    max_output_tokens: int = Field(default=1024, gt=0)


class PriceConfig(_Strict):
    """USD per million tokens, for the cost estimate."""

    input_per_mtok: float = 0.0
    output_per_mtok: float = 0.0


class ModelsConfig(_Strict):
    maestro: RoleModelConfig = RoleModelConfig()
    section_leader: RoleModelConfig = RoleModelConfig()
    verifiers: RoleModelConfig = RoleModelConfig()
    vision_fallback: RoleModelConfig | None = None
    record: str | None = None
    replay_path: str | None = None
    prices: dict[str, PriceConfig] = {}
