"""The Section Leader: turns the current sub-goal and screen into one proposed action.

UI-TARS is a grounding model: it points at pixels. AndroidWorld is most reliable when acting on
element indices (the env resolves an index against a fresh element list at execution time), so a
point is snapped to the smallest actionable element under it, and verifiers get a readable target.
Every model failure becomes a failed `ProposedAction`; the Conductor decides what to do with it.

Two executor formats: `uitars` (the model's trained dialect, coordinates) and `json` (M3A-style
index-based JSON over the numbered element list, for general multimodal models).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

import numpy as np

from android_world.agents import infer
from android_world.agents.custom import celil_geometry, celil_json, celil_untrusted
from android_world.agents.custom.celil_protocols import ActionGenerator, Observation, ProposedAction
from android_world.agents.custom.dialects import uitars
from android_world.agents.custom.model_clients.call_types import (
    ChatMessage,
    ModelRequest,
    flatten_messages,
)
from android_world.agents.custom.model_clients.client import ModelClient
from android_world.env import json_action, representation_utils

EXECUTOR_FORMATS = ("uitars", "json")

# One snapping rule for all of Celil lives in celil_geometry; re-exported for callers of this role.
snap_to_element = celil_geometry.snap_to_element
TAP = celil_geometry.TAP
SCROLL = celil_geometry.SCROLL

_MAX_CONTEXT_CHARS = 1500
_MAX_DESCRIPTION_CHARS = 80


# --------------------------------------------------------------------------------------------
# Element helpers (pure)
# --------------------------------------------------------------------------------------------


def focused_editable(elements: Sequence[representation_utils.UIElement]) -> int | None:
    """Index of the focused text field, where typing will land."""
    for index, element in enumerate(elements):
        if element.is_editable and element.is_focused and element.is_visible is not False:
            return index
    return None


def describe_element(element: representation_utils.UIElement) -> str:
    """A short human name for an element, for verifiers and logs: `"Save" (Button)`."""
    label = celil_geometry.element_label(element)
    if len(label) > _MAX_DESCRIPTION_CHARS:
        label = label[: _MAX_DESCRIPTION_CHARS - 3] + "..."
    class_name = (element.class_name or "").rsplit(".", 1)[-1]
    if label and class_name:
        return f'"{label}" ({class_name})'
    return f'"{label}"' if label else class_name or "element"


def describe_elements(elements: Sequence[representation_utils.UIElement]) -> str:
    """Numbered element list, used when perception gave no tree summary."""
    lines = []
    for index, element in enumerate(elements):
        flags = [
            name
            for name, value in (
                ("clickable", element.is_clickable),
                ("editable", element.is_editable),
                ("scrollable", element.is_scrollable),
                ("checked", element.is_checked),
                ("focused", element.is_focused),
            )
            if value
        ]
        suffix = f" [{', '.join(flags)}]" if flags else ""
        lines.append(f"{index}: {describe_element(element)}{suffix}")
    return "\n".join(lines)


def _point_description(observation: Observation, x: int, y: int) -> str:
    text = celil_geometry.ocr_text_at(x, y, observation.ocr_lines)
    return f'point ({x}, {y}) on "{text}"' if text else f"point ({x}, {y})"


def _brief_context(context_summary: str) -> str:
    """The tail of the context summary: the most recent steps matter most to the next action."""
    context = (context_summary or "").strip()
    if len(context) > _MAX_CONTEXT_CHARS:
        context = "..." + context[-(_MAX_CONTEXT_CHARS - 3) :]
    return context


# --------------------------------------------------------------------------------------------
# The generator
# --------------------------------------------------------------------------------------------


# One rule for the executor and the Conductor: celil_geometry.
is_position_sensitive = celil_geometry.is_position_sensitive


@dataclasses.dataclass
class ExecutorTurn:
    """One earlier proposal of this episode, as the model produced it."""

    sub_goal: str
    screenshot: np.ndarray | None
    response: str
    thought: str
    action: str


class UITarsActionGenerator(ActionGenerator):
    """`ActionGenerator` backed by a multimodal model (UI-TARS or any JSON-speaking model).

    The client gets the real multi-turn chat (earlier answers as assistant turns, screenshots on
    user turns) as one typed request.
    """

    def __init__(
        self,
        wrapper: ModelClient,
        *,
        coordinate_convention: str = uitars.ABSOLUTE_RESIZED,
        max_image_pixels: int = uitars.DEFAULT_CLIENT_MAX_PIXELS,
        history_images: int = 5,
        language: str = "English",
        prompt_variant: str = uitars.PROMPT_VARIANT_START_BOX,
        executor_format: str = "uitars",
        history_scope: str = "sub_goal",
        history_turns: int = 8,
        history_image_pixels: int | None = None,
    ):
        if coordinate_convention not in uitars.COORDINATE_CONVENTIONS:
            raise ValueError(
                f"unknown coordinate_convention {coordinate_convention!r}; "
                f"use one of {uitars.COORDINATE_CONVENTIONS}"
            )
        if prompt_variant not in uitars.PROMPT_VARIANTS:
            raise ValueError(
                f"unknown prompt_variant {prompt_variant!r}; use one of {uitars.PROMPT_VARIANTS}"
            )
        if executor_format not in EXECUTOR_FORMATS:
            raise ValueError(
                f"unknown executor_format {executor_format!r}; use one of {EXECUTOR_FORMATS}"
            )
        if history_scope not in ("sub_goal", "episode"):
            raise ValueError(f"unknown history_scope {history_scope!r}; use sub_goal or episode")
        if max_image_pixels < uitars.MIN_PIXELS:
            raise ValueError(f"max_image_pixels must be at least {uitars.MIN_PIXELS}")
        self._wrapper = wrapper
        self._convention = coordinate_convention
        self._max_pixels = int(max_image_pixels)
        self._history_images = max(1, int(history_images))
        # Earlier screenshots are context, not what the model points at: a smaller cap.
        self._history_pixels = (
            max(uitars.MIN_PIXELS, min(int(history_image_pixels), self._max_pixels))
            if history_image_pixels
            else self._max_pixels
        )
        self._language = language
        self._variant = prompt_variant
        self._format = executor_format
        self._scope = history_scope
        # Earlier turns shown (text and, for the newest `history_images`, screenshots): a long
        # sub-goal must not grow the prompt without bound.
        self._history_turns = max(0, int(history_turns))
        self._history: list[ExecutorTurn] = []
        self.last_sent_size: tuple[int, int] | None = None
        self.last_prompt: str = ""
        self._cut: str | None = None  # how the last answer was cut to the length parsers read

    def prompt_templates(self) -> dict[str, str]:
        """The prompt this executor sends, with `{placeholders}` (for prompt hashes)."""
        if self._format == "json":
            slots = {k: "{" + k + "}" for k in ("sub_goal", "context", "elements", "history")}
            return {"json_executor": _JSON_PROMPT.format(data_rule=celil_untrusted.RULE, **slots)}
        return {
            f"uitars_{self._variant}": uitars.mobile_prompt(
                "{instruction}", language=self._language, variant=self._variant
            )
        }

    @property
    def history(self) -> tuple[ExecutorTurn, ...]:
        return tuple(self._history)

    def reset(self) -> None:
        """Forget the episode: the next call starts a fresh conversation."""
        self._history.clear()
        self.last_sent_size = None
        self.last_prompt = ""

    def _remember(self, turn: ExecutorTurn) -> None:
        """Keep every answer, but only the screenshots a prompt can still include, downscaled
        to `history_image_pixels`."""
        if turn.screenshot is not None:
            # It is only ever sent again as an earlier screenshot: at that cap, or never.
            turn.screenshot = (
                uitars.resize_for_model(turn.screenshot, self._history_pixels)[0]
                if self._history_images > 1
                else None
            )
        self._history.append(turn)
        for old in self._history[: -self._history_images]:
            old.screenshot = None

    def discard_last_turn(self) -> None:
        """Drop the last proposal from the history, e.g. when verifiers rejected it unexecuted."""
        if self._history:
            self._history.pop()

    def generate_action(
        self, sub_goal: str, observation: Observation, context_summary: str
    ) -> ProposedAction:
        self._cut = None
        try:
            if self._format == "json":
                proposal = self._generate_json(sub_goal, observation, context_summary)
            else:
                proposal = self._generate_uitars(sub_goal, observation, context_summary)
        except Exception as error:  # a proposal failure must never end the episode
            proposal = ProposedAction(
                action=None, error=f"executor error: {type(error).__name__}: {error}"
            )
        if self._cut:
            proposal = dataclasses.replace(proposal, notes=(*proposal.notes, self._cut))
        return proposal

    # -- shared ---------------------------------------------------------------------------------

    def _turns_for(self, sub_goal: str) -> list[ExecutorTurn]:
        if self._scope == "episode":
            turns = list(self._history)
        else:
            turns = [turn for turn in self._history if turn.sub_goal == sub_goal]
        return turns[-self._history_turns :] if self._history_turns else []

    def _call(self, messages: list[ChatMessage]) -> tuple[str | None, bool | None, str | None]:
        """(text, is_safe, error): the client's answer to the chat, or why there is none."""
        text, _ = flatten_messages(messages)
        self.last_prompt = text
        try:
            result = self._wrapper.call(ModelRequest.chat(messages))
        except Exception as error:
            return None, None, f"model call failed: {type(error).__name__}: {error}"
        answer, is_safe = result.text, result.is_safe
        if is_safe is False:
            return answer, False, "the model's safety filter blocked the answer"
        if not isinstance(answer, str) or answer.strip().startswith(infer.ERROR_CALLING_LLM):
            why = None if result.ok else result.record.error
            reason = f"error calling the model: {why}" if why else "error calling the model"
            return answer if isinstance(answer, str) else None, is_safe, reason
        if not answer.strip():
            return answer, is_safe, "the model returned an empty answer"
        # Parsers (and the history sent back next turn) read at most MAX_ANSWER_CHARS.
        answer, self._cut = celil_json.bounded(answer)
        return answer, is_safe, None

    # -- UI-TARS format -------------------------------------------------------------------------

    def _instruction(self, sub_goal: str, context_summary: str) -> str:
        context = _brief_context(context_summary)
        if not context:
            return sub_goal
        return f"{sub_goal}\n\nProgress so far (for context only):\n{context}"

    def _generate_uitars(
        self, sub_goal: str, observation: Observation, context_summary: str
    ) -> ProposedAction:
        sent, sent_size = uitars.resize_for_model(observation.screenshot, self._max_pixels)
        self.last_sent_size = sent_size
        turns = self._turns_for(sub_goal)
        messages = uitars.build_messages(
            self._instruction(sub_goal, context_summary),
            sent,
            [uitars.HistoryTurn(turn.screenshot, turn.response) for turn in turns],
            language=self._language,
            variant=self._variant,
            max_images=self._history_images,
        )
        text, is_safe, error = self._call(messages)
        if error is not None:
            return ProposedAction(action=None, raw_output=text or "", error=error, is_safe=is_safe)
        assert text is not None
        parsed = uitars.parse_uitars_output(text)
        if isinstance(parsed, uitars.UiTarsParseFailure):
            return ProposedAction(
                action=None,
                thought=parsed.thought,
                raw_output=text,
                error=f"unparseable UI-TARS output ({parsed.kind}): {parsed.reason}",
                is_safe=is_safe,
            )
        mapped = uitars.to_json_action(parsed, observation.screen_size, sent_size, self._convention)
        if isinstance(mapped, uitars.UiTarsMappingFailure):
            return ProposedAction(
                action=None,
                thought=parsed.thought,
                raw_output=text,
                error=mapped.reason,
                is_safe=is_safe,
            )
        self._remember(
            ExecutorTurn(
                sub_goal, sent, text, parsed.thought, parsed.call_text or parsed.action_type
            )
        )
        if isinstance(mapped, uitars.UiTarsFinished):
            return ProposedAction(
                action=None,
                thought=parsed.thought,
                raw_output=text,
                sub_goal_finished=True,
                finished_content=mapped.content,
                is_safe=is_safe,
            )
        action, target = self._ground(parsed, mapped, observation, sent_size)
        return ProposedAction(
            action=action,
            thought=parsed.thought,
            raw_output=text,
            target_description=target,
            is_safe=is_safe,
            dropped_actions=parsed.dropped,
        )

    def _ground(
        self,
        parsed: uitars.UiTarsAction,
        mapped: json_action.JSONAction,
        observation: Observation,
        sent_size: tuple[int, int],
    ) -> tuple[json_action.JSONAction, str]:
        """Swap the point for an element index where one fits, and name the target."""
        elements = observation.ui_elements
        screen = observation.screen_size
        kind = mapped.action_type
        if kind in (json_action.CLICK, json_action.LONG_PRESS, json_action.DOUBLE_TAP):
            assert mapped.x is not None and mapped.y is not None
            index = snap_to_element(mapped.x, mapped.y, elements, screen, gesture=TAP)
            if index is None:
                return mapped, _point_description(observation, mapped.x, mapped.y)
            if is_position_sensitive(elements[index]):
                # A slider or seek bar acts on where it is touched: its centre is another value.
                where = f"{describe_element(elements[index])} at ({mapped.x}, {mapped.y})"
                return mapped, where
            snapped = json_action.JSONAction(action_type=kind, index=index)
            return snapped, describe_element(elements[index])
        if kind == json_action.INPUT_TEXT and mapped.x is not None and mapped.y is not None:
            # type(content, start_box): the field the model pointed at, if it is one.
            index = snap_to_element(mapped.x, mapped.y, elements, screen, gesture=TAP)
            if index is not None and getattr(elements[index], "is_editable", False):
                typed = json_action.JSONAction(action_type=kind, text=mapped.text, index=index)
                return typed, describe_element(elements[index])
        if kind == json_action.INPUT_TEXT:
            index = focused_editable(elements)
            if index is None:
                return mapped, "the focused field"
            typed = json_action.JSONAction(action_type=kind, text=mapped.text, index=index)
            return typed, describe_element(elements[index])
        if kind == json_action.SCROLL:
            if parsed.start is not None:
                x, y = uitars.to_screen(*parsed.start, self._convention, sent_size, screen)
                index = snap_to_element(x, y, elements, screen, gesture=SCROLL)
                if index:  # index 0 means the whole screen to AndroidWorld anyway
                    scroll = json_action.JSONAction(
                        action_type=kind, direction=mapped.direction, index=index
                    )
                    return scroll, describe_element(elements[index])
            return mapped, "the whole screen"
        if kind == json_action.OPEN_APP:
            return mapped, mapped.app_name or ""
        if kind == json_action.SWIPE:
            return mapped, f"swipe {mapped.direction} across the screen"
        return mapped, ""

    # -- JSON format ----------------------------------------------------------------------------

    def _json_prompt(self, sub_goal: str, observation: Observation, context_summary: str) -> str:
        elements = observation.ui_tree_summary.strip() or describe_elements(observation.ui_elements)
        turns = self._turns_for(sub_goal)
        history = (
            "\n".join(
                f"{number}. {turn.thought or '(no reason given)'} -> {turn.action}"
                for number, turn in enumerate(turns, start=1)
            )
            or "(none yet)"
        )
        context = _brief_context(context_summary) or "(nothing yet)"
        screen = dataclasses.replace(observation, ui_tree_summary=elements or "(no elements found)")
        return _JSON_PROMPT.format(
            sub_goal=sub_goal,
            context=context,
            elements=celil_untrusted.screen_block(screen),
            history=celil_untrusted.neutralise(history),
            data_rule=celil_untrusted.RULE,
        )

    def _generate_json(
        self, sub_goal: str, observation: Observation, context_summary: str
    ) -> ProposedAction:
        sent, sent_size = uitars.resize_for_model(observation.screenshot, self._max_pixels)
        self.last_sent_size = sent_size
        prompt = self._json_prompt(sub_goal, observation, context_summary)
        text, is_safe, error = self._call([ChatMessage("user", prompt, [sent])])
        if error is not None:
            return ProposedAction(action=None, raw_output=text or "", error=error, is_safe=is_safe)
        assert text is not None
        reason, action_part = _split_reason_action(text)

        def failed(message: str) -> ProposedAction:
            return _failed_proposal(message, reason, text, is_safe)

        payload = celil_json.extract_json(action_part) or celil_json.extract_json(text)
        if payload is None:
            return failed("no JSON action in the model output")
        payload, _ = normalise_json_action(payload)
        if (echo := json_placeholder(payload, JSON_PROMPT_SLOTS)) is not None:
            return failed(f"the action repeats the prompt's example placeholder ({echo})")
        if celil_json.is_placeholder(reason, JSON_PROMPT_SLOTS):
            return failed(f"the answer repeats the prompt's example (Reason: {reason!r})")
        try:
            action = json_action.JSONAction(**payload)
        except (TypeError, ValueError) as error:
            return failed(f"invalid JSON action {payload!r}: {error}")
        return self._check_json_action(sub_goal, action, observation, reason, text, is_safe, sent)

    def _check_json_action(
        self,
        sub_goal: str,
        action: json_action.JSONAction,
        observation: Observation,
        reason: str,
        text: str,
        is_safe: bool | None,
        sent: np.ndarray,
    ) -> ProposedAction:
        def failed(message: str) -> ProposedAction:
            return _failed_proposal(message, reason, text, is_safe)

        elements = observation.ui_elements
        kind = action.action_type
        if action.index is not None and not 0 <= action.index < len(elements):
            return failed(f"element index {action.index} is out of range (0..{len(elements) - 1})")
        if (outside := _off_screen(action, observation.screen_size)) is not None:
            return failed(outside)
        if kind == json_action.STATUS and action.goal_status != "complete":
            return failed(f"the model judged the sub-goal not doable ({action.goal_status})")
        if kind in (json_action.STATUS, json_action.ANSWER):
            # `status complete` and `answer` both finish the sub-goal; an answer carries its text.
            self._remember(ExecutorTurn(sub_goal, sent, text, reason, action.json_str()))
            return ProposedAction(
                action=None,
                thought=reason,
                raw_output=text,
                sub_goal_finished=True,
                finished_content=(action.text or "") if kind == json_action.ANSWER else None,
                is_safe=is_safe,
            )
        if kind == json_action.UNKNOWN:
            return failed("the model chose the 'unknown' action")
        needs_target = (json_action.CLICK, json_action.LONG_PRESS, json_action.DOUBLE_TAP)
        if kind in needs_target and action.index is None and (action.x is None or action.y is None):
            # A half point would pass the gate and only fail on the device, costing a rehearsal.
            return failed(f"{kind} needs an element index")
        if kind == json_action.INPUT_TEXT and not action.text:
            return failed("input_text needs a text")
        if kind == json_action.OPEN_APP and not (action.app_name or "").strip():
            return failed("open_app needs an app_name")
        if kind in (json_action.SCROLL, json_action.SWIPE) and not action.direction:
            return failed(f"{kind} needs a direction")
        if action.index is not None:
            target = describe_element(elements[action.index])
        elif action.x is not None and action.y is not None:
            target = _point_description(observation, action.x, action.y)
        elif kind == json_action.OPEN_APP:
            target = action.app_name or ""
        else:
            target = ""
        self._remember(ExecutorTurn(sub_goal, sent, text, reason, action.json_str()))
        return ProposedAction(
            action=action,
            thought=reason,
            raw_output=text,
            target_description=target,
            is_safe=is_safe,
        )


# JSON executor answers in the shapes small and chat models write: the type under "action" or
# "type", the whole action wrapped in {"action": {...}}, a "reason" key beside the action, and
# everyday verbs for upstream's action types. Scroll synonyms are left out on purpose: "swipe"
# names the finger's direction, scroll the content's, and guessing would scroll the wrong way.
_TYPE_KEYS = ("action_type", "action", "type")
_ACTION_SYNONYMS = {
    "tap": json_action.CLICK,
    "press": json_action.CLICK,
    "click_element": json_action.CLICK,
    "long_click": json_action.LONG_PRESS,
    "long_tap": json_action.LONG_PRESS,
    "type": json_action.INPUT_TEXT,
    "type_text": json_action.INPUT_TEXT,
    "input": json_action.INPUT_TEXT,
    "enter_text": json_action.INPUT_TEXT,
    "back": json_action.NAVIGATE_BACK,
    "go_back": json_action.NAVIGATE_BACK,
    "press_back": json_action.NAVIGATE_BACK,
    "home": json_action.NAVIGATE_HOME,
    "go_home": json_action.NAVIGATE_HOME,
    "press_home": json_action.NAVIGATE_HOME,
    "enter": json_action.KEYBOARD_ENTER,
    "press_enter": json_action.KEYBOARD_ENTER,
    "launch_app": json_action.OPEN_APP,
    "open": json_action.OPEN_APP,
}
_INDEX_SYNONYMS = ("element", "element_index", "element_id", "idx")
_JSON_ACTION_FIELDS = frozenset(f.name for f in dataclasses.fields(json_action.JSONAction))


def normalise_json_action(payload: dict[str, object]) -> tuple[dict[str, object], list[str]]:
    """`payload` as JSONAction keyword arguments, and the keys that were dropped.

    Never raises; JSONAction itself still validates the type and values.
    """
    inner = payload.get("action")
    if isinstance(inner, dict) and not any(k in payload for k in ("action_type", "type")):
        payload = inner
    type_key = next((k for k in _TYPE_KEYS if isinstance(payload.get(k), str)), None)
    kind = payload[type_key] if type_key else None
    out: dict[str, object] = {}
    dropped: list[str] = []
    for key, value in payload.items():
        if key == type_key:
            continue
        if key in _JSON_ACTION_FIELDS:
            out[key] = value
        elif key in _INDEX_SYNONYMS and "index" not in payload:
            out["index"] = value
        else:
            dropped.append(str(key))
    if isinstance(kind, str):
        name = "_".join(kind.strip().lower().replace("-", " ").split())
        out["action_type"] = _ACTION_SYNONYMS.get(name, name)
    return out, dropped


def json_placeholder(payload: dict[str, object], examples: frozenset[str]) -> str | None:
    """A value that copies one of the prompt's `<...>` slots ("<text>", "<element index>")."""
    for key, value in payload.items():
        if isinstance(value, str) and celil_json.is_placeholder(value, examples):
            return f"{key}={value!r}"
    return None


def _off_screen(action: json_action.JSONAction, screen_size: tuple[int, int]) -> str | None:
    """Why the action's point lies off the screen, or None (a point is refused, not clamped)."""
    if action.x is None or action.y is None:
        return None
    width, height = screen_size
    if not width or not height:
        return None
    if 0 <= action.x < width and 0 <= action.y < height:
        return None
    return f"point ({action.x}, {action.y}) is outside the {width}x{height} screen"


def _failed_proposal(message: str, reason: str, text: str, is_safe: bool | None) -> ProposedAction:
    """An unusable proposal that keeps what the model said, for the events and the report."""
    return ProposedAction(
        action=None, thought=reason, raw_output=text, error=message, is_safe=is_safe
    )


# Both patterns start at a literal word and cross blank space possessively: linear on any answer.
_REASON = re.compile(r"Reason[ \t]*+:")
_ACTION_LABEL = re.compile(r"(?<![A-Za-z_])Action[ \t\n]*+:")


def _opens_line(text: str, position: int) -> bool:
    """A line break, then only blank space, stands before `position`."""
    index = position - 1
    while index >= 0 and text[index] in " \t":
        index -= 1
    return index >= 0 and text[index] == "\n"


def _split_reason_action(text: str) -> tuple[str, str]:
    """(reason, text after the last `Action:`), tolerant of either part missing. The reason
    runs to the first `Action:` that opens a line."""
    reason = ""
    if (label := _REASON.search(text)) is not None:
        ends = (m.start() for m in _ACTION_LABEL.finditer(text, label.end()))
        end = next((e for e in ends if _opens_line(text, e)), len(text))
        reason = text[label.end() : end].strip()
    labels = list(_ACTION_LABEL.finditer(text))
    action_part = text[labels[-1].end() :] if labels else text
    return reason, action_part


_JSON_PROMPT = """\
You are operating an Android phone, one action at a time, to complete the current sub-goal.
{data_rule}

Current sub-goal: {sub_goal}

Progress so far (for context):
{context}

Your earlier steps for this sub-goal:
{history}

The screen ([index] class "label" (flags)):
{elements}

Choose exactly ONE action, written as a JSON object:
- {{"action_type": "click", "index": <element index>}}
- {{"action_type": "long_press", "index": <element index>}}
- {{"action_type": "input_text", "text": "<text>", "index": <index of the text field>}}  (taps the field, types, then presses Enter)
- {{"action_type": "keyboard_enter"}}
- {{"action_type": "scroll", "direction": "up|down|left|right", "index": <optional scrollable element>}}  (direction = where the content you want to see is)
- {{"action_type": "open_app", "app_name": "<app name>"}}
- {{"action_type": "navigate_home"}}
- {{"action_type": "navigate_back"}}
- {{"action_type": "wait"}}
- {{"action_type": "answer", "text": "<answer>"}}  (when the sub-goal asks for information)
- {{"action_type": "status", "goal_status": "complete"}}  (the screen already shows the sub-goal done)
- {{"action_type": "status", "goal_status": "infeasible"}}  (it cannot be done)

Use only indices from the list above. Answer in exactly this format:
Reason: <one or two sentences>
Action: {{"action_type": ...}}
"""

# The `<...>` slots the JSON prompt shows; an action whose text fills one with itself is an echo.
JSON_PROMPT_SLOTS = frozenset(
    e for e in celil_json.example_strings(_JSON_PROMPT) if e.startswith("<")
)
