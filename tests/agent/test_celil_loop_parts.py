"""The Conductor loop's parts (issue 28): the loop probes no role, a role that leaves out an
optional capability gets the loop's old fallback, the step record keeps the step data's keys,
and the loop stays on one screen."""

from __future__ import annotations

import ast
import inspect

from android_world.agents.custom import celil_protocols
from android_world.agents.custom.celil_protocols import (
    NO_CHECKER,
    ActionGenerator,
    Evidence,
    Perceiver,
    Planner,
    ProposedAction,
    ScreenChecker,
    Verifier,
)
from android_world.agents.custom.loop import (
    celil_agent,
    celil_episode_end,
    celil_gate,
    celil_observation,
    celil_planning,
    celil_progress,
    celil_proposals,
)
from android_world.agents.custom.loop.celil_step_data import ExecutionRecord, StepData

LOOP_MODULES = (
    celil_agent,
    celil_episode_end,
    celil_gate,
    celil_observation,
    celil_planning,
    celil_progress,
    celil_proposals,
)
ROLE_ATTRIBUTES = {
    "_perception",
    "_planner",
    "_executor",
    "_verifier",
    "verifier",
    "_vision",
    "_checker",
    "_screen_checker",
    "checker",
}


def _probes(source: str, name: str) -> list[str]:
    """getattr/hasattr calls whose object is a role attribute (`self._planner`, ...)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        if node.func.id not in ("getattr", "hasattr") or not node.args:
            continue
        target = node.args[0]
        if isinstance(target, ast.Attribute) and target.attr in ROLE_ATTRIBUTES:
            found.append(f"{name}:{node.lineno}")
    return found


def test_the_loop_probes_no_role():
    probes = [p for m in LOOP_MODULES for p in _probes(inspect.getsource(m), m.__name__)]
    assert probes == []


def test_the_probe_finder_finds_a_probe():
    source = "def f(self):\n    return hasattr(self._planner, 'reads_screen')\n"
    assert _probes(source, "example") == ["example:2"]


class _BarePlanner(Planner):
    def __init__(self, done: bool) -> None:
        self.done = done

    def generate_initial_plan(self, goal, observation, retrieved_plan):
        raise NotImplementedError

    def generate_corrective_plan(self, failure_context):
        raise NotImplementedError

    def is_sub_goal_done(self, goal, sub_goal, observation, context_summary):
        return self.done

    def answer_question(self, goal, observation, context_summary):
        return None


def test_a_role_without_an_optional_capability_gets_the_old_fallback():
    # A bare "done" from is_sub_goal_done is a model's say-so with no evidence text.
    assert _BarePlanner(True).check_sub_goal("g", "s", None, "") == Evidence(True, "", "model")
    assert _BarePlanner(False).check_sub_goal("g", "s", None, "") == Evidence(False, "", "model")
    assert _BarePlanner(True).reads_screen is False
    assert _BarePlanner(True).take_unusable() == []

    class BareVerifier(Verifier):
        def verify_action(self, sub_goal, proposed_action, observation, context_summary):
            return 9.0, []

    verifier = BareVerifier()
    assert verifier.vote_unneeded("g", "s", ProposedAction(None), None, cautious=True) is None
    assert verifier.verification_details() is None and verifier.take_unusable() == []

    class BareExecutor(ActionGenerator):
        def generate_action(self, sub_goal, observation, context_summary):
            return ProposedAction(None)

    assert BareExecutor().reset() is None and BareExecutor().discard_last_turn() is None

    class BareChecker(ScreenChecker):
        def check_sub_goal(self, goal, sub_goal, observation, context_summary):
            return Evidence(False)

    checker = BareChecker()
    assert checker.check_goal("g", [], None) is NO_CHECKER
    assert checker.covers_goal("g", "g") is False
    assert checker.values_missing("s", None, ["x"]) == []
    assert checker.control_shown("s", None) is None

    class BarePerception(Perceiver):
        def process_observation(self, state, foreground_activity=None):
            raise NotImplementedError

    assert BarePerception().ocr_seconds() == 0.0 and BarePerception().take_warnings() == []


def test_every_role_class_subclasses_its_protocol():
    from android_world.agents.custom.offline_roles import offline
    from android_world.agents.custom.roles import (
        celil_maestro,
        celil_perception,
        celil_quality_control,
        celil_section_leader,
    )

    pairs = [
        (offline.OfflinePlanner, Planner),
        (offline.OfflinePlanner, ScreenChecker),
        (offline.OfflineActionGenerator, ActionGenerator),
        (offline.OfflineVerifier, Verifier),
        (offline.OfflineElementSelector, celil_protocols.ElementSelector),
        (celil_maestro.MaestroPlanner, Planner),
        (celil_maestro.VisionElementSelector, celil_protocols.ElementSelector),
        (celil_section_leader.UITarsActionGenerator, ActionGenerator),
        (celil_quality_control.VerifierEnsemble, Verifier),
        (celil_quality_control.NoVerification, Verifier),
        (celil_perception.PerceptionModule, Perceiver),
    ]
    assert [(c.__name__, p.__name__) for c, p in pairs if p not in c.__mro__] == []


def test_step_data_keeps_a_key_the_step_set_even_when_empty_or_zero():
    record = StepData("goal")
    record.vision_select = 0
    record.finalised(0, ["A"], [])
    record.execution = ExecutionRecord(True, None, 0.1)
    data = record.as_step_data()
    assert data["vision_select"] == 0
    assert data["done_sub_goals"] == [] and data["rehearsals_so_far"] == 0
    assert data["executed"] is True and data["execution_error"] is None
    # Collections the step never added to, and parts it never reached, are absent.
    for key in ("proposals", "evidence", "votes", "gate", "timings", "memory_hit", "frame_hash"):
        assert key not in data


def test_a_memory_hit_without_an_entry_id_is_still_a_hit():
    record = StepData("goal")
    record.memory_hit = True
    assert record.as_step_data()["memory_hit"] is None


def test_the_loop_is_on_one_screen():
    """CelilAgent stays within 400 lines and no function of the loop's modules over 60."""
    source = inspect.getsource(celil_agent.CelilAgent)
    assert len(source.splitlines()) <= 400
    long = []
    for module in LOOP_MODULES:
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if isinstance(node, ast.FunctionDef) and node.end_lineno - node.lineno + 1 > 60:
                long.append(f"{module.__name__}.{node.name}")
    assert long == []


def test_the_gate_tells_the_executor_once_per_sub_goal_between_replans():
    feedback = celil_gate.ExecutorFeedback(enabled=True)
    assert feedback.offer("Save", "rejected: wrong button")
    assert not feedback.offer("Save", "rejected again")  # the second rejection costs a replan
    assert feedback.take() == "rejected: wrong button" and feedback.take() is None
    feedback.replanned()
    assert feedback.offer("Save", "after a replan, a new problem")
    assert not celil_gate.ExecutorFeedback(enabled=False).offer("Save", "never")
