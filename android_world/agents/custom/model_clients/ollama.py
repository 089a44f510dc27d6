"""A model on an Ollama server through the `ollama` client, loaded lazily."""

from __future__ import annotations

import os
from typing import Any

from android_world.agents.custom.model_clients.call_types import ModelReply, ModelRequest
from android_world.agents.custom.model_clients.errors import ModelCallError
from android_world.agents.custom.model_clients.faults import network_fault
from android_world.agents.custom.model_clients.payload import png_bytes, system_message
from android_world.agents.custom.model_clients.retries import BackendWrapper
from android_world.agents.custom.model_clients.settings import DEFAULT_OLLAMA_HOST


class OllamaWrapper(BackendWrapper):
    """A model on an Ollama server (UI-TARS for the executor, or any vision model).

    The client's default timeout is unlimited, so we always set one; `num_ctx` defaults high because
    a few screenshots exceed Ollama's small default context and would be silently truncated.
    """

    backend = "ollama"
    timeout_note = " (the first call also loads the model)"

    def __init__(
        self,
        role: str,
        model: str,
        *,
        host: str | None = None,
        num_ctx: int = 16384,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("timeout_s", 120.0)  # the first call also loads the model
        super().__init__(role, model, **kwargs)
        import ollama

        self._ollama = ollama
        self.host = host or os.environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST
        self.num_ctx = max(int(num_ctx), 16384)
        self._client = ollama.Client(host=self.host, timeout=self.timeout_s)

    def _send(self, request: ModelRequest) -> ModelReply:
        messages = system_message(request)
        for turn in request.turns():
            message: dict[str, Any] = {"role": turn.role, "content": turn.text}
            if turn.images:
                message["images"] = [png_bytes(image) for image in turn.images]
            messages.append(message)
        options = {
            "num_ctx": self.num_ctx,
            "temperature": self.temperature,
            "num_predict": self.max_output_tokens,
        }
        response = self._within_deadline(
            lambda: self._client.chat(
                model=self.model, messages=messages, format=request.schema, options=options
            )
        )
        text = response.message.content or ""
        return ModelReply(
            text,
            response,
            None,
            int(response.prompt_eval_count or 0),
            int(response.eval_count or 0),
        )

    def where(self) -> str:
        return f"ollama at {self.host}"

    def _classify(self, exc: BaseException) -> ModelCallError:
        where = self.where()
        if isinstance(exc, self._ollama.ResponseError):
            status = exc.status_code
            if status == 404:
                return ModelCallError(
                    f"{where}: model '{self.model}' is not pulled; run `ollama pull {self.model}`"
                )
            return self._http_error(
                where,
                status,
                exc.error,
                auth="the server refused the request",
                not_found=f"model '{self.model}' is not pulled; run `ollama pull {self.model}`",
            )
        fault = network_fault(exc)
        if fault is not None:
            start = "start the server with `ollama serve` (or point models.ollama_host at a running one)"
            return self._network_error(fault, exc, start)
        return super()._classify(exc)
