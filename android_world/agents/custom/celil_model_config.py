"""Schema of the `models:` section of the run config.

Part of the plugin (it imports only pydantic and the model clients), so the plugin's own factory reads
the same section inside an upstream AndroidWorld checkout; the harness imports it as
`android_world.harness.model_config`. `ModelsConfig.role_settings(role)` turns a role's section into the
plugin's plain `RoleSettings` (role defaults applied), and `ModelsConfig.price_table()` gives the
ledger its prices.

Example:

    models:
      maestro: {backend: auto}                 # Gemini if a key is set, else Ollama, else OpenAI-compatible
      section_leader: {backend: ollama, model: 0000/ui-tars-1.5-7b}
      verifiers: {backend: gemini, gemini_model: gemini-2.5-flash}
      ollama_host: http://127.0.0.1:11434
      record: runs/calls.jsonl                 # record every call (for replay)

Every field's docstring below is the config reference (docs/CONFIG.md); keep them accurate.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from android_world.agents.custom.model_clients import resolution, settings
from android_world.agents.custom.model_clients.ledger import UsageLedger

Backend = Literal["auto", "gemini", "ollama", "openai", "replay", "offline"]
MODEL_KEY_ALIASES = ("openai_model",)
"""Other names accepted for a role's `model` key (older configs used them)."""


class _Strict(BaseModel):
    # Attribute docstrings become field descriptions, from which docs/CONFIG.md is built
    # (python -m android_world.docs_gen). NaN and infinity pass every bound (NaN fails every comparison later): refused.
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, allow_inf_nan=False)


class RoleModelConfig(_Strict):
    """One role's model. Secrets are never stored here: `api_key_env` names a variable.

    Empty model names mean "the role's default" (see `ROLE_DEFAULTS`), so overriding one field of a
    role keeps the others' role-specific defaults.
    """

    backend: Backend = "auto"
    """auto | gemini | ollama | openai | replay | offline. `auto` picks, in `auto_order`, the first
    backend that can work: Gemini if GOOGLE_API_KEY/GEMINI_API_KEY is set, Ollama if reachable with
    the model pulled, an OpenAI-compatible server if `openai_base_url` is set and reachable; else offline."""

    model: str = ""
    """The model: for an explicit backend, the model it runs (e.g. `gemini-2.5-pro`,
    `0000/ui-tars-1.5-7b`, the name a vLLM or llama.cpp server serves); under `auto`, the model
    on the OpenAI-compatible server (empty: the first one it lists), while Gemini and Ollama use
    `gemini_model` / `ollama_model` there. `openai_model` is accepted as another name for this
    key (an alias kept for older configs)."""

    gemini_model: str = ""
    """Gemini model when this role runs on Gemini (default: maestro gemini-2.5-pro, others gemini-2.5-flash).
    Gemma models served by the Gemini API (e.g. gemma-3-27b-it) work too: the system text and the JSON
    schema are put into the prompt, since Gemma takes neither."""

    gemini_fallback_model: str = ""
    """Gemini model tried when `gemini_model` fails after its retries (default: maestro
    gemini-2.5-flash, verifiers gemini-2.5-pro, others none). Set to `none` to disable."""

    ollama_model: str = ""
    """Ollama model tag when this role runs on Ollama (default: section_leader 0000/ui-tars-1.5-7b,
    others qwen2.5vl:7b)."""

    base_url: str | None = None
    """Server URL for this role's explicit backend, overriding the section-level URL below."""

    api_key_env: str | None = None
    """Name of the environment variable holding the key (gemini: default GOOGLE_API_KEY, then
    GEMINI_API_KEY; openai: unset sends a dummy key, right for local servers). Never the key itself."""

    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    """Sampling temperature, 0-2 as the APIs take it (0 = most deterministic)."""

    timeout_s: float = Field(default=60.0, gt=0)
    """Seconds the server may stay silent (to connect, or between reads of the answer) before the
    request counts as timed out (then retried). Ollama's first call also loads the model; raise
    this on slow machines."""

    deadline_s: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    """Total seconds one request may take, connect and every read included, however the answer
    trickles in; past it the request counts as timed out (then retried). None: twice `timeout_s`."""

    max_retries: int = Field(default=3, ge=0)
    """Re-sends after a 408/429/5xx, a timeout or a reset connection (so up to max_retries + 1
    attempts; a refused connection is not retried: nothing listens), with
    exponential backoff from `retry_initial_delay_s`, capped at `retry_max_delay_s`."""

    retry_initial_delay_s: float = Field(default=2.0, ge=0)
    """Backoff before the first re-send; doubles each retry."""

    retry_max_delay_s: float = Field(default=30.0, ge=0)
    """Upper bound for one backoff delay."""

    max_output_tokens: int | None = Field(default=None, gt=0)
    """Answer length cap. None: the role default (maestro 2048, section_leader 512, verifiers 256,
    vision_fallback 256): a vote needs about 50 tokens, and a rambling model must not spend a
    minute on one. On Gemini 2.5, thinking tokens count against it."""

    structured_output: Literal["auto", "json_schema", "json_object", "none"] = "auto"
    """How an OpenAI-compatible server is asked for JSON: `json_schema` (OpenAI, vLLM, SGLang,
    llama.cpp's llama-server), `json_object` with the schema beside it (llama-cpp-python's server),
    or `none` (no response_format; the prompt's own example of the reply's shape, or the schema
    written into a prompt that has none). `auto`: json_schema first; when the server rejects
    that form, the next one is tried and the form that works is kept for the rest of the run."""

    images: bool | Literal["auto"] = "auto"
    """Whether this role sends screenshots. `false`: text only (the screen is described in text);
    `true`: always, as many as the role asks for; `auto`: send them, and when a server refuses a
    request's images, send fewer: the number it states (vLLM: "At most 1 image(s) ..."), else
    one (the current screen), else none (a text-only model); the count that works is kept for
    the rest of the run and recorded in manifest.json's `model_servers`."""

    thinking_budget: int | None = Field(default=None, ge=-1)
    """Gemini 2.5 thinking tokens (0 = off on Flash; Pro's minimum is 128; -1 = the model decides).
    None: the role default (maestro 1024, others 0)."""

    num_ctx: int = Field(default=16384, ge=16384)
    """Ollama context window; at least 16384 because a few screenshots exceed Ollama's default and
    would be silently truncated."""

    coordinates: Literal["auto", "absolute_resized", "relative_1000"] = "auto"
    """How the executor's model writes points (section_leader): `absolute_resized` = pixels of the
    image sent (UI-TARS-1.5), `relative_1000` = a 0..1000 grid (UI-TARS v1, Doubao, Gemini).
    `auto`: relative_1000 when the role runs on Gemini (also when replaying a Gemini recording),
    else absolute_resized. The resolved value is in manifest.json and is what the executor uses."""

    auto_order: list[Literal["gemini", "ollama", "openai"]] | None = None
    """Order `auto` tries backends in. None: the role default (section_leader prefers
    ollama, openai, gemini because UI-TARS is its model; others gemini, ollama, openai)."""

    @model_validator(mode="before")
    @classmethod
    def _model_aliases(cls, data: Any) -> Any:
        """`openai_model` is an older name of `model`: one key, so a config cannot say two."""
        if not isinstance(data, dict):
            return data
        for alias in MODEL_KEY_ALIASES:
            if alias not in data:
                continue
            data = dict(data)
            value = data.pop(alias)
            if value in (None, ""):  # run directories' config.yaml wrote every key, set or not
                continue
            if data.get("model") not in (None, "", value):
                raise ValueError(
                    f"{alias} ({value!r}) and model ({data['model']!r}) disagree; "
                    f"{alias} is another name for model, so set model only"
                )
            data["model"] = value
        return data


class PriceConfig(_Strict):
    """USD per million tokens, for the cost estimate."""

    input_per_mtok: float = Field(default=0.0, ge=0.0)
    """USD per million prompt (input) tokens."""

    output_per_mtok: float = Field(default=0.0, ge=0.0)
    """USD per million completion (output) tokens, thinking tokens included."""


# Role defaults, applied by `ModelsConfig.role_settings` wherever the config leaves a field empty.
ROLE_DEFAULTS: dict[str, dict[str, object]] = {
    "maestro": {
        "gemini_model": "gemini-2.5-pro",
        "gemini_fallback_model": "gemini-2.5-flash",
        "ollama_model": "qwen2.5vl:7b",
        "thinking_budget": 1024,
        "auto_order": ("gemini", "ollama", "openai"),
        "max_output_tokens": 2048,
    },
    "section_leader": {
        "gemini_model": "gemini-2.5-flash",
        "gemini_fallback_model": "",
        "ollama_model": "0000/ui-tars-1.5-7b",
        "thinking_budget": 0,
        "auto_order": ("ollama", "openai", "gemini"),
        "max_output_tokens": 512,
    },
    "verifiers": {
        "gemini_model": "gemini-2.5-flash",
        "gemini_fallback_model": "gemini-2.5-pro",
        "ollama_model": "qwen2.5vl:7b",
        "thinking_budget": 0,
        "auto_order": ("gemini", "ollama", "openai"),
        "max_output_tokens": 256,
    },
    "vision_fallback": {
        "gemini_model": "gemini-2.5-flash",
        "gemini_fallback_model": "",
        "ollama_model": "qwen2.5vl:7b",
        "thinking_budget": 0,
        "auto_order": ("gemini", "ollama", "openai"),
        "max_output_tokens": 256,
    },
}

# Published list prices (USD per million input/output tokens, mid-2025, prompts <= 200k tokens).
# Estimates only: override or extend with `models.prices`. Local backends (ollama, replay) cost 0.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gemini-2.5-pro": (1.25, 10.0),
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-flash-lite": (0.10, 0.40),
    "gemini-2.0-flash": (0.10, 0.40),
    "gemma-": (0.0, 0.0),
}


class ModelsConfig(_Strict):
    """The `models:` section: one entry per role, shared server URLs, recording and prices."""

    maestro: RoleModelConfig = RoleModelConfig()
    """The planner (multimodal)."""

    section_leader: RoleModelConfig = RoleModelConfig()
    """The executor (UI-TARS format)."""

    verifiers: RoleModelConfig = RoleModelConfig()
    """The three verifier personas share this model."""

    vision_fallback: RoleModelConfig | None = None
    """Optional element picker used when UI-TARS output is unusable; None: disabled."""

    ollama_host: str | None = None
    """Ollama server for every role on Ollama. None: $OLLAMA_HOST, else http://127.0.0.1:11434."""

    openai_base_url: str | None = None
    """OpenAI-compatible server (e.g. http://127.0.0.1:8000/v1 for vLLM). None: `auto` skips it.
    When set, `auto` roles that find nothing better must be able to use it: a server that is down,
    still loading or not serving the model is an error at start-up, not a silent offline run."""

    gemini_base_url: str | None = None
    """Alternative Gemini API endpoint (a proxy). None: Google's."""

    record: str | None = None
    """Append every model call (role, backend, model, request hash, answer, usage; no keys) to this
    JSONL file, for `replay`."""

    replay_path: str | None = None
    """Recording to answer from for roles with `backend: replay`; when set, roles left on `auto` also
    replay from it."""

    replay_strict: bool = False
    """On a request missing from the recording, raise instead of returning the error triple."""

    probe_timeout_s: float = Field(default=2.0, gt=0)
    """How long `auto` waits for a server to answer its reachability probe."""

    prices: dict[str, PriceConfig] = {}
    """Extra or overriding prices per model name (prefixes match, e.g. `gemini-2.5-flash` prices
    `gemini-2.5-flash-001`); merged over `DEFAULT_PRICES`."""

    def role_config(self, role: str) -> RoleModelConfig | None:
        if role not in ROLE_DEFAULTS:
            raise ValueError(f"unknown model role '{role}' (roles: {', '.join(ROLE_DEFAULTS)})")
        return getattr(self, role)

    def role_settings(self, role: str) -> settings.RoleSettings:
        """The plugin's plain settings for `role`, with role defaults filled in."""
        config = self.role_config(role) or RoleModelConfig()
        defaults = ROLE_DEFAULTS[role]
        backend = config.backend
        if backend == "auto" and self.replay_path:
            backend = "replay"
        fallback = config.gemini_fallback_model or str(defaults["gemini_fallback_model"])
        thinking = config.thinking_budget
        if thinking is None:
            thinking = defaults["thinking_budget"]  # type: ignore[assignment]
        order = tuple(config.auto_order) if config.auto_order else defaults["auto_order"]
        return settings.RoleSettings(
            role=role,
            backend=backend,
            model=config.model,
            gemini_model=config.gemini_model or str(defaults["gemini_model"]),
            gemini_fallback_model="" if fallback.lower() == "none" else fallback,
            ollama_model=config.ollama_model or str(defaults["ollama_model"]),
            openai_model="",  # the role's `model` (once `openai_model`) serves every backend
            base_url=config.base_url,
            gemini_base_url=self.gemini_base_url,
            ollama_host=self.ollama_host,
            openai_base_url=self.openai_base_url,
            api_key_env=config.api_key_env,
            temperature=config.temperature,
            timeout_s=config.timeout_s,
            deadline_s=config.deadline_s,
            max_retries=config.max_retries,
            max_output_tokens=config.max_output_tokens or int(defaults["max_output_tokens"]),  # type: ignore[call-overload]
            structured_output=config.structured_output,
            images="auto" if config.images == "auto" else ("on" if config.images else "off"),
            retry_initial_delay_s=config.retry_initial_delay_s,
            retry_max_delay_s=config.retry_max_delay_s,
            num_ctx=config.num_ctx,
            thinking_budget=thinking,  # type: ignore[arg-type]
            auto_order=order,  # type: ignore[arg-type]
            probe_timeout_s=self.probe_timeout_s,
            record_path=self.record,
            replay_path=self.replay_path,
            replay_strict=self.replay_strict,
            coordinates=config.coordinates,
        )

    def price_table(self) -> dict[str, tuple[float, float]]:
        table = dict(DEFAULT_PRICES)
        for model, price in self.prices.items():
            table[model] = (price.input_per_mtok, price.output_per_mtok)
        return table

    def roles(self) -> list[str]:
        """The configured roles, vision_fallback only when set."""
        return [role for role in ROLE_DEFAULTS if self.role_config(role) is not None]

    def make_ledger(self) -> UsageLedger:
        return UsageLedger(self.price_table())

    def resolve_all(self, ledger: UsageLedger | None = None) -> dict[str, resolution.Resolution]:
        """Resolve every configured role (raises ModelSetupError on a bad explicit setup)."""
        return {
            role: resolution.resolve_role(role, self.role_settings(role), ledger)
            for role in self.roles()
        }
