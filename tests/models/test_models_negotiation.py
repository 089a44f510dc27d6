"""What a server accepts, learned from its refusals: JSON form, image parts, retries, start-up.

The refusals are the exact bodies llama-cpp-python 0.3.36's server sends (captured from the real
server in the real-model tier); the fake server replays them so every branch runs on demand.
"""

from __future__ import annotations

import models_fakes as fakes
import pytest
from models_fakes import free_port_url, openai_ok, screenshot

from android_world.agents.custom.model_clients import negotiation as neg
from android_world.agents.custom.model_clients.call_types import ModelRequest
from android_world.agents.custom.model_clients.errors import ModelSetupError
from android_world.agents.custom.model_clients.openai_compatible import OpenAICompatibleWrapper
from android_world.agents.custom.model_clients.resolution import resolve_role
from android_world.agents.custom.model_clients.settings import RoleSettings

server = fakes.fake_server
SCHEMA = {"type": "object", "properties": {"score": {"type": "number"}}, "required": ["score"]}
# llama-cpp-python's answers (HTTP 500) to response_format json_schema and to list content.
JSON_SCHEMA_REFUSAL = {
    "error": {
        "message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
        "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", "
        "'input': 'json_schema'}",
        "type": "internal_server_error",
    }
}
IMAGE_REFUSAL = {
    "error": {
        "message": 'can only concatenate str (not "list") to str',
        "type": "internal_server_error",
    }
}


@pytest.fixture(autouse=True)
def fresh_memory(monkeypatch):
    fakes.model_env(monkeypatch)
    neg.SERVERS.forget()
    yield
    neg.SERVERS.forget()


def like_llama_cpp_python(request):
    """Refuses json_schema and image parts as llama-cpp-python's server does; else answers."""
    body = request["body"]
    if (body.get("response_format") or {}).get("type") == "json_schema":
        return 500, JSON_SCHEMA_REFUSAL
    if any(isinstance(m["content"], list) for m in body["messages"]):
        return 500, IMAGE_REFUSAL
    return openai_ok('{"score": 7}')


def wrapper(server, role="verifiers", **kwargs):
    kwargs.setdefault("max_retries", 3)
    kwargs.setdefault("retry_initial_delay_s", 0.0)
    return OpenAICompatibleWrapper(role, "m", base_url=server.url + "/v1", **kwargs)


def test_refused_json_schema_falls_back_to_json_object_with_the_schema_once(server):
    server.route("POST", "/chat/completions", like_llama_cpp_python)
    first = wrapper(server).call(ModelRequest("rate", schema=SCHEMA))
    assert first.ok and first.text == '{"score": 7}'
    assert "refused response_format json_schema; using json_object" in first.record.note
    assert first.record.retries == 1  # the re-send in the next form is a request too (issue 27)
    sent = [c["body"].get("response_format") for c in server.calls("/chat/completions")]
    assert sent == [
        {"type": "json_schema", "json_schema": {"name": "response", "schema": SCHEMA}},
        {"type": "json_object", "schema": SCHEMA},
    ]
    # Another role's wrapper on the same server starts with what works.
    second = wrapper(server, role="maestro").call(ModelRequest("plan", schema=SCHEMA))
    assert second.ok and second.record.note == ""
    assert server.calls("/chat/completions")[-1]["body"]["response_format"]["type"] == (
        "json_object"
    )


def test_a_server_refusing_every_format_gets_the_schema_in_the_prompt(server):
    def no_response_format(request):
        if request["body"].get("response_format"):
            return 400, {"error": {"message": "response_format is not supported"}}
        return openai_ok('{"score": 3}')

    server.route("POST", "/chat/completions", no_response_format)
    result = wrapper(server).call(ModelRequest("rate", schema=SCHEMA))
    assert result.ok and result.text == '{"score": 3}'
    last = server.calls("/chat/completions")[-1]["body"]
    assert "response_format" not in last
    assert "follows this JSON schema" in last["messages"][-1]["content"]


def test_a_prompt_that_states_its_reply_shape_is_sent_no_schema_as_well(server):
    """A vote's prompt ends with its reply shape: without a JSON mode that is the one statement
    of it; with one, the schema still goes as the response format (issue 30)."""
    server.route("POST", "/chat/completions", lambda _request: openai_ok('{"score": 3}'))
    prompt = 'rate it. Reply with JSON only: {"score": <number 0-10>}'
    request = ModelRequest(prompt, schema=SCHEMA, shape_in_prompt=True)
    assert wrapper(server, structured_output="none").call(request).ok
    assert server.calls("/chat/completions")[-1]["body"]["messages"][-1]["content"] == prompt
    assert wrapper(server, structured_output="json_object").call(request).ok
    body = server.calls("/chat/completions")[-1]["body"]
    assert body["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert body["messages"][-1]["content"] == prompt
    # A prompt that does not state it gets the schema in the prompt, as before.
    assert wrapper(server, structured_output="none").call(ModelRequest(prompt, schema=SCHEMA)).ok
    sent = server.calls("/chat/completions")[-1]["body"]["messages"][-1]["content"]
    assert "follows this JSON schema" in sent
    assert request.request_hash() == ModelRequest(prompt, schema=SCHEMA).request_hash()


def test_the_token_estimate_counts_the_schema_a_server_with_no_json_mode_is_sent(server):
    """With no usage reported, the ledger estimates what was sent: the schema added to the
    prompt too, not only the role's own text (issue 30: it counted a joint vote's ~70 tokens of
    reply shape when ~170 went out)."""

    def no_usage(_request):
        status, body = openai_ok('{"score": 3}')
        body.pop("usage")
        return status, body

    server.route("POST", "/chat/completions", no_usage)
    prompt = "x" * 400
    bare = wrapper(server, structured_output="none").call(ModelRequest(prompt)).record
    stated = ModelRequest(prompt, schema=SCHEMA, shape_in_prompt=True)
    once = wrapper(server, structured_output="none").call(stated).record
    added = wrapper(server, structured_output="none").call(ModelRequest(prompt, schema=SCHEMA))
    assert bare.tokens_estimated and bare.prompt_tokens == once.prompt_tokens == 100
    schema_chars = len(server.calls("/chat/completions")[-1]["body"]["messages"][-1]["content"])
    assert added.record.prompt_tokens == -(-schema_chars // 4) > 100


def test_an_explicit_form_is_never_changed(server):
    server.route("POST", "/chat/completions", like_llama_cpp_python)
    result = wrapper(server, structured_output="json_schema").call(
        ModelRequest("rate", schema=SCHEMA)
    )
    assert not result.ok and "HTTP 500" in result.record.error
    assert "literal_error" in result.record.error  # the server's own words reach the user
    assert len(server.calls("/chat/completions")) == 1  # a refusal is not retried


def test_a_text_only_model_gets_the_request_without_images_and_then_never_again(server):
    server.route("POST", "/chat/completions", like_llama_cpp_python)
    model = wrapper(server, structured_output="json_object")
    first = model.call(ModelRequest("rate this screen", (screenshot(),), SCHEMA))
    assert first.ok and "refused image parts" in first.record.note
    second = model.call(ModelRequest("and this one", (screenshot(),), SCHEMA))
    assert second.ok and second.record.note == ""
    bodies = [c["body"] for c in server.calls("/chat/completions")]
    assert [isinstance(b["messages"][-1]["content"], list) for b in bodies] == [True, False, False]


def test_images_off_never_sends_them_and_on_never_drops_them(server):
    server.route("POST", "/chat/completions", like_llama_cpp_python)
    off = wrapper(server, images="off", structured_output="json_object")
    assert off.call(ModelRequest("look", (screenshot(),), SCHEMA)).ok
    assert not isinstance(
        server.calls("/chat/completions")[-1]["body"]["messages"][-1]["content"], list
    )
    on = wrapper(server, role="maestro", images="on", structured_output="json_object")
    refused = on.call(ModelRequest("look", (screenshot(),), SCHEMA))
    assert not refused.ok and "can only concatenate" in refused.record.error


def test_a_plain_500_is_retried_once_and_a_503_up_to_max_retries(server):
    server.route("POST", "/chat/completions", [(500, {"error": {"message": "boom"}})])
    result = wrapper(server).call(ModelRequest("hi"))
    assert not result.ok and result.record.retries == 1
    server.route("POST", "/chat/completions", [(503, {"error": {"message": "loading"}})])
    result = wrapper(server).call(ModelRequest("hi"))
    assert not result.ok and result.record.retries == 3


@pytest.mark.parametrize(
    ("status", "detail", "refusal", "images"),
    [
        (500, 'can only concatenate str (not "list") to str', True, True),
        (500, "1 validation error: literal_error response_format", True, False),
        (
            500,
            "image input is not supported - hint: you may need to provide the mmproj",
            True,
            True,
        ),
        (500, "boom", False, False),
        (400, "anything", True, True),
        (429, "slow down", False, False),
        (503, "Loading model", False, False),
        (None, "connection refused", False, False),
    ],
)
def test_refusal_rules(status, detail, refusal, images):
    assert neg.is_refusal(status, detail) is refusal
    assert neg.may_refuse_images(status, detail) is images


def test_a_configured_server_that_is_down_or_loading_stops_auto_at_start_up(server):
    settings = RoleSettings(role="maestro", auto_order=("openai",))
    down = RoleSettings(**{**settings.__dict__, "openai_base_url": free_port_url() + "/v1"})
    with pytest.raises(ModelSetupError, match="openai_base_url is set but unusable"):
        resolve_role("maestro", down)
    server.route("GET", "/models", [(503, {"error": {"message": "Loading model"}})])
    loading = RoleSettings(**{**settings.__dict__, "openai_base_url": server.url + "/v1"})
    with pytest.raises(ModelSetupError, match=r"HTTP 503 \(still loading"):
        resolve_role("maestro", loading)
    # Not configured: auto runs offline, as before.
    assert resolve_role("maestro", settings).backend == "offline"
