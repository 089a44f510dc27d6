"""The order a parallel run hands out its episodes: longest expected first (LPT), from a
template's recorded run time or else upstream's complexity; equal estimates keep suite order."""

from __future__ import annotations

import math

from harness_fakes import FakeAnswer, FakeWifiOn
from test_parallel_scheduler import ScriptedPool

from android_world.harness import parallel, parallel_driver, run_output, scheduler


class NoComplexity(FakeAnswer):
    complexity = "high"  # not a number: counts as 1


def _job(cls, i=0, name=None):
    return parallel.Job(f"{name or cls.__name__}_{i}", cls, {"seed": i}, i)


def _suite_jobs():
    return [_job(FakeAnswer, 0), _job(FakeAnswer, 1), _job(FakeWifiOn, 0), _job(FakeWifiOn, 1)]


def test_longest_first_is_stable_so_equal_estimates_keep_suite_order():
    jobs = _suite_jobs()
    by_template = {"FakeAnswer": 5.0, "FakeWifiOn": 9.0}
    ordered = scheduler.longest_first(jobs, lambda job: by_template[job.template])
    assert [j.name for j in ordered] == [
        "FakeWifiOn_0",
        "FakeWifiOn_1",
        "FakeAnswer_0",
        "FakeAnswer_1",
    ]
    same = scheduler.longest_first(jobs, lambda job: 1.0)
    assert same == jobs


def test_without_records_upstreams_complexity_orders():
    estimate = scheduler.expected_seconds({}, _suite_jobs())
    assert estimate(_job(FakeWifiOn)) == FakeWifiOn.complexity  # 0.3 units at 1 s a unit
    assert estimate(_job(FakeAnswer)) == FakeAnswer.complexity
    assert scheduler.complexity(_job(NoComplexity)) == 1.0


def test_a_recorded_template_uses_its_mean_and_others_scale_by_complexity():
    episodes = [
        {"name": "FakeAnswer_0", "task_template": "FakeAnswer", "run_time": 4.0},
        {"name": "FakeAnswer_1", "run_time": 2.0},  # the template read off the name
        {"name": "FakeWifiOn_0", "run_time": None},  # never ran: says nothing
        {"name": "FakeWifiOn_1", "run_time": 0.0},  # given up on: says nothing
    ]
    recorded = scheduler.recorded_seconds(episodes)
    assert recorded == {"FakeAnswer": 3.0}
    estimate = scheduler.expected_seconds(recorded, _suite_jobs())
    assert estimate(_job(FakeAnswer)) == 3.0
    # 3 s over FakeAnswer's 0.2 units: 15 s a unit, so FakeWifiOn's 0.3 units expect 4.5 s.
    assert math.isclose(estimate(_job(FakeWifiOn)), 4.5)


def test_the_scheduler_hands_out_the_longest_expected_first():
    pool = ScriptedPool()
    expected = scheduler.expected_seconds({}, _suite_jobs())
    got = []
    parallel.Scheduler(pool, 1, got.append, poll_sec=0, expected=expected).run(_suite_jobs())
    assert [name for _, name in pool.submitted] == [
        "FakeWifiOn_0",
        "FakeWifiOn_1",
        "FakeAnswer_0",
        "FakeAnswer_1",
    ]
    assert sorted(o.name for o in got) == sorted(j.name for j in _suite_jobs())
    pool = ScriptedPool()
    parallel.Scheduler(pool, 1, lambda o: None, poll_sec=0).run(_suite_jobs())
    assert [name for _, name in pool.submitted][:2] == ["FakeAnswer_0", "FakeAnswer_1"]


def test_with_writable_memory_a_templates_instances_keep_their_order():
    """A per-template estimate moves whole templates, never instance 1 before instance 0."""
    pool = ScriptedPool()
    expected = scheduler.expected_seconds({"FakeAnswer": 10.0, "FakeWifiOn": 1.0})
    parallel.Scheduler(
        pool, 2, lambda o: None, poll_sec=0, in_order_templates=True, expected=expected
    ).run(_suite_jobs())
    names = [name for _, name in pool.submitted]
    assert names.index("FakeAnswer_0") < names.index("FakeAnswer_1")
    assert names.index("FakeWifiOn_0") < names.index("FakeWifiOn_1")
    assert names[0] == "FakeAnswer_0"


def test_an_earlier_run_directorys_times_order_a_first_run(tmp_path):
    """`--durations_from`: the times an earlier run recorded, read from its checkpoints."""
    store = run_output.checkpoint_store(tmp_path)
    store.save_episodes(
        [{"name": "FakeWifiOn_0", "task_template": "FakeWifiOn", "run_time": 19.0}], "FakeWifiOn"
    )
    store.save_episodes(
        [{"name": "FakeAnswer_0", "task_template": "FakeAnswer", "run_time": 2.0}], "FakeAnswer"
    )
    earlier = parallel_driver.earlier_run_times(str(tmp_path))
    recorded = scheduler.recorded_seconds(earlier)
    assert recorded == {"FakeWifiOn": 19.0, "FakeAnswer": 2.0}
    ordered = scheduler.longest_first(_suite_jobs(), scheduler.expected_seconds(recorded))
    assert [j.name for j in ordered][:2] == ["FakeWifiOn_0", "FakeWifiOn_1"]
    assert parallel_driver.earlier_run_times(None) == []
    assert parallel_driver.earlier_run_times(str(tmp_path / "empty_run")) == []
