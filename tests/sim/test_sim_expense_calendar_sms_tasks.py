"""Apps-B tasks: oracles solve them in budget, nothing passes untouched, wrong work fails."""

from __future__ import annotations

import json

import pytest
from sim_task_support import make_task as make

from android_world.env.json_action import JSONAction
from android_world.env.sim.apps import calendar as calendar_app
from android_world.env.sim.apps import expense as expense_app
from android_world.env.sim.apps import sms as sms_app
from android_world.env.sim.sim_env import SimEnv
from android_world.harness import checkpointer
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.single import calendar as cal
from android_world.task_evals.single import expense as exp
from android_world.task_evals.single import sms

TASKS = (
    "ExpenseAddSingle",
    "ExpenseDeleteSingle",
    "ExpenseDeleteMultiple",
    "SimExpenseTotalForCategory",
    "SimpleCalendarAddOneEvent",
    "SimpleCalendarDeleteOneEvent",
    "SimpleCalendarEventsOnDate",
    "SimpleCalendarNextEvent",
    "SimpleSmsSend",
    "SimpleSmsReply",
    "SimpleSmsReplyMostRecent",
    "MarkorCreateNoteAndSms",
)
IR_TASKS = {"SimExpenseTotalForCategory", "SimpleCalendarEventsOnDate", "SimpleCalendarNextEvent"}


@pytest.fixture(scope="module")
def env():
    sim = SimEnv(render=False)
    yield sim
    sim.close()


def run_oracle(task, env) -> list[JSONAction]:
    actions = []
    for action in task.oracle_actions(env):
        env.execute_action(action)
        actions.append(action)
    return actions


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("name", TASKS)
def test_oracle_solves_within_budget(env, name, seed):
    task = make(name, seed)
    task.initialize_task(env)
    try:
        assert task.is_successful(env) == 0.0, "the task must not pass before acting"
        actions = run_oracle(task, env)
        assert len(actions) <= int(10 * task.complexity)
        assert actions[-1].action_type == "status" and actions[-1].goal_status == "complete"
        if name in IR_TASKS:
            assert actions[-2].action_type == "answer"
        assert task.is_successful(env) == 1.0
    finally:
        task.tear_down(env)


@pytest.mark.parametrize("name", TASKS)
def test_metadata_goal_and_params(name):
    task = make(name, 7)
    cls = type(task)
    assert cls.difficulty in ("easy", "medium", "hard")
    assert cls.tags and cls.optimal_steps >= 1
    assert task.goal and "{" not in task.goal
    json.dumps(checkpointer.to_jsonable(task.params))
    assert make(name, 7).params == task.params  # the suite's seeding makes params reproducible


def test_some_oracle_scrolls(env):
    scrolled = set()
    for seed in (1, 2, 3):
        task = make("SimExpenseTotalForCategory", seed)
        task.initialize_task(env)
        if any(a.action_type == "scroll" for a in run_oracle(task, env)):
            scrolled.add(seed)
        task.tear_down(env)
    assert scrolled


# ---- wrong work fails ------------------------------------------------------------------------


def _with(env, name, seed=4):
    task = make(name, seed)
    task.initialize_task(env)
    return task


def test_expense_delete_seeds_only_the_targets_as_upstream(env):
    for name in ("ExpenseDeleteSingle", "ExpenseDeleteMultiple"):
        task = _with(env, name)
        assert exp.NOISE_ROW_OBJECTS not in task.params
        targets = [r["name"] for r in task.params[exp.ROW_OBJECTS]]
        assert sorted(r["name"] for r in exp.list_rows(env)) == sorted(targets)
        env.controller.sqlite_execute(exp.DB, "DELETE FROM expense")
        assert task.is_successful(env) == 1.0  # every target gone, nothing else there
        exp.add_rows(env, [exp.generate_expense()])
        assert task.is_successful(env) == 0.0  # a new row is not allowed
        task.tear_down(env)


def test_expense_delete_only_some_targets_fails(env):
    task = _with(env, "ExpenseDeleteMultiple")
    first = task.params[exp.ROW_OBJECTS][0]["name"]
    env.controller.sqlite_execute(exp.DB, "DELETE FROM expense WHERE name = ?", (first,))
    assert task.is_successful(env) == 0.0
    task.tear_down(env)


def test_expense_add_wrong_amount_or_extra_row_fails(env):
    task = _with(env, "ExpenseAddSingle")
    row = dict(task.params[exp.ROW_OBJECTS][0])
    exp.add_rows(env, [dict(row, amount=row["amount"] + 100)])
    assert task.is_successful(env) == 0.0
    env.controller.sqlite_execute(
        exp.DB, "DELETE FROM expense WHERE amount = ?", (row["amount"] + 100,)
    )
    exp.add_rows(env, [dict(row, category=row["category"] % 11 + 1)])
    assert task.is_successful(env) == 0.0
    env.controller.sqlite_execute(
        exp.DB,
        "DELETE FROM expense WHERE name = ? AND category != ?",
        (row["name"], row["category"]),
    )
    exp.add_rows(env, [row])
    assert task.is_successful(env) == 1.0
    exp.add_rows(env, [dict(row, name="Something else")])
    assert task.is_successful(env) == 0.0
    task.tear_down(env)


def test_calendar_add_wrong_duration_fails(env):
    task = _with(env, "SimpleCalendarAddOneEvent")
    event = dict(task.params[cal.ROW_OBJECTS][0])
    cal.add_events(env, [dict(event, end_ts=event["end_ts"] + 15 * 60)])
    assert task.is_successful(env) == 0.0
    env.controller.sqlite_execute(
        cal.DB,
        "UPDATE events SET end_ts = ? WHERE title = ? AND start_ts = ?",
        (event["end_ts"], event["title"], event["start_ts"]),
    )
    assert task.is_successful(env) == 1.0
    task.tear_down(env)


def test_calendar_delete_all_fails(env):
    task = _with(env, "SimpleCalendarDeleteOneEvent")
    env.controller.sqlite_execute(cal.DB, "DELETE FROM events")
    assert task.is_successful(env) == 0.0
    task.tear_down(env)


def _send_via_ui(env, number: str, body: str) -> None:
    env.controller.close_recents()
    env.execute_action(JSONAction(action_type="open_app", app_name="Simple SMS Messenger"))
    elements = env.get_state().ui_elements
    env.execute_action(
        JSONAction(action_type="click", index=ui.find(elements, ui.desc_is("New conversation")))
    )
    elements = env.get_state().ui_elements
    env.execute_action(
        JSONAction(
            action_type="input_text",
            text=number,
            index=ui.find(elements, ui.hint_is("Add Contact or Number…")),
        )
    )
    elements = env.get_state().ui_elements
    env.execute_action(
        JSONAction(
            action_type="input_text",
            text=body,
            index=ui.find(elements, ui.hint_is("Type a message")),
        )
    )
    elements = env.get_state().ui_elements
    env.execute_action(JSONAction(action_type="click", index=ui.find(elements, ui.desc_is("Send"))))


def test_sms_wrong_number_wrong_text_or_other_app_fails(env):
    task = _with(env, "SimpleSmsSend")
    _send_via_ui(env, "+10000000000", task.params["message"])
    assert task.is_successful(env) == 0.0
    _send_via_ui(env, task.params["number"], "Something entirely different")
    assert task.is_successful(env) == 0.0
    _send_via_ui(env, task.params["number"], task.params["message"])
    assert task.is_successful(env) == 1.0
    env.execute_action(JSONAction(action_type="navigate_home"))
    assert task.is_successful(env) == 0.0  # upstream also requires the app in front
    task.tear_down(env)


def test_sms_reply_to_older_conversation_fails(env):
    task = _with(env, "SimpleSmsReplyMostRecent")
    sms.receive(env, "+15550001111", "An older text", minutes_ago=90)
    others = [
        m["address"]
        for m in sms_app.messages(env.controller)
        if m["address"] != task.params["number"]
    ]
    _send_via_ui(env, others[0], task.params["message"])
    assert task.is_successful(env) == 0.0
    task.tear_down(env)


def test_sms_old_message_outside_window_fails(env):
    task = _with(env, "SimpleSmsSend")
    old = sms.now_ms(env) - 10 * 60 * 1000
    sms_app.insert_message(
        env.controller,
        task.params["number"],
        task.params["message"],
        msg_type=sms_app.SENT,
        date_ms=old,
    )
    env.execute_action(JSONAction(action_type="open_app", app_name="Simple SMS Messenger"))
    assert task.is_successful(env) == 0.0
    task.tear_down(env)


def test_markor_and_sms_score_halves(env):
    task = _with(env, "MarkorCreateNoteAndSms")
    p = task.params
    env.controller.write_text(f"/storage/emulated/0/Documents/Markor/{p['file_name']}", p["text"])
    assert task.is_successful(env) == 0.5
    env.controller.remove(f"/storage/emulated/0/Documents/Markor/{p['file_name']}")
    _send_via_ui(env, p["number"], p["text"])
    assert task.is_successful(env) == 0.5
    task.tear_down(env)


@pytest.mark.parametrize("name", sorted(IR_TASKS))
def test_information_retrieval_wrong_answers_fail(env, name):
    task = _with(env, name)
    right = ", ".join(str(x) for x in task.expected())
    for wrong in ("", "Nothing", f"{right}, Concert Extra", "12345"):
        env.interaction_cache = wrong
        assert task.is_successful(env) == 0.0, wrong
    env.interaction_cache = right
    assert task.is_successful(env) == 1.0
    task.tear_down(env)


def test_initialize_resets_app_data(env):
    task = _with(env, "ExpenseDeleteSingle")
    exp.add_rows(env, [exp.generate_expense()])
    task.tear_down(env)
    assert (
        env.controller.sqlite_query(expense_app.DB, "SELECT COUNT(*) AS n FROM expense")[0]["n"]
        == 0
    )
    again = _with(env, "ExpenseDeleteSingle")
    assert len(exp.list_rows(env)) == again.n_rows + again.n_rows_noise
    again.tear_down(env)
    task = _with(env, "SimpleCalendarEventsOnDate")
    assert len(cal.list_events(env)) == 76
    task.tear_down(env)
    assert (
        env.controller.sqlite_query(calendar_app.DB, "SELECT COUNT(*) AS n FROM events")[0]["n"]
        == 0
    )
