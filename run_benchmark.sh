#!/usr/bin/env bash
# Run the benchmark: python -m android_world.harness.run --config config/default.yaml [flags]
#   ./run_benchmark.sh --agent oracle_agent --tasks SystemWifiTurnOn --n_task_combinations 2
#   ./run_benchmark.sh --sim_profile all [--agent oracle_agent]   (success per task family x profile)
# Installs missing dependencies first (same logic as run_tests.sh).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=run_tests.sh
source "$ROOT/run_tests.sh"
ensure_deps || exit $?
cd "$ROOT" || exit 2
# --sim_profile all (or several profiles separated by ';'): the profile matrix, one run per profile.
args=("$@")
for i in "${!args[@]}"; do
  value=""
  case "${args[$i]}" in
    --sim_profile=*) value="${args[$i]#--sim_profile=}"; rest=("${args[@]:0:$i}" "${args[@]:$((i + 1))}") ;;
    --sim_profile) value="${args[$((i + 1))]:-}"; rest=("${args[@]:0:$i}" "${args[@]:$((i + 2))}") ;;
  esac
  if [[ "$value" == "all" || "$value" == *";"* ]]; then
    exec "$PYTHON" benchmarks/sim_profiles.py --profiles "$value" "${rest[@]}"
  fi
done
exec "$PYTHON" -m android_world.harness.run --config config/default.yaml "$@"
