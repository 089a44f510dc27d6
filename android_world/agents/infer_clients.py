"""Plugs Celil's model clients into infer's upstream wrapper names (Gpt4Wrapper, GeminiGcpWrapper).

infer is a contract module and imports nothing of the plugin; the harness, which may, draws the
arrow the other way: `plug()` runs before the harness loads an agent (module_loader), so an
upstream agent built with those names sends through the same clients as Celil's roles (retries,
ledger, redaction) and the two are compared on equal terms.
"""

from __future__ import annotations

from android_world.agents import infer
from android_world.agents.custom.model_clients.gemini import GeminiWrapper
from android_world.agents.custom.model_clients.openai_compatible import OpenAICompatibleWrapper


def plug() -> None:
    infer.plug_model_client("openai", OpenAICompatibleWrapper)
    infer.plug_model_client("gemini", GeminiWrapper)
