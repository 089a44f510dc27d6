"""Pro Expense, Simple Calendar Pro and Simple SMS Messenger, driven through execute_action."""

from __future__ import annotations

import datetime

import pytest

from android_world.env.json_action import JSONAction
from android_world.env.sim.apps import expense as expense_app
from android_world.env.sim.apps import sms as sms_app
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.single import calendar as cal
from android_world.task_evals.single import expense as exp

UTC = datetime.UTC


@pytest.fixture
def env():
    sim = SimEnv(render=False)
    yield sim
    sim.close()


def act(env, **kw) -> None:
    env.execute_action(JSONAction(**kw))


def tap(env, match, long=False) -> None:
    index = ui.find(env.get_state().ui_elements, match)
    assert index is not None, "element not on screen"
    act(env, action_type="long_press" if long else "click", index=index)


def type_in(env, match, text) -> None:
    index = ui.find(env.get_state().ui_elements, match)
    assert index is not None
    act(env, action_type="input_text", index=index, text=text)


def texts(env) -> list[str]:
    return [e.text for e in env.get_state().ui_elements if e.text]


def seed_expenses(env, n=15):
    rows = [
        {
            "name": f"Item {i:02d}",
            "amount": 1000 + i,
            "category": 1 + i % 11,
            "note": "Urgent",
            "created_date": 1696118400000 + i * 3600000,
            "modified_date": 0,
        }
        for i in range(n)
    ]
    exp.add_rows(env, rows)
    return rows


# ---- Pro Expense ----------------------------------------------------------------------------


def test_expense_add_through_the_form_stores_cents_and_category(env):
    act(env, action_type="open_app", app_name="Pro Expense")
    assert "No expenses yet" in texts(env)
    tap(env, ui.desc_is("Add expense"))
    type_in(env, ui.hint_is("Name"), "Coffee")
    type_in(env, ui.hint_is("Amount"), "$1,234.5")
    tap(env, ui.text_is("Save"))
    assert (
        env.controller.sqlite_query(expense_app.DB, "SELECT * FROM expense") == []
    )  # no category yet
    tap(env, ui.text_is("Category"))
    tap(env, ui.text_is("Food"))
    type_in(env, ui.hint_is("Note"), "A need")
    tap(env, ui.text_is("Save"))
    (row,) = env.controller.sqlite_query(expense_app.DB, "SELECT * FROM expense")
    assert (row["name"], row["amount"], row["category"], row["note"]) == (
        "Coffee",
        123450,
        3,
        "A need",
    )
    assert row["created_date"] == int(env.controller.device_time().timestamp() * 1000)
    assert "$1,234.50" in texts(env)


def test_expense_list_scrolls_and_selection_deletes_only_selected(env):
    seed_expenses(env)
    act(env, action_type="open_app", app_name="Pro Expense")
    assert "Item 00" not in texts(env)  # oldest is below the fold
    act(env, action_type="scroll", direction="down")
    act(env, action_type="scroll", direction="down")
    assert "Item 00" in texts(env)
    tap(env, ui.text_is("Item 00"), long=True)
    tap(env, ui.text_is("Item 01"))
    assert "2 selected" in texts(env)
    act(env, action_type="navigate_back")  # Back leaves selection mode
    assert "Pro Expense" in texts(env)
    tap(env, ui.text_is("Item 01"), long=True)
    tap(env, ui.desc_is("Delete"))
    tap(env, ui.text_is("Cancel"))
    assert len(exp.list_rows(env)) == 15
    tap(env, ui.desc_is("Delete"))
    tap(env, lambda e: e.text == "Delete" and e.class_name.endswith("Button"))
    names = {r["name"] for r in exp.list_rows(env)}
    assert len(names) == 14 and "Item 01" not in names


def test_expense_detail_delete_and_edit(env):
    seed_expenses(env, 3)
    act(env, action_type="open_app", app_name="Pro Expense")
    tap(env, ui.text_is("Item 02"))
    assert "Entertainment" in texts(env) or "Expense" in texts(env)
    tap(env, ui.desc_is("Edit"))
    type_in(env, ui.hint_is("Name"), "!")  # appends to the prefilled name
    tap(env, ui.text_is("Save"))
    assert {r["name"] for r in exp.list_rows(env)} == {"Item 00", "Item 01", "Item 02!"}
    tap(env, ui.desc_is("Delete"))
    tap(env, lambda e: e.text == "Delete" and e.class_name.endswith("Button"))
    assert {r["name"] for r in exp.list_rows(env)} == {"Item 00", "Item 01"}
    assert "Pro Expense" in texts(env)


# ---- Simple Calendar Pro --------------------------------------------------------------------


def test_calendar_month_navigation_and_day_view(env):
    start = int(datetime.datetime(2023, 10, 20, 9, tzinfo=UTC).timestamp())
    cal.add_events(env, [cal.make_event(start, start + 1800, "Dentist", "Check up")])
    act(env, action_type="open_app", app_name="Simple Calendar Pro")
    assert "October 2023" in texts(env)
    tap(env, ui.desc_is("Next month"))
    assert "November 2023" in texts(env)
    tap(env, ui.desc_is("Previous month"))
    tap(env, ui.text_is("20"))
    assert "Friday, October 20" in texts(env)
    assert "09:00 - 09:30" in texts(env)
    tap(env, ui.desc_is("Next day"))
    assert "No upcoming events" in texts(env)


def test_calendar_create_event_with_pickers(env):
    act(env, action_type="open_app", app_name="Simple Calendar Pro")
    tap(env, ui.text_is("18"))
    tap(env, ui.desc_is("New Event"))
    type_in(env, ui.hint_is("Title"), "Review")
    type_in(env, ui.hint_is("Description"), "Quarterly numbers")
    tap(env, ui.res_is("event_start_time"))
    tap(env, lambda e: e.resource_name == "time_picker_cell" and e.text == "09")
    assert "Select minutes" in texts(env)
    tap(env, lambda e: e.resource_name == "time_picker_cell" and e.text == "30")
    tap(env, ui.text_is("OK"))
    # moving the start keeps the one-hour default duration
    assert [e.text for e in env.get_state().ui_elements if e.resource_name == "event_end_time"] == [
        "10:30"
    ]
    tap(env, ui.res_is("event_end_date"))
    tap(env, ui.text_is("19"))
    tap(env, ui.text_is("OK"))
    tap(env, ui.desc_is("Save"))
    (row,) = cal.list_events(env)
    assert row["title"] == "Review" and row["description"] == "Quarterly numbers"
    assert row["start_ts"] == int(datetime.datetime(2023, 10, 18, 9, 30, tzinfo=UTC).timestamp())
    assert row["end_ts"] == int(datetime.datetime(2023, 10, 19, 10, 30, tzinfo=UTC).timestamp())


def test_calendar_refuses_untitled_and_deletes_after_confirmation(env):
    start = int(datetime.datetime(2023, 10, 16, 9, tzinfo=UTC).timestamp())
    cal.add_events(env, [cal.make_event(start, start + 1800, "Standup", "")])
    act(env, action_type="open_app", app_name="Simple Calendar Pro")
    tap(env, ui.desc_is("New Event"))
    tap(env, ui.desc_is("Save"))
    assert "Title cannot be empty" in texts(env)
    act(env, action_type="navigate_back")
    tap(env, ui.text_is("16"))
    tap(env, ui.text_is("Standup"))
    tap(env, ui.desc_is("Delete"))
    tap(env, ui.text_is("Cancel"))
    assert len(cal.list_events(env)) == 1
    tap(env, ui.desc_is("Delete"))
    tap(env, lambda e: e.text == "Delete" and e.class_name.endswith("Button"))
    assert cal.list_events(env) == []


# ---- Simple SMS Messenger -------------------------------------------------------------------


def test_sms_conversations_most_recent_first_and_reply(env):
    now = int(env.controller.device_time().timestamp() * 1000)
    sms_app.insert_message(
        env.controller, "+15550000001", "Old news", msg_type=sms_app.INBOX, date_ms=now - 3_600_000
    )
    sms_app.insert_message(
        env.controller,
        "+15550000002",
        "Fresh news",
        msg_type=sms_app.INBOX,
        date_ms=now - 60_000,
        read=False,
    )
    act(env, action_type="open_app", app_name="Simple SMS Messenger")
    order = [t for t in texts(env) if t.startswith("+1555")]
    assert order == ["+15550000002", "+15550000001"]
    tap(env, ui.text_is("+15550000002"))
    assert all(m["read"] for m in sms_app.messages(env.controller, sms_app.INBOX))
    tap(env, ui.desc_is("Send"))  # empty draft: nothing is sent
    assert sms_app.messages(env.controller, sms_app.SENT) == []
    type_in(env, ui.hint_is("Type a message"), "On my way")
    tap(env, ui.desc_is("Send"))
    (sent,) = sms_app.messages(env.controller, sms_app.SENT)
    assert (sent["address"], sent["body"], sent["date"]) == ("+15550000002", "On my way", now)
    act(env, action_type="navigate_back")
    assert "On my way" in texts(env)


def test_sms_new_conversation(env):
    act(env, action_type="open_app", app_name="Simple SMS Messenger")
    assert "No stored conversations have been found" in texts(env)
    tap(env, ui.desc_is("New conversation"))
    type_in(env, ui.hint_is("Add Contact or Number…"), "+1 555-123-4567")
    assert "+1 555-123-4567" in texts(env)  # the thread's title
    type_in(env, ui.hint_is("Type a message"), "Hi")
    tap(env, ui.desc_is("Send"))
    (sent,) = sms_app.messages(env.controller, sms_app.SENT)
    assert sms_app.normalize_number(sent["address"]) == "+15551234567"
    threads = env.controller.sqlite_query(sms_app.DB, "SELECT * FROM threads")
    assert len(threads) == 1 and threads[0]["snippet"] == "Hi" and threads[0]["message_count"] == 1
