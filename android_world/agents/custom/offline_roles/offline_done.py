"""The offline progress check: whether a sub-goal shows done, by its intent family's done
check (`handlers.HANDLERS`), and what kind of evidence backs the verdict."""

from __future__ import annotations

import re

from android_world.agents.custom.celil_protocols import Evidence, Observation
from android_world.agents.custom.offline_roles import offline_goal
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.handlers import HANDLERS
from android_world.agents.custom.offline_roles.offline_intent import Intent


def sub_goal_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    """Whether the screen (or the agent's last successful step) shows the sub-goal done."""
    handler = HANDLERS.get(intent.kind)
    if handler is None:
        return False, "not checkable from the screen"
    return handler.done(intent, observation, history)


# Step descriptions quote labels as JSON strings (celil_untrusted.quote); older records used
# single quotes.
_QUOTED_LABEL = re.compile(r""""((?:[^"\\]|\\.)+)"|'([^']+)'""")


def _quoted_labels(text: str) -> list[str]:
    return [double or single for double, single in _QUOTED_LABEL.findall(text)]


# Evidence shapes (`IntentHandler.evidence`) that prove nothing about the values a sub-goal
# names ("a form is open", "a step for it went through"): those must also show on the screen.
_VALUES_UNSHOWN = frozenset({"form", "control", "step", "named_step"})


# Words that talk about the work, not about anything on a screen ("Do the whole task as asked"):
# a step on a control that happens to share one ("Tasks") is no step for such a sub-goal.
_META_WORDS = frozenset(
    {"task", "tasks", "whole", "asked", "goal", "step", "steps", "everything", "done"}
    | {"complete", "finish", "finished", "verify", "check", "sure", "request", "instructions"}
)


def _step_names_sub_goal(intent: Intent, history: list[screen.PastStep]) -> bool:
    """The latest step that went through for this sub-goal aimed at a control the sub-goal
    names ("Take a photo" -> 'Shutter'), not at whatever happened to be on screen."""
    step = screen.acted_on(history, intent.sub_goal)
    if step is None:
        return False
    labels = _quoted_labels(step.action) or [step.action]
    words = text_lib.content_words(intent.subject or intent.sub_goal)
    terms = text_lib.expand_terms([w for w in words if w not in _META_WORDS])
    return any(text_lib.label_relevance(terms, label) >= 0.5 for label in labels)


def sub_goal_evidence(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> Evidence:
    """`sub_goal_done` with what kind of evidence backs it (celil_protocols.EVIDENCE_KINDS).

    A switch, a field, a form, the foreground app: `screen`. A control the sub-goal names that
    was tapped and answered (a deleted row gone from its list, a pause shown as resume):
    `screen` or `transition`. A step that merely ran for a sub-goal nothing on screen can
    confirm: `action`, which the agent does not count as done.
    """
    done, why = sub_goal_done(intent, observation, history)
    if not done:
        return Evidence(False, why, "none")
    handler = HANDLERS.get(intent.kind)
    shape = handler.evidence if handler is not None else "named_step"
    if shape in _VALUES_UNSHOWN:
        # "Create a contact for Ann Lee": a form open or a tap proves no value is in place.
        missing = offline_goal.values_missing(intent.sub_goal, observation)
        if missing:
            return Evidence(False, f"{missing[0]!r} is not on the screen", "none")
    if shape in ("state", "form", "gone"):
        return Evidence(True, why, "screen")
    if shape == "slider":
        return Evidence(True, why, "transition" if "dragged" in why else "screen")
    if shape == "control":
        return Evidence(True, why, "screen" if "is showing" in why else "transition")
    if shape == "step":
        return Evidence(True, why, "transition")
    if _step_names_sub_goal(intent, history):
        return Evidence(True, why, "transition")
    return Evidence(True, why, "action")
