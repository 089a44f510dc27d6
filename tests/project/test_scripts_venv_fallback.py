"""The README's commands on a system Python that refuses pip installs (PEP 668), for real.

Debian's /usr/bin/python3 is "externally managed": `pip install` fails with a long error. The
scripts must then make and use `.venv` with one clear line. The packages come from a local
wheelhouse (PIP_NO_INDEX), so the test never touches the network.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = Path("/usr/bin/python3")


def _externally_managed_python() -> Path:
    if not SYSTEM_PYTHON.exists():
        pytest.skip("no /usr/bin/python3 on this machine")
    probe = subprocess.run(
        [str(SYSTEM_PYTHON), "-c", "import sys, sysconfig; print(sysconfig.get_path('stdlib'))"],
        capture_output=True,
        text=True,
    )
    stdlib = Path(probe.stdout.strip())
    if probe.returncode != 0 or not (stdlib / "EXTERNALLY-MANAGED").is_file():
        pytest.skip(f"{SYSTEM_PYTHON} is not externally managed (no PEP 668 marker)")
    for module in ("pip", "venv", "ensurepip"):
        check = subprocess.run([str(SYSTEM_PYTHON), "-c", f"import {module}"], capture_output=True)
        if check.returncode != 0:
            pytest.skip(f"{SYSTEM_PYTHON} has no {module} module")
    return SYSTEM_PYTHON


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _write_probe_wheel(wheelhouse: Path) -> None:
    """A minimal pure-Python wheel, so pip has something real to install offline."""
    files = {
        "celil_probe/__init__.py": b"VALUE = 42\n",
        "celil_probe-1.0.dist-info/METADATA": (
            b"Metadata-Version: 2.1\nName: celil-probe\nVersion: 1.0\n"
        ),
        "celil_probe-1.0.dist-info/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: celil-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = [_record_line(name, data) for name, data in files.items()]
    record.append("celil_probe-1.0.dist-info/RECORD,,")
    wheelhouse.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheelhouse / "celil_probe-1.0-py3-none-any.whl", "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        archive.writestr("celil_probe-1.0.dist-info/RECORD", "\n".join(record) + "\n")


def _ensure_deps(checkout: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    script = 'source ./run_tests.sh && ensure_deps && echo "PYTHON=$PYTHON"'
    return subprocess.run(
        ["bash", "-c", script], cwd=checkout, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow
def test_a_refusing_system_python_gets_a_venv_with_one_line(tmp_path):
    python = _externally_managed_python()
    checkout = tmp_path / "celil"
    checkout.mkdir()
    shutil.copy2(ROOT / "run_tests.sh", checkout / "run_tests.sh")
    (checkout / "requirements.txt").write_text("celil-probe==1.0\n")
    _write_probe_wheel(tmp_path / "wheels")
    env = {
        k: v
        for k, v in os.environ.items()
        # CELIL_NO_INSTALL (set when the suite runs without run_tests.sh) would skip the step
        # under test.
        if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PIP_USER", "CELIL_NO_INSTALL")
    }
    env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(tmp_path / "wheels"), PYTHON=str(python))
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if ".pyenv" not in p
    ) or sysconfig.get_path("scripts")

    first = _ensure_deps(checkout, env)
    assert first.returncode == 0, first.stderr
    venv_python = checkout / ".venv" / "bin" / "python"
    assert f"PYTHON={venv_python}" in first.stdout
    lines = [line for line in first.stderr.splitlines() if line.strip()]
    assert any(
        "does not accept packages (PEP 668); using a virtual environment" in x for x in lines
    )
    assert not any("×" in x or x.startswith("error:") for x in lines), first.stderr
    assert len(lines) <= 3, first.stderr
    assert any("for other commands use .venv/bin/python" in x for x in lines)
    assert "externally-managed-environment" in (checkout / ".cache" / "pip-install.log").read_text()
    probe = subprocess.run(
        [str(venv_python), "-c", "import celil_probe; print(celil_probe.VALUE)"],
        capture_output=True,
        text=True,
    )
    assert probe.stdout.strip() == "42"

    del env["PYTHON"]  # the next run picks the checkout's .venv by itself and installs nothing
    second = _ensure_deps(checkout, env)
    assert second.returncode == 0 and f"PYTHON={venv_python}" in second.stdout
    assert "installing" not in second.stderr
