#!/usr/bin/env bash
# Sandbox images for the docker and lambda backends (content-hash tags: skipped when current).
#   oubliette-sandbox-base  debootstrapped Debian bookworm + python3/gcc/g++ (~80 s the first time)
#   oubliette-sandbox       + sandboxes/ (docker backend)                    (seconds)
#   oubliette-lambda        + pydantic/boto3 + handler (lambda backend)      (~40 s, then cached layers)
#   busybox:latest          moto's Lambda emulation helper
# Always run (the docker/lambda tests need them). A failure fails setup --all (CI); on a
# plain setup it is a warning, so the local backend stays usable without Docker.
set -euo pipefail
cd "${ROOT:-$(dirname "$0")/../..}"
if ! docker info >/dev/null 2>&1; then
  echo "[setup] no Docker engine: skipping sandbox images" >&2
  ((${SETUP_ALL:-0})) && exit 1 || exit 0
fi
start=$(date +%s)
if infra/sandbox-image/build.sh --lambda >&2; then
  echo "[setup] sandbox images ready ($(( $(date +%s) - start )) s)" >&2
else
  echo "[setup] building sandbox images failed" >&2
  ((${SETUP_ALL:-0})) && exit 1
fi
exit 0
