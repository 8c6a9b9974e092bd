#!/usr/bin/env bash
# Start the Docker engine when none answers (the docker and lambda backends need it).
set -euo pipefail
if ! docker info >/dev/null 2>&1; then
  echo "[setup] starting dockerd" >&2
  setsid dockerd >/var/log/dockerd.log 2>&1 < /dev/null &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { echo "dockerd did not start; see /var/log/dockerd.log" >&2; exit 1; }
fi
