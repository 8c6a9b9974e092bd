#!/usr/bin/env bash
# Build the sandbox images, each tagged with a hash of its inputs (skipped when current):
#   oubliette-sandbox-base:<h>   debootstrapped Debian bookworm + compilers   (base.sh)
#   oubliette-sandbox:<h>        + this checkout's sandboxes/ package         (Dockerfile)
#   oubliette-lambda:<h>         + pydantic, boto3, blob stores, entrypoint   (--lambda; infra/lambda/)
#   busybox:latest               moto's helper image                          (--lambda)
# Usage: infra/sandbox-image/build.sh [--lambda]
set -euo pipefail
cd "$(dirname "$0")/../.."
PY="${PYTHON:-.venv/bin/python}"
docker info >/dev/null 2>&1 || { echo "build.sh: no Docker engine answers (scripts/setup.d/10-dockerd.sh)" >&2; exit 1; }
exec "$PY" -m sandboxes.backends.docker_image "$@"
