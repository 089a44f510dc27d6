"""Is the whole goal done? Every clause and value of the goal against what the screens showed.

A plan is the agent's own guess at how to reach a goal; finishing it proves nothing. Before the
agent says `complete`, and after every action (a goal can be done before the plan is), this
reads the goal's clauses with the offline goal reader and checks each against the episode's
trail of screens and actions, model-free:

- a switch or slider the goal names is in the asked position on the last screen that shows it;
- an app the goal opens is in front (the last clause: on the current screen);
- a duration shows on the keypad display;
- values the goal gives (names, numbers, texts) were all shown, and when the goal creates or
  sends something, the thing was committed after the last typing (a Save/Send/OK tap, or a way
  out of the editor) and its identifying value then showed outside any text field;
- each item a delete goal names was on screen when a delete ran, and is gone from its list since;
- "delete the newest ...": the deleted row was the top row of the list sorted newest first
  (offline_goal_newest);
- "reply to the most recent message": the list's times showed which conversation was most recent
  before the reply, and the reply was sent in the thread whose header names it
  (offline_goal_recent);
- "resend the message I just sent to ...": the thread showed that message (its last one on the
  sender's side), and exactly those words were sent again, once, in that thread
  (offline_goal_resend);
- a moved file shows in a listing of its destination;
- nothing the goal forbids ("Do not start the timer") was tapped.
- a copy to the clipboard: exactly the text long-pressed, Copy tapped on that menu, the copy
  confirmed on the screen after (offline_goal_copy).

The answer is `done` only when every clause is covered by such a check and each says done;
`unmet` when one shows the goal not done (a typo in a saved value, a switch the other way); and
`unknown` when code cannot tell ("Take a photo", "Delete my newest note" with the list in
another order), which the agent then puts to the planner with the screenshot, or to the plan's
own evidence. A goal over `offline_text.READ_GOAL_MAX_CHARS` is `unknown` unread (hostile input).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from android_world.agents.custom.celil_geometry import element_box
from android_world.agents.custom.celil_protocols import (
    GOAL_DONE,
    GOAL_UNKNOWN,
    GOAL_UNMET,
    GoalCheck,
    GoalVerdict,
    Observation,
    TrailStep,
)
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles import offline_wording as wording
from android_world.agents.custom.offline_roles.offline_capture import capture_checks, parse_capture
from android_world.agents.custom.offline_roles.offline_goal_clears import (
    clear_day_checks,
    parse_run_stopwatch,
    saved_twice_checks,
    stopwatch_checks,
    summary_state,
)
from android_world.agents.custom.offline_roles.offline_goal_content import (
    content_checks,
    covers_content,
)
from android_world.agents.custom.offline_roles.offline_goal_copy import copy_checks, covers_copy
from android_world.agents.custom.offline_roles.offline_goal_newest import (
    newest_checks,
    parse_newest,
)
from android_world.agents.custom.offline_roles.offline_goal_paste import sent_words_check
from android_world.agents.custom.offline_roles.offline_goal_recent import (
    recent_reply_checks,
)
from android_world.agents.custom.offline_roles.offline_goal_resend import (
    parse_resend,
    resend_checks,
)
from android_world.agents.custom.offline_roles.offline_goal_screens import (
    form_fields,
    holding_keys,
    item_shown,
    screen_key,
    value_shown,
)
from android_world.agents.custom.offline_roles.offline_goal_screens import texts as _texts
from android_world.agents.custom.offline_roles.offline_goal_steps import (
    control_shown,
    covers_goal,
    named_control,
    named_values,
    values_missing,
    without_examples,
)
from android_world.agents.custom.offline_roles.offline_goal_unsaved import (
    form_kept,
    form_left,
    in_editor,
)
from android_world.agents.custom.offline_roles.offline_goal_values import (
    DELETE_VERBS,
    WRITING_VERBS,
    given_values,
    goal_values,
    identity_value,
    writing_goal,
)

# The goal check, and what callers read through this module: sub-goal wording
# (offline_goal_steps) and the goal's values (offline_goal_values).
__all__ = [
    "acted_texts",
    "check_goal",
    "control_shown",
    "covers_goal",
    "given_values",
    "goal_values",
    "named_control",
    "named_values",
    "specific_targets",
    "value_shown",
    "values_missing",
    "without_examples",
]

_TAPS = ("click", "long_press", "double_tap")
# Taps that commit what was typed.
_COMMIT_LABELS = frozenset(
    {"save", "done", "ok", "send", "create", "add", "confirm", "apply", "submit", "yes", "rename"}
    | {"navigate up", "back", "save contact", "save event", "add event", "move", "paste"}
)
_UNSAVED = "the typed values sit in the open form, unsaved"
_DELETE_LABELS = ("delete", "remove", "trash", "bin", "discard")
# Delete "targets" the goal reader finds that name no item ("Delete all my notes").
_VAGUE_TARGET = re.compile(
    r"^(?:the|my|all|any|every|each|these|those|it|them|newest|oldest|latest|recipes?|notes?|"
    r"files?|events?|expenses?|items?|but one of any.*|duplicates?)$",
    re.I,
)


def _norm(text: str | None) -> str:
    return text_lib.normalize(text)


# --------------------------------------------------------------------------------------------
# The screens of the episode (what each showed: offline_goal_screens, memoised)


def _screens(trail: Sequence[TrailStep], current: Observation) -> list[Observation]:
    return [t.screen for t in trail] + [current]


def _in_app(observation: Observation, app: str | None) -> bool:
    return app is None or text_lib.activity_matches_app(observation.foreground_activity, app)


# --------------------------------------------------------------------------------------------
# One check per kind of clause


def _switch_checks(info: text_lib.GoalInfo, screens: Sequence[Observation]) -> list[GoalCheck]:
    checks = []
    for subject, wanted in info.toggles:
        what = f"{subject} {'on' if wanted else 'off'}"
        shown = _last_state(screens, lambda o, s=subject: _switch_state(o, s))
        if shown is None:
            checks.append(GoalCheck(what, GOAL_UNKNOWN, f"no {subject} switch was seen"))
        elif shown == wanted:
            checks.append(GoalCheck(what, GOAL_DONE, f"the {subject} switch shows it"))
        else:
            state = "on" if shown else "off"
            checks.append(
                GoalCheck(what, GOAL_UNMET, f"the {subject} switch was last seen {state}")
            )
    return checks


def _switch_state(observation: Observation, subject: str) -> bool | None:
    """The switch's position, else the "On"/"Off" summary a settings list shows under the
    setting's title (a page one level up from the switch)."""
    index = screen.find_switch(observation, subject)
    if index is None:
        return summary_state(observation, subject)
    return bool(observation.ui_elements[index].is_checked)


def _last_state(
    screens: Sequence[Observation], read: Callable[[Observation], bool | None]
) -> bool | None:
    for observation in reversed(screens):
        state = read(observation)
        if state is not None:
            return state
    return None


def _level_checks(info: text_lib.GoalInfo, screens: Sequence[Observation]) -> list[GoalCheck]:
    checks = []
    for subject, level in info.levels:
        what = f"{subject} at its {level}"

        def read(observation: Observation, subject: str = subject, level: str = level):
            index = screen.find_slider(observation, subject)
            if index is None:
                return None
            return screen.slider_at(observation.ui_elements[index], level)

        shown = _last_state(screens, read)
        if shown is None:
            checks.append(GoalCheck(what, GOAL_UNKNOWN, f"no {subject} slider showed its value"))
        else:
            status = GOAL_DONE if shown else GOAL_UNMET
            checks.append(GoalCheck(what, status, f"the {subject} slider was last seen there"))
    return checks


def _duration_checks(info: text_lib.GoalInfo, screens: Sequence[Observation]) -> list[GoalCheck]:
    if info.duration is None:
        return []
    h, m, s = info.duration
    wanted = f"{h:02d}{m:02d}{s:02d}".lstrip("0") or "0"
    what = f"duration {h}h {m}m {s}s"
    for observation in reversed(screens):
        shown = screen.keypad_digits(observation)
        if shown is not None:
            status = GOAL_DONE if shown == wanted else GOAL_UNMET
            return [GoalCheck(what, status, f"the display last showed {shown!r}")]
    return [GoalCheck(what, GOAL_UNKNOWN, "no duration display was seen")]


def _open_checks(info: text_lib.GoalInfo, screens: Sequence[Observation]) -> list[GoalCheck]:
    checks = []
    opened = [(i, app) for i, c in enumerate(info.clauses) if (app := text_lib.parse_open(c))]
    for i, app in opened:
        last = i == len(info.clauses) - 1 or all(_is_permission(c) for c in info.clauses[i + 1 :])
        looked = screens[-1:] if last else screens
        front = any(_in_app(o, app) and not screen.is_launcher(o) for o in looked)
        status = GOAL_DONE if front else GOAL_UNMET if last else GOAL_UNKNOWN
        where = "in front now" if last else "seen in front"
        checks.append(
            GoalCheck(f"open {app}", status, f"{app} {'is' if front else 'is not'} {where}")
        )
    if any(_is_permission(c) for c in info.clauses):
        current = screens[-1]
        asking = screen.grant_button(current) is not None or (
            screen.interruption_button(current) is not None
        )
        status = GOAL_UNMET if asking else GOAL_DONE
        why = "a pop-up is still showing" if asking else "no pop-up or permission request shows"
        checks.append(GoalCheck("pop-ups cleared", status, why))
    return checks


def _is_permission(clause: str) -> bool:
    return bool(re.search(r"\b(permissions?|pop-?ups?|allow)\b", clause, re.I))


def _forbidden_checks(info: text_lib.GoalInfo, trail: Sequence[TrailStep]) -> list[GoalCheck]:
    checks = []
    for verb in info.forbidden:
        tapped = [
            t
            for t in trail
            if t.action_type in ("click", "long_press", "double_tap")
            and _norm(t.target).split()[:1] == [verb]
        ]
        if tapped:
            why = f"'{tapped[-1].target}' was tapped at step {tapped[-1].step}"
            checks.append(GoalCheck(f"not {verb}", GOAL_UNMET, why))
        else:
            checks.append(GoalCheck(f"not {verb}", GOAL_DONE, f"nothing named {verb!r} was tapped"))
    return checks


# Content that comes from the clipboard: what it holds is never in the goal's words.
_FROM_CLIPBOARD = re.compile(r"\bclipboard\b|\bpaste\b|\bcopied\s+text\b", re.I)


def _paste_checks(info: text_lib.GoalInfo, trail: Sequence[TrailStep]) -> list[GoalCheck]:
    """A goal whose content is the clipboard's is met only by a paste that ran; without one
    its text is unknown (the words typed may be anything)."""
    if not _FROM_CLIPBOARD.search(info.goal) or covers_copy(info.goal):
        return []
    pasted = [t for t in trail if t.ok and t.action_type in _TAPS and _norm(t.target) == "paste"]
    what = "the clipboard's content"
    if not pasted:
        return [GoalCheck(what, GOAL_UNKNOWN, "no paste ran")]
    at = pasted[-1].step
    names = wording.file_names(info.goal)
    # The paste menu can hide the editor's title: the screen it opened on counts too.
    last = trail.index(pasted[-1])
    where = [t.screen for t in trail[max(0, last - 1) : last + 1]]
    if names and not any(value_shown(n, _texts(o)) for n in names for o in where):
        # Pasted into some other file: the one the goal names shows its name while open.
        return [GoalCheck(what, GOAL_UNKNOWN, f"pasted at step {at}, not in {names[0]!r}")]
    # A Save or Send tap: Back out of an editor keeps the text in some apps and drops it in
    # others (a note pasted into and left by Back was claimed, and not saved).
    saved = [t for t in trail if t.step > at and _saves(t)]
    if saved:
        return [GoalCheck(what, GOAL_DONE, f"pasted at step {at}, '{saved[0].target}' after it")]
    return [GoalCheck(what, GOAL_UNKNOWN, f"pasted at step {at}, nothing saved or sent since")]


def specific_targets(info: text_lib.GoalInfo) -> list[str]:
    """Items a delete goal names ("Home Repairs", "notes.txt"), not words like "my" or "all"."""
    return [t for t in info.targets if t.strip() and not _VAGUE_TARGET.match(t.strip())]


def _delete_checks(
    info: text_lib.GoalInfo, trail: Sequence[TrailStep], current: Observation
) -> list[GoalCheck]:
    if not DELETE_VERBS & set(info.verbs):
        return []
    deletes = [t.step for t in trail if t.ok and _deletes(t)]
    targets = specific_targets(info)
    checks = [] if targets else clear_day_checks(info.clauses, deletes, trail, current)
    for target in targets:
        what = f"delete {target!r}"
        engaged = _engaged_at(trail, target)
        deleted_at = next(
            (d for d in reversed(deletes) if engaged is not None and d >= engaged), None
        )
        if deleted_at is None:
            why = "it was never selected or opened and then deleted"
            checks.append(GoalCheck(what, GOAL_UNMET, why))
            continue
        later = [t.screen for t in trail if t.step > deleted_at] + [current]
        listing = [o for o in later if _is_listing(o)]
        if not listing:
            checks.append(GoalCheck(what, GOAL_UNKNOWN, "no list was seen after the delete"))
        elif item_shown(target, _texts(listing[-1])):
            checks.append(GoalCheck(what, GOAL_UNMET, "it is still in the list"))
        else:
            checks.append(GoalCheck(what, GOAL_DONE, "deleted, and gone from the list since"))
    return checks


def _deletes(step: TrailStep) -> bool:
    """A tap on Delete (or its kin), or a yes to a dialog about deleting."""
    if step.action_type not in ("click", "long_press", "double_tap"):
        return False
    label = _norm(step.target)
    if any(w in label.split() for w in _DELETE_LABELS):
        return True
    return label in screen.YES_LABELS and _mentions_delete(step.screen)


# The tallest element whose inner texts still count as one touched row (a list row, a card).
_ROW_SHARE = 0.2


def acted_texts(step: TrailStep) -> list[str]:
    """The texts of what an action touched: the element's own, and those inside its box (a
    list row's title and details)."""
    observation = step.screen
    if step.index is None or not 0 <= step.index < len(observation.ui_elements):
        return [step.target] if step.target else []
    box = element_box(observation.ui_elements[step.index], observation.screen_size)
    texts = [step.target] if step.target else []
    height = observation.screen_size[1] if observation.screen_size else 0
    if box is None or not height or box.height > _ROW_SHARE * height:
        return texts  # a whole list or page: what lies inside it was not what was touched
    for element in observation.ui_elements:
        inner = element_box(element, observation.screen_size)
        if inner is None or not (element.text or element.content_description):
            continue
        x, y = inner.center
        if box.x_min <= x <= box.x_max and box.y_min <= y <= box.y_max:
            texts.append(element.text or element.content_description or "")
    return texts


def _engaged_at(trail: Sequence[TrailStep], target: str) -> int | None:
    """The first step that selected or opened the target (a tap or long-press on its row), or
    that deleted on its own page."""
    for t in trail:
        if not t.ok or t.action_type not in ("click", "long_press", "double_tap"):
            continue
        if value_shown(target, acted_texts(t)):
            return t.step
        if _deletes(t) and not _is_listing(t.screen) and value_shown(target, _texts(t.screen)):
            return t.step  # a Delete on the item's own page (a list shows many items)
    return None


def _mentions_delete(observation: Observation) -> bool:
    return any(
        any(w in _norm(text).split() for w in _DELETE_LABELS) for text in _texts(observation)
    )


def _is_listing(observation: Observation) -> bool:
    return screen.shows_empty_list(observation) or (
        any(e.is_scrollable for e in observation.ui_elements) and not form_fields(observation)
    )


def _move_checks(
    info: text_lib.GoalInfo, trail: Sequence[TrailStep], current: Observation
) -> list[GoalCheck]:
    if info.move is None:
        return []
    item, source, destination = info.move
    what = f"move {item!r} to {destination!r}"
    screens = _screens(trail, current)
    for observation in reversed(screens):
        if item_shown(item, _texts(observation)) and _titled(observation, destination):
            return [GoalCheck(what, GOAL_DONE, f"it shows in {destination}")]
    moved_at = _move_confirmed_at(trail, item, destination)
    if moved_at is not None:
        later = [t.screen for t in trail if t.step > moved_at] + [current]
        # The list it left: the source folder's own page when the goal names it (a folder
        # picker opened by a "Move" menu item lists no notes either).
        listing = [o for o in later if _is_listing(o) and (not source or _titled(o, source))]
        if listing and not item_shown(item, _texts(listing[-1])):
            why = f"moved with {destination} chosen, and gone from the list it was in"
            return [GoalCheck(what, GOAL_DONE, why)]
    return [GoalCheck(what, GOAL_UNKNOWN, f"it was not seen in a listing of {destination}")]


def _move_confirmed_at(trail: Sequence[TrailStep], item: str, destination: str) -> int | None:
    """The step that confirmed a move (OK, Move, Paste) on a screen naming the destination,
    after the item was selected; None when there was none."""
    engaged = _engaged_at(trail, item)
    if engaged is None:
        return None
    for t in reversed(trail):
        if t.step > engaged and t.ok and _commits(t) and _titled(t.screen, destination):
            return t.step
    return None


def _titled(observation: Observation, folder: str) -> bool:
    """The screen is in the folder: a path ending in it ("Markor/StudyGuides", ".../Recordings")
    or its name as the page title, not a row of the list (rows name folders one could open)."""
    want = _norm(folder)
    for i in screen.content_indices(observation):
        element = observation.ui_elements[i]
        raw = (element.text or element.content_description or "").strip()
        if not raw or element.is_clickable:
            continue
        if "/" in raw and _norm(raw.rstrip("/").rsplit("/", 1)[-1]) == want:
            return True
        if _norm(raw) == want and screen.in_title_bar(element, observation.screen_size):
            return True
    return False


# --------------------------------------------------------------------------------------------
# Whether the values the goal gives (offline_goal_values) were entered and committed


def _value_checks(
    info: text_lib.GoalInfo, trail: Sequence[TrailStep], current: Observation
) -> list[GoalCheck]:
    if not writing_goal(info):
        return []
    values = goal_values(info)
    if not values:
        return []
    runs = _form_runs(trail, current)
    chosen = [text for t in trail if t.ok and t.action_type in _TAPS for text in acted_texts(t)]
    shown = [text for o in _screens(trail, current) for text in _texts(o)]
    records = [[v for _, v in r if v.strip()] for r in info.records] or _records(info, values)
    checks = []
    for record in records:
        # One thing holds all it was given: what was entered on forms was entered on one
        # stretch of form screens (a value picked from a list, a song, is checked alone).
        typed = [v for v in record if any(_entered(v, texts) for texts in runs)]
        together = any(all(_entered(v, texts) for v in typed) for texts in runs)
        for value in record:
            if value in typed and together:
                status, why = GOAL_DONE, "entered with the rest of its record"
            elif value in typed:
                status, why = GOAL_UNMET, "entered, but not on the same form as the rest"
            elif value_shown(value, chosen) or item_shown(value, chosen):
                status, why = GOAL_DONE, "picked"
            elif value_shown(value, shown):
                # On screen but never entered or picked: a name the goal refers to (the
                # receipt to read, the file to copy) as much as one to write.
                status, why = GOAL_UNKNOWN, "shown, never entered or picked"
            else:
                status, why = GOAL_UNMET, "never entered or picked"
            checks.append(GoalCheck(f"value {value[:40]!r}", status, why))
    if {"send", "reply", "text"} & set(info.verbs) and not _message(info):
        # The words sent are not in the goal (the clipboard, an address read elsewhere):
        # code cannot tell whether the right ones went out, but for the clipboard's pasted
        # whole into an empty field and sent (offline_goal_paste).
        checks.append(sent_words_check(info.goal, trail, current))
    checks += saved_twice_checks(records, _saved_forms(trail, current), _entered)
    if "save" not in info.forbidden:
        checks += _commit_checks(info, values, trail, current)
    return checks


def _records(info: text_lib.GoalInfo, values: Sequence[str]) -> list[list[str]]:
    """Which values one new thing holds together: a clause that creates something holds the
    values it names ("Create a note named a.md with the text hi"); a value of any other clause,
    an edit, a rename, a send, stands alone (entered on a form of its own)."""
    groups: list[list[str]] = []
    placed: set[str] = set()
    for clause in info.clauses:
        inside = [v for v in values if v not in placed and _norm(v) in _norm(clause)]
        placed.update(inside)
        words = set(text_lib.words(clause))
        creating = words & {"create", "add", "new"} and not words & {"edit", "rename", "update"}
        if creating and inside:
            groups.append(inside)
        else:
            groups += [[v] for v in inside]
    groups += [[v] for v in values if v not in placed]
    return groups


def _form_runs(trail: Sequence[TrailStep], current: Observation) -> list[list[str]]:
    """The texts of each stretch of consecutive form screens (a form and its dialogs, up to
    the list it returns to), with what was typed there (Enter may submit a one-field dialog
    before the screen shows the text): what one record was given."""
    steps = [(t.screen, t.typed if t.ok else "") for t in trail] + [(current, "")]
    runs: list[list[str]] = []
    open_run = False
    for observation, typed in steps:
        key = screen_key(observation)
        if form_fields(observation, key=key):
            if not open_run:
                runs.append([])
            runs[-1].extend(_texts(observation, key=key))
            if typed:
                runs[-1].append(typed)
            open_run = True
        else:
            open_run = False
    return runs


def _saved_forms(trail: Sequence[TrailStep], current: Observation) -> list[list[str]]:
    """The texts of each stretch of form screens that a save tap closed (the next screen is
    no form): what each saved record held. Leaving by Back or Navigate up saves in some apps
    and discards in others, so it does not count here."""
    steps = [(t.screen, t) for t in trail] + [(current, None)]
    saved: list[list[str]] = []
    run: list[str] | None = None
    last: TrailStep | None = None
    for observation, step in steps:
        key = screen_key(observation)
        if form_fields(observation, key=key):
            run = [] if run is None else run
            run.extend(_texts(observation, key=key))
            if step is not None and step.ok and step.typed:
                run.append(step.typed)
            last = step
            continue
        if run is not None and last is not None and _saves(last):
            saved.append(run)
        run, last = None, None
    return saved


def _saves(step: TrailStep) -> bool:
    """A tap that went through on a control that saves (not one that only leaves)."""
    label = _norm(step.target)
    return (
        step.ok
        and step.action_type in _TAPS
        and _commits(step)
        and label not in ("navigate up", "back")
    )


def _entered(value: str, form_texts: Sequence[str]) -> bool:
    """A value on a form being filled in: in a field, or chosen (a picked category shows as
    text on the form); a name split over first and last name fields counts word by word. A
    list of other items showing the same words is no entry of this one."""
    if value_shown(value, form_texts):
        return True
    parts = value.split()
    return 1 < len(parts) <= 4 and all(value_shown(p, form_texts) for p in parts)


def _message(info: text_lib.GoalInfo) -> str | None:
    return next((v for k, v in info.fields if k in ("message", "text") and v), None)


def _commit_checks(
    info: text_lib.GoalInfo,
    values: Sequence[str],
    trail: Sequence[TrailStep],
    current: Observation,
) -> list[GoalCheck]:
    """After the last typing, something committed it (a Save/Send/OK tap, or the form was left),
    and the thing's name then showed outside any text field (a list row, a title, a bubble)."""
    typed = [t for t in trail if t.action_type == "input_text" and t.ok]
    commits = [t for t in trail if t.ok and _commits(t)]
    if not typed and not commits:
        return [GoalCheck("saved", GOAL_UNKNOWN, "nothing was typed, saved or sent yet")]
    since = typed[-1].step if typed else commits[-1].step - 1
    later = [t for t in trail if t.step > since]
    identity = identity_value(info, values)
    if typed and not _committed(typed[-1], later, current, [identity or ""]):
        if in_editor(typed[-1], [t.screen for t in later] + [current]):
            return [GoalCheck("saved", GOAL_UNMET, _UNSAVED)]
        return [GoalCheck("saved", GOAL_UNKNOWN, "the typed values were not saved or sent yet")]
    if identity is None:
        return []
    screens = [t.screen for t in later] + [current]
    outside = any(value_shown(identity, _texts(o, editable=False)) for o in screens)
    status = GOAL_DONE if outside else GOAL_UNKNOWN
    why = "shows outside a text field" if outside else "only seen inside a text field"
    return [GoalCheck(f"{identity[:40]!r} saved", status, why)]


def _committed(
    typing: TrailStep, later: Sequence[TrailStep], current: Observation, names: Sequence[str]
) -> bool:
    """A commit tap after the typing, or a screen since that left the form (right after the
    typing: Enter submits a one-field dialog; or showing the record, `names`). A dialog's OK or
    a Back after which the form still holds the typed text, and a picker opened from the form,
    are not the form's commit (offline_goal_unsaved)."""
    screens = [t.screen for t in later] + [current]
    if any(
        t.ok and _commits(t) and not form_kept(typing, t, after)
        for t, after in zip(later, screens[1:])
    ):
        return True
    return form_left(typing, screens, names)


def _commits(step: TrailStep) -> bool:
    if step.action_type in ("navigate_back", "keyboard_enter"):
        return True
    if step.action_type not in ("click", "long_press", "double_tap"):
        return False
    label = _norm(step.target)
    return label in _COMMIT_LABELS or label.split()[:1] in (["save"], ["send"], ["add"])


# --------------------------------------------------------------------------------------------
# The goal, clause by clause


def _covered(clause: str, info: text_lib.GoalInfo, kinds: set[str]) -> bool:
    """A clause some check read: a switch, a slider, an app, a duration, a forbidden tap, a
    value of a writing goal, a named delete or a move."""
    if covers_copy(clause) and "copy" in kinds:
        return True
    if parse_capture(clause) and "capture" in kinds:
        return True
    if parse_run_stopwatch(clause) and "stopwatch" in kinds:
        return True
    if _FROM_CLIPBOARD.search(clause) and "paste" in kinds and not _other_work(clause):
        return True  # "Perform a paste operation in the note and save the note"
    if text_lib.parse_toggle(clause) and "switch" in kinds:
        return True
    if text_lib.parse_level(clause) and "level" in kinds:
        return True
    if (text_lib.parse_open(clause) or _is_permission(clause)) and "open" in kinds:
        return True
    if text_lib.parse_duration(clause) and "duration" in kinds:
        return True
    if text_lib.forbidden_words(clause) or wording.negated_verbs(clause):
        return "forbidden" in kinds
    if parse_newest(clause) and "newest" in kinds:
        return True
    if parse_resend(clause) and "resend" in kinds:
        return True
    if covers_content(clause) and "content" in kinds:
        return True
    words = set(text_lib.words(clause))
    if words & DELETE_VERBS:
        return "delete" in kinds
    if "move" in words:
        return "move" in kinds
    if "value" in kinds:
        values = goal_values(info)
        if _unread_conditions(clause, values):
            return False
        return any(_norm(v) in _norm(clause) or _norm(clause) in _norm(v) for v in values) or (
            bool(words & WRITING_VERBS) and len(info.clauses) == 1
        )
    return False


# Words of a paste clause that the paste check reads (a paste, then a save or send after it).
_PASTE_WORDS = frozenset(
    {"perform", "paste", "operation", "clipboard", "content", "contents", "copied", "text"}
    | {"in", "into", "the", "a", "and", "then", "it", "note", "file", "message", "field"}
    | {"save", "send", "my"}
)


def _other_work(clause: str) -> bool:
    """A paste clause that asks more than a paste and a save ("paste it into a new note named
    x.md" names a value, which the value checks read, not the paste check)."""
    return bool(set(text_lib.words(clause)) - _PASTE_WORDS)


_IN_ORDER = re.compile(r"in\s+(?:the\s+)?(?:same\s+|this\s+|that\s+)?order", re.I)


def _unread_conditions(clause: str, values: Sequence[str]) -> bool:
    """A clause that asks more than its values being there: an order ("in order: a, b") or a
    quantity that is no value ("with a duration between 45 and 50 minutes")."""
    if _IN_ORDER.search(clause):
        return True
    rest = clause
    for value in sorted(values, key=len, reverse=True):
        # A clause loses its sentence's closing stop, the value keeps it ("at 6 PM.").
        for form in (value, value.rstrip(" .!?")):
            rest = re.sub(re.escape(form), " ", rest, flags=re.I) if form else rest
    return bool(re.search(r"\d", rest))


@holding_keys
def check_goal(goal: str, trail: Sequence[TrailStep], current: Observation) -> GoalVerdict:
    """The whole goal against the screens seen: done, unmet or unknown (see the module doc)."""
    if len(goal) > (cap := text_lib.READ_GOAL_MAX_CHARS):
        why = f"a goal of {len(goal):,} characters, over the {cap:,} read model-free"
        return GoalVerdict(GOAL_UNKNOWN, (GoalCheck("goal", GOAL_UNKNOWN, why),))
    info = text_lib.parse_goal(without_examples(goal))
    if info.is_question:
        return GoalVerdict(GOAL_UNKNOWN, (GoalCheck("answer", GOAL_UNKNOWN, "a question"),))
    screens = _screens(trail, current)
    groups = {
        "switch": _switch_checks(info, screens),
        "level": _level_checks(info, screens),
        "duration": _duration_checks(info, screens),
        "open": _open_checks(info, screens),
        "forbidden": _forbidden_checks(info, trail),
        "paste": _paste_checks(info, trail),
        "delete": _delete_checks(info, trail, current),
        "newest": newest_checks(info.clauses, trail, current, _deletes, _is_listing),
        "move": _move_checks(info, trail, current),
        "recent": recent_reply_checks(info.clauses, _message(info), trail, current),
        "resend": resend_checks(info.clauses, trail, current),
        "value": _value_checks(info, trail, current),
        "capture": capture_checks(info.clauses, trail),
        "stopwatch": stopwatch_checks(info.clauses, screens),
        "content": content_checks(info.goal, trail, current),
        "copy": copy_checks(info.goal, trail, current),
    }
    checks = tuple(c for group in groups.values() for c in group)
    kinds = {kind for kind, group in groups.items() if group}
    if any(c.status == GOAL_UNMET for c in checks):
        return GoalVerdict(GOAL_UNMET, checks)
    uncovered = [c for c in info.clauses if not _covered(c, info, kinds)]
    if uncovered:
        unread = GoalCheck(f"clause {uncovered[0][:60]!r}", GOAL_UNKNOWN, "no check reads it")
        return GoalVerdict(GOAL_UNKNOWN, (*checks, unread))
    if checks and all(c.status == GOAL_DONE for c in checks):
        return GoalVerdict(GOAL_DONE, checks)
    return GoalVerdict(GOAL_UNKNOWN, checks)
