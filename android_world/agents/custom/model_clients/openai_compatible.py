"""Any OpenAI-compatible `/v1/chat/completions` server (vLLM, SGLang, LM Studio, llama.cpp
server, OpenAI itself) through the `openai` client, loaded lazily."""

from __future__ import annotations

import base64
import json
from typing import Any

from android_world.agents.custom.celil_secrets import read_secret
from android_world.agents.custom.model_clients import faults, negotiation
from android_world.agents.custom.model_clients.call_types import ModelReply, ModelRequest
from android_world.agents.custom.model_clients.errors import (
    ModelCallError,
    ModelSetupError,
    SafetyBlocked,
    excerpt,
    status_detail,
)
from android_world.agents.custom.model_clients.faults import network_fault
from android_world.agents.custom.model_clients.payload import (
    json_instruction_chars,
    png_bytes,
    system_message,
    with_json_instruction,
)
from android_world.agents.custom.model_clients.retries import BackendWrapper

OPENAI_DUMMY_KEY = "not-needed"


class OpenAICompatibleWrapper(BackendWrapper):
    """Any `/v1/chat/completions` server through the `openai` client.

    Local servers need no key, so without `api_key_env` we send a dummy; the SDK's own retries are
    off (`max_retries=0`) because we retry and count in `BackendWrapper.call`.
    """

    backend = "openai"

    def __init__(
        self,
        role: str,
        model: str,
        *,
        base_url: str,
        api_key_env: str | None = None,
        structured_output: str = "auto",
        **kwargs: Any,
    ) -> None:
        super().__init__(role, model, **kwargs)
        import openai

        if structured_output not in ("auto", *negotiation.JSON_FORMS):
            raise ModelSetupError(
                f"{role}: structured_output must be auto, "
                f"{', '.join(negotiation.JSON_FORMS)}; got {structured_output!r}"
            )
        self.structured_output = structured_output

        self._openai = openai
        self.base_url = base_url
        self.api_key_env = api_key_env
        key = read_secret(api_key_env) if api_key_env else None
        if api_key_env and not key:
            raise ModelSetupError(
                f"{role}: models.{role}.api_key_env names {api_key_env}, which is not set in the environment"
            )
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=key or OPENAI_DUMMY_KEY,
            timeout=self.timeout_s,
            max_retries=0,
        )

    def _send(self, request: ModelRequest) -> ModelReply:
        messages = system_message(request)
        for turn in request.turns():
            if not turn.images:
                messages.append({"role": turn.role, "content": turn.text})
                continue
            parts: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
            for image in turn.images:
                url = "data:image/png;base64," + base64.b64encode(png_bytes(image)).decode()
                parts.append({"type": "image_url", "image_url": {"url": url}})
            messages.append({"role": turn.role, "content": parts})
        answer, raw = self._create_negotiated(messages, request.schema, request.shape_in_prompt)
        if answer.finish_reason == "content_filter":
            raise SafetyBlocked(f"{self.where()}: answer blocked by content filter")
        return ModelReply(
            answer.text, raw, None, answer.prompt_tokens, answer.completion_tokens, model=None
        )

    def where(self) -> str:
        return f"openai-compatible server at {self.base_url}"

    def _json_form(self) -> str:
        if self.structured_output != "auto":
            return self.structured_output
        facts = negotiation.SERVERS.facts(self.server_key(), self.model)
        return facts.json_form or negotiation.JSON_FORMS[0]

    def _create(
        self,
        messages: list[dict[str, Any]],
        form: str | None,
        schema: Any,
        shape_in_prompt: bool = False,
    ) -> tuple[faults.ChatAnswer, Any]:
        """One request (under the deadline), read as a chat completion: (answer, raw response)."""
        kwargs: dict[str, Any] = {}
        if schema is not None and form is not None:
            response_format = negotiation.response_format(form, schema)
            if response_format is None:
                # "none": the schema rides in the last user turn, unless the prompt states the
                # reply's shape itself (once is enough).
                if not shape_in_prompt:
                    messages = with_json_instruction(messages, schema)
                    self._count_added_text(json_instruction_chars(schema))
            else:
                kwargs["response_format"] = response_format

        def send() -> tuple[Any, str, str]:
            # The raw response, so that its content type and body are ours to check: the SDK
            # hands back an event stream it was not asked for as a bare str.
            response = self._client.chat.completions.with_raw_response.create(
                model=self.model,
                messages=messages,
                temperature=self.temperature,
                max_tokens=self.max_output_tokens,
                **kwargs,
            )
            return response, response.headers.get("content-type", ""), response.text

        response, content_type, body = self._within_deadline(send)
        answer = self._read_answer(content_type, body)
        try:
            raw = response.parse()  # the SDK's ChatCompletion, as callers of `raw` expect
        except Exception:
            raw = json.loads(body)
        return answer, raw

    def _read_answer(self, content_type: str, body: str) -> faults.ChatAnswer:
        """A 200's body as a chat completion; anything else is a failed call that says what came.

        Not retried: a server (or a proxy before it) that answers so does it every time."""
        where = f"{self.where()}: HTTP 200"
        if faults.looks_streamed(content_type, body):
            raise ModelCallError(
                f"{where} but the answer is an event stream (text/event-stream) though none was "
                "asked for (stream off); the server or a proxy in front of it streams every "
                "answer: check models.openai_base_url points at the server itself"
            )
        try:
            parsed = json.loads(body)
        except ValueError:
            raise ModelCallError(
                f"{where} but the answer is not JSON: {excerpt(body, 120)!r}"
            ) from None
        try:
            return faults.read_chat_completion(parsed)
        except faults.MalformedAnswer as exc:
            raise ModelCallError(
                f"{where} but the answer is malformed: {exc} (body: {excerpt(body, 120)}); "
                "check the server's OpenAI compatibility"
            ) from None

    def _create_negotiated(
        self, messages: list[dict[str, Any]], schema: Any, shape_in_prompt: bool = False
    ) -> tuple[faults.ChatAnswer, Any]:
        """Send with the JSON form that works here; under `auto`, a server that refuses the form
        is asked again with the next one (each re-send counted in the ledger), and the one that
        works is remembered."""
        form = self._json_form() if schema is not None else None
        while True:
            try:
                return self._create(messages, form, schema, shape_in_prompt)
            except Exception as exc:
                failure = self._failure(exc)
                following = negotiation.next_form(form) if form else None
                if (
                    self.structured_output != "auto"
                    or following is None
                    or not negotiation.refuses_format(failure.status, failure.detail)
                ):
                    raise failure from None
                note = f"server refused response_format {form}; using {following}"
                negotiation.SERVERS.learn_form(self.server_key(), self.model, following, note)
                self._note(note)
                self._count_resend()
                form = following

    def _classify(self, exc: BaseException) -> ModelCallError:
        openai = self._openai
        where = self.where()
        if isinstance(exc, openai.APIConnectionError):  # APITimeoutError is one too
            fault = network_fault(exc) or faults.UNREACHABLE
            if isinstance(exc, openai.APITimeoutError):
                fault = faults.TIMEOUT
            start = (
                f"start the server (e.g. `vllm serve {self.model}`) or fix models.openai_base_url"
            )
            return self._network_error(fault, exc, start)
        if isinstance(exc, openai.APIStatusError):
            return self._http_error(
                where,
                exc.status_code,
                status_detail(exc),
                auth=f"the key was rejected ({self.api_key_env or 'no key (api_key_env unset)'})",
                not_found=f"model '{self.model}' is not served there; check GET "
                f"{self.base_url.rstrip('/')}/models and models.{self.role}.model",
            )
        return super()._classify(exc)
