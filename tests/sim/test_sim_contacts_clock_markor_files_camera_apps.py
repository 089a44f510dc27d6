"""Behaviour of the Contacts, Clock, Markor, Files and Camera apps, driven by actions only.

Setup and assertions go through the device facts (sqlite, files) the way tasks do; every
interaction is an `execute_action`, so the element list, hit-testing and handlers are real.
"""

from __future__ import annotations

import io

import pytest
from PIL import Image

from android_world.env import device
from android_world.env.json_action import JSONAction
from android_world.env.sim.apps import clock as clock_app
from android_world.env.sim.apps import markor as markor_app
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals.oracle_utils import (
    class_endswith,
    find,
    matching,
    scroll_and_tap,
    tap,
)
from android_world.task_evals.single import contacts
from android_world.task_evals.single.files import STORAGE, clear_folder, make_storage_folders


@pytest.fixture
def env():
    sim = SimEnv(render=False)
    yield sim
    sim.close()


def do(env: SimEnv, action: JSONAction) -> None:
    env.execute_action(action)


def open_app(env: SimEnv, name: str) -> None:
    do(env, JSONAction(action_type="open_app", app_name=name))


def visible(env: SimEnv, *, text: str | None = None, desc: str | None = None) -> bool:
    return find(env.get_state().ui_elements, matching(text=text, desc=desc)) is not None


def type_into(env: SimEnv, hint: str, text: str) -> None:
    do(env, JSONAction(action_type="input_text", index=contacts.field_index(env, hint), text=text))


# ---- Contacts -------------------------------------------------------------------------------


def test_contacts_permission_prompt_once_until_data_cleared(env: SimEnv) -> None:
    open_app(env, "Contacts")
    assert visible(env, text="Don't allow")
    do(env, tap(env, text="Don't allow"))
    assert visible(env, text="Contacts needs access to show your contacts")
    do(env, tap(env, text="Allow access"))
    env.controller.close_recents()
    open_app(env, "Contacts")
    assert not visible(env, text="Allow") and visible(env, text="Search contacts")
    contacts.clear_contacts(env)
    env.controller.close_recents()
    open_app(env, "Contacts")
    assert visible(env, text="Allow")


def test_contacts_create_search_details_delete(env: SimEnv) -> None:
    contacts.seed_contact(env, "Zoe Adams", "+15550001111")
    open_app(env, "Contacts")
    do(env, tap(env, text="Allow"))
    do(env, tap(env, desc="Create contact"))
    assert env.foreground_activity_name.endswith("ContactEditorActivity")
    type_into(env, "First name", "Ada")
    type_into(env, "Last name", "Lovelace")
    type_into(env, "Phone", "555-123-4567")
    do(env, tap(env, desc="Mobile Phone"))
    do(env, tap(env, text="Work"))
    assert visible(env, desc="Work Phone")
    do(env, tap(env, text="Save"))
    assert ("Ada Lovelace", "5551234567") in contacts.list_contacts(env)
    texts = [e.text for e in env.get_state().ui_elements if e.text in ("Ada Lovelace", "Zoe Adams")]
    assert texts == ["Ada Lovelace", "Zoe Adams"]  # alphabetical
    do(env, tap(env, text="Search contacts"))
    do(env, JSONAction(action_type="input_text", text="zoe"))
    assert visible(env, text="Zoe Adams") and not visible(env, text="Ada Lovelace")
    do(env, tap(env, text="Zoe Adams"))
    assert visible(env, text="+15550001111") and visible(env, text="Mobile")
    do(env, tap(env, desc="More options"))
    do(env, tap(env, text="Delete"))
    do(env, tap(env, text="Delete"))
    assert [name for name, _ in contacts.list_contacts(env)] == ["Ada Lovelace"]


def test_contacts_back_from_filled_form_asks_to_discard(env: SimEnv) -> None:
    open_app(env, "Contacts")
    do(env, tap(env, text="Allow"))
    do(env, tap(env, desc="Create contact"))
    type_into(env, "First name", "Temp")
    do(env, JSONAction(action_type="navigate_back"))  # hides the keyboard
    do(env, JSONAction(action_type="navigate_back"))
    assert visible(env, text="Discard changes?")
    do(env, tap(env, text="Discard"))
    assert contacts.list_contacts(env) == [] and visible(env, text="Search contacts")


# ---- Clock ----------------------------------------------------------------------------------


def test_stopwatch_start_lap_pause_reset(env: SimEnv) -> None:
    open_app(env, "Clock")
    do(env, tap(env, desc="Stopwatch"))
    assert visible(env, text="00:00.00") and visible(env, desc="Start")
    do(env, tap(env, desc="Start"))
    assert visible(env, desc="Pause") and visible(env, desc="Lap")
    do(env, tap(env, desc="Lap"))
    assert visible(env, text="# 1")
    do(env, tap(env, desc="Pause"))
    shown = next(
        e.text
        for e in env.get_state().ui_elements
        if (e.text or "").count(":") == 1 and "." in (e.text or "")
    )
    assert shown != "00:00.00"
    do(env, tap(env, desc="Alarm"))  # state survives switching tabs
    do(env, tap(env, desc="Stopwatch"))
    assert visible(env, text=shown)
    do(env, tap(env, desc="Reset"))
    assert visible(env, text="00:00.00") and not visible(env, text="# 1")


def test_timer_digits_fill_from_the_right(env: SimEnv) -> None:
    assert clock_app.timer_fields("123") == (0, 1, 23)
    open_app(env, "Clock")
    do(env, tap(env, desc="Timer"))
    assert not visible(env, desc="Start")  # nothing to start yet
    for digit in "1234":
        do(env, tap(env, text=digit))
    assert visible(env, text="00h 12m 34s") and visible(env, desc="0 hours, 12 minutes, 34 seconds")
    do(env, tap(env, desc="Delete"))
    assert visible(env, text="00h 01m 23s")
    do(env, tap(env, desc="Start"))
    assert visible(env, text="1:23") and not visible(env, text="00h 01m 23s")
    do(env, tap(env, text="Add timer"))
    assert visible(env, text="00h 00m 00s")


def test_alarm_time_picker_adds_an_alarm(env: SimEnv) -> None:
    open_app(env, "Clock")
    do(env, tap(env, desc="Add alarm"))
    do(env, tap(env, desc="Increase hour"))
    do(env, tap(env, desc="Decrease minute"))
    do(env, tap(env, text="OK"))
    assert visible(env, text="08:59")


# ---- Markor ---------------------------------------------------------------------------------


def test_markor_note_gets_extension_and_saves_on_back(env: SimEnv) -> None:
    clear_folder(env.controller, device.MARKOR_DATA)
    assert markor_app.note_file_name("todo", ".md") == "todo.md"
    assert markor_app.note_file_name("list.txt", ".md") == "list.txt"
    open_app(env, "Markor")
    do(env, tap(env, desc="Create a new file or folder"))
    do(env, tap(env, text="Markdown"))
    do(env, tap(env, text="Plain Text"))
    assert visible(env, text=".txt")
    type_into(env, "Name", "shopping")
    do(env, tap(env, text="OK"))
    do(env, JSONAction(action_type="input_text", index=editor_field(env), text="eggs"))
    do(env, JSONAction(action_type="navigate_back"))
    do(env, JSONAction(action_type="navigate_back"))
    assert env.controller.read_text(f"{device.MARKOR_DATA}/shopping.txt").strip() == "eggs"
    assert visible(env, text="shopping.txt")


def editor_field(env: SimEnv) -> int:
    index = find(env.get_state().ui_elements, class_endswith("EditText"))
    assert index is not None
    return index


def test_markor_folders_open_and_delete_can_be_cancelled(env: SimEnv) -> None:
    clear_folder(env.controller, device.MARKOR_DATA)
    env.controller.write_text(f"{device.MARKOR_DATA}/Work/plan.md", "Plan")
    env.controller.write_text(f"{device.MARKOR_DATA}/a_note.md", "A")
    open_app(env, "Markor")
    texts = [e.text for e in env.get_state().ui_elements if e.text in ("Work", "a_note.md")]
    assert texts == ["Work", "a_note.md"]  # folders first
    do(env, tap(env, text="Work"))
    assert visible(env, text="plan.md")
    do(env, JSONAction(action_type="navigate_back"))
    do(env, tap(env, text="a_note.md", long=True))
    assert visible(env, text="1 selected")
    do(env, tap(env, desc="Delete"))
    do(env, tap(env, text="Cancel"))
    assert env.controller.exists(f"{device.MARKOR_DATA}/a_note.md")
    do(env, JSONAction(action_type="navigate_back"))  # leaves selection mode
    assert visible(env, text="Markor")


# ---- Files ----------------------------------------------------------------------------------


def test_files_move_into_a_nested_folder_and_back_out_of_chooser(env: SimEnv) -> None:
    make_storage_folders(env.controller)
    env.controller.write_text(f"{STORAGE}/Download/report.pdf", "r")
    env.controller.make_dirs(f"{STORAGE}/Documents/Archive")
    open_app(env, "Files")
    assert visible(env, text="sdk_gphone_x86_64")
    do(env, tap(env, text="Download"))
    assert visible(env, text="sdk_gphone_x86_64 > Download")
    do(env, tap(env, text="report.pdf", long=True))
    do(env, tap(env, desc="More options"))
    do(env, tap(env, text="Move to…"))
    assert visible(env, text="Move")
    for action in scroll_and_tap(env, "Documents"):
        do(env, action)
    do(env, tap(env, text="Archive"))
    do(env, JSONAction(action_type="navigate_back"))  # up one level inside the chooser
    assert visible(env, text="sdk_gphone_x86_64 > Documents")
    do(env, tap(env, text="Archive"))
    do(env, tap(env, text="Move"))
    assert env.controller.exists(f"{STORAGE}/Documents/Archive/report.pdf")
    assert not env.controller.exists(f"{STORAGE}/Download/report.pdf")
    assert visible(env, text="No items")


def test_files_delete_asks_first(env: SimEnv) -> None:
    make_storage_folders(env.controller)
    env.controller.write_text(f"{STORAGE}/Music/song.mp3", "s")
    open_app(env, "Files")
    for action in scroll_and_tap(env, "Music"):
        do(env, action)
    do(env, tap(env, text="song.mp3", long=True))
    do(env, tap(env, desc="Delete"))
    assert visible(env, text="Delete this file?")
    do(env, tap(env, text="Cancel"))
    assert env.controller.exists(f"{STORAGE}/Music/song.mp3")
    do(env, tap(env, desc="Delete"))
    do(env, tap(env, text="OK"))
    assert not env.controller.exists(f"{STORAGE}/Music/song.mp3")


# ---- Camera ---------------------------------------------------------------------------------


def test_camera_photos_and_videos_land_in_dcim_camera(env: SimEnv) -> None:
    clear_folder(env.controller, device.CAMERA_DATA)
    open_app(env, "Camera")
    do(env, tap(env, desc="Shutter"))
    do(env, tap(env, desc="Shutter"))
    assert env.controller.list_dir(device.CAMERA_DATA) == [
        "IMG_20231015_153400.jpg",
        "IMG_20231015_153400_1.jpg",
    ]
    with Image.open(
        io.BytesIO(env.controller.read_file(f"{device.CAMERA_DATA}/IMG_20231015_153400.jpg"))
    ) as photo:
        assert photo.format == "JPEG"
    do(env, tap(env, desc="Video"))
    do(env, tap(env, desc="Shutter"))
    assert visible(env, text="REC") and visible(env, desc="Stop")
    do(env, tap(env, desc="Stop"))
    assert "VID_20231015_153400.mp4" in env.controller.list_dir(device.CAMERA_DATA)
