#!/usr/bin/env bash
# Set up everything (system packages, venv with all extras, images, engine) and run
# the whole test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --all
exec .venv/bin/python -m pytest -q -ra "$@"
