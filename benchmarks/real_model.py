"""Seconds per model call and calls per step with a real small model on a local server.

Run: `python benchmarks/real_model.py [--tasks A B ...] [--server llama-cpp-python|llama-server]`.
Needs the real-model tier that ./run_tests.sh installs (llama-cpp-python's server and the
SmolLM2-135M-Instruct GGUF in .cache/realmodel/); llama-server is used when it is on PATH or named
by $CELIL_LLAMA_SERVER. The planner and the verifiers run on the model, the executor offline (a
135M text model cannot ground taps). One row per role, then the run's totals; the machine's core
count is printed beside them, since a CPU server's speed depends on it.
"""

from __future__ import annotations

import argparse
import collections
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import realmodel_support as rm  # noqa: E402

DEFAULT_TASKS = ("SystemWifiTurnOn", "OpenAppTaskEval", "ContactsAddContact")


def start(kind: str, log_dir: Path) -> rm.ModelServer:
    if kind == "llama-server":
        binary = rm.llama_server_binary()
        if binary is None:
            sys.exit("llama-server not found: put it on PATH or set CELIL_LLAMA_SERVER")
        return rm.start_llama_server(binary, log_dir / "server.log")
    missing = rm.llama_cpp_python_missing()
    if missing:
        sys.exit(missing)
    return rm.start_llama_cpp_python(log_dir / "server.log")


def measure(kind: str, tasks: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        server = start(kind, tmp_path)
        try:
            run = rm.run_celil(tmp_path, server.base_url, tasks, ("maestro", "verifiers"))
        finally:
            server.stop()
        calls = [c for ev in run.events().values() for c in ev if c.get("type") == "model_call"]
        steps = sum(int(r["steps"] or 0) for r in run.results())
    by_role: dict[str, list[dict]] = collections.defaultdict(list)
    for call in calls:
        by_role[call["role"]].append(call)
    print(f"server: {kind}, model: {rm.MODEL_ALIAS}, cores: {os.cpu_count()}, tasks: {len(tasks)}")
    header = f"{'role':<12}{'calls':>7}{'s/call':>9}{'p50 s':>8}{'prompt tok':>12}{'answer tok':>12}{'errors':>8}"
    print(header)
    print("-" * len(header))
    for role, group in sorted(by_role.items()):
        latencies = [c["latency_s"] for c in group]
        print(
            f"{role:<12}{len(group):>7}{statistics.fmean(latencies):>9.2f}"
            f"{statistics.median(latencies):>8.2f}"
            f"{statistics.fmean(c['prompt_tokens'] for c in group):>12.0f}"
            f"{statistics.fmean(c['completion_tokens'] for c in group):>12.0f}"
            f"{sum(1 for c in group if c['error']):>8}"
        )
    total = sum(c["latency_s"] for c in calls)
    print("-" * len(header))
    print(
        f"{'all':<12}{len(calls):>7}{total / max(len(calls), 1):>9.2f}{'':>8}"
        f"{'':>12}{'':>12}{sum(1 for c in calls if c['error']):>8}"
    )
    print(
        f"steps: {steps}, calls per step: {len(calls) / max(steps, 1):.2f}, model s per step: "
        f"{total / max(steps, 1):.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=list(DEFAULT_TASKS))
    parser.add_argument("--server", choices=("llama-cpp-python", "llama-server"), default=None)
    args = parser.parse_args()
    kinds = [args.server] if args.server else ["llama-cpp-python"]
    if args.server is None and rm.llama_server_binary():
        kinds.append("llama-server")
    for kind in kinds:
        measure(kind, args.tasks)
        print()


if __name__ == "__main__":
    main()
