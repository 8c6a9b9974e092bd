# Sourced by the RL bench scripts (rl_sft_vs_rl.sh, rl_staleness_robustness.sh, rl_lr_check.sh):
# the shared held-out evaluation, so every script's figures pair with the same prompts and seeds.
# Defines STORE, SFT, N, PY (environment: STORE, EVAL_SAMPLES, PY) and
#   heldout_eval OUTFILE [--weights FILE] [more rl-loop eval arguments]
# Needs scripts/demo_rl.sh's set-up done once (it builds the SFT model).
STORE="${STORE:-$PWD/.data/store}"
SFT=models/SmolLM2-135M-Instruct-sft
N="${EVAL_SAMPLES:-32}"
PY="${PY:-.venv/bin/python}"
[[ -f "$SFT/model.safetensors" ]] || { echo "run scripts/demo_rl.sh once first (it builds $SFT)" >&2; exit 2; }
heldout_eval() {
  local out=$1; shift
  "$PY" -m rl_loop.cli eval --model "$SFT" --store "$STORE" --split heldout --difficulty beginner \
    --samples "$N" --temperature 0.8 --max-new-tokens 256 --seed 0 --out "$out" "$@"
}
