"""The same seed draws upstream's instance: our draws against upstream's recorded ones.

tests/fixtures/upstream_draws.json holds upstream's params (and a question's draws at
initialisation) for seeds 0, 1 and 30, three instances each, written by
tests/upstream/record_upstream.py from upstream's own `create_suite` (values only). Templates
the sim lacks are reported as missing, never as mismatches; the rate is over the templates
present, and the report says which templates draw other instances.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from android_world.harness import suite_utils
from android_world.task_evals import registry, upstream_draws

MIN_RATE = 0.95


@pytest.fixture(scope="module")
def recorded() -> upstream_draws.Recorded:
    return upstream_draws.load()


@pytest.fixture(scope="module")
def comparison(recorded) -> upstream_draws.Comparison:
    return upstream_draws.compare(registry.TaskRegistry().get_registry(), recorded)


def test_the_fixture_is_upstreams_whole_suite(recorded):
    assert len(recorded.templates) == 116
    assert recorded.seeds == (0, 1, 30) and recorded.instances == 3
    assert str(recorded.source["commit"]).startswith("d9c569f")
    assert {"Expense", "Recipe", "CalendarEvent", "Task"} <= set(recorded.row_defaults)


def test_the_same_seed_draws_upstreams_params(comparison, recorded):
    report = "\n".join(upstream_draws.report_lines(comparison, recorded))
    print(report)
    assert comparison.compared >= 700, report
    assert comparison.rate >= MIN_RATE, report
    assert comparison.init_compared and comparison.init_matched / comparison.init_compared >= (
        MIN_RATE
    ), report


def test_missing_templates_are_reported_not_counted(comparison, recorded):
    assert comparison.missing_tasks() == []  # the sim has all 116 of upstream's templates
    one = {"OsmAndMarker": registry.TaskRegistry().get_registry()["OsmAndMarker"]}
    partial = upstream_draws.compare(one, recorded)
    missing = set(partial.missing_tasks())
    assert missing == set(recorded.templates) - set(one)
    assert all(r.status == upstream_draws.MISSING for r in partial.results if r.task in missing)
    assert not {s.task for s in partial.mismatched_tasks()} & missing
    assert partial.compared == 9 and partial.matched == 9


def test_the_suites_seeding_is_upstreams(recorded):
    """Each recorded params' seed is the instance seed our suite computes (upstream's rule)."""
    for seed, tasks in recorded.draws.items():
        for name, rows in tasks.items():
            for i, row in enumerate(rows):
                assert row["params"]["seed"] == suite_utils.instance_seed(seed, name, i)


def test_a_draw_from_another_pool_is_a_mismatch_with_its_place(recorded):
    from android_world.task_evals.single import contacts

    class ContactsAddContact(contacts.ContactsAddContact):
        @classmethod
        def generate_random_params(cls):
            params = super().generate_random_params()
            params["number"] = "+15550000000"
            return params

    result = upstream_draws.compare({"ContactsAddContact": ContactsAddContact}, recorded)
    summary = result.by_task()["ContactsAddContact"]
    assert summary.matched == 0 and summary.compared == 9
    assert summary.first_difference.startswith('params.number: ours "+15550000000"')
    assert "OpenAppTaskEval" in result.missing_tasks()


def test_rows_compare_on_upstreams_fields_with_its_defaults():
    defaults = {"Expense": {"category": 0, "note": ""}}
    theirs = {"__type__": "Expense", "name": "Taxi", "amount": 1200}
    assert upstream_draws.difference({"name": "Taxi", "amount": 1200.0}, theirs, defaults) is None
    assert (
        upstream_draws.difference(
            {"name": "Taxi", "amount": 1200, "category": 0, "note": "", "ours_only": 1},
            theirs,
            defaults,
        )
        is None
    )
    found = upstream_draws.difference(
        {"name": "Taxi", "amount": 1200, "note": "x"}, theirs, defaults
    )
    assert found == 'params.note: ours "x", upstream ""'
    assert upstream_draws.difference({"name": "Taxi"}, theirs, defaults) == (
        "params.amount: missing in ours, upstream 1200"
    )
    assert upstream_draws.difference([1, 2], [1, 2, 3], {}) == "params: ours 2 items, upstream 3"
    assert upstream_draws.difference(True, 1, {}) is not None  # booleans are not numbers


def test_an_unreproducible_upstream_draw_is_left_out(recorded):
    tasks = recorded.draws[0]
    folder = tasks["MarkorCreateFolder"]
    assert all(not row["deterministic"] for row in folder)
    result = upstream_draws.compare(
        {"MarkorCreateFolder": registry.TaskRegistry().get_registry()["MarkorCreateFolder"]},
        dataclasses.replace(recorded, seeds=(0,)),
    )
    statuses = {r.status for r in result.results if r.task == "MarkorCreateFolder"}
    assert statuses == {"unreproducible"} and result.compared == 0


def test_initialisation_draws_are_compared_after_prepare(recorded):
    """A question's goal after initialisation (date reworded) and its rows' digest."""
    cls = registry.TaskRegistry().get_registry()["SimpleCalendarAnyEventsOnDate"]
    result = upstream_draws.compare({"SimpleCalendarAnyEventsOnDate": cls}, recorded)
    summary = result.by_task()["SimpleCalendarAnyEventsOnDate"]
    assert summary.init_compared == 9 and summary.init_matched == 9
    task = suite_utils.create_suite({"SimpleCalendarAnyEventsOnDate": cls}, 1, seed=0)[
        "SimpleCalendarAnyEventsOnDate"
    ][0]
    raw_goal = task.goal
    random.seed(task.params["seed"])
    task.prepare()
    assert "October" in raw_goal and task.params["target_date"].startswith("October")
    row = recorded.draws[0]["SimpleCalendarAnyEventsOnDate"][0]
    assert task.goal == row["init"]["goal"] and raw_goal == row["goal"]
