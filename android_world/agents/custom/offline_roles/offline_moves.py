"""The offline executor's state and its shared moves: tap a target once per screen, scroll
for more, open the goal's app, and the fallback of tapping what best matches the sub-goal's
words. The intent families (`handlers/`) build their acts on these."""

from __future__ import annotations

import datetime
from typing import Any

from android_world.agents.custom.celil_geometry import element_label
from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.offline_common import (
    CHANGING_WORDS,
    MAX_SCROLLS_PER_SCREEN,
    NAVIGATE_MIN_RELEVANCE,
    OVERFLOW_LABELS,
    action_key,
    make_action,
    stem_words,
)
from android_world.agents.custom.offline_roles.offline_intent import (
    DATE_SOURCE_APP,
    Intent,
    intent_terms,
)
from android_world.env import json_action


class ActorBase:
    """What the executor remembers within one goal, and the moves every intent family uses.

    It remembers, per sub-goal and screen, which actions it already tried and which changed
    nothing (or were rejected by the verifiers), so after a rehearsal it tries the next
    candidate instead of repeating itself.
    """

    def __init__(self, *, goal: str | None = None, **_ignored: Any):
        self._goal = goal or ""
        self._info: text_lib.GoalInfo | None = None
        self.reset()

    def reset(self) -> None:
        self._tried: dict[tuple[str, str], set[str]] = {}
        self._duds: dict[str, set[str]] = {}
        self._scrolls: dict[tuple[str, str], int] = {}
        self._last: tuple[str, str, str] | None = None  # (screen, action key, sub-goal)
        # What reading a question has gathered so far, across scrolls and screens.
        self._today: str | None = None
        self._tally: dict[tuple[str, float], float] = {}
        self._rows: dict[tuple[str, tuple[int, int], tuple[int, int]], datetime.date] = {}
        self._dated: dict[tuple[str, datetime.date], bool] = {}
        self._menu_for_done = False
        self._selected_all: set[str] = set()  # sub-goals whose selection holds every item
        self._next_offset = 0
        self._when_targets: dict[str, datetime.datetime] = {}

    def set_goal(self, goal: str) -> None:
        if goal != self._goal:
            self._goal = goal
            self._info = None
            self.reset()

    def discard_last_turn(self) -> None:
        """The verifiers rejected the last proposal: never propose it on that screen again."""
        if self._last is not None:
            signature, key, _ = self._last
            self._duds.setdefault(signature, set()).add(key)
            self._last = None

    def _goal_info(self, context_summary: str, observation: Observation) -> text_lib.GoalInfo:
        goal = screen.goal_from_context(context_summary) or self._goal
        if goal != self._goal:
            self.set_goal(goal)
        if self._info is None:
            self._info = text_lib.parse_goal(goal, screen.launcher_labels(observation))
        return self._info

    def _usable(self, action: json_action.JSONAction, signature: str) -> bool:
        return action_key(action) not in self._duds.get(signature, set())

    def _click(
        self, obs: Observation, index: int, signature: str, why: str, long: bool = False
    ) -> tuple[json_action.JSONAction, str, str] | None:
        kind = json_action.LONG_PRESS if long else json_action.CLICK
        action = make_action(kind, index=index)
        if not self._usable(action, signature):
            return None
        label = element_label(obs.ui_elements[index])
        return action, f"{why} ({label!r})", label

    def _scroll_for(
        self, intent: Intent, obs: Observation, signature: str, why: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """One more scroll down a list that has more below (bounded per screen and sub-goal)."""
        scroll_key = (intent.sub_goal, signature)
        if (
            screen.more_below(obs) is None
            or self._scrolls.get(scroll_key, 0) >= MAX_SCROLLS_PER_SCREEN
        ):
            return None
        action = make_action(json_action.SCROLL, direction="down")
        if not self._usable(action, signature):
            return None
        self._scrolls[scroll_key] = self._scrolls.get(scroll_key, 0) + 1
        return action, why, "list"

    def _day_cell(
        self, obs: Observation, signature: str, intent: Intent
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """On a calendar grid, the goal's day number opens that day (once per screen)."""
        day = self._info.day if self._info is not None else None
        if not day:
            return None
        tried = self._tried.get((intent.sub_goal, signature), set())
        for i in screen.content_indices(obs):
            if (obs.ui_elements[i].text or "").strip() == day:
                if action_key(make_action(json_action.CLICK, index=i)) in tried:
                    return None
                return self._click(obs, i, signature, f"open day {day} of the calendar")
        return None

    def _overflow_menu(
        self, intent: Intent, obs: Observation, signature: str, tried: set[str]
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """The screen's overflow menu button, once per screen and sub-goal, for tap sub-goals."""
        if intent.kind not in ("tap", "generic"):
            return None
        for i in screen.content_indices(obs):
            element = obs.ui_elements[i]
            label = text_lib.normalize(element_label(element))
            if element.is_clickable and label in OVERFLOW_LABELS:
                if action_key(make_action(json_action.CLICK, index=i)) in tried:
                    return None
                return self._click(obs, i, signature, "look for it in the overflow menu")
        return None

    def _leave_other_app(
        self, intent: Intent, info: text_lib.GoalInfo, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """Outside every app the goal needs (e.g. back on the home screen): reopen the app."""
        apps = info.apps or []
        if intent.kind == "toggle" or intent.kind == "level":
            apps = text_lib.find_apps(intent.subject) or apps
        if intent.kind == "read_date":
            apps = text_lib.find_apps(intent.sub_goal) or [DATE_SOURCE_APP]
        if not apps or any(text_lib.activity_matches_app(obs.foreground_activity, a) for a in apps):
            return None
        action = make_action(json_action.OPEN_APP, app_name=apps[0])
        if not self._usable(action, signature):
            return None
        return action, f"{apps[0]} is not in front; open it", apps[0]

    def _navigate(
        self, intent: Intent, info: text_lib.GoalInfo, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction | None, str, str]:
        """Tap the element whose words best match the sub-goal; else scroll; else go back."""
        elements = obs.ui_elements
        terms = intent_terms(intent, info)
        tried = self._tried.get((intent.sub_goal, signature), set())
        accept = screen.dialog_accept(obs, intent.subject) if intent.kind == "tap" else None
        if accept is not None:  # "Tap Move" in the "Move to" folder chooser: its OK
            chosen = self._click(obs, accept, signature, f"{intent.subject} with the dialog's")
            if chosen is not None:
                return chosen
        best: tuple[float, int] | None = None
        for i in screen.content_indices(obs):
            element = elements[i]
            if screen.is_field(element) or screen.is_slider(element):
                continue
            if screen.is_switch(element) and intent.kind != "generic":
                continue
            if screen.in_title_bar(element, obs.screen_size):
                continue
            if intent.kind == "find" and stem_words(element_label(element)) & CHANGING_WORDS:
                continue  # answering a question must not create, edit or delete anything
            action = make_action(json_action.CLICK, index=i)
            if action_key(action) in tried or not self._usable(action, signature):
                continue
            score = screen.relevance(obs, i, terms)
            if not element.is_clickable:
                score *= 0.9
            if best is None or score > best[0]:
                best = (score, i)
        if best is not None and best[0] >= NAVIGATE_MIN_RELEVANCE:
            index = best[1]
            label = element_label(elements[index])
            return (
                make_action(json_action.CLICK, index=index),
                f"tap {label!r}, the closest match",
                label,
            )
        # An action ("Tap Move to") not on screen is usually in the overflow menu; an item
        # ("Tap 'Movies'") is usually further down the list. Try the likelier place first.
        menu = self._overflow_menu(intent, obs, signature, tried)
        wants_item = intent.subject.startswith(("'", '"'))
        if menu is not None and not wants_item:
            return menu
        scroll = self._scroll_for(intent, obs, signature, "nothing matches here; scroll for more")
        if scroll is not None:
            return scroll
        if menu is not None:
            return menu
        if screen.is_launcher(obs):
            app = intent.app or (info.apps[0] if info.apps else None)
            if app:
                return make_action(json_action.OPEN_APP, app_name=app), f"open {app}", app
            return None, "nothing on the home screen matches the sub-goal", ""
        back = make_action(json_action.NAVIGATE_BACK)
        if self._usable(back, signature):
            return back, "nothing here matches; go back", "back"
        return None, "no candidate left on this screen", ""
