"""The model-wrapper contract shared by every agent and backend.

`predict` and `predict_mm` return `(text, is_safe, raw)`: `is_safe` is False when a safety filter
blocked the answer and None when unknown; `raw` is the backend's response object (falsy on error).
On an error the text is `ERROR_CALLING_LLM` rather than an exception, so an agent loop can record the
failure and continue.

This is a contract module: it imports no model client. Upstream's wrapper names send through the
clients the harness plugs in (`plug_model_client`, called by `android_world.agents.infer_clients`).
"""

from __future__ import annotations

import abc
import base64
import io
from collections.abc import Callable
from typing import Any

import numpy as np
from PIL import Image

ERROR_CALLING_LLM = "Error calling LLM"


class LlmWrapper(abc.ABC):
    """A text-only model."""

    @abc.abstractmethod
    def predict(self, text_prompt: str) -> tuple[str, bool | None, Any]:
        """Answer a text prompt."""


class MultimodalLlmWrapper(abc.ABC):
    """A model that also takes images (RGB arrays, H x W x 3 uint8)."""

    @abc.abstractmethod
    def predict_mm(
        self, text_prompt: str, images: list[np.ndarray]
    ) -> tuple[str, bool | None, Any]:
        """Answer a prompt with images."""


def array_to_png_bytes(image: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="PNG")
    return buffer.getvalue()


def array_to_jpeg_bytes(image: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(image).convert("RGB").save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


def image_to_jpeg_bytes(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


_MODEL_CLIENTS: dict[str, Callable[..., Any]] = {}


def plug_model_client(api: str, client: Callable[..., Any]) -> None:
    """Which client sends the requests of an upstream wrapper name: `openai` (Gpt4Wrapper) or
    `gemini` (GeminiGcpWrapper). Called as `client(role, model_name, **settings)`."""
    _MODEL_CLIENTS[api] = client


def _model_client(api: str) -> Callable[..., Any]:
    client = _MODEL_CLIENTS.get(api)
    if client is None:
        raise RuntimeError(
            f"no model client is plugged in for infer's {api} wrapper: call "
            "android_world.agents.infer_clients.plug() first (the --agent_module loader does)"
        )
    return client


class _DelegatingWrapper(LlmWrapper, MultimodalLlmWrapper):
    """Upstream's wrapper names over Celil's model backends (retries, ledger, redaction).

    Upstream's LLM agents (T3A, M3A, SeeAct) are built with `Gpt4Wrapper` or `GeminiGcpWrapper`;
    these keep those names, constructor arguments and key variables, and send through the same
    code path as Celil's own roles, so an upstream agent and Celil can be compared on equal terms.
    """

    def __init__(self, backend: Any) -> None:
        self._backend = backend
        self.model = backend.model

    def predict(self, text_prompt: str) -> tuple[str, bool | None, Any]:
        return self._backend.predict(text_prompt)

    def predict_mm(
        self, text_prompt: str, images: list[np.ndarray]
    ) -> tuple[str, bool | None, Any]:
        return self._backend.predict_mm(text_prompt, images)


def _max_retry(max_retry: int) -> int:
    # Upstream resets a non-positive value to 3 and caps it at 5.
    return 3 if max_retry <= 0 else min(max_retry, 5)


class Gpt4Wrapper(_DelegatingWrapper):
    """OpenAI chat models, as upstream: the key from OPENAI_API_KEY (required). The server is
    OPENAI_BASE_URL when set (any OpenAI-compatible endpoint), else OpenAI's."""

    @classmethod
    def encode_image(cls, image: np.ndarray) -> str:
        """A screenshot as base64 JPEG text, for an image_url data URL (upstream's SeeAct builds
        its requests with this)."""
        return base64.b64encode(array_to_jpeg_bytes(image)).decode("utf-8")

    def __init__(self, model_name: str, max_retry: int = 3, temperature: float = 0.0) -> None:
        import os

        if "OPENAI_API_KEY" not in os.environ:
            raise RuntimeError("OpenAI API key not set.")
        base_url = os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        super().__init__(
            _model_client("openai")(
                "upstream_agent",
                model_name,
                base_url=base_url,
                api_key_env="OPENAI_API_KEY",
                max_retries=_max_retry(max_retry),
                temperature=temperature,
                max_output_tokens=1000,  # upstream's Gpt4Wrapper asks for at most 1000
            )
        )


class GeminiGcpWrapper(_DelegatingWrapper):
    """Gemini, as upstream: the key from GCP_API_KEY (required)."""

    def __init__(
        self,
        model_name: str | None = None,
        max_retry: int = 3,
        temperature: float = 0.0,
        top_p: float = 0.95,
        enable_safety_checks: bool = True,
    ) -> None:
        import os

        del top_p, enable_safety_checks  # Celil's Gemini backend uses the API's defaults here
        if "GCP_API_KEY" not in os.environ:
            raise RuntimeError("GCP API key not set.")
        super().__init__(
            _model_client("gemini")(
                "upstream_agent",
                model_name or "gemini-2.5-flash",
                api_key_env="GCP_API_KEY",
                base_url=os.environ.get("GEMINI_BASE_URL") or None,
                max_retries=_max_retry(max_retry),
                temperature=temperature,
            )
        )
