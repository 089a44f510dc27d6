"""Plans written the way models write them, for the scripted model and the offline benchmarks.

The project's scripted planner used to write one neutral sub-goal ("Do the whole task as asked")
that no screen check can ever confirm, so no benchmark met a plan worded like the goal. Real
planners (a model, or the agent's own fallback) write the goal verbatim, open the app first,
restate the goal in their own words, break it into fine steps, name buttons they have not seen
yet ("Tap 'Save'" in an app that saves on its own), or end with a "verify" step. Each style
here is one of those habits; `--plan_style` picks one per run.

Every sub-goal carries the truth the scripted planner and executor answer from: how many of the
reference solution's actions must have run for it to be done (`needs`), or None for "the whole
task" (done only when the reference solution has nothing left to do).

The trace the fine styles are cut from is the task's reference solution run once on a shadow
phone with the same seed and parameters (`reference_trace`), with stock English labels, as a
model that knows the app from its training data would name them.
"""

from __future__ import annotations

import dataclasses
import re
import zlib
from collections.abc import Sequence

from android_world.agents.custom import celil_geometry
from android_world.env import json_action, vendor_labels

NEUTRAL_SUB_GOAL = "Do the whole task as asked"

STYLES = (
    "neutral",  # one sub-goal no screen can confirm (the old benchmark plan)
    "verbatim",  # the goal itself as the only sub-goal (also the agent's own fallback)
    "open_then_goal",  # open the app, then the goal verbatim
    "restated",  # the goal in other words
    "fine",  # 3-6 fine-grained steps cut from the reference solution
    "unseen_labels",  # steps that name buttons before they are on screen, one of them absent
    "verify",  # open the app, the goal, then a final "verify ..." step
)
# The styles that need the reference trace to write their steps.
TRACE_STYLES = frozenset({"fine", "unseen_labels"})


@dataclasses.dataclass(frozen=True)
class TraceStep:
    """One action of the reference solution, as a person would describe it."""

    action_type: str
    label: str = ""  # the stock label of the element acted on ("" when none)
    text: str = ""  # typed text, or the app opened
    direction: str = ""


@dataclasses.dataclass(frozen=True)
class StyledStep:
    text: str
    needs: int | None  # reference actions that must have run; None: the whole task


def stock_label(label: str) -> str:
    """The stock (Pixel) label for a vendor's wording: a model names what it learned."""
    for stock, variants in vendor_labels.VARIANTS.items():
        if label in variants:
            return stock
    return label


def describe(action: json_action.JSONAction, elements: Sequence) -> TraceStep:
    label = ""
    if action.index is not None and 0 <= int(action.index) < len(elements):
        label = stock_label(celil_geometry.element_label(elements[int(action.index)]))
    return TraceStep(
        action_type=action.action_type,
        label=label,
        text=(action.app_name or action.text or "") if action.action_type != "status" else "",
        direction=action.direction or "",
    )


def reference_trace(
    task_cls: type, params: dict, seed: int, profile: object = None, limit: int = 80
) -> list[TraceStep]:
    """The reference solution's actions on a shadow phone (same seed, parameters and profile,
    so its steps line up with the live run's), named with stock labels. Empty when the solution
    cannot run there; the fine styles then fall back."""
    from android_world.env.sim.sim_env import SimEnv  # a benchmark-only dependency

    env = SimEnv(seed=seed, render=False, profile=profile)
    task = task_cls(dict(params))
    steps: list[TraceStep] = []
    try:
        task.initialize_task(env)
        for action in task.oracle_actions(env):
            if action.action_type in (json_action.STATUS, json_action.ANSWER):
                break
            elements = env.get_state().ui_elements
            steps.append(describe(action, elements))
            env.execute_action(action)
            if len(steps) >= limit:
                break
    except Exception:  # the shadow run is a courtesy; a style without it falls back
        return []
    finally:
        try:
            task.tear_down(env)
        finally:
            env.close()
    return steps


# --------------------------------------------------------------------------------------------
# Wording


def _pick(key: str, options: Sequence[str]) -> str:
    return options[zlib.crc32(key.encode()) % len(options)]


_RESTATE_VERBS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"^create\b", ("Make", "Set up", "Add")),
    (r"^add\b", ("Put in", "Create", "Insert")),
    (r"^delete\b", ("Remove", "Get rid of", "Erase")),
    (r"^remove\b", ("Delete", "Get rid of")),
    (r"^turn on\b", ("Switch on", "Enable")),
    (r"^turn off\b", ("Switch off", "Disable")),
    (r"^turn (\w+) on\b", ("Switch \\1 on", "Enable \\1")),
    (r"^turn (\w+) off\b", ("Switch \\1 off", "Disable \\1")),
    (r"^open\b", ("Launch", "Start")),
    (r"^send\b", ("Text", "Message")),
    (r"^set\b", ("Change", "Adjust", "Put")),
    (r"^take\b", ("Capture", "Snap")),
    (r"^record\b", ("Capture", "Make a recording of")),
    (r"^go to\b", ("Navigate to", "Head to")),
    (r"^reply\b", ("Respond", "Answer")),
    (r"^edit\b", ("Change", "Update")),
    (r"^update\b", ("Change", "Edit")),
    (r"^rename\b", ("Change the name of",)),
    (r"^move\b", ("Relocate", "Transfer")),
    (r"^copy\b", ("Duplicate",)),
    (r"^make\b", ("Create", "Set up")),
)
_RESTATE_WORDS = (
    (r"\bplease\b,?\s*", ""),
    (r"\bnew\b", "fresh"),
    (r"\bthe app\b", "the application"),
    (r"\bminutes\b", "min"),
    (r"\bseconds\b", "sec"),
)
_QUESTION_OPENERS = ("Find out: ", "Look up the answer to: ", "Work out ")


def restate(goal: str) -> str:
    """The goal in other words: another verb, a few other words, the values untouched."""
    text = " ".join(goal.split())
    if text.endswith("?"):
        opener = _pick(text, _QUESTION_OPENERS)
        return opener + text[0].lower() + text[1:]
    for pattern, options in _RESTATE_VERBS:
        match = re.match(pattern, text, re.I)
        if match:
            text = match.expand(_pick(text, options)) + text[match.end() :]
            break
    for pattern, replacement in _RESTATE_WORDS:
        if zlib.crc32((pattern + goal).encode()) % 2 == 0:
            text = re.sub(pattern, replacement, text, flags=re.I)
    text = text.strip()
    return text[0].upper() + text[1:] if text else goal


def _phrase(step: TraceStep) -> str:
    label = f"'{step.label}'" if step.label else "it"
    kind = step.action_type
    if kind == json_action.OPEN_APP:
        return f"open the {step.text} app"
    if kind == json_action.INPUT_TEXT:
        where = f" in {label}" if step.label else ""
        return f"enter '{step.text}'{where}"
    if kind in (json_action.CLICK, json_action.DOUBLE_TAP):
        return f"tap {label}"
    if kind == json_action.LONG_PRESS:
        return f"long-press {label}"
    if kind == json_action.SCROLL:
        return f"scroll {step.direction or 'down'}"
    if kind == json_action.SWIPE:
        return f"swipe {step.direction or 'up'}"
    if kind == json_action.NAVIGATE_BACK:
        return "go back"
    if kind == json_action.NAVIGATE_HOME:
        return "go to the home screen"
    if kind == json_action.KEYBOARD_ENTER:
        return "press Enter"
    return kind.replace("_", " ")


def _sentence(phrases: Sequence[str]) -> str:
    text = ", then ".join(phrases)
    return text[0].upper() + text[1:]


def _chunks(n: int, parts: int) -> list[tuple[int, int]]:
    """`n` items cut into `parts` runs of near-equal length, as (start, end) pairs."""
    parts = max(1, min(parts, n))
    bounds = [round(i * n / parts) for i in range(parts + 1)]
    return [(bounds[i], bounds[i + 1]) for i in range(parts)]


def _leading_opens(trace: Sequence[TraceStep]) -> int:
    count = 0
    for step in trace:
        if step.action_type != json_action.OPEN_APP:
            break
        count += 1
    return count


def _app_step(app: str, trace: Sequence[TraceStep]) -> StyledStep:
    """ "Open the X app": done once the reference solution's own launch ran (at once when it
    starts inside the app)."""
    return StyledStep(f"Open the {app} app", _leading_opens(trace))


def _fine(goal: str, app: str, trace: Sequence[TraceStep]) -> list[StyledStep]:
    opens = _leading_opens(trace)
    rest = list(trace[opens:])
    if not rest:
        return [_app_step(app, trace), StyledStep(goal, None)]
    parts = min(5, max(2, len(rest)))
    steps = [_app_step(app, trace)]
    for start, end in _chunks(len(rest), parts):
        text = _sentence([_phrase(s) for s in rest[start:end]])
        steps.append(StyledStep(text, opens + end))
    # The last step is the task's end, whatever the wording: the reference has no more to do.
    steps[-1] = StyledStep(steps[-1].text, None)
    return steps


_TAPS = (json_action.CLICK, json_action.DOUBLE_TAP, json_action.LONG_PRESS)


def _unseen_labels(goal: str, app: str, trace: Sequence[TraceStep]) -> list[StyledStep]:
    """A plan written before looking: "Tap 'Add'", "Enter '16'", ..., "Tap 'Save'", naming
    controls that are not on the first screen, and a closing Save even where the app has none
    (a model's habit; the agent must not wait for a control that never shows up)."""
    opens = _leading_opens(trace)
    named: list[tuple[str, int]] = []
    for i, step in enumerate(trace[opens:], start=opens + 1):
        if step.action_type in _TAPS and step.label:
            named.append((f"Tap the '{step.label}' button", i))
        elif step.action_type == json_action.INPUT_TEXT and step.text:
            named.append((f"Type '{step.text}'", i))
    if not named:
        return [_app_step(app, trace), StyledStep(goal, None)]
    # At most 5 named steps: keep the last ones of each run, so each step's truth still holds.
    keep = [named[end - 1] for _, end in _chunks(len(named), min(5, len(named)))]
    steps = [_app_step(app, trace)] + [StyledStep(text, needs) for text, needs in keep]
    has_save = any("'Save'" in s.text for s in steps)
    if not has_save:
        steps.append(StyledStep("Tap the 'Save' button", None))
    else:
        steps[-1] = StyledStep(steps[-1].text, None)
    return steps


def _distinct(steps: list[StyledStep]) -> list[StyledStep]:
    """Steps with the same words are one step (a planner does not list "Tap 'Delete'" twice,
    and the agent would merge them): the later one's truth stands."""
    out: list[StyledStep] = []
    for step in steps:
        key = " ".join(step.text.casefold().split())
        out = [s for s in out if " ".join(s.text.casefold().split()) != key] + [step]
    return out


def plan_for(
    style: str, goal: str, app: str | None, trace: Sequence[TraceStep] = ()
) -> list[StyledStep]:
    """The plan a model would write for `goal` in `style`."""
    return _distinct(_plan_for(style, goal, app, trace))


def _plan_for(
    style: str, goal: str, app: str | None, trace: Sequence[TraceStep]
) -> list[StyledStep]:
    app = app or "right"
    if style == "neutral":
        return [StyledStep(NEUTRAL_SUB_GOAL, None)]
    if style == "verbatim":
        return [StyledStep(goal, None)]
    if style == "open_then_goal":
        return [_app_step(app, trace), StyledStep(goal, None)]
    if style == "restated":
        return [StyledStep(restate(goal), None)]
    if style == "fine":
        return _fine(goal, app, trace)
    if style == "unseen_labels":
        return _unseen_labels(goal, app, trace)
    if style == "verify":
        check = "Verify that it is done: " + goal[0].lower() + goal[1:]
        return [_app_step(app, trace), StyledStep(goal, None), StyledStep(check, None)]
    raise ValueError(f"unknown plan style {style!r}; choose from {', '.join(STYLES)}")


def plan_app(task_app_names: Sequence[str], trace: Sequence[TraceStep]) -> str | None:
    """The app a model would open first: the reference solution's first launch, else the
    task's first app."""
    for step in trace:
        if step.action_type == json_action.OPEN_APP and step.text:
            return step.text
    return task_app_names[0] if task_app_names else None
