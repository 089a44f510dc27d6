"""Upstream's further Simple Calendar Pro tasks: the oracle solves each on seeds 0-2 within budget,
doing nothing scores 0, plausible wrong work or answers score 0; the app features they need
(repetition, list view, search, multi-select delete) and upstream's noise exclusions hold."""

from __future__ import annotations

import datetime
import json
import random

import pytest
from sim_task_support import make_task as make
from sim_task_support import prepared_task

from android_world.env.json_action import JSONAction
from android_world.env.sim.apps import calendar as calendar_app
from android_world.env.sim.sim_env import SimEnv
from android_world.harness import checkpointer
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.single import calendar as cal
from android_world.task_evals.single import calendar_questions as cq

ADD_TASKS = (
    "SimpleCalendarAddOneEventTomorrow",
    "SimpleCalendarAddOneEventInTwoWeeks",
    "SimpleCalendarAddOneEventRelativeDay",
    "SimpleCalendarAddRepeatingEvent",
)
DELETE_TASKS = ("SimpleCalendarDeleteEvents", "SimpleCalendarDeleteEventsOnRelativeDay")
IR_TASKS = (
    "SimpleCalendarEventOnDateAtTime",
    "SimpleCalendarAnyEventsOnDate",
    "SimpleCalendarNextMeetingWithPerson",
    "SimpleCalendarLocationOfEvent",
    "SimpleCalendarEventsInNextWeek",
    "SimpleCalendarFirstEventAfterStartTime",
    "SimpleCalendarEventsInTimeRange",
)
TASKS = ADD_TASKS + DELETE_TASKS + IR_TASKS
# Upstream's complexities (calendar.py and the IR registry's default of 1).
COMPLEXITY = {**dict.fromkeys(ADD_TASKS, 3.4), **dict.fromkeys(IR_TASKS, 1.0)}
COMPLEXITY |= {"SimpleCalendarDeleteEvents": 1.4, "SimpleCalendarDeleteEventsOnRelativeDay": 1.2}
UTC = datetime.UTC


@pytest.fixture(scope="module")
def env():
    sim = SimEnv(render=False)
    yield sim
    sim.close()


def started(env, name: str, seed: int = 5):
    task = make(name, seed)
    task.initialize_task(env)
    return task


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", TASKS)
def test_oracle_solves_within_budget_and_doing_nothing_fails(env, name, seed):
    task = make(name, seed)
    task.initialize_task(env)
    try:
        assert task.is_successful(env) == 0.0, "doing nothing must not pass"
        actions = []
        for action in task.oracle_actions(env):
            env.execute_action(action)
            actions.append(action)
        assert len(actions) <= int(10 * task.complexity)
        assert actions[-1].action_type == "status"
        if name in IR_TASKS:
            assert actions[-2].action_type == "answer"
        assert task.is_successful(env) == 1.0
    finally:
        task.tear_down(env)


@pytest.mark.parametrize("name", TASKS)
def test_upstream_shape(name):
    task = make(name, 7)
    assert type(task).complexity == COMPLEXITY[name]
    assert type(task).app_names == ("simple calendar pro",)
    assert task.goal.startswith(("In Simple Calendar Pro", "What", "Do I", "When"))
    assert "{" not in task.goal and "Simple Calendar Pro" in task.goal
    json.dumps(checkpointer.to_jsonable(task.params))
    assert make(name, 7).params == task.params


# ---- wrong work fails ------------------------------------------------------------------------


def test_add_tasks_need_the_right_day(env):
    for name in ADD_TASKS:
        task = started(env, name)
        event = dict(task.params[cal.ROW_OBJECTS][0])
        cal.add_events(
            env, [dict(event, start_ts=event["start_ts"] + 86400, end_ts=event["end_ts"] + 86400)]
        )
        assert task.is_successful(env) == 0.0, name
        env.controller.sqlite_execute(
            cal.DB,
            "UPDATE events SET start_ts = ?, end_ts = ? WHERE title = ? AND start_ts = ?",
            (event["start_ts"], event["end_ts"], event["title"], event["start_ts"] + 86400),
        )
        assert task.is_successful(env) == 1.0, name
        task.tear_down(env)


def test_repeating_event_needs_its_repetition(env):
    task = started(env, "SimpleCalendarAddRepeatingEvent", seed=0)
    event = dict(task.params[cal.ROW_OBJECTS][0])
    assert event["repeat_interval"] in (86400, 604800)
    cal.add_events(env, [dict(event, repeat_interval=0, repeat_rule=0)])
    assert task.is_successful(env) == 0.0
    other = 604800 if event["repeat_interval"] == 86400 else 86400
    env.controller.sqlite_execute(
        cal.DB, "UPDATE events SET repeat_interval = ? WHERE title = ?", (other, event["title"])
    )
    assert task.is_successful(env) == 0.0
    env.controller.sqlite_execute(
        cal.DB,
        "UPDATE events SET repeat_interval = ?, repeat_rule = ? WHERE title = ?",
        (event["repeat_interval"], event["repeat_rule"], event["title"]),
    )
    assert task.is_successful(env) == 1.0
    task.tear_down(env)


@pytest.mark.parametrize("name", DELETE_TASKS)
def test_delete_tasks_need_exactly_the_days_events_gone(env, name):
    task = started(env, name)
    day = datetime.date(2023, 10, task.params["day"])
    targets = [r for r in cal.list_events(env) if cal.start_of(r).date() == day]
    assert len(targets) == task.n_rows and len(cal.list_events(env)) == task.n_rows + 20
    env.controller.sqlite_execute(cal.DB, "DELETE FROM events WHERE id = ?", (targets[0]["id"],))
    assert task.is_successful(env) == 0.0  # only some
    for row in targets[1:]:
        env.controller.sqlite_execute(cal.DB, "DELETE FROM events WHERE id = ?", (row["id"],))
    assert task.is_successful(env) == 1.0
    noise = cal.list_events(env)[0]
    env.controller.sqlite_execute(cal.DB, "DELETE FROM events WHERE id = ?", (noise["id"],))
    assert task.is_successful(env) == 0.0  # a noise event too
    task.tear_down(env)


def _wrong_answers(task) -> list[str]:
    right = task.expected()
    if task.name == "SimpleCalendarNextMeetingWithPerson":
        when = right[0]
        return [
            f"{when + datetime.timedelta(hours=1):%B %d %Y %H:%M}",
            f"{when + datetime.timedelta(days=1):%B %d %Y %H:%M}",
            f"{when:%B %d %Y}",
        ]
    if task.name == "SimpleCalendarLocationOfEvent":
        return [
            "Downtown Chicago Office" if right[0] != "Downtown" else "City Park",
            task.params["title"],
        ]
    noise_title = "Meeting with Alice"
    wrong = [noise_title, ", ".join([*right, noise_title])]
    if len(right) > 1:
        wrong.append(right[0])  # only some of them
    return wrong


@pytest.mark.parametrize("name", IR_TASKS)
def test_questions_reject_wrong_answers(env, name):
    task = started(env, name)
    for wrong in ["", *_wrong_answers(task)]:
        env.interaction_cache = wrong
        assert task.is_successful(env) == 0.0, wrong
    right = task.expected()
    env.interaction_cache = ", ".join(
        f"{x:%B %d %Y %H:%M}" if isinstance(x, datetime.datetime) else str(x)
        for x in reversed(right)
    )
    assert task.is_successful(env) == 1.0
    assert len(cal.list_events(env)) == len(task.relevant_events()) + cq.N_NOISE
    task.tear_down(env)


# ---- upstream's noise exclusions ---------------------------------------------------------------


def _dt(day: int, hour: int, minute: int = 0) -> datetime.datetime:
    return datetime.datetime(2023, 10, day, hour, minute, tzinfo=UTC)


def test_exclusion_of_an_instant_is_any_overlap_with_it():
    at = [
        cq.Exclusion("start_date", "eq", datetime.date(2023, 10, 16)),
        cq.Exclusion("start_time", "eq", datetime.time(11, 0)),
    ]
    assert cq.excluded(_dt(16, 10, 30), _dt(16, 11, 0), "x", at)
    assert not cq.excluded(_dt(16, 10, 0), _dt(16, 10, 59), "x", at)
    assert not cq.excluded(_dt(17, 11, 0), _dt(17, 11, 30), "x", at)
    assert cq.excluded(_dt(15, 23, 0), _dt(16, 11, 30), "x", at)


def test_exclusion_needs_every_condition():
    person = [
        cq.Exclusion("title", "contains", "Mia"),
        cq.Exclusion("start_date", "eq", datetime.date(2023, 10, 20)),
    ]
    assert cq.excluded(_dt(20, 9), _dt(20, 10), "Drinks with mia", person)
    assert not cq.excluded(_dt(21, 9), _dt(21, 10), "Drinks with Mia", person)
    assert not cq.excluded(_dt(20, 9), _dt(20, 10), "Meeting with Bob", person)
    after = [
        cq.Exclusion("start_date", "eq", datetime.date(2023, 10, 20)),
        cq.Exclusion("start_time", "ge", datetime.time(16, 0)),
    ]
    assert cq.excluded(_dt(20, 15, 30), _dt(20, 16, 0), "x", after)  # ends at the time
    assert not cq.excluded(_dt(20, 15, 0), _dt(20, 15, 45), "x", after)
    week = [
        cq.Exclusion("start_date", "le", datetime.date(2023, 10, 22)),
        cq.Exclusion("start_date", "ge", datetime.date(2023, 10, 15)),
    ]
    assert cq.excluded(_dt(14, 23, 50), _dt(15, 0, 20), "x", week)
    assert not cq.excluded(_dt(23, 0, 0), _dt(23, 1, 0), "x", week)


def test_noise_stays_in_upstreams_window_and_outside_the_exclusions():
    random.seed(3)
    week = [
        cq.Exclusion("start_date", "le", datetime.date(2023, 10, 22)),
        cq.Exclusion("start_date", "ge", datetime.date(2023, 10, 15)),
    ]
    starts = [cal.start_of(cq.noise_event(week)) for _ in range(300)]
    assert min(starts) >= _dt(15, 15, 34) - datetime.timedelta(days=15)
    assert max(starts) < _dt(15, 15, 34) + datetime.timedelta(days=15)
    assert not any(
        datetime.date(2023, 10, 15) <= s.date() <= datetime.date(2023, 10, 22) for s in starts
    )


def test_without_replacement_pools_give_distinct_values():
    for seed in range(20):
        p = prepared_task("SimpleCalendarAnyEventsOnDate", seed).params
        titles = [e["title"] for e in p["events"]]
        times = [e["time"] for e in p["events"]]
        assert len(set(titles)) == 3 and p["title"] not in titles
        assert len(set(times)) == 3 and p["time"] not in times
        q = prepared_task("SimpleCalendarEventsInNextWeek", seed).params
        first, second = q["events"]
        assert first["date"] != second["date"]
        assert q["target_date"] not in (first["date"], second["date"])
        assert first["title"] == q["title"] != second["title"] and "{" not in second["title"]


# ---- the app features ------------------------------------------------------------------------


def _labels(env) -> list[str]:
    return [e.text for e in ui.elements(env) if e.text]


def _seed_events(env, *events):
    cal.clear(env)
    cal.add_events(env, list(events))
    env.controller.close_recents()


def test_weekly_repetition_from_the_editor_follows_the_start_day(env):
    _seed_events(env)
    env.execute_action(ui.open_app("Simple Calendar Pro"))
    env.execute_action(ui.tap(env, text="18"))  # Wednesday
    env.execute_action(ui.tap(env, desc="New Event"))
    env.execute_action(ui.type_into(env, ui.hint_is("Title"), "Standup", "title"))
    env.execute_action(ui.tap(env, text="Repetition"))
    env.execute_action(ui.tap(env, text="Weekly"))
    assert "Repeat till" in _labels(env) and "Weekly" in _labels(env)
    env.execute_action(ui.click(env, ui.res_is("event_start_date"), "start date"))
    env.execute_action(ui.tap(env, text="19"))  # Thursday
    env.execute_action(ui.tap(env, text="OK"))
    env.execute_action(ui.tap(env, desc="Save"))
    (row,) = cal.list_events(env)
    assert (row["repeat_interval"], row["repeat_rule"]) == (604800, 8)  # Thursday's bit
    env.execute_action(JSONAction(action_type="navigate_back"))
    env.execute_action(ui.tap(env, text="26"))
    assert "Standup" in _labels(env)  # the next occurrence shows on its day
    env.controller.close_recents()


def test_occurrences_of_daily_monthly_and_bounded_events():
    base = {"id": 1, "repeat_limit": 0}
    daily = dict(
        base,
        start_ts=int(_dt(10, 9).timestamp()),
        end_ts=int(_dt(10, 10).timestamp()),
        repeat_interval=86400,
        repeat_rule=0,
    )
    lo, hi = int(_dt(15, 0).timestamp()), int(_dt(18, 0).timestamp())
    assert len(calendar_app.expand_occurrences([daily], lo, hi)) == 3
    bounded = dict(daily, repeat_limit=int(_dt(16, 12).timestamp()))
    assert len(calendar_app.expand_occurrences([bounded], lo, hi)) == 2
    monthly = dict(
        daily,
        start_ts=int(_dt(31, 9).timestamp()),
        end_ts=int(_dt(31, 10).timestamp()),
        repeat_interval=2592001,
        repeat_rule=1,
    )
    starts = [
        calendar_app.from_ts(r["start_ts"])
        for r in calendar_app.expand_occurrences(
            [monthly],
            int(_dt(1, 0).timestamp()),
            int(datetime.datetime(2024, 4, 1, tzinfo=UTC).timestamp()),
        )
    ]
    assert [(s.month, s.day) for s in starts] == [(10, 31), (12, 31), (1, 31), (3, 31)]


def test_search_finds_location_and_description_and_the_list_view_starts_today(env):
    past = cal.make_event(
        int(_dt(14, 9).timestamp()), int(_dt(14, 10).timestamp()), "Yesterday thing"
    )
    park = cal.make_event(
        int(_dt(20, 9).timestamp()), int(_dt(20, 10).timestamp()), "Picnic", location="City Park"
    )
    notes = cal.make_event(
        int(_dt(22, 9).timestamp()), int(_dt(22, 10).timestamp()), "Review", "Bring the park map"
    )
    _seed_events(env, past, park, notes)
    env.execute_action(ui.open_app("Simple Calendar Pro"))
    env.execute_action(ui.tap(env, desc="Change view"))
    env.execute_action(ui.tap(env, text="Event list view"))
    labels = _labels(env)
    assert "Yesterday thing" not in labels and labels.index(
        "Friday, October 20, 2023"
    ) < labels.index("Picnic")
    env.execute_action(ui.tap(env, desc="Search"))
    env.execute_action(ui.type_into(env, ui.hint_is("Search"), "park", "search"))
    labels = _labels(env)
    assert "Picnic" in labels and "Review" in labels and "Yesterday thing" not in labels
    env.controller.close_recents()
    env.execute_action(ui.open_app("Simple Calendar Pro"))
    assert "October 2023" in _labels(env)  # a cold start opens the month view again
    env.controller.close_recents()


def test_long_press_selects_events_and_deletes_them_together(env):
    events = [
        cal.make_event(int(_dt(20, h).timestamp()), int(_dt(20, h, 30).timestamp()), f"E{h}")
        for h in (8, 9, 10)
    ]
    _seed_events(env, *events)
    env.execute_action(ui.open_app("Simple Calendar Pro"))
    env.execute_action(ui.tap(env, text="20"))
    env.execute_action(ui.tap(env, text="E8", long=True))
    env.execute_action(ui.tap(env, text="E10"))
    assert "2 selected" in _labels(env)
    env.execute_action(ui.tap(env, desc="Delete"))
    env.execute_action(
        ui.click(
            env, lambda e: e.text == "Delete" and (e.class_name or "").endswith("Button"), "Delete"
        )
    )
    assert [r["title"] for r in cal.list_events(env)] == ["E9"]
    env.controller.close_recents()
    cal.clear(env)
