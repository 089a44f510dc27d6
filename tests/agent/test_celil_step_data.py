"""What the run report reads from Celil: target boxes, OCR lines and per-role timing events,
plus the memory block of the episode summary and which plan is remembered."""

from __future__ import annotations

import time

import celil_fakes as fakes
from test_celil_agent import GOAL, PLAN, happy_script, make_agent, run

from android_world.agents.custom import celil_geometry
from android_world.agents.custom.celil_protocols import OcrLine, Plan, Verifier
from android_world.agents.custom.loop import celil_agent, celil_step_data
from android_world.agents.custom.offline_roles.offline import OfflinePlanner
from android_world.agents.custom.roles.celil_perception import PerceptionModule
from android_world.env import representation_utils
from android_world.reporting import report

BBox = representation_utils.BoundingBox


def test_index_actions_carry_the_target_box_and_events_time_each_role():
    events: list[dict] = []
    agent, _ = make_agent(executor=fakes.ScriptedExecutor(happy_script()), events=events)
    results = run(agent)
    first = results[0].data
    # click(0) on the home screen: "Contacts" at (0, 200, 0, 200) -> [x0, y0, x1, y1].
    assert first["action"]["index"] == 0
    assert first["target_box"] == [0.0, 0.0, 200.0, 200.0]
    assert set(first["timings"]) >= {"maestro", "section_leader", "verifiers"}
    timing = [e for e in events if e["type"] == "timing"]
    assert {e["role"] for e in timing} >= {"maestro", "section_leader", "verifiers"}
    for event in timing:
        assert event["duration_s"] >= 0 and event["wall_s"] >= event["duration_s"]
    # The Save that finished the goal ended the episode in its own step: the step keeps the
    # tap and its target, and records the claim beside it; episode_end stays the last event.
    last = results[-1].data
    assert last["action"]["index"] == 1 and "target_box" in last
    assert last["claim_action"] == {"action_type": "status", "goal_status": "complete"}
    assert events[-1]["type"] == "episode_end"


def test_report_counts_timing_events_by_role():
    events: list[dict] = []
    agent, _ = make_agent(executor=fakes.ScriptedExecutor(happy_script()), events=events)
    run(agent)
    seconds = report.role_seconds(events)
    expected = sum(e["duration_s"] for e in events if e.get("role") == "verifiers")
    assert expected > 0 and abs(seconds["verifiers"] - expected) < 1e-9


class SlowModelVerifier(Verifier):
    """Reports a 50 ms model call to the ledger listener from inside verify_action."""

    def __init__(self) -> None:
        self.listener = None

    def verify_action(self, *args):
        time.sleep(0.05)
        self.listener({"type": "model_call", "role": "verifiers", "latency_s": 0.05})
        return 9.0, []


class ListenerLedger:
    def __init__(self, verifier: SlowModelVerifier) -> None:
        self.verifier = verifier

    def add_listener(self, listener) -> None:
        self.verifier.listener = listener


def test_timing_excludes_model_latency_already_in_model_call_events():
    verifier = SlowModelVerifier()
    events: list[dict] = []
    agent, _ = make_agent(
        executor=fakes.ScriptedExecutor([fakes.click(0)]),
        verifier=verifier,
        ledger=ListenerLedger(verifier),
        events=events,
    )
    agent.step(GOAL)
    (timing,) = [e for e in events if e["type"] == "timing" and e["role"] == "verifiers"]
    assert timing["model_s"] == 0.05
    assert timing["wall_s"] >= 0.05 and timing["duration_s"] < 0.05
    # The report adds model latency and timing duration: about the wall time, not twice it.
    total = report.role_seconds(events)["verifiers"]
    assert abs(total - timing["wall_s"]) < 0.01


def test_ocr_lines_and_ocr_time_reach_step_data_and_events():
    lines = [OcrLine(f"line {i}", BBox(0, 100, i * 10, i * 10 + 8), 91.0) for i in range(120)]

    def slow_ocr(pixels):
        time.sleep(0.01)
        return lines

    events: list[dict] = []
    agent = celil_agent.CelilAgent(
        fakes.FakePhone(render=True),
        PerceptionModule(ocr="always", ocr_fn=slow_ocr),
        fakes.ScriptedPlanner(initial=[Plan(list(PLAN))]),
        fakes.ScriptedExecutor([fakes.click(0)]),
        fakes.ScriptedVerifier(),
        screen_checker=OfflinePlanner(),
        transition_pause=0.0,
        progress_check="off",
    )
    agent.set_event_sink(events.append)
    data = agent.step(GOAL).data
    assert len(data["ocr_lines"]) == celil_step_data.MAX_OCR_LINES_IN_STEP
    assert data["ocr_lines"][1] == {
        "text": "line 1",
        "box": [0.0, 10.0, 100.0, 18.0],
        "confidence": 91.0,
    }
    ocr = [e for e in events if e["type"] == "timing" and e["role"] == "ocr"]
    assert ocr and ocr[0]["duration_s"] >= 0.01
    assert report.ocr_boxes(data, [])[0]["box"] == [0.0, 0.0, 100.0, 8.0]


def test_no_ocr_lines_in_step_data_when_ocr_is_off():
    agent, _ = make_agent(executor=fakes.ScriptedExecutor([fakes.click(0)]))
    data = agent.step(GOAL).data
    assert "ocr_lines" not in data


def test_ocr_cache_hit_costs_no_ocr_time():
    perception = PerceptionModule(ocr="always", ocr_fn=lambda pixels: [])
    state = fakes.FakePhone(render=True).get_state()
    perception.process_observation(state)
    assert perception.last_ocr_seconds > 0
    perception.process_observation(state)
    assert perception.last_ocr_seconds == 0.0


def test_summary_memory_block_and_recovery_steps_are_not_remembered():
    memory = fakes.FakeEpisodicMemory(
        hit=fakes.FakeRetrievedPlan("e1", "Add a contact named {name_1}", list(PLAN), 0.93, 1.0)
    )
    recovery = Plan(["Go back (attempt 1)", *PLAN[1:]], recovery_sub_goals=["Go back (attempt 1)"])
    planner = fakes.ScriptedPlanner(initial=[Plan(list(PLAN))], corrective=[recovery])
    script = [fakes.click(0), fakes.finished(), fakes.unusable(), fakes.unusable()]
    script += [fakes.finished(), *happy_script()[2:]]
    agent, _ = make_agent(
        planner=planner, executor=fakes.ScriptedExecutor(script), episodic_memory=memory
    )
    assert run(agent)[-1].done
    assert "Go back (attempt 1)" in agent.working_memory.get_plan()
    summary = agent.episode_summary()["memory"]
    assert summary == {
        "hit": True,
        "entry_id": "e1",
        "similarity": 0.93,
        "stored": False,
        "stored_entry_id": None,
    }
    agent.episode_finished(GOAL, 1.0)
    assert memory.added[0][1] == PLAN  # the recovery step is left out
    assert agent.episode_summary()["memory"]["stored"] is True


def test_one_snapping_rule_taps_and_scrolls():
    row = fakes.element("Wi-Fi", box=(0, 1080, 100, 200))
    listing = representation_utils.UIElement(
        bbox_pixels=BBox(0, 1080, 0, 2000), is_scrollable=True, is_visible=True
    )
    disabled = representation_utils.UIElement(
        bbox_pixels=BBox(0, 50, 100, 150), is_clickable=True, is_enabled=False
    )
    elements = [listing, row, disabled]
    assert celil_geometry.snap_to_element(20, 120, elements) == 1  # not the disabled one
    assert celil_geometry.snap_to_element(500, 1500, elements) is None  # taps skip scroll-only
    assert celil_geometry.snap_to_element(500, 1500, elements, gesture="scroll") == 0


def test_tesseract_defaults_are_the_measured_best(monkeypatch):
    """psm 3 on the RGB frame, one OpenMP thread (see celil_perception's measurement note)."""
    import numpy as np
    import pytest

    pytesseract = pytest.importorskip("pytesseract")
    from android_world.agents.custom.roles import celil_perception

    monkeypatch.setattr(celil_perception.shutil, "which", lambda name: "/usr/bin/tesseract")
    seen: dict = {}

    def fake_image_to_data(image, lang, config, output_type, timeout):
        seen.update(mode=image.mode, config=config)
        return {
            "text": ["Save"],
            "conf": ["95"],
            "left": [1],
            "top": [2],
            "width": [30],
            "height": [10],
            "block_num": [1],
            "par_num": [1],
            "line_num": [1],
        }

    monkeypatch.setattr(pytesseract, "image_to_data", fake_image_to_data)
    ocr = celil_perception.TesseractOcr()
    lines = ocr(np.zeros((20, 40, 3), dtype=np.uint8))
    assert seen == {"mode": "RGB", "config": "--psm 3"} and lines[0].text == "Save"
    assert celil_perception.os.environ.get("OMP_THREAD_LIMIT") is not None
    celil_perception.TesseractOcr(grayscale=True, config="--psm 11")(
        np.zeros((20, 40, 3), np.uint8)
    )
    assert seen == {"mode": "L", "config": "--psm 11"}
