"""Intent family: list items. Deleting a named item ("Delete 'notes.txt'"), every item of a
day ("Delete every event on 2023-10-27") or of the whole list, selecting and opening items, and
opening the list's first item; plus the plan rules for deletes and file moves."""

from __future__ import annotations

from android_world.agents.custom.celil_geometry import element_box, element_label
from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline_clear as clear
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.handlers.apps import step_done
from android_world.agents.custom.offline_roles.handlers.dates import DateActs
from android_world.agents.custom.offline_roles.offline_common import (
    DELETE_LABELS,
    action_key,
    make_action,
)
from android_world.agents.custom.offline_roles.offline_handler import (
    IntentHandler,
    PlanDraft,
    PlanRule,
    on_screen,
)
from android_world.agents.custom.offline_roles.offline_intent import (
    DATE_SOURCE_APP,
    READ_DATE_SUB_GOAL,
    Intent,
)
from android_world.env import json_action


def delete_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    elements = observation.ui_elements
    key = text_lib.normalize(intent.sub_goal)
    deleted = any(
        text_lib.normalize(step.sub_goal) == key and step.ok and "delet" in step.action.casefold()
        for step in history
    )
    visible = screen.find_text(observation, intent.subject) is not None
    listing = any(e.is_scrollable for e in elements) or screen.shows_empty_list(observation)
    if deleted and not visible and listing:
        return True, f"{intent.subject!r} is gone from the list"
    return False, f"{intent.subject!r} is not deleted yet"


def select_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    step = screen.acted_on(history, intent.sub_goal, ("long_press",))
    if step is not None:
        return True, f"{intent.subject!r} was selected"
    return False, f"{intent.subject!r} is not selected yet"


def open_item_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    for i in screen.form_fields(observation):
        held = screen.field_text(observation.ui_elements[i])
        if text_lib.normalize(held) == text_lib.normalize(intent.subject):
            return True, f"{intent.subject!r} is open"
    return False, f"{intent.subject!r} is not open yet"


def clear_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    return clear.emptied(observation)


def delete_all_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    day, rows = screen.day_view(observation)
    target = text_lib.parse_date(intent.value, default_year=screen.shown_year(observation))
    if target is not None and day == target and not rows:
        return True, f"the list of {target:%B %d %Y} is empty"
    return False, "the day's list is not shown empty yet"


class ListActs(DateActs):
    """The executor's moves on list items."""

    def _delete(
        self, intent: Intent, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        elements = obs.ui_elements
        for i in screen.content_indices(obs):
            element = elements[i]
            name = text_lib.normalize(element_label(element))
            if element.is_clickable and name in DELETE_LABELS:
                chosen = self._click(obs, i, signature, "delete")
                if chosen is not None:
                    return chosen
        confirm = screen.confirm_button(obs, "delet")
        if confirm is not None:
            chosen = self._click(obs, confirm, signature, "confirm the deletion")
            if chosen is not None:
                return chosen
        target = screen.find_text(obs, intent.subject, skip_titles=True)
        if target is not None:
            # Lists usually select an item for deletion on a long press; if that does nothing
            # here, opening the item (where a Delete control may be) is the next candidate.
            tried = self._tried.get((intent.sub_goal, signature), set())
            press = make_action(json_action.LONG_PRESS, index=target)
            chosen = None
            if action_key(press) not in tried:
                chosen = self._click(
                    obs, target, signature, f"select {intent.subject!r}", long=True
                )
            if chosen is None:
                chosen = self._click(obs, target, signature, f"open {intent.subject!r}")
            if chosen is not None:
                return chosen
        day = self._day_cell(obs, signature, intent)
        if target is None and day is not None:
            return day
        if target is None:
            scroll = self._scroll_for(intent, obs, signature, f"scroll to find {intent.subject!r}")
            if scroll is not None:
                return scroll
        tried = self._tried.get((intent.sub_goal, signature), set())
        for i in screen.content_indices(obs):
            if text_lib.normalize(element_label(elements[i])) == "more options":
                if action_key(make_action(json_action.CLICK, index=i)) in tried:
                    continue
                chosen = self._click(obs, i, signature, "look for delete in the menu")
                if chosen is not None:
                    return chosen
        return None

    def _delete_all(
        self, intent: Intent, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """Empty one day's list: confirm a deletion, delete a selection, select the first row
        of the day (opening it when a long press does nothing), or go to the day."""
        confirm = screen.confirm_button(obs, "delet")
        if confirm is not None:
            return self._click(obs, confirm, signature, "confirm the deletion")
        for i in screen.content_indices(obs):
            element = obs.ui_elements[i]
            if element.is_clickable and text_lib.normalize(element_label(element)) in DELETE_LABELS:
                chosen = self._click(obs, i, signature, "delete the selection")
                if chosen is not None:
                    return chosen
        target = text_lib.parse_date(intent.value, default_year=screen.shown_year(obs))
        day, rows = screen.day_view(obs)
        if target is not None and day == target and rows:
            index = screen.find_text(obs, rows[0].title, skip_titles=True)
            if index is not None:
                why = f"select {rows[0].title!r}"
                chosen = self._click(obs, index, signature, why, long=True)
                return chosen or self._click(obs, index, signature, f"open {rows[0].title!r}")
        if target is not None:
            return self._go_to_day(intent, obs, signature, target)
        return None

    def _clear(
        self, intent: Intent, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """Empty the app's list (offline_clear): select a row, Select all, Delete, confirm."""
        tap = clear.next_tap(obs, intent.sub_goal in self._selected_all)
        if tap is None:
            return None
        chosen = self._click(obs, tap.index, signature, tap.why, long=tap.long)
        if chosen is not None and tap.selects_all:
            self._selected_all.add(intent.sub_goal)
        elif chosen is not None and not tap.long:
            self._selected_all.discard(intent.sub_goal)  # deleted: a new round selects anew
        return chosen

    def _open_item(
        self, intent: Intent, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """Tap the item the goal names in a list (not the search box that holds its name)."""
        key = text_lib.normalize(intent.subject)
        for i in screen.content_indices(obs):
            element = obs.ui_elements[i]
            if screen.is_field(element) or screen.in_title_bar(element, obs.screen_size):
                continue
            if text_lib.normalize(element.text) == key:
                chosen = self._click(obs, i, signature, f"open {intent.subject!r}")
                if chosen is not None:
                    return chosen
        return self._scroll_for(intent, obs, signature, f"scroll to find {intent.subject!r}")

    def _select(
        self, intent: Intent, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """Lists select an item on a long press (then act on the selection from the bar)."""
        target = screen.find_text(obs, intent.subject, skip_titles=True)
        if target is not None:
            return self._click(obs, target, signature, f"select {intent.subject!r}", long=True)
        return self._scroll_for(intent, obs, signature, f"scroll to find {intent.subject!r}")

    def _first_item(
        self, intent: Intent, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """The topmost row of the screen's scrolling list; the sub-goal names no item (it takes
        the intent so every on-screen act is called alike, `offline_handler.on_screen`)."""
        container = next(
            (i for i in screen.content_indices(obs) if obs.ui_elements[i].is_scrollable), None
        )
        if container is None:
            return None
        box = element_box(obs.ui_elements[container], obs.screen_size)
        items = []
        for i in screen.content_indices(obs):
            element = obs.ui_elements[i]
            item_box = element_box(element, obs.screen_size)
            if i == container or not element.text or item_box is None or box is None:
                continue
            if box.y_min <= item_box.y_min < box.y_max:
                items.append((item_box.y_min, i))
        if not items:
            return None
        return self._click(obs, min(items)[1], signature, "open the first item in the list")


def _label(obs: Observation, index: int) -> str:
    return text_lib.normalize(element_label(obs.ui_elements[index]))


def delete_target_ok(
    intent: Intent, obs: Observation, index: int, info: text_lib.GoalInfo | None
) -> bool:
    """Delete, the overflow menu, the deletion's confirmation, or the goal's day."""
    label = _label(obs, index)
    if info is not None and info.day and label == info.day:
        return True
    return (
        label in DELETE_LABELS
        or label == "more options"
        or index == screen.confirm_button(obs, "delet")
    )


def clear_target_ok(
    intent: Intent, obs: Observation, index: int, info: text_lib.GoalInfo | None
) -> bool:
    return clear.target_ok(obs, index)


def delete_all_target_ok(
    intent: Intent, obs: Observation, index: int, info: text_lib.GoalInfo | None
) -> bool:
    """The day's cell, its rows (any name), delete, confirm."""
    label = _label(obs, index)
    if label in DELETE_LABELS or index == screen.confirm_button(obs, "delet"):
        return True
    if index in screen.date_navigation(obs):
        return True
    _, rows = screen.day_view(obs)
    return label in {text_lib.normalize(row.title) for row in rows}


def first_item_target_ok(
    intent: Intent, obs: Observation, index: int, info: text_lib.GoalInfo | None
) -> bool:
    return any(obs.ui_elements[i].is_scrollable for i in screen.content_indices(obs))


def write_move(d: PlanDraft) -> bool:
    """Move a file: open its folder, select it, Move to, the destination, Move."""
    info, subs = d.info, d.subs
    if info.move is None:
        return False
    item, source, destination = info.move
    subs += [
        f"Tap '{source}'",
        f"Select '{item}'",
        "Tap Move to",
        f"Tap '{destination}'",
        "Tap Move",
    ]
    return True


def write_delete_day(d: PlanDraft) -> bool:
    """ "Delete all the events on <day>": empty that day's list, whatever its items are."""
    info, subs, obj = d.info, d.subs, d.obj
    day = text_lib.delete_all_day(info.goal)
    if not day:
        return False
    if text_lib.is_relative_day(day) and DATE_SOURCE_APP not in info.apps:
        subs[:0] = [f"Open {DATE_SOURCE_APP}", READ_DATE_SUB_GOAL]
    subs.append(f"Delete every {obj} on {day}")
    return True


def write_clear(d: PlanDraft) -> bool:
    """ "Delete all my notes": the app's whole list, whatever its items are called."""
    kind = clear.list_kind(d.info.goal)
    if not kind:
        return False
    d.subs.append(clear.sub_goal(kind))
    return True


def write_delete(d: PlanDraft) -> bool:
    """Delete named items (in a named folder first)."""
    info, subs = d.info, d.subs
    if not (d.verbs & {"delete", "remove"} and info.targets):
        return False
    if info.folder:
        subs.append(f"Tap {info.folder}")
    subs += [f"Delete '{t}'" for t in info.targets]
    return True


MOVE = PlanRule("move", "lists", write_move)
DELETE_DAY = PlanRule("delete_day", "lists", write_delete_day)
CLEAR = PlanRule("clear", "lists", write_clear)
DELETE = PlanRule("delete", "lists", write_delete)
HANDLERS = (
    IntentHandler(
        "delete",
        "lists",
        delete_done,
        on_screen(ListActs._delete),
        target_ok=delete_target_ok,
        evidence="gone",
    ),
    IntentHandler(
        "delete_all",
        "lists",
        delete_all_done,
        on_screen(ListActs._delete_all),
        target_ok=delete_all_target_ok,
        evidence="state",
    ),
    IntentHandler(
        "clear",
        "lists",
        clear_done,
        on_screen(ListActs._clear),
        target_ok=clear_target_ok,
        evidence="state",
    ),
    IntentHandler("select", "lists", select_done, on_screen(ListActs._select), evidence="step"),
    IntentHandler(
        "open_item", "lists", open_item_done, on_screen(ListActs._open_item), evidence="state"
    ),
    IntentHandler(
        "first_item",
        "lists",
        step_done,
        on_screen(ListActs._first_item),
        target_ok=first_item_target_ok,
        evidence="step",
    ),
)
