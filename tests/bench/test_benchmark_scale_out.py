"""benchmarks/scale_out.py end to end, small: the real Celil agent over the sleeping scripted
model in 1 and 2 worker processes; the table has a row per worker count and equal answers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_scale_out_prints_a_speed_up_table_with_equal_answers():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "scale_out.py"),
            "--workers",
            "1",
            "2",
            "--tasks",
            "SystemWifiTurnOn",
            "OpenAppTaskEval",
            "--instances",
            "1",
            "--backends",
            "local",
            "--model_delay",
            "0.3",
            "--device_delay",
            "0",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("2 episodes (2 tasks x 1), model 0.3 s per call")
    assert f"cores {os.cpu_count()}" in lines[0]
    [header] = [line for line in lines if line.startswith("| backend")]
    column = {name.strip(): i for i, name in enumerate(header.split("|")[1:-1])}
    rows = [line.split("|")[1:-1] for line in lines if line.startswith("| local")]
    assert [r[column["workers"]].strip() for r in rows] == ["1", "2"]
    same = column["same scores+steps"]
    assert all(r[same].strip() == "yes" for r in rows), result.stdout
    calls = {r[column["model calls"]].strip() for r in rows}
    assert len(calls) == 1 and int(calls.pop()) > 0  # every model call went over HTTP
