"""Weight-sync seconds vs model size: FSDP trainer (2 ranks, gloo) -> /dev/shm -> running vLLM.

    python bench/rl_weight_sync.py [--models models/tiny-llama models/SmolLM2-135M-Instruct] [--repeats 3]

For each model: start the trainer group and a vLLM engine, then push the weights
`repeats` times and report gather+write (trainer) and load (engine) seconds, and MB/s.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


async def one(model: str, repeats: int, world: int) -> dict:
    from rl_loop.algorithms import resolve_algorithm
    from rl_loop.generator import Generator, GeneratorSettings
    from rl_loop.trainer import Trainer, TrainerSettings
    from rl_loop.weight_sync import FileWeightSync

    gen = Generator(GeneratorSettings(model_path=model, max_model_len_tokens=512, max_new_tokens=16))
    tr = Trainer(TrainerSettings(model_path=model, world_size=world, spec=resolve_algorithm("grpo").to_dict(),
                                 log_path=os.path.join(tempfile.gettempdir(), "rl_bench_sync_trainer.log")))
    try:
        await asyncio.gather(asyncio.to_thread(gen.start), asyncio.to_thread(tr.start))
        sync = FileWeightSync(tr, [gen])
        for v in range(1, repeats + 1):
            await sync.push(v)
        h = sync.history
        mb = h[0].bytes / 2**20
        out = {
            "model": model, "trainer_ranks": world, "mbytes": round(mb, 1),
            "export_s": statistics.median(r.export_s for r in h), "load_s": statistics.median(r.load_s for r in h),
            "total_s": statistics.median(r.total_s for r in h),
        }
        out["mb_per_s"] = mb / out["total_s"]
        sync.cleanup()
        return out
    finally:
        tr.stop()
        gen.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="+", default=["models/tiny-llama", "models/SmolLM2-135M-Instruct"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--world-size", type=int, default=2)
    a = ap.parse_args()
    for m in a.models:
        print(json.dumps(asyncio.run(one(m, a.repeats, a.world_size))), flush=True)


if __name__ == "__main__":
    main()
