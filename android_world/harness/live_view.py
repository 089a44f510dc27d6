"""The live view: what the agent is doing, step by step, on stderr while a run goes on.

On a terminal it is a rich panel, redrawn on a thread of its own when something changed, at
most `REFRESH_PER_SECOND` times a second (once a second for the clock when nothing did); piped, one plain line per step (live_events.plain_line); `--nolive` turns it off.

It stays out of the episode's way:
- it reads what agents already record (each step's `AgentInteractionResult.data` and the
  `model_call` events they send the run writer), through `LiveObserver`, a pass-through wrapper
  around the run writer: the writer sees every call unchanged, so the run's files are the same
  with and without the view;
- a step costs a few dictionary reads and, piped, one written line; the terminal panel is drawn
  from a snapshot on the view's thread, never in the agent's (a 16-worker table takes rich
  milliseconds to draw, so it is not redrawn when nothing changed);
- a view that fails goes quiet (one line says so) and the run goes on.

In a `--workers` run each worker wraps its writer the same way and sends the views over its pipe
to the driver (parallel.py), which shows one row per worker. Ray actors send none: the view then
shows finished episodes and their totals only.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TextIO

from android_world.agents import base_agent
from android_world.harness import live_events, suite_utils
from android_world.harness.live_events import EpisodeStart, StepView, Totals

REFRESH_PER_SECOND = 4
LiveEvent = EpisodeStart | StepView
Emit = Callable[[LiveEvent], None]


# --------------------------------------------------------------------------------------------
# The worker's side: a pass-through observer


class LiveObserver:
    """Wraps a `suite_utils.EpisodeObserver` (the run writer) and turns its calls into
    `EpisodeStart` / `StepView` events for `emit`, after passing each call on unchanged."""

    def __init__(self, inner: Any, env: Any, emit: Emit, worker: str = ""):
        self.inner = inner
        self._env = env
        self._emit = emit
        self._worker = worker
        self._episode = ""
        self._budget: int | None = None
        self._lock = threading.Lock()  # verifier personas report model calls from threads
        self._model = (0.0, 0.0, 0)
        self.failures = 0

    def start_episode(self, task: Any, instance_name: str) -> None:
        self.inner.start_episode(task, instance_name)
        self._episode, self._model = instance_name, (0.0, 0.0, 0)
        self._budget = None
        try:
            self._budget = suite_utils.step_budget(task, self._env)
            goal = live_events.clean(getattr(task, "goal", ""), 200)
        except Exception:
            goal = ""
        self._send(EpisodeStart(self._worker, instance_name, goal, self._budget))

    def on_step_start(self, step_n: int) -> None:
        self.inner.on_step_start(step_n)

    def on_step_end(self, step_n: int, result: base_agent.AgentInteractionResult) -> None:
        self.inner.on_step_end(step_n, result)
        with self._lock:
            model, self._model = self._model, (0.0, 0.0, 0)
        try:
            view = live_events.step_view(
                self._worker, self._episode, step_n, self._budget, result.data, result.done, model
            )
        except Exception:
            self.failures += 1
            return
        self._send(view)

    def event_sink(self, event: dict[str, Any]) -> None:
        self.inner.event_sink(event)
        if not isinstance(event, Mapping) or event.get("type") != "model_call":
            return
        seconds = event.get("latency_s")
        cost = event.get("cost_usd")
        with self._lock:
            s, c, n = self._model
            self._model = (
                s + (seconds if isinstance(seconds, int | float) else 0.0),
                c + (cost if isinstance(cost, int | float) else 0.0),
                n + 1,
            )

    def end_steps(self) -> None:
        end = getattr(self.inner, "end_steps", None)
        if callable(end):
            end()

    def finish_episode(self, episode: dict[str, Any], agent_summary: dict[str, Any]) -> None:
        self.inner.finish_episode(episode, agent_summary)

    def __getattr__(self, name: str) -> Any:  # anything else the writer offers (episode_dir)
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def _send(self, event: LiveEvent) -> None:
        try:
            self._emit(event)
        except Exception:
            self.failures += 1


# --------------------------------------------------------------------------------------------
# The driver's side: state, text and panel


@dataclasses.dataclass
class _Row:
    """What one worker is on: its episode's start, then its latest step."""

    start: EpisodeStart
    step: StepView | None = None
    finished: str | None = None  # the episode's result once saved


class LiveState:
    """Rows per worker and the run's totals; every method takes the lock (the redraw thread
    reads a snapshot while the run's thread writes)."""

    def __init__(self, totals: Totals, clock: Callable[[], float] = time.monotonic):
        self._lock = threading.Lock()
        self._clock = clock
        self._started = clock()
        self._totals = totals
        self._rows: dict[str, _Row] = {}
        self._in_flight: dict[str, tuple[float, float]] = {}  # episode → model (s, USD) so far
        self.version = 0  # bumped by every change: the panel is redrawn only when it moved

    def apply(self, event: LiveEvent) -> None:
        with self._lock:
            self.version += 1
            if isinstance(event, EpisodeStart):
                self._rows[event.worker] = _Row(event)
                self._in_flight[event.episode] = (0.0, 0.0)
                return
            row = self._rows.get(event.worker)
            if row is None or row.start.episode != event.episode:
                row = self._rows[event.worker] = _Row(
                    EpisodeStart(event.worker, event.episode, event.goal or "", event.budget)
                )
            row.step = event
            s, c = self._in_flight.get(event.episode, (0.0, 0.0))
            self._in_flight[event.episode] = (s + event.model_s, c + event.cost_usd)
            if event.model_calls:
                self._totals.model_seen = True

    def episode_saved(self, episode: Mapping[str, Any]) -> None:
        """A finished episode: its agent's usage replaces what its steps reported (the usage
        also counts calls made after the last step, such as a memory write)."""
        name = str(episode.get("name"))
        with self._lock:
            self.version += 1
            live_s, live_c = self._in_flight.pop(name, (0.0, 0.0))
            totals = self._totals
            failed = suite_utils.is_failed(episode)
            totals.errors += failed
            if not failed:
                totals.done += 1
                totals.successes += live_events.is_success(episode)
            usage = live_events.usage_of(episode)
            if usage is not None:
                totals.model_seen = True
            s, c = usage if usage is not None else (live_s, live_c)
            totals.model_s += s
            totals.cost_usd += c
            for row in self._rows.values():
                if row.start.episode == name:
                    row.finished = _result_word(episode)

    def change_key(self) -> tuple[int, int]:
        """What the panel shows changes with this: the events so far and the elapsed second."""
        with self._lock:
            return self.version, int(self._clock() - self._started)

    def snapshot(self) -> tuple[list[_Row], Totals]:
        with self._lock:
            totals = dataclasses.replace(self._totals)
            for s, c in self._in_flight.values():
                totals.model_s += s
                totals.cost_usd += c
            totals.elapsed_s = self._clock() - self._started
            order = sorted(self._rows, key=lambda worker: (len(worker), worker))  # w2 before w10
            rows = [dataclasses.replace(self._rows[worker]) for worker in order]
        return rows, totals


def _result_word(episode: Mapping[str, Any]) -> str:
    if suite_utils.is_failed(episode):
        return "error"
    return "success" if live_events.is_success(episode) else "failed"


def header_text(totals: Totals) -> str:
    return f"Celil live | {live_events.totals_text(totals)} | {totals.elapsed_s:.0f} s"


def render(rows: list[_Row], totals: Totals) -> Any:
    """The terminal panel: one labelled block in a serial run, one table row per worker in a
    parallel one. Text goes in as `rich.text.Text`, so brackets in screen text are no markup."""
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    parallel = any(r.start.worker for r in rows)
    if not parallel:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column(overflow="ellipsis", no_wrap=True)
        for label, value in _fields(rows[0] if rows else None):
            grid.add_row(label, Text(value))
        body: Any = grid
    else:
        body = Table(expand=True, pad_edge=False, box=None, header_style="bold")
        for name, ratio in _COLUMNS:
            body.add_column(
                name,
                overflow="ellipsis",
                no_wrap=True,
                ratio=ratio,
                min_width=None if ratio else len(name) + 2,
            )
        for row in rows:
            fields = dict(_fields(row, compact=True))
            body.add_row(
                *(
                    Text(row.start.worker if k == "worker" else fields.get(k, ""))
                    for k, _ in _COLUMNS
                )
            )
    return Panel(body, title=Text(header_text(totals)), title_align="left")


# The parallel table: (column, share of the width left; None = as wide as its text).
_COLUMNS = (
    ("worker", None),
    ("task", None),
    ("step", None),
    ("sub-goal", 3),
    ("action", 4),
    ("votes", None),
    ("gate", None),
)


def _fields(row: _Row | None, compact: bool = False) -> list[tuple[str, str]]:
    """Label and text of each thing the panel shows; `compact` (a table row) gives the votes as
    scores only."""
    if row is None:
        return [("task", "starting…")]
    step = row.step
    progress = live_events.step_label(step.step, step.budget) if step else f"0/{row.start.budget}"
    if row.finished:
        progress += f" ({row.finished})"
    elif step is not None and step.done:
        progress += " (agent done)"
    fields = [("task", row.start.episode), ("goal", row.start.goal), ("step", progress)]
    if step is not None:
        fields += [
            ("sub-goal", step.sub_goal or ""),
            ("action", (step.action or "-") + (f" -> {step.outcome}" if step.outcome else "")),
            ("votes", live_events.votes_text(step.votes, names=not compact)),
            ("gate", step.gate or ""),
        ]
    return [(k, v) for k, v in fields if v or k in ("task", "step", "action")]


# --------------------------------------------------------------------------------------------
# The view a run opens


def choose_mode(enabled: bool, stream: TextIO, interactive: bool = False) -> str:
    """`rich` on a terminal, `plain` when piped (or the agent talks to the terminal itself,
    as the human agent does, or the terminal is dumb), `off` with --nolive."""
    if not enabled:
        return "off"
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    if not tty or interactive or os.environ.get("TERM") == "dumb":
        return "plain"
    return "rich"


class LiveView:
    """Started around a run's episodes (`start()`/`close()`, or `with view:`); `observe` wraps
    the run writer, `apply` takes a worker's events, `episode_saved` each finished episode."""

    def __init__(
        self, mode: str, totals: Totals, stream: TextIO | None = None, console: Any = None
    ):
        self.mode = mode
        self.state = LiveState(totals)
        self._stream = stream
        self._console = console
        self._live: Any = None
        self._stop = threading.Event()

    @property
    def uses_terminal(self) -> bool:
        """The panel owns the terminal: a progress bar would fight it."""
        return self.mode == "rich"

    def observe(self, writer: Any, env: Any) -> Any:
        if self.mode == "off":
            return writer
        return LiveObserver(writer, env, self.apply)

    def apply(self, event: Any) -> None:
        if self.mode == "off" or not isinstance(event, EpisodeStart | StepView):
            return
        try:
            self.state.apply(event)
            if self.mode == "plain" and isinstance(event, StepView):
                _, totals = self.state.snapshot()
                stream = self._stream or sys.stderr
                stream.write(live_events.plain_line(event, totals) + "\n")
                stream.flush()
        except Exception as exc:
            self._give_up(exc)

    def apply_from(self, _slot: int, event: Any) -> None:
        """parallel.Scheduler's `on_live` hook: the worker names itself in the event."""
        self.apply(event)

    def episode_saved(self, episode: Mapping[str, Any]) -> None:
        if self.mode != "off":
            try:
                self.state.episode_saved(episode)
            except Exception as exc:
                self._give_up(exc)

    def renderable(self) -> Any:
        return render(*self.state.snapshot())

    def start(self) -> LiveView:
        """Draw the panel (rich mode); `close()` removes it. Piped and off need no start."""
        if self.mode == "rich" and self._live is None:
            try:
                from rich.console import Console
                from rich.live import Live

                console = self._console or Console(file=self._stream or sys.stderr)
                self._live = Live(
                    console=console,
                    get_renderable=self.renderable,
                    auto_refresh=False,  # _redraw decides when
                    transient=True,
                    redirect_stdout=False,
                    redirect_stderr=True,  # the run's own stderr lines print above the panel
                )
                self._live.start(refresh=True)
                self._stop.clear()
                threading.Thread(
                    target=self._redraw, args=(self._live,), name="live-view", daemon=True
                ).start()
            except Exception as exc:
                self._give_up(exc)
        return self

    def __enter__(self) -> LiveView:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def _redraw(self, live: Any) -> None:
        shown = self.state.change_key()
        while not self._stop.wait(1 / REFRESH_PER_SECOND):
            key = self.state.change_key()
            if key == shown:
                continue
            shown = key
            try:
                live.refresh()
            except Exception:  # the terminal went away: the run goes on without the panel
                return

    def close(self) -> None:
        self._stop.set()
        live, self._live = self._live, None
        if live is not None:
            with contextlib.suppress(Exception):
                live.stop()

    def _give_up(self, exc: BaseException) -> None:
        self.mode = "off"
        self.close()
        print(f"warning: live view off: {type(exc).__name__}: {exc}", file=sys.stderr)


def open_view(
    enabled: bool,
    total: int,
    finished: Iterable[Mapping[str, Any]] = (),
    names: Iterable[str] | None = None,
    interactive: bool = False,
    stream: TextIO | None = None,
) -> LiveView:
    """The view for a run of `total` episodes; `finished` are the checkpointed episodes a resumed
    run starts from (only those named in `names`, the suite's instances, count)."""
    wanted = set(names) if names is not None else None
    kept = [e for e in finished if wanted is None or e.get("name") in wanted]
    totals = live_events.finished_totals(kept, total)
    return LiveView(choose_mode(enabled, stream or sys.stderr, interactive), totals, stream)
