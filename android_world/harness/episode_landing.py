"""An episode's records written once its step screenshots are on disk, without the run waiting.

Issue 30: the serial run waited at the end of every episode for the PNG writer to land the
episode's last frames (3.9 s of a 17.5 s offline suite), so that episode.json names only files
that are there. Now the end of an episode queues a `Landing`: the episode's frames (futures of
the writer thread) and, in order, what must follow them: episode.json and summary.json, the
checkpoint, then results.jsonl, the report and the console line. The next episode starts at
once; the run's hooks call `land_ready()` (between steps) and every landing whose frames are
all written is carried out, oldest first, on the main thread.

What stays as it was:
- Order. Landings are carried out in the order they were queued, each one's actions in order
  (files first, the checkpoint after them, the run's records last), and an action added while
  nothing waits runs at once. The writer thread writes frames in submission order, so the
  oldest landing's frames are always the first to be complete.
- Resume. The checkpoint is what marks an episode done, and it is written only after the
  episode's frames, episode.json and summary.json: a run killed at any moment resumes with every
  checkpointed episode complete on disk; an episode whose frames were still in flight is run
  again (its folder is removed first, as before).
- Failures. A frame that could not be written is recorded on its step by the landing's first
  action (as before). An action that raises stops all landing (later checkpoints are not
  written, as when the run died there before) and the error is raised at the next point where
  the run can stop (`raise_pending`: an episode's start or end, or the writer's close), never
  inside another episode's steps, where it would be recorded as that episode's failure.
- An interrupted action (KeyboardInterrupt) is not counted as done: `land_all` at close
  carries it out again (every file is replaced atomically, so doing it twice is harmless).
"""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
from collections.abc import Callable
from pathlib import Path

Frames = list[tuple[Path, "concurrent.futures.Future[None]"]]


def frame_failures(frames: Frames) -> dict[Path, str]:
    """Wait for `frames`; the files that could not be written, with why."""
    failed: dict[Path, str] = {}
    for path, future in frames:
        try:
            future.result()
        except Exception as exc:
            failed[path] = f"{type(exc).__name__}: {exc}"
    return failed


@dataclasses.dataclass
class Landing:
    """One episode's frames and what waits for them; `finish` gets the frames that failed."""

    frames: Frames
    finish: Callable[[dict[Path, str]], None]
    then: list[Callable[[], None]] = dataclasses.field(default_factory=list)
    done_actions: int = 0  # actions carried out (finish counts as the first)

    def frames_written(self) -> bool:
        return all(future.done() for _, future in self.frames)


class LandingQueue:
    """Landings waiting for their frames, oldest first (see the module docstring)."""

    def __init__(self) -> None:
        self._waiting: collections.deque[Landing] = collections.deque()
        self._error: Exception | None = None
        self._error_raised = False

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def add(self, frames: Frames, finish: Callable[[dict[Path, str]], None]) -> None:
        self._waiting.append(Landing(list(frames), finish))

    def then(self, action: Callable[[], None]) -> None:
        """Run `action` after the newest waiting landing, or now if none waits."""
        if self._waiting:
            self._waiting[-1].then.append(action)
        elif self._error is None:
            action()

    def land_ready(self, raise_error: bool = False) -> None:
        """Carry out the oldest landings whose frames are written; never waits. An error is
        kept for `raise_pending` unless `raise_error`."""
        while self._error is None and self._waiting and self._waiting[0].frames_written():
            self._land_oldest()
        if raise_error:
            self.raise_pending()

    def land_all(self) -> None:
        """Wait for every frame and carry out every landing (end of run, or before a folder of
        an earlier attempt is removed); raises a landing's error."""
        while self._error is None and self._waiting:
            self._land_oldest()
        self.raise_pending()

    def raise_pending(self) -> None:
        """Raise, once, the error an earlier landing met."""
        if self._error is not None and not self._error_raised:
            self._error_raised = True
            raise self._error

    def _land_oldest(self) -> None:
        landing = self._waiting[0]
        actions = [lambda: landing.finish(frame_failures(landing.frames)), *landing.then]
        try:
            while landing.done_actions < len(actions):
                actions[landing.done_actions]()
                landing.done_actions += 1
        except Exception as exc:  # kept: raised where the run can stop (see raise_pending)
            self._error = exc
            return
        self._waiting.popleft()
