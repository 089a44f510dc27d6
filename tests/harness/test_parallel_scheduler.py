"""The scale-out driver's rules, with an in-process pool whose workers die on cue.

Rules: each episode's result is handed over once; a worker that dies is restarted and its
episode retried once, then recorded as an error with the reason; a slot that cannot start twice
is retired; events from a replaced worker are ignored; with writable memory the instances of a
template run in order.
"""

from __future__ import annotations

import pytest
from harness_fakes import FakeAnswer, FakeWifiOn

from android_world.harness import config as config_lib
from android_world.harness import parallel


class ScriptedPool:
    """Runs a job as soon as it is submitted; `script[(name, attempt)]` says how it ends."""

    backend = "fake"

    def __init__(self, script=None, start_fail=()):
        self.script = script or {}
        self.start_fail = set(start_fail)  # slots that never start
        self.queue: list[parallel.Event] = []
        self.started: list[tuple[int, int]] = []
        self.submitted: list[tuple[int, str]] = []
        self.stopped: list[int] = []
        self.gens: dict[int, int] = {}

    def start(self, slot, gen=1):
        self.started.append((slot, gen))
        self.gens[slot] = gen
        if slot in self.start_fail:
            self.queue.append(parallel.Event("start_failed", slot, "no device", gen))
        else:
            self.queue.append(parallel.Event("ready", slot, {"worker": f"w{slot}"}, gen))

    def submit(self, slot, job):
        self.submitted.append((slot, job.name))
        gen = self.gens[slot]
        how = self.script.get((job.name, job.attempt), "ok")
        if how == "die":
            self.queue.append(parallel.Event("died", slot, "worker process killed by SIGKILL", gen))
            return
        episode = {"name": job.name, "error": None, "attempts": job.attempt}
        dead = None
        if how == "device_lost":
            episode["error"] = "ConnectionError: device offline"
            dead = "device offline"
        self.queue.append(
            parallel.Event("done", slot, parallel.Outcome(job.name, episode, {}, dead), gen)
        )

    def events(self, timeout):
        out, self.queue = self.queue[:1], self.queue[1:]
        return out

    def stop(self, slot):
        self.stopped.append(slot)

    def close(self):
        pass


def _jobs(n_per_task=2):
    jobs = []
    for cls in (FakeAnswer, FakeWifiOn):
        for i in range(n_per_task):
            jobs.append(parallel.Job(f"{cls.__name__}_{i}", cls, {"seed": i}, i))
    return jobs


def _run(pool, workers=2, **kwargs):
    got = []
    scheduler = parallel.Scheduler(pool, workers, got.append, poll_sec=0, **kwargs)
    stats = scheduler.run(_jobs())
    return got, stats


def test_every_episode_is_handed_over_once():
    got, stats = _run(ScriptedPool())
    assert sorted(o.name for o in got) == sorted(j.name for j in _jobs())
    assert (stats.restarts, stats.retries, stats.gave_up) == (0, 0, [])


def test_a_worker_killed_mid_episode_is_restarted_and_the_episode_retried_once():
    pool = ScriptedPool({("FakeWifiOn_0", 1): "die"})
    got, stats = _run(pool)
    names = [o.name for o in got]
    assert sorted(names) == sorted(j.name for j in _jobs())  # nothing lost, nothing twice
    retried = next(o for o in got if o.name == "FakeWifiOn_0")
    assert retried.episode["attempts"] == 2 and retried.episode["error"] is None
    assert (stats.restarts, stats.retries, stats.gave_up) == (1, 1, [])


def test_an_episode_whose_worker_dies_twice_is_an_error_with_the_reason():
    pool = ScriptedPool({("FakeAnswer_1", 1): "die", ("FakeAnswer_1", 2): "die"})
    got, stats = _run(pool)
    failed = [o for o in got if o.name == "FakeAnswer_1"]
    assert len(failed) == 1
    assert failed[0].episode["error"] == (
        "worker died 2 times running this episode: worker process killed by SIGKILL"
    )
    assert (stats.restarts, stats.retries, stats.gave_up) == (2, 1, ["FakeAnswer_1"])


def test_a_lost_device_restarts_the_worker_and_its_failed_episode_runs_again():
    pool = ScriptedPool({("FakeAnswer_0", 1): "device_lost"})
    got, stats = _run(pool)
    first = [o for o in got if o.name == "FakeAnswer_0"]
    assert len(first) == 1 and first[0].episode["error"] is None
    assert (stats.restarts, stats.retries) == (1, 1)


def test_a_slot_that_cannot_start_is_retired_and_the_others_finish():
    pool = ScriptedPool(start_fail={1})
    got, stats = _run(pool)
    assert len(got) == 4 and {slot for slot, _ in pool.submitted} == {0}
    assert stats.start_failures == 2


def test_no_worker_starting_is_a_clear_error():
    with pytest.raises(parallel.ParallelError, match="no worker could start"):
        _run(ScriptedPool(start_fail={0, 1}))


def test_events_from_a_replaced_worker_are_ignored():
    pool = ScriptedPool()
    scheduler = parallel.Scheduler(pool, 1, lambda o: None, poll_sec=0)
    scheduler.slots[0].gen = 2
    scheduler._handle(parallel.Event("died", 0, "old process exited", gen=1))
    assert scheduler.stats.restarts == 0 and pool.started == []


def test_with_writable_memory_a_templates_instances_run_in_order():
    """Two workers, but FakeAnswer_1 waits for FakeAnswer_0 (it may reuse its stored plan)."""

    class Recording(ScriptedPool):
        def __init__(self):
            super().__init__()
            self.held: list[parallel.Event] = []

        def submit(self, slot, job):
            super().submit(slot, job)
            self.held.append(self.queue.pop())  # results come back only when asked

        def events(self, timeout):
            if self.queue:
                return super().events(timeout)
            return [self.held.pop(0)] if self.held else []

    pool = Recording()
    _run(pool, in_order_templates=True)
    assert [name for _, name in pool.submitted[:2]] == ["FakeAnswer_0", "FakeWifiOn_0"]
    pool = Recording()
    _run(pool, in_order_templates=False)
    assert [name for _, name in pool.submitted[:2]] == ["FakeAnswer_0", "FakeAnswer_1"]


def test_memory_writable_only_for_celils_fresh_and_shared_memory():
    assert parallel.memory_writable("celil_agent", {})
    assert parallel.memory_writable("celil_agent", {"memory": "shared"})
    assert not parallel.memory_writable("celil_agent", {"memory": "frozen"})
    assert not parallel.memory_writable("oracle_agent", {})


# ---- per-worker devices -------------------------------------------------------------------


def _adb_cfg(**adb):
    return config_lib.CelilConfig.model_validate({"env": {"type": "adb", "adb": adb}})


def test_workers_get_distinct_console_grpc_ports_and_read_only_emulators():
    cfg = _adb_cfg(emulator={"avd": "AndroidWorldAvd"})
    adbs = [parallel.worker_config(cfg, i).env.adb for i in range(3)]
    assert [a.console_port for a in adbs] == [5554, 5556, 5558]
    assert [a.emulator.grpc_port for a in adbs] == [8554, 8555, 8556]
    assert all(a.emulator.avd == "AndroidWorldAvd" for a in adbs)
    assert all("-read-only" in a.emulator.extra_args for a in adbs)


def test_clone_mode_gives_each_worker_its_own_avd():
    cfg = _adb_cfg(emulator={"avd": "Avd", "instances": "clone"})
    assert [parallel.worker_config(cfg, i).env.adb.emulator.avd for i in range(2)] == [
        "Avd_w0",
        "Avd_w1",
    ]


def test_serials_map_to_workers_and_must_cover_them():
    cfg = _adb_cfg(serials="emulator-5560, R5CT12345")
    assert parallel.worker_config(cfg, 0).env.adb.console_port == 5560
    assert parallel.worker_config(cfg, 1).env.adb.serial == "R5CT12345"
    with pytest.raises(parallel.ParallelError, match=r"needs 3 devices but env\.adb\.serials"):
        parallel.check_devices(cfg, 3)
    with pytest.raises(parallel.ParallelError, match="twice"):
        parallel.check_devices(_adb_cfg(serials=["a", "a"]), 2)


def test_adb_server_ports_are_per_worker_when_asked():
    assert parallel.adb_server_port(_adb_cfg(), 1) is None
    assert parallel.adb_server_port(_adb_cfg(adb_server_port=15037), 2) == 15039


def test_pool_only_keys_never_reach_adb_env():
    mapping = _adb_cfg(serials=["a"], adb_server_port=1, emulator={"avd": "x"}).env.adb
    values = mapping.to_mapping()
    assert "serials" not in values and "adb_server_port" not in values
    assert "instances" not in values["emulator"]


# ---- installing an episode folder ------------------------------------------------------------


def test_install_folder_replaces_a_previous_folder_whole(tmp_path):
    episodes = tmp_path / "episodes"
    parallel.install_folder(episodes, "T_0", {"episode.json": b"old", "step_000.png": b"x"})
    parallel.install_folder(episodes, "T_0", {"episode.json": b"new"})
    assert sorted(p.name for p in (episodes / "T_0").iterdir()) == ["episode.json"]
    assert (episodes / "T_0" / "episode.json").read_bytes() == b"new"
    assert [p.name for p in episodes.iterdir()] == ["T_0"]  # no temp folders left
