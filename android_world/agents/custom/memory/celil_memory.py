"""Working memory for one episode, and the episodic memory re-export.

Working memory is what every role's prompt is built from: the goal, the plan and which of its
sub-goals are done, a short history of steps, and a scratchpad of screens seen and facts collected
(which is what a question's answer is extracted from after the agent navigated away). Progress
is kept by sub-goal text, so a corrective plan that repeats a finished sub-goal cannot make the
agent redo it.

`EpisodicMemory` lives in `celil_episodic.py` (another engineer's module); it is re-exported here
lazily, so this module imports even before that one exists.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Any

from android_world.agents.custom import celil_untrusted


def normalize_sub_goal(text: str) -> str:
    """Comparison key: case, spacing and trailing punctuation do not make a new sub-goal."""
    return " ".join(text.casefold().split()).rstrip(".!;:")


@dataclasses.dataclass
class StepRecord:
    """One step as later prompts see it (strings only, so it is cheap to keep and to log)."""

    step: int
    sub_goal: str
    action: str
    outcome: str
    summary: str = ""
    score: float | None = None
    screen_changed: bool | None = None

    def render(self) -> str:
        parts = [f"step {self.step}: [{self.sub_goal}] {self.action} -> {self.outcome}"]
        if self.score is not None:
            parts.append(f"(verifier {self.score:.1f})")
        if self.summary:
            parts.append(f"- {self.summary}")
        return " ".join(parts)


@dataclasses.dataclass
class Scratchpad:
    """Notes that outlive a screen: where the agent has been and what it learned."""

    visited_screens: collections.OrderedDict[str, str] = dataclasses.field(
        default_factory=collections.OrderedDict
    )
    facts: list[str] = dataclasses.field(default_factory=list)
    pending: list[str] = dataclasses.field(default_factory=list)


class WorkingMemory:
    """Per-episode state shared by the Conductor loop and the role prompts."""

    def __init__(
        self,
        task_goal: str,
        *,
        max_history: int = 100,
        max_screens: int = 8,
        max_screen_chars: int = 600,
        max_facts: int = 30,
    ):
        self.task_goal = task_goal
        self._plan: list[str] = []
        self._done: set[str] = set()
        self._history: list[StepRecord] = []
        self._max_history = max_history
        self._max_screens = max_screens
        self._max_screen_chars = max_screen_chars
        self._max_facts = max_facts
        self.scratchpad = Scratchpad()
        self.plan_revisions = 0

    # --- plan and progress -------------------------------------------------------------

    def set_plan(self, sub_goals: list[str]) -> None:
        """Replace the whole plan; sub-goals already done (by text) stay done."""
        cleaned: list[str] = []
        seen: set[str] = set()
        for sub_goal in sub_goals:
            # Kept verbatim (newlines too): a sub-goal may carry a multi-line text the goal
            # asks for, and episodic memory matches it against the goal's slot value.
            text = str(sub_goal).strip()
            key = normalize_sub_goal(text)
            if text and key not in seen:
                cleaned.append(text)
                seen.add(key)
        if self._plan:
            self.plan_revisions += 1
        self._plan = cleaned

    def revise_plan(self, new_unfinished: list[str]) -> None:
        """Keep the done sub-goals in order and replace everything after them.

        This is how a corrective plan lands: the planner only writes what is still to do, and a
        sub-goal it repeats that is already done stays done (and is not listed twice).
        """
        self.set_plan(self.done_sub_goals() + list(new_unfinished))

    def get_plan(self) -> list[str]:
        return list(self._plan)

    def has_plan(self) -> bool:
        return bool(self._plan)

    def is_done(self, sub_goal: str) -> bool:
        return normalize_sub_goal(sub_goal) in self._done

    def done_sub_goals(self) -> list[str]:
        return [s for s in self._plan if self.is_done(s)]

    def remaining_sub_goals(self) -> list[str]:
        return [s for s in self._plan if not self.is_done(s)]

    def current_sub_goal(self) -> str | None:
        remaining = self.remaining_sub_goals()
        return remaining[0] if remaining else None

    def mark_done(self, sub_goal: str) -> None:
        self._done.add(normalize_sub_goal(sub_goal))

    def reopen(self, sub_goal: str) -> None:
        """A sub-goal marked done that the screens show is not: it is current again."""
        self._done.discard(normalize_sub_goal(sub_goal))

    def pop_sub_goal(self) -> str | None:
        """Mark the current sub-goal done and return it (None when the plan is finished)."""
        current = self.current_sub_goal()
        if current is not None:
            self.mark_done(current)
        return current

    def all_done(self) -> bool:
        return bool(self._plan) and not self.remaining_sub_goals()

    def progress(self) -> dict[str, Any]:
        return {
            "plan": self.get_plan(),
            "done": self.done_sub_goals(),
            "remaining": self.remaining_sub_goals(),
            "done_count": len(self.done_sub_goals()),
            "total": len(self._plan),
            "revisions": self.plan_revisions,
        }

    # --- history -------------------------------------------------------------------------

    def add_step(self, record: StepRecord) -> None:
        self._history.append(record)
        if len(self._history) > self._max_history:
            del self._history[: len(self._history) - self._max_history]

    @property
    def history(self) -> list[StepRecord]:
        return list(self._history)

    def history_summary(self, max_steps: int = 3) -> str:
        if max_steps <= 0 or not self._history:
            return ""
        return "\n".join(r.render() for r in self._history[-max_steps:])

    # --- scratchpad ----------------------------------------------------------------------

    def note_screen(self, key: str, description: str) -> None:
        """Remember a screen's text (bounded), so answers can use screens no longer shown."""
        text = description.strip()[: self._max_screen_chars]
        pad = self.scratchpad.visited_screens
        if key in pad:
            pad.move_to_end(key)
        pad[key] = text
        while len(pad) > self._max_screens:
            pad.popitem(last=False)

    def add_fact(self, fact: str) -> None:
        fact = " ".join(fact.split())
        if fact and fact not in self.scratchpad.facts:
            self.scratchpad.facts.append(fact)
            del self.scratchpad.facts[: -self._max_facts]

    def add_pending(self, item: str) -> None:
        if item and item not in self.scratchpad.pending:
            self.scratchpad.pending.append(item)

    def resolve_pending(self, item: str) -> None:
        if item in self.scratchpad.pending:
            self.scratchpad.pending.remove(item)

    def scratchpad_summary(self, include_screens: bool = True) -> str:
        parts: list[str] = []
        if self.scratchpad.facts:
            parts.append("Facts collected:\n" + "\n".join(f"- {f}" for f in self.scratchpad.facts))
        if self.scratchpad.pending:
            parts.append("Pending:\n" + "\n".join(f"- {p}" for p in self.scratchpad.pending))
        if include_screens and self.scratchpad.visited_screens:
            screens = [
                f"--- screen {i + 1} ---\n{' '.join(text.split())}"
                for i, text in enumerate(self.scratchpad.visited_screens.values())
            ]
            parts.append("Screens seen earlier (oldest first):\n" + "\n".join(screens))
        # Facts and screens are read off the phone: data, inside one block.
        return celil_untrusted.block("\n".join(parts)) if parts else ""

    # --- prompts -------------------------------------------------------------------------

    def get_context_summary(self, max_steps: int = 3) -> str:
        """Goal, plan with progress marks, the last `max_steps` steps and collected facts.

        Screens seen earlier are left out here (they are long); `scratchpad_summary()` adds them
        where they matter, in the answer prompt.
        """
        lines = [f"Task goal: {self.task_goal}"]
        if self._plan:
            lines.append("Plan:")
            current = self.current_sub_goal()
            for i, sub_goal in enumerate(self._plan, 1):
                if self.is_done(sub_goal):
                    mark = "done"
                elif sub_goal == current:
                    mark = "current"
                else:
                    mark = "todo"
                lines.append(f"  {i}. [{mark}] {sub_goal}")
        # Steps quote the labels they touched and facts are read off the screen: both are
        # data, so they sit in a block (the goal and the plan above it do not).
        observed: list[str] = []
        history = self.history_summary(max_steps)
        if history:
            observed += ["Recent steps:", history]
        if self.scratchpad.facts:
            observed.append("Facts: " + "; ".join(self.scratchpad.facts[-5:]))
        if observed:
            lines.append(celil_untrusted.block("\n".join(observed)))
        return "\n".join(lines)

    def clear(self) -> None:
        self._plan = []
        self._done = set()
        self._history = []
        self.scratchpad = Scratchpad()
        self.plan_revisions = 0


def __getattr__(name: str) -> Any:
    """Lazy re-export of the episodic memory, so a missing module only fails when used."""
    if name in ("EpisodicMemory", "RetrievedPlan"):
        from android_world.agents.custom.memory import celil_episodic

        return getattr(celil_episodic, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
