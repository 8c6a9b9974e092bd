#!/usr/bin/env bash
# Build the sandbox base image from a Debian root filesystem (no registry can be pulled from).
#   base.sh IMAGE:TAG
# debootstraps bookworm (minbase + packages.txt) into a temporary directory, trims what a
# judge never reads (docs, man pages, locales, apt lists) and `docker import`s the tree.
# Downloaded .debs stay in $OUBLIETTE_CACHE_DIR/debs so a rebuild needs no network.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
image="${1:?usage: base.sh IMAGE:TAG}"
cache="${OUBLIETTE_CACHE_DIR:-/var/cache/oubliette}"
suite="${DEBIAN_SUITE:-bookworm}"
# The mirror configured for apt on this machine (deb822 URIs: or one-line deb), else Debian's CDN.
mirror="${DEBIAN_MIRROR:-$(grep -hoE '^URIs: *http[^ ]*/debian$' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 | sed 's/^URIs: *//')}"
mirror="${mirror:-http://deb.debian.org/debian}"
pkgs="$(grep -vE '^\s*(#|$)' "$here/packages.txt" | paste -sd, -)"
pkgs="${pkgs}${EXTRA_PACKAGES:+,$EXTRA_PACKAGES}"

mkdir -p "$cache/debs"
root="$(mktemp -d "${TMPDIR:-/tmp}/oubliette-rootfs.XXXXXX")"
trap 'rm -rf "$root"' EXIT
echo "[base] debootstrap $suite minbase +$pkgs from $mirror" >&2
debootstrap --variant=minbase --include="$pkgs" --cache-dir="$cache/debs" \
  "$suite" "$root" "$mirror" >"$cache/debootstrap.log" 2>&1 \
  || { tail -20 "$cache/debootstrap.log" >&2; exit 1; }
# Trim: nothing in the sandbox reads these. /tmp and /run are tmpfs at run time.
rm -rf "$root"/usr/share/{doc,man,info,locale,lintian} "$root"/var/lib/apt/lists/* \
       "$root"/var/cache/apt/* "$root"/var/cache/debconf/*-old "$root"/var/log/* "$root"/tmp/*
echo "[base] rootfs $(du -sh "$root" | cut -f1); importing as $image" >&2
tar --numeric-owner -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change "LABEL org.oubliette.base.packages=$pkgs" \
  - "$image" >/dev/null
