"""What the live view costs a run, per step and per redraw.

Run: `python benchmarks/live_view_cost.py [--steps N] [--frames N]`. Two measurements on a
Celil-shaped step record (sub-goal, action, three votes, gate, OCR lines it does not read):

1. Per step, in the agent's thread: the pass-through observer's work (`LiveObserver.on_step_end`
   around a no-op writer: the step view, the state, and, piped, one written line).
2. Per redraw, on rich's thread: building and drawing the panel (serial: one block; parallel:
   a table of 16 workers) to an in-memory terminal 120 columns wide. At 4 redraws a second this
   is the share of one core the panel takes.

The end-to-end figure (the offline suite with and without the view) is in the issue-31 report;
this script isolates the view's own cost, which that run's noise hides.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install

from rich.console import Console

from android_world.agents import base_agent
from android_world.harness import live_events, live_view

STEP_DATA: dict[str, Any] = {
    "goal": "Create a new contact for Hugo Pereira. Their number is +13920741751.",
    "sub_goal": "Enter 'Hugo Pereira' as the name",
    "action": {"action_type": "input_text", "text": "Hugo", "index": 9},
    "action_description": "input_text on element [9] EditText \"First name\" text='Hugo'",
    "votes": [
        {"persona": p, "score": 9.0, "parseable": True, "reasoning": "fine " * 40}
        for p in ("Pragmatist", "Skeptic", "Efficiency Expert")
    ],
    "verifier_score": 9.0,
    "threshold": 7.0,
    "irreversible": None,
    "gate": "pass",
    "outcome": "acted",
    "ocr_lines": [{"text": f"line {i}", "box": [0, 0, 10, 10]} for i in range(60)],
}


class _NullWriter:
    def start_episode(self, task: Any, name: str) -> None: ...

    def on_step_start(self, n: int) -> None: ...

    def on_step_end(self, n: int, result: Any) -> None: ...

    def event_sink(self, event: Any) -> None: ...

    def finish_episode(self, episode: Any, summary: Any) -> None: ...


class _Task:
    complexity = 1.2
    goal = STEP_DATA["goal"]
    app_names = ("Contacts",)


def per_step_us(mode: str, steps: int) -> list[float]:
    view = live_view.LiveView(mode, live_events.Totals(total=85), io.StringIO())
    observer = view.observe(_NullWriter(), object())
    observer.start_episode(_Task(), "ContactsAddContact_0")
    result = base_agent.AgentInteractionResult(False, STEP_DATA)
    times = []
    for n in range(steps):
        start = time.perf_counter()
        observer.on_step_end(n % 12, result)
        times.append((time.perf_counter() - start) * 1e6)
    return times


def per_frame_ms(workers: int, frames: int) -> list[float]:
    console = Console(file=io.StringIO(), force_terminal=True, width=120)
    view = live_view.LiveView("rich", live_events.Totals(total=85), console=console)
    for w in range(workers):
        name = f"w{w}" if workers > 1 else ""
        view.apply(live_events.EpisodeStart(name, f"ContactsAddContact_{w}", _Task.goal, 12))
        view.apply(live_events.step_view(name, f"ContactsAddContact_{w}", 3, 12, STEP_DATA, False))
    times = []
    for _ in range(frames):
        start = time.perf_counter()
        console.print(view.renderable())
        times.append((time.perf_counter() - start) * 1e3)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--frames", type=int, default=200)
    args = parser.parse_args()
    rows = [
        (f"per step, {mode}", "us", per_step_us(mode, args.steps))
        for mode in ("off", "plain", "rich")
    ]
    rows += [(f"per redraw, {w} worker(s)", "ms", per_frame_ms(w, args.frames)) for w in (1, 16)]
    print(f"{'measurement':<26} {'unit':>4} {'median':>9} {'p95':>9} {'n':>7}")
    for label, unit, values in rows:
        p95 = sorted(values)[int(0.95 * (len(values) - 1))]
        print(
            f"{label:<26} {unit:>4} {statistics.median(values):>9.2f} {p95:>9.2f} {len(values):>7}"
        )
    redraw = statistics.median(rows[-1][2])
    share = redraw * live_view.REFRESH_PER_SECOND / 10
    print(f"16-worker panel at {live_view.REFRESH_PER_SECOND}/s: {share:.1f}% of one core")


if __name__ == "__main__":
    main()
