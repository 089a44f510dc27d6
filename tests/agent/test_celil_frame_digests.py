"""The perception's digests kept by frame object (issue 30): a frame the env hands out again is
not digested again, and only frames frozen by their owner are kept."""

from __future__ import annotations

import gc

import numpy as np

from android_world.agents.custom.roles import celil_perception
from android_world.agents.custom.roles.celil_perception import FrameDigests, pixels_digest
from android_world.env import interface


def _frozen(seed: int = 0) -> np.ndarray:
    frame = np.random.default_rng(seed).integers(0, 255, size=(48, 32, 3), dtype=np.uint8)
    frame.setflags(write=False)
    return frame


def test_a_frozen_frame_seen_again_is_not_digested_again(monkeypatch):
    digests = FrameDigests()
    frame = _frozen()
    calls = []
    monkeypatch.setattr(
        celil_perception, "pixels_digest", lambda p: calls.append(1) or pixels_digest(p)
    )
    first = digests.digest(frame)
    assert digests.digest(frame) == first == pixels_digest(frame)
    assert len(calls) == 1 and digests.hits == 1
    equal = frame.copy()  # another object, the same pixels: digested, the same digest
    equal.setflags(write=False)
    assert digests.digest(equal) == first and len(calls) == 2


def test_a_writable_frame_or_a_view_is_digested_every_time():
    digests = FrameDigests()
    frame = _frozen().copy()  # writable: a device's screenshot
    before = digests.digest(frame)
    frame[0, 0, 0] ^= 1
    assert digests.digest(frame) != before and digests.digest(frame) == pixels_digest(frame)
    view = _frozen()[4:]
    assert view.base is not None
    digests.digest(view)
    digests.digest(view)
    assert digests.hits == 0


def test_a_gone_frame_never_answers_for_a_new_one():
    digests = FrameDigests(size=2)
    for seed in range(20):  # ids of dead frames are reused: each must be digested afresh
        frame = _frozen(seed)
        assert digests.digest(frame) == pixels_digest(frame)
        del frame
        gc.collect()


def test_the_observation_keeps_its_frame_hash_with_the_digests_kept():
    module = celil_perception.PerceptionModule(ocr="off")
    frame = _frozen()
    state = interface.State(pixels=frame, forest=None, ui_elements=[])
    first = module.process_observation(state)
    again = module.process_observation(state)
    fresh = celil_perception.PerceptionModule(ocr="off").process_observation(
        interface.State(pixels=frame.copy(), forest=None, ui_elements=[])
    )
    assert first.frame_hash == again.frame_hash == fresh.frame_hash


def _old_signature(element) -> str:  # the implementation before stop 42, as reference
    box = element.bbox_pixels or element.bbox
    box_text = (
        f"{round(box.x_min)},{round(box.y_min)},{round(box.x_max)},{round(box.y_max)}"
        if box is not None
        else ""
    )
    fields = (
        element.class_name,
        element.text,
        element.content_description,
        element.hint_text,
        element.is_checked,
        element.is_focused,
        element.is_selected,
        element.is_enabled,
        box_text,
    )
    return "|".join(str(value) for value in fields)


def _old_digest(elements) -> str:
    import hashlib

    digest = hashlib.blake2b(digest_size=12)
    for element in elements:
        digest.update(_old_signature(element).encode("utf-8", "replace"))
        digest.update(b"\x00")
    return digest.hexdigest()


def test_signatures_and_ui_digest_are_those_of_before():
    from android_world.env.representation_utils import BoundingBox, UIElement

    rng = np.random.default_rng(3)
    texts = [None, "", "Save", "naïve 北京", "a|b", "lone \ud800 surrogate", "tab\tnew\nline"]
    elements = []
    for i in range(300):
        pick = lambda: texts[rng.integers(len(texts))]  # noqa: E731
        flag = lambda: [None, True, False][rng.integers(3)]  # noqa: E731
        box = BoundingBox(*(float(v) + 0.5 for v in rng.integers(0, 2000, 4)))
        elements.append(
            UIElement(
                text=pick(),
                content_description=pick(),
                class_name=pick(),
                hint_text=pick(),
                is_checked=flag(),
                is_focused=flag(),
                is_selected=flag(),
                is_enabled=flag(),
                bbox_pixels=box if i % 3 else None,
                bbox=box if i % 5 == 0 else None,
            )
        )
    for element in elements:
        assert celil_perception.element_signature(element) == _old_signature(element)
    for n in (0, 1, 2, 17, 300):
        assert celil_perception.ui_digest(elements[:n]) == _old_digest(elements[:n])
