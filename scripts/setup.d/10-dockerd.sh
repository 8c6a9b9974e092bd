#!/usr/bin/env bash
# Start the Docker engine when none answers (the docker and lambda backends need it).
set -euo pipefail
# A pid file left by an engine that is gone (a reset machine) stops dockerd from starting,
# and its pid may by now be another process's: remove it unless that pid is the program.
clear_stale() {  # pidfile program
  local pid
  [ -f "$1" ] || return 0
  pid=$(cat "$1" 2>/dev/null || true)
  if [ -z "$pid" ] || [ "$(cat "/proc/$pid/comm" 2>/dev/null || true)" != "$2" ]; then
    echo "[setup] removing stale $1 (pid '${pid}' is not $2)" >&2
    rm -f "$1"
  fi
}
if ! docker info >/dev/null 2>&1; then
  clear_stale /var/run/docker.pid dockerd
  clear_stale /var/run/docker/containerd/containerd.pid containerd
  echo "[setup] starting dockerd" >&2
  setsid dockerd >/var/log/dockerd.log 2>&1 < /dev/null &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { echo "dockerd did not start; see /var/log/dockerd.log" >&2; exit 1; }
fi
