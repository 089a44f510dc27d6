"""EpisodicMemory storage and retrieval: learning, preference, safety under concurrency and crashes."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from android_world.agents.custom.celil_episodic import (
    SCHEMA_VERSION,
    CorruptMemoryError,
    EpisodicMemory,
    MemoryFile,
)

CONTACT = "Create a new contact for Alice Smith. Their number is +15550100."
CONTACT_PLAN = [
    "Open the Contacts app",
    "Create a contact named Alice Smith",
    "Enter +15550100 as the phone number",
    "Save",
]
ROOT = Path(__file__).resolve().parents[1]


def _raw(path: Path) -> dict:
    return json.loads(path.read_text())


def test_store_and_reuse_for_new_values(tmp_path):
    mem = EpisodicMemory(tmp_path / "sub" / "mem.json", provenance={"agent": "celil 0.1"})
    assert mem.find_similar_task(CONTACT) is None  # nothing yet, and no file created by a miss
    entry_id = mem.add_successful_plan(CONTACT, CONTACT_PLAN, ("contacts",), {"run_id": "r1"})
    data = _raw(mem.path)
    assert data["schema_version"] == SCHEMA_VERSION
    stored = data["entries"][0]
    assert (
        stored["goal_template"] == "Create a new contact for {name_1}. Their number is {number_1}."
    )
    assert stored["plan"][1] == "Create a contact named {name_1}"
    assert stored["provenance"] == {"agent": "celil 0.1", "run_id": "r1"}

    hit = mem.find_similar_task(
        "Create a new contact for Bob Jones. Their number is +15550199.", ["Contacts"]
    )
    assert hit is not None and hit.entry_id == entry_id
    assert hit.similarity == 1.0 and hit.success_rate == 1.0
    assert hit.plan[1:3] == [
        "Create a contact named Bob Jones",
        "Enter +15550199 as the phone number",
    ]
    assert _raw(mem.path)["entries"][0]["last_used_at"] is not None
    assert mem.find_similar_task("Turn wifi on.") is None


def test_resuccess_updates_instead_of_duplicating(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.json")
    first = mem.add_successful_plan(CONTACT, CONTACT_PLAN, ["contacts"])
    again = mem.add_successful_plan(
        "Create a new contact for Bob Jones. Their number is +15550199.",
        ["Open Contacts", "Add Bob Jones with +15550199", "Save"],
        ["contacts"],
    )
    assert again == first
    [entry] = mem.entries()
    assert entry.successes == 2 and entry.plan[1] == "Add {name_1} with {number_1}"
    # A retrieved plan whose success is reported through both calls counts once.
    hit = mem.find_similar_task(CONTACT)
    mem.record_outcome(hit.entry_id, True)
    mem.add_successful_plan(CONTACT, CONTACT_PLAN, ["contacts"])
    assert mem.entries()[0].successes == 3
    mem.record_outcome(hit.entry_id, False)
    assert mem.entries()[0].failures == 1
    mem.record_outcome("nope", True)  # deleted meanwhile: a warning, not a crash
    assert any("nope" in w for w in mem.warnings)


def test_retired_never_retrieved_and_pinned_preferred(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.json", similarity_threshold=0.6)
    a = mem.add_successful_plan("Turn wifi on.", ["Open Settings", "Switch Wi-Fi on."])
    b = mem.add_successful_plan(
        "Turn the wifi on.", ["Pull down quick settings", "Tap Wi-Fi to switch it on"]
    )
    assert mem.find_similar_task("Turn wifi off.").entry_id == a  # exact template wins
    with mem.transaction() as entries:
        next(e for e in entries if e.id == b).status = "pinned"
    hit = mem.find_similar_task("Turn wifi off.")
    assert hit.entry_id == b and hit.pinned
    with mem.transaction() as entries:
        for e in entries:
            e.status = "retired"
    assert mem.find_similar_task("Turn wifi off.") is None
    assert mem.find_similar_task("Turn the wifi on.") is None


def test_low_success_rate_and_missing_slots_are_not_retrieved(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.json")
    eid = mem.add_successful_plan("Turn wifi on.", ["Open Settings", "Switch Wi-Fi on."])
    assert mem.find_similar_task("Turn wifi off.").plan == ["Open Settings", "Switch Wi-Fi off."]
    for _ in range(4):
        mem.record_outcome(eid, False)
    assert mem.find_similar_task("Turn wifi off.") is None
    match = mem.rank("Turn wifi off.")[0]
    assert not match.usable and "success rate" in match.reason


def test_other_app_same_sentence_is_not_retrieved(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.json")
    goal = "Open the Camera app. Clear any pop-ups that may appear by granting all permissions."
    mem.add_successful_plan(goal, ["Open the Camera app", "Allow permissions"])
    assert mem.find_similar_task(goal) is not None
    assert mem.find_similar_task(goal.replace("Camera", "Clock")) is None


def test_corrupt_file_is_kept_aside_and_reported(tmp_path):
    path = tmp_path / "mem.json"
    path.write_text('{"schema_version": 1, "entries": [')
    mem = EpisodicMemory(path)
    with pytest.raises(CorruptMemoryError):
        mem.entries(strict=True)
    assert path.read_text() == '{"schema_version": 1, "entries": ['  # strict touches nothing
    assert mem.find_similar_task(CONTACT) is None
    aside = list(tmp_path.glob("mem.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_text() == '{"schema_version": 1, "entries": ['
    assert mem.warnings and "corrupt-" in mem.warnings[0]
    mem.add_successful_plan(CONTACT, CONTACT_PLAN)
    assert len(mem.entries()) == 1


def test_partly_invalid_file_keeps_valid_entries(tmp_path):
    path = tmp_path / "mem.json"
    mem = EpisodicMemory(path)
    mem.add_successful_plan(CONTACT, CONTACT_PLAN)
    data = _raw(path)
    data["entries"].append({"id": "broken"})
    path.write_text(json.dumps(data))
    assert len(mem.entries()) == 1
    assert len(list(tmp_path.glob("mem.json.corrupt-*"))) == 1
    assert len(_raw(path)["entries"]) == 1


def test_newer_schema_is_refused_not_overwritten(tmp_path):
    path = tmp_path / "mem.json"
    path.write_text(json.dumps({"schema_version": 99, "entries": []}))
    mem = EpisodicMemory(path)
    assert mem.add_successful_plan(CONTACT, CONTACT_PLAN) == ""
    assert "newer" in mem.warnings[-1]
    assert _raw(path)["schema_version"] == 99


def test_v0_dict_and_list_files_migrate(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(
        json.dumps(
            {
                "Create a new contact for {name}. Their number is {number}.": [
                    "Open Contacts",
                    "Type {name} and {number}",
                ],
                "Turn wifi on.": "Open Settings\nSwitch Wi-Fi on.",
            }
        )
    )
    mem = EpisodicMemory(path)
    hit = mem.find_similar_task("Create a new contact for Bo Li. Their number is +15550101.")
    assert hit is not None and hit.plan == ["Open Contacts", "Type Bo Li and +15550101"]
    assert mem.find_similar_task("Turn wifi off.").plan == ["Open Settings", "Switch Wi-Fi off."]
    data = _raw(path)  # the retrieval wrote the migrated file back
    assert data["schema_version"] == SCHEMA_VERSION and len(data["entries"]) == 2

    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([{"goal": "Turn bluetooth off.", "plan": ["Open Settings"]}]))
    [entry] = EpisodicMemory(listed).entries()
    assert entry.goal_template == "Turn bluetooth {toggle_1}." and entry.notes.startswith(
        "migrated"
    )


def _add_many(path: str, worker: int, n: int) -> None:
    mem = EpisodicMemory(path)
    for j in range(n):
        word = "".join(chr(ord("a") + int(c)) for c in f"{worker}{j}")
        assert mem.add_successful_plan(f"Water the {word} plant.", [f"Find the {word} plant"])


def test_concurrent_processes_lose_nothing(tmp_path):
    path = str(tmp_path / "mem.json")
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_add_many, args=(path, w, 5)) for w in range(6)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    entries = EpisodicMemory(path).entries(strict=True)
    assert len(entries) == 30
    assert len({e.goal_template for e in entries}) == 30


WRITER = """
import sys
from android_world.agents.custom.celil_episodic import EpisodicMemory
mem = EpisodicMemory(sys.argv[1])
plan = ["Do something fairly long to make the file big " + "x" * 200] * 200
i = 0
while True:
    word = "".join(chr(ord("a") + int(c)) for c in str(i))
    mem.add_successful_plan(f"Water the {word} plant {sys.argv[2]}.", plan)
    i += 1
"""


def test_writer_killed_mid_write_leaves_a_valid_file(tmp_path):
    path = tmp_path / "mem.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    seen = 0
    for round_, delay in enumerate((0.05, 0.13, 0.31)):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(round_)], env=env)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # wait until this writer has written something
            if path.exists() and len(MemoryFile.model_validate(_raw(path)).entries) > seen + 2:
                break
            time.sleep(0.02)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        entries = EpisodicMemory(path).entries(strict=True)  # parses and validates
        assert len(entries) > seen
        seen = len(entries)
    mem = EpisodicMemory(path)
    mem.add_successful_plan("One more plant.", ["Water it"])
    assert len(mem.entries(strict=True)) == seen + 1
    assert not list(tmp_path.glob(".mem.json.*.tmp"))  # orphans of killed writers are removed
    assert not list(tmp_path.glob("*.corrupt-*"))


# --- never poison: plans that would carry one goal's values into another -----------------------


def test_an_app_named_in_lowercase_does_not_retrieve_another_apps_plan(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.json")
    tail = " Clear any pop-ups that may appear by granting all permissions that are required."
    mem.add_successful_plan("Open the contacts app." + tail, ["Open Contacts", "Allow"])
    assert mem.find_similar_task("Open the settings app." + tail) is None
    assert mem.find_similar_task("Open the Contacts app." + tail).plan == ["Open Contacts", "Allow"]
    [entry] = mem.entries()
    assert entry.app_names == ["contacts"]


def test_a_plan_that_still_names_the_goals_values_is_not_stored(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.json")
    goal = "Delete the following expenses from pro expense: Taxi Fare."
    assert mem.add_successful_plan(goal, ["Open Pro Expense", "Delete the Taxi expense"]) == ""
    assert "not stored" in mem.warnings[-1] and "'Taxi'" in mem.warnings[-1]
    assert not mem.path.exists()
    assert mem.add_successful_plan(goal, ["Open Pro Expense", "Delete 'Taxi Fare'"])
    hit = mem.find_similar_task("Delete the following expenses from pro expense: Jeans.")
    assert hit.plan == ["Open Pro Expense", "Delete 'Jeans'"]


def _write_entries(path: Path, *entries: dict) -> None:
    now = "2024-01-01T00:00:00Z"
    body = [{"created_at": now, "updated_at": now, "successes": 1, **e} for e in entries]
    path.write_text(json.dumps({"schema_version": SCHEMA_VERSION, "entries": body}))


MOVE = (
    "Move the file {} from {} within the sdk_gphone_x86_64 storage area to the {} within the "
    "same sdk_gphone_x86_64 storage area in the Android filesystem."
)


def test_entries_stored_by_an_older_abstraction_never_leak_their_values(tmp_path):
    """Entries as the first abstraction wrote them: DCIM unslotted, a list as one slot, and a
    plan that spelled the old value out. None of them may serve a new goal."""
    path = tmp_path / "mem.json"
    _write_entries(
        path,
        {
            "id": "move",
            "goal_template": MOVE.format("{file_1}", "{name_1}", "DCIM"),
            "example_goal": MOVE.format("a.jpg", "Music", "DCIM"),
            "slots": {
                "file_1": {"type": "file", "value": "a.jpg"},
                "name_1": {"type": "name", "value": "Music"},
            },
            "plan": ["Open Files", "Tap '{name_1}'", "Select '{file_1}'", "Tap 'DCIM'"],
        },
        {
            "id": "delete",
            "goal_template": "Delete the following expenses from pro expense: {text_1}.",
            "example_goal": "Delete the following expenses from pro expense: Taxi Fare.",
            "slots": {"text_1": {"type": "text", "value": "Taxi Fare"}},
            "plan": ["Open Pro Expense", "Delete 'Taxi Fare'"],
            "app_names": ["pro expense"],
        },
    )
    mem = EpisodicMemory(path)
    assert mem.find_similar_task(MOVE.format("b.mp3", "DCIM", "Music")) is None
    assert mem.find_similar_task(MOVE.format("b.mp3", "Alarms", "DCIM")) is None
    goal = "Delete the following expenses from pro expense: Jeans."
    assert mem.find_similar_task(goal) is None
    [match] = [m for m in mem.rank(goal) if m.entry.id == "delete"]
    assert "repeats the example goal's 'Taxi Fare'" in match.reason
    # The same goal as the example is fine: nothing in the plan differs from it.
    assert mem.find_similar_task("Delete the following expenses from pro expense: Taxi Fare.")


def test_a_plan_that_assumes_a_setting_is_reused_only_for_that_setting(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.json")
    edit = "Edit a_1.md in Markor. Add to the {} of the note {}"
    plan = ["Open Markor", "Tap 'a_1.md'", "Append 'Hello there my friend.' to the text"]
    assert mem.add_successful_plan(edit.format("bottom", "Hello there my friend."), plan)
    hit = mem.find_similar_task(edit.format("bottom", "See you at noon."))
    assert hit.plan[-1] == "Append 'See you at noon.' to the text"
    assert mem.find_similar_task(edit.format("top", "See you at noon.")) is None
    assert "made for 'bottom'" in mem.rank(edit.format("top", "See you at noon."))[0].reason


def test_similar_goals_of_other_tasks_are_not_retrieved(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.json", similarity_threshold=0.5)
    mem.add_successful_plan("Pause the stopwatch.", ["Open Clock", "Tap Stopwatch", "Tap Pause"])
    assert mem.find_similar_task("Run the stopwatch.") is None
    assert "another task" in mem.rank("Run the stopwatch.")[0].reason
