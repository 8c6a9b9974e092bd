#!/usr/bin/env bash
# Learning-rate check at fixed time (issue 14): does the policy move, and does held-out pass@1
# follow? AIPO at the demo's staleness 1, TIME_BUDGET_S (default 1200) per learning rate, each
# evaluated with the same prompts and seeds as the SFT model of the staleness table and compared
# with it pair by pair (`rl-loop compare`).
#   LRS="2e-5 5e-5" bench/rl_lr_check.sh      # ~27 min per learning rate on 2 idle cores
# Needs scripts/demo_rl.sh's set-up done once. Resumable: a learning rate with a result is skipped.
# Results: bench/results/rl_lr/aipo_lr<LR>.json (eval) and .compare.json (paired with SFT).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/rl_heldout_eval.sh
OUT=bench/results/rl_lr
BASE_EVAL=bench/results/rl_robustness/sft.json
mkdir -p "$OUT"
evaluate() {  # evaluate OUTFILE [--weights FILE]
  heldout_eval "$@" >/dev/null
}
[[ -f "$BASE_EVAL" ]] || evaluate "$BASE_EVAL"
for lr in ${LRS:-2e-5 5e-5}; do
  name="aipo_lr${lr}"
  [[ -f "$OUT/$name.json" ]] && continue
  run="runs/lr/$name"
  "$PY" -m rl_loop.cli train --config rl_loop/configs/demo_cpu.yaml "data.store_uri=$STORE" \
    "logging.run_dir=$run" "checkpoint.dir=$run/checkpoints" "trainer.time_budget_s=${TIME_BUDGET_S:-1200}" \
    "trainer.lr=$lr"
  last=$(ls -d "$run"/checkpoints/step_* | sort | tail -1)
  evaluate "$OUT/$name.json" --weights "$last/model.safetensors"
  "$PY" -m rl_loop.cli compare "$BASE_EVAL" "$OUT/$name.json" --out "$OUT/$name.compare.json"
  mkdir -p "$OUT/runs/$name" && cp "$run/config.yaml" "$run/metrics.jsonl" "$OUT/runs/$name/"
done
