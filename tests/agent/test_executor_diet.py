"""The executor's context diet and the votes' screenshot (issue 30): by default the current
screenshot and a text history; earlier screenshots only when asked, downscaled; a vote carries a
smaller screenshot than the executor, or none."""

from __future__ import annotations

import celil_fakes as fakes
import numpy as np
import pytest
from test_section_leader_generator import ScriptedWrapper, _generator, _observation

from android_world.agents.custom import factory
from android_world.agents.custom.celil_protocols import ProposedAction
from android_world.agents.custom.dialects import uitars
from android_world.agents.custom.model_clients.call_types import ModelRequest
from android_world.agents.custom.model_clients.ledger import estimate_tokens
from android_world.agents.custom.model_clients.resolution import Resolution
from android_world.agents.custom.roles import celil_quality_control as qc
from android_world.env import json_action

WAITS = [f"Thought: step {i}\nAction: wait()" for i in range(4)]


def test_by_default_the_executor_sees_one_screenshot_and_its_earlier_answers():
    assert factory.CelilAgentConfig().history_images == 1
    generator, wrapper = _generator(*WAITS, history_images=1)
    for _ in range(4):
        generator.generate_action("Wait for it", _observation(), "")
    prompt, images = wrapper.calls[-1]
    assert len(images) == 1 and images[0].shape[:2] == (1484, 672)  # the current screen, full cap
    assert "Thought: step 0" in prompt and "Thought: step 2" in prompt
    assert all(turn.screenshot is None for turn in generator.history)  # nothing kept to send


def test_earlier_screenshots_go_downscaled_and_the_current_one_at_full_cap():
    generator, wrapper = _generator(*WAITS, history_images=3, history_image_pixels=200_704)
    for _ in range(4):
        generator.generate_action("Wait for it", _observation(), "")
    _, images = wrapper.calls[-1]
    assert len(images) == 3
    *earlier, current = images
    assert current.shape[:2] == (1484, 672)
    for image in earlier:
        assert image.shape[0] * image.shape[1] <= 200_704
        assert image.shape[0] % uitars.IMAGE_FACTOR == 0 and image.shape[1] % 28 == 0


@pytest.mark.parametrize(("history_images", "pixels"), [(1, None), (3, None), (3, 200_704)])
def test_prompt_tokens_per_setting_fall_with_the_diet(history_images, pixels):
    """What each setting costs the fourth call, by the ledger's own estimate."""
    generator, wrapper = _generator(
        *WAITS, history_images=history_images, history_image_pixels=pixels
    )
    for _ in range(4):
        generator.generate_action("Wait for it", _observation(), "")
    prompt, images = wrapper.calls[-1]
    tokens, _ = estimate_tokens(ModelRequest(prompt, tuple(images)), "")
    current = 53 * 24  # one 1484x672 screenshot in 28-pixel patches
    if history_images == 1:
        assert current < tokens < current + 800
    elif pixels is None:
        assert tokens > 3 * current
    else:
        assert current + 400 < tokens < 2 * current


def _ensemble(**kwargs):
    wrapper = fakes.ScriptedWrapper(default='{"score": 9, "reasoning": "fine"}')
    return qc.VerifierEnsemble(wrapper, **kwargs), wrapper


def _vote(ensemble):
    observation = _observation()
    proposal = ProposedAction(json_action.JSONAction(action_type=json_action.CLICK, index=2))
    ensemble.verify_action("Open Wi-Fi", proposal, observation, "ctx")


def test_a_vote_carries_the_votes_own_smaller_screenshot_or_none():
    params = factory.CelilAgentConfig()
    assert params.verifier_image_pixels < params.max_image_pixels
    ensemble, wrapper = _ensemble(max_image_pixels=params.verifier_image_pixels)
    _vote(ensemble)
    assert len(wrapper.image_counts) == 1 and wrapper.image_counts[0] == 1
    ensemble, wrapper = _ensemble(use_screenshot=False)
    _vote(ensemble)
    assert wrapper.image_counts == [0]


PLAN = '{"sub_goals": ["Open Settings", "Turn Wi-Fi off"], "rationale": "two steps"}'


def _plan_images(**settings) -> list[np.ndarray]:
    wrapper = ScriptedWrapper(PLAN)
    maestro = Resolution("maestro", "openai", "m", "test", wrapper)
    planner = factory._planner(factory.CelilAgentConfig(**settings), maestro)
    plan = planner.generate_initial_plan("Turn Wi-Fi off", _observation(), None)
    assert plan.sub_goals == ["Open Settings", "Turn Wi-Fi off"]
    (_, images), *_ = wrapper.calls
    return images


def test_the_planner_reads_a_small_screenshot_or_none():
    """The plan call carried the executor's full-size screenshot (~1.3k prompt tokens) though
    the planner points at nothing and gets the screen's text in full."""
    (image,) = _plan_images()
    assert image.shape[0] * image.shape[1] <= 250_880
    assert _plan_images(planner_image_pixels=0) == []
    (image,) = _plan_images(planner_image_pixels=5_000_000)  # never above max_image_pixels
    assert image.shape[0] * image.shape[1] <= factory.CelilAgentConfig().max_image_pixels


def test_the_image_settings_are_validated():
    with pytest.raises(ValueError):
        factory.CelilAgentConfig(history_image_pixels=10)
    with pytest.raises(ValueError):
        factory.CelilAgentConfig(verifier_image_pixels=-1)
    assert factory.CelilAgentConfig(verifier_image_pixels=0).verifier_image_pixels == 0
    with pytest.raises(ValueError):
        factory.CelilAgentConfig(planner_image_pixels=-1)


def test_a_tiny_history_cap_still_sends_a_readable_image():
    generator, wrapper = _generator(*WAITS[:2], history_images=2, history_image_pixels=1)
    for _ in range(2):
        generator.generate_action("Wait for it", _observation(), "")
    _, images = wrapper.calls[-1]
    assert images[0].shape[0] * images[0].shape[1] >= uitars.MIN_PIXELS * 0.8
    assert isinstance(images[0], np.ndarray)
