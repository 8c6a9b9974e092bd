#!/usr/bin/env bash
# Build oubliette-verifier:latest without any registry: the Debian base image from
# infra/sandbox-image (built first if missing), bubblewrap from Debian packages, and the
# Python dependencies copied from this checkout's venv (same Python minor version).
# Usage: infra/service/build.sh [--with-moto]   (--with-moto: also vendor moto for compose's S3)
set -euo pipefail
cd "$(dirname "$0")/../.."
PY="${PYTHON:-.venv/bin/python}"
docker info >/dev/null 2>&1 || { echo "build.sh: no Docker engine answers" >&2; exit 1; }
docker image inspect oubliette-sandbox-base:latest >/dev/null 2>&1 || infra/sandbox-image/build.sh
ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/debs" "$ctx/app"
( cd "$ctx" && apt-get download -qq bubblewrap libcap2 >/dev/null )
for deb in "$ctx"/*.deb; do dpkg -x "$deb" "$ctx/debs"; done
rm -f "$ctx"/*.deb
pkgs=(aiohttp uvloop pydantic PyYAML boto3 sympy docker)
[[ "${1:-}" == "--with-moto" ]] && pkgs+=(moto flask flask-cors werkzeug)
"$PY" infra/sandbox-image/vendor_site.py "$ctx/site" "${pkgs[@]}"
for d in verifier sandboxes problem_store samples; do
  cp -r "$d" "$ctx/app/$d"
done
find "$ctx/app" -name __pycache__ -prune -exec rm -rf {} +
docker build -q -t oubliette-verifier:latest -f infra/service/Dockerfile "$ctx"
echo "built oubliette-verifier:latest"
