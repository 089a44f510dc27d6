"""One redaction for every printed or written URL and error (issue 27, DESIGN §4).

The unit tests pin what the one `redact` removes; the end-to-end test runs every output path
(a serial run and a `--workers 2` run whose model calls fail against credentialed URLs on
127.0.0.1, `--check_models`, `--dry_run` and the report tools) and searches every written file
and all console output for the password and the keys: 0 hits.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import models_fakes as fakes
import pytest
from models_fakes import openai_error

from android_world.agents.custom import celil_secrets as secrets
from android_world.agents.custom.celil_secrets import redact
from android_world.harness import config

ROOT = Path(__file__).resolve().parents[2]
R = secrets.REDACTED


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("http://alice:pw1@127.0.0.1:8000/v1", f"http://{R}@127.0.0.1:8000/v1"),
        ("https://tok@host/x and http://h/y", f"https://{R}@host/x and http://h/y"),
        ("http://u:p@ss@host/v1", f"http://{R}@host/v1"),  # an unencoded @ in the password
        ("https://g.example/v1?alt=sse&key=AIzaX#f", f"https://g.example/v1?alt=sse&key={R}#f"),
        ("http://h/v1?api_key=k1&x=1", f"http://h/v1?api_key={R}&x=1"),
        ("http://h/p?access_token=t1", f"http://h/p?access_token={R}"),
        ("http://h/p?token=t1", f"http://h/p?token={R}"),
        ("http://h/b?sig=s1&se=2", f"http://h/b?sig={R}&se=2"),
        ("http://h/b?X-Amz-Signature=s1", f"http://h/b?X-Amz-Signature={R}"),
        ("http://h/b?client_secret=s1", f"http://h/b?client_secret={R}"),
        ("<a href='http://h/?a=1&amp;key=k1'>", f"<a href='http://h/?a=1&amp;key={R}'>"),
        ('{"url": "http://h/v1?key=k1"}', f'{{"url": "http://h/v1?key={R}"}}'),
        ("invalid api_key=sk-1 given", f"invalid api_key={R} given"),
        ("Authorization: Bearer abc.def-123", f"Authorization: Bearer {R}"),
        ("header 'Authorization': 'Basic YWxpY2U6cHc='", f"header 'Authorization': 'Basic {R}'"),
        ("got bearer sk-proj-abcdef", f"got bearer {R}"),
        ("configured (http://h/v1?key=k1)", f"configured (http://h/v1?key={R})"),
        # Left alone: ordinary URLs, e-mail addresses, usage numbers, env-variable names.
        ("http://127.0.0.1:8000/v1/models", "http://127.0.0.1:8000/v1/models"),
        ("mail bob@example.com", "mail bob@example.com"),
        ("max_output_tokens=2048 prompt_tokens: 30", "max_output_tokens=2048 prompt_tokens: 30"),
        ("api_key_env=OPENAI_API_KEY", "api_key_env=OPENAI_API_KEY"),
        ("the key: press Enter", "the key: press Enter"),
    ],
)
def test_redact(text, expected):
    assert secrets.redact(text) == expected


def test_redacting_twice_changes_nothing_more():
    text = "Authorization: Basic YWxp; Bearer t0k; http://u:p@h/?key=k&sig=s; api_key=x"
    once = secrets.redact(text)
    assert secrets.redact(once) == once and "Basic" in once and "Bearer" in once


def test_registered_and_environment_keys_are_removed(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "gk-ENV-777")
    secrets.register_secret("reg-SECRET-xyz")
    assert secrets.redact("a gk-ENV-777 b reg-SECRET-xyz") == f"a {R} b {R}"


def test_there_is_one_redaction():
    assert redact is secrets.redact
    assert config.REDACTED == R
    url = "http://u:pw@h/v1?key=k"
    assert config.redact({"base_url": url}) == {"base_url": secrets.redact(url)}
    assert config.redact({"api_key": "x", "api_key_env": "K"}) == {"api_key": R, "api_key_env": "K"}


def test_redaction_is_linear_on_hostile_text():
    # 1 MB each of what could make a backtracking pattern quadratic; a quadratic one takes hours.
    hostile = [
        "://" + "a" * 1_000_000,
        "&" + "a_" * 500_000,
        "?" + "x-" * 500_000 + "key",
        "://" + ":" * 1_000_000 + "@",
        "Bearer " * 150_000,
        "authorization: " * 70_000,
        ("http://h/?" + "key=" * 10) * 20_000,
        "a_b= " * 200_000,
        "sk-" * 330_000,
    ]
    for text in hostile:
        started = time.perf_counter()
        secrets.redact(text)
        assert time.perf_counter() - started < 2.0, text[:20]


# --------------------------------------------------------------------------------------------------
# Every output path
# --------------------------------------------------------------------------------------------------

PASSWORD = "PW-Secret-4411"
QUERY_KEY = "QK-Secret-5522"
ENV_KEY = "sk-env-Secret-6633"
SECRETS = (PASSWORD, QUERY_KEY, ENV_KEY)


def _header(request: dict, name: str) -> str | None:
    return next((v for k, v in request["headers"].items() if k.lower() == name), None)


def _run(args: list[str], env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    console = done.stdout + done.stderr
    assert "Traceback" not in console, console[-3000:]
    return console


def _written_text(root: Path) -> dict[Path, str]:
    texts = {}
    for path in root.rglob("*"):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        texts[path] = data.decode("utf-8", errors="replace")
    return texts


def test_no_output_path_writes_or_prints_a_secret(tmp_path):
    server = fakes.FakeServer()
    try:
        # A proxy that echoes the caller's credentials in its error, as some gateways do.
        # "chat/completions": the SDK appends the path after a base URL's query string.
        server.route(
            "POST",
            "chat/completions",
            lambda request: openai_error(
                502, f"upstream refused: Authorization: {_header(request, 'authorization')}"
            ),
        )
        host = server.url.removeprefix("http://")
        user_url = f"http://alice:{PASSWORD}@{host}/v1"
        query_url = f"http://{host}/v1?api_key={QUERY_KEY}"
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env |= {"PYTHONPATH": str(ROOT), "CELIL_TEST_KEY": ENV_KEY}
        sets = [
            f"models.openai_base_url={user_url}",
            "models.maestro.backend=openai",
            "models.maestro.openai_model=m",
            "models.maestro.max_retries=0",
            "models.verifiers.backend=openai",
            "models.verifiers.openai_model=m",
            f"models.verifiers.base_url={query_url}",
            "models.verifiers.api_key_env=CELIL_TEST_KEY",
            "models.verifiers.max_retries=0",
            "models.section_leader.backend=offline",
            "agent.configurations.celil_agent.max_rehearsals=1",
            "env.render=false",
        ]
        flags = [arg for item in sets for arg in ("--set", item)]
        run = ["-m", "android_world.harness.run"]
        consoles = []
        serial_out, parallel_out = tmp_path / "serial", tmp_path / "parallel"
        consoles.append(_run([*run, "--dry_run", *flags], env, ROOT))
        consoles.append(_run([*run, "--check_models", *flags], env, ROOT))
        consoles.append(
            _run(
                [*run, "--tasks", "SystemWifiTurnOn", "--output_path", str(serial_out), *flags],
                env,
                ROOT,
            )
        )
        consoles.append(
            _run(
                [
                    *run,
                    "--tasks",
                    "SystemWifiTurnOn,SystemWifiTurnOff",
                    "--workers",
                    "2",
                    "--output_path",
                    str(parallel_out),
                    *flags,
                ],
                env,
                ROOT,
            )
        )
        for run_dir in [*serial_out.iterdir(), *parallel_out.iterdir()]:
            report = ["-m", "android_world.reporting.report"]
            consoles.append(_run([*report, str(run_dir)], env, ROOT))
            consoles.append(
                _run(
                    [
                        *report,
                        str(run_dir),
                        "--export",
                        "SystemWifiTurnOn_0",
                        "--out",
                        str(run_dir / "export.html"),
                        "--gif",
                    ],
                    env,
                    ROOT,
                )
            )
    finally:
        server.close()

    written = _written_text(tmp_path)
    kinds = {
        p.name if p.suffix != ".json" or "checkpoints" not in p.parts else "checkpoint"
        for p in written
    }
    expected = {
        "results.jsonl",
        "summary.json",
        "feedback.jsonl",
        "episode.json",
        "report.html",
        "index.html",
        "manifest.json",
        "config.yaml",
        "checkpoint",
        "export.html",
    }
    assert expected <= kinds, kinds
    leaks = [
        (str(path), secret)
        for path, text in [
            *written.items(),
            *((Path(f"console {i}"), c) for i, c in enumerate(consoles)),
        ]
        for secret in SECRETS
        if secret in text
    ]
    assert leaks == []
    # Not vacuous: the failures were written, with the server's address, in redacted form.
    rows = [
        json.loads(line)
        for run_dir in [*serial_out.iterdir(), *parallel_out.iterdir()]
        for line in (run_dir / "results.jsonl").read_text().splitlines()
    ]
    assert len(rows) == 3 and all(row["model_errors"] for row in rows)
    everything = "\n".join([*written.values(), *consoles])
    assert f"{R}@{host}" in everything and f"api_key={R}" in everything
    assert f"Authorization: Basic {R}" in everything  # the maestro's userinfo, sent as Basic
    assert f"Authorization: Bearer {R}" in everything  # the verifiers' key from the environment
