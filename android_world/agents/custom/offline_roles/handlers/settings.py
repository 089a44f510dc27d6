"""Intent family: device settings. Switches ("Turn wifi off"), sliders ("Set brightness to
max") and permission requests ("Allow any permission requests")."""

from __future__ import annotations

from android_world.agents.custom.celil_geometry import element_label
from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.offline_common import Chosen, make_action
from android_world.agents.custom.offline_roles.offline_handler import IntentHandler
from android_world.agents.custom.offline_roles.offline_intent import Intent
from android_world.agents.custom.offline_roles.offline_moves import ActorBase
from android_world.env import json_action


def toggle_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    index = screen.find_switch(observation, intent.subject)
    if index is not None and bool(observation.ui_elements[index].is_checked) == intent.state:
        state = "on" if intent.state else "off"
        return True, f"the {intent.subject} switch shows {state}"
    return False, f"no {intent.subject} switch in the wanted state is visible"


def level_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    index = screen.find_slider(observation, intent.subject)
    if index is not None:
        at = screen.slider_at(observation.ui_elements[index], intent.level or "max")
        if at:
            return True, f"the {intent.subject} slider is at its {intent.level}"
        if at is None and screen.acted_on(history, intent.sub_goal, ("scroll", "swipe")):
            return True, f"the {intent.subject} slider was dragged to its {intent.level}"
    return False, f"the {intent.subject} slider is not at its {intent.level}"


def permission_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    if screen.grant_button(observation) is None:
        return True, "no permission request is showing"
    return False, "a permission request is showing"


def act_toggle(
    gen: ActorBase,
    intent: Intent,
    info: text_lib.GoalInfo,
    obs: Observation,
    history: list[screen.PastStep],
    signature: str,
) -> Chosen | None:
    index = screen.find_switch(obs, intent.subject)
    if index is None:
        return None
    action = make_action(json_action.CLICK, index=index)
    if not gen._usable(action, signature):
        return None
    state = "on" if intent.state else "off"
    return (
        action,
        f"flip the {intent.subject} switch {state}",
        element_label(obs.ui_elements[index]),
    )


def act_level(
    gen: ActorBase,
    intent: Intent,
    info: text_lib.GoalInfo,
    obs: Observation,
    history: list[screen.PastStep],
    signature: str,
) -> Chosen | None:
    index = screen.find_slider(obs, intent.subject)
    if index is None:
        return None
    # Scroll names the content direction: "left" moves the finger right (maximum).
    direction = "left" if intent.level == "max" else "right"
    action = make_action(json_action.SCROLL, index=index, direction=direction)
    if not gen._usable(action, signature):
        return None
    return (
        action,
        f"drag the {intent.subject} slider to its {intent.level}",
        element_label(obs.ui_elements[index]),
    )


def act_permission(
    gen: ActorBase,
    intent: Intent,
    info: text_lib.GoalInfo,
    obs: Observation,
    history: list[screen.PastStep],
    signature: str,
) -> Chosen | None:
    # Reached only when no request is showing (the executor accepts one first).
    return None, "no permission request to accept", ""


HANDLERS = (
    IntentHandler("toggle", "settings", toggle_done, act_toggle, evidence="state"),
    IntentHandler("level", "settings", level_done, act_level, evidence="slider"),
    IntentHandler(
        "permission", "settings", permission_done, act_permission, stage="prompt", evidence="state"
    ),
)
