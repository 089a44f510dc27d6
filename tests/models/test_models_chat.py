"""`predict_messages`: a real multi-turn chat on every backend, asserted at the fake servers.

The executor's conversation is: the UI-TARS prompt (user text), then per earlier step its
screenshot (user image) and the model's answer (assistant text), then the current screenshot.
Each backend must send exactly that order, with each image on its own user turn.
"""

from __future__ import annotations

import json

import models_fakes as fakes
import numpy as np
import pytest
from models_fakes import (
    decode_png,
    gemini_ok,
    ollama_ok,
    openai_ok,
    screenshot,
)

from android_world.agents import infer
from android_world.agents.custom.dialects import uitars
from android_world.agents.custom.model_clients.call_types import (
    ChatMessage,
    ModelRequest,
    flatten_messages,
    image_hash,
)
from android_world.agents.custom.model_clients.gemini import GeminiWrapper
from android_world.agents.custom.model_clients.ledger import UsageLedger
from android_world.agents.custom.model_clients.ollama import OllamaWrapper
from android_world.agents.custom.model_clients.openai_compatible import OpenAICompatibleWrapper
from android_world.agents.custom.model_clients.replay import RecordingWrapper, ReplayWrapper

SECRET = "sk-SECRET-chat"
OLD, NOW = screenshot(28, 14, seed=1), screenshot(28, 14, seed=2)
ANSWER = "Thought: open it\nAction: click(start_box='(5,7)')"


def conversation() -> list[ChatMessage]:
    history = [uitars.HistoryTurn(OLD, ANSWER)]
    return uitars.build_messages("Open Settings", NOW, history)


server = fakes.fake_server


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    fakes.model_env(monkeypatch, SECRET)


def test_build_messages_shape_is_what_the_tests_below_expect():
    roles = [(m.role, bool(m.text), len(m.images)) for m in conversation()]
    assert roles == [
        ("user", True, 0),
        ("user", False, 1),
        ("assistant", True, 0),
        ("user", False, 1),
    ]


def test_openai_sends_the_turns_in_order_with_images_as_data_urls(server):
    server.route("POST", "/chat/completions", [openai_ok("Action: press_home()")])
    ledger = UsageLedger()
    wrapper = OpenAICompatibleWrapper(
        "section_leader", "ui-tars", base_url=server.url + "/v1", ledger=ledger, max_retries=0
    )
    text, _, _ = wrapper.predict_messages(conversation(), system="Be brief.")
    assert text == "Action: press_home()"
    messages = server.calls("/chat/completions")[0]["body"]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "user", "assistant", "user"]
    assert messages[0]["content"] == "Be brief."
    assert messages[1]["content"].startswith(uitars.mobile_prompt("Open Settings")[:40])
    assert "Open Settings" in messages[1]["content"]
    assert messages[3]["content"] == uitars.add_box_tokens(ANSWER)  # trained form, box tokens
    for index, image in ((2, OLD), (4, NOW)):
        (part,) = messages[index]["content"]
        assert part["type"] == "image_url"
        assert (decode_png(part["image_url"]["url"].split(",", 1)[1]) == image).all()
    (record,) = ledger.records()
    assert record.role == "section_leader" and record.error is None
    assert (record.prompt_tokens, record.completion_tokens) == (30, 6)


def test_ollama_sends_the_turns_in_order_with_png_images(server):
    server.route("POST", "/api/chat", [ollama_ok("Action: press_back()")])
    wrapper = OllamaWrapper("section_leader", "ui-tars", host=server.url, max_retries=0)
    assert wrapper.predict_messages(conversation())[0] == "Action: press_back()"
    messages = server.calls("/api/chat")[0]["body"]["messages"]
    assert [m["role"] for m in messages] == ["user", "user", "assistant", "user"]
    assert "images" not in messages[0] and "images" not in messages[2]
    assert messages[2]["content"] == uitars.add_box_tokens(ANSWER)
    for index, image in ((1, OLD), (3, NOW)):
        (data,) = messages[index]["images"]
        assert (decode_png(data) == image).all()


def test_gemini_merges_consecutive_user_turns_and_calls_the_assistant_model(server):
    server.route("POST", ":generateContent", [gemini_ok("Action: press_home()")])
    wrapper = GeminiWrapper(
        "section_leader", "gemini-2.5-flash", base_url=server.url, max_retries=0
    )
    assert wrapper.predict_messages(conversation())[0] == "Action: press_home()"
    contents = server.calls(":generateContent")[0]["body"]["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    first, answer, last = (c["parts"] for c in contents)
    assert "Open Settings" in first[0]["text"]  # prompt, then the older screenshot
    assert (decode_png(first[1]["inlineData"]["data"]) == OLD).all()
    assert answer == [{"text": uitars.add_box_tokens(ANSWER)}]
    (image,) = last
    assert (decode_png(image["inlineData"]["data"]) == NOW).all()


def test_gemma_gets_system_on_the_first_and_schema_on_the_last_user_turn(server):
    server.route("POST", ":generateContent", [gemini_ok('{"ok": true}')])
    wrapper = GeminiWrapper("maestro", "gemma-3-27b-it", base_url=server.url, max_retries=0)
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    messages = [
        ChatMessage("user", "first question"),
        ChatMessage("assistant", "an answer"),
        ChatMessage("user", "second question", [NOW]),
    ]
    wrapper.predict_messages(messages, response_schema=schema, system="Be strict.")
    body = server.calls(":generateContent")[0]["body"]
    assert "systemInstruction" not in body
    first, _, last = body["contents"]
    assert first["parts"][0]["text"] == "Be strict.\n\nfirst question"
    assert last["parts"][0]["text"].startswith("second question\n\nReply with only one JSON")
    assert json.dumps(schema, sort_keys=True) in last["parts"][0]["text"]


def test_chat_is_recorded_and_replays_without_network(server, tmp_path):
    server.route("POST", "/chat/completions", [openai_ok("first"), openai_ok("second")])
    recording = tmp_path / "calls.jsonl"
    live = OpenAICompatibleWrapper(
        "section_leader", "ui-tars", base_url=server.url + "/v1", max_retries=0
    )
    recorder = RecordingWrapper(live, recording)
    shorter = conversation()[:1] + conversation()[-1:]
    recorded = [recorder.predict_messages(conversation())[0], recorder.predict_messages(shorter)[0]]
    server.close()
    lines = [json.loads(line) for line in recording.read_text().splitlines()]
    assert [line["turns"] for line in lines] == [4, 2]
    assert lines[0]["images"] == [image_hash(OLD), image_hash(NOW)]
    assert lines[0]["request_hash"] != lines[1]["request_hash"]
    ledger = UsageLedger()
    replay = ReplayWrapper("section_leader", recording, ledger=ledger)
    # Order does not matter: answers are matched by the whole conversation.
    assert replay.predict_messages(shorter)[0] == recorded[1]
    assert replay.predict_messages(conversation())[0] == recorded[0]
    assert [r.error for r in ledger.records()] == [None, None]
    # The same prompt flattened into one turn is a different request.
    text, images = flatten_messages(conversation())
    assert replay.predict_mm(text, images)[0] == infer.ERROR_CALLING_LLM


def test_a_chat_with_a_different_history_image_is_a_different_request():
    base = ModelRequest.chat(conversation())
    other = conversation()
    other[1] = ChatMessage("user", images=[np.zeros_like(OLD)])
    assert base.request_hash() != ModelRequest.chat(other).request_hash()
    assert base.request_hash() == ModelRequest.chat(conversation()).request_hash()


def test_chat_request_normalises_roles_and_rejects_assistant_images():
    request = ModelRequest.chat(
        [
            ChatMessage("system", "rules"),
            ChatMessage("user", "hi"),
            ChatMessage("model", "hello"),
        ],
        system="base",
    )
    assert request.system == "base\n\nrules"
    assert [t.role for t in request.turns()] == ["user", "assistant"]
    with pytest.raises(ValueError, match="assistant"):
        ModelRequest.chat([ChatMessage("assistant", "x", [NOW])])
    with pytest.raises(ValueError, match="at least one"):
        ModelRequest.chat([ChatMessage("system", "only rules")])


class PlainMultimodal:
    """An upstream-style wrapper with no predict_messages."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def predict(self, text):
        return self.predict_mm(text, [])

    def predict_mm(self, text, images):
        self.calls.append((text, len(images)))
        return "plain answer", True, None


def test_recording_a_plain_wrapper_flattens_the_chat(tmp_path):
    plain = PlainMultimodal()
    recorder = RecordingWrapper(plain, tmp_path / "calls.jsonl", role="section_leader")
    assert recorder.predict_messages(conversation())[0] == "plain answer"
    ((text, count),) = plain.calls
    assert count == 2 and "[Screenshot 1]" in text and "(current screen)" in text
