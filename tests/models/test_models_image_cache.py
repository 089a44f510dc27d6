"""A step's screenshot is PNG-encoded once, however many calls and personas send it."""

from __future__ import annotations

import models_fakes as fakes
import numpy as np
from models_fakes import openai_ok

from android_world.agents.custom.model_clients import payload
from android_world.agents.custom.model_clients.call_types import ModelRequest
from android_world.agents.custom.model_clients.openai_compatible import OpenAICompatibleWrapper

server = fakes.fake_server


def test_the_same_frame_is_encoded_once_and_a_new_frame_again(server, monkeypatch):
    from PIL import Image

    encoded: list[tuple[int, ...]] = []

    real_save = Image.Image.save

    def counting_save(self, fp, format=None, **kwargs):
        encoded.append(self.size)
        return real_save(self, fp, format=format, **kwargs)

    monkeypatch.setattr(Image.Image, "save", counting_save)
    payload._PNG_CACHE.clear()
    server.route("POST", "/chat/completions", [openai_ok('{"score": 8, "reasoning": "ok"}')])
    wrapper = OpenAICompatibleWrapper("verifiers", "m", base_url=server.url + "/v1")
    frame = np.full((64, 32, 3), 7, dtype=np.uint8)
    for _ in range(3):  # three personas judging one step
        assert wrapper.call(ModelRequest("judge", (frame,))).ok
    assert encoded == [(32, 64)]
    other = np.full((64, 32, 3), 9, dtype=np.uint8)
    assert wrapper.call(ModelRequest("next step", (other,))).ok
    assert encoded == [(32, 64), (32, 64)]
    sent = [c["body"]["messages"][-1]["content"][-1]["image_url"]["url"] for c in server.calls("")]
    assert len(set(sent)) == 2  # the cached bytes are the frame's own
