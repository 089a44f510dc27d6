"""Suite building (upstream seeding), running (scoring, tear-down, resume) and the summary."""

from __future__ import annotations

import hashlib

import harness_fakes as fakes
import pytest

from android_world.harness import checkpointer, suite_utils


def _quiet(_msg: str) -> None:
    pass


def test_instance_seed_follows_upstream_rule():
    expected = int(hashlib.sha256(b"30_FakeWifiOn_2").hexdigest(), 16) % 2**32
    assert suite_utils.instance_seed(30, "FakeWifiOn", 2) == expected


def test_create_suite_is_sorted_seeded_and_reproducible():
    suite = suite_utils.create_suite(fakes.TASKS, n_task_combinations=3, seed=30)
    assert list(suite) == ["FakeAnswer", "FakeWifiOn"]
    seeds = [t.params["seed"] for t in suite["FakeWifiOn"]]
    assert seeds == [suite_utils.instance_seed(30, "FakeWifiOn", i) for i in range(3)]
    again = suite_utils.create_suite(fakes.TASKS, n_task_combinations=3, seed=30)
    assert [t.params for t in again["FakeWifiOn"]] == [t.params for t in suite["FakeWifiOn"]]
    assert len({t.params["n"] for t in suite["FakeWifiOn"]}) == 3


def test_identical_params_and_task_selection():
    suite = suite_utils.create_suite(
        fakes.TASKS, n_task_combinations=2, seed=1, tasks=["FakeWifiOn"], use_identical_params=True
    )
    assert list(suite) == ["FakeWifiOn"]
    a, b = suite["FakeWifiOn"]
    assert a.params == b.params


def test_unknown_task_has_did_you_mean():
    with pytest.raises(suite_utils.UnknownTaskError, match=r"did you mean 'FakeWifiOn'"):
        suite_utils.create_suite(fakes.TASKS, tasks=["FakeWifOn"])


def test_suite_family_must_be_set():
    suite = suite_utils.Suite()
    with pytest.raises(ValueError):
        _ = suite.suite_family
    suite.suite_family = "sim"
    assert suite.suite_family == "sim"


def test_score_counts_only_when_agent_says_done():
    suite = suite_utils.create_suite(fakes.TASKS, tasks=["FakeWifiOn"], seed=0)
    # Never done: the click turns wifi on (device state is right) but the score is 0.
    agent = fakes.ScriptedAgent(fakes.FakeEnv(), done_after=None)
    [ep] = suite_utils.run(suite, agent, print_fn=_quiet)
    assert ep["raw_score"] == 1.0 and ep["is_successful"] == 0.0 and ep["done"] is False
    assert ep["episode_length"] == 3  # int(10 * 0.3)


def test_hooks_are_called_and_usage_recorded():
    suite = suite_utils.create_suite(fakes.TASKS, n_task_combinations=2, seed=0)
    agent = fakes.ScriptedAgent(fakes.FakeEnv(), done_after=1)
    episodes = suite_utils.run(suite, agent, print_fn=_quiet)
    assert agent.tasks_seen == ["FakeAnswer", "FakeAnswer", "FakeWifiOn", "FakeWifiOn"]
    assert [score for _, score in agent.finished] == [0.0, 0.0, 1.0, 1.0]
    assert episodes[2]["usage"] == {"model_calls": 2, "prompt_tokens": 20, "completion_tokens": 2}
    assert agent.sink is None  # detached after each episode


class _StoringAgent(fakes.ScriptedAgent):
    """Stores its plan in episode_finished, as CelilAgent does, and says so in its summary."""

    def episode_summary(self):
        return {"memory": {"hit": False, "stored": len(self.finished) > self.summaries_before}}

    def reset(self, go_home=False):
        super().reset(go_home)
        self.summaries_before = len(self.finished)


def test_summary_is_taken_after_episode_finished():
    suite = suite_utils.create_suite(fakes.TASKS, tasks=["FakeWifiOn"], seed=0)
    observed = []

    class Observer:
        def start_episode(self, *args, **kwargs):
            pass

        def on_step_start(self, step_n):
            pass

        def on_step_end(self, step_n, result):
            pass

        def event_sink(self, event):
            pass

        def finish_episode(self, episode, summary):
            observed.append(summary)

    agent = _StoringAgent(fakes.FakeEnv(), done_after=1)
    suite_utils.run(suite, agent, observer=Observer(), print_fn=_quiet)
    assert observed == [{"memory": {"hit": False, "stored": True}}]


def test_failure_is_recorded_and_torn_down():
    fakes.FakeBroken.torn_down = 0
    registry = {"FakeBroken": fakes.FakeBroken, **fakes.TASKS}
    suite = suite_utils.create_suite(registry, seed=0)
    episodes = suite_utils.run(suite, fakes.ScriptedAgent(fakes.FakeEnv()), print_fn=_quiet)
    broken = next(e for e in episodes if e["task_template"] == "FakeBroken")
    assert broken["error"] == "RuntimeError: boom: the device refused"
    assert "Traceback" in broken["exception_info"]
    assert broken["is_successful"] is None
    assert fakes.FakeBroken.torn_down == 1
    summary = suite_utils.process_episodes(episodes)
    row = next(r for r in summary.rows if r["task_template"] == "FakeBroken")
    assert row["num_fail_trials"] == 1 and row["mean_success_rate"] is None
    assert summary.average["mean_success_rate"] == pytest.approx(0.5)


def test_resume_skips_done_reruns_failed_never_duplicates(tmp_path):
    ckpt = checkpointer.IncrementalCheckpointer(tmp_path)
    suite = suite_utils.create_suite(fakes.TASKS, n_task_combinations=2, seed=0)
    ckpt.save_episodes(
        [
            {
                "name": "FakeWifiOn_0",
                "task_template": "FakeWifiOn",
                "is_successful": 1.0,
                "error": None,
                "exception_info": None,
            }
        ],
        "FakeWifiOn_0",
    )
    ckpt.save_episodes(
        [
            {
                "name": "FakeWifiOn_1",
                "task_template": "FakeWifiOn",
                "is_successful": None,
                "error": "X: old",
                "exception_info": "tb",
            }
        ],
        "FakeWifiOn_1",
    )
    agent = fakes.ScriptedAgent(fakes.FakeEnv(), done_after=1)
    episodes = suite_utils.run(suite, agent, ckpt, print_fn=_quiet)
    assert agent.tasks_seen == ["FakeAnswer", "FakeAnswer", "FakeWifiOn"]
    names = [e["name"] for e in episodes]
    assert names == ["FakeAnswer_0", "FakeAnswer_1", "FakeWifiOn_0", "FakeWifiOn_1"]
    assert episodes[3]["error"] is None and episodes[3]["is_successful"] == 1.0
    assert [e["name"] for e in ckpt.load()] == names
    assert "episode_data" in ckpt.load()[0]
    # A second pass has nothing left to do.
    again = fakes.ScriptedAgent(fakes.FakeEnv())
    assert len(suite_utils.run(suite, again, ckpt, print_fn=_quiet)) == 4
    assert again.tasks_seen == []


def test_summary_is_a_macro_average_with_usage_and_pivot():
    def ep(task, score, steps, usage=None):
        return {
            "task_template": task,
            "is_successful": score,
            "episode_length": steps,
            "run_time": 1.0,
            "usage": usage,
            "error": None,
            "exception_info": None,
        }

    episodes = [
        ep("FakeWifiOn", 1.0, 2, {"model_calls": 4, "prompt_tokens": 30, "completion_tokens": 10})
    ]
    episodes += [ep("FakeAnswer", 0.0, 4) for _ in range(3)]
    summary = suite_utils.process_episodes(episodes, task_classes=fakes.TASKS)
    rows = {r["task_template"]: r for r in summary.rows}
    assert rows["FakeAnswer"]["num_complete_trials"] == 3
    assert rows["FakeWifiOn"]["model_calls_per_step"] == 2.0
    assert rows["FakeWifiOn"]["tokens_per_step"] == 20.0
    assert summary.average["mean_success_rate"] == 0.5  # macro: (1.0 + 0.0) / 2, not 1/4
    assert summary.average["num_complete_trials"] == 2.0  # averaged over templates, as upstream
    assert summary.pivot["settings"]["easy"] == 1.0
    assert summary.pivot["information_retrieval"]["medium"] == 0.0
    assert summary.pivot["toggle"]["hard"] is None
    text = suite_utils.format_summary(summary, title="T")
    assert "macro average" in text and "call/st" in text and "tok/st" in text
    assert max(len(line) for line in text.splitlines()) <= 80
    wide = suite_utils.format_summary(summary, title="T", wide=True)
    assert "calls/step" in wide and "model_s/step" in wide and "runtime_s" in wide


def test_compact_summary_clips_long_task_names_to_fit_80_columns():
    row = {
        "task_template": "AVeryLongTaskTemplateNameThatWouldWrapTheTable",
        "num_complete_trials": 3,
        "mean_success_rate": 0.5,
        "mean_episode_length": 12.0,
        "num_fail_trials": 0,
        "model_calls_per_step": 4.53,
        "tokens_per_step": 10234.0,
        "cost_usd": 0.0123,
        "memory_hits": 2,
        "total_runtime_s": 99.0,
        "model_seconds_per_step": 2.0,
    }
    columns = ["task_template", *[k for k in row if k != "task_template"]]
    summary = suite_utils.Summary(
        rows=[row],
        average={**row, "task_template": suite_utils.AVERAGE_ROW},
        pivot={},
        columns=columns,
    )
    lines = suite_utils.format_summary(summary).splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[2].startswith("AVeryLongTaskTemplateName") and "…" in lines[2]
    assert "10.2k" in lines[2] and "4.53" in lines[2]


def test_check_episode_fn_can_reject():
    suite = suite_utils.create_suite(fakes.TASKS, tasks=["FakeWifiOn"], seed=0)
    [ep] = suite_utils.run(
        suite,
        fakes.ScriptedAgent(fakes.FakeEnv()),
        print_fn=_quiet,
        check_episode_fn=lambda e: False,
    )
    assert ep["error"].startswith("Episode rejected")
