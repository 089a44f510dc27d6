"""The offline planner: a plan from the goal's clauses, written by the first goal-shape rule
of the intent table (`handlers.PLAN_RULES`) that fits; checks of remembered plans and of plans
that miss part of the goal; and the Planner/ScreenChecker role itself."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from android_world.agents.custom.celil_protocols import (
    Evidence,
    FailureContext,
    GoalVerdict,
    Observation,
    Plan,
    Planner,
    ScreenChecker,
    TrailStep,
)
from android_world.agents.custom.offline_roles import offline_goal
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles import offline_wording as wording
from android_world.agents.custom.offline_roles.handlers import PLAN_RULES
from android_world.agents.custom.offline_roles.handlers.dates import with_today
from android_world.agents.custom.offline_roles.handlers.questions import question_answer
from android_world.agents.custom.offline_roles.offline_common import (
    SOURCE,
    TAG,
    fact_today,
    object_word,
)
from android_world.agents.custom.offline_roles.offline_done import sub_goal_evidence
from android_world.agents.custom.offline_roles.offline_handler import PlanDraft
from android_world.agents.custom.offline_roles.offline_intent import REOPEN, parse_sub_goal


def _app_for_clause(clause: str, info: text_lib.GoalInfo) -> str | None:
    apps = text_lib.find_apps(clause)
    if apps:
        return apps[0]
    return info.apps[0] if info.apps else None


def _plan_app(plan: list[str], sub_goal: str) -> str | None:
    """The app of the last "Open X" step at or before `sub_goal` in the plan."""
    app = None
    for step in plan:
        match = REOPEN.match(step)
        if match and (apps := text_lib.find_apps(match.group(1))):
            app = apps[0]
        if text_lib.normalize(step) == text_lib.normalize(sub_goal):
            break
    return app


def app_segments(info: text_lib.GoalInfo) -> list[str]:
    """The goal cut into runs of clauses that each name a different app, when it names two or
    more apps explicitly ("Create a note in Markor ... Share it ... using Simple SMS Messenger");
    one segment (the goal) otherwise."""
    segments: list[tuple[str | None, list[str]]] = []
    for clause in info.clauses:
        named = text_lib.find_apps(clause) if _names_app(clause) else []
        app = named[0] if named else None
        if segments and (app is None or app == segments[-1][0] or segments[-1][0] is None):
            segments[-1] = (segments[-1][0] or app, [*segments[-1][1], clause])
        else:
            segments.append((app, [clause]))
    named_apps = {app for app, _ in segments if app}
    if len(named_apps) < 2:
        return [info.goal]
    return [". ".join(clauses) for _, clauses in segments]


def _names_app(clause: str) -> bool:
    norm = text_lib.normalize(clause)
    return any(
        text_lib.phrase_in(alias, norm)
        for hint in text_lib.APP_HINTS
        for alias in (hint.label, *hint.aliases)
    )


def _segment_info(segment: str, carried_text: str | None) -> text_lib.GoalInfo:
    """A segment's own goal info; sharing "the content" sends the text an earlier segment wrote."""
    info = text_lib.parse_goal(segment)
    passes_on = re.search(
        r"\b(?:share|send|forward)\s+(?:it|its\s+\w+|that\s+\w+|the\s+(?:whole\s+|entire\s+)?"
        r"(?:note|content|text|file))\b",
        text_lib.read_request(segment)[0],
        re.I,
    )
    if passes_on and "send" in info.verbs:
        info.objects = ["message"]
        keys = {k for k, _ in info.fields}
        if carried_text and not keys & {"message", "text"}:
            info.fields.append(("message", carried_text))
    if passes_on and not any(k == "phone" for k, _ in info.fields):
        info.fields[:0] = [("phone", n) for n in wording.phone_numbers(segment)[:1]]
    if text_lib.phrase_in("share", segment) and "send" not in info.verbs:
        info.verbs.append("send")
        info.objects = ["message"]
        keys = {k for k, _ in info.fields}
        if carried_text and not keys & {"message", "text"}:
            info.fields.append(("message", carried_text))
    return info


def _app_steps(info: text_lib.GoalInfo) -> list[str]:
    """Open each app as its clauses need it; switches, sliders and permission requests go in
    at their clause."""
    subs: list[str] = []
    opened: list[str] = []

    def ensure_app(app: str | None) -> None:
        if app and (not opened or opened[-1] != app):
            subs.append(f"Open {app}")
            opened.append(app)

    for clause in info.clauses:
        if text_lib.forbidden_words(clause) and re.match(
            r"\s*(do not|don't|never)\b", clause, re.I
        ):
            continue
        target = text_lib.parse_open(clause)
        if target is not None:
            ensure_app(target)
            continue
        clause_app = _app_for_clause(clause, info)
        level = text_lib.parse_level(clause)
        toggle = text_lib.parse_toggle(clause)
        if re.search(r"\b(pop-?ups?|permissions?)\b", clause, re.I):
            ensure_app(clause_app)
            subs.append("Allow any permission requests")
        elif level is not None:
            ensure_app(clause_app if clause_app != "Camera" else "Settings")
            subs.append(f"Set {level[0]} to {level[1]}")
        elif toggle is not None:
            implied = text_lib.find_apps(toggle[0]) or [clause_app]
            ensure_app(implied[0])
            subs.append(f"Turn {toggle[0]} {'on' if toggle[1] else 'off'}")
        else:
            ensure_app(clause_app)
    return subs


def _plan_per_app(
    info: text_lib.GoalInfo, segments: list[str], max_sub_goals: int
) -> tuple[list[str], str]:
    """A goal across apps: one plan per app's segment, the text written in one passed on."""
    subs: list[str] = []
    carried: str | None = None
    for segment in segments:
        part = _segment_info(segment, carried)
        subs += build_plan(part, max_sub_goals)[0]
        carried = next((v for k, v in part.fields if k in ("text", "message")), carried)
    rationale = f"{TAG} rule-based plan, one part per app ({', '.join(info.apps)})"
    return list(dict.fromkeys(subs))[:max_sub_goals], rationale


def build_plan(info: text_lib.GoalInfo, max_sub_goals: int = 12) -> tuple[list[str], str]:
    """Coarse sub-goals from the goal's clauses; returns (sub_goals, rationale)."""
    segments = app_segments(info) if not info.is_question else [info.goal]
    if len(segments) > 1:
        return _plan_per_app(info, segments, max_sub_goals)
    verbs = set(info.verbs)
    draft = PlanDraft(
        info=info,
        subs=_app_steps(info),
        max_sub_goals=max_sub_goals,
        verbs=verbs,
        obj=object_word(info),
        forbidden=set(info.forbidden),
        creating=verbs & {"create", "add", "make", "new", "write", "send"},
        fields=dict(info.fields),
    )
    for rule in PLAN_RULES:
        if rule.write(draft):
            break
    subs, max_sub_goals = draft.subs, draft.max_sub_goals
    if not subs or (
        all(s.startswith("Open ") for s in subs)
        and not any(text_lib.parse_open(c) for c in info.clauses)
    ):
        subs += [c for c in info.clauses if c]
    if _PASTE_GOAL.search(info.goal) and subs and subs[-1] in ("Tap Send", "Tap Save"):
        subs.insert(len(subs) - 1, "Paste the clipboard into the text")
    deduped = list(dict.fromkeys(subs))[:max_sub_goals]
    rationale = (
        f"{TAG} rule-based plan from the goal's clauses"
        f" (apps: {', '.join(info.apps) or 'none named'})"
    )
    return deduped, rationale


_UNFILLED_SLOT = re.compile(r"\{[a-z]+_\d+\}")


def _plan_values(plan: list[str]) -> tuple[set[str], set[str]]:
    """Quoted values (normalised) and numbers (no leading zeros) a plan's steps mention."""
    quoted: set[str] = set()
    numbers: set[str] = set()
    for step in plan:
        quoted.update(text_lib.normalize(v) for v in text_lib.quoted_values(step))
        unquoted = _unquoted(step)
        numbers.update(n.lstrip("0") or "0" for n in re.findall(r"\d+", unquoted))
    return quoted, numbers


def _unquoted(step: str) -> str:
    """The step with its quoted values blanked out (their digits are values, not counts)."""
    for start, end in reversed(text_lib.quoted_spans(step)):
        step = step[:start] + " " + step[end:]
    return step


def _value_order(plan: list[str], keep: set[str]) -> list[str]:
    """The plan's quoted values among `keep`, first mention order."""
    values = [text_lib.normalize(v) for step in plan for v in text_lib.quoted_values(step)]
    return list(dict.fromkeys(v for v in values if v in keep))


def _opened_apps(plan: list[str]) -> set[str]:
    apps = set()
    for step in plan:
        match = REOPEN.match(" ".join(step.split()).rstrip("."))
        if match and (found := text_lib.find_apps(match.group(1))):
            apps.add(found[0])
    return apps


def plan_misfit(plan: list[str], info: text_lib.GoalInfo, own_plan: list[str]) -> str | None:
    """Why a remembered plan does not fit this goal, or None when it does.

    Memory fills a plan's slots with this goal's values, but a value the abstraction missed is
    still the old episode's (a name, a number, a list item), and acting on it does the wrong
    task. So: every quoted value and number in the remembered plan must come from this goal;
    every value and app that this planner's own plan uses must be in it (a plan for a one-item
    delete does not serve a three-item one); and it may open only apps this goal needs.
    """
    for step in plan:
        if _UNFILLED_SLOT.search(step):
            return f"unfilled slot in {step!r}"
        for value in text_lib.quoted_values(step):
            if not text_lib.value_in_goal(value, info.goal):
                return f"{value!r} is not in this goal"
    goal_numbers = {n.lstrip("0") or "0" for n in re.findall(r"\d+", info.goal)}
    quoted, numbers = _plan_values(plan)
    # Zero is a default ("0 seconds" of a goal that names none), never another goal's value.
    stray = sorted(numbers - goal_numbers - {"0"})
    if stray:
        return f"number {stray[0]} is not in this goal"
    own_quoted, own_numbers = _plan_values(own_plan)
    missing = sorted((own_quoted - quoted) | (own_numbers - numbers - {"0"}))
    if missing:
        return f"it leaves out {missing[0]!r}, which this goal needs"
    if _value_order(plan, own_quoted) != _value_order(own_plan, own_quoted):
        return "it uses this goal's values in another order (source and target swapped?)"
    extra_apps = sorted(_opened_apps(plan) - _opened_apps(own_plan) - set(info.apps))
    if extra_apps:
        return f"it opens {extra_apps[0]}, which this goal does not need"
    # "Wednesday" needs the clock's date first, "October 18" does not: same template, not plan.
    missing_apps = sorted(_opened_apps(own_plan) - _opened_apps(plan))
    if missing_apps:
        return f"it never opens {missing_apps[0]}, which this goal needs"
    return None


# The goal's content is the clipboard's ("with the clipboard content", "perform a paste",
# "whatever is on the clipboard").
_PASTE_GOAL = re.compile(
    r"\bpaste\b|\bclipboard(?:'s)?\s+(?:content|contents|text)\b|\bon\s+(?:the|my)\s+clipboard\b|\bcopied\s+text\b",
    re.I,
)

# The planner's own step for a camera goal ("Take a photo"), which the executor reads as is.
_TAKE = re.compile(r"^take\s+(?:a|an|one)\s+\w+$|^take it$", re.I)


# "Delete the recipes that use olives in the directions": which rows go depends on what each
# holds inside, which the planner's steps never open and read.
_PICKED_BY_CONTENT = re.compile(
    r"\b(?:delete|remove|erase)\b[^.]{0,80}?\b(?:that|which)\s+"
    r"(?:use|uses|contain|contains|mention|mentions|include|includes)\b",
    re.I,
)


# "Add the recipes from the Markor note recipes.txt to Broccoli": the entries are a file's
# content, which the planner's steps never read.
_READ_FROM_FILE = re.compile(
    r"\b(?:from|listed in|in|open|go through|of)\s+(?:the\s+)?(?:markor\s+)?(?:note\s+|file\s+)?"
    r"['\"]?[\w.-]+\.(?:txt|md)\b",
    re.I,
)


def not_understood(info: text_lib.GoalInfo, plan: list[str]) -> str | None:
    """Why this plan does not carry out the goal as written, or None.

    A clause the planner could not turn into steps stays in the plan verbatim, and a value the
    goal gives (a quoted text, a phone number, an amount, a file name) that no step uses was not
    read; acting on such a plan does some other task and may end `complete` on it.
    """
    if info.is_question:
        return None
    if _PICKED_BY_CONTENT.search(info.goal):
        return "it picks the items by what they hold, which no step reads"
    if len(info.apps) >= 2 and _READ_FROM_FILE.search(info.goal):
        return "it copies what a file lists into another app, which no step reads"
    clauses = {text_lib.normalize(c) for c in info.clauses}
    for step in plan:
        if (
            text_lib.normalize(step) in clauses
            and parse_sub_goal(step, info).kind == "generic"
            and not _TAKE.match(step)
        ):
            return f"no step for {step!r}"
    used = " ".join(plan)
    for value in offline_goal.given_values(info):
        value = value.rstrip(".!?") or value
        parts = [p for p in re.split(r",\s*(?:and\s+)?|\s+and\s+", value) if p.strip()]
        if not text_lib.value_in_goal(value, used) and not all(
            text_lib.value_in_goal(p, used) for p in parts
        ):
            return f"no step uses {value!r}"
    return None


class OfflinePlanner(Planner, ScreenChecker):
    """Planner protocol without a model: clause-by-clause plans, screen-based progress checks."""

    reads_screen = True  # its progress check is the agent's screen check (no model call)

    def __init__(self, *, max_sub_goals: int = 12, **_ignored: Any):
        self.max_sub_goals = max_sub_goals
        self._rehearsals = 0

    def generate_initial_plan(
        self, goal: str, observation: Observation, retrieved_plan: list[str] | None
    ) -> Plan:
        self._rehearsals = 0
        info = text_lib.parse_goal(goal, screen.launcher_labels(observation))
        sub_goals, rationale = build_plan(info, self.max_sub_goals)
        warnings: list[str] = []
        if retrieved_plan:
            misfit = plan_misfit(retrieved_plan, info, sub_goals)
            if misfit is None:
                return Plan(
                    list(retrieved_plan)[: self.max_sub_goals],
                    rationale=f"{TAG} reusing a verified plan from episodic memory",
                    source=SOURCE,
                )
            warnings.append(f"remembered plan not reused: {misfit}")
        return Plan(
            sub_goals,
            rationale=rationale,
            source=SOURCE,
            warnings=warnings,
            not_understood=not_understood(info, sub_goals),
        )

    def generate_corrective_plan(self, failure_context: FailureContext) -> Plan:
        """Keep the unfinished sub-goals and put a recovery step before them: go back after a
        loop, reopen the app when it left the foreground; the executor then tries the next
        candidate because it remembers what failed on each screen."""
        ctx = failure_context
        self._rehearsals += 1
        done = {text_lib.normalize(s) for s in ctx.done_sub_goals}
        remaining = [s for s in ctx.plan if text_lib.normalize(s) not in done]
        if ctx.kind == "missing_control":
            # The step names a control this app does not show; what it was for is judged by
            # the goal check, so the plan goes on without it.
            failed = text_lib.normalize(ctx.failed_sub_goal)
            remaining = [s for s in remaining if text_lib.normalize(s) != failed]
        info = text_lib.parse_goal(ctx.goal)
        intent = parse_sub_goal(ctx.failed_sub_goal or (remaining[0] if remaining else ""), info)
        app = (
            intent.app
            or _plan_app(ctx.plan, ctx.failed_sub_goal)
            or (info.apps[0] if info.apps else None)
        )
        prefix: list[str] = []
        n = self._rehearsals
        in_app = app is not None and text_lib.activity_matches_app(
            ctx.observation.foreground_activity, app
        )
        if ctx.kind == "no_answer":
            prefix = [f"Find the information the question asks for (attempt {n})"]
        elif app and not in_app and intent.kind != "open":
            prefix = [f"Reopen {app} (attempt {n})"]
        elif ctx.kind == "loop" and intent.kind not in ("back", "open"):
            prefix = [f"Go back (attempt {n})"]
        why = "; ".join(ctx.reasons)[:200]
        return Plan(
            prefix + remaining,
            rationale=f"{TAG} after {ctx.kind} on '{ctx.failed_sub_goal}': {why}",
            source=SOURCE,
            recovery_sub_goals=list(prefix),
        )

    def check_sub_goal(
        self, goal: str, sub_goal: str, observation: Observation, context_summary: str
    ) -> Evidence:
        """The progress check with its evidence; the agent counts only screen-backed kinds."""
        intent = parse_sub_goal(sub_goal, text_lib.parse_goal(goal))
        intent = with_today(intent, fact_today(context_summary), observation)
        return sub_goal_evidence(intent, observation, screen.parse_history(context_summary))

    def check_goal(
        self, goal: str, trail: Sequence[TrailStep], observation: Observation
    ) -> GoalVerdict:
        """The whole goal against the episode's screens (see `offline_goal.check_goal`)."""
        return offline_goal.check_goal(goal, trail, observation)

    def covers_goal(self, goal: str, sub_goal: str) -> bool:
        return offline_goal.covers_goal(goal, sub_goal)

    def control_shown(self, sub_goal: str, observation: Observation) -> bool | None:
        return offline_goal.control_shown(sub_goal, observation)

    def values_missing(
        self, sub_goal: str, observation: Observation, seen: Sequence[str] = ()
    ) -> list[str]:
        return offline_goal.values_missing(sub_goal, observation, seen)

    def is_sub_goal_done(
        self, goal: str, sub_goal: str, observation: Observation, context_summary: str
    ) -> bool:
        evidence = self.check_sub_goal(goal, sub_goal, observation, context_summary)
        return evidence.done and evidence.kind != "action"

    def answer_question(
        self, goal: str, observation: Observation, context_summary: str
    ) -> str | None:
        if not text_lib.parse_goal(goal).is_question:
            return None
        return question_answer(goal, observation, context_summary)
