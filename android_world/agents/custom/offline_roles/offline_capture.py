"""The whole-goal check of a capture ("Take one photo.", "Take one video."), read off the trail.

A camera shows no text that says "a photo was taken": its proof is the shutter tap that went
through in photo mode (a video's is the Stop tap that ended a recording started in video mode).
Without this reading the clause stayed "unknown", the model's honest "done" could quote only
the status-bar clock, which names nothing of the task, and a photo taken was never claimed.
More captures than the goal asks leave it unmet: the extra photo cannot be untaken.
Pure functions over the trail, no model call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from android_world.agents.custom import celil_geometry
from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNKNOWN,
    GOAL_UNMET,
    GoalCheck,
    Observation,
    TrailStep,
)

_CAPTURE = re.compile(
    r"^\s*(?:please\s+)?(?:take|capture|snap|shoot|record)\s+(?P<count>a|an|one|two|three|\d{1,2})"
    r"\s+(?:new\s+)?(?P<kind>photo|picture|pic|video|clip)s?\s*[.!]?\s*$",
    re.I,
)
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3}
_SHUTTER_LABELS = frozenset({"shutter", "shutter button", "take photo", "take picture", "capture"})
_STOP_LABELS = frozenset({"stop", "stop recording"})
_VIDEO_KINDS = frozenset({"video", "clip"})


def parse_capture(clause: str) -> tuple[str, int] | None:
    """("photo" or "video", how many) for a clause that only asks for captures; else None."""
    match = _CAPTURE.match(clause or "")
    if not match:
        return None
    count = match.group("count").lower()
    wanted = int(count) if count.isdigit() else _COUNTS[count]
    kind = "video" if match.group("kind").lower() in _VIDEO_KINDS else "photo"
    return (kind, wanted) if wanted >= 1 else None


def _label(step: TrailStep) -> str:
    return " ".join(step.target.casefold().split())


def _video_mode(observation: Observation) -> bool:
    """The camera's "Video" mode tab is the selected one on the screen tapped."""
    return any(
        element.is_selected
        and " ".join(celil_geometry.element_label(element).casefold().split()) == "video"
        for element in observation.ui_elements
    )


def _captures(kind: str, trail: Sequence[TrailStep], *, ran_only: bool) -> int:
    """Captures of `kind` the trail shows: shutter taps in photo mode, or recordings started
    in video mode and then stopped. `ran_only`: only taps that went through and passed their
    post-check (a second photo leaves the screen as it was, so its tap may fail the
    post-check and still take the photo)."""
    taps = [t for t in trail if t.action_type == "click" and (t.ok or not ran_only)]
    if kind == "photo":
        return sum(1 for t in taps if _label(t) in _SHUTTER_LABELS and not _video_mode(t.screen))
    videos, recording = 0, False
    for t in taps:
        if _label(t) in _SHUTTER_LABELS and _video_mode(t.screen):
            recording = True
        elif recording and _label(t) in _STOP_LABELS:
            videos, recording = videos + 1, False
    return videos


def capture_checks(clauses: Sequence[str], trail: Sequence[TrailStep]) -> list[GoalCheck]:
    """One check per capture clause: done when the trail shows exactly the captures asked
    and no other tap that may have taken one."""
    checks = []
    for clause in clauses:
        parsed = parse_capture(clause)
        if parsed is None:
            continue
        kind, wanted = parsed
        taken = _captures(kind, trail, ran_only=True)
        tried = _captures(kind, trail, ran_only=False)
        what = f"{wanted} {kind}{'s' if wanted > 1 else ''} taken"
        if taken == wanted == tried:
            status, why = GOAL_DONE, f"{taken} {kind} capture(s) went through"
        elif taken > wanted:
            status, why = GOAL_UNMET, f"{taken} {kind} captures went through, not {wanted}"
        else:
            status, why = GOAL_UNKNOWN, f"{taken} of {tried} {kind} capture tap(s) went through"
        checks.append(GoalCheck(what, status, why))
    return checks
