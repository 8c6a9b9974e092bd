#!/usr/bin/env bash
# SFT vs RL on the held-out beginner problems, with confidence (issue: learning measured).
#   bench/rl_sft_vs_rl.sh        # ~70 min+ on 2 idle cores; needs scripts/demo_rl.sh's set-up done once
# 1. pass@1 / pass@8 of the warm-started (SFT) model, EVAL_SAMPLES (default 32) samples per problem;
# 2. TIME_BUDGET_S (default 3600) of RL with rl_loop/configs/demo_cpu.yaml, evaluating the held-out
#    set every EVAL_EVERY (default 10) versions during training (metrics eval/pass_at_1, plotted);
# 3. the same evaluation of the last checkpoint, same seeds; 4. a paired comparison (bootstrap CI
#    of the per-problem difference, paired bootstrap and sign-test p-values).
# Results: bench/results/rl_sft_vs_rl/{sft,rl,compare}.json and the run's plots.
# Extra arguments are config overrides for the RL run (e.g. algorithm.name=online_dpo).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/rl_heldout_eval.sh
OUT=bench/results/rl_sft_vs_rl
RUN=runs/sft_vs_rl
mkdir -p "$OUT"
evaluate() {  # evaluate NAME [--weights FILE]
  local name=$1; shift
  heldout_eval "$OUT/$name.json" --k 8 "$@"
}
[[ -f "$OUT/sft.json" ]] || evaluate sft
"$PY" -m rl_loop.cli train --config rl_loop/configs/demo_cpu.yaml "data.store_uri=$STORE" \
  "logging.run_dir=$RUN" "checkpoint.dir=$RUN/checkpoints" "trainer.time_budget_s=${TIME_BUDGET_S:-3600}" \
  "eval.every_steps=${EVAL_EVERY:-10}" eval.samples=8 eval.temperature=0.8 "$@"
last=$(ls -d "$RUN"/checkpoints/step_* | sort | tail -1)
evaluate rl --weights "$last/model.safetensors"
"$PY" -m rl_loop.cli compare "$OUT/sft.json" "$OUT/rl.json" --out "$OUT/compare.json"
"$PY" -m rl_loop.cli plot "$RUN" --out "$OUT/plots"
