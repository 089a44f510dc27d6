"""The Contacts, Clock, Markor, Files and Camera tasks: solvable, not pre-solved, not fooled.

For every task: its oracle (which reads only the screen) succeeds within int(10 * complexity)
steps on three seeds; the task is not successful before anyone acts; and a plausible wrong
solution (wrong text, the wrong file, everything deleted, a started timer, ...) scores 0.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest

from android_world.env.json_action import JSONAction
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals import task_eval
from android_world.task_evals.oracle_utils import done, scroll_and_tap, tap
from android_world.task_evals.registry import TaskRegistry
from android_world.task_evals.single import contacts, markor
from android_world.task_evals.single.files import STORAGE

TASKS = (
    "CameraTakePhoto",
    "ClockStopWatchPausedVerify",
    "ClockStopWatchRunning",
    "ClockTimerEntry",
    "ContactsAddContact",
    "ContactsNewContactDraft",
    "FilesDeleteFile",
    "FilesMoveFile",
    "MarkorCreateFolder",
    "MarkorCreateNote",
    "MarkorDeleteNote",
    "MarkorEditNote",
)
REGISTRY = TaskRegistry().get_registry()


@pytest.fixture(scope="module")
def env():
    sim = SimEnv(render=False)
    yield sim
    sim.close()


def make_task(name: str, seed: int) -> task_eval.TaskEval:
    random.seed(seed)
    cls = REGISTRY[name]
    return cls(cls.generate_random_params())


def run(env: SimEnv, actions: Iterator[JSONAction]) -> int:
    steps = 0
    for action in actions:
        env.execute_action(action)
        steps += 1
    return steps


def test_all_tasks_are_registered_with_metadata() -> None:
    for name in TASKS:
        cls = REGISTRY[name]
        assert cls.difficulty in ("easy", "medium", "hard")
        assert cls.optimal_steps >= 1
        assert cls.complexity > 0 and cls.template


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", TASKS)
def test_oracle_solves_within_budget(env: SimEnv, name: str, seed: int) -> None:
    task = make_task(name, seed)
    task.initialize_task(env)
    try:
        assert task.is_successful(env) == 0.0, "successful before acting"
        steps = run(env, task.oracle_actions(env))
        assert task.is_successful(env) == 1.0, task.goal
        assert steps <= int(10 * task.complexity)
    finally:
        task.tear_down(env)


# ---- wrong solutions --------------------------------------------------------------------


def _open(app: str) -> JSONAction:
    return JSONAction(action_type="open_app", app_name=app)


def wrong_contact_number(env: SimEnv, task: task_eval.TaskEval) -> Iterator[JSONAction]:
    first, _, last = task.params["name"].partition(" ")
    number = task.params["number"][:-1] + ("0" if task.params["number"][-1] != "0" else "1")
    yield from contacts.open_contacts(env)
    yield from contacts.fill_form(
        env, [("First name", first), ("Last name", last), ("Phone", number)]
    )
    yield tap(env, text="Save")
    yield done()


def draft_saved(env: SimEnv, task: task_eval.TaskEval) -> Iterator[JSONAction]:
    yield from task.oracle_actions(env)  # fills the draft ...
    yield tap(env, text="Save")  # ... then hits save, which the goal forbids


def stopwatch_started_then_paused(env: SimEnv, task: task_eval.TaskEval) -> Iterator[JSONAction]:
    yield _open("Clock")
    yield tap(env, desc="Stopwatch")
    yield tap(env, desc="Start")
    yield tap(env, desc="Pause")


def stopwatch_started(env: SimEnv, task: task_eval.TaskEval) -> Iterator[JSONAction]:
    yield _open("Clock")
    yield tap(env, desc="Stopwatch")
    yield tap(env, desc="Start")


def timer_started(env: SimEnv, task: task_eval.TaskEval) -> Iterator[JSONAction]:
    for action in task.oracle_actions(env):
        if action.action_type != "status":
            yield action
    yield tap(env, desc="Start")


def note_with_wrong_text(env: SimEnv, task: task_eval.TaskEval) -> Iterator[JSONAction]:
    yield markor.open_markor()
    yield from markor.new_file_dialog(env, task.params["file_name"])
    yield tap(env, text="OK")
    yield JSONAction(
        action_type="input_text", index=markor.editor_index(env), text="Something else entirely."
    )
    yield tap(env, desc="Save")


def file_instead_of_folder(env: SimEnv, task: task_eval.TaskEval) -> Iterator[JSONAction]:
    yield markor.open_markor()
    yield from markor.new_file_dialog(env, task.params["folder_name"])
    yield tap(env, text="OK")
    yield JSONAction(action_type="navigate_back")
    yield JSONAction(action_type="navigate_back")


def delete_everything_in_markor(env: SimEnv, task: task_eval.TaskEval) -> Iterator[JSONAction]:
    yield markor.open_markor()
    yield from scroll_and_tap(env, task.params["file_name"], long=True)
    yield tap(env, desc="Select all")
    yield tap(env, desc="Delete")
    yield tap(env, text="OK")


def delete_a_neighbour_note(env: SimEnv, task: task_eval.TaskEval) -> Iterator[JSONAction]:
    yield markor.open_markor()
    neighbour = next(e.text for e in env.get_state().ui_elements if e.text in task.noise)  # type: ignore[attr-defined]
    yield tap(env, text=neighbour, long=True)
    yield tap(env, desc="Delete")
    yield tap(env, text="OK")


def edit_with_wrong_text(env: SimEnv, task: task_eval.TaskEval) -> Iterator[JSONAction]:
    yield markor.open_markor()
    yield from scroll_and_tap(env, task.params["file_name"])
    yield JSONAction(
        action_type="input_text",
        index=markor.editor_index(env),
        text="Nothing to see here.",
        clear_text=True,
    )
    yield tap(env, desc="Save")


def delete_all_files(env: SimEnv, task: task_eval.TaskEval) -> Iterator[JSONAction]:
    yield _open("Files")
    yield from scroll_and_tap(env, task.params["subfolder"])
    yield from scroll_and_tap(env, task.params["file_name"], long=True)
    yield tap(env, desc="More options")
    yield tap(env, text="Select all")
    yield tap(env, desc="Delete")
    yield tap(env, text="OK")


def move_a_neighbour(env: SimEnv, task: task_eval.TaskEval) -> Iterator[JSONAction]:
    yield _open("Files")
    yield from scroll_and_tap(env, task.params["source_folder"])
    neighbour = task.noise[0]  # type: ignore[attr-defined]
    yield from scroll_and_tap(env, neighbour, long=True)
    yield tap(env, desc="More options")
    yield tap(env, text="Move to…")
    yield from scroll_and_tap(env, task.params["destination_folder"])
    yield tap(env, text="Move")


def two_photos(env: SimEnv, task: task_eval.TaskEval) -> Iterator[JSONAction]:
    yield _open("Camera")
    yield tap(env, desc="Shutter")
    yield tap(env, desc="Shutter")


def a_video(env: SimEnv, task: task_eval.TaskEval) -> Iterator[JSONAction]:
    yield _open("Camera")
    yield tap(env, desc="Video")
    yield tap(env, desc="Shutter")
    yield tap(env, desc="Stop")


WRONG: list[tuple[str, Callable[[SimEnv, task_eval.TaskEval], Iterator[JSONAction]]]] = [
    ("ContactsAddContact", wrong_contact_number),
    ("ContactsNewContactDraft", draft_saved),
    ("ClockStopWatchRunning", stopwatch_started_then_paused),
    ("ClockStopWatchPausedVerify", stopwatch_started),
    ("ClockTimerEntry", timer_started),
    ("MarkorCreateNote", note_with_wrong_text),
    ("MarkorCreateFolder", file_instead_of_folder),
    ("MarkorDeleteNote", delete_a_neighbour_note),
    ("MarkorEditNote", edit_with_wrong_text),
    ("FilesMoveFile", move_a_neighbour),
    ("CameraTakePhoto", two_photos),
    ("CameraTakePhoto", a_video),
]


@pytest.mark.parametrize(("name", "wrong"), WRONG, ids=[f"{n}-{f.__name__}" for n, f in WRONG])
def test_wrong_solution_fails(env: SimEnv, name: str, wrong) -> None:
    task = make_task(name, 7)
    task.initialize_task(env)
    try:
        run(env, wrong(env, task))
        assert task.is_successful(env) == 0.0
    finally:
        task.tear_down(env)


# Upstream checks only the target: wiping the whole folder also deletes it, so it passes.
UPSTREAM_LENIENT = [
    ("MarkorDeleteNote", delete_everything_in_markor),
    ("FilesDeleteFile", delete_all_files),
]


@pytest.mark.parametrize(
    ("name", "sweeping"), UPSTREAM_LENIENT, ids=[n for n, _ in UPSTREAM_LENIENT]
)
def test_deleting_everything_passes_as_upstream(env: SimEnv, name: str, sweeping) -> None:
    task = make_task(name, 7)
    task.initialize_task(env)
    try:
        assert task.noise  # type: ignore[attr-defined]  # look-alikes were there to sweep away
        run(env, sweeping(env, task))
        assert task.is_successful(env) == 1.0
    finally:
        task.tear_down(env)


def test_files_delete_needs_scrolling_and_tear_down_cleans(env: SimEnv) -> None:
    """With up to 20 look-alikes (upstream's 1-20) the folder list can outgrow the screen."""
    scrolled = 0
    for seed in range(6):
        task = make_task("FilesDeleteFile", seed)
        task.initialize_task(env)
        scrolled += sum(a.action_type == "scroll" for a in _collect(env, task))
        folder = f"{STORAGE}/{task.params['subfolder']}"
        task.tear_down(env)
        assert all(env.controller.is_dir(f"{folder}/{n}") for n in env.controller.list_dir(folder))
    assert scrolled > 0


def _collect(env: SimEnv, task: task_eval.TaskEval) -> list[JSONAction]:
    actions = []
    for action in task.oracle_actions(env):
        env.execute_action(action)
        actions.append(action)
    return actions


def test_markor_edit_goal_follows_edit_type() -> None:
    random.seed(0)
    seen = set()
    for _ in range(20):
        params = REGISTRY["MarkorEditNote"].generate_random_params()
        task = REGISTRY["MarkorEditNote"](params)
        seen.add(params["edit_type"])
        assert task.goal.startswith(f"Edit {params['file_name']} in Markor.")
    assert seen == {"header", "footer", "replace"}
