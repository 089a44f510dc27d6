"""CelilAgent: the Conductor loop of DESIGN §3.

The agent builds nothing: it receives a perception module, a planner, an action generator and a
verifier (any objects meeting `celil_protocols`), plus optional episodic memory and vision
selector, so LLM-backed and offline roles are interchangeable and every role can be scripted in a
test. Each `step(goal)` observes, plans if needed, advances finished sub-goals for free, asks the
executor for one action, lets the verifiers gate it, executes it, checks that it did something,
and replans ("rehearses") when any of that fails. Every decision is an event for feedback.jsonl.

Nothing a model or the device does may crash an episode: errors become recorded failures, and a
bounded number of rehearsals ends a hopeless episode with `status infeasible` instead of looping.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import re
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from android_world.agents import base_agent
from android_world.agents.custom import (
    celil_evidence,
    celil_geometry,
    celil_perception,
    celil_plan_answers,
)
from android_world.agents.custom.celil_completion import GoalTracker
from android_world.agents.custom.celil_episodic import abstract_goal
from android_world.agents.custom.celil_irreversible import IrreversibleGuard
from android_world.agents.custom.celil_maestro import is_question
from android_world.agents.custom.celil_memory import (
    StepRecord,
    WorkingMemory,
    normalize_sub_goal,
)
from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNMET,
    ActionGenerator,
    ElementSelector,
    Evidence,
    FailureContext,
    GoalVerdict,
    Observation,
    Plan,
    Planner,
    ProposedAction,
    Verifier,
    Vote,
)
from android_world.agents.custom.celil_quality_control import (
    action_target_element,
    describe_action,
    gate_verdict,
    irreversible_reason,
)
from android_world.env import interface, json_action

# A sub-goal that is itself a reading ("Read today's date on the Clock", "Note the total"): what
# the executor read off the screen is its result, also when the goal is a task, not a question.
_READING_STEP = re.compile(r"^\s*(?:read|note(?:\s+down)?|look\s+up|write\s+down)\b", re.I)


def _is_reading_step(sub_goal: str) -> bool:
    return bool(_READING_STEP.match(sub_goal or ""))


EventSink = Callable[[dict[str, Any]], None]

# After something went wrong, this many proposals are voted on as if no step were cheap.
CAUTIOUS_PROPOSALS = 2
# Actions spent on a step that names a control ("Tap the 'Save' button") which no screen has
# shown, before the planner is asked for another route instead of retrying until the budget.
MISSING_CONTROL_ACTIONS = 3
# Plan sources a screen-reading (offline) planner wrote from the goal itself, or a verified
# success stored in episodic memory.
OWN_PLANS = ("offline", "memory")

_TAP_TYPES = (json_action.CLICK, json_action.LONG_PRESS, json_action.DOUBLE_TAP)
_SNAPPABLE = (*_TAP_TYPES, json_action.INPUT_TEXT)
# Actions whose success does not show as a screen change.
_NO_CHANGE_EXPECTED = (json_action.WAIT, json_action.STATUS, json_action.ANSWER)
PROGRESS_CHECK_MODES = ("screen", "after_action", "always", "off")
# Role names as the usage ledger and the report use them (model time is already in model_call
# events, so a role's `timing` event carries only the time it spent outside model calls).
TIMED_ROLES = ("ocr", "maestro", "section_leader", "verifiers", "vision_fallback")
MAX_OCR_LINES_IN_STEP = 80
# Texts of earlier screens kept to ground a reading answer ("Trivia Night" seen two scrolls ago).
MAX_SEEN_TEXTS = 4000


class EpisodicStore(Protocol):
    """The three calls the agent makes on `celil_episodic.EpisodicMemory`."""

    def find_similar_task(self, goal: str, app_names: Any = ()) -> Any: ...

    def add_successful_plan(
        self, goal: str, plan: list[str], app_names: Any = (), provenance: Any = None
    ) -> str: ...

    def record_outcome(self, entry_id: str, success: bool) -> None: ...


# --------------------------------------------------------------------------------------------
# Pure helpers


def _role_order(role: str) -> tuple[int, str]:
    return (TIMED_ROLES.index(role) if role in TIMED_ROLES else len(TIMED_ROLES), role)


def screen_key(observation: Observation) -> str:
    """Identity of a screen for "did anything change": the UI tree when there is one.

    Pixels alone are wrong both ways: a blank test frame never changes, and a real device's
    clock or cursor blink always does; the tree is what actions change.
    """
    if observation.ui_elements:
        activity = observation.foreground_activity or ""
        return f"{activity}:{celil_perception.ui_digest(observation.ui_elements)}"
    return observation.frame_hash


def action_key(action: json_action.JSONAction | None) -> str:
    return action.json_str() if action is not None else ""


def _normalise_text(text: str | None) -> str:
    return " ".join((text or "").casefold().split())


def text_landed(
    action: json_action.JSONAction, before: Observation, after: Observation
) -> tuple[bool, str]:
    """Post-check for `input_text`: does the new screen show the typed text?

    Typing presses Enter, which may submit and leave the screen (search, send), so a change of
    foreground activity also counts; a text shown in any element or OCR line counts as landed.
    """
    needle = _normalise_text(action.text)[:40]
    if not needle:
        return True, "nothing to type"
    for element in after.ui_elements:
        if needle in _normalise_text(element.text) or needle in _normalise_text(
            element.content_description
        ):
            return True, "typed text is on screen"
    for line in after.ocr_lines:
        if needle in _normalise_text(line.text):
            return True, "typed text is on screen (OCR)"
    if (
        before.foreground_activity
        and after.foreground_activity
        and before.foreground_activity != after.foreground_activity
    ):
        return True, "the text was submitted and the app moved on"
    return False, f"typed text {action.text!r} does not appear on the screen"


# A tap on these may leave the screen as it is when it works: saving in place.
_SAVE_WORDS = frozenset({"save", "done", "apply", "update"})


def unchanged_is_expected(action: json_action.JSONAction, before: Observation) -> str | None:
    """Why an unchanged screen is the right result of this action, or None when it is a failure.

    Scrolling at a list's end, opening the app already in front, picking the value already
    selected and saving a note in place change nothing visible; a repeat of any of them is still
    caught by loop detection.
    """
    kind = action.action_type
    if kind in (json_action.SCROLL, json_action.SWIPE):
        return "nothing more to scroll that way (the list is at its end)"
    if kind == json_action.OPEN_APP:
        app = (action.app_name or "").casefold().replace(" ", "")
        front = (before.foreground_activity or "").casefold().replace(" ", "")
        if app and app in front:
            return f"{action.app_name} was already open"
        return None
    if kind not in _TAP_TYPES:
        return None
    element = action_target_element(action, before)
    if element is None:
        return None
    if celil_geometry.is_position_sensitive(element):
        return "the slider was already at the point tapped"
    if element.is_selected and not element.is_checkable:
        return "the value tapped was already the selected one"
    label = celil_geometry.element_label(element).casefold()
    if label in _SAVE_WORDS:
        return f"{label!r} keeps the screen as it is when it saves in place"
    return None


def detect_loop(history: list[tuple[str, str, str]], repeat_limit: int) -> str | None:
    """`repeat` when the last `repeat_limit` actions are identical and changed nothing;
    `oscillation` for A-B-A-B where the screens alternate too. History: (action, before, after).

    Identical actions that do change the screen (paging through a list) are not a loop.
    """
    if repeat_limit >= 2 and len(history) >= repeat_limit:
        tail = history[-repeat_limit:]
        if len({a for a, _, _ in tail}) == 1 and all(b == c for _, b, c in tail):
            return "repeat"
    if len(history) >= 4:
        (a1, _, s1), (b1, _, s2), (a2, _, s3), (b2, _, s4) = history[-4:]
        if a1 == a2 and b1 == b2 and a1 != b1 and s1 == s3 and s2 == s4:
            return "oscillation"
    return None


def screen_notes(observation: Observation, max_chars: int = 600) -> str:
    """A compact text of a screen for the scratchpad (labels, then OCR lines)."""
    labels = [celil_geometry.element_label(e) for e in observation.ui_elements]
    text = " | ".join(label for label in labels if label)
    if observation.ocr_lines:
        text += " || " + " | ".join(line.text for line in observation.ocr_lines)
    header = observation.foreground_activity or "screen"
    return f"[{header}] {text}"[:max_chars]


def ocr_lines_data(observation: Observation, limit: int = MAX_OCR_LINES_IN_STEP) -> list[dict]:
    """The OCR lines the roles saw, for the report's toggleable boxes (bounded per step)."""
    return [
        {
            "text": line.text,
            "box": celil_geometry.box_list(line.box),
            "confidence": float(line.confidence),
        }
        for line in observation.ocr_lines[:limit]
    ]


def target_box(action: json_action.JSONAction, observation: Observation) -> list[float] | None:
    """`[x0, y0, x1, y1]` of the element an index-based action targets, for the report overlay."""
    index = action.index
    if not isinstance(index, int) or not 0 <= index < len(observation.ui_elements):
        return None
    element = observation.ui_elements[index]
    return celil_geometry.box_list(celil_geometry.element_box(element, observation.screen_size))


def is_device_failure(error: BaseException) -> bool:
    """A device that cannot be observed or driven (adb gone, screencap failing) fails the
    episode with its reason; the agent cannot fix it, and retrying would only burn the budget.

    Matched by class name because the plugin may not import the harness's `env.device`. Errors
    that are also ValueErrors (an untypeable character, a bad index) are the agent's own bad
    action, a recorded failure like any other.
    """
    names = {cls.__name__ for cls in type(error).__mro__}
    return "DeviceError" in names and "ValueError" not in names


def _vote_dict(vote: Vote) -> dict[str, Any]:
    return {
        "persona": vote.persona,
        # An unreadable vote is absent: it has no score (it counts in none).
        "score": float(vote.score) if vote.parseable else None,
        "reasoning": vote.reasoning,
        "parseable": vote.parseable,
        "error": vote.error,
        **({"notes": list(vote.notes)} if getattr(vote, "notes", ()) else {}),
    }


def _proposal_dict(proposal: ProposedAction) -> dict[str, Any]:
    return {
        "action": proposal.action.as_dict() if proposal.action is not None else None,
        "thought": proposal.thought[:1000],
        "raw_output": proposal.raw_output[:2000],
        "sub_goal_finished": proposal.sub_goal_finished,
        "finished_content": proposal.finished_content,
        "error": proposal.error,
        "is_safe": proposal.is_safe,
        **({"dropped_actions": list(proposal.dropped_actions)} if proposal.dropped_actions else {}),
        **({"notes": list(proposal.notes)} if getattr(proposal, "notes", ()) else {}),
    }


@dataclasses.dataclass
class _EpisodeStats:
    proposals: int = 0
    unusable_proposals: int = 0
    passed: int = 0
    rejected: int = 0
    unverified: int = 0  # gate decisions taken without a readable vote
    irreversible: int = 0
    scores: list[float] = dataclasses.field(default_factory=list)
    executed: int = 0
    execution_errors: int = 0
    post_check_failures: int = 0
    rehearsals: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    vision_selects: int = 0
    sub_goals_advanced: int = 0
    evidence_rejected: int = 0
    unconfirmed_finishes: int = 0
    unusable_answers: int = 0
    warnings: int = 0
    goal_unmet: int = 0  # times the plan was done but the screens did not show the goal


# --------------------------------------------------------------------------------------------


class CelilAgent(base_agent.EnvironmentInteractingAgent):
    """The Conductor. See the module docstring; parts arrive through the constructor."""

    def __init__(
        self,
        env: interface.AsyncEnv,
        perception: Any,
        planner: Planner,
        action_generator: ActionGenerator,
        verifier: Verifier,
        *,
        episodic_memory: EpisodicStore | None = None,
        vision_selector: ElementSelector | None = None,
        ledger: Any = None,
        name: str = "celil_agent",
        threshold: float = 7.0,
        irreversible_threshold: float = 8.5,
        rejection_retries: bool = True,
        max_rehearsals: int = 6,
        loop_repeat_limit: int = 3,
        history_steps: int = 3,
        max_sub_goal_advances: int = 3,
        proposals_before_vision: int = 2,
        progress_check: str = "screen",
        require_evidence: bool = True,
        screen_checker: Any = None,
        snap_coordinates: bool = True,
        app_names: tuple[str, ...] = (),
        provenance: dict[str, Any] | None = None,
        transition_pause: float | None = 1.0,
        memory_reuse_similarity: float | None = 0.95,
        memory_reuse_success_rate: float = 0.8,
    ):
        super().__init__(env, name=name, transition_pause=transition_pause)
        if progress_check not in PROGRESS_CHECK_MODES:
            raise ValueError(
                f"progress_check must be one of {PROGRESS_CHECK_MODES}, got {progress_check!r}"
            )
        self._perception = perception
        self._planner = planner
        self._executor = action_generator
        self._verifier = verifier
        self._episodic = episodic_memory
        self._vision = vision_selector
        self._ledger = ledger
        self.threshold = float(threshold)
        self.irreversible_threshold = max(float(irreversible_threshold), self.threshold)
        self.rejection_retries = bool(rejection_retries)
        self.max_rehearsals = max(0, int(max_rehearsals))
        self.loop_repeat_limit = int(loop_repeat_limit)
        self.history_steps = max(0, int(history_steps))
        self.max_sub_goal_advances = max(1, int(max_sub_goal_advances))
        self.proposals_before_vision = max(1, int(proposals_before_vision))
        self.progress_check = progress_check
        # `screen` mode: reads a sub-goal's progress off the screen without a model call.
        self._screen_checker = screen_checker
        self.require_evidence = bool(require_evidence)
        self.snap_coordinates = snap_coordinates
        self.app_names = tuple(app_names)
        self.provenance = dict(provenance or {})
        self.memory_reuse_similarity = memory_reuse_similarity
        self.memory_reuse_success_rate = float(memory_reuse_success_rate)
        self.manifest_info: dict[str, Any] = {}
        self._sink: EventSink | None = None
        self._sink_lock = threading.Lock()
        self.sink_errors = 0
        self._model_seconds = 0.0  # all model latency seen by the ledger listener
        self._model_lock = threading.Lock()
        if ledger is not None and hasattr(ledger, "add_listener"):
            ledger.add_listener(self._on_model_call)
        self._clear_episode()

    # --- episode state -------------------------------------------------------------------

    def _clear_episode(self) -> None:
        self._goal: str | None = None
        self._memory: WorkingMemory | None = None
        self._step_number = 0
        self._cached_observation: Observation | None = None
        self._retrieved: Any = None
        self._plan_source = ""
        self._rehearsal_count = 0
        self._loop_history: list[tuple[str, str, str]] = []
        self._actions_on_sub_goal = 0
        self._current_sub_goal: str | None = None
        self._finished_status: str | None = None
        self._answer: str | None = None
        self._stats = _EpisodeStats()
        self._troubles_seen = 0
        self._cautious_left = 0
        self._memory_stored: str | None = None
        self._recovery: set[str] = set()
        self._step_wall: dict[str, float] = {}
        self._step_model: dict[str, float] = {}
        # normalised sub-goal -> the evidence that marked it done (what the report shows).
        self._evidence: dict[str, dict[str, Any]] = {}
        self._seen_texts: set[str] = set()
        self._infeasible_reason: str | None = None
        self._goals = GoalTracker()
        self._sub_goal_actions: collections.Counter[str] = collections.Counter()
        self._controls_seen: set[str] = set()
        self._controls_replanned: set[str] = set()
        # A rejected proposal goes back to the executor with the verifiers' reasons; a second
        # rejection in a row on the same sub-goal costs a rehearsal (a replan).
        self._rejection_feedback: str | None = None
        self._feedback_given: set[str] = set()
        self._irreversible = IrreversibleGuard()
        if hasattr(self, "_planner"):
            self._take_unusable()  # a previous episode's leftovers are not this one's

    def reset(self, go_home: bool = False) -> None:
        super().reset(go_home)
        self._clear_episode()
        if hasattr(self._executor, "reset"):
            self._executor.reset()
        if self._ledger is not None and hasattr(self._ledger, "reset_episode"):
            self._ledger.reset_episode()

    @property
    def working_memory(self) -> WorkingMemory | None:
        return self._memory

    def run_manifest(self) -> dict[str, Any]:
        """What the runner records in manifest.json (resolved roles, config); set by the factory."""
        return dict(self.manifest_info)

    # --- events ----------------------------------------------------------------------------

    def set_event_sink(self, sink: EventSink | None) -> None:
        self._sink = sink

    def _emit(self, event_type: str, **fields: Any) -> None:
        sink = self._sink
        if sink is None:
            return
        event = {"type": event_type, "step": self._step_number, **fields}
        try:
            with self._sink_lock:
                sink(event)
        except Exception:
            self.sink_errors += 1

    def _warn(self, message: str, data: dict[str, Any] | None = None) -> None:
        self._stats.warnings += 1
        if data is not None:
            data.setdefault("warnings", []).append(message)
        self._emit("warning", message=message)

    @contextlib.contextmanager
    def _timed(self, role: str) -> Iterator[None]:
        """Add the block's wall time (and the model time inside it) to this step's `role`."""
        start = time.perf_counter()
        with self._model_lock:
            model_before = self._model_seconds
        try:
            yield
        finally:
            wall = time.perf_counter() - start
            with self._model_lock:
                model = self._model_seconds - model_before
            self._step_wall[role] = self._step_wall.get(role, 0.0) + wall
            self._step_model[role] = self._step_model.get(role, 0.0) + model

    def _add_timing(self, role: str, seconds: float) -> None:
        self._step_wall[role] = self._step_wall.get(role, 0.0) + seconds

    def _emit_timings(self, data: dict[str, Any]) -> None:
        """One `timing` event per role that worked this step; the report sums `duration_s`.

        `duration_s` excludes model latency, which the ledger's model_call events already
        report under the same role, so nothing is counted twice; `wall_s` is the whole time.
        """
        timings: dict[str, float] = {}
        for role in sorted(self._step_wall, key=_role_order):
            wall = self._step_wall[role]
            model = min(self._step_model.get(role, 0.0), wall)
            own = max(0.0, wall - model)
            timings[role] = round(wall, 6)
            self._emit(
                "timing",
                role=role,
                duration_s=round(own, 6),
                wall_s=round(wall, 6),
                model_s=round(model, 6),
            )
        if timings:
            data["timings"] = timings
        self._step_wall = {}
        self._step_model = {}

    def _on_model_call(self, record: Any) -> None:
        latency = getattr(record, "latency_s", None)
        if latency is None and isinstance(record, dict):
            latency = record.get("latency_s")
        if isinstance(latency, int | float):
            with self._model_lock:  # verifier personas report from their own threads
                self._model_seconds += float(latency)
        if hasattr(record, "to_event"):
            event = dict(record.to_event())
        elif dataclasses.is_dataclass(record):
            event = {"type": "model_call", **dataclasses.asdict(record)}
        else:
            event = {"type": "model_call", **dict(record)}
        event_type = event.pop("type", "model_call")
        self._emit(event_type, **event)

    # --- observation -----------------------------------------------------------------------

    def _perceive(self, state: interface.State) -> Observation:
        try:
            activity = self._env.foreground_activity_name
        except Exception:
            activity = None
        observation = self._perception.process_observation(state, foreground_activity=activity)
        ocr_seconds = getattr(self._perception, "last_ocr_seconds", 0.0)
        if isinstance(ocr_seconds, int | float) and ocr_seconds > 0:
            self._add_timing("ocr", float(ocr_seconds))
        for warning in getattr(self._perception, "take_warnings", list)():
            self._warn(warning)
        if self._memory is not None:
            self._memory.note_screen(screen_key(observation), screen_notes(observation))
        if len(self._seen_texts) < MAX_SEEN_TEXTS:
            self._seen_texts.update(celil_evidence.screen_texts(observation))
        return observation

    def _observe(self) -> Observation:
        """The post-check already waited for the last action to settle and perceived the result;
        nothing acts between steps, so that observation is reused instead of pausing twice."""
        if self._cached_observation is not None:
            observation, self._cached_observation = self._cached_observation, None
            if self._memory is not None:
                self._memory.note_screen(screen_key(observation), screen_notes(observation))
            return observation
        return self._perceive(self.get_post_transition_state())

    # --- the step ----------------------------------------------------------------------------

    def step(self, goal: str) -> base_agent.AgentInteractionResult:
        if self._goal != goal or self._memory is None:
            self._clear_episode()
            self._goal = goal
            self._memory = WorkingMemory(goal)
        self._step_number += 1
        data: dict[str, Any] = {
            "goal": goal,
            "sub_goal": None,
            "action": None,
            "outcome": None,
            "warnings": [],
        }
        if self._finished_status is not None:
            data["outcome"] = "already_finished"
            data["status"] = self._finished_status
            return base_agent.AgentInteractionResult(True, data)
        try:
            result = self._step(goal, data)
        except Exception as error:
            if is_device_failure(error):
                raise
            data["outcome"] = "internal_error"
            data["internal_error"] = f"{type(error).__name__}: {error}"
            data["traceback"] = traceback.format_exc(limit=6)
            self._warn(f"internal error in step: {type(error).__name__}: {error}", data)
            result = base_agent.AgentInteractionResult(False, data)
        self._finalise_data(data)
        return result

    def _take_unusable(self) -> list[dict[str, Any]]:
        """Answers the planner and verifiers received but did not use (prompt echoes)."""
        records: list[dict[str, Any]] = []
        for role in (self._planner, self._verifier):
            take = getattr(getattr(role, "unusable", None), "take", None)
            if callable(take):
                records.extend(take())
        return records

    def _finalise_data(self, data: dict[str, Any]) -> None:
        self._emit_timings(data)
        unusable = self._take_unusable()
        if unusable:
            data["unusable_answers"] = unusable
            self._stats.unusable_answers += len(unusable)
            for record in unusable:
                self._emit("unusable_answer", **record)
        memory = self._memory
        if memory is not None:
            data["plan"] = memory.get_plan()
            data["done_sub_goals"] = memory.done_sub_goals()
        data["rehearsals_so_far"] = self._rehearsal_count
        action = data.get("action")
        data["summary"] = (
            f"[{data.get('sub_goal') or '-'}] {data.get('action_description') or 'no action'}"
            f" -> {data.get('outcome')}"
        )
        if action is not None and not isinstance(action, dict):
            data["action"] = str(action)

    def _step(self, goal: str, data: dict[str, Any]) -> base_agent.AgentInteractionResult:
        memory = self._memory
        assert memory is not None
        observation = self._observe()
        data["frame_hash"] = observation.frame_hash
        data["activity"] = observation.foreground_activity
        if observation.ocr_lines:
            data["ocr_lines"] = ocr_lines_data(observation)

        if not memory.has_plan():
            not_understood = self._make_initial_plan(goal, observation, data)
            if not_understood:
                self._infeasible_reason = f"could not understand the goal: {not_understood}"[:300]
                return self._end("infeasible", data, observation, answer=None)

        proposal = self._choose_action(goal, observation, data)
        if isinstance(proposal, base_agent.AgentInteractionResult):
            return proposal
        if proposal is None:
            return base_agent.AgentInteractionResult(False, data)
        sub_goal = data["sub_goal"]
        action = proposal.action
        assert action is not None

        if self.snap_coordinates:
            action = self._snap(action, observation, data)
            proposal = dataclasses.replace(proposal, action=action)
        data["action"] = action.as_dict()
        data["action_description"] = describe_action(action, observation.ui_elements)
        box = target_box(action, observation)
        if box is not None:
            data["target_box"] = box

        # Verify and gate. An irreversible act is never waved through: its target must be one
        # the goal names (celil_irreversible, no model asked) and its score must reach the
        # irreversible threshold whatever the verifier mode (`verification: off` has no score).
        context = memory.get_context_summary(self.history_steps)
        irreversible = irreversible_reason(proposal, observation)
        target_rule = self._irreversible.review(goal, memory.get_plan(), proposal, observation)
        refused = target_rule is not None and not target_rule.allowed
        unneeded = (
            None if irreversible else self._vote_unneeded(goal, sub_goal, proposal, observation)
        )
        try:
            with self._timed("verifiers"):
                if refused:
                    score, votes = 0.0, []
                elif unneeded is not None:
                    score, votes = 10.0, []
                    data["vote_skipped"] = unneeded
                else:
                    score, votes = self._verifier.verify_action(
                        sub_goal, proposal, observation, context
                    )
        except Exception as error:
            score, votes = 0.0, []
            self._warn(f"verifier raised {type(error).__name__}: {error}", data)
        threshold = self.irreversible_threshold if irreversible else self.threshold
        details = getattr(self._verifier, "last_details", None)
        mode = getattr(details, "mode", None)
        if unneeded is not None:
            threshold = 0.0
        elif mode in ("adaptive", "off"):
            # These verifiers apply their own gate policy (off: nothing is gated).
            threshold = float(details.threshold)
        if irreversible and mode != "off":
            threshold = max(threshold, self.irreversible_threshold)
        # No readable vote: a reversible action runs unverified (said so), an irreversible one
        # never runs (celil_quality_control.gate_verdict). A refused target asked no one.
        asked = unneeded is None and not refused
        unverified = getattr(details, "unverified", None) if asked else None
        passed = gate_verdict(score, threshold, irreversible, unverified) and not refused
        if target_rule is not None:
            data["irreversible_target"] = target_rule.as_dict()
        data["votes"] = [_vote_dict(v) for v in votes]
        data["verifier_score"] = None if unverified else float(score)
        data["threshold"] = threshold
        data["irreversible"] = irreversible
        data["gate"] = "pass" if passed else "reject"
        if unverified:
            data["gate_unverified"] = unverified
            self._stats.unverified += 1
        for vote in votes:
            self._emit("vote", **_vote_dict(vote))
        self._emit(
            "gate",
            score=None if unverified else float(score),
            threshold=threshold,
            irreversible=irreversible,
            passed=passed,
            action=data["action"],
            **({"vote_skipped": unneeded} if unneeded is not None else {}),
            **({"irreversible_target": target_rule.as_dict()} if target_rule else {}),
            **({"unverified": unverified} if unverified else {}),
        )
        if not unverified:
            self._stats.scores.append(float(score))
        if irreversible:
            self._stats.irreversible += 1
        if not passed:
            self._stats.rejected += 1
            if hasattr(self._executor, "discard_last_turn"):
                self._executor.discard_last_turn()
            reasons = [
                f"{v.persona} ({v.score:.1f}): {v.reasoning or v.error or ''}" for v in votes
            ]
            reasons.insert(
                0,
                f"refused to {irreversible}: {target_rule.reason}"
                if refused and target_rule is not None
                else f"verifier score {score:.2f} below the {threshold:.1f} gate"
                + (f" (irreversible: {irreversible})" if irreversible else ""),
            )
            self._record(sub_goal, data["action_description"], "rejected", score, None)
            data["outcome"] = "rejected"
            if self.rejection_retries and sub_goal not in self._feedback_given:
                # Feedback, not a replan: the executor tries again knowing why.
                self._feedback_given.add(sub_goal)
                self._rejection_feedback = (
                    f"The verifiers rejected your last proposal ({data['action_description']}): "
                    + "; ".join(reasons)[:600]
                    + ". Propose a different action for the same sub-goal."
                )
                data["outcome"] = "rejected_retry"
                self._emit("rejection_feedback", sub_goal=sub_goal, reasons=reasons)
                return base_agent.AgentInteractionResult(False, data)
            return self._rehearse(
                "rejected", goal, sub_goal, data["action_description"], reasons, observation, data
            )
        self._stats.passed += 1
        self._irreversible.note_passed(proposal, observation)  # what is selected, what is open
        self._feedback_given.discard(sub_goal)  # the next rejection is a new problem

        # Execute.
        error_text = None
        started = time.perf_counter()
        try:
            self._env.execute_action(action)
        except Exception as error:
            if is_device_failure(error):
                raise
            error_text = f"{type(error).__name__}: {error}"
        device_s = round(time.perf_counter() - started, 6)
        self._stats.executed += 1
        data["executed"] = error_text is None
        data["execution_error"] = error_text
        data["device_s"] = device_s
        # Device time is not a `timing` event: the report measures it from gate to executed.
        self._emit(
            "executed",
            action=data["action"],
            ok=error_text is None,
            error=error_text,
            duration_s=device_s,
        )
        self._actions_on_sub_goal += 1
        self._sub_goal_actions[normalize_sub_goal(sub_goal)] += 1

        # Post-check on the settled screen (kept for the next step's observation).
        after = self._perceive(self.get_post_transition_state())
        self._cached_observation = after
        changed = screen_key(after) != screen_key(observation)
        ok, reason = self._post_check(action, observation, after, changed, error_text)
        data["screen_changed"] = changed
        data["post_check"] = {"ok": ok, "reason": reason}
        self._emit("post_check", ok=ok, screen_changed=changed, reason=reason)
        self._loop_history.append((action_key(action), screen_key(observation), screen_key(after)))
        del self._loop_history[:-8]
        self._goals.record(
            self._step_number, observation, action, ok=ok and error_text is None, changed=changed
        )
        outcome = "ok" if ok else "failed: " + reason
        if ok and not changed and error_text is None and action.action_type in _TAP_TYPES:
            # Not a failure, but not progress either: nothing reads it as a step that worked.
            outcome = f"the screen did not change, as expected ({reason})"
        self._record(sub_goal, data["action_description"], outcome, score, changed)

        if error_text is not None:
            self._stats.execution_errors += 1
            data["outcome"] = "execution_error"
            return self._rehearse(
                "execution_error",
                goal,
                sub_goal,
                data["action_description"],
                [f"the device refused the action: {error_text}"],
                after,
                data,
            )
        loop = detect_loop(self._loop_history, self.loop_repeat_limit)
        if loop is not None:
            self._loop_history.clear()
            data["outcome"] = f"loop ({loop})"
            why = (
                f"the same action ran {self.loop_repeat_limit} times without changing the screen"
                if loop == "repeat"
                else "the agent is alternating between two actions and two screens"
            )
            return self._rehearse(
                "loop", goal, sub_goal, data["action_description"], [why], after, data
            )
        if not ok:
            self._stats.post_check_failures += 1
            data["outcome"] = "post_check_failed"
            return self._rehearse(
                "post_check_failed",
                goal,
                sub_goal,
                data["action_description"],
                [reason],
                after,
                data,
            )
        data["outcome"] = "acted"
        # The action may have finished the goal: say so in this step, not one step later (a
        # step the budget may not have).
        finished = self._goal_shown_done(goal, after, data)
        if finished is not None:
            return finished
        return base_agent.AgentInteractionResult(False, data)

    def _vote_unneeded(
        self, goal: str, sub_goal: str, proposal: ProposedAction, observation: Observation
    ) -> str | None:
        """The verifier's own word on whether this proposal needs a vote (adaptive mode); once
        the episode has seen something go wrong, it is asked to be cautious."""
        ask = getattr(self._verifier, "vote_unneeded", None)
        if not callable(ask):
            return None
        try:
            return ask(goal, sub_goal, proposal, observation, cautious=self._cautious())
        except Exception:
            return None

    def _troubles(self) -> int:
        stats = self._stats
        return (
            stats.rejected
            + stats.execution_errors
            + stats.post_check_failures
            + stats.unconfirmed_finishes
            + sum(stats.rehearsals.values())
        )

    def _cautious(self) -> bool:
        """For the next `CAUTIOUS_PROPOSALS` proposals after a rejection, a failed or refused
        step, an unconfirmed finish or a replan: the executor just erred here, so its next moves
        on this screen are not the cheap bets unvoted steps assume. Spends one proposal."""
        troubles = self._troubles()
        if troubles > self._troubles_seen:
            self._troubles_seen = troubles
            self._cautious_left = CAUTIOUS_PROPOSALS
        if self._cautious_left <= 0:
            return False
        self._cautious_left -= 1
        return True

    # --- planning -----------------------------------------------------------------------------

    def _trusts(self, retrieved: Any, goal: str = "") -> bool:
        """Reuse a remembered plan as it is, without the planner, only when its goal template
        is near-identical and it has kept succeeding (`memory_reuse_similarity` None: never).

        Near-identical is not enough when the goal abstracts to another template: "this Sunday"
        and "October 22" differ by one word, yet only the first needs today's date read first,
        so such a goal goes to the planner (which still gets the remembered plan)."""
        if self.memory_reuse_similarity is None:
            return False
        template = getattr(retrieved, "goal_template", None)
        # The same task in other words (`celil_episodic_meaning`) is as good as the same template.
        same_meaning = getattr(retrieved, "same_meaning", False) is True
        if (
            goal
            and isinstance(template, str)
            and not same_meaning
            and abstract_goal(goal).template != template
        ):
            return False
        similarity = getattr(retrieved, "similarity", None)
        success_rate = getattr(retrieved, "success_rate", None)
        return (
            isinstance(similarity, (int, float))
            and isinstance(success_rate, (int, float))
            and similarity >= self.memory_reuse_similarity
            and success_rate >= self.memory_reuse_success_rate
        )

    def _make_initial_plan(
        self, goal: str, observation: Observation, data: dict[str, Any]
    ) -> str | None:
        """Plans the episode; returns why the planner could not understand the goal, if so."""
        memory = self._memory
        assert memory is not None
        retrieved = None
        if self._episodic is not None:
            try:
                retrieved = self._episodic.find_similar_task(goal, self.app_names)
            except Exception as error:
                self._warn(f"episodic memory lookup failed: {type(error).__name__}: {error}", data)
        if retrieved is not None and getattr(retrieved, "plan", None):
            self._retrieved = retrieved
            self._emit(
                "memory_hit",
                entry_id=getattr(retrieved, "entry_id", None),
                goal_template=getattr(retrieved, "goal_template", None),
                similarity=getattr(retrieved, "similarity", None),
                success_rate=getattr(retrieved, "success_rate", None),
                plan=list(retrieved.plan),
            )
            data["memory_hit"] = getattr(retrieved, "entry_id", None)
        retrieved_plan = list(retrieved.plan) if self._retrieved is not None else None
        if retrieved_plan and self._trusts(retrieved, goal):
            # A near-identical goal whose plan keeps succeeding: planning again would spend a
            # model call to rewrite the same sub-goals. Rehearsal still repairs it if it fails.
            plan = Plan(retrieved_plan, source="memory", rationale="reused from episodic memory")
        else:
            try:
                with self._timed("maestro"):
                    plan = self._planner.generate_initial_plan(goal, observation, retrieved_plan)
            except Exception as error:
                self._warn(f"planner raised {type(error).__name__}: {error}", data)
                plan = Plan(retrieved_plan or [goal], source="fallback")
        if not plan.sub_goals:
            self._warn("planner returned an empty plan; using the goal as the only sub-goal", data)
            plan = Plan([goal], source="fallback", rationale=plan.rationale)
        memory.set_plan(plan.sub_goals)
        self._plan_source = plan.source
        for warning in plan.warnings:
            self._warn(f"planner: {warning}", data)
        self._emit(
            "plan_created",
            sub_goals=memory.get_plan(),
            source=plan.source,
            rationale=plan.rationale,
            warnings=list(plan.warnings),
        )
        data["plan_created"] = memory.get_plan()
        return getattr(plan, "not_understood", None)

    def _rehearse(
        self,
        kind: str,
        goal: str,
        sub_goal: str | None,
        action_description: str,
        reasons: list[str],
        observation: Observation,
        data: dict[str, Any],
    ) -> base_agent.AgentInteractionResult:
        """Replan around a failure, or give up once the rehearsal budget is spent."""
        memory = self._memory
        assert memory is not None
        self._rehearsal_count += 1
        self._stats.rehearsals[kind] += 1
        self._feedback_given.clear()
        data["rehearsal"] = kind
        gave_up = self._rehearsal_count > self.max_rehearsals
        self._emit(
            "rehearsal",
            kind=kind,
            count=self._rehearsal_count,
            limit=self.max_rehearsals,
            reasons=reasons,
            gave_up=gave_up,
        )
        if gave_up:
            self._infeasible_reason = (
                f"unmet sub-goal {sub_goal!r}: {reasons[0] if reasons else kind}"
                if sub_goal
                else f"gave up after {kind}"
            )[:300]
            return self._end("infeasible", data, observation, answer=None)
        context = FailureContext(
            goal=goal,
            plan=memory.get_plan(),
            done_sub_goals=memory.done_sub_goals(),
            failed_sub_goal=sub_goal or "",
            action=action_description,
            reasons=reasons,
            observation=observation,
            kind=kind,
            history_summary=memory.history_summary(max(self.history_steps, 3)),
        )
        try:
            with self._timed("maestro"):
                plan = self._planner.generate_corrective_plan(context)
        except Exception as error:
            self._warn(f"corrective planner raised {type(error).__name__}: {error}", data)
            return base_agent.AgentInteractionResult(False, data)
        for warning in plan.warnings:
            self._warn(f"planner: {warning}", data)
        self._recovery.update(plan.recovery_sub_goals)
        if plan.sub_goals or kind == "missing_control":
            # A step naming a control the app does not have may leave nothing to do: the goal
            # check then decides whether the task is done.
            memory.revise_plan(plan.sub_goals)
            if sub_goal and kind != "missing_control" and not memory.remaining_sub_goals():
                # A repair that only repeats steps marked done would end the plan again at
                # once: the step that failed is open until the screens show it.
                memory.reopen(sub_goal)
                self._evidence.pop(normalize_sub_goal(sub_goal), None)
            self._actions_on_sub_goal = 0
            self._emit(
                "plan_revised",
                kind=kind,
                sub_goals=memory.get_plan(),
                new_sub_goals=list(plan.sub_goals),
                done_sub_goals=memory.done_sub_goals(),
                source=plan.source,
                rationale=plan.rationale,
                recovery_sub_goals=list(plan.recovery_sub_goals),
            )
            data["plan_revised"] = memory.get_plan()
        return base_agent.AgentInteractionResult(False, data)

    # --- choosing an action ----------------------------------------------------------------

    def _complete_sub_goal(
        self,
        sub_goal: str,
        by: str,
        data: dict[str, Any],
        content: str | None,
        evidence: dict[str, Any] | None = None,
    ) -> None:
        memory = self._memory
        assert memory is not None
        memory.mark_done(sub_goal)
        if content:
            memory.add_fact(f"{sub_goal}: {content}")
        self._stats.sub_goals_advanced += 1
        self._actions_on_sub_goal = 0
        record = {"sub_goal": sub_goal, "by": by, "step": self._step_number, **(evidence or {})}
        self._evidence[normalize_sub_goal(sub_goal)] = record
        data.setdefault("sub_goals_completed", []).append(sub_goal)
        self._emit("sub_goal_done", sub_goal=sub_goal, by=by, content=content, evidence=evidence)

    def _progress_check_due(self) -> bool:
        if self.progress_check == "off":
            return False
        if not (self._screen_reads_progress() or self._can_check()):
            return False
        if self.progress_check == "always":
            return True
        return self._actions_on_sub_goal > 0

    def _screen_reads_progress(self) -> bool:
        """`screen` mode with a model planner: the screen decides after each action, and the
        planner is asked only to confirm an executor's finish. A planner that reads the screen
        itself (the offline one) is its own screen check."""
        return self.progress_check == "screen" and not getattr(self._planner, "reads_screen", False)

    def _screen_check(self) -> Any:
        """The model-free reader of progress off the screen (the offline planner's checks)."""
        if self._screen_checker is None:
            from android_world.agents.custom import offline

            self._screen_checker = offline.OfflinePlanner()
        return self._screen_checker

    def _goal_worded(
        self, goal: str, sub_goal: str, observation: Observation, data: dict[str, Any]
    ) -> Evidence | None:
        """For the goal in other words ("Create a timer with ..." verbatim, restated, "Verify
        ..."): done exactly when the goal is, whatever steps went through for it; a question's
        is done by its answer, which the executor reads. None for any other sub-goal."""
        if not self.require_evidence or not self._goals.covers_goal(goal, sub_goal):
            return None
        if is_question(goal):
            return Evidence(False, "the answer is read off the screen by the executor")
        shown = self._goal_verdict(goal, observation, data)
        return Evidence(shown.done, shown.reason(), "screen" if shown.done else "none")

    def _screen_verdict(
        self, goal: str, sub_goal: str, observation: Observation, context: str, data: dict[str, Any]
    ) -> Evidence:
        try:
            verdict = self._screen_check().check_sub_goal(goal, sub_goal, observation, context)
        except Exception as error:
            self._warn(f"screen check raised {type(error).__name__}: {error}", data)
            return Evidence(False, f"screen check raised {type(error).__name__}")
        if not isinstance(verdict, Evidence) or verdict.kind == "model":
            return Evidence(False, "the screen check gave no screen evidence")
        return verdict

    def _reading(
        self, goal: str, sub_goal: str, content: str | None, observation: Observation
    ) -> Evidence | None:
        """For a question or a reading step ("Read today's date"), the executor's
        finished(content) as evidence when the screens seen this episode show it (or it is a
        number worked out from them); else None."""
        reads = is_question(goal) or _is_reading_step(sub_goal)
        if not reads or celil_evidence.is_placeholder(content):
            return None
        grounded = celil_evidence.content_grounded(content, observation, self._seen_texts)
        if not (grounded or celil_evidence.is_number(content)):
            return None
        how = "seen on screen" if grounded else "worked out from the screens seen"
        return Evidence(True, f"read {content!r} ({how})", "reading")

    def _goal_verdict(
        self, goal: str, observation: Observation, data: dict[str, Any]
    ) -> GoalVerdict:
        """The screens seen against every clause of the goal (model-free); recorded when it
        says something new."""
        self._goals.checker = self._screen_check()
        try:
            verdict = self._goals.verdict(goal, observation)
        except Exception as error:
            self._warn(f"goal check raised {type(error).__name__}: {error}", data)
            return GoalVerdict("unknown")
        if self._goals.changed(verdict):
            data["goal_check"] = verdict.as_dict()
            self._emit("goal_check", **verdict.as_dict())
        return verdict

    def _goal_shown_done(
        self, goal: str, observation: Observation, data: dict[str, Any]
    ) -> base_agent.AgentInteractionResult | None:
        """Completion follows the goal: once the screens show every clause of it done, the
        episode is complete, whatever plan steps remain (a "Tap 'Save'" in an app that saved
        on its own). Questions end with their answer, so they are not checked here."""
        if not self.require_evidence or is_question(goal) or not self._goals.trail:
            return None
        verdict = self._goal_verdict(goal, observation, data)
        if not verdict.done:
            return None
        memory = self._memory
        assert memory is not None
        skipped = memory.remaining_sub_goals()
        record = {
            "sub_goal": goal,
            "by": "goal_check",
            "step": self._step_number,
            "kind": "screen",
            "text": "; ".join(c.why for c in verdict.checks)[:300],
            "skipped_sub_goals": skipped,
        }
        self._evidence[normalize_sub_goal(goal)] = record
        data["completed_by"] = "goal_check"
        self._emit("goal_done", skipped_sub_goals=skipped, **verdict.as_dict())
        return self._end("complete", data, observation, answer=None)

    def _goal_not_shown(
        self, goal: str, observation: Observation, data: dict[str, Any]
    ) -> str | None:
        """Why the finished plan has not done the goal, or None when it has. `unknown` goes to a
        model planner, shown the screen, whose "done" counts only with evidence on it; the
        offline planner's plan is its own reading of the goal, so its evidence stands."""
        verdict = self._goal_verdict(goal, observation, data)
        if verdict.status == GOAL_DONE:
            return None
        if verdict.status == GOAL_UNMET:
            return verdict.reason()
        if self._goals.planner_confirmed or (
            getattr(self._planner, "reads_screen", False) and self._plan_source in OWN_PLANS
        ):
            # The offline planner's own plan is its reading of the goal, clause by clause, and
            # each step's evidence is on record; a plan worded by anyone else is not.
            return None
        if not self._can_check():
            return verdict.reason()
        memory = self._memory
        assert memory is not None
        context = memory.get_context_summary(self.history_steps)
        answer = self._check_progress(goal, goal, observation, context, data)
        if answer.done and self._judge(goal, "goal_check", answer, observation, data) is not None:
            self._goals.planner_confirmed = True
            return None
        return answer.text if not answer.done and answer.text else verdict.reason()

    def _goal_unmet(
        self, goal: str, reason: str, observation: Observation, data: dict[str, Any]
    ) -> base_agent.AgentInteractionResult:
        """Every plan step is done but the goal is not: an exhausted plan is no completion. The
        last step is reopened and the executor told what is missing; when that was tried
        already, the planner repairs the plan (bounded by the rehearsal budget, after which the
        episode ends `infeasible` with this reason)."""
        memory = self._memory
        assert memory is not None
        self._stats.goal_unmet += 1
        last = memory.get_plan()[-1] if memory.get_plan() else goal
        memory.reopen(last)
        self._evidence.pop(normalize_sub_goal(last), None)
        self._record(last, "(complete)", f"the task is not done: {reason}", None, None)
        self._emit("goal_unmet", sub_goal=last, reason=reason, count=self._stats.goal_unmet)
        data["outcome"] = "goal_unmet"
        data["sub_goal"] = last
        if self._stats.goal_unmet == 1 and self.rejection_retries:
            self._rejection_feedback = (
                f"The plan's steps are done but the task is not: {reason}"[:500]
                + ". Continue with what is still missing."
            )
            return base_agent.AgentInteractionResult(False, data)
        return self._rehearse(
            "goal_unmet",
            goal,
            last,
            "(complete)",
            [f"every step of the plan is done but the task is not: {reason}"],
            observation,
            data,
        )

    def _can_check(self) -> bool:
        return hasattr(self._planner, "check_sub_goal") or hasattr(
            self._planner, "is_sub_goal_done"
        )

    def _check_progress(
        self, goal: str, sub_goal: str, observation: Observation, context: str, data: dict[str, Any]
    ) -> Evidence:
        """The planner's verdict as `Evidence`; a bare boolean is a model's say-so with no text."""
        try:
            with self._timed("maestro"):
                if hasattr(self._planner, "check_sub_goal"):
                    verdict = self._planner.check_sub_goal(goal, sub_goal, observation, context)
                elif hasattr(self._planner, "is_sub_goal_done"):
                    done = self._planner.is_sub_goal_done(goal, sub_goal, observation, context)
                    verdict = Evidence(bool(done), "", "model")
                else:
                    verdict = Evidence(False, "the planner has no progress check")
        except Exception as error:
            self._warn(f"progress check raised {type(error).__name__}: {error}", data)
            verdict = Evidence(False, f"progress check raised {type(error).__name__}")
        if not isinstance(verdict, Evidence):
            verdict = Evidence(bool(verdict), "", "model")
        return verdict

    def _judge(
        self,
        sub_goal: str,
        by: str,
        verdict: Evidence,
        observation: Observation,
        data: dict[str, Any],
        asked: str | None = None,
    ) -> dict[str, Any] | None:
        """Accept or refuse a verdict against the screen; record it either way. `asked`: what
        the planner was asked about, when not the sub-goal (the whole goal).

        Returns the evidence record when the sub-goal counts as done.
        """
        if self.require_evidence:
            accepted, why = celil_evidence.accept(verdict, observation, self._seen_texts)
            if accepted and verdict.kind == "model":
                accepted, why = self._values_seen(asked or sub_goal, observation, why)
        else:
            accepted, why = verdict.done, verdict.text or "evidence not required"
        record = {**verdict.as_dict(), "accepted": accepted, "why": why}
        if verdict.done:
            data.setdefault("evidence", []).append({"sub_goal": sub_goal, "by": by, **record})
            self._emit("evidence", sub_goal=sub_goal, by=by, **record)
        if verdict.done and not accepted:
            self._stats.evidence_rejected += 1
        return record if accepted else None

    def _values_seen(self, sub_goal: str, observation: Observation, why: str) -> tuple[bool, str]:
        """A model's "done" also needs every value the sub-goal names (a name, a number, a
        text) shown on a screen of this episode: evidence for "Create a contact for Ann Lee"
        that never showed "Ann Lee" is about something else."""
        missing_fn = getattr(self._screen_check(), "values_missing", None)
        if not callable(missing_fn):
            return True, why
        missing = missing_fn(sub_goal, observation, sorted(self._seen_texts))
        if missing:
            return False, f"{missing[0]!r}, which the sub-goal names, was never on the screen"
        return True, why

    def _confirm_finish(
        self,
        goal: str,
        sub_goal: str,
        observation: Observation,
        context: str,
        proposal: ProposedAction,
        verdict: Evidence | None,
        data: dict[str, Any],
    ) -> tuple[dict[str, Any] | None, str]:
        """The executor says the sub-goal is finished: true only if the screen agrees.

        The planner's check confirms it; for a question, the executor's finished(content) read
        off the screens seen this episode (or a number worked out from them) is the reading.
        Returns the evidence record, or None and why the finish is not confirmed.
        """
        if not self.require_evidence:
            unchecked = Evidence(True, "", "none")
            return self._judge(sub_goal, "executor", unchecked, observation, data), ""
        reading = self._reading(goal, sub_goal, proposal.finished_content, observation)
        if reading is not None:
            # The answer read off the screens seen is the evidence: no planner call adds to it.
            record = self._judge(sub_goal, "executor", reading, observation, data)
            if record is not None:
                return record, ""
        memory = self._memory
        assert memory is not None
        whole = self._goals.covers_goal(goal, sub_goal)
        last = memory.remaining_sub_goals() == [sub_goal]
        if verdict is None and (whole or last) and not is_question(goal):
            # Finishing the goal itself (or the plan's last step): the screens decide when they
            # can, at no model call.
            shown = self._goal_verdict(goal, observation, data)
            if shown.status == GOAL_DONE:
                verdict = Evidence(True, shown.reason(), "screen")
            elif shown.status == GOAL_UNMET:
                return None, shown.reason()
        # The plan's last step finishing is the goal finishing: the planner is asked about the
        # whole goal, once, so its "done" also stands for the goal at the end.
        model_planner = not getattr(self._planner, "reads_screen", False)
        subject = goal if (whole or last) and model_planner and not is_question(goal) else sub_goal
        if verdict is None and self._can_check():
            verdict = self._check_progress(goal, subject, observation, context, data)
            own = self._plan_source in OWN_PLANS
            if whole and not own and verdict.done and verdict.kind in ("transition", "action"):
                # "A step went through" shows nothing of a goal's end state, unless the plan
                # is the offline planner's own reading of the goal (its step is the goal's).
                verdict = Evidence(False, f"only a step went through ({verdict.text})", "none")
        why = "no screen evidence"
        if verdict is not None and verdict.done:
            record = self._judge(sub_goal, "executor", verdict, observation, data, subject)
            if record is not None:
                if subject == goal:
                    self._goals.planner_confirmed = True
                return record, ""
            why = data["evidence"][-1]["why"]
        elif verdict is not None and verdict.text:
            why = verdict.text
        if verdict is None or not verdict.done:
            claim = Evidence(True, proposal.thought[:200], "none")
            self._judge(sub_goal, "executor", claim, observation, data)
        return None, why

    def _choose_action(
        self, goal: str, observation: Observation, data: dict[str, Any]
    ) -> ProposedAction | base_agent.AgentInteractionResult | None:
        """Advance sub-goals the screen shows done (no env action) and return a usable proposal.

        Returns a result when the step ends here (finished, rehearsed), or None when it ends
        without acting (the per-step advance bound was hit).
        """
        memory = self._memory
        assert memory is not None
        shown = self._goal_shown_done(goal, observation, data)
        if shown is not None:
            return shown
        advances = 0
        unusable: list[ProposedAction] = []
        verdicts: dict[str, Evidence] = {}
        checked: set[str] = set()
        while True:
            sub_goal = memory.current_sub_goal()
            if sub_goal is None:
                return self._finish(goal, observation, data)
            if sub_goal != self._current_sub_goal:
                self._current_sub_goal = sub_goal
                self._actions_on_sub_goal = 0
                unusable = []
            data["sub_goal"] = sub_goal
            context = memory.get_context_summary(self.history_steps)

            finished_by: str | None = None
            content: str | None = None
            evidence: dict[str, Any] | None = None
            if sub_goal not in checked and self._progress_check_due():
                checked.add(sub_goal)
                whole = self._goal_worded(goal, sub_goal, observation, data)
                if whole is not None:
                    by, verdict = "goal_check", whole
                elif self._screen_reads_progress():
                    # Not kept in `verdicts`: a screen that cannot show it is not a "no".
                    by = "screen_check"
                    verdict = self._screen_verdict(goal, sub_goal, observation, context, data)
                else:
                    by = "progress_check"
                    verdict = self._check_progress(goal, sub_goal, observation, context, data)
                    verdicts[sub_goal] = verdict
                self._actions_on_sub_goal = 0
                evidence = self._judge(sub_goal, by, verdict, observation, data)
                finished_by = by if evidence is not None else None
            if finished_by is None:
                missing = self._missing_control(sub_goal, observation)
                if missing is not None:
                    data["outcome"] = "missing_control"
                    return self._rehearse(
                        "missing_control", goal, sub_goal, "(none)", [missing], observation, data
                    )
                proposal = self._propose(sub_goal, observation, context, data)
                if proposal.sub_goal_finished and proposal.action is None:
                    evidence, why = self._confirm_finish(
                        goal, sub_goal, observation, context, proposal, verdicts.get(sub_goal), data
                    )
                    if evidence is None:
                        return self._unconfirmed_finish(goal, sub_goal, why, observation, data)
                    finished_by, content = "executor", proposal.finished_content
            if finished_by is not None:
                self._complete_sub_goal(sub_goal, finished_by, data, content, evidence)
                advances += 1
                if advances >= self.max_sub_goal_advances:
                    data["outcome"] = "advanced"
                    return None
                continue
            if proposal.action is not None:
                return proposal
            unusable.append(proposal)
            if len(unusable) < self.proposals_before_vision:
                continue
            selected = self._vision_select(sub_goal, observation, data)
            if selected is not None:
                return selected
            reasons = [p.error or "unusable executor output" for p in unusable]
            self._record(sub_goal, "(no usable action)", "unusable proposals", None, None)
            data["outcome"] = "unusable_proposals"
            return self._rehearse(
                "unusable_proposals", goal, sub_goal, "(none)", reasons, observation, data
            )

    def _missing_control(self, sub_goal: str, observation: Observation) -> str | None:
        """Why to replan a step whose named control never showed ("Tap 'Save'" where the app
        saves by itself, or calls it Done): once, after a few actions on it; else None."""
        key = normalize_sub_goal(sub_goal)
        if key in self._controls_seen or key in self._controls_replanned:
            return None
        shown_fn = getattr(self._screen_check(), "control_shown", None)
        shown = shown_fn(sub_goal, observation) if callable(shown_fn) else None
        if shown is None:
            return None
        if shown:
            self._controls_seen.add(key)
            return None
        spent = self._sub_goal_actions[key]
        if spent < MISSING_CONTROL_ACTIONS:
            return None
        self._controls_replanned.add(key)
        return f"no screen in {spent} actions showed the control the step names ({sub_goal!r})"

    def _unconfirmed_finish(
        self, goal: str, sub_goal: str, why: str, observation: Observation, data: dict[str, Any]
    ) -> base_agent.AgentInteractionResult:
        """The executor said finished but the screen does not show it: not done; replan."""
        self._stats.unconfirmed_finishes += 1
        if hasattr(self._executor, "discard_last_turn"):
            self._executor.discard_last_turn()
        self._record(sub_goal, "(finished)", f"not confirmed: {why}", None, None)
        data["outcome"] = "unconfirmed_finish"
        if self.rejection_retries and sub_goal not in self._feedback_given:
            # The plan is not wrong; the executor is told why and goes on, as after a rejection.
            self._feedback_given.add(sub_goal)
            self._rejection_feedback = (
                f"You said the sub-goal is finished, but the screen does not show it: {why}"[:600]
                + ". Continue with the next action for the same sub-goal."
            )
            data["outcome"] = "unconfirmed_retry"
            self._emit("rejection_feedback", sub_goal=sub_goal, reasons=[why])
            return base_agent.AgentInteractionResult(False, data)
        return self._rehearse(
            "unconfirmed_finish",
            goal,
            sub_goal,
            "(finished)",
            [f"the executor said the sub-goal is finished, but the screen does not show it: {why}"],
            observation,
            data,
        )

    def _propose(
        self, sub_goal: str, observation: Observation, context: str, data: dict[str, Any]
    ) -> ProposedAction:
        if self._rejection_feedback:
            context = f"{context}\n{self._rejection_feedback}"
            data["rejection_feedback"] = self._rejection_feedback
            self._rejection_feedback = None
        try:
            with self._timed("section_leader"):
                proposal = self._executor.generate_action(sub_goal, observation, context)
        except Exception as error:
            proposal = ProposedAction(
                None, error=f"executor raised {type(error).__name__}: {error}"
            )
        if not isinstance(proposal, ProposedAction):
            proposal = ProposedAction(None, error=f"executor returned {type(proposal).__name__}")
        if proposal.is_safe is False and proposal.error is None:
            proposal = dataclasses.replace(
                proposal, action=None, sub_goal_finished=False, error="blocked by safety filter"
            )
        elif proposal.is_safe is False:
            proposal = dataclasses.replace(proposal, action=None, sub_goal_finished=False)
        self._stats.proposals += 1
        if not proposal.usable:
            self._stats.unusable_proposals += 1
        record = _proposal_dict(proposal)
        data.setdefault("proposals", []).append(record)
        self._emit("action_proposed", sub_goal=sub_goal, **record)
        return proposal

    def _vision_select(
        self, sub_goal: str, observation: Observation, data: dict[str, Any]
    ) -> ProposedAction | None:
        if self._vision is None:
            return None
        try:
            with self._timed("vision_fallback"):
                index = self._vision.select_element(sub_goal, observation)
        except Exception as error:
            self._warn(f"vision selector raised {type(error).__name__}: {error}", data)
            index = None
        valid = isinstance(index, int) and 0 <= index < len(observation.ui_elements)
        self._emit("vision_select", sub_goal=sub_goal, index=index, valid=valid)
        if not valid:
            return None
        self._stats.vision_selects += 1
        data["vision_select"] = index
        action = json_action.JSONAction(action_type=json_action.CLICK, index=index)
        return ProposedAction(
            action,
            thought="vision fallback picked the element after unusable executor output",
            target_description=celil_geometry.element_label(observation.ui_elements[index]),
        )

    def _snap(
        self, action: json_action.JSONAction, observation: Observation, data: dict[str, Any]
    ) -> json_action.JSONAction:
        if action.action_type not in _SNAPPABLE or action.index is not None:
            return action
        if action.x is None or action.y is None:
            return action
        index = celil_geometry.snap_to_element(
            action.x, action.y, observation.ui_elements, observation.screen_size
        )
        if index is None:
            return action
        if celil_geometry.is_position_sensitive(observation.ui_elements[index]):
            data["kept_point"] = {"x": action.x, "y": action.y, "index": index}
            return action  # a slider acts where it is touched; its centre is another value
        data["snapped"] = {"x": action.x, "y": action.y, "index": index}
        return dataclasses.replace(action, index=index, x=None, y=None)

    # --- checks and records -------------------------------------------------------------------

    def _post_check(
        self,
        action: json_action.JSONAction,
        before: Observation,
        after: Observation,
        changed: bool,
        error_text: str | None,
    ) -> tuple[bool, str]:
        if error_text is not None:
            return False, f"execution failed: {error_text}"
        if action.action_type == json_action.INPUT_TEXT:
            return text_landed(action, before, after)
        if action.action_type in _NO_CHANGE_EXPECTED:
            return True, "no change expected"
        if not changed:
            expected = unchanged_is_expected(action, before)
            if expected is not None:
                return True, expected
            return False, "the screen did not change"
        return True, "the screen changed"

    def _record(
        self,
        sub_goal: str | None,
        action_description: str,
        outcome: str,
        score: float | None,
        changed: bool | None,
    ) -> None:
        if self._memory is None:
            return
        self._memory.add_step(
            StepRecord(
                step=self._step_number,
                sub_goal=sub_goal or "",
                action=action_description,
                outcome=outcome,
                score=score,
                screen_changed=changed,
            )
        )

    # --- finishing ------------------------------------------------------------------------------

    def _finish(
        self, goal: str, observation: Observation, data: dict[str, Any]
    ) -> base_agent.AgentInteractionResult:
        """All sub-goals are done: answer a question first, then report `status complete`.

        Complete only when every sub-goal of the plan carries the evidence that marked it done.
        """
        memory = self._memory
        assert memory is not None
        unproven = [s for s in memory.get_plan() if normalize_sub_goal(s) not in self._evidence]
        if self.require_evidence and unproven:
            self._infeasible_reason = f"unmet sub-goal {unproven[0]!r}: no screen evidence"
            return self._end("infeasible", data, observation, answer=None)
        if self.require_evidence and not is_question(goal):
            unmet = self._goal_not_shown(goal, observation, data)
            if unmet is not None:
                return self._goal_unmet(goal, unmet, observation, data)
        context = memory.get_context_summary(self.history_steps)
        scratch = memory.scratchpad_summary()
        if scratch:
            context = f"{context}\n{scratch}"
        try:
            with self._timed("maestro"):
                answer = self._planner.answer_question(goal, observation, context)
        except Exception as error:
            self._warn(f"answer extraction raised {type(error).__name__}: {error}", data)
            answer = "" if is_question(goal) else None
        if answer is not None and not answer.strip():
            answer = self._answer_from_facts()
            if not answer:
                self._record(None, "(answer)", "no answer found", None, None)
                data["outcome"] = "no_answer"
                return self._rehearse(
                    "no_answer",
                    goal,
                    memory.get_plan()[-1] if memory.get_plan() else goal,
                    "(answer)",
                    ["every sub-goal is done but the screen does not show the answer"],
                    observation,
                    data,
                )
        return self._end("complete", data, observation, answer=answer)

    def _answer_from_facts(self) -> str:
        """The executor's `finished(content)` of the last sub-goal, as a last-resort answer."""
        memory = self._memory
        if memory is None or not memory.scratchpad.facts:
            return ""
        fact = memory.scratchpad.facts[-1].split(": ", 1)[-1].strip()
        # The executor's words are a model answer too: "N/A" or "{answer}" is no answer.
        return "" if celil_plan_answers.non_answer(fact) else fact

    def _end(
        self,
        status: str,
        data: dict[str, Any],
        observation: Observation,
        answer: str | None,
    ) -> base_agent.AgentInteractionResult:
        del observation
        if answer:
            self._answer = answer
            answer_action = json_action.JSONAction(action_type=json_action.ANSWER, text=answer)
            try:
                self._env.execute_action(answer_action)
                error = None
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"
                self._warn(f"answer action failed: {error}", data)
            data["answer"] = answer
            self._emit("answer", text=answer, ok=error is None)
        status_action = json_action.JSONAction(action_type=json_action.STATUS, goal_status=status)
        try:
            self._env.execute_action(status_action)
        except Exception as exc:
            self._warn(f"status action failed: {type(exc).__name__}: {exc}", data)
        self._finished_status = status
        data["status"] = status
        reason = self._infeasible_reason if status == "infeasible" else None
        if reason:
            data["infeasible_reason"] = reason
        if data.get("executed"):
            # This step also ran an action (the one that finished the goal): it stays the
            # step's action; the claim is recorded beside it.
            data["claim_action"] = status_action.as_dict()
        else:
            data["action"] = status_action.as_dict()
            data["action_description"] = describe_action(status_action, [])
        if data.get("outcome") in (None, "no_answer") or status == "complete":
            data["outcome"] = "finished" if status == "complete" else "infeasible"
        else:
            data["outcome"] = f"{data['outcome']} -> infeasible"
        self._emit_timings(data)  # before episode_end, which is the episode's last event
        self._emit(
            "episode_end",
            status=status,
            answer=answer,
            steps=self._step_number,
            rehearsals=self._rehearsal_count,
            reason=reason,
            evidence=list(self._evidence.values()),
        )
        return base_agent.AgentInteractionResult(True, data)

    # --- after the episode -------------------------------------------------------------------

    def episode_summary(self) -> dict[str, Any]:
        memory = self._memory
        stats = self._stats
        scores = stats.scores
        summary: dict[str, Any] = {
            "agent": "celil_agent",
            "goal": self._goal,
            "steps": self._step_number,
            "status": self._finished_status,
            "infeasible_reason": self._infeasible_reason,
            "answer": self._answer,
            # Why each done sub-goal counts as done (DESIGN §3 step 3), in the order it was done.
            "evidence": list(self._evidence.values()),
            "plan_source": self._plan_source,
            "progress": memory.progress() if memory is not None else None,
            "rehearsals": {
                "count": self._rehearsal_count,
                "limit": self.max_rehearsals,
                "by_kind": dict(stats.rehearsals),
            },
            "gate": {
                "passed": stats.passed,
                "rejected": stats.rejected,
                "unverified": stats.unverified,
                "irreversible": stats.irreversible,
                "mean_score": round(sum(scores) / len(scores), 3) if scores else None,
                "threshold": self.threshold,
                "irreversible_threshold": self.irreversible_threshold,
            },
            "proposals": {"total": stats.proposals, "unusable": stats.unusable_proposals},
            "executed": stats.executed,
            "execution_errors": stats.execution_errors,
            "post_check_failures": stats.post_check_failures,
            "sub_goals_advanced": stats.sub_goals_advanced,
            "evidence_rejected": stats.evidence_rejected,
            "unconfirmed_finishes": stats.unconfirmed_finishes,
            "unusable_answers": stats.unusable_answers,
            "vision_selects": stats.vision_selects,
            "warnings": stats.warnings,
            "memory": {
                "hit": self._retrieved is not None,
                "entry_id": getattr(self._retrieved, "entry_id", None),
                "similarity": getattr(self._retrieved, "similarity", None),
                # True once episode_finished stored this episode's plan (a verified success).
                "stored": bool(self._memory_stored),
                "stored_entry_id": self._memory_stored,
            },
        }
        if self._ledger is not None and hasattr(self._ledger, "episode_totals"):
            try:
                summary["usage"] = self._ledger.episode_totals()
            except Exception as error:
                summary["usage_error"] = str(error)
        return summary

    def reusable_plan(self) -> list[str]:
        """The plan worth remembering: every sub-goal except the planner's recovery steps
        ("Go back", "Reopen the app"), which fixed this episode's detours, not the task."""
        memory = self._memory
        if memory is None:
            return []
        recovery = {normalize_sub_goal(s) for s in self._recovery}
        return [s for s in memory.get_plan() if normalize_sub_goal(s) not in recovery]

    def episode_finished(self, goal: str, score: float) -> None:
        """Store the plan only for a verified full success that the agent itself claimed; tell
        memory how a reused plan fared.

        The claim must agree with the score: an episode the check passed although the agent
        gave up (or never finished) succeeded for some other reason than its plan, and a plan
        stored from it could come back as a poisoned memory."""
        if self._episodic is None:
            return
        success = score >= 1.0 and self._finished_status == "complete"
        if score >= 1.0 and not success:
            self._warn(
                f"plan not stored: the task's check passed, but the agent ended "
                f"{self._finished_status or 'without a status'}"
            )
        if self._retrieved is not None:
            try:
                self._episodic.record_outcome(self._retrieved.entry_id, success)
            except Exception as error:
                self._warn(f"episodic record_outcome failed: {error}")
        memory = self._memory
        if not success or memory is None or not memory.has_plan() or memory.task_goal != goal:
            return
        plan = self.reusable_plan()
        if not plan:
            return
        provenance = {
            **self.provenance,
            "score": score,
            "steps": self._step_number,
            "rehearsals": self._rehearsal_count,
            "plan_source": self._plan_source,
        }
        try:
            entry_id = self._episodic.add_successful_plan(goal, plan, self.app_names, provenance)
            self._memory_stored = entry_id or None
            self._emit("memory_stored", entry_id=entry_id, plan=plan)
        except Exception as error:
            self._warn(f"episodic add_successful_plan failed: {error}")
