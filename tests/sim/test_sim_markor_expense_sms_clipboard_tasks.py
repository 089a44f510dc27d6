"""Upstream tasks added for issue 15 (Markor, Pro Expense, SMS, clipboard, camera): each one's
oracle solves it on three seeds within budget, doing nothing scores 0, and a plausible mistake
scores 0. Plus the sim features they rely on (text-field Copy/Paste, Markor rename/move/sort by
date, SMS contact names)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from android_world.env.json_action import JSONAction
from android_world.env.sim import SimEnv
from android_world.env.sim.apps import sms as sms_app
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.registry import TaskRegistry
from android_world.task_evals.single import contacts, expense, markor_more, sms, sms_more
from android_world.task_evals.single.markor import NOTEBOOK

REGISTRY = TaskRegistry().get_registry()
NEW_TASKS = (
    "MarkorDeleteNewestNote",
    "MarkorAddNoteHeader",
    "MarkorChangeNoteContent",
    "MarkorMoveNote",
    "MarkorDeleteAllNotes",
    "MarkorCreateNoteFromClipboard",
    "MarkorMergeNotes",
    "ExpenseDeleteMultiple2",
    "ExpenseDeleteDuplicates",
    "ExpenseDeleteDuplicates2",
    "ExpenseAddMultiple",
    "SimpleSmsResend",
    "SimpleSmsSendClipboardContent",
    "SimpleSmsSendReceivedAddress",
    "SystemCopyToClipboard",
    "CameraTakeVideo",
    "ExpenseAddMultipleFromMarkor",
)
# Upstream's complexities (the step budget is int(10 * complexity)).
UPSTREAM_COMPLEXITY = {
    "MarkorDeleteNewestNote": 1,
    "MarkorAddNoteHeader": 1.2,
    "MarkorChangeNoteContent": 1.2,
    "MarkorMoveNote": 1.4,
    "MarkorDeleteAllNotes": 1.4,
    "MarkorCreateNoteFromClipboard": 1.4,
    "MarkorMergeNotes": 7.8,
    "ExpenseDeleteMultiple2": 3.4,
    "ExpenseDeleteDuplicates": 1.2,
    "ExpenseDeleteDuplicates2": 1.8,
    "ExpenseAddMultiple": 6,
    "SimpleSmsResend": 1.2,
    "SimpleSmsSendClipboardContent": 1.2,
    "SimpleSmsSendReceivedAddress": 1.8,
    "SystemCopyToClipboard": 1,
    "CameraTakeVideo": 1,
    "ExpenseAddMultipleFromMarkor": 6,
}


def _started(name: str, seed: int) -> tuple[SimEnv, object]:
    env = SimEnv(seed=0, render=False)
    env.reset(go_home=True)
    random.seed(seed)
    params = REGISTRY[name].generate_random_params()
    params["seed"] = seed
    task = REGISTRY[name](params)
    task.initialize_task(env)
    return env, task


def _run_oracle(task, env) -> int:
    steps = 0
    for action in task.oracle_actions(env):
        env.execute_action(action)
        steps += 1
        if action.action_type == "status":
            break
    return steps


def test_all_new_tasks_are_registered_with_upstream_complexity():
    for name in NEW_TASKS:
        assert name in REGISTRY, name
        assert REGISTRY[name].complexity == UPSTREAM_COMPLEXITY[name], name


@pytest.mark.parametrize("name", NEW_TASKS)
def test_oracle_solves_three_seeds_and_doing_nothing_fails(name):
    for seed in (0, 1, 2):
        env, task = _started(name, seed)
        try:
            assert task.goal and "{" not in task.goal
            assert task.is_successful(env) == 0.0, f"{name} seed {seed} starts solved"
            steps = _run_oracle(task, env)
            assert steps <= int(10 * task.complexity), f"{name}: {steps} steps over budget"
            assert task.is_successful(env) == 1.0, f"{name} seed {seed}"
            task.tear_down(env)
        finally:
            env.close()


# ---- plausible mistakes ----------------------------------------------------------------------


def _notes(env) -> list[tuple[str, float]]:
    return markor_more.regular_files(env)


def _delete_oldest_note(env, task) -> None:
    env.controller.remove(f"{NOTEBOOK}/{_notes(env)[0][0]}")


def _delete_newest_and_edit_another(env, task) -> None:
    names = [n for n, _ in _notes(env)]
    env.controller.remove(f"{NOTEBOOK}/{names[-1]}")
    if len(names) > 1:
        env.controller.set_device_time(env.controller.device_time().replace(year=2024))
        env.controller.write_text(f"{NOTEBOOK}/{names[0]}", "edited\n")


def _delete_all_but_one_note(env, task) -> None:
    names = [n for n, _ in _notes(env)]
    for name in names[1:]:  # with one note seeded, leaving it is the whole mistake
        env.controller.remove(f"{NOTEBOOK}/{name}")


def _copy_instead_of_move(env, task) -> None:
    p = task.params
    text = env.controller.read_text(f"{NOTEBOOK}/{p['source_folder']}/{p['file_name']}")
    env.controller.write_text(f"{NOTEBOOK}/{p['destination_folder']}/{p['file_name']}", text)


def _move_to_notebook_root(env, task) -> None:
    p = task.params
    env.controller.rename(
        f"{NOTEBOOK}/{p['source_folder']}/{p['file_name']}", f"{NOTEBOOK}/{p['file_name']}"
    )


def _note_typed_not_pasted(env, task) -> None:
    env.controller.write_text(f"{NOTEBOOK}/{task.params['file_name']}", "hello world\n")


def _merge_without_blank_lines(env, task) -> None:
    p = task.params
    text = "\n".join(p[f"file{i}_content"] for i in (1, 2, 3)) + "\n"
    env.controller.write_text(f"{NOTEBOOK}/{p['new_file_name']}", text)


def _merge_into_md_file(env, task) -> None:
    env.controller.write_text(f"{NOTEBOOK}/{task.params['new_file_name']}.md", task.expected())


def _edit_without_rename(env, task) -> None:
    env.controller.write_text(
        f"{NOTEBOOK}/{task.params['original_name']}", task.params["updated_content"] + "\n"
    )


def _rename_without_edit(env, task) -> None:
    p = task.params
    env.controller.rename(f"{NOTEBOOK}/{p['original_name']}", f"{NOTEBOOK}/{p['new_name']}")


def _header_without_blank_line(env, task) -> None:
    p = task.params
    env.controller.remove(f"{NOTEBOOK}/{p['original_name']}")
    env.controller.write_text(
        f"{NOTEBOOK}/{p['new_name']}", f"{p['header']}\n{p['original_content']}\n"
    )


def _delete_expenses(pick: Callable[[list[dict], object], list[int]]):
    def act(env, task) -> None:
        for row_id in pick(expense.list_rows(env), task):
            env.controller.sqlite_execute(
                expense.DB, "DELETE FROM expense WHERE expense_id = ?", (row_id,)
            )

    return act


def _two_of_three_targets(rows, task) -> list[int]:
    names = [r["name"] for r in task.params[expense.ROW_OBJECTS]][:2]
    return [r["expense_id"] for r in rows if r["name"] in names]


def _targets_and_one_noise(rows, task) -> list[int]:
    names = {r["name"] for r in task.params[expense.ROW_OBJECTS]}
    noise = next(r for r in rows if r["name"] not in names)
    return [r["expense_id"] for r in rows if r["name"] in names] + [noise["expense_id"]]


def _both_duplicates(rows, task) -> list[int]:
    return list(task.copy_ids)


def _a_near_duplicate(rows, task) -> list[int]:
    target = task.params[expense.ROW_OBJECTS][0]
    near = [r for r in rows if r["name"] == target["name"] and r["expense_id"] not in task.copy_ids]
    return [(near or [r for r in rows if r["expense_id"] not in task.copy_ids])[0]["expense_id"]]


def _add_all_but_one(env, task) -> None:
    expense.add_rows(env, task.params[expense.ROW_OBJECTS][:-1])


def _add_with_wrong_amount(env, task) -> None:
    rows = [dict(r) for r in task.params[expense.ROW_OBJECTS]]
    rows[-1]["amount"] += 100
    expense.add_rows(env, rows)


def _log_with_the_mark(env, task) -> None:
    expense.add_rows(
        env, [dict(r, note=r["note"] + ". Reimbursable.") for r in task.params[expense.ROW_OBJECTS]]
    )


def _sms(number: str, body: str):
    def act(env, task) -> None:
        env.controller.launch_app("Simple SMS Messenger")
        sms_app.insert_message(
            env.controller, number, body, msg_type=sms_app.SENT, date_ms=sms.now_ms(env)
        )

    return act


def _resend_glitch(env, task) -> None:
    _sms(task.params["number"], sms_more.GLITCH)(env, task)


def _resend_other_message(env, task) -> None:
    _sms(task.params["number"], sms.other_message(task.params["message"]))(env, task)


def _clipboard_to_wrong_number(env, task) -> None:
    wrong = "+19998887777" if task.params["number"] != "+19998887777" else "+19998887778"
    _sms(wrong, task.params["message"])(env, task)


def _address_back_to_sender(env, task) -> None:
    sender = next(m["address"] for m in sms_app.messages(env.controller, sms_app.INBOX))
    _sms(sender, task.params["message"])(env, task)


def _copy_other_text(env, task) -> None:
    other = next(
        t for t in ("Invoice #98765", "Promo code: DEAL30") if t != task.params["clipboard_content"]
    )
    env.controller.set_clipboard(other)


def _take_photo(env, task) -> None:
    env.execute_action(ui.open_app("Camera"))
    env.execute_action(ui.tap(env, desc="Shutter"))


def _two_videos(env, task) -> None:
    env.execute_action(ui.open_app("Camera"))
    env.execute_action(ui.tap(env, desc="Video"))
    for _ in range(2):
        env.execute_action(ui.tap(env, desc="Shutter"))
        env.execute_action(ui.tap(env, desc="Stop"))
        env.controller.set_device_time(
            env.controller.device_time().replace(second=env.controller.device_time().second + 1)
        )


MISTAKES: dict[str, list[Callable]] = {
    "MarkorDeleteNewestNote": [_delete_oldest_note, _delete_newest_and_edit_another],
    "MarkorDeleteAllNotes": [_delete_all_but_one_note],
    "MarkorMoveNote": [_copy_instead_of_move, _move_to_notebook_root],
    "MarkorCreateNoteFromClipboard": [_note_typed_not_pasted],
    "MarkorMergeNotes": [_merge_without_blank_lines, _merge_into_md_file],
    "MarkorChangeNoteContent": [_edit_without_rename, _rename_without_edit],
    "MarkorAddNoteHeader": [_header_without_blank_line, _rename_without_edit],
    "ExpenseDeleteMultiple2": [
        _delete_expenses(_two_of_three_targets),
        _delete_expenses(_targets_and_one_noise),
    ],
    "ExpenseDeleteDuplicates": [_delete_expenses(_both_duplicates)],
    "ExpenseDeleteDuplicates2": [
        _delete_expenses(_both_duplicates),
        _delete_expenses(_a_near_duplicate),
    ],
    "ExpenseAddMultiple": [_add_all_but_one, _add_with_wrong_amount],
    "ExpenseAddMultipleFromMarkor": [_add_all_but_one, _log_with_the_mark],
    "SimpleSmsResend": [_resend_glitch, _resend_other_message],
    "SimpleSmsSendClipboardContent": [_clipboard_to_wrong_number],
    "SimpleSmsSendReceivedAddress": [_address_back_to_sender],
    "SystemCopyToClipboard": [_copy_other_text],
    "CameraTakeVideo": [_take_photo, _two_videos],
}


@pytest.mark.parametrize(
    "name,mistake",
    [(name, m) for name, ms in MISTAKES.items() for m in ms],
    ids=lambda v: v if isinstance(v, str) else v.__name__,
)
def test_a_plausible_mistake_scores_zero(name, mistake):
    assert set(MISTAKES) == set(NEW_TASKS)
    for seed in (0, 1):
        env, task = _started(name, seed)
        try:
            mistake(env, task)
            assert task.is_successful(env) == 0.0, f"{name} seed {seed}: {mistake.__name__}"
        finally:
            env.close()


def test_delete_all_notes_mistake_covers_a_single_note():
    """When only one note is seeded, keeping it (the mistake above leaves one) still fails."""
    for seed in range(6):
        env, task = _started("MarkorDeleteAllNotes", seed)
        try:
            assert markor_more.regular_files(env)
            assert task.is_successful(env) == 0.0
        finally:
            env.close()


# ---- the sim features behind them ------------------------------------------------------------


def test_text_field_long_press_copies_cuts_and_pastes():
    env = SimEnv(render=False)
    try:
        env.controller.set_clipboard("from clipboard")
        env.execute_action(ui.open_app("Markor"))
        env.execute_action(ui.tap(env, desc="Create a new file or folder"))
        env.execute_action(ui.type_into(env, ui.hint_is("Name"), "a.txt", "name"))
        env.execute_action(ui.tap(env, text="OK"))
        editor = markor_more.editor_index
        env.execute_action(JSONAction(action_type="long_press", index=editor(env)))
        assert ui.find(ui.elements(env), ui.text_is("Copy")) is None  # empty field: Paste only
        env.execute_action(ui.tap(env, text="Paste"))
        assert markor_more.editor_text(env) == "from clipboard"
        env.execute_action(JSONAction(action_type="long_press", index=editor(env)))
        env.controller.set_clipboard("")
        env.execute_action(ui.tap(env, text="Cut"))
        assert markor_more.editor_text(env) == ""
        assert env.controller.get_clipboard() == "from clipboard"
    finally:
        env.close()


def test_markor_rows_show_modified_time_and_sort_by_date():
    env = SimEnv(render=False)
    try:
        clock = env.controller
        start = clock.device_time()
        for i, name in enumerate(("b_old.md", "a_new.md", "c_mid.md")):
            clock.set_device_time(start.replace(hour=(8, 12, 10)[i]))
            clock.write_text(f"{NOTEBOOK}/{name}", "x\n")
        env.execute_action(ui.open_app("Markor"))
        summaries = {name: summary for _, name, summary in markor_more.note_rows(env)}
        assert summaries["a_new.md"].startswith("Oct 15, 2023 12:34")
        assert [name for _, name, _ in markor_more.note_rows(env)] == [
            "a_new.md",
            "b_old.md",
            "c_mid.md",
        ]
        env.execute_action(ui.tap(env, desc="Sort by"))
        env.execute_action(ui.tap(env, text="Date modified"))
        assert [name for _, name, _ in markor_more.note_rows(env)] == [
            "a_new.md",
            "c_mid.md",
            "b_old.md",
        ]
        # Opening and leaving a note without a change keeps its time.
        before = clock.modified_time(f"{NOTEBOOK}/b_old.md")
        env.execute_action(ui.tap(env, text="b_old.md"))
        env.execute_action(ui.tap(env, desc="Navigate up"))
        assert clock.modified_time(f"{NOTEBOOK}/b_old.md") == before
    finally:
        env.close()


def test_markor_rename_refuses_an_existing_name():
    env = SimEnv(render=False)
    try:
        for name in ("one.md", "two.md"):
            env.controller.write_text(f"{NOTEBOOK}/{name}", "x\n")
        env.execute_action(ui.open_app("Markor"))
        for action in markor_more.select_note(env, "one.md"):
            env.execute_action(action)
        for action in markor_more.rename_selected(env, "two.md"):
            env.execute_action(action)
        assert sorted(env.controller.list_dir(NOTEBOOK)) == ["one.md", "two.md"]
        assert ui.find(ui.elements(env), ui.text_is("Rename")) is not None  # dialog still open
    finally:
        env.close()


def test_sms_shows_contact_names_and_suggests_contacts():
    env = SimEnv(render=False)
    try:
        contacts.seed_contact(env, "Ada Lovelace", "+15550001111")
        sms.receive(env, "+15550001111", "Hi there", minutes_ago=1)
        env.execute_action(ui.open_app("Simple SMS Messenger"))
        assert ui.find(ui.elements(env), ui.text_is("Ada Lovelace")) is not None
        env.execute_action(ui.tap(env, desc="New conversation"))
        field = ui.require(env, ui.hint_is("Add Contact or Number…"), "recipient")
        # typing part of a name lists the contact
        env.phone.tap(*ui.elements(env)[field].bbox_pixels.center)
        env.phone.type_text("ada")
        assert ui.find(ui.elements(env), ui.text_is("Ada Lovelace")) is not None
        env.execute_action(ui.tap(env, text="Ada Lovelace"))
        assert ui.find(ui.elements(env), ui.text_is("Hi there")) is not None
    finally:
        env.close()


@pytest.mark.parametrize("name", ["MarkorDeleteNewestNote", "MarkorMoveNote", "SimpleSmsResend"])
def test_new_tasks_check_the_same_over_adb(name):
    """Seeded and checked through adb (files, `stat -c %Y`, sqlite) on the fake device."""
    from support.fake_adb import FakeDevice, in_process_runner
    from support.fake_adb.sim_phone import SimPhone

    from android_world.env.adb import AdbEnv

    fake = FakeDevice(SimPhone(SimEnv(seed=0, render=False)))
    env = AdbEnv({}, runner=in_process_runner(fake), input_pause_sec=0, sleep=lambda _: None)
    random.seed(3)
    task = REGISTRY[name](REGISTRY[name].generate_random_params())
    task.initialize_task(env)
    assert task.is_successful(env) == 0.0
    _run_oracle(task, env)
    assert task.is_successful(env) == 1.0
    if name == "MarkorDeleteNewestNote":
        assert any(line.startswith("stat -c %Y") for line in fake.shell_log)
