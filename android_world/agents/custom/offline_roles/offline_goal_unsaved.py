"""A record still in its editor: not saved, whatever pickers and dialogs came and went over it.

A goal that creates or sends something ("Add the following recipes ...", "create a recurring
event ...") is done once the thing is saved. The goal check reads "saved" off the trail
(offline_goal `_commit_checks`): since the last typing, a tap that commits, or a screen that
left the form. Two readings of that let a form never saved through:

- A picker or a dialog opened from the form (a time, a date, a repetition) is a screen without
  the form's fields, and its "OK" is a commit word; both were taken as the form saved, so
  "saved" stopped being the question, and a planner asked with the screenshot could call the
  goal done while the form sat open (a recurring event claimed from its repetition dialog,
  "15" of "15 minutes" quoted). Now a commit-worded tap or key after which the form still holds
  the last typed text in a field did not close it; only a control named for saving ("Save",
  "Send", "Create", "Submit", "Rename") counts then (an editor that stays open after its own
  Save). A screen without the form counts as leaving it only right after the typing (Enter
  submitted a one-field dialog) or when it shows the record outside any field (the typed text
  or the thing's name: a list row, a detail view); a picker shows neither, and leaving a form
  by a tap that does not commit saves nothing.
- With no commit, the answer was `unknown`, and a noisy planner's "done" quoting a number on
  the form ("6" of "6 servings") claimed recipes never saved. When the last screen with the
  form held the last typed text in a field and nothing committed since, the screens show more
  than "not known": the record is in its editor (on the screen, or under a picker opened from
  it), not saved, and the check is `unmet` (the episode goes on, the executor is told the form
  is unsaved, nothing is claimed). A plan step that is the goal in other words ("Create a new
  contact named Bob") is then not done before its Save either: no contact exists before it.

Every other case keeps its reading (a field cleared or holding other text: `unknown`).
"""

from __future__ import annotations

from collections.abc import Sequence

from android_world.agents.custom.celil_protocols import Observation, TrailStep
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.offline_goal_screens import (
    form_fields,
    held_texts,
    texts,
    value_shown,
)

# Controls named for saving or sending the form itself: a tap on one commits the form even when
# the app keeps the editor open after it. "OK", "Done", "Yes", "Apply", Back and Enter also
# answer a dialog or hide the keyboard, so they commit only when the form goes.
_SAVE_WORDS = frozenset({"save", "send", "create", "submit", "rename"})


def left_in_open_form(typing: TrailStep, observation: Observation) -> bool:
    """`observation` is a form one of whose fields holds what `typing` typed."""
    typed = (typing.typed or "").strip()
    if not typed:
        return False
    return value_shown(typed, held_texts(observation))


def names_a_save(step: TrailStep) -> bool:
    return bool(set(text_lib.words(step.target or "")) & _SAVE_WORDS)


def form_kept(typing: TrailStep, step: TrailStep, after: Observation) -> bool:
    """A commit-worded tap or key (`step`) after which the form still holds the typed text
    (`after`, the next screen): it answered a dialog over the form or hid the keyboard, unless
    it names a save."""
    return left_in_open_form(typing, after) and not (
        step.action_type in ("click", "long_press", "double_tap") and names_a_save(step)
    )


def form_left(typing: TrailStep, screens: Sequence[Observation], names: Sequence[str]) -> bool:
    """Some screen since the typing (`screens`, the current one last) is without the form and
    either came right after the typing (Enter submitted a one-field dialog) or shows the record
    outside any field (the typed text or the thing's name, `names`: a list row, a detail view).
    A picker or dialog opened from the form shows neither; leaving the form by a commit tap is
    read by the caller, and leaving by any other tap saves nothing."""
    names = [n for n in (typing.typed, *names) if n and n.strip()]
    for index, observation in enumerate(screens):
        if form_fields(observation):
            continue
        if index == 0 or any(value_shown(n, texts(observation, editable=False)) for n in names):
            return True
    return False


def in_editor(typing: TrailStep, screens: Sequence[Observation]) -> bool:
    """The last screen with the form (`screens` since the typing, the current one last) held the
    typed text in a field: with nothing committed since, the record is still in its editor,
    open on the screen or under a picker or dialog opened from it."""
    forms = [o for o in screens if form_fields(o)]
    return bool(forms) and left_in_open_form(typing, forms[-1])
