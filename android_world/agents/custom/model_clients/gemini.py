"""Gemini (and Gemma) through the maintained `google-genai` SDK, loaded lazily."""

from __future__ import annotations

from typing import Any

from android_world.agents.custom.celil_secrets import read_secret
from android_world.agents.custom.model_clients.call_types import ModelReply, ModelRequest
from android_world.agents.custom.model_clients.errors import (
    ModelCallError,
    ModelSetupError,
    SafetyBlocked,
    status_of,
)
from android_world.agents.custom.model_clients.faults import network_fault
from android_world.agents.custom.model_clients.payload import json_instruction, png_bytes
from android_world.agents.custom.model_clients.retries import BackendWrapper

GEMINI_KEY_ENVS = ("GOOGLE_API_KEY", "GEMINI_API_KEY")


# Gemini finish reasons that mean "a safety filter blocked this answer".
_GEMINI_UNSAFE_FINISH = frozenset(
    {
        "SAFETY",
        "PROHIBITED_CONTENT",
        "BLOCKLIST",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
    }
)


def gemini_key(api_key_env: str | None = None) -> tuple[str | None, str | None]:
    """(key, name of the variable it came from). GOOGLE_API_KEY wins over GEMINI_API_KEY, as in the SDK."""
    names = (api_key_env,) if api_key_env else GEMINI_KEY_ENVS
    for name in names:
        value = read_secret(name)
        if value:
            return value, name
    return None, None


def is_gemma(model: str) -> bool:
    """Gemma on the Gemini API takes no system instruction and no JSON mode."""
    return model.lower().split("/")[-1].startswith("gemma")


class GeminiWrapper(BackendWrapper):
    """Gemini (and Gemma) through the maintained `google-genai` SDK.

    The key comes from `api_key_env`, else GOOGLE_API_KEY, else GEMINI_API_KEY. `base_url` points the
    SDK at another endpoint (a proxy, or a fake server in tests).
    """

    backend = "gemini"

    def __init__(
        self,
        role: str,
        model: str,
        *,
        api_key_env: str | None = None,
        base_url: str | None = None,
        thinking_budget: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(role, model, **kwargs)
        key, key_env = gemini_key(api_key_env)
        if not key:
            names = api_key_env or " or ".join(GEMINI_KEY_ENVS)
            raise ModelSetupError(
                f"{role}: backend gemini needs an API key: set {names} in the environment "
                "(https://aistudio.google.com/apikey), or choose another backend for this role"
            )
        from google import genai
        from google.genai import types

        self._types = types
        self.key_env = key_env
        self.base_url = base_url
        self.thinking_budget = thinking_budget
        http_options = types.HttpOptions(
            timeout=max(1, int(self.timeout_s * 1000)),  # milliseconds
            base_url=base_url,
        )
        self._client = genai.Client(api_key=key, http_options=http_options)

    def _config(self, request: ModelRequest) -> Any:
        types = self._types
        fields: dict[str, Any] = {
            "temperature": self.temperature,
            "max_output_tokens": self.max_output_tokens,
        }
        if not is_gemma(self.model):
            if request.system:
                fields["system_instruction"] = request.system
            if request.schema is not None:
                fields["response_mime_type"] = "application/json"
                fields["response_json_schema"] = request.schema
        budget = self._thinking_budget()
        if budget is not None:
            fields["thinking_config"] = types.ThinkingConfig(thinking_budget=budget)
        return types.GenerateContentConfig(**fields)

    def _thinking_budget(self) -> int | None:
        """2.5 models only; Pro cannot turn thinking off, so 0 becomes its minimum (128)."""
        if self.thinking_budget is None or "2.5" not in self.model or is_gemma(self.model):
            return None
        if "pro" in self.model and 0 <= self.thinking_budget < 128:
            return 128
        return self.thinking_budget

    def _contents(self, request: ModelRequest) -> list[Any]:
        """Turns as `Content`s (the assistant is `model`), consecutive same-role turns merged
        because the API expects alternating roles. Gemma gets system text and schema inline."""
        types = self._types
        turns = [(t.role, t.text, t.images) for t in request.turns()]
        if is_gemma(self.model):
            users = [i for i, turn in enumerate(turns) if turn[0] == "user"]
            if request.system and users:
                role, text, images = turns[users[0]]
                turns[users[0]] = (role, f"{request.system}\n\n{text}", images)
            if request.schema is not None and users and not request.shape_in_prompt:
                role, text, images = turns[users[-1]]
                turns[users[-1]] = (role, text + json_instruction(request.schema), images)
                self._count_added_text(len(json_instruction(request.schema)))
        contents: list[Any] = []
        for role, text, images in turns:
            parts = [types.Part.from_text(text=text)] if text else []
            parts += [
                types.Part.from_bytes(data=png_bytes(image), mime_type="image/png")
                for image in images
            ]
            api_role = "model" if role == "assistant" else "user"
            if contents and contents[-1].role == api_role:
                contents[-1].parts.extend(parts)
            else:
                contents.append(types.Content(role=api_role, parts=parts))
        return contents

    def where(self) -> str:
        return f"gemini {self.model}" + (f" at {self.base_url}" if self.base_url else "")

    def _send(self, request: ModelRequest) -> ModelReply:
        contents, config = self._contents(request), self._config(request)
        response = self._within_deadline(
            lambda: self._client.models.generate_content(
                model=self.model, contents=contents, config=config
            )
        )
        usage = response.usage_metadata
        prompt_tokens = (usage.prompt_token_count or 0) if usage else 0
        completion_tokens = 0
        if usage:
            completion_tokens = (usage.candidates_token_count or 0) + (
                usage.thoughts_token_count or 0
            )
        feedback = response.prompt_feedback
        if feedback is not None and feedback.block_reason:
            raise SafetyBlocked(
                f"gemini {self.model}: prompt blocked by safety filter ({_enum(feedback.block_reason)})"
            )
        candidates = response.candidates or []
        finish = (
            _enum(candidates[0].finish_reason) if candidates and candidates[0].finish_reason else ""
        )
        if finish in _GEMINI_UNSAFE_FINISH:
            raise SafetyBlocked(f"gemini {self.model}: answer blocked by safety filter ({finish})")
        text = _gemini_text(response)
        if not text:
            if finish == "MAX_TOKENS":
                raise ModelCallError(
                    f"gemini {self.model}: no text before max_output_tokens={self.max_output_tokens} "
                    "(thinking counts against it); raise max_output_tokens or lower thinking_budget"
                )
            raise ModelCallError(
                f"gemini {self.model}: empty answer (finish reason {finish or 'none'})"
            )
        return ModelReply(text, response, True, prompt_tokens, completion_tokens)

    def _classify(self, exc: BaseException) -> ModelCallError:
        where = self.where()
        status = status_of(exc)
        if status is not None:
            return self._http_error(
                where,
                status,
                getattr(exc, "message", None) or str(exc),
                auth=f"the key in {self.key_env} was rejected; check it at "
                "https://aistudio.google.com/apikey",
                not_found=f"model '{self.model}' not found; set models.{self.role}.gemini_model "
                "to an available model (see client.models.list())",
            )
        fault = network_fault(exc)
        if fault is not None:
            start = "check models.gemini_base_url (unset: Google's endpoint)"
            return self._network_error(fault, exc, start)
        return ModelCallError(f"{where}: {type(exc).__name__}: {exc}")


def _enum(value: Any) -> str:
    return str(getattr(value, "name", value) or "")


def _gemini_text(response: Any) -> str:
    """The answer's text parts, skipping thought parts (response.text warns on mixed parts)."""
    candidates = response.candidates or []
    if not candidates or not candidates[0].content or not candidates[0].content.parts:
        return ""
    return "".join(
        part.text
        for part in candidates[0].content.parts
        if part.text and not getattr(part, "thought", False)
    )
