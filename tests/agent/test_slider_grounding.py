"""A tap on a slider keeps its point: snapping it to the element would tap the slider's centre.

On the simulated phone's brightness slider, a UI-TARS tap at the slider's right end must set
maximum brightness through the executor's grounding, as the SystemBrightnessMax check requires.
"""

from __future__ import annotations

import numpy as np

from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.dialects import uitars
from android_world.agents.custom.model_clients.call_types import CallResult, ModelRequest
from android_world.agents.custom.roles import celil_section_leader as sl
from android_world.env.sim.sim_env import SimEnv
from android_world.harness import suite_utils
from android_world.task_evals.registry import TaskRegistry


class OneAnswer:
    def __init__(self, answer: str):
        self.answer = answer

    def call(self, request: ModelRequest) -> CallResult:
        del request
        return CallResult.answered(self.answer, True, {"raw": True})


def _to_slider_screen(env: SimEnv, task) -> int:
    """Replay the task's reference solution until a seek bar is on screen; its element index."""
    for action in task.oracle_actions(env):
        state = env.get_state()
        for index, element in enumerate(state.ui_elements):
            if sl.is_position_sensitive(element):
                return index
        env.execute_action(action)
    raise AssertionError("the reference solution never showed a seek bar")


def test_a_tap_at_the_sliders_end_sets_maximum_brightness():
    classes = TaskRegistry().get_registry("sim")
    suite = suite_utils.create_suite(classes, tasks=["SystemBrightnessMax"], seed=0)
    [task] = suite["SystemBrightnessMax"]
    env = SimEnv(seed=0, render=False)
    try:
        task.initialize_task(env)
        index = _to_slider_screen(env, task)
        state = env.get_state()
        box = state.ui_elements[index].bbox_pixels
        screen = (1080, 2400)
        _, sent_size = uitars.resize_for_model(np.zeros((2400, 1080, 3), dtype=np.uint8))
        # The slider's right end, in the pixels of the image the model was sent.
        x = (box.x_max - 2) * sent_size[0] / screen[0]
        y = (box.y_min + box.y_max) / 2 * sent_size[1] / screen[1]
        answer = f"Thought: drag to max\nAction: click(start_box='({x:.0f},{y:.0f})')"
        generator = sl.UITarsActionGenerator(OneAnswer(answer))
        observation = Observation(
            screenshot=np.asarray(state.pixels),
            ui_elements=list(state.ui_elements),
            ocr_lines=[],
            ocr_summary="",
            ui_tree_summary="",
            screen_size=screen,
            frame_hash="x",
        )
        proposal = generator.generate_action("Set brightness to max", observation, "")
        assert proposal.action.index is None and proposal.action.x is not None, proposal
        env.execute_action(proposal.action)
        assert task.is_successful(env) == 1.0
    finally:
        env.close()


def test_other_taps_still_snap_to_their_element():
    from android_world.env.representation_utils import UIElement

    assert not sl.is_position_sensitive(UIElement(class_name="android.widget.Switch"))
    assert sl.is_position_sensitive(UIElement(class_name="android.widget.SeekBar"))
    assert sl.is_position_sensitive(UIElement(resource_name="com.app:id/volume_slider"))
