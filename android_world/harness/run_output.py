"""The run directory (DESIGN §7): what a benchmark run leaves behind, written as it goes.

    run_<timestamp>/config.yaml, manifest.json, results.jsonl, summary.csv, report.html,
    checkpoints/<Task>_<i>.json, episodes/<Task>_<i>/{episode.json, feedback.jsonl,
    summary.json, step_NNN.png}, <Task>_<i>.pkl.gz (upstream's checkpoint format)

Every file is replaced atomically (temp file + os.replace; fsynced first where it is the only
copy: see `checkpointer.write_text_atomic`), and results.jsonl is rewritten from
the per-episode checkpoints, so a run killed at any moment and resumed ends with each episode
exactly once. Screenshots come from `RecordingEnv`, which remembers the first state the agent
observed in a step before acting: the screen it acted on, at no extra render cost. An agent that
reuses an earlier observation (Celil reuses its post-check frame) fetches nothing before acting,
so the last state seen before the step stands in for it.
"""

from __future__ import annotations

import csv
import datetime
import html
import importlib.metadata
import io
import json
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from android_world.agents import base_agent
from android_world.agents.custom.celil_secrets import redact as redact_text
from android_world.env import interface, json_action
from android_world.harness import checkpointer as checkpointer_lib
from android_world.harness import episode_landing, png_writer, suite_utils
from android_world.harness.checkpointer import to_jsonable, write_json_atomic, write_text_atomic
from android_world.harness.config import redact
from android_world.harness.episode_rows import result_row, upstream_keys  # noqa: F401 (re-exported)
from android_world.task_evals import task_eval

CHECKPOINTS = "checkpoints"
EPISODES = "episodes"
SIM_DISCLAIMER = "Suite family 'sim' runs on the simulated phone: NOT AndroidWorld scores."
_PACKAGES = (
    "absl-py",
    "numpy",
    "pillow",
    "pyyaml",
    "pydantic",
    "jinja2",
    "tqdm",
    "pytesseract",
    "google-genai",
    "ollama",
    "openai",
    "httpx",
)


def episode_line(ep: Mapping[str, Any]) -> str:
    """The console line of a finished episode: its score (or `unscored`) and why it ended, in
    the agent's terms: complete, infeasible with its reason, out of steps (n/budget), or error
    with its one-line reason."""
    name = ep.get("name")
    if suite_utils.is_failed(ep):
        reason = " ".join(str(ep.get("error") or "the episode raised").split())
        return redact_text(f"{name}: ERROR ({_shorten(reason, 160)})")
    steps, budget = ep.get("episode_length"), ep.get("step_budget")
    runtime = float(ep.get("run_time") or 0.0)
    used = f"{steps}/{budget} steps" if budget is not None else f"{steps} steps"
    score = "unscored" if suite_utils.is_unscored(ep) else f"score {ep.get('is_successful')}"
    how = suite_utils.how_it_ended(ep)
    if how == "infeasible":
        reason = ep.get("end_reason") or "no reason given"
        why = f"said infeasible: {_shorten(str(reason), 160)}"
    elif how == "out_of_steps":
        why = "out of steps"
    else:
        why = "said complete"
    return redact_text(f"{name}: {score}, {why} ({used}, {runtime:.1f} s)")


def goal_lines(ep: Mapping[str, Any]) -> list[str]:
    """What a `--goal` run ends with instead of a summary table: the goal, how the agent says it
    ended, and its answer; unscored, because nothing checked the device."""
    lines = [f"Goal: {ep.get('goal')}"]
    if suite_utils.is_failed(ep):
        lines.append(f"Outcome: error ({_shorten(str(ep.get('error')), 160)})")
    else:
        how = suite_utils.how_it_ended(ep)
        said = {
            "complete": "the agent said the goal is complete",
            "infeasible": "the agent said the goal is infeasible"
            + (f" ({ep['end_reason']})" if ep.get("end_reason") else ""),
            "out_of_steps": "the agent ran out of steps before saying it was done",
        }[how]
        used = f"{ep.get('episode_length')} of {ep.get('step_budget')} steps"
        lines.append(f"Outcome: unscored (no task check): {said}, after {used}.")
    answer = ep.get("agent_answer")
    if isinstance(answer, str) and answer.strip():
        lines.append(f"Answer: {_shorten(' '.join(answer.split()), 300)}")
    return [redact_text(line) for line in lines]


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def checkpoint_store(run_dir: Path) -> checkpointer_lib.IncrementalCheckpointer:
    """The run's checkpoints: our JSON in checkpoints/, upstream's `<Task>_<i>.pkl.gz` in the
    run directory itself (where upstream's run.py keeps them), so upstream's checkpointer loads
    the run and a run of upstream's resumes here."""
    return checkpointer_lib.IncrementalCheckpointer(run_dir / CHECKPOINTS, upstream_dir=run_dir)


def utc_now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


# --------------------------------------------------------------------------------------------
# Screenshots without extra renders


class RecordingEnv(interface.AsyncEnv):
    """Delegates to `env`, remembering the state the agent acted on in the current step.

    The runner hands this wrapper to the agent, calls `clear()` before each step and saves
    `captured` after it: the first state fetched in the step before any action, or else the
    last state seen before the step began (the observation an agent reused).
    """

    def __init__(self, env: interface.AsyncEnv):
        self.__dict__["_env"] = env
        self.__dict__["captured"] = None
        self.__dict__["recording"] = False
        self.__dict__["acted"] = False
        self.__dict__["last_seen"] = None
        self.__dict__["before_step"] = None

    @property
    def wrapped(self) -> interface.AsyncEnv:
        return self._env

    def clear(self, recording: bool = True) -> None:
        self.__dict__["captured"] = None
        self.__dict__["recording"] = recording
        self.__dict__["acted"] = False
        self.__dict__["before_step"] = self.last_seen if recording else None

    def forget(self) -> None:
        """Drop the last state seen, so a new episode never shows the previous one's screen."""
        self.__dict__["last_seen"] = None
        self.__dict__["before_step"] = None

    def acted_on(self) -> interface.State | None:
        """The state this step's action was chosen on (see the class docstring)."""
        return self.captured if self.captured is not None else self.before_step

    def _keep(self, state: interface.State) -> interface.State:
        if self.recording and self.captured is None and not self.acted:
            self.__dict__["captured"] = state
        self.__dict__["last_seen"] = state
        return state

    def __getattr__(self, name: str) -> Any:  # anything env-specific (e.g. SimEnv extras)
        return getattr(self.__dict__["_env"], name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._env, name, value)

    @property
    def controller(self) -> Any:
        return self._env.controller

    def reset(self, go_home: bool = False) -> interface.State:
        state = self._env.reset(go_home=go_home)
        return self._keep(state) if isinstance(state, interface.State) else state

    def get_state(self, wait_to_stabilize: bool = False) -> interface.State:
        return self._keep(self._env.get_state(wait_to_stabilize=wait_to_stabilize))

    def display_message(self, message: str, header: str = "") -> None:
        self._env.display_message(message, header=header)

    def ask_question(self, question: str, timeout_seconds: float = -1.0) -> str | None:
        return self._env.ask_question(question, timeout_seconds=timeout_seconds)

    def execute_action(self, action: json_action.JSONAction) -> None:
        self.__dict__["acted"] = True
        self._env.execute_action(action)

    @property
    def foreground_activity_name(self) -> str:
        return self._env.foreground_activity_name

    @property
    def device_screen_size(self) -> tuple[int, int]:
        return self._env.device_screen_size

    @property
    def logical_screen_size(self) -> tuple[int, int]:
        return self._env.logical_screen_size

    def close(self) -> None:
        self._env.close()

    @property
    def interaction_cache(self) -> str:
        return self._env.interaction_cache

    @interaction_cache.setter
    def interaction_cache(self, value: str) -> None:
        self._env.interaction_cache = value

    def hide_automation_ui(self) -> None:
        self._env.hide_automation_ui()

    @property
    def orientation(self) -> int:
        return self._env.orientation

    @property
    def physical_frame_boundary(self) -> tuple[int, int, int, int]:
        return self._env.physical_frame_boundary


def save_png(pixels: np.ndarray, path: Path) -> None:
    """Encode and write one frame now (the background writer uses the same encoding)."""
    png_writer.write_bytes_atomic(path, png_writer.encode_png(pixels))


# --------------------------------------------------------------------------------------------
# Rows


def result_line(ep: Mapping[str, Any]) -> str:
    return json.dumps(to_jsonable(result_row(ep)), allow_nan=False)


class ResultLines:
    """Each episode's results.jsonl line, kept between the rewrites of one run: a serial run
    rewrites the file after every episode (k lines after the k-th), so building every line
    again made the rewrites quadratic. A line is reused only for the very episode object it
    was built from; a saved episode is not changed afterwards (its checkpoint already holds
    it), and a rerun's episode is a new object, so its line is built anew."""

    def __init__(self) -> None:
        self._lines: dict[Any, tuple[Mapping[str, Any], str]] = {}

    def line(self, ep: Mapping[str, Any]) -> str:
        kept = self._lines.get(ep.get("name"))
        if kept is not None and kept[0] is ep:
            return kept[1]
        line = result_line(ep)
        self._lines[ep.get("name")] = (ep, line)
        return line


def write_results_jsonl(
    path: Path, episodes: Iterable[Mapping[str, Any]], lines: ResultLines | None = None
) -> None:
    built = [lines.line(ep) if lines is not None else result_line(ep) for ep in episodes]
    write_text_atomic(path, "".join(line + "\n" for line in built), durable=False)


def write_summary_csv(path: Path, summary: suite_utils.Summary) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(summary.columns)
    for row in [*summary.rows, summary.average]:
        writer.writerow(["" if row[c] is None else row[c] for c in summary.columns])
    write_text_atomic(path, buffer.getvalue(), durable=False)  # rebuilt like results.jsonl


def _write_basic_report(
    run_dir: Path, episodes: list[Mapping[str, Any]], summary: suite_utils.Summary, family: str
) -> None:
    """A plain page: the summary table and one line per episode linking to its folder.

    A richer report module can replace this; it must read only the run directory's files.
    """
    try:  # the full report (android_world/reporting/report.py); this plain page stays as its fallback
        from android_world.reporting.report import write_report

        write_report(run_dir)
        return
    except Exception as exc:  # a report problem must never stop a run
        print(f"warning: report.html: {type(exc).__name__}: {exc}", file=sys.stderr)
    esc = html.escape
    head = "".join(f"<th>{esc(c)}</th>" for c in summary.columns)
    body = "".join(
        "<tr>"
        + "".join(
            f"<td>{esc('' if r[c] is None else (f'{r[c]:.3f}' if isinstance(r[c], float) else str(r[c])))}</td>"
            for c in summary.columns
        )
        + "</tr>"
        for r in [*summary.rows, summary.average]
    )
    items = []
    for ep in episodes:
        row = result_row(ep)
        status = f"error: {row['error']}" if row["error"] else f"score {row['score']}"
        items.append(
            f'<li><a href="{EPISODES}/{esc(str(row["name"]))}/episode.json">'
            f"{esc(str(row['name']))}</a> — {esc(status)}, {row['steps']} steps — "
            f"{esc(str(row['goal']))}</li>"
        )
    note = f"<p><b>{esc(SIM_DISCLAIMER)}</b></p>" if family == "sim" else ""
    page = (
        "<!doctype html><meta charset='utf-8'><title>Celil run</title>"
        f"<h1>Run {esc(run_dir.name)}</h1><p>Suite family: {esc(family)}</p>{note}"
        f"<table border='1' cellpadding='3'><tr>{head}</tr>{body}</table>"
        f"<h2>Episodes</h2><ul>{''.join(items)}</ul>\n"
    )
    write_text_atomic(run_dir / "report.html", page, durable=False)


# --------------------------------------------------------------------------------------------
# Manifest


def _git_commit(cwd: Path) -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def package_versions(names: Iterable[str] = _PACKAGES) -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def build_manifest(**fields: Any) -> dict[str, Any]:
    repo = Path(__file__).resolve().parents[2]
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "packages": package_versions(),
        "git_commit": _git_commit(repo),
        **fields,
    }


def agent_manifest(agent: Any) -> dict[str, Any] | None:
    """The agent's `run_manifest()` (resolved models, prompt hashes), JSON-safe and redacted.

    A failing hook costs the manifest entry, not the run.
    """
    describe = getattr(agent, "run_manifest", None)
    if not callable(describe):
        return None
    try:
        info = describe()
    except Exception as exc:
        lines = str(exc).strip().splitlines()
        return {"error": f"run_manifest() failed: {lines[0] if lines else type(exc).__name__}"}
    if not isinstance(info, dict):
        return {"value": to_jsonable(info)}
    return to_jsonable(redact(info))


def model_servers() -> list[dict[str, Any]]:
    """What Celil's model wrappers in this process learned about the servers (JSON form, image
    limit), for manifest.json; empty when the plugin is not there."""
    try:
        from android_world.agents.custom.model_clients import negotiation
    except ImportError:
        return []
    return negotiation.SERVERS.snapshot()


# --------------------------------------------------------------------------------------------
# The writer the suite runner reports to


class RunWriter:
    """Implements `suite_utils.EpisodeObserver`: fills episodes/<Task>_<i>/ as an episode runs.

    With `wait_for_frames=False` (the serial run) the end of an episode does not wait for its
    last frames: episode.json and summary.json are written once they are on disk, and what the
    run queues with `after_landing` (the checkpoint, the run's records) follows them, in order
    (harness/episode_landing.py). Otherwise (a parallel worker, whose parent reads the folder
    as soon as the episode is returned) the end of an episode waits, as before.
    """

    def __init__(
        self,
        run_dir: Path,
        recorder: RecordingEnv | None = None,
        save_screenshots: bool = True,
        clock: Callable[[], float] = time.time,
        wait_for_frames: bool = True,
    ):
        self.run_dir = Path(run_dir)
        self.recorder = recorder
        self.save_screenshots = save_screenshots
        self.wait_for_frames = wait_for_frames
        self._clock = clock
        self._episode_dir: Path | None = None
        self._feedback: io.TextIOBase | None = None
        self._step = -1
        self._steps: list[dict[str, Any]] = []
        self._png: png_writer.PngWriter | None = None  # started with the first screenshot
        self.landing = episode_landing.LandingQueue()

    def episode_dir(self, instance_name: str) -> Path:
        return self.run_dir / EPISODES / instance_name

    def after_landing(self, action: Callable[[], None]) -> None:
        """Run `action` once the episodes finished so far are on disk (at once if they are)."""
        self.landing.then(action)

    def start_episode(self, task: task_eval.TaskEval, instance_name: str) -> None:
        """A rerun (after a failure or a kill) starts from an empty folder."""
        self._close_feedback()
        self._flush_unfinished()  # an unfinished episode's frames land before its folder goes
        directory = self.episode_dir(instance_name)
        if directory.exists():
            self.landing.land_all()  # nothing queued may still write into an earlier attempt
            shutil.rmtree(directory)
        else:
            self.landing.land_ready(raise_error=True)
        directory.mkdir(parents=True)
        self._episode_dir = directory
        self._feedback = open(directory / "feedback.jsonl", "a", encoding="utf-8")  # noqa: SIM115
        self._step = -1
        self._steps = []
        if self.recorder is not None:
            self.recorder.clear(recording=False)
            self.recorder.forget()

    def on_step_start(self, step_n: int) -> None:
        self._step = step_n
        if self.recorder is not None:
            self.recorder.clear(recording=True)
        self.landing.land_ready()  # an error waits for the episode's end (see episode_landing)

    def on_step_end(self, step_n: int, result: base_agent.AgentInteractionResult) -> None:
        screenshot = None
        if self.recorder is not None:
            state = self.recorder.acted_on()
            self.recorder.clear(recording=False)
            if self.save_screenshots and state is not None and self._episode_dir is not None:
                screenshot = f"step_{step_n:03d}.png"
                if self._png is None:
                    self._png = png_writer.PngWriter()
                self._png.submit(state.pixels, self._episode_dir / screenshot)
        record = {"step_number": step_n, "done": result.done, "screenshot": screenshot}
        self._steps.append(record | {"data": to_jsonable(result.data)})
        if self._feedback is not None:
            self._feedback.flush()  # a step's events reach the file together (see event_sink)
        self.landing.land_ready()

    def end_steps(self) -> None:
        """Events after the last step (tear-down, memory updates) belong to no step."""
        self._step = -1

    def event_sink(self, event: dict[str, Any]) -> None:
        """One feedback.jsonl line; `step` is always the runner's 0-based step number (None
        outside steps), and an agent's own step counter is kept as `agent_step`. Lines are
        flushed at each step's end and at the episode's, not one by one (a flush per event was
        ~4.5% of an offline run); a killed episode is run again from an empty folder anyway."""
        if self._feedback is None:
            return
        fields = to_jsonable(dict(event))
        line = {"ts": self._clock()} | fields
        if "step" in fields:
            line["agent_step"] = line.pop("step")
        line["step"] = self._step if self._step >= 0 else None
        self._feedback.write(redact_text(json.dumps(line, allow_nan=False)) + "\n")

    def finish_episode(self, episode: dict[str, Any], agent_summary: dict[str, Any]) -> None:
        self._close_feedback()
        self.landing.land_ready(raise_error=True)
        directory = self._episode_dir
        if directory is None:
            return
        frames = self._png.take_pending() if self._png is not None else []
        meta = {k: v for k, v in episode.items() if k not in ("episode_data", "exception_info")}
        record = meta | {"exception_info": episode.get("exception_info"), "steps": self._steps}
        summary = {"result": result_row(episode), "agent": agent_summary}

        def write_records(failed: dict[Path, str]) -> None:
            _record_failed_frames(failed, record["steps"])  # episode.json names only files there
            write_json_atomic(directory / "episode.json", record)
            write_json_atomic(directory / "summary.json", summary)

        self.landing.add(frames, write_records)
        self._episode_dir = None
        self._steps = []
        if self.wait_for_frames:
            self.landing.land_all()
        else:
            self.landing.land_ready(raise_error=True)

    def _flush_unfinished(self) -> None:
        """Wait for frames no finished episode took (an episode that never reached its end)."""
        if self._png is not None:
            _record_failed_frames(self._png.flush(), self._steps)

    def close(self) -> None:
        """Write every queued frame and record, and stop the writer thread (end of run, or
        interrupted); a landing's error is raised after the thread is stopped."""
        self._close_feedback()
        try:
            self._flush_unfinished()
            self.landing.land_all()
        finally:
            if self._png is not None:
                self._png.close()
                self._png = None

    def _close_feedback(self) -> None:
        if self._feedback is not None:
            self._feedback.close()
            self._feedback = None


def _record_failed_frames(failed: Mapping[Path, str], steps: list[dict[str, Any]]) -> None:
    """A frame that could not be written is recorded on its step (`screenshot` None,
    `screenshot_error` why) and on stderr, and the run goes on."""
    by_name = {path.name: why for path, why in failed.items()}
    for record in steps:
        why = by_name.get(record.get("screenshot") or "")
        if why is not None:
            record["screenshot"] = None
            record["screenshot_error"] = why
    for name, why in by_name.items():
        print(f"warning: {name}: not written ({why})", file=sys.stderr)
