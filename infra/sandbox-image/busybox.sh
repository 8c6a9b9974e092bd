#!/usr/bin/env bash
# Import Debian's static busybox as `busybox:latest` (no registry can be pulled from).
# moto's Lambda emulation copies function code into a volume through a busybox container,
# so the lambda backend's tests need it. Skipped when the image already exists.
set -euo pipefail
image="${1:-busybox:latest}"
docker image inspect "$image" >/dev/null 2>&1 && exit 0
bb="$(command -v busybox || true)"
[[ -n "$bb" ]] && "$bb" --list >/dev/null 2>&1 || { echo "busybox.sh: needs the busybox-static package" >&2; exit 1; }
root="$(mktemp -d)"; trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,tmp,etc}
cp "$bb" "$root/bin/busybox"
for applet in $("$bb" --list); do [[ -e "$root/bin/$applet" ]] || ln -s busybox "$root/bin/$applet"; done
tar --numeric-owner -C "$root" -c . | docker import --change 'ENV PATH=/bin' --change 'CMD ["sh"]' - "$image" >/dev/null
echo "[images] imported $image" >&2
