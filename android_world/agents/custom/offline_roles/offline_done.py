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


# Verdicts read straight off the screen's state; every other kind rests on a step taken for the
# sub-goal, which counts only when it is tied to it (see `sub_goal_evidence`).
_STATE_KINDS = frozenset(
    {
        "open",
        "permission",
        "toggle",
        "fill",
        "prepend",
        "append",
        "keypad",
        "new",
        "when",
        "find",
        "delete_all",
        "clear",
        "search",
        "open_item",
    }
)
# Step descriptions quote labels as JSON strings (celil_untrusted.quote); older records used
# single quotes.
_QUOTED_LABEL = re.compile(r""""((?:[^"\\]|\\.)+)"|'([^']+)'""")


def _quoted_labels(text: str) -> list[str]:
    return [double or single for double, single in _QUOTED_LABEL.findall(text)]


# A paste is done when a field holds text after a step that chose 'Paste'.
_STATE_KINDS |= {"paste"}


# State kinds that show only a step of the way (a form open), not the values a sub-goal names.
_WEAK_KINDS = frozenset({"new"})


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
    if intent.kind in _WEAK_KINDS or intent.kind not in _STATE_KINDS | {"delete", "level"}:
        # "A form is open" or "a step for it went through" proves nothing about the values a
        # sub-goal names ("Create a contact for Ann Lee"): those must show on the screen.
        missing = offline_goal.values_missing(intent.sub_goal, observation)
        if missing:
            return Evidence(False, f"{missing[0]!r} is not on the screen", "none")
    if intent.kind in _STATE_KINDS or intent.kind == "delete":
        return Evidence(True, why, "screen")
    if intent.kind == "level":
        return Evidence(True, why, "transition" if "dragged" in why else "screen")
    if intent.kind == "tap":
        return Evidence(True, why, "screen" if "is showing" in why else "transition")
    if intent.kind in ("select", "back", "first_item"):
        return Evidence(True, why, "transition")
    if _step_names_sub_goal(intent, history):
        return Evidence(True, why, "transition")
    return Evidence(True, why, "action")
