"""The offline roles' intent table: every intent kind the sub-goal grammar reads
(`offline_intent.RULES`) has one row here, owned by the family module that knows it, and every
goal shape the planner knows has one plan rule. The planner, executor and verifier dispatch
through `HANDLERS` and `PLAN_RULES` only.

Families: `apps` (open an app, go back, tap a control, start a new record), `settings` (switches,
sliders, permission requests), `forms` (typing into fields, pasting, the clock's keypad, search
boxes; plans for records, messages, notes and durations), `lists` (deleting, selecting, opening
and emptying list items; plans for deletes and file moves), `dates` (date and time pickers,
today's date) and `questions` (reading answers off lists and day views).
"""

from __future__ import annotations

from android_world.agents.custom.offline_roles.handlers import (
    apps,
    dates,
    forms,
    lists,
    questions,
    settings,
)
from android_world.agents.custom.offline_roles.offline_handler import IntentHandler, PlanRule

FAMILIES = (apps, settings, forms, lists, dates, questions)
HANDLERS: dict[str, IntentHandler] = {
    handler.kind: handler for family in FAMILIES for handler in family.HANDLERS
}
# First match wins, so the order is the precedence among goal shapes.
PLAN_RULES: tuple[PlanRule, ...] = (
    questions.ASK,
    lists.MOVE,
    lists.DELETE_DAY,
    lists.CLEAR,
    lists.DELETE,
    forms.DURATION,
    forms.EDIT,
    forms.REPLY,
    forms.RECORDS,
    forms.FORM,
    apps.MEDIA,
)
