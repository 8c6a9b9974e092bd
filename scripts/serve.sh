#!/usr/bin/env bash
# The main command: set up, build the sample problems, upload them into the local store,
# and serve the verifier on 127.0.0.1:8080 with the local sandbox backend.
#   scripts/serve.sh                     # then: curl 127.0.0.1:8080/readyz
# Environment: STORE (default .data/store in the checkout, git-ignored), PORT (8080), SKIP_SETUP=1 to skip
# scripts/setup.sh, any VERIFIER_* setting (see verifier/config.py).
set -euo pipefail
cd "$(dirname "$0")/.."
STORE="${STORE:-$PWD/.data/store}"
PORT="${PORT:-8080}"
[[ "${SKIP_SETUP:-0}" == 1 ]] || scripts/setup.sh
PY=.venv/bin/python
echo "[serve] building sample problems" >&2
"$PY" -m samples.build
sets=()
for s in samples/stdio samples/function samples/math; do [[ -d "$s" ]] && sets+=("$s"); done
echo "[serve] uploading ${sets[*]} into $STORE" >&2
for s in "${sets[@]}"; do
  if [[ -x .venv/bin/pstore ]]; then .venv/bin/pstore --store "$STORE" upload --no-progress "$s"
  else "$PY" -m problem_store.cli --store "$STORE" upload --no-progress "$s"; fi
done
echo "[serve] verifier on http://127.0.0.1:$PORT (docs: /docs)" >&2
if [[ -x .venv/bin/verifier ]]; then
  exec .venv/bin/verifier serve --host 127.0.0.1 --port "$PORT" --store "$STORE" --backend local
fi
exec "$PY" -m verifier.cli serve --host 127.0.0.1 --port "$PORT" --store "$STORE" --backend local
