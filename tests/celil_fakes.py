"""Fakes for the Celil agent tests: a tiny contacts phone and scripted roles (no models, no sim).

Other test_celil_* files import it (tests/ is on pytest's pythonpath). It holds no tests itself.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from android_world.agents.custom.celil_protocols import (
    ActionGenerator,
    Evidence,
    FailureContext,
    Observation,
    Plan,
    Planner,
    ProposedAction,
    Verifier,
    Vote,
)
from android_world.agents.custom.model_clients.call_types import CallResult, ModelRequest
from android_world.env import interface, json_action, representation_utils

BBox = representation_utils.BoundingBox


def element(
    text: str = "",
    *,
    box: tuple[int, int, int, int] = (0, 100, 0, 100),
    clickable: bool = True,
    editable: bool = False,
    class_name: str = "android.widget.Button",
    description: str | None = None,
    hint: str | None = None,
) -> representation_utils.UIElement:
    return representation_utils.UIElement(
        text=text or None,
        content_description=description,
        class_name=class_name,
        bbox_pixels=BBox(*box),
        hint_text=hint,
        is_clickable=clickable,
        is_editable=editable,
        is_enabled=True,
        is_visible=True,
    )


def labelled_screen(*labels: str) -> Observation:
    """An observation whose only content is these labels, one row each, top to bottom."""
    return Observation(
        screenshot=np.zeros((4, 4, 3), dtype=np.uint8),
        ui_elements=[
            element(label, box=(0, 500, 300 + 100 * i, 390 + 100 * i))
            for i, label in enumerate(labels)
        ],
        ocr_lines=[],
        ocr_summary="",
        ui_tree_summary="",
        screen_size=(1080, 2400),
        frame_hash="x",
    )


def screen_of(
    *elements: representation_utils.UIElement, activity: str | None = None
) -> Observation:
    """An observation of exactly these elements in the app `activity` (no pixels, no OCR): what
    the model-free goal check reads."""
    return Observation(
        screenshot=np.zeros((0, 0, 3), np.uint8),
        ui_elements=list(elements),
        ocr_lines=[],
        ocr_summary="",
        ui_tree_summary="",
        screen_size=(1080, 2400),
        frame_hash="",
        foreground_activity=activity,
    )


MARKOR = "net.gsantner.markor/.activity.MainActivity"


def element_at(
    text: str = "",
    y: int = 400,
    *,
    x: tuple[int, int] = (168, 1044),
    cls: str = "android.widget.TextView",
    h: int = 60,
    **kw,
) -> representation_utils.UIElement:
    """One element whose box starts `y` pixels down, `h` tall (Markor's row geometry)."""
    box = representation_utils.BoundingBox(x[0], x[1], y, y + h)
    return representation_utils.UIElement(text=text, class_name=cls, bbox_pixels=box, **kw)


def markor_listing(
    *names: str, summary: str = "Oct 15, 2023 15:34, 21 bytes", sort_button: bool = False
) -> Observation:
    """Markor's file list: a toolbar (with its "Sort by" button when asked), then one title and
    summary row per note, every row on the screen."""
    box = element_at("", 360, x=(0, 1080), cls="androidx.recyclerview.widget.RecyclerView", h=1760)
    box.is_scrollable = True
    elements = [element_at("Markor", 160, x=(60, 636))]
    if sort_button:
        sort = element_at(
            "", 128, x=(780, 924), cls="android.widget.ImageButton", content_description="Sort by"
        )
        elements.append(sort)
    elements.append(box)
    for i, name in enumerate(names):
        elements.append(element_at(name, 404 + 200 * i))
        elements.append(element_at(summary, 464 + 200 * i, h=52))
    return screen_of(*elements, activity=MARKOR)


class FakePhone(interface.AsyncEnv):
    """Four screens: home -> contacts -> editor -> saved. Unknown taps do nothing.

    `render` False gives a constant blank frame, like SimEnv(render=False), so change detection
    must rely on the element tree.
    """

    def __init__(self, render: bool = False) -> None:
        self.screen = "home"
        self.name_field = ""
        self.saved: list[str] = []
        self.actions: list[json_action.JSONAction] = []
        self._cache = ""
        self.render = render
        self.fail_next: str | None = None
        self.notes = ["Dentist at 10:00", "Groceries"]

    # screens -------------------------------------------------------------------------------
    def elements(self) -> list[representation_utils.UIElement]:
        if self.screen == "home":
            return [
                element("Contacts", box=(0, 200, 0, 200)),
                element("Clock", box=(200, 400, 0, 200)),
                element("Notes", box=(400, 600, 0, 200)),
            ]
        if self.screen == "contacts":
            return [
                element("Add contact", box=(0, 1080, 100, 200)),
                element("Alice", box=(0, 1080, 200, 300), class_name="android.widget.TextView"),
                element("Delete all", box=(0, 1080, 300, 400)),
            ]
        if self.screen == "editor":
            return [
                element(
                    self.name_field,
                    box=(0, 1080, 100, 200),
                    editable=True,
                    class_name="android.widget.EditText",
                    hint="Name",
                ),
                element("Save", box=(0, 1080, 200, 300)),
            ]
        if self.screen == "notes":
            return [
                element(n, box=(0, 1080, 100 + 100 * i, 200 + 100 * i), clickable=False)
                for i, n in enumerate(self.notes)
            ] + [element("Back", box=(0, 200, 2200, 2400))]
        return [
            element("Contact saved", clickable=False, class_name="android.widget.TextView"),
            element(", ".join(self.saved), box=(0, 1080, 100, 200), clickable=False),
        ]

    def get_state(self, wait_to_stabilize: bool = False) -> interface.State:
        del wait_to_stabilize
        pixels = np.zeros((24, 12, 3), dtype=np.uint8)
        if self.render:
            pixels[0, 0, 0] = hash(self.screen) % 255
        return interface.State(pixels=pixels, forest=None, ui_elements=self.elements())

    def execute_action(self, action: json_action.JSONAction) -> None:
        self.actions.append(action)
        if self.fail_next:
            message, self.fail_next = self.fail_next, None
            raise ValueError(message)
        kind = action.action_type
        if kind == json_action.ANSWER:
            self._cache = action.text or ""
            return
        if kind in (json_action.STATUS, json_action.WAIT):
            return
        if kind == json_action.NAVIGATE_HOME:
            self.screen = "home"
            return
        if kind == json_action.NAVIGATE_BACK:
            self.screen = {"editor": "contacts", "contacts": "home", "notes": "home"}.get(
                self.screen, "home"
            )
            return
        index = action.index
        elements = self.elements()
        if index is not None and not 0 <= index < len(elements):
            raise ValueError(f"index {index} out of range")
        label = elements[index].text if index is not None else None
        if kind == json_action.INPUT_TEXT:
            if self.screen == "editor" and index == 0:
                self.name_field = action.text or ""
            return
        if kind != json_action.CLICK:
            return
        if self.screen == "home" and label == "Contacts":
            self.screen = "contacts"
        elif self.screen == "home" and label == "Notes":
            self.screen = "notes"
        elif self.screen == "contacts" and label == "Add contact":
            self.screen = "editor"
        elif self.screen == "editor" and label == "Save":
            self.saved.append(self.name_field)
            self.screen = "saved"
        elif self.screen == "notes" and label == "Back":
            self.screen = "home"

    # the rest of AsyncEnv ------------------------------------------------------------------
    def reset(self, go_home: bool = False) -> interface.State:
        self._cache = ""
        if go_home:
            self.screen = "home"
        return self.get_state()

    @property
    def controller(self) -> Any:
        return None

    def ask_question(self, question: str, timeout_seconds: float = -1.0) -> str | None:
        raise NotImplementedError

    @property
    def foreground_activity_name(self) -> str:
        return f"com.fake/{self.screen}"

    @property
    def device_screen_size(self) -> tuple[int, int]:
        return (1080, 2400)

    @property
    def logical_screen_size(self) -> tuple[int, int]:
        return (1080, 2400)

    def close(self) -> None:
        pass

    @property
    def interaction_cache(self) -> str:
        return self._cache

    @interaction_cache.setter
    def interaction_cache(self, value: str) -> None:
        self._cache = value

    def hide_automation_ui(self) -> None:
        pass

    @property
    def orientation(self) -> int:
        return 0

    @property
    def physical_frame_boundary(self) -> tuple[int, int, int, int]:
        return (0, 0, 1080, 2400)


# --------------------------------------------------------------------------------------------
# Scripted roles


def click(index: int, thought: str = "") -> ProposedAction:
    return ProposedAction(json_action.JSONAction(action_type="click", index=index), thought=thought)


def type_text(index: int, text: str) -> ProposedAction:
    return ProposedAction(json_action.JSONAction(action_type="input_text", index=index, text=text))


def finished(content: str | None = None) -> ProposedAction:
    return ProposedAction(None, sub_goal_finished=True, finished_content=content)


def unusable(error: str = "could not parse executor output") -> ProposedAction:
    return ProposedAction(None, raw_output="garbage", error=error)


Script = list[Any]


def _next(script: Script, default: Any, *args: Any) -> Any:
    item = script.pop(0) if script else default
    if isinstance(item, BaseException):
        raise item
    if callable(item) and not isinstance(item, type):
        return item(*args)
    return item


@dataclasses.dataclass
class ScriptedPlanner(Planner):
    initial: list[Any] = dataclasses.field(default_factory=list)
    corrective: list[Any] = dataclasses.field(default_factory=list)
    progress: list[Any] = dataclasses.field(default_factory=list)
    answer: str | None = None
    calls: list[tuple[str, Any]] = dataclasses.field(default_factory=list)
    confirm: bool = True

    def generate_initial_plan(self, goal: str, observation: Observation, retrieved_plan):
        self.calls.append(("initial", retrieved_plan))
        return _next(self.initial, Plan([goal]), goal)

    def generate_corrective_plan(self, failure_context: FailureContext) -> Plan:
        self.calls.append(("corrective", failure_context))
        return _next(self.corrective, Plan([failure_context.failed_sub_goal or "retry"]))

    def check_sub_goal(self, goal, sub_goal, observation, context_summary) -> Evidence:
        """Scripted verdicts (bools or Evidence); once the script is spent, the screen
        "confirms" whatever it is asked about unless `confirm` is False."""
        self.calls.append(("progress", sub_goal))
        default = Evidence(True, "scripted screen check", "screen") if self.confirm else False
        item = _next(self.progress, default)
        if isinstance(item, Evidence):
            return item
        return Evidence(True, "scripted screen check", "screen") if item else Evidence(False)

    def answer_question(self, goal, observation, context_summary):
        self.calls.append(("answer", context_summary))
        return self.answer


@dataclasses.dataclass
class ScriptedExecutor(ActionGenerator):
    script: list[Any] = dataclasses.field(default_factory=list)
    default: Any = None
    calls: list[str] = dataclasses.field(default_factory=list)
    discarded: int = 0
    resets: int = 0

    def generate_action(self, sub_goal, observation, context_summary) -> ProposedAction:
        self.calls.append(sub_goal)
        default = self.default if self.default is not None else unusable("script exhausted")
        return _next(self.script, default, sub_goal, observation)

    def discard_last_turn(self) -> None:
        self.discarded += 1

    def reset(self) -> None:
        self.resets += 1


@dataclasses.dataclass
class ScriptedVerifier(Verifier):
    scores: list[Any] = dataclasses.field(default_factory=list)
    default: float = 9.0
    calls: int = 0

    def verify_action(self, sub_goal, proposed_action, observation, context_summary):
        self.calls += 1
        score = _next(self.scores, self.default)
        return float(score), [Vote("Pragmatist", float(score), "scripted")]


class ScriptedWrapper:
    """A model client answering from a function of the prompt (or a list of answers); a chat
    reaches it flattened, as one prompt with its images."""

    def __init__(
        self,
        answers: list[Any] | Callable[[str], Any] | None = None,
        *,
        sleep_s: float = 0.0,
        default: Any = "",
    ) -> None:
        self._answers = answers if answers is not None else []
        self.sleep_s = sleep_s
        self.default = default
        self.prompts: list[str] = []
        self.image_counts: list[int] = []

    def _answer(self, prompt: str) -> tuple[str, bool | None, Any]:
        self.prompts.append(prompt)
        if self.sleep_s:
            time.sleep(self.sleep_s)
        if callable(self._answers):
            answer = self._answers(prompt)
        elif isinstance(self._answers, list) and self._answers:
            answer = self._answers.pop(0)
        else:
            answer = self.default
        if isinstance(answer, BaseException):
            raise answer
        if isinstance(answer, tuple):
            return answer
        return answer, True, {"raw": answer}

    def call(self, request: ModelRequest) -> CallResult:
        prompt, images = request.flattened()
        self.image_counts.append(len(images))
        return CallResult.answered(*self._answer(prompt))


class FakeEpisodicMemory:
    def __init__(self, hit: Any = None) -> None:
        self.hit = hit
        self.added: list[tuple[str, list[str], Any]] = []
        self.outcomes: list[tuple[str, bool]] = []

    def find_similar_task(self, goal: str, app_names=()):
        return self.hit

    def add_successful_plan(self, goal, plan, app_names=(), provenance=None) -> str:
        self.added.append((goal, list(plan), provenance))
        return "new-entry"

    def record_outcome(self, entry_id: str, success: bool) -> None:
        self.outcomes.append((entry_id, success))


@dataclasses.dataclass(frozen=True)
class FakeRetrievedPlan:
    entry_id: str
    goal_template: str
    plan: list[str]
    similarity: float
    success_rate: float
