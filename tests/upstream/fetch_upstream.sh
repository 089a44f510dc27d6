#!/usr/bin/env bash
# Fetch upstream AndroidWorld into .cache/upstream/ (ignored by git) for the tests that use it
# (test_plugin_real_upstream.py, test_upstream_agents_here.py, test_upstream_checkpoints.py,
# test_upstream_agent_surface.py): a shallow clone, its protos compiled, a virtual environment
# with upstream's requirements plus the plugin's extra ones, and one over this harness's own
# packages with what upstream's agents import. Only when the source is reachable; otherwise it
# says so and exits 0 (those tests then skip). Nothing here is committed.
#   tests/upstream/fetch_upstream.sh            (CELIL_UPSTREAM_URL: another clone source, e.g.
#                                                a local mirror: CELIL_UPSTREAM_URL=/path/to/repo)
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DEST="$ROOT/.cache/upstream"
URL="${CELIL_UPSTREAM_URL:-https://github.com/google-research/android_world}"
PY="${PYTHON:-python3}"
LOG="$DEST/fetch.log"

_say() { echo "[celil] $*" >&2; }

mkdir -p "$DEST"
: >"$LOG"
if [[ ! -f "$DEST/android_world/run.py" ]]; then
  if ! timeout 20 git ls-remote "$URL" HEAD >>"$LOG" 2>&1; then
    _say "upstream AndroidWorld is not reachable ($URL); its plugin test will be skipped"
    exit 0
  fi
  rm -rf "$DEST/android_world.partial"
  if ! git clone -q --depth 1 "$URL" "$DEST/android_world.partial" >>"$LOG" 2>&1; then
    _say "could not clone $URL (see $LOG); the upstream plugin test will be skipped"
    exit 0
  fi
  mv "$DEST/android_world.partial" "$DEST/android_world"
fi

VENV="$DEST/venv"
if [[ ! -f "$VENV/.complete" ]]; then
  _say "installing upstream's requirements into $VENV (once; log: $LOG) ..."
  rm -rf "$VENV"
  extra="$DEST/requirements-celil.txt"
  if "$PY" -m venv "$VENV" >>"$LOG" 2>&1 \
    && PYTHONPATH="$ROOT" "$PY" -m android_world.agents.custom.install "$DEST/android_world" \
      --requirements >"$extra" \
    && "$VENV/bin/pip" install -q -r "$DEST/android_world/requirements.txt" -r "$extra" >>"$LOG" 2>&1; then
    touch "$VENV/.complete"
  else
    _say "could not build the upstream environment (see $LOG); the upstream plugin test will be skipped"
    exit 0
  fi
fi

# Upstream's own agents (T3A, M3A, SeeAct) run on this harness: its Python and packages plus what
# the agents import (tests/upstream/requirements-agents.txt), for tests/upstream_compat/test_upstream_agents_here.py.
AGENTS_VENV="$DEST/agents-venv"
if [[ ! -f "$AGENTS_VENV/.complete" ]]; then
  _say "installing what upstream's agents import into $AGENTS_VENV (once) ..."
  rm -rf "$AGENTS_VENV"
  if "$PY" -m venv --system-site-packages "$AGENTS_VENV" >>"$LOG" 2>&1 \
    && "$AGENTS_VENV/bin/pip" install -q -r "$ROOT/tests/upstream/requirements-agents.txt" >>"$LOG" 2>&1; then
    touch "$AGENTS_VENV/.complete"
  else
    _say "could not build the agents' environment (see $LOG); their test will be skipped"
  fi
fi

proto_dir="android_world/task_evals/information_retrieval/proto"
if [[ ! -f "$DEST/android_world/$proto_dir/state_pb2.py" ]]; then
  (cd "$DEST/android_world" && for name in state task; do
    "$VENV/bin/python" -m grpc_tools.protoc --proto_path=. --python_out=. "$proto_dir/$name.proto"
  done) >>"$LOG" 2>&1 || _say "could not compile upstream's protos (see $LOG)"
fi
_say "upstream AndroidWorld ready in $DEST ($(git -C "$DEST/android_world" log -1 --format='%h %cs'))"
exit 0
