"""EpisodicMemory storage and retrieval: learning, preference, safety under concurrency and crashes."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from android_world.agents.custom.memory.celil_episodic import (
    SCHEMA_VERSION,
    EpisodicMemory,
)

CONTACT = "Create a new contact for Alice Smith. Their number is +15550100."
CONTACT_PLAN = [
    "Open the Contacts app",
    "Create a contact named Alice Smith",
    "Enter +15550100 as the phone number",
    "Save",
]
ROOT = Path(__file__).resolve().parents[2]


def test_store_and_reuse_for_new_values(tmp_path):
    mem = EpisodicMemory(tmp_path / "sub" / "mem.db", provenance={"agent": "celil 0.1"})
    assert mem.find_similar_task(CONTACT) is None  # nothing yet, and no file created by a miss
    assert not mem.path.exists()
    entry_id = mem.add_successful_plan(CONTACT, CONTACT_PLAN, ("contacts",), {"run_id": "r1"})
    assert mem.path.read_bytes()[:16] == b"SQLite format 3\x00"
    [stored] = mem.entries()
    assert stored.goal_template == "Create a new contact for {name_1}. Their number is {number_1}."
    assert stored.plan[1] == "Create a contact named {name_1}"
    assert stored.provenance == {"agent": "celil 0.1", "run_id": "r1"}
    assert stored.app_names == ["contacts"]

    hit = mem.find_similar_task(
        "Create a new contact for Bob Jones. Their number is +15550199.", ["Contacts"]
    )
    assert hit is not None and hit.entry_id == entry_id and hit.basis == "same template"
    assert hit.similarity == 1.0 and hit.success_rate == 1.0
    assert hit.plan[1:3] == [
        "Create a contact named Bob Jones",
        "Enter +15550199 as the phone number",
    ]
    [used] = mem.entries()
    assert used.last_used_at is not None and used.uses == 1
    assert mem.find_similar_task("Turn wifi on.") is None


def test_resuccess_updates_instead_of_duplicating(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.db")
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


def test_three_wordings_retrieve_one_entry_and_the_opposite_toggle_none(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.db")
    entry = mem.add_successful_plan("Turn wifi on.", ["Open the Settings app", "Turn Wi-Fi on"])
    for goal in ("turn on wifi", "Please switch Wi-Fi on", "Turn wifi on.", "Enable Wi-Fi"):
        hit = mem.find_similar_task(goal)
        assert hit is not None and hit.entry_id == entry, goal
        assert hit.plan == ["Open the Settings app", "Turn Wi-Fi on"], goal
        assert hit.similarity == 1.0
    assert mem.find_similar_task("Turn wifi on.").basis == "same template"
    assert mem.find_similar_task("Please switch Wi-Fi on").same_meaning
    for goal in ("turn off wifi", "Turn wifi off.", "Please switch Wi-Fi off", "Disable wifi"):
        assert mem.find_similar_task(goal) is None, goal
    [match] = mem.rank("Turn wifi off.")
    assert "made for 'on'" in match.reason
    # Another wording's success is the same task: one entry, two successes.
    assert mem.add_successful_plan("Please switch Wi-Fi on", ["Open Settings", "Turn Wi-Fi on"])
    [only] = mem.entries()
    assert only.id == entry and only.successes == 2 and only.app_names == ["settings"]
    # The opposite value is a task of its own.
    off = mem.add_successful_plan("Turn wifi off.", ["Open the Settings app", "Turn Wi-Fi off"])
    assert off != entry and mem.find_similar_task("turn off wifi").entry_id == off


def test_retired_never_retrieved_and_pinned_preferred(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.db", similarity_threshold=0.6)
    a = mem.add_successful_plan("Turn wifi on.", ["Open Settings", "Switch Wi-Fi on."])
    b = mem.add_successful_plan(
        "Also turn wifi on.", ["Pull down quick settings", "Tap Wi-Fi to switch it on"]
    )
    assert a != b  # "also" is filler for wording, not for meaning: two entries
    assert mem.find_similar_task("Turn wifi on.").entry_id == a  # exact template wins
    with mem.transaction() as entries:
        next(e for e in entries if e.id == b).status = "pinned"
    hit = mem.find_similar_task("Turn wifi on.")
    assert hit.entry_id == b and hit.pinned
    with mem.transaction() as entries:
        for e in entries:
            e.status = "retired"
    assert mem.find_similar_task("Turn wifi on.") is None
    assert mem.find_similar_task("Also turn wifi on.") is None


def test_low_success_rate_is_not_retrieved(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.db", retire_after=None)
    eid = mem.add_successful_plan("Turn wifi on.", ["Open Settings", "Switch Wi-Fi on."])
    for _ in range(4):
        mem.record_outcome(eid, False)
    assert mem.find_similar_task("Turn wifi on.") is None
    [match] = mem.rank("Turn wifi on.")
    assert not match.usable and "success rate" in match.reason
    assert mem.entries()[0].status == "active"  # retire_after=None: never retired


def test_a_plan_that_fails_its_next_uses_retires(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.db", retire_after=2)
    eid = mem.add_successful_plan(CONTACT, CONTACT_PLAN)
    for _ in range(5):
        mem.add_successful_plan(CONTACT, CONTACT_PLAN)  # a long good record
    mem.record_outcome(eid, False)
    mem.record_outcome(eid, True)  # a success ends the streak
    mem.record_outcome(eid, False)
    assert mem.entries()[0].status == "active"
    mem.record_outcome(eid, False)
    [entry] = mem.entries()
    assert entry.status == "retired" and entry.consecutive_failures == 2
    assert "retired automatically" in entry.notes and "retired" in mem.warnings[-1]
    assert mem.find_similar_task(CONTACT) is None
    # The same plan succeeding once does not bring it back; a new verified plan does.
    mem.add_successful_plan(CONTACT, CONTACT_PLAN)
    assert mem.entries()[0].status == "retired"
    new_plan = ["Open Contacts", "Tap Create contact", "Type Alice Smith and +15550100", "Save"]
    assert mem.add_successful_plan(CONTACT, new_plan) == eid
    [entry] = mem.entries()
    assert entry.status == "active" and entry.successes == 1 and entry.failures == 0
    assert mem.find_similar_task(CONTACT).plan == new_plan


def test_other_app_same_sentence_is_not_retrieved(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.db")
    goal = "Open the Camera app. Clear any pop-ups that may appear by granting all permissions."
    mem.add_successful_plan(goal, ["Open the Camera app", "Allow permissions"])
    assert mem.find_similar_task(goal) is not None
    assert mem.find_similar_task(goal.replace("Camera", "Clock")) is None


def test_goals_that_name_no_app_get_the_app_their_words_imply(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.db")
    for goal, app in (
        ("Turn bluetooth off.", "settings"),
        ("Take one photo.", "camera"),
        ("Pause the stopwatch.", "clock"),
        (CONTACT, "contacts"),
        (
            "Delete the file a_1.txt from the Android filesystem located in the Music folder.",
            "files",
        ),
    ):
        entry_id = mem.add_successful_plan(goal, ["Do it"])
        assert [e.app_names for e in mem.entries() if e.id == entry_id] == [[app]], goal


# --- JSON memories of older Celils --------------------------------------------------------------


def _write_v1(path: Path, *entries: dict) -> bytes:
    now = "2024-01-01T00:00:00Z"
    body = [{"created_at": now, "updated_at": now, "successes": 1, **e} for e in entries]
    path.write_text(json.dumps({"schema_version": SCHEMA_VERSION, "entries": body}))
    return path.read_bytes()


WIFI_V1 = {
    "id": "wifi00000001",
    "goal_template": "Turn wifi {toggle_1}.",
    "example_goal": "Turn wifi on.",
    "slots": {"toggle_1": {"type": "toggle", "value": "on"}},
    "plan": ["Open Settings", "Switch Wi-Fi {toggle_1}."],
}


def test_a_json_memory_migrates_once_into_a_database_beside_it_and_is_kept(tmp_path):
    path = tmp_path / "mem.json"
    original = _write_v1(path, WIFI_V1, {**WIFI_V1, "id": "broken", "plan": None})
    mem = EpisodicMemory(path)
    assert mem.path == tmp_path / "mem.db"
    hit = mem.find_similar_task("Please turn on the wifi")
    assert hit is not None and hit.entry_id == "wifi00000001"
    [entry] = mem.entries()
    assert entry.app_names == ["settings"]  # filled in: the old entry had none
    assert any("1 entries of it were invalid" in w for w in mem.warnings)
    assert path.read_bytes() == original  # never changed, never moved
    assert list(tmp_path.glob("*.corrupt-*")) == []

    again = EpisodicMemory(path)
    assert len(again.entries()) == 1 and again.notes == [] and again.warnings == []
    time.sleep(0.01)
    _write_v1(path, WIFI_V1, {**WIFI_V1, "id": "x", "goal_template": "Turn bluetooth {toggle_1}."})
    changed = EpisodicMemory(path)
    assert len(changed.entries()) == 1  # not re-imported behind the user's back ...
    assert "import" in changed.warnings[-1]  # ... but said, with the command to merge it


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
    assert mem.find_similar_task("Turn wifi on.").plan == ["Open Settings", "Switch Wi-Fi on."]
    assert mem.find_similar_task("Turn wifi off.") is None
    assert isinstance(json.loads(path.read_text()), dict)  # the v0 file is as it was

    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([{"goal": "Turn bluetooth off.", "plan": ["Open Settings"]}]))
    [entry] = EpisodicMemory(listed).entries()
    assert entry.goal_template == "Turn bluetooth {toggle_1}." and entry.notes.startswith(
        "migrated"
    )


# --- concurrency and crashes ---------------------------------------------------------------------


def _writer(path: str, worker: int, n: int) -> None:
    mem = EpisodicMemory(path)
    for j in range(n):
        word = "".join(chr(ord("a") + int(c)) for c in f"{worker}{j:02d}")
        entry = mem.add_successful_plan(f"Water the {word} plant.", [f"Find the {word} plant"])
        assert entry, mem.warnings
        hit = mem.find_similar_task(f"Water the {word} plant.")
        assert hit is not None and hit.entry_id == entry, mem.warnings
        mem.record_outcome(entry, j % 2 == 0)


def test_eight_concurrent_writer_processes_lose_nothing(tmp_path):
    path = str(tmp_path / "mem.db")
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(path, w, 25)) for w in range(8)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    entries = EpisodicMemory(path).entries(strict=True)
    assert len(entries) == 200
    assert len({e.goal_template for e in entries}) == 200
    assert all(e.uses == 1 and e.trials == 2 for e in entries)
    assert sum(e.successes for e in entries) == 200 + 8 * 13


def _first_writer(path: str, worker: int, start: object, results: object) -> None:
    start.wait()  # type: ignore[attr-defined]
    mem = EpisodicMemory(path)
    word = "abcdefgh"[worker] * 3  # another task per worker (a number would be a slot)
    entry = mem.add_successful_plan(f"Water the {word} plant.", [f"Find the {word} plant"])
    results.put((entry is not None, mem.warnings))  # type: ignore[attr-defined]


def test_processes_that_create_one_store_at_the_same_moment_all_write(tmp_path):
    """Workers that open a new store together: none may see it half made (its tables committed
    after its application id was read, so "not a Celil memory") or be refused while another
    switches it to WAL ("database is locked"). Before the fix about 1 round in 4 failed."""
    ctx = multiprocessing.get_context("fork")
    for round_ in range(10):
        path = str(tmp_path / f"mem{round_}.db")
        start, results = ctx.Barrier(8), ctx.Queue()
        procs = [
            ctx.Process(target=_first_writer, args=(path, w, start, results)) for w in range(8)
        ]
        for p in procs:
            p.start()
        outcomes = [results.get(timeout=120) for _ in procs]
        for p in procs:
            p.join(120)
        assert outcomes == [(True, [])] * 8, (round_, outcomes)
        assert len(EpisodicMemory(path).entries(strict=True)) == 8


WRITER = """
import sys
from android_world.agents.custom.memory.celil_episodic import EpisodicMemory
mem = EpisodicMemory(sys.argv[1])
plan = ["Do something fairly long to make the rows big " + "x" * 200] * 50
i = 0
while True:
    word = "".join(chr(ord("a") + int(c)) for c in str(i))
    assert mem.add_successful_plan(f"Water the {word} plant {sys.argv[2]}.", plan), mem.warnings
    i += 1
"""


def test_writer_killed_mid_write_leaves_a_valid_store(tmp_path):
    path = tmp_path / "mem.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    seen = 0
    for round_, delay in enumerate((0.05, 0.13, 0.31)):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(round_)], env=env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # wait until this writer has written something
            if path.exists() and EpisodicMemory(path).count() > seen + 2:
                break
            time.sleep(0.02)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        mem = EpisodicMemory(path)
        entries = mem.entries(strict=True)  # parses and validates every row
        assert len(entries) > seen
        with mem.store.read() as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        seen = len(entries)
    mem = EpisodicMemory(path)
    mem.add_successful_plan("One more plant.", ["Water it"])
    assert len(mem.entries(strict=True)) == seen + 1


# --- never poison: plans that would carry one goal's values into another -----------------------


def test_an_app_named_in_lowercase_does_not_retrieve_another_apps_plan(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.db")
    tail = " Clear any pop-ups that may appear by granting all permissions that are required."
    mem.add_successful_plan("Open the contacts app." + tail, ["Open Contacts", "Allow"])
    assert mem.find_similar_task("Open the settings app." + tail) is None
    assert mem.find_similar_task("Open the Contacts app." + tail).plan == ["Open Contacts", "Allow"]
    [entry] = mem.entries()
    assert entry.app_names == ["contacts"]


def test_a_plan_that_still_names_the_goals_values_is_not_stored(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.db")
    goal = "Delete the following expenses from pro expense: Taxi Fare."
    assert mem.add_successful_plan(goal, ["Open Pro Expense", "Delete the Taxi expense"]) == ""
    assert "not stored" in mem.warnings[-1] and "'Taxi'" in mem.warnings[-1]
    assert mem.count() == 0
    assert mem.add_successful_plan(goal, ["Open Pro Expense", "Delete 'Taxi Fare'"])
    hit = mem.find_similar_task("Delete the following expenses from pro expense: Jeans.")
    assert hit.plan == ["Open Pro Expense", "Delete 'Jeans'"]


MOVE = (
    "Move the file {} from {} within the sdk_gphone_x86_64 storage area to the {} within the "
    "same sdk_gphone_x86_64 storage area in the Android filesystem."
)


def test_entries_stored_by_an_older_abstraction_never_leak_their_values(tmp_path):
    """Entries as the first abstraction wrote them: DCIM unslotted, a list as one slot, and a
    plan that spelled the old value out. None of them may serve a new goal."""
    path = tmp_path / "mem.json"
    _write_v1(
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
    mem = EpisodicMemory(tmp_path / "mem.db")
    edit = "Edit a_1.md in Markor. Add to the {} of the note {}"
    plan = ["Open Markor", "Tap 'a_1.md'", "Append 'Hello there my friend.' to the text"]
    assert mem.add_successful_plan(edit.format("bottom", "Hello there my friend."), plan)
    hit = mem.find_similar_task(edit.format("bottom", "See you at noon."))
    assert hit.plan[-1] == "Append 'See you at noon.' to the text"
    assert mem.find_similar_task(edit.format("top", "See you at noon.")) is None
    assert "made for 'bottom'" in mem.rank(edit.format("top", "See you at noon."))[0].reason


def test_similar_goals_of_other_tasks_are_not_retrieved(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.db", similarity_threshold=0.5)
    mem.add_successful_plan("Pause the stopwatch.", ["Open Clock", "Tap Stopwatch", "Tap Pause"])
    assert mem.find_similar_task("Run the stopwatch.") is None
    assert mem.rank("Run the stopwatch.") == []  # not even a candidate of the index
    [match] = mem.rank("Run the stopwatch.", entries=mem.entries())
    assert "another task" in match.reason


def test_lookups_read_only_the_goals_candidates(tmp_path):
    """The index, not a scan: a lookup's query plan uses the wording and meaning indexes."""
    mem = EpisodicMemory(tmp_path / "mem.db")
    mem.add_successful_plan(CONTACT, CONTACT_PLAN)
    with mem.store.read() as conn:
        for column in ("wording_key", "meaning_key"):
            plan = conn.execute(
                f"EXPLAIN QUERY PLAN SELECT * FROM entries WHERE {column} = ?", ("x",)
            ).fetchall()
            assert any("USING INDEX" in str(tuple(row)) for row in plan), plan


def test_a_store_is_a_celil_database_with_a_versioned_schema(tmp_path):
    mem = EpisodicMemory(tmp_path / "mem.db")
    mem.add_successful_plan(CONTACT, CONTACT_PLAN)
    conn = sqlite3.connect(mem.path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
        assert conn.execute("PRAGMA application_id").fetchone()[0] == 0x43656C4D
    finally:
        conn.close()


@pytest.mark.parametrize("read_only", [False, True])
def test_a_frozen_json_memory_is_read_without_creating_anything(tmp_path, read_only):
    path = tmp_path / "mem.json"
    original = _write_v1(path, WIFI_V1)
    mem = EpisodicMemory(path, read_only=read_only)
    assert mem.find_similar_task("Turn wifi on.") is not None
    assert path.read_bytes() == original
    assert (tmp_path / "mem.db").exists() is (not read_only)


def test_a_json_memory_beside_a_database_it_never_went_into_is_named(tmp_path):
    EpisodicMemory(tmp_path / "mem.db").add_successful_plan(CONTACT, CONTACT_PLAN)
    original = _write_v1(tmp_path / "mem.json", WIFI_V1)
    mem = EpisodicMemory(tmp_path / "mem.json")
    assert len(mem.entries()) == 1  # the database's own entry, nothing merged behind the back
    assert "never migrated" in mem.warnings[-1] and "import" in mem.warnings[-1]
    assert (tmp_path / "mem.json").read_bytes() == original


def test_a_value_the_plan_turned_into_a_state_is_part_of_the_task(tmp_path):
    """One template, two tasks: the plan says "max" for 100%, so it must not serve 0%; a plan
    for a calendar date must not serve a weekday, which needs today's date read first."""
    mem = EpisodicMemory(tmp_path / "mem.db")
    mem.add_successful_plan("Set brightness to 100%.", ["Open Settings", "Set brightness to max"])
    assert mem.find_similar_task("Set brightness to 100%.") is not None
    assert mem.find_similar_task("Set brightness to 0%.") is None
    [match] = mem.rank("Set brightness to 0%.")
    assert match.reason == "it was made for [brightness=max], this goal is [brightness=min]"
    question = "What is my first event after {} {} in Simple Calendar Pro?"
    mem.add_successful_plan(question.format("9:45am", "October 17"), ["Open Simple Calendar Pro"])
    assert mem.find_similar_task(question.format("11am", "October 20")) is not None
    assert mem.find_similar_task(question.format("11am", "Thursday")) is None


def test_a_goal_whose_value_hides_a_second_instruction_is_not_the_same_meaning(tmp_path):
    """The label rule takes "...containing: <text>. Then send it by SMS." as one text value; the
    roles' reader sees two instructions, so a one-instruction plan is not offered for it."""
    mem = EpisodicMemory(tmp_path / "mem.db")
    mem.add_successful_plan(
        "Could you create a note a_note.txt in Markor containing: Vet at 11.",
        ["Open Markor", "Create the note a_note.txt with 'Vet at 11.'"],
    )
    two = (
        "In Markor make a note b_note.txt containing: Gym at 6. Then send the whole note to "
        "+15551234567 by SMS."
    )
    assert mem.find_similar_task(two) is None
    one = "In Markor make a note b_note.txt containing: Gym at 6."
    assert mem.find_similar_task(one).same_meaning
