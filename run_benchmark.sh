#!/usr/bin/env bash
# Run the benchmark: python -m android_world.run --config config/default.yaml [flags]
#   ./run_benchmark.sh --agent oracle_agent --tasks SystemWifiTurnOn --n_task_combinations 2
# Installs missing dependencies first (same logic as run_tests.sh).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=run_tests.sh
source "$ROOT/run_tests.sh"
ensure_deps || exit $?
cd "$ROOT" || exit 2
exec "$PYTHON" -m android_world.run --config config/default.yaml "$@"
