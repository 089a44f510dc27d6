"""Checkpoints both ways: a run of ours in upstream's format, and an upstream run read here.

Upstream's `IncrementalCheckpointer` keeps `<Task>_<i>.pkl.gz` (a gzip'd pickle of a list of
episode dicts with upstream's keys). With an upstream checkout and its Python (see
tests/upstream_support.py), upstream's own checkpointer loads a default run of ours and writes
the upstream run our report, compare and resume read; without them the same checks run
against our reader of the format, and the upstream parts are skipped, saying why.
"""

from __future__ import annotations

import datetime
import gzip
import json
import math
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import upstream_support

from android_world.harness import checkpointer, upstream_checkpoints

ROOT = Path(__file__).resolve().parents[2]
TASKS = "SystemWifiTurnOn,ContactsAddContact"


def _run(*args: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=upstream_support.clean_env(PYTHONPATH=str(ROOT), CELIL_NO_INSTALL="1"),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def our_run(tmp_path_factory) -> Path:
    """A default run of ours (default agent and config) on two tasks."""
    out = tmp_path_factory.mktemp("runs")
    done = _run("-m", "android_world.harness.run", "--tasks", TASKS, "--output_path", str(out))
    assert done.returncode == 0, done.stderr[-2000:]
    [run_dir] = out.iterdir()
    return run_dir


# Episodes shaped as upstream's `_run_task` and `run` leave them (its keys and types): one
# success with screenshots and an action object in its step data, one whose task raised (NaN
# score, length and steps). Source code, so upstream's Python builds them with its own classes.
EPISODES_CODE = """
import datetime, math
import numpy as np
from android_world.env import json_action
episodes = [
    {
        "goal": "Turn on WiFi.",
        "task_template": "SystemWifiTurnOn",
        "episode_data": {
            "step_number": [0, 1],
            "screenshot": [np.zeros((4, 2, 3), np.uint8), np.ones((4, 2, 3), np.uint8)],
            "action": [json_action.JSONAction(action_type="click", index=3), None],
        },
        "is_successful": 1.0,
        "run_time": 12.5,
        "finish_dtime": datetime.datetime(2026, 2, 24, 10, 0, 0),
        "episode_length": 2,
        "aux_data": None,
        "screen_config": {"width": 1080, "height": 2400, "orientation": "portrait",
                          "config_name": "default"},
        "exception_info": None,
        "seed": 1868612394,
        "agent_name": "m3a_gpt4v",
        "instance_id": 0,
    },
    {
        "goal": "Add a contact.",
        "task_template": "ContactsAddContact",
        "episode_data": math.nan,
        "is_successful": math.nan,
        "finish_dtime": datetime.datetime(2026, 2, 24, 10, 5, 0),
        "run_time": 3.0,
        "episode_length": math.nan,
        "exception_info": "Traceback (most recent call last):\\nRuntimeError: adb went away",
        "aux_data": None,
        "agent_name": "m3a_gpt4v",
        "instance_id": 0,
    },
]
"""


@pytest.fixture(scope="module")
def upstream_run(tmp_path_factory) -> Path:
    """An upstream run directory: written by upstream's own checkpointer when its Python is
    here, else by our writer of the same format (gzip'd pickles of the same dicts)."""
    directory = tmp_path_factory.mktemp("upstream_run")
    if upstream_support.missing() is None:
        code = EPISODES_CODE + (
            "from android_world import checkpointer\n"
            f"c = checkpointer.IncrementalCheckpointer({str(directory)!r})\n"
            "for ep in episodes:\n"
            "    c.save_episodes([ep], f\"{ep['task_template']}_{ep['instance_id']}\")\n"
        )
        done = upstream_support.run_in_upstream(code)
        assert done.returncode == 0, done.stderr[-2000:]
    else:
        scope: dict = {}
        exec(EPISODES_CODE, scope)
        for ep in scope["episodes"]:
            name = f"{ep['task_template']}_{ep['instance_id']}"
            (directory / f"{name}.pkl.gz").write_bytes(upstream_checkpoints.gzip_pickle([ep]))
    return directory


def test_a_run_writes_upstreams_checkpoint_files(our_run):
    files = sorted(p.name for p in our_run.glob("*.pkl.gz"))
    assert files == [
        "ContactsAddContact_0.pkl.gz",
        "SystemWifiTurnOn_0.pkl.gz",
    ]
    episodes = upstream_checkpoints.read_episodes(our_run)
    assert [ep["task_template"] for ep in episodes] == ["ContactsAddContact", "SystemWifiTurnOn"]
    for ep in episodes:
        assert set(upstream_checkpoints.EPISODE_KEYS) <= set(ep)
        assert isinstance(ep["finish_dtime"], datetime.datetime)
        assert ep["is_successful"] == 1.0 and ep["instance_id"] == 0
        assert ep["screen_config"]["width"] == 1080 and ep["exception_info"] is None


def test_the_pickles_hold_builtins_only(our_run):
    """Upstream unpickles them without this package: a Python that cannot import it reads them."""
    code = (
        "import gzip, pickle, sys, glob; "
        "eps = [e for f in sorted(glob.glob(sys.argv[1] + '/*.pkl.gz')) "
        "for e in pickle.loads(gzip.open(f).read())]; "
        "print(len(eps), sorted({type(e['is_successful']).__name__ for e in eps}))"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code, str(our_run)],
        cwd="/",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "2"


def test_upstreams_checkpointer_loads_our_run(our_run):
    why = upstream_support.missing("pandas")
    if why:
        pytest.skip(why)
    done = upstream_support.run_in_upstream(
        "import json, sys; from android_world import checkpointer, suite_utils, constants; "
        f"c = checkpointer.IncrementalCheckpointer({str(our_run)!r}); "
        "K = constants.EpisodeConstants; "
        "meta = c.load(fields=[K.GOAL, K.TASK_TEMPLATE, K.INSTANCE_ID, K.IS_SUCCESSFUL, "
        "K.EPISODE_LENGTH, K.RUN_TIME, K.EXCEPTION_INFO, K.AUX_DATA]); "
        "df = suite_utils.process_episodes(c.load()); "
        "print(json.dumps({'loaded': len(c.load()), 'metadata': len(meta), "
        "'success': float(df['mean_success_rate'].min())}))"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    # Upstream's summary of the run: every rate 1.0, as ours says.
    assert seen == {"loaded": 2, "metadata": 2, "success": 1.0}


def test_our_report_and_compare_read_an_upstream_run(upstream_run, our_run, tmp_path):
    done = _run("-m", "android_world.reporting.report", str(upstream_run))
    assert done.returncode == 0, done.stderr[-2000:]
    page = (upstream_run / "report.html").read_text(encoding="utf-8")
    assert "SystemWifiTurnOn" in page and "ContactsAddContact" in page
    assert "adb went away" in page
    out = tmp_path / "compare.html"
    compared = _run(
        "-m",
        "android_world.reporting.report",
        "--compare",
        str(our_run),
        str(upstream_run),
        "--out",
        str(out),
    )
    assert compared.returncode == 0, compared.stderr[-2000:]
    assert out.is_file() and "SystemWifiTurnOn" in compared.stdout


def test_resume_runs_only_what_an_upstream_run_lacks(upstream_run, tmp_path):
    directory = tmp_path / "resumed"
    directory.mkdir()
    for path in upstream_run.glob("*.pkl.gz"):
        (directory / path.name).write_bytes(path.read_bytes())
    before = (directory / "SystemWifiTurnOn_0.pkl.gz").read_bytes()
    done = _run(
        "-m",
        "android_world.harness.run",
        "--tasks",
        TASKS,
        "--n_task_combinations",
        "2",
        "--checkpoint_dir",
        str(directory),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Resuming an upstream AndroidWorld run" in done.stderr
    rows = [json.loads(x) for x in (directory / "results.jsonl").read_text().splitlines()]
    ran = sorted(p.name for p in (directory / "episodes").iterdir())
    # Upstream's finished episode is kept; its failed one runs again, as upstream would.
    assert ran == ["ContactsAddContact_0", "ContactsAddContact_1", "SystemWifiTurnOn_1"]
    assert {r["name"]: r["score"] for r in rows}["SystemWifiTurnOn_0"] == 1.0
    assert {r["name"] for r in rows} == {
        "ContactsAddContact_0",
        "ContactsAddContact_1",
        "SystemWifiTurnOn_0",
        "SystemWifiTurnOn_1",
    }
    assert (directory / "SystemWifiTurnOn_0.pkl.gz").read_bytes() == before


def test_reading_builds_data_only(tmp_path):
    """A pickle naming other callables gets inert records: nothing runs."""

    class Boom:
        def __reduce__(self):
            return (subprocess.call, (["touch", str(tmp_path / "ran")],))

    (tmp_path / "Evil_0.pkl.gz").write_bytes(gzip.compress(pickle.dumps([{"x": Boom()}])))
    [episode] = upstream_checkpoints.read_episodes(tmp_path)
    assert isinstance(episode["x"], upstream_checkpoints.Foreign)
    assert not (tmp_path / "ran").exists()
    array = np.arange(6).reshape(2, 3)
    (tmp_path / "Arr_0.pkl.gz").write_bytes(gzip.compress(pickle.dumps([{"a": array}])))
    assert (upstream_checkpoints.read_episodes(tmp_path)[0]["a"] == array).all()


def test_loading_follows_upstreams_rules(tmp_path):
    for name in ("T_10", "T_2", "A_1"):
        (tmp_path / f"{name}.pkl.gz").write_bytes(
            upstream_checkpoints.gzip_pickle([{"task_template": name[0], "n": name}])
        )
    (tmp_path / "B_0.pkl.gz").write_bytes(b"not a gzip")
    names = [e["n"] for e in upstream_checkpoints.read_episodes(tmp_path)]
    # Upstream sorts by the name before the first separator; its instance number is parsed from
    # the file name with its suffix, which fails, so instances of a task keep the listing's order.
    assert names[0] == "A_1" and sorted(names[1:]) == ["T_10", "T_2"]
    assert upstream_checkpoints.sort_key("T_10.pkl.gz") == ("T", 0)
    assert upstream_checkpoints.sort_key("T_10") == ("T", 10)
    # A file lacking a requested field is skipped whole (upstream's KeyError path).
    assert upstream_checkpoints.read_episodes(tmp_path, fields=["missing"]) == []
    ours = upstream_checkpoints.to_ours({"task_template": "T", "instance_id": 2,
                                         "is_successful": math.nan, "exception_info": "x\nBoom"})  # fmt: skip
    assert ours["name"] == "T_2" and ours["is_successful"] is None and ours["error"] == "Boom"


def test_our_checkpoints_prefer_json_and_add_upstreams(tmp_path):
    store = checkpointer.IncrementalCheckpointer(tmp_path / "checkpoints", upstream_dir=tmp_path)
    store.save_episodes([{"name": "A_0", "task_template": "A", "instance_id": 0}], "A_0")
    (tmp_path / "B_0.pkl.gz").write_bytes(
        upstream_checkpoints.gzip_pickle(
            [{"task_template": "B", "instance_id": 0, "is_successful": 1.0}]
        )
    )
    loaded = {ep["name"]: ep for ep in store.load()}
    assert set(loaded) == {"A_0", "B_0"} and loaded["B_0"]["source"] == "upstream"
    assert "source" not in loaded["A_0"]  # its JSON, not its pickle
