"""The model-wrapper contract shared by every agent and backend.

`predict` and `predict_mm` return `(text, is_safe, raw)`: `is_safe` is False when a safety filter
blocked the answer and None when unknown; `raw` is the backend's response object (falsy on error).
On an error the text is `ERROR_CALLING_LLM` rather than an exception, so an agent loop can record the
failure and continue.
"""

from __future__ import annotations

import abc
import io
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
