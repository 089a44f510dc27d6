"""The live view: step data → text (pure), the rich panel without a terminal, piped lines end to
end on the simulated phone (serial and --workers), and a run's results with and without it."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from android_world.agents import base_agent
from android_world.harness import live_events, live_view, parallel
from android_world.harness.live_events import EpisodeStart, StepView, Totals, Vote

ROOT = Path(__file__).resolve().parents[2]

CELIL_STEP = {
    "goal": "Turn wifi on.",
    "sub_goal": "Turn wifi on",
    "action": {"action_type": "click", "index": 10},
    "action_description": 'click on element [10] Switch "Wi-Fi"',
    "votes": [
        {"persona": "Pragmatist", "score": 9.5, "parseable": True},
        {"persona": "Skeptic", "score": None, "parseable": False},
    ],
    "verifier_score": 9.25,
    "threshold": 7.0,
    "irreversible": None,
    "gate": "pass",
    "outcome": "acted",
}


# --------------------------------------------------------------------------------------------
# Step data → StepView → text


def test_celils_step_data_gives_sub_goal_action_votes_and_gate():
    view = live_events.step_view(
        "", "SystemWifiTurnOn_0", 2, 10, CELIL_STEP, False, (1.5, 0.002, 3)
    )
    assert (view.step, view.budget) == (3, 10)
    assert view.sub_goal == "Turn wifi on"
    assert view.action == 'click on element [10] Switch "Wi-Fi"'
    assert view.votes == (Vote("Pragmatist", 9.5), Vote("Skeptic", None))
    assert view.gate == "pass 9.2 >= 7.0"
    assert (view.model_s, view.cost_usd, view.model_calls) == (1.5, 0.002, 3)
    line = live_events.plain_line(view, Totals(total=4, done=1, successes=1))
    assert line == (
        "SystemWifiTurnOn_0 step 3/10 | sub-goal: Turn wifi on | action: click on element [10] "
        'Switch "Wi-Fi" | votes: Pragmatist 9.5, Skeptic ? | gate: pass 9.2 >= 7.0 | -> acted '
        "| done 1/4, ok 1"
    )


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"gate": "reject", "verifier_score": 4.0, "threshold": 7.0}, "reject 4.0 < 7.0"),
        ({"gate": "pass", "vote_skipped": "navigation"}, "vote skipped: navigation"),
        ({"gate": "pass", "gate_unverified": "no readable vote"}, "pass (unverified)"),
        (
            {"gate": "pass", "verifier_score": 9.0, "threshold": 9.0, "irreversible": "delete"},
            "pass 9.0 >= 9.0 irreversible",
        ),
        ({"gate": "maybe"}, None),
        ({}, None),
    ],
)
def test_gate_text(fields, expected):
    assert live_events.gate_text(fields) == expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"action": {"action_type": "open_app", "app_name": "Clock"}}, "open_app Clock"),
        ({"action": {"action_type": "click", "x": 5, "y": 9}}, "click (5, 9)"),
        (
            {"action": '{"action_type": "input_text", "text": "hi", "index": 2}'},
            'input_text "hi" index=2',
        ),
        ({"action": None}, None),
        (
            {"action_output": 'Reason: tap it\nAction: {"action_type": "wait"}'},
            '{"action_type": "wait"}',
        ),
        ({"input": "typed"}, None),
    ],
)
def test_other_agents_degrade_to_step_and_action(data, expected):
    view = live_events.step_view("", "Task_0", 0, 10, data, False)
    assert view.action == expected
    assert (view.sub_goal, view.votes, view.gate) == (None, (), None)
    line = live_events.plain_line(view, Totals(total=1))
    assert line.startswith(f"Task_0 step 1/10 | action: {expected or '-'}")


def test_junk_step_data_never_raises():
    for data in (None, 3, [], {"votes": "x", "gate": 7, "sub_goal": ["a"]}, {"votes": [1, {}]}):
        view = live_events.step_view("", "T_0", 0, None, data, True)
        assert live_events.plain_line(view, Totals()).startswith("T_0 step 1 |")
    nan = live_events.step_view(
        "", "T_0", 0, 5, {"votes": [{"persona": "P", "score": float("nan")}]}, False
    )
    assert nan.votes == (Vote("P", None),)


def test_screen_and_model_text_cannot_reach_the_terminal_as_control_codes():
    hostile = "\x1b[2J\x1b]0;pwned\x07Tap\r\nOK\u202eevil" + "x" * 500
    view = live_events.step_view(
        "", "T_0", 0, 5, {"sub_goal": hostile, "action_description": hostile}, False
    )
    for text in (view.sub_goal, view.action):
        assert text is not None and len(text) <= live_events.TEXT_LIMIT
        assert not re.search(r"[\x00-\x1f\x7f\u202e]", text)
    assert "\x1b" not in live_events.plain_line(view, Totals())


def test_totals_show_model_figures_only_once_a_model_was_called():
    assert live_events.totals_text(Totals(total=3, done=1, successes=0)) == "done 1/3, ok 0"
    seen = Totals(
        total=3, done=2, successes=1, errors=1, model_s=12.34, cost_usd=0.0021, model_seen=True
    )
    assert live_events.totals_text(seen) == "done 2/3, ok 1, errors 1, model 12.3 s, $0.0021"


def test_a_resumed_runs_totals_count_its_finished_episodes():
    episodes = [
        {
            "name": "A_0",
            "is_successful": 1.0,
            "usage": {"model_calls": 2, "model_seconds": 3.0, "cost_usd": 0.5},
        },
        {"name": "B_0", "is_successful": 0.0, "usage": {"model_calls": 0, "model_seconds": 0.0}},
        {"name": "C_0", "is_successful": None, "error": "boom"},
    ]
    totals = live_events.finished_totals(episodes, total=5)
    assert (totals.done, totals.successes, totals.model_s, totals.cost_usd) == (2, 1, 3.0, 0.5)
    assert totals.model_seen


# --------------------------------------------------------------------------------------------
# State and modes


def test_state_counts_in_flight_model_time_then_the_episodes_usage():
    state = live_view.LiveState(Totals(total=2), clock=lambda: 0.0)
    state.apply(EpisodeStart("", "A_0", "goal", 10))
    state.apply(StepView("", "A_0", 1, 10, model_s=2.0, cost_usd=0.01, model_calls=1))
    _, totals = state.snapshot()
    assert (totals.model_s, totals.cost_usd, totals.model_seen) == (2.0, 0.01, True)
    # The usage also counts calls after the last step: it replaces the steps' sum.
    usage = {"model_calls": 2, "model_seconds": 2.5, "cost_usd": 0.02}
    state.episode_saved({"name": "A_0", "is_successful": 1.0, "usage": usage})
    rows, totals = state.snapshot()
    assert (totals.done, totals.successes, totals.model_s, totals.cost_usd) == (1, 1, 2.5, 0.02)
    assert rows[0].finished == "success"
    state.episode_saved({"name": "B_0", "error": "device lost"})
    assert state.snapshot()[1].errors == 1


class _Stream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def test_mode_is_rich_on_a_terminal_plain_when_piped_or_typed_into_and_off_with_nolive(
    monkeypatch,
):
    monkeypatch.setenv("TERM", "xterm")
    assert live_view.choose_mode(True, _Stream(True)) == "rich"
    assert live_view.choose_mode(True, _Stream(False)) == "plain"
    assert live_view.choose_mode(True, _Stream(True), interactive=True) == "plain"
    assert live_view.choose_mode(False, _Stream(True)) == "off"
    monkeypatch.setenv("TERM", "dumb")
    assert live_view.choose_mode(True, _Stream(True)) == "plain"


def test_plain_mode_writes_one_line_per_step_and_off_writes_nothing():
    stream = io.StringIO()
    view = live_view.LiveView("plain", Totals(total=1), stream)
    view.apply(EpisodeStart("", "A_0", "goal", 10))
    view.apply(live_events.step_view("", "A_0", 0, 10, CELIL_STEP, False))
    assert stream.getvalue().count("\n") == 1
    assert stream.getvalue().startswith("A_0 step 1/10 | sub-goal: Turn wifi on")
    quiet = io.StringIO()
    off = live_view.LiveView("off", Totals(total=1), quiet)
    writer = object()
    assert off.observe(writer, None) is writer  # nothing wraps the run writer
    off.apply(live_events.step_view("", "A_0", 0, 10, CELIL_STEP, False))
    assert quiet.getvalue() == ""


class _Writer:
    def __init__(self):
        self.calls: list[tuple] = []

    def start_episode(self, task, name):
        self.calls.append(("start", name))

    def on_step_start(self, n):
        self.calls.append(("step_start", n))

    def on_step_end(self, n, result):
        self.calls.append(("step_end", n, result))

    def event_sink(self, event):
        self.calls.append(("event", event))

    def finish_episode(self, episode, summary):
        self.calls.append(("finish", episode, summary))

    def episode_dir(self, name):
        return f"dir/{name}"


class _Task:
    complexity = 1.5
    goal = "Turn wifi on."
    app_names = ()


def test_the_observer_passes_every_call_on_unchanged_and_sums_model_calls():
    writer, events = _Writer(), []
    observer = live_view.LiveObserver(writer, object(), events.append, worker="w1")
    observer.start_episode(_Task(), "SystemWifiTurnOn_0")
    observer.on_step_start(0)
    call = {"type": "model_call", "latency_s": 0.5, "cost_usd": 0.001}
    observer.event_sink(call)
    observer.event_sink({"type": "vote", "persona": "P"})
    observer.event_sink(call)
    result = base_agent.AgentInteractionResult(False, dict(CELIL_STEP))
    observer.on_step_end(0, result)
    observer.end_steps()  # the writer has none: no error
    observer.finish_episode({"name": "x"}, {})
    assert writer.calls == [
        ("start", "SystemWifiTurnOn_0"),
        ("step_start", 0),
        ("event", call),
        ("event", {"type": "vote", "persona": "P"}),
        ("event", call),
        ("step_end", 0, result),
        ("finish", {"name": "x"}, {}),
    ]
    assert observer.episode_dir("A") == "dir/A"
    start, step = events
    assert start == EpisodeStart("w1", "SystemWifiTurnOn_0", "Turn wifi on.", 15)
    assert (step.worker, step.step, step.budget, step.model_calls) == ("w1", 1, 15, 2)
    assert step.model_s == pytest.approx(1.0) and step.cost_usd == pytest.approx(0.002)


def test_a_failing_view_never_stops_the_run():
    def broken(_event):
        raise RuntimeError("pipe closed")

    writer = _Writer()
    observer = live_view.LiveObserver(writer, object(), broken)
    observer.start_episode(_Task(), "A_0")
    observer.on_step_end(0, base_agent.AgentInteractionResult(True, {}))
    assert observer.failures == 2 and len(writer.calls) == 2


# --------------------------------------------------------------------------------------------
# The terminal panel, without a terminal


def _console(width: int = 110) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(force_terminal=True, file=out, width=width, color_system="standard"), out


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


def test_the_serial_panel_shows_task_step_sub_goal_action_votes_gate_and_totals():
    console, out = _console()
    view = live_view.LiveView("rich", Totals(total=4, done=1, successes=1), console=console)
    with view:
        view.apply(EpisodeStart("", "SystemWifiTurnOn_0", "Turn wifi on.", 10))
        step = dict(CELIL_STEP, sub_goal="[bold]not markup[/bold]")
        view.apply(
            live_events.step_view("", "SystemWifiTurnOn_0", 2, 10, step, False, (1.25, 0.5, 1))
        )
        view._live.refresh()
    text = _plain(out.getvalue())
    assert "Celil live | done 1/4, ok 1, model 1.2 s, $0.5000" in text
    for expected in (
        "task     SystemWifiTurnOn_0",
        "goal     Turn wifi on.",
        "step     3/10",
        "sub-goal [bold]not markup[/bold]",
        'action   click on element [10] Switch "Wi-Fi" -> acted',
        "votes    Pragmatist 9.5, Skeptic ?",
        "gate     pass 9.2 >= 7.0",
    ):
        assert expected in text, text
    assert "\x1b[" in out.getvalue()  # drawn for a terminal


def test_the_parallel_panel_has_a_row_per_worker_and_marks_finished_episodes():
    console, out = _console(140)
    view = live_view.LiveView("rich", Totals(total=3), console=console)
    view.apply(EpisodeStart("w0", "ClockStopWatchRunning_0", "Run the stopwatch.", 10))
    view.apply(EpisodeStart("w1", "ContactsAddContact_0", "Add a contact.", 12))
    view.apply(live_events.step_view("w1", "ContactsAddContact_0", 0, 12, CELIL_STEP, False))
    view.apply(
        live_events.step_view(
            "w0", "ClockStopWatchRunning_0", 3, 10, {"action": {"action_type": "wait"}}, True
        )
    )
    view.episode_saved({"name": "ClockStopWatchRunning_0", "is_successful": 1.0})
    console.print(view.renderable())
    lines = _plain(out.getvalue()).splitlines()
    assert "done 1/3, ok 1" in lines[0]
    assert re.search(r"worker\s+task\s+step\s+sub-goal\s+action\s+votes\s+gate", lines[1])
    row0 = next(line for line in lines if line.lstrip("│ ").startswith("w0"))
    row1 = next(line for line in lines if line.lstrip("│ ").startswith("w1"))
    assert "ClockStopWatchRunning_0" in row0 and "4/10 (success)" in row0 and "wait" in row0
    assert "ContactsAddContact_0" in row1 and "1/12" in row1 and "Turn wifi on" in row1
    assert "9.5 ?" in row1  # the votes as scores only: the row has no room for the names


def test_the_panel_redraws_itself_after_a_change_without_the_run_asking():
    console, out = _console()
    with live_view.LiveView("rich", Totals(total=1), console=console) as view:
        view.apply(EpisodeStart("", "ContactsAddContact_0", "Add a contact.", 12))
        deadline = time.monotonic() + 5
        while "ContactsAddContact_0" not in out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "ContactsAddContact_0" in _plain(out.getvalue())  # before close() draws it


def test_the_panel_redirects_the_runs_stderr_lines_above_it_and_restores_stderr():
    console, out = _console()
    before = sys.stderr
    with live_view.LiveView("rich", Totals(total=1), console=console) as view:
        assert sys.stderr is not before
        print("ContactsAddContact_0: score 1.0 (7 steps, 2.7 s)", file=sys.stderr)
        view.apply(EpisodeStart("", "ContactsAddContact_0", "Add a contact.", 12))
    assert sys.stderr is before
    assert "ContactsAddContact_0: score 1.0 (7 steps, 2.7 s)" in _plain(out.getvalue())


# --------------------------------------------------------------------------------------------
# The scheduler hands workers' live events to the driver


def test_the_scheduler_passes_live_events_to_on_live_and_drops_stale_ones():
    class Pool:
        backend = "fake"

        def __init__(self):
            self.queue = [
                [parallel.Event("ready", 0, {})],
                [parallel.Event("live", 0, "step 1"), parallel.Event("live", 0, "old", gen=0)],
            ]

        def start(self, slot, gen=1):
            pass

        def submit(self, slot, job):
            self.queue.append(
                [parallel.Event("done", 0, parallel.Outcome(job.name, {"name": job.name}, {}))]
            )

        def events(self, timeout):
            return self.queue.pop(0) if self.queue else []

        def stop(self, slot, kill=False):
            pass

        def close(self, kill=False):
            pass

    seen, done = [], []
    job = parallel.Job("A_0", object, {}, 0)
    scheduler = parallel.Scheduler(
        Pool(), 1, done.append, poll_sec=0, on_live=lambda slot, e: seen.append((slot, e))
    )
    scheduler.run([job])
    assert seen == [(0, "step 1")] and [o.name for o in done] == ["A_0"]


# --------------------------------------------------------------------------------------------
# End to end on the simulated phone, piped


def _run(tmp_path: Path, name: str, *extra: str) -> tuple[subprocess.CompletedProcess, Path]:
    run_dir = tmp_path / name
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "android_world.harness.run",
            *("--tasks", "SystemWifiTurnOn,ContactsAddContact"),
            *("--checkpoint_dir", str(run_dir), "--new"),
            *("--set", "env.render=false", "--models", "offline"),
            *extra,
        ],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return result, run_dir


_TIMING = ("runtime", "run_time", "finished_at", "finish_dtime")


def _rows(run_dir: Path) -> list[dict]:
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return [{k: v for k, v in row.items() if k not in _TIMING} for row in rows]


def _step_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if re.search(r"_\d+ step \d+", line)]


def test_piped_runs_print_one_line_per_step_and_the_same_results_as_without_the_view(tmp_path):
    shown, shown_dir = _run(tmp_path, "live")
    quiet, quiet_dir = _run(tmp_path, "nolive", "--nolive")
    rows = _rows(shown_dir)
    assert rows == _rows(quiet_dir)
    lines = _step_lines(shown.stderr)
    assert _step_lines(quiet.stderr) == []
    for row in rows:
        mine = [line for line in lines if line.startswith(f"{row['name']} step ")]
        assert len(mine) == row["steps"], shown.stderr
        assert mine[0].startswith(f"{row['name']} step 1/{row['step_budget']} | sub-goal: ")
        assert " | votes: " in mine[0] and " | gate: " in mine[0]
        assert "agent done" in mine[-1]
    assert "\r" not in shown.stderr and "\x1b" not in shown.stderr
    assert "episodes:" not in shown.stderr  # no progress-bar frames either


def test_parallel_workers_send_their_steps_to_the_driver(tmp_path):
    result, run_dir = _run(tmp_path, "workers", "--workers", "2")
    lines = _step_lines(result.stderr)
    assert {line.split()[0] for line in lines} <= {"[w0]", "[w1]"}
    for row in _rows(run_dir):
        mine = [line for line in lines if f"] {row['name']} step " in line]
        assert len(mine) == row["steps"], result.stderr
