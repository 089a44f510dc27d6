"""Tesseract reads the screens of the Contacts, Clock, Markor, Files and Camera apps.

One OCR pass per frame: the first screen of each app and each of their dialogs, with the data
the suite's tasks seed. At least 95% of the words of the visible element texts must be read
(case-insensitive, punctuation stripped), so a vision model sees what the tree says.
"""

from __future__ import annotations

import os
import random
import re
import shutil
from collections.abc import Callable

import pytest
from PIL import Image

from android_world.env.json_action import JSONAction
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals.single import contacts as contacts_tasks
from android_world.task_evals.single import files as files_tasks
from android_world.task_evals.single import markor as markor_tasks
from android_world.task_evals.single.files import tap

pytesseract = pytest.importorskip("pytesseract", reason="pytesseract is not installed")
if shutil.which("tesseract") is None:
    pytest.skip(
        "tesseract is not installed (apt-get install tesseract-ocr)", allow_module_level=True
    )

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
MIN_RECALL = 0.95
SYSTEM_UI = "com.android.systemui"


def words(text: str) -> list[str]:
    cleaned = (re.sub(r"[^\w]", "", token).lower() for token in text.split())
    return [t for t in cleaned if t]


def word_recall(env: SimEnv) -> tuple[float, list[str]]:
    """Share of the app's element words tesseract finds (grayscale, one uniform block, psm 6).

    System bars belong to the phone, not these apps, and a Switch's "ON"/"OFF" text is state,
    never drawn; both are left out.
    """
    state = env.get_state()
    expected = [
        w
        for e in state.ui_elements
        if e.package_name != SYSTEM_UI and not e.is_checkable
        for w in words(e.text or "")
    ]
    image = Image.fromarray(env.screenshot()).convert("L")
    read = set(words(pytesseract.image_to_string(image, config="--psm 6")))
    missing = [w for w in expected if w not in read]
    return (1.0 - len(missing) / len(expected)) if expected else 1.0, missing


def act(env: SimEnv, action: JSONAction) -> None:
    env.execute_action(action)


def _open(name: str) -> Callable[[SimEnv], None]:
    return lambda env: act(env, JSONAction(action_type="open_app", app_name=name))


def _contacts_permission(env: SimEnv) -> None:
    contacts_tasks.clear_contacts(env)
    _open("Contacts")(env)


def _contacts_list(env: SimEnv) -> None:
    contacts_tasks.clear_contacts(env)
    random.seed(3)
    for _ in range(6):
        contacts_tasks.seed_contact(
            env, contacts_tasks.random_name(), contacts_tasks.random_number()
        )
    _open("Contacts")(env)
    act(env, tap(env, text="Allow"))


def _contacts_discard(env: SimEnv) -> None:
    _contacts_list(env)
    act(env, tap(env, desc="Create contact"))
    index = contacts_tasks.field_index(env, "First name")
    act(env, JSONAction(action_type="input_text", index=index, text="Maya"))
    act(env, JSONAction(action_type="navigate_back"))
    act(env, JSONAction(action_type="navigate_back"))


def _markor_list(env: SimEnv) -> None:
    random.seed(5)
    files_tasks.clear_folder(env.controller, markor_tasks.NOTEBOOK)
    for name in files_tasks.noise_names("weekly_plan.md", markor_tasks.NOTE_TITLES, 8, 8):
        env.controller.write_text(f"{markor_tasks.NOTEBOOK}/{name}", "Some text.")
    _open("Markor")(env)


def _markor_new_file(env: SimEnv) -> None:
    _markor_list(env)
    act(env, tap(env, desc="Create a new file or folder"))


def _markor_delete(env: SimEnv) -> None:
    _markor_list(env)
    first = next(e.text for e in env.get_state().ui_elements if (e.text or "").endswith(".md"))
    act(env, tap(env, text=first, long=True))
    act(env, tap(env, desc="Delete"))


def _files_root(env: SimEnv) -> None:
    files_tasks.make_storage_folders(env.controller)
    _open("Files")(env)


def _files_delete(env: SimEnv) -> None:
    files_tasks.make_storage_folders(env.controller)
    env.controller.write_text(f"{files_tasks.STORAGE}/Download/holiday_plan.pdf", "x")
    _open("Files")(env)
    act(env, tap(env, text="Download"))
    act(env, tap(env, text="holiday_plan.pdf", long=True))
    act(env, tap(env, desc="Delete"))


def _clock_picker(env: SimEnv) -> None:
    _open("Clock")(env)
    act(env, tap(env, desc="Add alarm"))


FRAMES: dict[str, Callable[[SimEnv], None]] = {
    "contacts_permission_dialog": _contacts_permission,
    "contacts_list": _contacts_list,
    "contacts_discard_dialog": _contacts_discard,
    "clock_alarm": _open("Clock"),
    "clock_time_picker_dialog": _clock_picker,
    "markor_list": _markor_list,
    "markor_new_file_dialog": _markor_new_file,
    "markor_delete_dialog": _markor_delete,
    "files_root": _files_root,
    "files_delete_dialog": _files_delete,
    "camera": _open("Camera"),
}


@pytest.fixture(scope="module")
def env():
    sim = SimEnv(render=False)
    yield sim
    sim.close()


@pytest.mark.parametrize("frame", sorted(FRAMES))
def test_ocr_reads_the_screen(env: SimEnv, frame: str) -> None:
    env.controller.close_recents()
    FRAMES[frame](env)
    recall, missing = word_recall(env)
    assert recall >= MIN_RECALL, f"{frame}: recall {recall:.2f}, missing {missing}"
