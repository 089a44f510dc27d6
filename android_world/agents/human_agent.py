"""A person drives the device from the terminal: for trying tasks by hand and checking the harness.

Each step prints the goal, the step budget and the numbered UI elements, then reads lines until one
of them is an action:
  - a JSON action, e.g. {"action_type": "click", "index": 3}; a `status` action ends the episode;
  - `help` (or `?`) lists the action types with an example each and does not use a step;
  - `answer <text>` sends <text> as the final answer and ends the episode;
  - any other text is offered as the final answer and needs a `y` to confirm, because a typo must
    not end an episode that took many steps to reach;
  - an empty line is a `wait`; end of input (Ctrl-D) ends the episode without acting.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any, TextIO

import pydantic

from android_world.agents import base_agent
from android_world.env import interface, json_action

ACTION_EXAMPLES: tuple[tuple[str, str], ...] = (
    (
        "click",
        '{"action_type": "click", "index": 3}  or  {"action_type": "click", "x": 540, "y": 900}',
    ),
    ("long_press", '{"action_type": "long_press", "index": 3}'),
    ("double_tap", '{"action_type": "double_tap", "index": 3}'),
    ("input_text", '{"action_type": "input_text", "text": "hello", "index": 5}'),
    ("keyboard_enter", '{"action_type": "keyboard_enter"}'),
    ("scroll", '{"action_type": "scroll", "direction": "down"}  (up, down, left, right)'),
    ("swipe", '{"action_type": "swipe", "direction": "left"}'),
    ("open_app", '{"action_type": "open_app", "app_name": "Settings"}'),
    ("navigate_back", '{"action_type": "navigate_back"}'),
    ("navigate_home", '{"action_type": "navigate_home"}'),
    ("wait", '{"action_type": "wait"}  or an empty line'),
    ("answer", "answer <text>  (ends the episode with <text> as the answer)"),
    ("status", '{"action_type": "status", "goal_status": "complete"}  (or "infeasible"; ends it)'),
)

HELP_WORDS = frozenset({"help", "?", "h", "actions"})
YES_WORDS = frozenset({"y", "yes"})


def help_text() -> str:
    """The action list a person needs to drive the phone without reading the source."""
    width = max(len(name) for name, _ in ACTION_EXAMPLES)
    lines = ["Actions (one per line):"]
    lines += [f"  {name:<{width}}  {example}" for name, example in ACTION_EXAMPLES]
    lines.append("  help             this list (does not use a step); Ctrl-D ends the episode")
    return "\n".join(lines)


class HumanAgentConfig(pydantic.BaseModel):
    """`agent.configurations.human_agent` keys."""

    model_config = pydantic.ConfigDict(extra="forbid", allow_inf_nan=False)

    name: str = "human_agent"
    """The agent's name in results and reports."""
    max_elements: int = pydantic.Field(default=60, ge=0)
    """UI elements listed per step."""


def describe_element(i: int, element: Any) -> str:
    parts = []
    for field in ("text", "content_description", "hint_text", "class_name"):
        value = getattr(element, field, None)
        if value:
            parts.append(f"{field}={value!r}")
    flags = [
        f
        for f in ("is_clickable", "is_editable", "is_scrollable", "is_checked")
        if getattr(element, f, None)
    ]
    return f"  [{i}] " + " ".join(parts + flags)


@dataclass(frozen=True)
class ParsedLine:
    """What one typed line asks for: an action, the help list, a possible answer, or a parse error."""

    kind: str  # "action" | "help" | "answer" | "maybe_answer" | "error"
    action: json_action.JSONAction | None = None
    text: str = ""


def parse_line(line: str) -> ParsedLine:
    """Reads one stripped input line; pure so the grammar is testable without a terminal."""
    if not line:
        return ParsedLine("action", json_action.JSONAction(action_type=json_action.WAIT))
    if line.lower() in HELP_WORDS:
        return ParsedLine("help")
    if line.lower().startswith("answer ") and line[7:].strip():
        return ParsedLine("answer", text=line[7:].strip())
    if line.startswith("{"):
        try:
            payload = json.loads(line)
            if not isinstance(payload, dict):
                raise ValueError("expected a JSON object")
            return ParsedLine("action", json_action.JSONAction(**payload))
        except (ValueError, TypeError) as exc:
            return ParsedLine("error", text=str(exc))
    return ParsedLine("maybe_answer", text=line)


class HumanAgent(base_agent.EnvironmentInteractingAgent):
    """Reads actions from `input_stream` (stdin by default) and echoes to `output_stream`."""

    def __init__(
        self,
        env: interface.AsyncEnv,
        name: str = "human_agent",
        max_elements: int = 60,
        input_stream: TextIO | None = None,
        output_stream: TextIO | None = None,
        transition_pause: float | None = 0.0,
    ):
        super().__init__(env, name=name, transition_pause=transition_pause)
        self._in = input_stream
        self._out = output_stream
        self._max_elements = max_elements
        self._steps_taken = 0

    def reset(self, go_home: bool = False) -> None:
        super().reset(go_home)
        self._steps_taken = 0

    def _print(self, text: str) -> None:
        print(text, file=self._out or sys.stdout, flush=True)

    def _readline(self) -> str | None:
        line = (self._in or sys.stdin).readline()
        return None if line == "" else line.strip()

    def _budget(self) -> str:
        if self._max_steps:
            return f"step {self._steps_taken} of {self._max_steps}"
        return f"step {self._steps_taken}"

    def _show_screen(self, goal: str) -> None:
        state = self.get_post_transition_state()
        self._print(
            f"\nGoal: {goal}\nScreen: {self.env.foreground_activity_name} ({self._budget()})"
        )
        for i, element in enumerate(state.ui_elements[: self._max_elements]):
            self._print(describe_element(i, element))
        self._print("Action as JSON, 'answer <text>', or 'help' for the action list:")

    def _finish_with_answer(self, line: str, answer: str) -> base_agent.AgentInteractionResult:
        self.env.execute_action(json_action.JSONAction(action_type=json_action.ANSWER, text=answer))
        return base_agent.AgentInteractionResult(True, {"input": line, "answer": answer})

    def step(self, goal: str) -> base_agent.AgentInteractionResult:
        self._steps_taken += 1
        self._show_screen(goal)
        while True:
            line = self._readline()
            if line is None:
                return base_agent.AgentInteractionResult(True, {"input": None, "eof": True})
            parsed = parse_line(line)
            if parsed.kind == "help":
                self._print(help_text())
                continue
            if parsed.kind == "answer":
                return self._finish_with_answer(line, parsed.text)
            if parsed.kind == "maybe_answer":
                self._print(f"End the episode with the answer {parsed.text!r}? [y/N]")
                confirm = self._readline()
                if confirm is not None and confirm.lower() in YES_WORDS:
                    return self._finish_with_answer(line, parsed.text)
                self._print("Not sent. Type an action, 'answer <text>', or 'help'.")
                continue
            if parsed.kind == "error":
                self._print(f"Not a valid action: {parsed.text}")
                return base_agent.AgentInteractionResult(
                    False, {"input": line, "error": parsed.text}
                )
            return self._execute(line, parsed.action)

    def _execute(
        self, line: str, action: json_action.JSONAction | None
    ) -> base_agent.AgentInteractionResult:
        assert action is not None
        if action.action_type == json_action.STATUS:
            return base_agent.AgentInteractionResult(
                True, {"input": line, "action": action.as_dict()}
            )
        error = None
        try:
            self.env.execute_action(action)
        except ValueError as exc:
            error = str(exc)
            self._print(f"Action failed: {exc}")
        return base_agent.AgentInteractionResult(
            False, {"input": line, "action": action.as_dict(), "error": error}
        )
