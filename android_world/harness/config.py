"""The run config: one YAML file (config/default.yaml) plus command-line overrides.

Everything is validated with pydantic before anything runs, and every problem becomes one line
that names the file (or the `--set` flag) and the key path, so a typo never surfaces as a
traceback half-way through a benchmark.
"""

from __future__ import annotations

import copy
import difflib
import re
import shlex
from pathlib import Path
from typing import Any, Literal

import pydantic
import yaml
from pydantic import BaseModel, ConfigDict, Field

from android_world.agents.custom import celil_secrets, celil_yaml
from android_world.harness.model_config import ModelsConfig

# An installed package has no checkout: the wheel carries config/default.yaml here (setup.py).
PACKAGED_DEFAULT_CONFIG = Path(__file__).resolve().parents[1] / "data" / "default.yaml"


def _default_config_path() -> Path:
    """Relative from the checkout (short paths in messages); absolute when a console script such
    as `celil-run` starts from another directory: the checkout's file for an editable install,
    else the copy inside the installed package."""
    relative = Path("config/default.yaml")
    if relative.is_file():
        return relative
    checkout = Path(__file__).resolve().parents[2] / relative
    if checkout.is_file() or not PACKAGED_DEFAULT_CONFIG.is_file():
        return checkout
    return PACKAGED_DEFAULT_CONFIG


DEFAULT_CONFIG_PATH = _default_config_path()
REDACTED = celil_secrets.REDACTED


def load_yaml(text: str) -> Any:
    """Config text as YAML 1.2 (`off` stays a string), refusing a key given twice."""
    return celil_yaml.load(text)


class ConfigError(Exception):
    """A bad config file, key or override; the message is one line meant for the user."""


class _Strict(BaseModel):
    # NaN and infinity pass every `ge`/`le` bound (and NaN fails every comparison later), so no
    # number in the config may be one.
    # Attribute docstrings become field descriptions: docs/CONFIG.md is generated from them
    # (python -m android_world.docs_gen).
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, use_attribute_docstrings=True)


# Keys only the worker pool reads (android_world/harness/parallel.py); AdbEnv never sees them.
POOL_ONLY_ADB_KEYS = frozenset({"serials", "adb_server_port"})
POOL_ONLY_EMULATOR_KEYS = frozenset({"instances"})


class EmulatorSection(_Strict):
    """`env.adb.emulator`: an AVD the run starts headless when the serial is not online.

    Mirrors `env.adb.adb_runner.EmulatorConfig`; validated here so a typo is reported with the
    config file and key path before any device is touched.
    """

    avd: str = ""
    """Start this AVD headless if the serial is not online, stop it at the end; `""` = never
    launch."""
    emulator_path: str = ""
    """`""` = the SDK's `emulator/emulator`, then `PATH`."""
    grpc_port: int = Field(default=8554, ge=1, le=65535)
    """The emulator's gRPC port."""
    extra_args: list[str] = []
    """More emulator arguments (a list, or one shell-quoted string)."""
    boot_timeout_sec: float = Field(default=300.0, gt=0)
    """How long to wait for `sys.boot_completed`."""
    headless: bool = True
    """`-no-window`."""
    instances: Literal["read_only", "clone"] = "read_only"
    """`--workers N`: `read_only` boots N instances of the AVD (`-read-only`, console port
    5554+2i, gRPC 8554+i); `clone` boots a copy per worker (`<avd>_w<i>`, made once next to the
    AVD and kept), for images whose state must persist."""

    @pydantic.field_validator("extra_args", mode="before")
    @classmethod
    def _split_args(cls, value: Any) -> Any:
        if isinstance(value, str):
            return shlex.split(value)
        return [] if value is None else value


class AdbSection(_Strict):
    """`env.adb`; mirrors `env.adb.adb_runner.AdbConfig` (AdbEnv validates it again)."""

    adb_path: str = ""
    """`""` = `$ANDROID_HOME` or `$ANDROID_SDK_ROOT` `/platform-tools/adb`, then
    `~/Android/Sdk/...`, `~/Library/Android/sdk/...`, then `PATH`."""
    serial: str = ""
    """`""` = `emulator-<console_port>`; for a phone, its serial from `adb devices`."""
    console_port: int = Field(default=5554, ge=1, le=65535)
    """Emulator console port (`--console_port`); parallel emulators use 5556, 5558, ..."""
    timeout_sec: float = Field(default=30.0, gt=0)
    """Per adb call; a timeout is an error naming `adb reconnect`."""
    auto_root: bool = True
    """Run `adb root` once when sqlite or clock setting needs it (google_apis images)."""
    uiautomator_retries: int = Field(default=5, ge=1)
    """Retries on transient uiautomator failures."""
    emulator: EmulatorSection = EmulatorSection()
    """An AVD the run starts headless when the serial is not online."""
    serials: list[str] = []
    """`--workers N`: one device per worker (phones or running emulators), in worker order
    (`[emulator-5554, R5CT1234]`); `[]` = console ports 5554, 5556, ... (and their emulators,
    when `emulator.avd` is set)."""
    adb_server_port: int = Field(default=0, ge=0, le=65535)
    """`--workers N`: `0` = every worker uses the default adb server; `P` = worker i gets its own
    on port P+i (`ANDROID_ADB_SERVER_PORT`), so one worker's `kill-server` or install cannot
    break another's."""

    @pydantic.field_validator("emulator", mode="before")
    @classmethod
    def _no_emulator(cls, value: Any) -> Any:
        return {} if value is None else value

    @pydantic.field_validator("serials", mode="before")
    @classmethod
    def _split_serials(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [s.strip() for s in value.split(",") if s.strip()]
        return [] if value is None else value

    def to_mapping(self) -> dict[str, Any]:
        """What `AdbEnv.from_config` takes; an emulator with no AVD is left out (never launched)."""
        values = self.model_dump(mode="python", exclude=set(POOL_ONLY_ADB_KEYS))
        for key in POOL_ONLY_EMULATOR_KEYS:
            values["emulator"].pop(key, None)
        if not self.emulator.avd:
            values.pop("emulator")
        return values


class SimSection(_Strict):
    """`env.sim`: the simulated phone's profile (see `env/sim_profile.py`, `--list profiles`)."""

    profile: list[str] = []
    """Sim profile parts (a list, or comma-separated): one screen of `small`, `large`,
    `landscape` (default: the Pixel 6) plus any of `dialogs`, `vendor`, `slow`; see
    docs/SIM_SUITE.md ("Sim profiles") and `--list profiles`."""
    adjust_step_budget: bool = True
    """A profile's extra steps come with it: on a screen shorter than the Pixel 6's the step
    budget is upstream's `int(10 * complexity)` times the height ratio (small x1.2, landscape
    x2.2, rounded up), and `dialogs` adds one step per app of the task (its first-launch
    pop-up); `false` = upstream's budget under every profile (`SimEnv.step_budget`)."""

    @pydantic.field_validator("profile", mode="before")
    @classmethod
    def _parts(cls, value: Any) -> Any:
        from android_world.env import sim_profile

        if value is None:
            return []
        if isinstance(value, str | list | tuple):
            parts = sim_profile.split_parts(value)
            sim_profile.parse(parts)  # ProfileError is a ValueError: one line from pydantic
            return parts
        return value


class EnvConfig(_Strict):
    """`env`: which phone the run uses."""

    type: Literal["sim", "adb"] = "sim"
    """`sim`: the simulated phone; `adb`: a real emulator or phone (`--env`)."""
    seed: int = 0
    """Seed of the simulated phone; also the default seed of seeded agents."""
    render: bool = True
    """Draw screenshots; `false` gives blank frames (faster, for runs that never look at
    pixels)."""
    sim: SimSection = SimSection()
    """The simulated phone (`--env sim`)."""
    adb: AdbSection = AdbSection()
    """The adb environment (`--env adb`); docs/DEVICES.md."""

    @pydantic.field_validator("sim", mode="before")
    @classmethod
    def _no_sim(cls, value: Any) -> Any:
        return {} if value is None else value

    @pydantic.field_validator("adb", mode="before")
    @classmethod
    def _no_adb(cls, value: Any) -> Any:
        return {} if value is None else value


class BenchmarkConfig(_Strict):
    """`benchmark`: which tasks run, how many times, where the results go."""

    suite_family: str = "sim"
    """Task family; `sim` is the only one here (NOT AndroidWorld scores); upstream's families
    get a pointer to running the plugin in an upstream checkout."""
    tasks: list[str] = []
    """Task class names to run; empty = every task of the family (a `--tasks` value naming no
    task is an error, not "every task")."""
    tags: list[str] = []
    """Keep tasks carrying any of these tags (empty: no filter); an unknown tag is an error
    listing the known ones."""
    difficulty: list[str] = []
    """Keep tasks of these difficulties (`easy`, `medium`, `hard`; empty: no filter)."""
    n_task_combinations: int = Field(default=1, ge=1)
    """Instances (parameter draws) per task."""
    task_random_seed: int = 30
    """Seed of the parameter draws; instance i of task T uses `sha256(f"{seed}_{T}_{i}") %
    2**32`, as upstream (30 is upstream's default)."""
    use_identical_params: bool = False
    """Every instance of a task gets instance 0's params (`--fixed_task_seed`)."""
    output_path: str = "runs"
    """Parent directory of new run directories (`run_<timestamp>/`)."""
    checkpoint_dir: str | None = None
    """A run directory to resume (or create with `--new`); set by the runner in a run's own
    `config.yaml`."""
    save_screenshots: bool = True
    """Write `step_NNN.png` of the screen the agent acted on for every step (skipped when the
    sim does not render)."""
    transition_pause: float | None = Field(default=None, ge=0)
    """`null` keeps each agent's own pause (as upstream's runner); a number makes every agent
    wait that many seconds before observing. The adb environment also pauses after each input
    by itself."""
    workers: int = Field(default=1, ge=1, le=512)
    """Episodes run in this many worker processes (or Ray actors), one device each; `1` = the
    serial run (`--workers`; android_world/harness/parallel.py)."""
    ray_address: str | None = None
    """`null` = no Ray; `auto` (a running cluster), `local` (start one here),
    `ray://host:port`, `host:port`: the workers as Ray actors (`--ray_address`)."""
    durations_from: str | None = None
    """An earlier run directory whose episodes' run times order a parallel run, longest expected
    first (`--durations_from`); `null` = only this run's own (a resume) and upstream's
    complexity."""
    ray_num_cpus: float = Field(default=1.0, gt=0)
    """CPUs each Ray actor reserves (a host started with `ray start --num-cpus 4` takes 4
    workers)."""

    @pydantic.field_validator("ray_address")
    @classmethod
    def _ray_address(cls, value: str | None) -> str | None:
        if (
            value is None
            or value in ("auto", "local")
            or re.fullmatch(r"(ray://)?[\w.\-]+:\d{1,5}", value)
        ):
            return value
        raise ValueError("expected auto, local, ray://host:port or host:port")

    @pydantic.field_validator("tasks", "tags", "difficulty", mode="before")
    @classmethod
    def _split_names(cls, value: Any, info: pydantic.ValidationInfo) -> Any:
        """A comma-separated string (a flag) or a list. A string that names nothing (`,,,`) is
        a mistake, not "every task": only an empty list, or leaving the key out, means that."""
        if isinstance(value, str):
            names = [t.strip() for t in value.split(",") if t.strip()]
            if not names:
                what = {"tasks": "task", "tags": "tag", "difficulty": "difficulty"}
                purpose = "run" if info.field_name == "tasks" else "keep"
                raise ValueError(
                    f"names no {what[info.field_name]}; to {purpose} every task, leave it out "
                    "(in the file: [])"
                )
            return names
        if isinstance(value, list) and any(not str(t).strip() for t in value):
            raise ValueError(f"an empty name in {value!r}")
        return [] if value is None else value


class AgentConfiguration(BaseModel):
    """`registry_name` picks the factory; every other key is passed to it as a kwarg."""

    model_config = ConfigDict(extra="allow")

    registry_name: str

    def kwargs(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class AgentSection(_Strict):
    """`agent`: which agent runs, and each agent's keys."""

    active_agent: str = "celil_agent"
    """Which entry of `agent.configurations` runs (a registered agent name also works);
    `--agent`."""
    configurations: dict[str, AgentConfiguration] = {}
    """Per agent name: `registry_name` (the registered factory that builds it) and every other
    key, passed to that factory and validated against its schema."""


class CelilConfig(_Strict):
    """The whole run config (config/default.yaml)."""

    env: EnvConfig = EnvConfig()
    """The phone."""
    benchmark: BenchmarkConfig = BenchmarkConfig()
    """The tasks and the run."""
    models: ModelsConfig = ModelsConfig()
    """The model of each Celil role."""
    agent: AgentSection = AgentSection()
    """The agents."""


# --------------------------------------------------------------------------------------------
# Reading and overriding


def read_yaml(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file not found: {path} (pass --config with an existing file)")
    try:
        data = load_yaml(celil_yaml.read_text(path))
    except celil_yaml.ConfigTextError as exc:
        raise ConfigError(exc.located(str(path))) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise ConfigError(f"{path}{where}: {problem}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of sections")
    return data


def parse_set(item: str) -> tuple[list[str], Any]:
    """`a.b.c=value` -> (['a','b','c'], YAML-typed value); text that is not YAML stays text."""
    key, sep, raw = item.partition("=")
    path = key.strip().split(".")
    if not sep or not key.strip() or any(not p for p in path):
        raise ConfigError(f"--set {item!r}: expected dotted.key.path=value")
    try:
        item.encode("utf-8")
    except UnicodeEncodeError as exc:  # a byte the locale could not decode, kept as a surrogate
        raise ConfigError(
            f"--set {item!r}: not UTF-8 text (byte 0x{ord(item[exc.start]) & 0xFF:02x})"
        ) from None
    try:
        value = load_yaml(raw) if raw.strip() else ""
    except celil_yaml.DuplicateKeyError as exc:
        raise ConfigError(f"--set {item}: duplicate key {exc.path}; keep one") from None
    except (yaml.YAMLError, celil_yaml.ConfigTextError):
        value = raw
    return path, value


def apply_set(raw: dict[str, Any], path: list[str], value: Any, source: str) -> None:
    node = raw
    for depth, key in enumerate(path[:-1]):
        child = node.get(key)
        if child is None:
            child = node[key] = {}
        if not isinstance(child, dict):
            where = ".".join(path[: depth + 1])
            raise ConfigError(f"{source}: {where} is a value, not a section")
        node = child
    node[path[-1]] = value


def _model_at(loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The pydantic model that owns the last key of `loc`, for did-you-mean hints."""
    model: Any = CelilConfig
    for key in loc[:-1]:
        if model is None or not isinstance(model, type) or not issubclass(model, BaseModel):
            return None
        field = model.model_fields.get(str(key))
        if field is None:
            return None
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            model = annotation
        elif key == "configurations":
            return None
        else:
            args = getattr(annotation, "__args__", ())
            model = next(
                (a for a in args if isinstance(a, type) and issubclass(a, BaseModel)), None
            )
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


def _describe_error(err: dict[str, Any]) -> tuple[str, str]:
    loc = tuple(err.get("loc", ()))
    path = ".".join(str(p) for p in loc)
    if err.get("type") == "extra_forbidden":
        model = _model_at(loc)
        known = sorted(model.model_fields) if model else []
        close = difflib.get_close_matches(str(loc[-1]), known, n=1) if known else []
        hint = f"; did you mean {close[0]!r}?" if close else ""
        listing = f" (known keys: {', '.join(known)})" if known else ""
        return path, f"unknown key{hint}{listing}"
    msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
    if "input" in err and err.get("type") != "missing":
        shown = repr(err["input"])
        msg += f" (got {shown[:60]})"
    return path, msg


def validate(
    raw: dict[str, Any],
    file_label: str,
    set_items: list[str] = (),
    flag_sources: dict[str, str] | None = None,
) -> CelilConfig:
    try:
        return CelilConfig.model_validate(raw)
    except pydantic.ValidationError as exc:
        path, msg = _describe_error(exc.errors()[0])
        source = source_of(path, file_label, set_items, flag_sources)
        raise ConfigError(f"{source}: {path}: {msg}") from None


def source_of(
    path: str,
    file_label: str,
    set_items: list[str] = (),
    flag_sources: dict[str, str] | None = None,
) -> str:
    """Where the value at key `path` came from: the last `--set` touching it, else a flag, else
    the file; naming a file the user never touched for a typo in a flag sends them to the wrong
    place."""
    source = file_label
    for key, flag in (flag_sources or {}).items():
        if path == key or path.startswith(key + "."):
            source = flag
    for item in set_items:
        set_path = item.partition("=")[0].strip()
        if path == set_path or path.startswith(set_path + ".") or set_path.startswith(path + "."):
            source = f"--set {item}"
    return source


def override_sources(extra: list[tuple[Any, ...]] = ()) -> dict[str, str]:
    """Dotted key path -> the flag that set it, for `extra` items as `load_config` takes them."""
    return {
        ".".join(key_path): (label[0] if label else f"--{key_path[-1]}")
        for key_path, _value, *label in extra
    }


def load_config(
    path: str | Path,
    set_items: list[str] = (),
    extra: list[tuple[Any, ...]] = (),
) -> tuple[CelilConfig, dict[str, Any]]:
    """Read `path`, apply `extra` (flag overrides) then `--set` items, validate.

    Each `extra` item is (key path, value) or (key path, value, flag label); the label names the
    flag in errors. Returns the validated config and the merged raw dict.
    """
    raw = copy.deepcopy(read_yaml(path))
    flag_sources = override_sources(extra)
    for key_path, value, *_ in extra:
        apply_set(raw, key_path, value, flag_sources[".".join(key_path)])
    for item in set_items:
        key_path, value = parse_set(item)
        apply_set(raw, key_path, value, f"--set {item}")
    return validate(raw, str(path), list(set_items), flag_sources), raw


def resolve_agent(cfg: CelilConfig, registered: list[str]) -> tuple[str, str, dict[str, Any]]:
    """(configuration name, registry name, kwargs) of the active agent.

    A name with no configuration but a registered factory runs with no kwargs.
    """
    name = cfg.agent.active_agent
    conf = cfg.agent.configurations.get(name)
    if conf is not None:
        return name, conf.registry_name, conf.kwargs()
    if name in registered:
        return name, name, {}
    known = sorted(set(cfg.agent.configurations) | set(registered))
    close = difflib.get_close_matches(name, known, n=2, cutoff=0.5)
    hint = (" Did you mean " + " or ".join(repr(c) for c in close) + "?") if close else ""
    raise ConfigError(f"Unknown agent {name!r}.{hint} Known agents: {', '.join(known)}.")


# --------------------------------------------------------------------------------------------
# Writing


def redact(value: Any, key: str = "") -> Any:
    """A copy with secret-looking values removed; `*_env` keys name variables and are kept.

    The rules are the plugin's (celil_secrets), the one redaction for everything printed or
    written: secret-named keys (`api_key`, `x-api-key`, `Authorization`, ...), URL credentials,
    secret query parameters and registered keys."""
    return celil_secrets.redact_value(value, key)


def dump_yaml(cfg: CelilConfig) -> str:
    return yaml.safe_dump(
        redact(cfg.model_dump(mode="json")), sort_keys=False, default_flow_style=False
    )
