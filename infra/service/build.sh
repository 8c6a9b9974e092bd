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
chmod 0777 "$ctx"  # apt-get download runs as _apt
( cd "$ctx" && apt-get download -qq bubblewrap libcap2 >/dev/null )
for deb in "$ctx"/*.deb; do dpkg -x "$deb" "$ctx/debs"; done
rm -f "$ctx"/*.deb
# Debian bookworm has merged /usr (/lib -> usr/lib): move package files under usr/ so the
# COPY does not replace the image's /lib symlink with a directory.
for top in lib bin sbin lib64; do
  if [[ -d "$ctx/debs/$top" ]]; then
    mkdir -p "$ctx/debs/usr/$top" && cp -a "$ctx/debs/$top/." "$ctx/debs/usr/$top/" && rm -rf "$ctx/debs/$top"
  fi
done
# (the docker SDK is left out: inside a container the service runs the local or lambda backend)
pkgs=(aiohttp uvloop pydantic PyYAML boto3 sympy math-verify)
[[ "${1:-}" == "--with-moto" ]] && pkgs+=(moto flask flask-cors werkzeug)
"$PY" infra/sandbox-image/vendor_site.py "$ctx/site" "${pkgs[@]}" >/dev/null
for d in verifier sandboxes problem_store samples; do
  cp -r "$d" "$ctx/app/$d"
done
find "$ctx/app" -name __pycache__ -prune -exec rm -rf {} +
docker build -q -t oubliette-verifier:latest -f infra/service/Dockerfile "$ctx"
echo "built oubliette-verifier:latest"
