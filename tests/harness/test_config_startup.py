"""Config loading and start-up checks (issue 27 item 5, issue 31 items 4 and 6).

Every bad config is one line, exit 2, names the key the user set (file and path, or the flag),
and leaves no run directory; a configured model server that cannot be used stops the run before
any episode; the config is validated once and the validated models are what the agent is built
from.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import types
import typing
from pathlib import Path
from typing import Any

import celil_fakes as celil_fakes
import models_fakes as fakes
import numpy as np
import pydantic
import pytest
import yaml
from models_fakes import free_port_url, openai_ok

from android_world.agents import human_agent, random_agent, registry
from android_world.agents.custom import celil_startup, factory
from android_world.agents.custom.celil_model_config import (
    ModelsConfig,
    RoleModelConfig,
)
from android_world.env.representation_utils import BoundingBox, UIElement
from android_world.harness import check_models as check_models_lib
from android_world.harness import config as config_lib

ROOT = Path(__file__).resolve().parents[2]
TESTS = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "config" / "default.yaml"
CELIL = "agent.configurations.celil_agent"
server = fakes.fake_server
SCREEN = (
    np.full((2400, 1080, 3), 200, dtype=np.uint8),
    [UIElement(text="Save", is_clickable=True, bbox_pixels=BoundingBox(600, 1000, 1800, 1950))],
)

# --------------------------------------------------------------------------------------------------
# Every numeric key: NaN and infinity are refused, with the key's path
# --------------------------------------------------------------------------------------------------


def _numeric(annotation: Any) -> str | None:
    """'scalar' for an int/float field (optional included), 'tuple' for a tuple of floats."""
    if annotation in (int, float):
        return "scalar"
    origin = typing.get_origin(annotation)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if origin in (typing.Union, types.UnionType) and any(a in (int, float) for a in args):
        return "scalar"
    if origin is tuple and args and all(a is float for a in args):
        return "tuple"
    return None


def _numeric_keys(model: type[pydantic.BaseModel], prefix: str) -> list[tuple[str, str, int]]:
    """(dotted path, kind, tuple length) of every numeric key under `model`, nested sections too."""
    found = []
    for name, field in model.model_fields.items():
        annotation = field.annotation
        kind = _numeric(annotation)
        if kind:
            found.append((f"{prefix}{name}", kind, len(typing.get_args(annotation))))
            continue
        args = typing.get_args(annotation)
        if typing.get_origin(annotation) is dict:
            models = [a for a in args if isinstance(a, type) and issubclass(a, pydantic.BaseModel)]
            found += [k for m in models for k in _numeric_keys(m, f"{prefix}{name}.my-model.")]
            continue
        for sub in (annotation, *args):
            if isinstance(sub, type) and issubclass(sub, pydantic.BaseModel):
                found += _numeric_keys(sub, f"{prefix}{name}.")
                break
    return found


RUN_KEYS = _numeric_keys(config_lib.CelilConfig, "")
AGENT_KEYS = [("celil_agent", key) for key in _numeric_keys(factory.CelilAgentConfig, "")] + [
    (name, key)
    for name, model in (
        ("random_agent", random_agent.RandomAgentConfig),
        ("human_agent", human_agent.HumanAgentConfig),
    )
    for key in _numeric_keys(model, "")
]


def test_the_walk_finds_the_numeric_keys_it_must():
    paths = {path for path, _, _ in RUN_KEYS}
    assert {"models.maestro.temperature", "models.prices.my-model.input_per_mtok"} <= paths
    assert {"benchmark.ray_num_cpus", "env.adb.emulator.boot_timeout_sec"} <= paths
    assert ("celil_agent", ("weights", "tuple", 3)) in AGENT_KEYS


def _bad(kind: str, length: int, value: float) -> str:
    """The YAML text of `value` for a key of `kind` (a tuple gets it in its first place)."""
    text = ".nan" if math.isnan(value) else ".inf"
    return f"[{', '.join([text] + ['1'] * (length - 1))}]" if kind == "tuple" else text


@pytest.mark.parametrize("value", [math.nan, math.inf], ids=["nan", "inf"])
@pytest.mark.parametrize(("path", "kind", "length"), RUN_KEYS, ids=[k[0] for k in RUN_KEYS])
def test_every_run_config_number_refuses_nan_and_infinity(path, kind, length, value):
    item = f"{path}={_bad(kind, length, value)}"
    with pytest.raises(config_lib.ConfigError) as caught:
        config_lib.load_config(DEFAULT, [item])
    message = str(caught.value)
    assert message.startswith(f"--set {item}: {path}") and "\n" not in message


@pytest.mark.parametrize("value", [math.nan, math.inf], ids=["nan", "inf"])
@pytest.mark.parametrize(("agent", "key"), AGENT_KEYS, ids=[f"{a}.{k[0]}" for a, k in AGENT_KEYS])
def test_every_agent_number_refuses_nan_and_infinity(agent, key, value):
    path, kind, length = key
    raw = yaml.safe_load(_bad(kind, length, value))
    with pytest.raises(registry.AgentConfigError) as caught:
        registry.validate_kwargs(agent, {path: raw})
    assert caught.value.path.startswith(path), caught.value


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("models.maestro.temperature=-1", "models.maestro.temperature: Input should be greater"),
        ("models.maestro.temperature=7", "models.maestro.temperature: Input should be less"),
        ("models.maestro.timeout_s=0", "models.maestro.timeout_s: Input should be greater than 0"),
        ("models.verifiers.max_retries=-1", "models.verifiers.max_retries"),
        ("models.verifiers.retry_initial_delay_s=-2", "models.verifiers.retry_initial_delay_s"),
        ("models.maestro.thinking_budget=-5", "models.maestro.thinking_budget"),
        ("models.probe_timeout_s=0", "models.probe_timeout_s"),
        ("models.prices.m.input_per_mtok=-1", "models.prices.m.input_per_mtok"),
        ("benchmark.workers=0", "benchmark.workers: Input should be greater than or equal to 1"),
        ("benchmark.ray_num_cpus=0", "benchmark.ray_num_cpus"),
        ("benchmark.transition_pause=-0.1", "benchmark.transition_pause"),
        ("env.adb.timeout_sec=-3", "env.adb.timeout_sec"),
        ("env.adb.console_port=70000", "env.adb.console_port"),
    ],
)
def test_out_of_range_numbers_are_one_line_errors_naming_the_key(item, message):
    with pytest.raises(config_lib.ConfigError) as caught:
        config_lib.load_config(DEFAULT, [item])
    assert str(caught.value).startswith(f"--set {item}: ")
    assert message in str(caught.value) and "\n" not in str(caught.value), caught.value


def _agent_error(**kwargs: Any) -> registry.AgentConfigError:
    with pytest.raises(registry.AgentConfigError) as caught:
        registry.validate_kwargs("celil_agent", kwargs)
    return caught.value


def test_agent_numbers_out_of_range_name_the_key():
    assert _agent_error(weights=[math.nan, 1, 1]).path == "weights.0"
    assert _agent_error(weights=[-1, 1, 1]).path == "weights"
    assert _agent_error(threshold=-0.5).path == "threshold"
    assert _agent_error(unparseable_vote_score=12).path == "unparseable_vote_score"
    assert _agent_error(max_rehearsals=-1).path == "max_rehearsals"
    assert _agent_error(memory_reuse_similarity=1.5).path == "memory_reuse_similarity"
    assert _agent_error(transition_pause=-1).path == "transition_pause"
    assert _agent_error(weights=[0, 0, 0]).path == "weights"
    assert _agent_error(threshold=10.5).path == "threshold"
    assert _agent_error(loop_repeat_limit=1).path == "loop_repeat_limit"
    assert _agent_error(max_image_pixels=10).path == "max_image_pixels"


def test_thresholds_out_of_order_are_refused_not_raised():
    error = _agent_error(threshold=7.0, irreversible_threshold=5.0)
    assert error.path == "irreversible_threshold"
    assert "threshold" in error.message and "7" in error.message
    ok = registry.validate_kwargs("celil_agent", {"threshold": 6, "irreversible_threshold": 6})
    assert ok.irreversible_threshold == ok.threshold == 6


def test_unknown_persona_names_are_refused_with_a_suggestion():
    error = _agent_error(persona_prompts={"Skeptik": "be harsh"})
    assert error.path == "persona_prompts.Skeptik"
    assert "did you mean 'Skeptic'?" in error.message
    assert "Pragmatist, Skeptic, Efficiency Expert" in error.message
    ok = registry.validate_kwargs("celil_agent", {"persona_prompts": {"Skeptic": "be harsh"}})
    assert ok.persona_prompts == {"Skeptic": "be harsh"}


# --------------------------------------------------------------------------------------------------
# Files: UTF-8 only, no duplicate keys
# --------------------------------------------------------------------------------------------------


def test_a_non_utf8_byte_is_one_line_naming_file_line_and_key(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_bytes(b"env:\n  seed: 0\n  type: sim  # caf\xe9\n")
    with pytest.raises(config_lib.ConfigError) as caught:
        config_lib.load_config(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:3: env.type: ") and "\n" not in message
    assert "not UTF-8" in message and "0xe9" in message


def test_a_non_utf8_byte_in_a_set_item_is_refused():
    item = "models.maestro.model=caf\udce9"  # how Python hands over an undecodable argv byte
    with pytest.raises(config_lib.ConfigError, match="not UTF-8 text \\(byte 0xe9\\)"):
        config_lib.load_config(DEFAULT, [item])


def test_the_plugin_reads_non_utf8_files_as_one_line_too(tmp_path):
    path = tmp_path / "celil.yaml"
    path.write_bytes(b"celil_agent:\n  ocr: \xff\n")
    with pytest.raises(factory.CelilSetupError) as caught:
        factory.load_config(path)
    assert "not UTF-8" in str(caught.value) and "celil_agent.ocr" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            "benchmark:\n  workers: 1\nmodels: {}\nbenchmark:\n  workers: 2\n",
            ":4: duplicate key benchmark",
        ),
        ("env:\n  seed: 1\n  render: true\n  seed: 2\n", ":4: duplicate key env.seed"),
        (
            "agent:\n  configurations:\n    celil_agent:\n      registry_name: celil_agent\n"
            "      threshold: 5\n      threshold: 9\n",
            ":6: duplicate key agent.configurations.celil_agent.threshold",
        ),
        (
            "models:\n  prices: {m: {input_per_mtok: 1, input_per_mtok: 2}}\n",
            "prices.m.input_per_mtok",
        ),
    ],
)
def test_duplicate_keys_at_any_level_are_refused(tmp_path, text, where):
    path = tmp_path / "dup.yaml"
    path.write_text(text)
    with pytest.raises(config_lib.ConfigError) as caught:
        config_lib.load_config(path)
    message = str(caught.value)
    assert message.startswith(str(path)) and where in message and "\n" not in message
    assert "first" in message  # where the first one is


def test_duplicate_keys_in_a_set_value_are_refused():
    item = "models.maestro={backend: openai, backend: gemini}"
    with pytest.raises(config_lib.ConfigError) as caught:
        config_lib.load_config(DEFAULT, [item])
    assert str(caught.value).startswith(f"--set {item}: ") and "duplicate key backend" in str(
        caught.value
    )


def test_the_plugin_refuses_duplicate_keys_too(tmp_path):
    path = tmp_path / "celil.yaml"
    path.write_text("celil_agent:\n  ocr: off\ncelil_agent:\n  ocr: always\n")
    with pytest.raises(factory.CelilSetupError, match="duplicate key celil_agent"):
        factory.load_config(path)


def test_merge_keys_and_repeated_anchors_are_not_duplicates(tmp_path):
    path = tmp_path / "merge.yaml"
    path.write_text(
        "models:\n  maestro: &role {backend: offline, timeout_s: 30}\n"
        "  verifiers: {<<: *role, timeout_s: 10}\n  section_leader: *role\n"
    )
    cfg, _ = config_lib.load_config(path)
    assert cfg.models.verifiers.timeout_s == 10 and cfg.models.section_leader.timeout_s == 30


# --------------------------------------------------------------------------------------------------
# Task lists
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["tasks", "tags", "difficulty"])
@pytest.mark.parametrize("value", [",,,", "", " , "])
def test_a_flag_naming_nothing_is_an_error_not_the_whole_suite(flag, value):
    with pytest.raises(config_lib.ConfigError) as caught:
        config_lib.load_config(DEFAULT, [], [(["benchmark", flag], value, f"--{flag}")])
    assert str(caught.value).startswith(f"--{flag}: benchmark.{flag}: ")
    assert "names no" in str(caught.value)


def test_an_empty_list_in_the_file_still_means_every_task():
    cfg, _ = config_lib.load_config(DEFAULT, ["benchmark.tasks=[]"])
    assert cfg.benchmark.tasks == []
    cfg, _ = config_lib.load_config(DEFAULT, [], [(["benchmark", "tasks"], " A, B ", "--tasks")])
    assert cfg.benchmark.tasks == ["A", "B"]


# --------------------------------------------------------------------------------------------------
# One spelling of the model key
# --------------------------------------------------------------------------------------------------


def test_model_is_the_key_and_openai_model_an_alias():
    assert "openai_model" not in RoleModelConfig.model_fields
    role = RoleModelConfig.model_validate({"backend": "openai", "openai_model": "m"})
    assert role.model == "m"
    settings = ModelsConfig(maestro=role, openai_base_url="http://h/v1").role_settings("maestro")
    assert settings.model_for("openai") == "m"
    auto = ModelsConfig(maestro=RoleModelConfig.model_validate({"openai_model": "m"}))
    assert auto.role_settings("maestro").model_for("openai") == "m"  # auto on openai: as before
    assert RoleModelConfig.model_validate({"model": "m", "openai_model": "m"}).model == "m"
    # A run directory's config.yaml from before wrote `openai_model: ''` beside `model`.
    assert RoleModelConfig.model_validate({"model": "m", "openai_model": ""}).model == "m"
    with pytest.raises(pydantic.ValidationError, match="openai_model"):
        RoleModelConfig.model_validate({"model": "a", "openai_model": "b"})
    cfg, _ = config_lib.load_config(DEFAULT, ["models.maestro.openai_model=m"])
    assert cfg.models.maestro.model == "m"
    assert "openai_model" not in config_lib.dump_yaml(cfg)


def test_default_yaml_carries_a_commented_openai_example_that_validates():
    """Uncommented, the example points every role at one OpenAI-compatible server."""
    lines = DEFAULT.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("# models:"))
    block = []
    for line in lines[start:]:
        if not line.startswith("#"):
            break
        block.append(line[2:] if line.startswith("# ") else line[1:])
    data = yaml.safe_load("\n".join(block))
    models = ModelsConfig.model_validate(data["models"])
    assert models.openai_base_url and "openai_model" not in "\n".join(block)
    for role in ("maestro", "section_leader", "verifiers"):
        assert models.role_config(role).backend == "openai"
        assert models.role_config(role).model
    text = "\n".join(lines)
    assert "vLLM" in text and "llama.cpp" in text


def test_the_grounding_fix_never_names_ollama_model_for_an_openai_role(server):
    server.route("POST", "/chat/completions", [openai_ok("OK")])
    server.route("GET", "/models", [(200, {"data": [{"id": "m"}]})])
    offline = RoleModelConfig(backend="offline")
    models = ModelsConfig(
        maestro=offline,
        verifiers=offline,
        section_leader=RoleModelConfig(backend="openai", model="m", max_retries=0),
        openai_base_url=f"{server.url}/v1",
    )
    rows = check_models_lib.run_checks(models, screen=SCREEN)
    grounding = next(r for r in rows if r.check == "grounding")
    assert grounding.status == "FAIL"
    assert "models.section_leader.model" in grounding.fix and "ollama_model" not in grounding.fix


# --------------------------------------------------------------------------------------------------
# Validated once
# --------------------------------------------------------------------------------------------------


def test_agent_keys_are_validated_once_and_the_model_is_passed_on(monkeypatch):
    calls = []
    original = factory.CelilAgentConfig.model_validate.__func__

    def counting(cls, *args, **kwargs):
        calls.append(args)
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(factory.CelilAgentConfig, "model_validate", classmethod(counting))
    params = registry.validate_kwargs("celil_agent", {"ocr": "off", "memory": "off"})
    assert isinstance(params, factory.CelilAgentConfig)
    offline = RoleModelConfig(backend="offline")
    context = registry.RunContext(
        models=ModelsConfig(maestro=offline, section_leader=offline, verifiers=offline),
        log=lambda _line: None,
    )
    agent = registry.get_agent(
        "celil_agent", celil_fakes.FakePhone(), context=context, params=params
    )
    assert len(calls) == 1
    assert agent.manifest_info["config"] == params.model_dump(mode="json")


# --------------------------------------------------------------------------------------------------
# The command line: exit 2, one line, no run directory
# --------------------------------------------------------------------------------------------------

DRIVER = """
import sys
import harness_fakes as fakes
from android_world.harness import run
run.task_registry = lambda family: dict(fakes.TASKS)
run.make_env = lambda cfg: fakes.FakeEnv()


def broken(env, context, **kwargs):
    raise registry.AgentConfigError("broken_agent", "", "cannot start: no such device")


from android_world.agents import registry
registry.register("broken_agent", broken)
run.run_cli(sys.argv)
"""


def _run(tmp_path: Path, *args: str, config: Path = DEFAULT, **env: str):
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    environ = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    # The driver imports the fakes in tests/ (pytest's pythonpath does not reach a child).
    environ.update(
        PYTHONPATH=os.pathsep.join([str(ROOT), str(TESTS)]), OLLAMA_HOST=free_port_url(), **env
    )
    output = tmp_path / "runs"
    done = subprocess.run(
        [sys.executable, str(script), "--config", str(config), "--output_path", str(output), *args],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
    run_dirs = list(output.iterdir()) if output.is_dir() else []
    return done, run_dirs


def _config(tmp_path: Path, old: str, new: str) -> Path:
    text = DEFAULT.read_text()
    assert old in text
    path = tmp_path / "c.yaml"
    path.write_bytes(text.replace(old, new, 1).encode("utf-8", "surrogateescape"))
    return path


def _one_line_exit_2(done, run_dirs) -> str:
    assert done.returncode == 2, done.stdout[-800:] + done.stderr[-800:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr and not run_dirs
    assert not re.search(r"\bscore \d", done.stdout + done.stderr)  # no episode ran
    return lines[0]


ROLES_ON = "models:\n  maestro:\n    backend: auto\n  section_leader:\n    backend: auto\n  verifiers:\n    backend: auto"


def _every_role_openai(url: str | None) -> str:
    shared = f"  openai_base_url: {url!r}\n" if url is not None else ""
    roles = "".join(
        f"  {role}: {{backend: openai, model: my-model, max_retries: 0}}\n"
        for role in ("maestro", "section_leader", "verifiers")
    )
    return f"models:\n{shared}{roles}".rstrip("\n")


@pytest.mark.parametrize(
    ("old", "new", "args", "expected"),
    [
        ("  seed: 0 ", "  seed: 0 # caf\udce9", [], ":6: env.seed: not UTF-8 text (byte 0xe9"),
        (
            "weights: [0.4, 0.5, 0.1]",
            "weights: [.nan, 1, 1]",
            ["--models", "offline"],
            f"c.yaml: {CELIL}.weights.0: Input should be a finite number",
        ),
        (
            "irreversible_threshold: 8.5",
            "irreversible_threshold: 5.0",
            ["--models", "offline"],
            f"c.yaml: {CELIL}.irreversible_threshold: ",
        ),
        (
            "persona_prompts: {}",
            "persona_prompts: {Skeptik: be harsh}",
            ["--models", "offline"],
            f"c.yaml: {CELIL}.persona_prompts.Skeptik: unknown persona",
        ),
        (
            "\nmodels:\n",
            "\nbenchmark:\n  n_task_combinations: 2\nmodels:\n",
            [],
            "duplicate key benchmark (first on line ",
        ),
        ("  seed: 0 ", "  seed: 1\n  seed: 0 ", [], ":7: duplicate key env.seed (first on line 6)"),
        ("env:", "env:", ["--tasks", ",,,"], "--tasks: benchmark.tasks: names no task"),
    ],
    ids=[
        "non-utf8",
        "nan-weights",
        "thresholds-order",
        "persona",
        "dup-top",
        "dup-nested",
        "no-tasks",
    ],
)
def test_bad_config_on_the_command_line(tmp_path, old, new, args, expected):
    done, run_dirs = _run(tmp_path, *args, config=_config(tmp_path, old, new))
    line = _one_line_exit_2(done, run_dirs)
    assert expected in line, line


def test_openai_without_a_url_names_the_backend_key_not_another_flag(tmp_path):
    config = _config(tmp_path, ROLES_ON, _every_role_openai(None))
    done, run_dirs = _run(tmp_path, "--set", f"{CELIL}.ocr=off", config=config)
    line = _one_line_exit_2(done, run_dirs)
    assert line.startswith(f"error: {config}: models.maestro.backend: "), line
    assert "models.openai_base_url" in line and "ocr" not in line
    done, run_dirs = _run(
        tmp_path, "--set", "models.maestro.backend=openai", "--set", f"{CELIL}.ocr=off"
    )
    line = _one_line_exit_2(done, run_dirs)
    assert line.startswith("error: --set models.maestro.backend=openai: models.maestro"), line


def test_openai_with_a_malformed_url_is_refused_before_any_call(tmp_path):
    config = _config(tmp_path, ROLES_ON, _every_role_openai("127.0.0.1:8000/v1"))
    done, run_dirs = _run(tmp_path, config=config)
    line = _one_line_exit_2(done, run_dirs)
    assert line.startswith(f"error: {config}: models.openai_base_url: "), line
    assert "http://" in line  # how to write it


def test_a_dead_explicit_server_stops_the_run_before_any_episode(tmp_path):
    dead = free_port_url().replace("http://", "http://user:s3cret@") + "/v1?key=abc123"
    config = _config(tmp_path, ROLES_ON, _every_role_openai(dead))
    done, run_dirs = _run(tmp_path, config=config)
    line = _one_line_exit_2(done, run_dirs)
    assert line.startswith(f"error: {config}: models.openai_base_url: maestro"), line
    assert "s3cret" not in done.stderr + done.stdout and "abc123" not in done.stderr + done.stdout
    assert "127.0.0.1" in line and "start" in line and "vllm serve my-model" in line


def test_a_server_not_serving_the_model_stops_the_run(tmp_path, server):
    server.route("GET", "/models", [(200, {"data": [{"id": "other-model"}]})])
    config = _config(tmp_path, ROLES_ON, _every_role_openai(f"{server.url}/v1"))
    done, run_dirs = _run(tmp_path, config=config)
    line = _one_line_exit_2(done, run_dirs)
    assert "does not serve 'my-model'" in line and "other-model" in line
    assert not server.calls("/chat/completions")


def test_a_live_port_without_an_openai_api_stops_the_run(tmp_path, server):
    """The wrong URL that used to get through: something answers on the port, but neither a
    model list nor a chat endpoint (a missing /v1, another service). It ran the benchmark on the
    planner's fallback plan and the offline executor and only the end said every call failed."""
    config = _config(tmp_path, ROLES_ON, _every_role_openai(f"{server.url}/v1"))
    done, run_dirs = _run(tmp_path, config=config)
    line = _one_line_exit_2(done, run_dirs)
    assert line.startswith(f"error: {config}: models.openai_base_url: maestro"), line
    assert "has no OpenAI-compatible API" in line and "/v1" in line
    assert server.calls("/models") and "ollama_model" not in line


def test_a_minimal_server_with_only_a_chat_endpoint_is_taken_as_up(server):
    """No model list, but the chat endpoint refuses an empty request as a bad one: a real server
    that nothing was loaded or paid on; its first call tells the rest."""
    server.route("POST", "/chat/completions", [(400, {"error": {"message": "missing messages"}})])
    assert celil_startup.openai_server_problem(f"{server.url}/v1", "m", None, 2.0) is None
    [probe] = server.calls("/chat/completions")
    assert probe["body"] == {}


def test_a_web_page_where_the_model_list_should_be_is_refused(server):
    server.route("GET", "/models", [(200, "<html>a dashboard</html>")])
    server.route("POST", "/chat/completions", [(405, {"detail": "Method Not Allowed"})])
    what, fix = celil_startup.openai_server_problem(f"{server.url}/v1", "m", None, 2.0)
    assert "no OpenAI-compatible API" in what and "HTTP 405" in what and fix == "url"


def test_an_explicit_ollama_that_is_down_stops_the_run(tmp_path):
    done, run_dirs = _run(
        tmp_path,
        "--set",
        "models.section_leader.backend=ollama",
        "--set",
        f"models.ollama_host={free_port_url()}",
    )
    line = _one_line_exit_2(done, run_dirs)
    assert line.startswith("error: --set models.ollama_host=") and "section_leader" in line
    assert "ollama serve" in line


def test_an_explicit_gemini_without_a_key_stops_the_run(tmp_path):
    done, run_dirs = _run(tmp_path, "--set", "models.verifiers.backend=gemini")
    line = _one_line_exit_2(done, run_dirs)
    assert line.startswith("error: --set models.verifiers.backend=gemini: models.verifiers")
    assert "GOOGLE_API_KEY" in line


def test_a_failure_while_building_the_agent_leaves_no_run_directory(tmp_path):
    """The start-up checks come first; what only building the agent finds still leaves no run
    directory with an empty report behind."""
    done, run_dirs = _run(tmp_path, "--agent", "broken_agent")
    assert done.returncode == 2 and not run_dirs, done.stderr
    assert done.stderr.strip().splitlines()[-1].endswith("cannot start: no such device")
    assert (tmp_path / "runs").is_dir()  # only the run directory is removed


def test_a_memory_file_that_cannot_be_used_stops_the_run_at_start_up(tmp_path):
    done, run_dirs = _run(
        tmp_path,
        "--models",
        "offline",
        "--set",
        f"{CELIL}.memory=frozen",
        "--set",
        f"{CELIL}.episodic_memory_path={tmp_path / 'missing.json'}",
    )
    line = _one_line_exit_2(done, run_dirs)
    assert "memory" in line


def test_check_models_with_no_model_says_so_and_does_not_pass(tmp_path):
    done, _ = _run(tmp_path, "--check_models")
    assert done.returncode == check_models_lib.EXIT_NO_MODEL, done.stdout + done.stderr
    assert "no model" in done.stdout
    done, _ = _run(tmp_path, "--check_models", "--models", "offline")
    assert done.returncode == check_models_lib.EXIT_NO_MODEL


def test_the_plugin_checks_an_explicit_server_before_building_the_agent():
    """Upstream's run.py path (factory.create_agent) fails as the harness does."""
    dead = free_port_url() + "/v1"
    config = {
        "models": {
            "openai_base_url": dead,
            "maestro": {"backend": "openai", "model": "my-model"},
            "section_leader": {"backend": "offline"},
            "verifiers": {"backend": "offline"},
        },
        "celil_agent": {"ocr": "off", "memory": "off"},
    }
    with pytest.raises(factory.CelilSetupError) as caught:
        factory.create_agent(celil_fakes.FakePhone(), config)
    assert caught.value.path == "models.openai_base_url"
    assert "maestro" in caught.value.message and "not reachable" in caught.value.message
