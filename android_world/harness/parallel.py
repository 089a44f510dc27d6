"""Scale-out: a suite's episodes run in N workers, each owning one device (DESIGN §7).

Why this shape:

- An episode is already an independent unit (task class, params, seed, agent config in; one
  result and one episode folder out), so a worker is just the serial loop's body in another
  process: `suite_utils.run_task` with its own env, agent and `RunWriter`.
- Processes (spawn) or Ray actors, never threads: envs and agents are not thread-safe, and a
  worker whose device hangs or crashes must be killable without taking the run with it.
- Only the driver writes the run directory's shared files. A worker writes its episode folder in
  its own scratch directory and sends the files back with the result; the driver installs the
  folder, then the checkpoint, then results.jsonl/summary/report, in the serial run's order. So a
  run killed at any moment resumes exactly like a serial one, and Ray actors on other hosts need
  no shared file system. (Celil's episodic memory is the one exception: workers share its SQLite
  store, one transaction per change, see `celil_episodic_store` and docs/SCALE_OUT.md.)
- The driver dispatches one episode at a time to an idle worker, and never waits on one result:
  it waits on all in-flight results at once (`multiprocessing.connection.wait`, `ray.wait`), so a
  slow device holds up only its own worker.
- A worker that dies (process killed, actor lost, device gone) is restarted; its episode is run
  again once and recorded as an error with the reason if that also dies. The counts go to
  manifest.json ("parallel") and the retried episode carries `attempts`/`retried_after`.
- Same answers as a serial run: each episode's task is rebuilt from the same params and seed,
  and when the agent's episodic memory is writable the instances of one task template run in
  suite order (as serially), so instance i can reuse what instance i-1 stored.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

from android_world.agents import registry as agent_registry
from android_world.env import interface
from android_world.harness import checkpointer as checkpointer_lib
from android_world.harness import config as config_lib
from android_world.harness import discover, live_view, run_output, suite_utils
from android_world.task_evals import task_eval

EnvFactory = Callable[[config_lib.CelilConfig], interface.AsyncEnv]
MAX_ATTEMPTS = 2  # an episode whose worker dies is run once more, then recorded as an error
MAX_START_FAILURES = 2  # a worker slot that cannot start twice in a row is retired
RAY_INSTALL = "pip install -r requirements-ray.txt  (or: pip install 'celil[ray]')"
RAY_NAMESPACE = "celil"  # named actors (`<run>-w<slot>-g<start>`), for `ray list actors`
WORKER_ENV_VAR = "CELIL_WORKER"  # the worker's name, for logs and fault-injection tests


class ParallelError(Exception):
    """The parallel run cannot go on (no worker could start, Ray missing); one line for the user."""


# --------------------------------------------------------------------------------------------
# What goes to a worker and what comes back


@dataclasses.dataclass(frozen=True)
class Job:
    """One episode to run: rebuilt in the worker as `task_cls(params)`, as `create_suite` did."""

    name: str
    task_cls: type[task_eval.TaskEval]
    params: dict[str, Any]
    instance_id: int
    attempt: int = 1
    retried_after: str | None = None

    @property
    def template(self) -> str:
        return self.name.rsplit("_", 1)[0]


@dataclasses.dataclass(frozen=True)
class WorkerSpec:
    """Everything a worker needs to build its env and agent (pickled to it once)."""

    cfg: config_lib.CelilConfig
    agent_registry_name: str
    agent_kwargs: dict[str, Any]
    run_dir: str
    env_factory: EnvFactory
    save_screenshots: bool
    agent_module: str | None = None
    name_prefix: str = "celil"
    # The driver's scratch directory (removed at the end, so a killed worker's half-written
    # episode folder does not linger); a worker on another host uses its own temp directory.
    scratch_root: str | None = None
    # The driver's validated agent config (registry.validate_kwargs), built from as it is;
    # None validates `agent_kwargs` in the worker.
    agent_params: Any = None
    # Send each step's live view (live_view.py) to the driver as a "live" message.
    live: bool = False


@dataclasses.dataclass
class Outcome:
    """A finished episode (without step data, as the serial run checkpoints it) and its folder."""

    name: str
    episode: dict[str, Any]
    files: dict[str, bytes]
    env_dead: str | None = None  # why this worker's device is unusable now, if it is
    worker: str = ""
    model_servers: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    """What this worker's model clients learned about the servers (run_output.model_servers)."""


def jobs_for(suite: suite_utils.Suite, done: set[str]) -> list[Job]:
    """The suite's episodes not yet finished, in suite order."""
    jobs = []
    for instances in suite.values():
        for i, task in enumerate(instances):
            name = f"{task.name}_{i}"
            if name not in done:
                jobs.append(Job(name, type(task), dict(task.params), i))
    return jobs


# --------------------------------------------------------------------------------------------
# Per-worker devices


def worker_config(cfg: config_lib.CelilConfig, slot: int) -> config_lib.CelilConfig:
    """Worker `slot`'s config: its own phone (`env.adb.serials[slot]`) or emulator (console port
    +2·slot, gRPC port +slot, its own AVD instance); the sim needs nothing per worker."""
    if cfg.env.type != "adb":
        return cfg
    adb = cfg.env.adb
    update: dict[str, Any] = {}
    if adb.serials:
        serial = adb.serials[slot]
        update["serial"] = serial
        port = serial.removeprefix("emulator-")
        if port.isdigit():
            update["console_port"] = int(port)
    else:
        update["console_port"] = adb.console_port + 2 * slot
        update["serial"] = "" if not adb.serial else adb.serial
        if adb.serial and slot:
            raise ParallelError(
                "--workers with env.adb.serial: list one device per worker in env.adb.serials"
            )
    if adb.emulator.avd:
        emu = adb.emulator
        extra = list(emu.extra_args)
        avd = emu.avd
        if emu.instances == "read_only" and "-read-only" not in extra:
            extra.append("-read-only")
        elif emu.instances == "clone":
            avd = clone_name(emu.avd, slot)
        update["emulator"] = emu.model_copy(
            update={"grpc_port": emu.grpc_port + slot, "extra_args": extra, "avd": avd}
        )
    env = cfg.env.model_copy(update={"adb": adb.model_copy(update=update)})
    return cfg.model_copy(update={"env": env})


def adb_server_port(cfg: config_lib.CelilConfig, slot: int) -> int | None:
    """Worker `slot`'s own adb server port, when `env.adb.adb_server_port` asks for them."""
    if cfg.env.type != "adb" or not cfg.env.adb.adb_server_port:
        return None
    return cfg.env.adb.adb_server_port + slot


def clone_name(avd: str, slot: int) -> str:
    return f"{avd}_w{slot}"


def check_devices(cfg: config_lib.CelilConfig, workers: int) -> None:
    """Bad device settings for N workers, caught before any worker starts."""
    if cfg.env.type != "adb":
        return
    adb = cfg.env.adb
    if adb.serials and len(adb.serials) < workers:
        raise ParallelError(
            f"--workers {workers} needs {workers} devices but env.adb.serials lists "
            f"{len(adb.serials)}: add serials or lower --workers"
        )
    if adb.serials and len(set(adb.serials)) != len(adb.serials):
        raise ParallelError("env.adb.serials lists a device twice: each worker needs its own")
    if adb.serial and not adb.serials and workers > 1:
        raise ParallelError(
            "--workers with env.adb.serial: list one device per worker in env.adb.serials"
        )
    ports = [adb.console_port + 2 * i for i in range(workers)]
    if not adb.serials and ports[-1] > 5682:
        raise ParallelError(
            f"--workers {workers}: emulator console ports {ports[0]}..{ports[-1]} pass 5682, "
            "the last port adb scans; lower --workers or env.adb.console_port"
        )


def prepare_devices(cfg: config_lib.CelilConfig, workers: int) -> None:
    """Check the device settings and make the per-worker AVD copies `instances: clone` needs."""
    check_devices(cfg, workers)
    emu = cfg.env.adb.emulator
    if cfg.env.type != "adb" or not emu.avd or emu.instances != "clone" or cfg.env.adb.serials:
        return
    from android_world.env.adb import emulator_pool

    try:
        emulator_pool.prepare_clones(emu.avd, workers, clone_name)
    except (emulator_pool.AvdCloneError, OSError) as exc:
        raise ParallelError(f"env.adb.emulator.instances: clone: {exc}") from None


def reap_local_emulator(info: dict[str, Any]) -> None:
    """Stop the emulator a killed worker had started on this host (it cannot stop it itself)."""
    if info.get("emulator_pid") and info.get("host") == os.uname().nodename:
        from android_world.env.adb import emulator_pool

        emulator_pool.reap(int(info["emulator_pid"]))


# --------------------------------------------------------------------------------------------
# The worker (same code in a process and in a Ray actor)


def _quiet(_message: str) -> None:
    pass


def env_problem(env: Any) -> str | None:
    """Why the env cannot run another episode (an adb device gone offline), or None."""
    check = getattr(env, "check_connection", None)
    if not callable(check):
        return None
    try:
        check()
    except Exception as exc:
        return suite_utils._one_line(exc)
    return None


class EpisodeWorker:
    """One device, one agent; runs episodes into a scratch folder and hands back the files."""

    def __init__(self, spec: WorkerSpec, slot: int, log: Callable[[str], None] = _quiet):
        self.spec = spec
        self.slot = slot
        self.name = f"{spec.name_prefix}-w{slot}"
        os.environ[WORKER_ENV_VAR] = self.name
        cfg = worker_config(spec.cfg, slot)
        port = adb_server_port(cfg, slot)
        if port is not None:
            os.environ["ANDROID_ADB_SERVER_PORT"] = str(port)
        if spec.agent_module:
            from android_world.agents import module_loader

            module_loader.register_module_agent(spec.agent_module)
        root = spec.scratch_root if spec.scratch_root and Path(spec.scratch_root).is_dir() else None
        self.scratch = Path(tempfile.mkdtemp(prefix=f"{self.name}-", dir=root))
        self.env = spec.env_factory(cfg)
        try:
            self.recorder = run_output.RecordingEnv(self.env)
            run_dir = Path(spec.run_dir)
            # On another host the run directory does not exist: memory: fresh stays per actor.
            context = agent_registry.RunContext(
                models=cfg.models,
                run_dir=run_dir if run_dir.is_dir() else self.scratch,
                seed=cfg.env.seed,
                log=log,
                console_line=discover.wrap_line,
            )
            params = spec.agent_params
            if params is None:
                params = agent_registry.validate_kwargs(spec.agent_registry_name, spec.agent_kwargs)
            self.agent = agent_registry.get_agent(
                spec.agent_registry_name, self.recorder, context=context, params=params
            )
            if cfg.benchmark.transition_pause is not None:
                self.agent.transition_pause = cfg.benchmark.transition_pause
            self.writer = run_output.RunWriter(self.scratch, self.recorder, spec.save_screenshots)
        except BaseException:
            self.close()
            raise

    def info(self) -> dict[str, Any]:
        """What the driver puts in manifest.json: the agent's resolved models and the device."""
        emulator = getattr(self.env, "_emulator", None)
        process = getattr(emulator, "process", None)
        return {
            "worker": self.name,
            "pid": os.getpid(),
            "host": os.uname().nodename,
            "agent_info": run_output.agent_manifest(self.agent),
            "emulator_pid": getattr(process, "pid", None),
            "device": getattr(getattr(self.env, "runner", None), "serial", None),
        }

    def run(self, job: Job, live: live_view.Emit | None = None) -> Outcome:
        """`live`, if given, receives the episode's live-view events as they happen."""
        task = job.task_cls(dict(job.params))
        observer: Any = self.writer
        if live is not None:
            observer = live_view.LiveObserver(self.writer, self.recorder, live, f"w{self.slot}")
        episode = suite_utils.run_task(
            task, self.agent, instance_id=job.instance_id, observer=observer, print_fn=_quiet
        )
        episode = {k: v for k, v in episode.items() if k != "episode_data"}
        if job.attempt > 1:
            episode["attempts"] = job.attempt
            episode["retried_after"] = job.retried_after
        folder = self.writer.episode_dir(job.name)
        files = read_folder(folder)
        shutil.rmtree(folder, ignore_errors=True)
        return Outcome(
            job.name,
            episode,
            files,
            env_problem(self.env),
            self.name,
            run_output.model_servers(),
        )

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.env.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


def read_folder(folder: Path) -> dict[str, bytes]:
    if not folder.is_dir():
        return {}
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.startswith(".")
    }


def install_folder(episodes_dir: Path, name: str, files: dict[str, bytes]) -> None:
    """Put an episode's folder in place in one rename: a reader (or a kill) sees the old folder
    or the new one, never a half-written one."""
    episodes_dir.mkdir(parents=True, exist_ok=True)
    incoming = Path(tempfile.mkdtemp(prefix=f".{name}.incoming-", dir=episodes_dir))
    try:
        for rel, data in files.items():
            target = incoming / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            os.chmod(target, checkpointer_lib._FILE_MODE)
        os.chmod(incoming, 0o755)
        final = episodes_dir / name
        old = None
        if final.exists():
            old = episodes_dir / f".{name}.old-{os.getpid()}"
            os.replace(final, old)
        os.replace(incoming, final)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(incoming, ignore_errors=True)
        raise


def remove_stale_folders(episodes_dir: Path) -> None:
    """Folders a killed driver left half-installed."""
    if not episodes_dir.is_dir():
        return
    for path in episodes_dir.iterdir():
        if path.name.startswith(".") and (".incoming-" in path.name or ".old-" in path.name):
            shutil.rmtree(path, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# Pools: how workers are started and heard from


@dataclasses.dataclass
class Event:
    """`ready` (payload: info), `start_failed` (reason), `done` (Outcome), `died` (reason),
    `live` (a live-view event of the episode in progress)."""

    kind: str
    slot: int
    payload: Any = None
    gen: int = 1  # which start of the slot sent it: a stale event from a replaced worker is dropped


class Pool(Protocol):
    backend: str

    def start(self, slot: int, gen: int = 1) -> None: ...

    def submit(self, slot: int, job: Job) -> None: ...

    def events(self, timeout: float) -> list[Event]: ...

    def stop(self, slot: int, kill: bool = False) -> None: ...

    def close(self, kill: bool = False) -> None: ...


def _watch_parent() -> None:
    """A worker whose driver was killed exits instead of running on as an orphan."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _process_main(conn: multiprocessing.connection.Connection, spec: WorkerSpec, slot: int) -> None:
    """A worker process: build the worker, then run the jobs the driver sends until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    _watch_parent()
    try:
        worker = EpisodeWorker(spec, slot, log=_quiet)
        conn.send(("ready", worker.info()))
    except BaseException as exc:
        with contextlib.suppress(Exception):
            conn.send(("start_failed", _start_error(exc)))
        return
    try:
        while True:
            try:
                job = conn.recv()
            except (EOFError, OSError):
                break
            if job is None:
                break
            outcome = worker.run(job, (lambda e: conn.send(("live", e))) if spec.live else None)
            conn.send(("done", outcome))
            if outcome.env_dead:
                break
    finally:
        worker.close()


def _start_error(exc: BaseException) -> str:
    text = suite_utils._one_line(exc)
    if os.environ.get("CELIL_WORKER_TRACEBACK"):
        text += "\n" + traceback.format_exc()
    return text


def _exit_reason(code: int | None) -> str:
    if code is None:
        return "worker process stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"worker process killed by {name}"
    return f"worker process exited with code {code}"


@dataclasses.dataclass
class _Proc:
    process: Any
    conn: multiprocessing.connection.Connection
    gen: int


# Imported once by the fork server, so each worker starts in a fraction of a second instead of
# importing numpy, Pillow and the agent anew (16 workers on 2 cores: ~0.5 s, not ~30 s).
_PRELOAD = (
    "android_world.harness.parallel",
    "android_world.agents.registry",
    "android_world.agents.celil_factory",
    "android_world.env.sim.sim_env",
    "android_world.agents.custom.celil_models",
    "android_world.agents.custom.roles.celil_perception",
    "openai",  # a missing optional module is skipped by the fork server
)


def start_method() -> str:
    """forkserver where the OS has it (a clean single-threaded parent, modules preloaded), else
    spawn; never plain fork, which would copy the driver's threads and locks."""
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


class LocalPool:
    """Worker processes on this host (forkserver/spawn: no inherited locks, threads or handles)."""

    backend = "local"

    def __init__(self, spec: WorkerSpec, context: str | None = None):
        self.spec = spec
        method = context or start_method()
        self._ctx = multiprocessing.get_context(method)
        if method == "forkserver":
            self._ctx.set_forkserver_preload(list(_PRELOAD))
        self._procs: dict[int, _Proc] = {}

    def start(self, slot: int, gen: int = 1) -> None:
        parent, child = self._ctx.Pipe()
        process = self._ctx.Process(
            target=_process_main,
            args=(child, self.spec, slot),
            name=f"{self.spec.name_prefix}-w{slot}",
            daemon=True,
        )
        process.start()
        child.close()
        self._procs[slot] = _Proc(process, parent, gen)

    def pid(self, slot: int) -> int | None:
        proc = self._procs.get(slot)
        return proc.process.pid if proc else None

    def submit(self, slot: int, job: Job) -> None:
        # A worker already gone is reported as died by its sentinel.
        with contextlib.suppress(OSError, ValueError):
            self._procs[slot].conn.send(job)

    def events(self, timeout: float) -> list[Event]:
        if not self._procs:
            time.sleep(timeout)
            return []
        waitables: dict[Any, tuple[int, _Proc, bool]] = {}
        for slot, proc in self._procs.items():
            waitables[proc.conn] = (slot, proc, False)
            waitables[proc.process.sentinel] = (slot, proc, True)
        ready = multiprocessing.connection.wait(list(waitables), timeout=timeout)
        events: list[Event] = []
        for item in ready:
            slot, proc, exited = waitables[item]
            if self._procs.get(slot) is not proc:
                continue
            # Anything it sent before exiting still counts (a result, then a dead device).
            events += self._read(slot, proc)
            if exited:
                self._procs.pop(slot)
                proc.process.join(timeout=1)
                with contextlib.suppress(OSError):
                    proc.conn.close()
                reason = _exit_reason(proc.process.exitcode)
                events.append(Event("died", slot, reason, proc.gen))
        return events

    def _read(self, slot: int, proc: _Proc) -> list[Event]:
        events = []
        while True:
            try:
                if not proc.conn.poll():
                    break
                kind, payload = proc.conn.recv()
            except (EOFError, OSError):
                break
            events.append(Event(kind, slot, payload, proc.gen))
        return events

    def stop(self, slot: int, kill: bool = False) -> None:
        proc = self._procs.pop(slot, None)
        if proc is None:
            return
        with contextlib.suppress(OSError, ValueError):
            proc.conn.send(None)
        proc.process.join(timeout=0 if kill else 30)
        if proc.process.is_alive():
            proc.process.kill()
            proc.process.join(timeout=5)
        with contextlib.suppress(OSError):
            proc.conn.close()

    def close(self, kill: bool = False) -> None:
        for slot in list(self._procs):
            self.stop(slot, kill)


# --------------------------------------------------------------------------------------------
# Ray


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ParallelError(
            f"--ray_address needs Ray, which is not installed: {RAY_INSTALL}"
        ) from None
    return ray


class RayEpisodeWorker:
    """The Ray actor: the same EpisodeWorker, built when the actor starts."""

    def __init__(self, spec: WorkerSpec, slot: int):
        self._worker: EpisodeWorker | None = None
        self._error: str | None = None
        try:
            self._worker = EpisodeWorker(spec, slot)
        except BaseException as exc:
            self._error = _start_error(exc)

    def ready(self) -> tuple[str, Any]:
        if self._worker is None:
            return "start_failed", self._error
        return "ready", self._worker.info()

    def run(self, job: Job) -> Outcome:
        assert self._worker is not None
        return self._worker.run(job)

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()


class RayPool:
    """Workers as Ray actors (one env each, `num_cpus` reserved each); results come back through
    `ray.wait` over every in-flight call, never one blocking `ray.get` of everything."""

    backend = "ray"

    def __init__(self, spec: WorkerSpec, address: str, num_cpus: float, workers: int):
        self.ray = import_ray()
        self.spec = spec
        self._started_ray = False
        if not self.ray.is_initialized():
            self._init(address, num_cpus, workers)
        self._cls = self.ray.remote(num_cpus=num_cpus, max_restarts=0, max_task_retries=0)(
            RayEpisodeWorker
        )
        self._actors: dict[int, Any] = {}
        self._gens: dict[int, int] = {}
        self._inflight: dict[Any, tuple[int, str, int]] = {}

    def _init(self, address: str, num_cpus: float, workers: int) -> None:
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        kwargs["runtime_env"] = {"env_vars": actor_env(dict(os.environ))}
        if address == "local":
            # Logical CPUs: a worker mostly waits on its device and models, so a small host
            # still runs many (the benchmark shows it); Ray schedules by these numbers only.
            kwargs["num_cpus"] = max(os.cpu_count() or 1, int(workers * num_cpus + 0.999))
        else:
            kwargs["address"] = address
            kwargs.pop("include_dashboard")
        try:
            self.ray.init(**kwargs)
        except Exception as exc:
            raise ParallelError(
                f"--ray_address {address}: cannot connect to Ray ({suite_utils._one_line(exc)}); "
                "start a cluster with `ray start --head` or use --ray_address local"
            ) from None
        self._started_ray = True

    def actor_name(self, slot: int) -> str:
        return f"{self.spec.name_prefix}-w{slot}"

    def start(self, slot: int, gen: int = 1) -> None:
        name = f"{self.actor_name(slot)}-g{gen}"
        actor = self._cls.options(name=name, namespace=RAY_NAMESPACE).remote(self.spec, slot)
        self._actors[slot] = actor
        self._gens[slot] = gen
        self._inflight[actor.ready.remote()] = (slot, "ready", gen)

    def submit(self, slot: int, job: Job) -> None:
        self._inflight[self._actors[slot].run.remote(job)] = (slot, "run", self._gens[slot])

    def events(self, timeout: float) -> list[Event]:
        if not self._inflight:
            time.sleep(timeout)
            return []
        refs = list(self._inflight)
        ready, rest = self.ray.wait(refs, num_returns=1, timeout=timeout)
        if ready and rest:
            more, _ = self.ray.wait(rest, num_returns=len(rest), timeout=0)
            ready += more
        events = []
        for ref in ready:
            slot, what, gen = self._inflight.pop(ref)
            try:
                value = self.ray.get(ref)
            except Exception as exc:
                kind = "start_failed" if what == "ready" else "died"
                events.append(Event(kind, slot, _ray_reason(exc), gen))
                continue
            if what == "ready":
                events.append(Event(value[0], slot, value[1], gen))
            else:
                events.append(Event("done", slot, value, gen))
        return events

    def actor(self, slot: int) -> Any:
        return self._actors.get(slot)

    def stop(self, slot: int, kill: bool = False) -> None:
        actor = self._actors.pop(slot, None)
        for ref, (s, _, _) in list(self._inflight.items()):
            if s == slot:
                self._inflight.pop(ref)
        if actor is None:
            return
        if not kill:
            with contextlib.suppress(Exception):
                self.ray.get(actor.close.remote(), timeout=30)
        with contextlib.suppress(Exception):
            self.ray.kill(actor)

    def close(self, kill: bool = False) -> None:
        for slot in list(self._actors):
            self.stop(slot, kill)
        if self._started_ray:
            with contextlib.suppress(Exception):
                self.ray.shutdown()


# Actors on other hosts do not see this shell's environment: these variables go with the job.
_FORWARDED_ENV = ("GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", "OLLAMA_HOST")


def actor_env(environ: dict[str, str]) -> dict[str, str]:
    """The environment Ray actors get: this checkout on PYTHONPATH, Celil's own variables, the
    model keys, and whatever `CELIL_RAY_ENV` (comma-separated names) adds."""
    names = set(_FORWARDED_ENV) | {n for n in environ if n.startswith("CELIL_")}
    names |= {n.strip() for n in environ.get("CELIL_RAY_ENV", "").split(",") if n.strip()}
    env = {n: environ[n] for n in sorted(names) if n in environ}
    path = [p for p in sys.path if p and Path(p).is_dir()]
    env["PYTHONPATH"] = os.pathsep.join(path)
    return env


def _ray_reason(exc: BaseException) -> str:
    name = type(exc).__name__
    if "ActorDied" in name or "ActorError" in name or "ActorUnavailable" in name:
        return "Ray actor died (killed, or its node was lost)"
    return suite_utils._one_line(exc)


# --------------------------------------------------------------------------------------------
# The driver's scheduler


@dataclasses.dataclass
class Stats:
    """What the manifest records about a parallel session."""

    backend: str
    workers: int
    restarts: int = 0
    retries: int = 0
    gave_up: list[str] = dataclasses.field(default_factory=list)
    start_failures: int = 0
    worker_info: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class _Slot:
    job: Job | None = None
    ready: bool = False
    alive: bool = True
    start_failures: int = 0
    gen: int = 1


def failed_episode(job: Job, reason: str) -> dict[str, Any]:
    """The record of an episode given up on after its worker died twice (a failed episode, so a
    resume runs it again)."""
    return {
        "goal": None,
        "task_template": job.template,
        "instance_id": job.instance_id,
        "name": job.name,
        "seed": job.params.get("seed"),
        "params": job.params,
        "agent_name": None,
        "is_successful": None,
        "raw_score": None,
        "done": None,
        "episode_length": None,
        "exception_info": f"WorkerLost: {reason}",
        "error": f"worker died {job.attempt} times running this episode: {reason}",
        "teardown_error": None,
        "aux_data": None,
        "memory_hit": None,
        "run_time": 0.0,
        "finish_dtime": run_output.utc_now(),
        "usage": None,
        "attempts": job.attempt,
    }


class Scheduler:
    """Hands episodes to idle workers, takes their results, restarts the dead ones."""

    def __init__(
        self,
        pool: Pool,
        workers: int,
        on_outcome: Callable[[Outcome], None],
        *,
        in_order_templates: bool = False,
        log: Callable[[str], None] = _quiet,
        on_ready: Callable[[int, dict[str, Any]], None] | None = None,
        on_stats: Callable[[Stats], None] | None = None,
        on_lost: Callable[[dict[str, Any]], None] = reap_local_emulator,
        poll_sec: float = 0.5,
        on_live: Callable[[int, Any], None] | None = None,
    ):
        self.pool = pool
        self.workers = workers
        self.on_outcome = on_outcome
        self.in_order_templates = in_order_templates
        self.log = log
        self.on_ready = on_ready
        self.on_stats = on_stats or (lambda _stats: None)
        self.on_lost = on_lost
        self.on_live = on_live
        self.info: dict[int, dict[str, Any]] = {}  # each slot's live worker, as it reported
        self.poll_sec = poll_sec
        self.stats = Stats(pool.backend, workers)
        self.slots = {i: _Slot() for i in range(workers)}
        self.pending: collections.deque[Job] = collections.deque()

    def run(self, jobs: list[Job]) -> Stats:
        self.pending.extend(jobs)
        if not self.pending:
            return self.stats
        self.on_stats(self.stats)
        for slot in range(min(self.workers, len(self.pending))):
            self.pool.start(slot, self.slots[slot].gen)
        for slot in range(len(self.pending), self.workers):
            self.slots[slot].alive = False
        try:
            self._loop()
        except BaseException:
            for info in self.info.values():  # the workers will be killed: their emulators too
                with contextlib.suppress(Exception):
                    self.on_lost(info)
            raise
        return self.stats

    def _loop(self) -> None:
        while self.pending or any(s.job for s in self.slots.values()):
            self._dispatch()
            if not any(s.alive for s in self.slots.values()):
                raise ParallelError(
                    "no worker could start its device (see the reason above); run with "
                    "--workers 1 to see the full error"
                )
            for event in self.pool.events(self.poll_sec):
                before = self.stats.as_dict()
                self._handle(event)
                if self.stats.as_dict() != before:
                    self.on_stats(self.stats)  # a killed driver's manifest still has the counts

    def _next_job(self) -> Job | None:
        busy = {s.job.template for s in self.slots.values() if s.job is not None}
        for job in self.pending:
            if not self.in_order_templates or job.template not in busy:
                self.pending.remove(job)
                return job
        return None

    def _dispatch(self) -> None:
        for slot, state in self.slots.items():
            if state.alive and state.ready and state.job is None:
                job = self._next_job()
                if job is None:
                    return
                state.job = job
                self.pool.submit(slot, job)

    def _handle(self, event: Event) -> None:
        state = self.slots[event.slot]
        if event.gen != state.gen:
            return  # from a worker already replaced
        if event.kind == "live":
            if self.on_live is not None:
                self.on_live(event.slot, event.payload)
        elif event.kind == "ready":
            state.ready, state.start_failures = True, 0
            info = event.payload if isinstance(event.payload, dict) else {}
            self.info[event.slot] = info
            self.stats.worker_info.append(
                {k: info.get(k) for k in ("worker", "pid", "host", "device", "emulator_pid")}
            )
            if self.on_ready is not None:
                self.on_ready(event.slot, event.payload)
        elif event.kind == "start_failed":
            self._start_failed(event.slot, str(event.payload))
        elif event.kind == "done":
            self._done(event.slot, event.payload)
        elif event.kind == "died":
            if not state.ready and state.job is None:
                self._start_failed(event.slot, str(event.payload))
                return
            self._lost(event.slot, str(event.payload))

    def _start_failed(self, slot: int, reason: str) -> None:
        state = self.slots[slot]
        if not state.alive:
            return
        self.pool.stop(slot)
        state.ready = False
        state.start_failures += 1
        self.stats.start_failures += 1
        self.log(f"worker {slot} could not start: {reason.splitlines()[0]}")
        if state.start_failures >= MAX_START_FAILURES:
            state.alive = False
            self.log(f"worker {slot} retired after {state.start_failures} failed starts")
            return
        self._restart(slot)

    def _done(self, slot: int, outcome: Outcome) -> None:
        state = self.slots[slot]
        job, state.job = state.job, None
        if outcome.env_dead and job is not None and outcome.episode.get("error"):
            # The device died under the episode: its failure says nothing about the agent.
            self._retry_or_give_up(job, f"device lost: {outcome.env_dead}")
        else:
            self.on_outcome(outcome)
        if outcome.env_dead:
            self.log(f"worker {slot}: device lost ({outcome.env_dead}); restarting it")
            self.pool.stop(slot)
            self._restart(slot)

    def _lost(self, slot: int, reason: str) -> None:
        state = self.slots[slot]
        job, state.job = state.job, None
        self.log(f"worker {slot}: {reason}; restarting it")
        self.pool.stop(slot)
        self.on_lost(self.info.pop(slot, {}))
        if job is not None:
            self._retry_or_give_up(job, reason)
        self._restart(slot)

    def _retry_or_give_up(self, job: Job, reason: str) -> None:
        if job.attempt < MAX_ATTEMPTS:
            self.stats.retries += 1
            retry = dataclasses.replace(job, attempt=job.attempt + 1, retried_after=reason)
            self.pending.appendleft(retry)
            return
        self.stats.gave_up.append(job.name)
        self.on_outcome(Outcome(job.name, failed_episode(job, reason), {}, None, ""))

    def _restart(self, slot: int) -> None:
        state = self.slots[slot]
        state.ready = False
        state.gen += 1
        self.stats.restarts += 1
        self.pool.start(slot, state.gen)


# --------------------------------------------------------------------------------------------
# Entry point for run.py


def wanted(cfg: config_lib.CelilConfig) -> bool:
    return cfg.benchmark.workers > 1 or cfg.benchmark.ray_address is not None


def memory_writable(registry_name: str, kwargs: dict[str, Any]) -> bool:
    """Whether episodes can see what earlier ones stored (Celil's memory: fresh|shared)."""
    if registry_name != "celil_agent":
        return False
    return kwargs.get("memory", "fresh") in ("fresh", "shared")


def make_pool(spec: WorkerSpec, cfg: config_lib.CelilConfig) -> Pool:
    bench = cfg.benchmark
    if bench.ray_address is not None:
        return RayPool(spec, bench.ray_address, bench.ray_num_cpus, bench.workers)
    return LocalPool(spec)


@contextlib.contextmanager
def open_pool(spec: WorkerSpec, cfg: config_lib.CelilConfig) -> Iterator[Pool]:
    """The pool, closed at the end: workers finish and stop their devices; after an error or
    Ctrl-C they are killed at once (an episode can take minutes)."""
    scratch = tempfile.mkdtemp(prefix="celil-scratch-")
    spec = dataclasses.replace(spec, scratch_root=spec.scratch_root or scratch)
    try:
        pool = make_pool(spec, cfg)
        try:
            yield pool
        except BaseException:
            pool.close(kill=True)
            raise
        pool.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
