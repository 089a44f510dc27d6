"""Server faults named truly (issue 27): a total deadline per request, malformed 200 answers,
reset vs refused vs timed out, every request in the ledger, and one image when a server allows
one (issue 30). The faults come from the fake servers in models_fakes, in the shapes real
servers send."""

from __future__ import annotations

import time

import models_fakes as fakes
import numpy as np
import pytest
from models_fakes import (
    DISCONNECT,
    RESET,
    decode_png,
    event_stream,
    free_port_url,
    ollama_ok,
    openai_no_choices,
    openai_ok,
    openai_with_usage,
    screenshot,
    trickle,
    vllm_too_many_images,
)

from android_world.agents.custom.model_clients import negotiation as neg
from android_world.agents.custom.model_clients.call_types import ChatMessage, ModelRequest
from android_world.agents.custom.model_clients.faults import network_fault
from android_world.agents.custom.model_clients.ledger import UsageLedger
from android_world.agents.custom.model_clients.ollama import OllamaWrapper
from android_world.agents.custom.model_clients.openai_compatible import OpenAICompatibleWrapper
from android_world.agents.custom.model_clients.settings import RoleSettings

server = fakes.fake_server
SCHEMA = {"type": "object", "properties": {"score": {"type": "number"}}, "required": ["score"]}


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    fakes.model_env(monkeypatch)
    neg.SERVERS.forget()
    yield
    neg.SERVERS.forget()


def openai(server_or_url, ledger=None, **kwargs):
    url = server_or_url if isinstance(server_or_url, str) else server_or_url.url + "/v1"
    kwargs.setdefault("max_retries", 2)
    kwargs.setdefault("retry_initial_delay_s", 0.0)
    return OpenAICompatibleWrapper("maestro", "m", base_url=url, ledger=ledger, **kwargs)


def ollama(server_or_url, ledger=None, **kwargs):
    host = server_or_url if isinstance(server_or_url, str) else server_or_url.url
    kwargs.setdefault("max_retries", 2)
    kwargs.setdefault("retry_initial_delay_s", 0.0)
    return OllamaWrapper("section_leader", "ui", host=host, ledger=ledger, **kwargs)


# --------------------------------------------------------------------------------------------------
# A total deadline per request
# --------------------------------------------------------------------------------------------------


def test_a_body_trickling_one_byte_every_0_3s_fails_at_the_deadline_not_after_it(server):
    # Issue 27: such a server made one call take 106 s under timeout_s=2, logged as a success.
    server.route("POST", "/chat/completions", [trickle(openai_ok("x" * 40), 0.3)])
    ledger = UsageLedger()
    wrapper = openai(server, ledger, timeout_s=2, max_retries=0)
    started = time.monotonic()
    result = wrapper.call(ModelRequest("hi"))
    elapsed = time.monotonic() - started
    assert not result.ok and result.error_kind == "transient"
    assert "deadline" in result.record.error and "deadline_s" in result.record.error
    # The default deadline is twice the read timeout: 4 s here, not the 70 s the body takes.
    assert elapsed < 5.5, elapsed
    assert ledger.totals()["errors"] == 1


def test_an_explicit_deadline_bounds_each_attempt_and_a_timeout_is_retried(server):
    server.route("POST", "/api/chat", [trickle(ollama_ok("x" * 40), 0.3)])
    wrapper = ollama(server, timeout_s=5, deadline_s=1.0, max_retries=1)
    started = time.monotonic()
    result = wrapper.call(ModelRequest("hi"))
    elapsed = time.monotonic() - started
    assert not result.ok and result.record.retries == 1
    assert "deadline_s=1" in result.record.error
    assert elapsed < 3.5, elapsed
    assert len(server.calls("/api/chat")) == 2


def test_a_fast_answer_is_untouched_by_the_deadline(server):
    server.route("POST", "/chat/completions", [openai_ok("fine")])
    result = openai(server, timeout_s=2, deadline_s=1.0).call(ModelRequest("hi"))
    assert result.ok and result.text == "fine"


def test_deadline_defaults_to_twice_the_read_timeout_and_is_configurable():
    settings = RoleSettings(role="maestro", timeout_s=7.0)
    assert settings.request_deadline_s() == 14.0
    assert RoleSettings(timeout_s=7.0, deadline_s=3.0).request_deadline_s() == 3.0
    from android_world.harness.model_config import ModelsConfig

    config = ModelsConfig.model_validate({"maestro": {"timeout_s": 10, "deadline_s": 12}})
    assert config.role_settings("maestro").request_deadline_s() == 12.0
    assert ModelsConfig().role_settings("verifiers").request_deadline_s() == 120.0
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="deadline_s"):
            ModelsConfig.model_validate({"maestro": {"deadline_s": bad}})


# --------------------------------------------------------------------------------------------------
# Malformed 200 answers are failed calls
# --------------------------------------------------------------------------------------------------


def test_a_200_without_choices_is_a_failed_call(server):
    server.route("POST", "/chat/completions", [openai_no_choices()])
    ledger = UsageLedger()
    result = openai(server, ledger).call(ModelRequest("hi"))
    assert not result.ok and result.error_kind == "fatal"
    assert "HTTP 200" in result.record.error and "no choices" in result.record.error
    assert ledger.totals()["errors"] == 1
    assert len(server.requests) == 1  # the same request would get the same answer


@pytest.mark.parametrize(
    ("usage", "named"),
    [
        ({"prompt_tokens": "many", "completion_tokens": 2}, "usage.prompt_tokens"),
        ({"prompt_tokens": 3, "completion_tokens": [1]}, "usage.completion_tokens"),
        ("lots", "usage"),
    ],
)
def test_wrongly_typed_usage_is_a_failed_call_that_names_the_field(server, usage, named):
    server.route("POST", "/chat/completions", [openai_with_usage("a good answer", usage)])
    result = openai(server).call(ModelRequest("hi"))
    assert not result.ok
    assert "HTTP 200" in result.record.error and named in result.record.error
    assert "invalid literal" not in result.record.error  # our words, not Python's


def test_usage_that_is_absent_or_null_is_estimated_not_an_error(server):
    server.route(
        "POST",
        "/chat/completions",
        [openai_with_usage("ok", None), openai_with_usage("ok", {"prompt_tokens": None})],
    )
    for _ in range(2):
        result = openai(server).call(ModelRequest("hi"))
        assert result.ok and result.record.tokens_estimated


def test_an_event_stream_that_was_not_asked_for_is_a_failed_call_with_a_clear_message(server):
    server.route("POST", "/chat/completions", [event_stream("Hel", "lo")])
    result = openai(server).call(ModelRequest("hi"))
    assert not result.ok
    assert "event stream" in result.record.error and "stream" in result.record.error
    assert "AttributeError" not in result.record.error
    assert server.requests[0]["body"].get("stream") in (None, False)


def test_content_that_is_not_text_is_a_failed_call(server):
    status, body = openai_ok("x")[:2]
    body["choices"][0]["message"]["content"] = {"text": "x"}
    server.route("POST", "/chat/completions", [(status, body)])
    result = openai(server).call(ModelRequest("hi"))
    assert not result.ok and "choices[0].message.content" in result.record.error


# --------------------------------------------------------------------------------------------------
# Reset, refused and timed out, told apart
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fault", [RESET, DISCONNECT], ids=["rst", "closed"])
def test_a_reset_is_named_and_retried_as_transient(server, fault):
    server.route("POST", "/chat/completions", [fault, fault, openai_ok("back")])
    result = openai(server, max_retries=3).call(ModelRequest("hi"))
    assert result.ok and result.text == "back" and result.record.retries == 2
    server.route("POST", "/chat/completions", [fault])
    failed = openai(server, max_retries=1).call(ModelRequest("hi"))
    assert not failed.ok and failed.error_kind == "transient"
    assert "reset" in failed.record.error and "refused" not in failed.record.error
    assert "start the server" not in failed.record.error


def test_refused_is_named_and_not_retried():
    result = openai(free_port_url() + "/v1", max_retries=3).call(ModelRequest("hi"))
    assert not result.ok and result.error_kind == "fatal" and result.record.retries == 0
    assert "connection refused" in result.record.error and "reset" not in result.record.error


def test_a_timeout_is_named_and_retried(server):
    server.route("POST", "/chat/completions", [(*openai_ok("late"), 1.5)])
    result = openai(server, timeout_s=0.5, max_retries=1).call(ModelRequest("hi"))
    assert not result.ok and result.error_kind == "transient" and result.record.retries == 1
    assert "timed out" in result.record.error
    assert "refused" not in result.record.error and "reset" not in result.record.error


def test_ollama_tells_reset_from_refused(server):
    server.route("POST", "/api/chat", [RESET, ollama_ok("back")])
    result = ollama(server).call(ModelRequest("hi"))
    assert result.ok and result.record.retries == 1
    server.route("POST", "/api/chat", [RESET])
    failed = ollama(server, max_retries=0).call(ModelRequest("hi"))
    assert "reset" in failed.record.error and "ollama serve" not in failed.record.error
    refused = ollama(free_port_url(), max_retries=3).call(ModelRequest("hi"))
    assert "connection refused" in refused.record.error and refused.record.retries == 0


@pytest.mark.parametrize(
    ("exc", "fault"),
    [
        (ConnectionRefusedError(111, "Connection refused"), "refused"),
        (ConnectionResetError(104, "Connection reset by peer"), "reset"),
        (BrokenPipeError(32, "Broken pipe"), "reset"),
        (TimeoutError("timed out"), "timeout"),
        (ValueError("nothing to do with the network"), None),
    ],
)
def test_network_fault_reads_the_cause_chain(exc, fault):
    try:
        try:
            raise exc
        except Exception as inner:
            raise RuntimeError("Connection error.") from inner
    except RuntimeError as outer:
        assert network_fault(outer) == fault


# --------------------------------------------------------------------------------------------------
# Every request in the ledger
# --------------------------------------------------------------------------------------------------


def test_every_request_the_server_saw_is_in_the_ledger_negotiation_included(server):
    def like_llama_cpp_python(request):
        body = request["body"]
        if (body.get("response_format") or {}).get("type") == "json_schema":
            return 500, {"error": {"message": "1 validation error: literal_error json_schema"}}
        if any(isinstance(m["content"], list) for m in body["messages"]):
            return 500, {"error": {"message": 'can only concatenate str (not "list") to str'}}
        return openai_ok('{"score": 7}')

    server.route("POST", "/chat/completions", like_llama_cpp_python)
    ledger = UsageLedger()
    for role in ("maestro", "verifiers"):
        wrapper = OpenAICompatibleWrapper(
            role, "m", base_url=server.url + "/v1", ledger=ledger, retry_initial_delay_s=0.0
        )
        for _ in range(3):
            assert wrapper.call(ModelRequest("rate", (screenshot(),), SCHEMA)).ok
    totals = ledger.totals()
    assert totals["model_calls"] == 6
    assert totals["model_calls"] + totals["retries"] == len(server.requests)
    assert ledger.records()[0].retries == 2  # json_object after json_schema, then no image


# --------------------------------------------------------------------------------------------------
# One image when a server allows one
# --------------------------------------------------------------------------------------------------


def like_default_vllm(request):
    """vLLM with its default limit of one image per request."""
    images = sum(
        1
        for message in request["body"]["messages"]
        if isinstance(message["content"], list)
        for part in message["content"]
        if part.get("type") == "image_url"
    )
    return vllm_too_many_images(1) if images > 1 else openai_ok("Action: click(start_box='(1,1)')")


def sent_images(request):
    return [
        decode_png(part["image_url"]["url"].split(",", 1)[1])
        for message in request["body"]["messages"]
        if isinstance(message["content"], list)
        for part in message["content"]
        if part.get("type") == "image_url"
    ]


def executor_chat(current: np.ndarray) -> list[ChatMessage]:
    """The executor's shape: prompt, earlier screens with their answers, the current screen."""
    return [
        ChatMessage("user", "You are a GUI agent. Task: open Settings."),
        ChatMessage("user", images=[screenshot(seed=1)]),
        ChatMessage("assistant", "Action: press_home()"),
        ChatMessage("user", images=[screenshot(seed=2)]),
        ChatMessage("assistant", "Action: scroll(direction='down')"),
        ChatMessage("user", images=[current]),
    ]


def test_a_server_allowing_one_image_gets_the_current_screen_not_none(server):
    server.route("POST", "/chat/completions", like_default_vllm)
    ledger = UsageLedger()
    wrapper = openai(server, ledger)
    wrapper.role = "section_leader"
    current = screenshot(seed=3)
    first = wrapper.call(ModelRequest.chat(executor_chat(current)))
    assert first.ok and "at most 1 image" in first.record.note
    assert first.record.retries == 1
    refused, accepted = server.requests
    assert len(sent_images(refused)) == 3
    [kept] = sent_images(accepted)
    assert (kept == current).all()
    # Learned for the run: the next request goes out with one image at once.
    second = wrapper.call(ModelRequest.chat(executor_chat(screenshot(seed=4))))
    assert second.ok and second.record.note == "" and second.record.retries == 0
    assert len(sent_images(server.requests[-1])) == 1
    [fact] = neg.SERVERS.snapshot()
    assert fact["max_images"] == 1 and fact["text_only"] is False
    assert any("at most 1 image" in note for note in fact["notes"])


def test_a_server_refusing_even_one_image_ends_text_only(server):
    def text_only(request):
        if any(isinstance(m["content"], list) for m in request["body"]["messages"]):
            return 500, {"error": {"message": 'can only concatenate str (not "list") to str'}}
        return openai_ok("ok")

    server.route("POST", "/chat/completions", text_only)
    wrapper = openai(server)
    result = wrapper.call(ModelRequest.chat(executor_chat(screenshot(seed=3))))
    assert result.ok and "refused image parts" in result.record.note
    assert [len(sent_images(r)) for r in server.requests] == [3, 1, 0]
    [fact] = neg.SERVERS.snapshot()
    assert fact["text_only"] is True and fact["max_images"] == 0


def test_a_stated_limit_above_one_is_used(server):
    def at_most_two(request):
        if len(sent_images(request)) > 2:
            return vllm_too_many_images(2)
        return openai_ok("ok")

    server.route("POST", "/chat/completions", at_most_two)
    result = openai(server).call(ModelRequest.chat(executor_chat(screenshot(seed=3))))
    assert result.ok and "at most 2 image" in result.record.note
    assert [len(sent_images(r)) for r in server.requests] == [3, 2]


def test_images_on_never_trims(server):
    server.route("POST", "/chat/completions", like_default_vllm)
    result = openai(server, images="on").call(ModelRequest.chat(executor_chat(screenshot())))
    assert not result.ok and "At most 1 image(s)" in result.record.error
    assert len(server.requests) == 1


def test_keeping_the_last_images_keeps_the_current_screen_of_a_flat_request():
    images = tuple(screenshot(seed=i) for i in range(3))
    request = ModelRequest("look", images)
    kept = request.keeping_last_images(1)
    assert len(kept.images) == 1 and (kept.images[0] == images[-1]).all()
    assert request.keeping_last_images(0).images == ()
    assert request.keeping_last_images(5) is request


def test_check_models_finds_and_shows_the_image_limit(server):
    from android_world.env.representation_utils import BoundingBox, UIElement
    from android_world.harness.check_models import run_checks
    from android_world.harness.model_config import ModelsConfig, RoleModelConfig

    server.route("POST", "/chat/completions", like_default_vllm)
    offline = RoleModelConfig(backend="offline")
    executor = RoleModelConfig(backend="openai", openai_model="m", max_retries=0)
    config = ModelsConfig(
        maestro=offline,
        verifiers=offline,
        section_leader=executor,
        openai_base_url=server.url + "/v1",
    )
    element = UIElement(
        text="Save", is_clickable=True, bbox_pixels=BoundingBox(300, 800, 900, 1300)
    )
    screen = (np.full((2400, 1080, 3), 200, dtype=np.uint8), [element])
    [grounding] = [row for row in run_checks(config, screen=screen) if row.check == "grounding"]
    assert "at most 1 image(s) per request" in grounding.detail
    assert neg.SERVERS.snapshot()[0]["max_images"] == 1
