"""A person drives the device from the terminal: for trying tasks by hand and checking the harness.

Each step prints the goal and the numbered UI elements, then reads one line:
  - a JSON action, e.g. {"action_type": "click", "index": 3}; `status` ends the episode;
  - any other text is the final answer: it is sent as an `answer` action and the episode ends
    (upstream's HumanAgent behaves the same way);
  - an empty line is a `wait`; end of input (Ctrl-D) ends the episode without acting.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

import pydantic

from android_world.agents import base_agent
from android_world.env import interface, json_action


class HumanAgentConfig(pydantic.BaseModel):
    """`agent.configurations.human_agent` keys."""

    model_config = pydantic.ConfigDict(extra="forbid")

    name: str = "human_agent"
    max_elements: int = pydantic.Field(default=60, ge=0)


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

    def _print(self, text: str) -> None:
        print(text, file=self._out or sys.stdout, flush=True)

    def step(self, goal: str) -> base_agent.AgentInteractionResult:
        state = self.get_post_transition_state()
        self._print(f"\nGoal: {goal}\nScreen: {self.env.foreground_activity_name}")
        for i, element in enumerate(state.ui_elements[: self._max_elements]):
            self._print(describe_element(i, element))
        self._print('Action as JSON (e.g. {"action_type": "click", "index": 0}) or an answer:')
        line = (self._in or sys.stdin).readline()
        if line == "":
            return base_agent.AgentInteractionResult(True, {"input": None, "eof": True})
        line = line.strip()
        if not line:
            action = json_action.JSONAction(action_type=json_action.WAIT)
        elif line.startswith("{"):
            try:
                action = json_action.JSONAction(**json.loads(line))
            except (ValueError, TypeError) as exc:
                self._print(f"Not a valid action: {exc}")
                return base_agent.AgentInteractionResult(False, {"input": line, "error": str(exc)})
        else:
            self.env.execute_action(json_action.JSONAction(action_type="answer", text=line))
            return base_agent.AgentInteractionResult(True, {"input": line, "answer": line})
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
