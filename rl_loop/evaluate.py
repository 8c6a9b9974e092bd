"""`rl-loop eval`: pass@1 / pass@k of a model on one split of the store, with the real verifier.

pass@1 is estimated as the mean reward (all_pass) over `samples` completions per problem
at the given temperature; internal errors are excluded from the mean and counted.
pass@k is Chen et al.'s unbiased estimator; both come with bootstrap 95 % intervals over
problems and a per-problem table (rl_loop/eval_stats.py). Problem k of the sorted order
always samples with seed + 7919 k, so two evaluations with one seed are paired and
`rl-loop compare A.json B.json` tests the difference.
Optionally loads a checkpoint's weights into the engine first (same path as training's
weight sync), so "before" and "after" use the identical engine and prompts.
"""
from __future__ import annotations

import os
import time

from rl_loop.eval_stats import summarise


async def evaluate(model: str, store: str, split: str = "heldout", samples: int = 4, max_new_tokens: int = 384,
                   difficulty: str | None = None, temperature: float = 1.0, seed: int = 0,
                   weights: str | None = None, max_model_len_tokens: int = 2048, ks: tuple[int, ...] = (1,),
                   chunk: int = 4) -> dict:
    from problem_store.problems import ProblemStore
    from problem_store.uri import open_store
    from rl_loop.config import DataConfig
    from rl_loop.generator import Generator, GeneratorSettings
    from rl_loop.rewards import RewardFn, make_client
    from rl_loop.rollouts import load_prompts
    from transformers import AutoTokenizer

    ps = ProblemStore(open_store(store))
    ids = [p.id for p in ps.list(split=split)
           if p.kind in ("stdio", "function") and (difficulty is None or p.difficulty == difficulty)]
    if not ids:
        raise SystemExit(f"no stdio/function problems with split={split} difficulty={difficulty} in {store}")
    tok = AutoTokenizer.from_pretrained(model)
    prompts, skipped = load_prompts(DataConfig(store_uri=store, problem_ids=ids, splits=[split]), tok,
                                    max_model_len_tokens - max_new_tokens)
    gen = Generator(GeneratorSettings(model_path=model, max_model_len_tokens=max_model_len_tokens,
                                      max_new_tokens=max_new_tokens, temperature=temperature, seed=seed))
    client = make_client("embedded", store)
    rewards = RewardFn(client)
    t0 = time.perf_counter()
    try:
        gen.start()
        if weights:
            gen.load_weights_sync(weights, 1)
        order = sorted(prompts)
        rewards_of = await score_problems(gen, rewards, prompts, order, samples, seed, chunk)
    finally:
        gen.stop()
        await client.close()
    per_problem = {pid: (sum(r) / len(r) if r else None) for pid, r in rewards_of.items()}
    summary = summarise({p: r for p, r in rewards_of.items() if r}, ks=ks, seed=seed)
    scored = [v for v in per_problem.values() if v is not None]
    return {
        "model": model, "weights": weights, "split": split, "difficulty": difficulty, "samples": samples,
        "temperature": temperature, "seed": seed, "max_new_tokens": max_new_tokens, "problems": len(scored),
        "pass_at_1": sum(scored) / len(scored) if scored else None,
        "summary": {k: v for k, v in summary.items() if k != "table"}, "table": summary.get("table", []),
        "per_problem": per_problem, "rewards": rewards_of, "ie_dropped": rewards.stats.ie_dropped,
        "skipped": skipped, "seconds": time.perf_counter() - t0,
    }


def eval_requests(order: list[str], prompts: dict, samples: int, seed: int, temperature: float | None = None) -> list:
    """One request per problem; problem k of the sorted order always gets seed + 7919 k, so two
    evaluations (two checkpoints, or one run's periodic evaluations) draw paired samples."""
    from rl_loop.generator import GenRequest

    return [GenRequest(k, prompts[pid].prompt_ids, samples, seed + 7919 * k, temperature=temperature)
            for k, pid in enumerate(order)]


def _no_tqdm() -> bool:
    return os.environ.get("RL_LOOP_NO_TQDM") == "1"


async def score_problems(gen, rewards, prompts: dict, order: list[str], samples: int, seed: int,
                         chunk: int = 4, progress: bool = True, temperature: float | None = None
                         ) -> dict[str, list[float]]:
    """Rewards of `samples` completions per problem (internal errors left out), generated in
    chunks of `chunk` problems so a progress bar moves; seeds do not depend on the chunking."""
    from tqdm import tqdm

    reqs = eval_requests(order, prompts, samples, seed, temperature)
    out: dict[str, list[float]] = {}
    bar = tqdm(total=len(reqs), desc="eval", unit="problem", disable=not progress or _no_tqdm())
    try:
        for i in range(0, len(reqs), max(chunk, 1)):
            for res in await gen.generate(reqs[i:i + chunk]):
                pid = order[res.key]
                rs = await rewards.score(pid, prompts[pid].kind, [c.text for c in res.completions])
                out[pid] = [r for r in rs if r is not None]
                bar.update(1)
    finally:
        bar.close()
    return out
