"""Generator tokens/s inside the RL loop vs vLLM alone on the same prompts.

    python bench/rl_generation_overhead.py --run-dir RUN --store STORE [--model DIR]

"Inside the loop" comes from a finished run's metrics (perf/gen_tokens_per_s: tokens per
second of engine busy time, and perf/gen_tokens_per_wall_s: per wall second of the step,
which includes the trainer competing for the same cores). "Alone" replays the run's first
prompts through a fresh engine with the same sampling settings and nothing else running.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--run-dir", required=True)
    ap.add_argument("--store", required=True)
    ap.add_argument("--prompts", type=int, default=8)
    a = ap.parse_args()
    import yaml
    from transformers import AutoTokenizer

    from rl_loop.config import RLConfig
    from rl_loop.generator import Generator, GeneratorSettings, GenRequest
    from rl_loop.metrics import read_metrics
    from rl_loop.rollouts import PromptSampler, load_prompts

    run = Path(a.run_dir)
    cfg = RLConfig.model_validate(yaml.safe_load((run / "config.yaml").read_text()))
    rows = read_metrics(run)[1:] or read_metrics(run)
    in_loop = statistics.mean(r["perf/gen_tokens_per_s"] for r in rows)
    in_loop_wall = statistics.mean(r["perf/gen_tokens_per_wall_s"] for r in rows)
    data = cfg.data.model_copy(update={"store_uri": a.store})
    tok = AutoTokenizer.from_pretrained(cfg.model.path)
    prompts, _ = load_prompts(data, tok, cfg.model.max_model_len_tokens - cfg.generation.max_new_tokens)
    sampler = PromptSampler(list(prompts), cfg.trainer.seed)
    g = cfg.generation
    gen = Generator(GeneratorSettings(model_path=cfg.model.path, max_model_len_tokens=cfg.model.max_model_len_tokens,
                                      max_new_tokens=g.max_new_tokens, temperature=g.temperature, top_p=g.top_p))
    gen.start()
    try:
        per_call = g.prompts_per_call or cfg.trainer.batch_size_prompts
        reqs = [GenRequest(i, prompts[sampler.problem_at(i)].prompt_ids, g.n_samples, sampler.sampling_seed(i))
                for i in range(a.prompts)]
        gen.generate_sync(reqs[:1])  # warm-up
        gen.tokens_generated, gen.generate_s = 0, 0.0
        t0 = time.perf_counter()
        for k in range(0, len(reqs), per_call):
            gen.generate_sync(reqs[k:k + per_call])
        alone = gen.tokens_generated / (time.perf_counter() - t0)
    finally:
        gen.stop()
    print(json.dumps({"in_loop_tokens_per_engine_s": in_loop, "in_loop_tokens_per_wall_s": in_loop_wall,
                      "alone_tokens_per_s": alone, "prompts_per_call": per_call,
                      "overhead_fraction": 1 - in_loop / alone}))


if __name__ == "__main__":
    main()
