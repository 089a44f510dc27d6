"""Probes of each role's model in the shape the run uses: what `--check_models` sends.

A model that answers a ping can still fail the run: a planner that cannot produce the plan
schema, a verifier whose votes cannot be read, a UI-TARS build that taps the wrong place. The
requests and the reading of the answers belong to the roles (their prompts' answer shapes,
their parsers, the UI-TARS dialect), so they live here, in the plugin; the harness's check only
resolves the roles, sends these requests and prints the verdicts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from android_world.agents.custom.dialects import uitars
from android_world.agents.custom.model_clients.call_types import ModelRequest
from android_world.agents.custom.roles import celil_maestro
from android_world.agents.custom.roles import celil_quality_control as qc

PROBE_GOAL = "Turn on Wi-Fi."

Accept = Callable[[str], str | None]
"""None when an answer is usable, else why not (one phrase)."""


@dataclasses.dataclass(frozen=True)
class Probe:
    request: ModelRequest
    accept: Accept


def plan_probe(screenshot: np.ndarray | None) -> Probe:
    """A planning request with the plan schema, read back with the planner's own parser (which
    refuses an echo of the prompt's example)."""
    prompt = (
        "You plan how a phone-automation agent reaches a goal on an Android phone.\n"
        f"Task: {PROBE_GOAL}\nThe phone shows its home screen.\n"
        "Split the task into 1 to 4 sub-goals a person could confirm by looking at the phone.\n"
        f"Reply with JSON only: {celil_maestro.PLAN_FORMAT}"
    )

    def accept(text: str) -> str | None:
        answer, problem = celil_maestro.parse_plan_text(text, celil_maestro.PLAN_EXAMPLES)
        return None if answer is not None else f"no usable plan: {problem}"

    images = (screenshot,) if screenshot is not None else ()
    return Probe(ModelRequest(prompt, images, celil_maestro.PLAN_SCHEMA), accept)


def vote_probe(screenshot: np.ndarray | None) -> Probe:
    """A verifier's vote with the vote schema, read with the verifiers' own parser."""
    prompt = (
        "You review one action that a phone-automation agent is about to take, before it runs.\n"
        f"Task: {PROBE_GOAL}\nCurrent screen: the home screen.\n"
        "Proposed action: open the Settings app.\n"
        "Score the action from 0 (certainly wrong or harmful) to 10 (certainly right).\n"
        f"Reply with JSON only: {qc.VOTE_FORMAT}"
    )

    def accept(text: str) -> str | None:
        vote = qc.parse_vote("probe", text, 0.0)
        return None if vote.parseable else f"unusable vote: {vote.error}"

    images = (screenshot,) if screenshot is not None else ()
    return Probe(ModelRequest(prompt, images, qc.VOTE_SCHEMA), accept)


ROLE_PROBES: dict[str, Callable[[np.ndarray | None], Probe]] = {
    "maestro": plan_probe,
    "verifiers": vote_probe,
}


@dataclasses.dataclass(frozen=True)
class GroundingRequest:
    """A tap request on `pixels` and what is needed to map the answer back to the screen."""

    request: ModelRequest
    sent_size: tuple[int, int]
    screen_size: tuple[int, int]


def grounding_request(pixels: np.ndarray, target_name: str) -> GroundingRequest:
    """Ask the executor to tap `target_name`, in the run's shape: a chat with an earlier screen
    and answer before the current screen, so a server that takes one image per request (vLLM's
    default) is found here, and the count it takes is learned, as in the run."""
    sent, sent_size = uitars.resize_for_model(pixels)
    earlier = uitars.HistoryTurn(sent, "Thought: I look at the screen first.\nAction: press_home()")
    messages = uitars.build_messages(
        f"Tap the '{target_name}' element on the screen.", sent, [earlier], max_images=2
    )
    screen_size = (int(pixels.shape[1]), int(pixels.shape[0]))
    return GroundingRequest(ModelRequest.chat(messages), sent_size, screen_size)


def grounding_point(text: str, probe: GroundingRequest, coordinates: str) -> tuple[int, int] | str:
    """The screen point the executor's answer taps (the run's parser and coordinate mapping),
    or why the answer has none."""
    action = uitars.parse_uitars_output(text)
    if isinstance(action, uitars.UiTarsParseFailure):
        return action.reason
    if getattr(action, "start", None) is None:
        return "action has no point"
    x, y = action.start
    return uitars.to_screen(x, y, coordinates, probe.sent_size, probe.screen_size)
