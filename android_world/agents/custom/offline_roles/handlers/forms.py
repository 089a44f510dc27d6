"""Intent family: forms and text. Typing a value into a form's field or choosing it from a
list ("Enter 'Ann' as the name"), adding text at the top or end of a note, pasting the
clipboard, keying a duration into the clock's keypad, typing into a search box; plus the plan
rules for goals that fill forms: new records (contacts, expenses, recipes, events), replies and
messages, note edits, timer durations."""

from __future__ import annotations

import re

from android_world.agents.custom.celil_geometry import element_label
from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.handlers.dates import when_sub_goals
from android_world.agents.custom.offline_roles.offline_common import (
    CONFIRM_LABELS,
    TEXT_SLOTS,
    Chosen,
    make_action,
    name_parts,
)
from android_world.agents.custom.offline_roles.offline_handler import (
    IntentHandler,
    PlanDraft,
    PlanRule,
    on_screen,
)
from android_world.agents.custom.offline_roles.offline_intent import (
    DATE_SOURCE_APP,
    ORDINALS,
    READ_DATE_SUB_GOAL,
    Intent,
)
from android_world.agents.custom.offline_roles.offline_moves import ActorBase
from android_world.env import json_action

# A paste is done when a field holds text after a step that chose 'Paste'.
_PASTE_LABEL = re.compile(r"""["']paste["']""", re.I)
# "the clipboard's text" is pasted, not typed.
_CLIPBOARD = re.compile(r"\bclipboard\b", re.I)


def fill_done(intent: Intent, observation: Observation) -> tuple[bool, str]:
    elements = observation.ui_elements
    value = intent.value or ""
    holding = [
        i
        for i in screen.fields(observation)
        if text_lib.normalize(screen.field_text(elements[i])) == text_lib.normalize(value)
    ]
    if holding:
        return True, f"a field holds {value!r}"
    chosen = screen.find_text(observation, value, exact=True)
    if (
        chosen is not None
        and not screen.is_field(elements[chosen])
        and screen.form_fields(observation)
    ):
        return True, f"the form shows {value!r} chosen"
    first = screen.find_field(observation, "first name", minimum=0.9)
    last = screen.find_field(observation, "last name", minimum=0.9)
    parts = name_parts(value)
    if (
        intent.field
        and "name" in intent.field
        and first is not None
        and last is not None
        and (
            len(parts) == 2
            and [screen.field_text(elements[first]), screen.field_text(elements[last])] == parts
        )
    ):
        return True, "first and last name are filled in"
    return False, f"no field holds {value!r} yet"


def paste_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    step = screen.acted_on(history, intent.sub_goal)
    filled = any(screen.field_text(observation.ui_elements[i]) for i in screen.fields(observation))
    if step is not None and _PASTE_LABEL.search(step.action) and filled:
        return True, "the clipboard was pasted into the field"
    return False, "nothing was pasted yet"


def added_text_done(intent: Intent, observation: Observation, at_top: bool) -> tuple[bool, str]:
    """Adding to a note leaves its old text in the field, so the sub-goal is done when a field
    starts (at the top) or ends (at the end) with the added text, compared normalised."""
    added = text_lib.normalize(intent.value)
    for i in screen.fields(observation):
        current = text_lib.normalize(screen.field_text(observation.ui_elements[i]))
        placed = current.startswith(added) if at_top else current.endswith(added)
        if placed:
            return True, f"the text was added at the {'top' if at_top else 'end'}"
    return False, "the text is not at the top yet" if at_top else "the text is not there yet"


def keypad_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    shown = screen.keypad_digits(observation)
    if shown is not None and shown == intent.value:
        return True, "the display shows the wanted duration"
    return False, "the display does not show the wanted duration"


def search_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    for i in screen.fields(observation):
        held = screen.field_text(observation.ui_elements[i])
        if text_lib.normalize(held) == text_lib.normalize(intent.value):
            return True, f"the search box holds {intent.value!r}"
    return False, "the search box does not hold it yet"


def claimed_by_other_slot(
    obs: Observation, index: int, field: str, fields: list[tuple[str, str]]
) -> bool:
    """Whether the field's label names another of the goal's slots (a "Name" box is not where
    the note's text goes)."""
    names = screen.element_names(obs, index)
    return any(
        text_lib.label_relevance(text_lib.field_terms(other), n) >= 0.8
        for other, _ in fields
        if other != field
        for n in names
    )


def named_for_something_else(obs: Observation, index: int, field: str) -> bool:
    """Whether the field carries a name of its own that has nothing to do with this slot: the
    recipe's directions do not go into an empty "Source" box because it is the only empty one
    left, nor an SMS text into "Add Contact or Number"."""
    element = obs.ui_elements[index]
    names = [n for n in screen.element_names(obs, index) if n != screen.field_text(element)]
    if not names:
        return False
    terms = text_lib.field_terms(field)
    return max(text_lib.label_relevance(terms, n) for n in names) < 0.3


def _fill_targets(obs: Observation, field: str, value: str) -> list[tuple[str, str]]:
    """(field, text) pairs to type: a two-part name goes into first and last name when the form
    has both."""
    targets: list[tuple[str, str]] = [(field, value)]
    parts = name_parts(value)
    if "name" in field and len(parts) == 2:
        first = screen.find_field(obs, "first name", minimum=0.9)
        last = screen.find_field(obs, "last name", minimum=0.9)
        if first is not None and last is not None:
            targets = [("first name", parts[0]), ("last name", parts[1])]
    return targets


class FormActs(ActorBase):
    """The executor's moves on forms and text fields."""

    def _add_text(
        self, intent: Intent, obs: Observation, signature: str, at_top: bool
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """Typing goes to the end of a field, so adding at the top rewrites the field: the new
        line, then what it held."""
        candidates = screen.form_fields(obs)
        if not candidates:
            return None
        index = screen.find_field(obs, intent.field or "text") or candidates[0]
        if at_top:
            current = screen.field_text(obs.ui_elements[index])
            text = f"{intent.value}\n{current}" if current else intent.value or ""
            action = make_action(json_action.INPUT_TEXT, index=index, text=text, clear_text=True)
        else:
            action = make_action(json_action.INPUT_TEXT, index=index, text=intent.value)
        if not self._usable(action, signature):
            return None
        where = "top" if at_top else "end"
        return (
            action,
            f"add {intent.value!r} at the {where} of the text",
            element_label(obs.ui_elements[index]),
        )

    def _paste(
        self, intent: Intent, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """Android pastes from a text field's long-press menu: choose Paste when it shows,
        else hold the text field (the last one: a message box, a note's body). The intent is
        unused: every on-screen act is called alike (`offline_handler.on_screen`)."""
        for i in screen.content_indices(obs):
            element = obs.ui_elements[i]
            if element.is_clickable and text_lib.normalize(element_label(element)) == "paste":
                return self._click(obs, i, signature, "paste the clipboard")
        fields = screen.fields(obs)
        if not fields:
            return None
        if all(screen.field_text(obs.ui_elements[i]) for i in fields):
            # A filled form (a new file's name) stands before the body the paste goes into.
            for i in screen.content_indices(obs):
                element = obs.ui_elements[i]
                if element.is_clickable and text_lib.normalize(element_label(element)) in (
                    CONFIRM_LABELS
                ):
                    return self._click(obs, i, signature, "confirm the form first")
        return self._click(obs, fields[-1], signature, "hold the text field for Paste", long=True)

    def _keypad(
        self, intent: Intent, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        shown = screen.keypad_digits(obs)
        target = intent.value or ""
        if shown is None:
            return None
        typed = "" if shown == "0" else shown
        if not target.startswith(typed) or len(typed) >= len(target):
            return None
        digit = target[len(typed)]
        index = screen.digit_button(obs, digit)
        if index is None:
            return None
        return self._click(obs, index, signature, f"key in the next digit {digit}")

    def _search(
        self, intent: Intent, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """Type the query into a search box, or open the search box first."""
        boxes = [i for i in screen.fields(obs) if i not in screen.form_fields(obs)]
        if boxes:
            action = make_action(json_action.INPUT_TEXT, index=boxes[0], text=intent.value)
            if self._usable(action, signature):
                return (
                    action,
                    f"search for {intent.value!r}",
                    element_label(obs.ui_elements[boxes[0]]),
                )
        for i in screen.content_indices(obs):
            element = obs.ui_elements[i]
            names = text_lib.normalize(" ".join(screen.labels(element)))
            if element.is_clickable and any(w in names.split() for w in screen.SEARCH_WORDS):
                chosen = self._click(obs, i, signature, "open the search")
                if chosen is not None:
                    return chosen
        return None

    def _fill(
        self,
        intent: Intent,
        obs: Observation,
        signature: str,
        other_fields: list[tuple[str, str]] = (),  # type: ignore[assignment]
    ) -> Chosen | None:
        value = intent.value or ""
        field = intent.field or ""
        # Plans store sub-goals on one line; type the goal's own text (line breaks kept).
        for _, raw in other_fields:
            if raw != value and text_lib.normalize(raw) == text_lib.normalize(value):
                value = raw
        targets = _fill_targets(obs, field, value)
        form = screen.form_fields(obs)
        typed = self._type_named(obs, signature, targets, form, other_fields)
        if typed is not None:
            return typed
        chosen = self._choose_value(obs, signature, field, value, form)
        if chosen is not None:
            return chosen
        return self._type_only_empty(obs, signature, field, targets[0][1], form, other_fields)

    def _type_named(
        self,
        obs: Observation,
        signature: str,
        targets: list[tuple[str, str]],
        form: list[int],
        other_fields: list[tuple[str, str]],
    ) -> Chosen | None:
        """Type each target's text into the field named for it (or the form's only text field)."""
        elements = obs.ui_elements
        for name, text in targets:
            index = screen.find_field(obs, name)
            if (
                index is None
                and len(form) == 1
                and name in TEXT_SLOTS
                and not claimed_by_other_slot(obs, form[0], name, other_fields)
            ):
                index = form[0]
            if index is None:
                continue
            current = screen.field_text(elements[index])
            if text_lib.normalize(current) == text_lib.normalize(text):
                continue
            action = make_action(
                json_action.INPUT_TEXT, index=index, text=text, clear_text=bool(current) or None
            )
            if self._usable(action, signature):
                return (
                    action,
                    f"type {text!r} into the {name} field",
                    element_label(elements[index]),
                )
        return None

    def _choose_value(
        self, obs: Observation, signature: str, field: str, value: str, form: list[int]
    ) -> Chosen | None:
        """A value chosen from a list: pick it when the list is open, else open the chooser."""
        elements = obs.ui_elements
        option = screen.find_text(obs, value, exact=True)
        if option is not None and not screen.is_field(elements[option]) and not form:
            chosen = self._click(obs, option, signature, f"choose {value!r}")
            if chosen is not None:
                return chosen
        if not form:
            container = screen.more_below(obs)
            if container is not None:
                action = make_action(json_action.SCROLL, index=container, direction="down")
                if self._usable(action, signature):
                    return action, f"scroll the list for {value!r}", "list"
        terms = text_lib.field_terms(field)
        best: tuple[float, int] | None = None
        for i in screen.content_indices(obs):
            element = elements[i]
            if screen.is_field(element) or screen.in_title_bar(element, obs.screen_size):
                continue
            score = max(
                (text_lib.label_relevance(terms, n) for n in screen.labels(element)), default=0.0
            )
            if score >= 0.8 and (best is None or score > best[0]):
                best = (score, i)
        if best is not None and form:
            chosen = self._click(obs, best[1], signature, f"open the {field} chooser")
            if chosen is not None:
                return chosen
        # No control is named for the slot, but the form has one drop-down: its value is chosen
        # there ("Phone Label: Home" next to a phone number); the open list is handled above.
        spinners = screen.drop_downs(obs)
        if best is None and form and len(spinners) == 1:
            return self._click(obs, spinners[0], signature, f"open the drop-down for {field}")
        return None

    def _type_only_empty(
        self,
        obs: Observation,
        signature: str,
        field: str,
        text: str,
        form: list[int],
        other_fields: list[tuple[str, str]],
    ) -> Chosen | None:
        """No labelled field: a single empty field that no other slot claims takes the text;
        every field filled and the slot still has nowhere to go: confirm this step of the form."""
        elements = obs.ui_elements
        empty = [i for i in form if not screen.field_text(elements[i])]
        free = [
            i
            for i in empty
            if not claimed_by_other_slot(obs, i, field, other_fields)
            and not named_for_something_else(obs, i, field)
        ]
        if len(free) == 1 and len(empty) == 1:
            action = make_action(json_action.INPUT_TEXT, index=free[0], text=text)
            if self._usable(action, signature):
                return (
                    action,
                    f"type {text!r} into the only empty field",
                    element_label(elements[free[0]]),
                )
        if form and not empty:
            for i in screen.content_indices(obs):
                element = elements[i]
                if (
                    element.is_clickable
                    and text_lib.normalize(element_label(element)) in CONFIRM_LABELS
                ):
                    chosen = self._click(obs, i, signature, "confirm this step of the form")
                    if chosen is not None:
                        return chosen
        return None


def act_fill(
    gen: FormActs,
    intent: Intent,
    info: text_lib.GoalInfo,
    obs: Observation,
    history: list[screen.PastStep],
    signature: str,
) -> Chosen | None:
    """The goal's other slots keep a field named for one of them from taking this value."""
    return gen._fill(intent, obs, signature, info.fields)


def keypad_target_ok(
    intent: Intent, obs: Observation, index: int, info: text_lib.GoalInfo | None
) -> bool:
    label = text_lib.normalize(element_label(obs.ui_elements[index]))
    return bool(label) and label.isdigit() and label in (intent.value or "")


def paste_target_ok(
    intent: Intent, obs: Observation, index: int, info: text_lib.GoalInfo | None
) -> bool:
    """The Paste item, the field to hold, a filled form's OK."""
    element = obs.ui_elements[index]
    label = text_lib.normalize(element_label(element))
    form_ok = label in CONFIRM_LABELS and bool(screen.form_fields(obs))
    return label == "paste" or screen.is_field(element) or form_ok


def fill_target_ok(
    intent: Intent, obs: Observation, index: int, info: text_lib.GoalInfo | None
) -> bool:
    """A form's OK, the value's own row, the slot's chooser or the form's only drop-down."""
    element = obs.ui_elements[index]
    label = text_lib.normalize(element_label(element))
    if label in CONFIRM_LABELS and screen.form_fields(obs):
        return True
    if label == text_lib.normalize(intent.value):
        return True
    terms = text_lib.field_terms(intent.field or "")
    best = max(
        (
            text_lib.label_relevance(terms, n)
            for i in screen.content_indices(obs)
            if not screen.is_field(obs.ui_elements[i])
            and not screen.in_title_bar(obs.ui_elements[i], obs.screen_size)
            for n in screen.labels(obs.ui_elements[i])
        ),
        default=0.0,
    )
    mine = max((text_lib.label_relevance(terms, n) for n in screen.labels(element)), default=0)
    if mine >= 0.8:
        return True
    # No control is named for the slot: the form's only drop-down is where its value goes.
    spinners = screen.drop_downs(obs)
    return best < 0.8 and spinners == [index] and bool(screen.form_fields(obs))


def write_duration(d: PlanDraft) -> bool:
    """ "Set a timer for 2 hours": the clock's tab, the keypad, then Start unless told not to."""
    info, subs, obj, forbidden, creating = d.info, d.subs, d.obj, d.forbidden, d.creating
    if info.duration is None:
        return False
    if obj in ("timer", "stopwatch", "alarm"):
        subs.append(f"Tap {obj.title()}")
    h, m, sec = info.duration
    subs.append(f"Set the duration to {h} hours {m} minutes {sec} seconds")
    if not forbidden & {"start", "save"} and creating - {"create", "make", "new"}:
        subs.append("Tap Start")
    return True


def write_edit(d: PlanDraft) -> bool:
    """Edit a note: open it, add text at its top or end or retype it, save."""
    info, subs, forbidden = d.info, d.subs, d.forbidden
    if not (info.edit or info.append or info.prepend):
        return False
    if info.edit:
        subs.append(f"Tap '{info.edit}'")
    if info.prepend:
        subs.append(f"Prepend '{info.prepend}' to the text")
    if info.append:
        subs.append(f"Append '{info.append}' to the text")
    subs += [f"Enter '{v}' as the {k}" for k, v in info.fields if k == "text"]
    if "save" not in forbidden:
        subs.append("Tap Save")
    return True


def write_reply(d: PlanDraft) -> bool:
    """Reply to a conversation (the named number's, else the latest), type, send."""
    info, subs, fields = d.info, d.subs, d.fields
    if "reply" not in d.verbs:
        return False
    if "phone" in fields:
        subs.append(f"Tap '{fields['phone']}'")
    else:
        subs.append("Open the most recent conversation")
    subs += [f"Enter '{v}' as the {k}" for k, v in info.fields if k != "phone"]
    subs.append("Tap Send")
    return True


def write_records(d: PlanDraft) -> bool:
    """Several new records in one goal: one round of form filling per record."""
    info, subs, obj = d.info, d.subs, d.obj
    if not (d.creating and len(info.records) >= 2):
        return False
    # One round per record; the ordinal keeps each round's sub-goals apart.
    for n, record in enumerate(info.records[: len(ORDINALS)]):
        tag = f" ({ORDINALS[n]})"
        subs.append(f"Start a new {obj}{tag}")
        subs += [f"Enter '{v}' as the {k}{tag}" for k, v in record]
        subs.append(f"Tap Save{tag}")
    d.max_sub_goals = max(d.max_sub_goals, len(subs) + 2)
    return True


def write_form(d: PlanDraft) -> bool:
    """One new record or message: start it, type each field, dates and repetition, save/send."""
    info, subs, obj, verbs, forbidden, creating = (
        d.info,
        d.subs,
        d.obj,
        d.verbs,
        d.forbidden,
        d.creating,
    )
    if not (info.fields or creating):
        return False
    if creating and not info.toggles:
        subs.append(f"Start a new {obj}")
    for field, value in info.fields:
        if not _CLIPBOARD.search(value):  # "the clipboard's text" is pasted, not typed
            subs.append(f"Enter '{value}' as the {field}")
    subs += when_sub_goals(info.when)
    repeat = text_lib.repetition(info.goal)
    if repeat:  # "recurs weekly": the form's repetition control, then the choice
        subs += ["Tap Repetition", f"Tap {repeat}"]
    relative = info.when is not None and text_lib.is_relative_day(info.when.date)
    if relative and DATE_SOURCE_APP not in info.apps:  # "for tomorrow": read today first
        subs[:0] = [f"Open {DATE_SOURCE_APP}", READ_DATE_SUB_GOAL]
    if "send" in verbs and "send" not in forbidden:
        subs.append("Tap Send")
    elif "save" not in forbidden and (info.fields or creating):
        subs.append("Tap Save")
    return True


def _added_text_handler(kind: str, at_top: bool) -> IntentHandler:
    """Appending and prepending differ only in which end of the field the text goes to."""
    return IntentHandler(
        kind,
        "forms",
        lambda i, o, h: added_text_done(i, o, at_top),
        on_screen(FormActs._add_text, at_top=at_top),
        evidence="state",
    )


DURATION = PlanRule("duration", "forms", write_duration)
EDIT = PlanRule("edit", "forms", write_edit)
REPLY = PlanRule("reply", "forms", write_reply)
RECORDS = PlanRule("records", "forms", write_records)
FORM = PlanRule("form", "forms", write_form)
HANDLERS = (
    IntentHandler(
        "fill",
        "forms",
        lambda i, o, h: fill_done(i, o),
        act_fill,
        target_ok=fill_target_ok,
        evidence="state",
    ),
    _added_text_handler("append", at_top=False),
    _added_text_handler("prepend", at_top=True),
    IntentHandler(
        "paste",
        "forms",
        paste_done,
        on_screen(FormActs._paste),
        target_ok=paste_target_ok,
        evidence="state",
    ),
    IntentHandler(
        "keypad",
        "forms",
        keypad_done,
        on_screen(FormActs._keypad),
        target_ok=keypad_target_ok,
        evidence="state",
    ),
    IntentHandler("search", "forms", search_done, on_screen(FormActs._search), evidence="state"),
)
