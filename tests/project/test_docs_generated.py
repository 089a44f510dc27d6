"""The docs that are facts of the code: generated, checked for staleness, and the README's first
facts taken from the registry, not from memory."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import time
import typing
from pathlib import Path

import pytest
import yaml

from android_world import docs_gen
from android_world.harness.model_config import ModelsConfig, RoleModelConfig

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"


def test_generated_docs_are_current():
    """If this fails: python -m android_world.docs_gen (and commit the docs)."""
    assert docs_gen.main(["--check"]) == 0


def test_check_finds_a_stale_file_and_a_rewrite_fixes_it(tmp_path, capsys):
    for name in ("TASKS.md", "CONFIG.md", "MODEL_CONTRACT.md"):
        shutil.copy(DOCS / name, tmp_path / name)
    assert docs_gen.main(["--check", "--docs", str(tmp_path)]) == 0
    config = tmp_path / "CONFIG.md"
    config.write_text(config.read_text().replace("| `threshold` | float | `7.0` |", "| x |", 1))
    (tmp_path / "TASKS.md").unlink()
    assert docs_gen.main(["--check", "--docs", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "CONFIG.md" in err and "TASKS.md" in err and "stale" in err
    assert docs_gen.main(["--docs", str(tmp_path)]) == 0
    assert docs_gen.main(["--check", "--docs", str(tmp_path)]) == 0
    assert (tmp_path / "CONFIG.md").read_text() == (DOCS / "CONFIG.md").read_text()


def test_a_file_without_its_markers_is_an_error_not_a_rewrite(tmp_path, capsys):
    for name in ("TASKS.md", "CONFIG.md", "MODEL_CONTRACT.md"):
        shutil.copy(DOCS / name, tmp_path / name)
    (tmp_path / "CONFIG.md").write_text("# hand-written only\n")
    assert docs_gen.main(["--docs", str(tmp_path)]) == 2
    assert "markers" in capsys.readouterr().err
    assert (tmp_path / "CONFIG.md").read_text() == "# hand-written only\n"


def test_every_config_field_has_a_description():
    from android_world.harness import config as config_lib

    missing = [
        key for key, _, _, text in docs_gen.config_rows(config_lib.CelilConfig, "") if not text
    ]
    for name, model in docs_gen._agent_models():
        rows = docs_gen.config_rows(model, f"agent.configurations.{name}.")
        missing += [key for key, _, _, text in rows if not text]
    assert missing == [], "add a docstring under each field"


def test_type_names_read_like_the_yaml():
    assert docs_gen.type_name(typing.Literal["a", "b"]) == "a \\| b"
    assert docs_gen.type_name(str | None) == "str \\| null"
    assert docs_gen.type_name(list[str]) == "list[str]"
    assert docs_gen.type_name(bool | typing.Literal["auto"]) == "bool \\| auto"


def test_task_table_marks_only_the_sim_prefixed_task_as_ours():
    table = (DOCS / "TASKS.md").read_text(encoding="utf-8")
    own = re.findall(r"^\| `(\w+)` \| [^|]* \| \*own\* \|", table, re.MULTILINE)
    upstream = re.findall(r"^\| `(\w+)` \| [^|]* \| upstream \|", table, re.MULTILINE)
    facts = docs_gen.task_facts()
    assert len(own) == facts["own"] and all(name.startswith("Sim") for name in own)
    assert len(upstream) == facts["upstream"]
    assert any(name.startswith("SimpleCalendar") for name in upstream)
    assert any(name.startswith("SimpleSms") for name in upstream)


def test_readme_first_facts_come_from_the_code():
    facts = docs_gen.task_facts()
    apps, tasks = map(int, re.search(r"with (\d+) apps and (\d+) tasks", README).groups())
    assert (apps, tasks) == (facts["apps"], facts["tasks"])
    upstream, own = map(
        int,
        re.search(
            r"\((\d+) tasks named after upstream's templates, (\d+) of our own\)", README
        ).groups(),
    )
    assert (upstream, own) == (facts["upstream"], facts["own"])
    assert f"upstream's {facts['upstream_templates']} templates" in README


def test_readme_is_a_door():
    lines = README.splitlines()
    assert len(lines) <= 300
    assert "./run_benchmark.sh" in README and "./run_tests.sh" in README
    three_steps = next(i for i, line in enumerate(lines) if line == "## A model in three steps")
    assert three_steps < 80
    for step in ("--check_models", "openai_base_url", "backend: openai"):
        assert step in "\n".join(lines[three_steps : three_steps + 45])
    linked = set(re.findall(r"docs/[\w/.-]+\.(?:md|py)", README))
    assert {"docs/INDEX.md", "docs/CONFIG.md", "docs/MODEL_CONTRACT.md"} <= linked
    assert [path for path in linked if not (ROOT / path).is_file()] == []


def test_readme_quick_start_config_is_valid():
    from android_world.harness import config as config_lib

    blocks = [b.split("```", 1)[0] for b in README.split("```yaml\n")[1:]]
    (block,) = [b for b in blocks if b.startswith("# my_models.yaml")]
    data = yaml.safe_load(block)
    loaded = config_lib.CelilConfig.model_validate(data)
    for role in ("maestro", "section_leader", "verifiers"):
        assert loaded.models.role_settings(role).backend == "openai"


def test_every_docs_page_is_in_the_index():
    index = (DOCS / "INDEX.md").read_text(encoding="utf-8")
    pages = [p.name for p in DOCS.glob("*.md") if p.name != "INDEX.md"]
    assert [name for name in pages if f"({name})" not in index] == []
    assert "(examples/minimal_server.py)" in index


def _commented_model_example() -> str:
    text = (ROOT / "config" / "default.yaml").read_text(encoding="utf-8")
    lines = text.splitlines()
    start = lines.index("# models:")
    block = []
    for line in lines[start:]:
        if not line.startswith("#"):
            break
        block.append(line[2:])
    return "\n".join(block)


@pytest.mark.parametrize("key", ["model", "openai_model"])
def test_default_yaml_example_serves_every_role_under_either_model_key(key):
    """`model` is the key; `openai_model` is its alias and must keep working."""
    example = _commented_model_example()
    if key != "model":
        example = re.sub(r"\bmodel:", f"{key}:", example)
    models = ModelsConfig.model_validate(yaml.safe_load(example)["models"])
    assert models.roles() == ["maestro", "section_leader", "verifiers", "vision_fallback"]
    for role in models.roles():
        settings = models.role_settings(role)
        assert settings.backend == "openai" and settings.model, role
    assert models.role_settings("section_leader").base_url == "http://127.0.0.1:8001/v1"
    assert "openai_model" not in RoleModelConfig.model_fields


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def example_server():
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, str(DOCS / "examples" / "minimal_server.py"), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.1)
    yield f"http://127.0.0.1:{port}/v1"
    server.terminate()
    server.wait(timeout=10)


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "android_world.harness.run", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(cwd)},
    )


def test_the_contract_is_enough_for_the_example_server(example_server, tmp_path):
    """docs/examples/minimal_server.py, written from docs/MODEL_CONTRACT.md alone, is accepted by
    every role: each request shape passes --check_models and a run has no failed or unusable call."""
    config = tmp_path / "my_models.yaml"
    roles = {
        role: {"backend": "openai", "model": "my-model"}
        for role in ("maestro", "section_leader", "verifiers")
    }
    config.write_text(
        yaml.safe_dump(
            {
                "models": {"openai_base_url": example_server, **roles},
                "agent": {
                    "configurations": {
                        "celil_agent": {"registry_name": "celil_agent", "executor_format": "json"}
                    }
                },
            }
        )
    )
    checked = _run(["--config", str(config), "--check_models", "--wide"], tmp_path)
    rows = {tuple(line.split()[:3]) for line in checked.stdout.splitlines()}
    for role, check in (
        ("maestro", "run-shape"),
        ("verifiers", "run-shape"),
        ("section_leader", "ping"),
    ):
        assert (role, check, "PASS") in rows, checked.stdout + checked.stderr
    ran = _run(
        [
            "--config",
            str(config),
            "--tasks",
            "SystemWifiTurnOn",
            "--output_path",
            str(tmp_path / "runs"),
        ],
        tmp_path,
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    (results,) = (tmp_path / "runs").glob("run_*/results.jsonl")
    (row,) = [json.loads(line) for line in results.read_text().splitlines()]
    assert row["calls"] > 0 and row["model_errors"] == 0 and row["unusable_answers"] == 0
    assert row["claimed"] == "infeasible"  # the example server's executor gives up, as written
