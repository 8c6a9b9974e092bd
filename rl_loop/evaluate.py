"""`rl-loop eval`: pass@1 of a model on one split of the store, with the real verifier.

pass@1 is estimated as the mean reward (all_pass) over `samples` completions per problem
at the given temperature; internal errors are excluded from the mean and counted.
Optionally loads a checkpoint's weights into the engine first (same path as training's
weight sync), so "before" and "after" use the identical engine and prompts.
"""
from __future__ import annotations

import time


async def evaluate(model: str, store: str, split: str = "heldout", samples: int = 4, max_new_tokens: int = 384,
                   difficulty: str | None = None, temperature: float = 1.0, seed: int = 0,
                   weights: str | None = None, max_model_len_tokens: int = 2048) -> dict:
    from problem_store.problems import ProblemStore
    from problem_store.uri import open_store
    from rl_loop.config import DataConfig
    from rl_loop.generator import Generator, GeneratorSettings, GenRequest
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
        reqs = [GenRequest(k, prompts[pid].prompt_ids, samples, seed + 7919 * k) for k, pid in enumerate(order)]
        results = await gen.generate(reqs)
        per_problem = {}
        for res in results:
            pid = order[res.key]
            rs = await rewards.score(pid, prompts[pid].kind, [c.text for c in res.completions])
            ok = [r for r in rs if r is not None]
            per_problem[pid] = sum(ok) / len(ok) if ok else None
    finally:
        gen.stop()
        await client.close()
    scored = [v for v in per_problem.values() if v is not None]
    return {
        "model": model, "weights": weights, "split": split, "difficulty": difficulty, "samples": samples,
        "temperature": temperature, "problems": len(scored), "pass_at_1": sum(scored) / len(scored) if scored else None,
        "per_problem": per_problem, "ie_dropped": rewards.stats.ie_dropped, "skipped": skipped,
        "seconds": time.perf_counter() - t0,
    }
