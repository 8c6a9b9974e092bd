#!/usr/bin/env bash
# Off-policy robustness in the spirit of the Asynchronous RLHF paper (Noukhovitch et al. 2025):
# final train reward and held-out pass@1 (95 % CI, paired with the SFT model) for each preset at
# max_staleness 0, 1, 2 (and 4 with STALENESS="0 1 2 4"), TIME_BUDGET_S (default 1200) each.
#   bench/rl_staleness_robustness.sh     # 4 presets x 3 staleness x ~25 min: ~5 h on 2 idle cores
# Needs scripts/demo_rl.sh's set-up done once. A-3PO is undefined at staleness 0 (it is PPO
# there; the config refuses it), so that cell is skipped. Online DPO uses the SFT model as its
# frozen reference. Results: bench/results/rl_robustness/ (one eval JSON per run, table.md, plots).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/rl_heldout_eval.sh
OUT=bench/results/rl_robustness
PRESETS="${PRESETS:-aipo a3po decoupled_ppo online_dpo}"
mkdir -p "$OUT"
evaluate() {  # evaluate NAME [--weights FILE]
  local name=$1; shift
  heldout_eval "$OUT/$name.json" "$@" >/dev/null
}
[[ -f "$OUT/sft.json" ]] || evaluate sft
for preset in $PRESETS; do
  for s in ${STALENESS:-0 1 2}; do
    name="${preset}_s${s}"
    [[ -f "$OUT/$name.json" ]] && continue
    [[ "$preset" == a3po && "$s" == 0 ]] && continue
    extra=()
    case "$preset" in
      decoupled_ppo) extra=(trainer.recompute_logprobs=true trainer.ppo_epochs=2 trainer.mini_batches=2) ;;
      a3po) extra=(trainer.ppo_epochs=2 trainer.mini_batches=2) ;;
      online_dpo) extra=("model.reference_path=$SFT") ;;
    esac
    run="runs/robustness/$name"
    "$PY" -m rl_loop.cli train --config rl_loop/configs/demo_cpu.yaml "data.store_uri=$STORE" \
      "logging.run_dir=$run" "checkpoint.dir=$run/checkpoints" "trainer.time_budget_s=${TIME_BUDGET_S:-1200}" \
      "algorithm.name=$preset" "staleness.max_staleness=$s" "${extra[@]}"
    last=$(ls -d "$run"/checkpoints/step_* | sort | tail -1)
    evaluate "$name" --weights "$last/model.safetensors"
  done
done
"$PY" bench/rl_robustness_table.py --results "$OUT" --runs runs/robustness --out "$OUT"
