"""`rl-loop sft`: a supervised warm start on reference solutions, before RL.

RL learns only from groups whose rewards differ. A model that never passes a test (the
135M demo model writes programs with hard-coded inputs) gives all-zero groups that the
dynamic filter drops, so the loop never trains. The usual remedy (and what the DeepSeek
and Qwen coding recipes do) is a short supervised pass first: here, on the reference
solutions kept beside the train-split problems, each rendered exactly as the RL loop will
render its prompt (same chat template, same instructions), the target being one fenced
block holding the reference program.

Examples come from a samples directory in the project's own format
(``DIR/<id>/solutions/ref.py``, see docs/problem-format.md); problems are taken from the
store, so only uploaded problems of the chosen split are used and held-out ones never are.
The loss is the mean token negative log-likelihood of the completion only (the prompt is
context, not a target). Single process, AdamW, seeded shuffling: the same inputs give the
same model.
"""
from __future__ import annotations

import logging
import os
import random
import time
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger("rl_loop.sft")

# Reference-solution file per sandbox language, in DIR/<id>/solutions/.
REFERENCE_FILES = {"python": "ref.py", "cpp": "ref.cpp", "c": "ref.c"}


@dataclass(frozen=True)
class SftExample:
    problem_id: str
    prompt_ids: list[int]
    completion_ids: list[int]


def completion_text(code: str, language: str) -> str:
    """The target answer: one fenced block, the form the prompt asks for and extraction reads."""
    fence = "cpp" if language == "cpp" else language
    return f"```{fence}\n{code.strip()}\n```"


def collect_examples(tokenizer, store_uri: str, solution_dirs: list[Path], split: str = "train",
                     difficulties: list[str] | None = None, kinds: tuple[str, ...] = ("stdio", "function"),
                     language: str = "python", max_tokens: int = 1536) -> tuple[list[SftExample], list[str]]:
    """(examples, skipped reasons) for every problem of `split` that has a reference solution."""
    from problem_store.problems import ProblemStore
    from problem_store.uri import open_store
    from rl_loop.config import DataConfig
    from rl_loop.rollouts import load_prompts

    if split == "heldout":
        raise ValueError("refusing to fine-tune on the held-out split: it is what evaluation measures")
    ref_name = REFERENCE_FILES.get(language)
    if ref_name is None:
        raise ValueError(f"no reference-solution file name for language {language!r}; known: {sorted(REFERENCE_FILES)}")
    store = ProblemStore(open_store(store_uri))
    wanted = [p.id for p in store.list(split=split)
              if p.kind in kinds and (not difficulties or p.difficulty in difficulties)]
    refs: dict[str, Path] = {}
    for d in solution_dirs:
        for pid in wanted:
            f = Path(d) / pid / "solutions" / ref_name
            if pid not in refs and f.is_file():
                refs[pid] = f
    skipped = [f"{pid}: no solutions/{ref_name} under {', '.join(map(str, solution_dirs))}"
               for pid in wanted if pid not in refs]
    if not refs:
        return [], skipped
    data = DataConfig(store_uri=store_uri, problem_ids=sorted(refs), language=language, splits=[split],
                      kinds=list(kinds))
    prompts, too_long = load_prompts(data, tokenizer, max_tokens)
    skipped += too_long
    examples = []
    for pid in sorted(prompts):
        target = completion_text(refs[pid].read_text(), language)
        ids = tokenizer(target, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
        if len(prompts[pid].prompt_ids) + len(ids) > max_tokens:
            skipped.append(f"{pid}: prompt + solution longer than {max_tokens} tokens")
            continue
        examples.append(SftExample(pid, prompts[pid].prompt_ids, ids))
    return examples, skipped


def completion_nll(model, example: SftExample):
    """Summed negative log-likelihood of the completion tokens given the prompt (a tensor)."""
    import torch

    p, c = example.prompt_ids, example.completion_ids
    ids = torch.tensor([p + c])
    # Project only the completion positions onto the vocabulary (49k wide): cheaper than
    # the full logits and numerically the same.
    hidden = model.model(input_ids=ids).last_hidden_state[0, len(p) - 1: -1]
    logp = torch.log_softmax(model.lm_head(hidden).float(), -1)
    return -logp.gather(-1, torch.tensor(c).unsqueeze(-1)).sum()


def fine_tune(base_dir: Path, examples: list[SftExample], out_dir: Path, epochs: int = 2, lr: float = 2e-5,
              batch_size: int = 4, grad_clip: float = 1.0, seed: int = 0) -> dict:
    """Train on `examples` and write the result as a model directory at `out_dir` (atomically)."""
    import torch
    from tqdm import tqdm
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rl_loop.models import _write_atomically, save_hf_dir

    if not examples:
        raise ValueError("no examples to fine-tune on")
    if epochs < 1 or batch_size < 1 or lr <= 0:
        raise ValueError(f"need epochs >= 1, batch_size >= 1, lr > 0; got {epochs}, {batch_size}, {lr}")
    torch.manual_seed(seed)
    rng = random.Random(f"rl_loop-sft:{seed}")
    model = AutoModelForCausalLM.from_pretrained(str(base_dir), dtype=torch.float32)
    tok = AutoTokenizer.from_pretrained(str(base_dir))
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    history = []
    t0 = time.perf_counter()
    steps_per_epoch = (len(examples) + batch_size - 1) // batch_size
    bar = tqdm(total=epochs * steps_per_epoch, desc="sft", unit="step",
               disable=os.environ.get("RL_LOOP_NO_TQDM") == "1")
    for epoch in range(epochs):
        order = list(examples)
        rng.shuffle(order)
        total_nll, total_tokens = 0.0, 0
        for start in range(0, len(order), batch_size):
            batch = order[start:start + batch_size]
            n_tok = sum(len(e.completion_ids) for e in batch)
            opt.zero_grad()
            for e in batch:  # gradient accumulation: one sequence at a time keeps memory flat
                nll = completion_nll(model, e)
                (nll / n_tok).backward()
                total_nll += float(nll.detach())
            total_tokens += n_tok
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
            opt.step()
            bar.update(1)
            bar.set_postfix(epoch=epoch + 1, nll=f"{total_nll / max(total_tokens, 1):.3f}")
        history.append({"epoch": epoch + 1, "nll_per_token": total_nll / total_tokens,
                        "seconds": time.perf_counter() - t0})
        logger.info("sft epoch %d/%d: completion NLL %.4f/token (%.0f s)", epoch + 1, epochs,
                    total_nll / total_tokens, time.perf_counter() - t0)
    bar.close()
    model.eval()
    _write_atomically(lambda tmp: save_hf_dir(model, tok, tmp), Path(out_dir))
    return {"out": str(out_dir), "examples": len(examples), "problems": sorted({e.problem_id for e in examples}),
            "epochs": history, "seconds": time.perf_counter() - t0}
